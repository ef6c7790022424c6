"""Ratings worked out by hand from the Weng-Lin Plackett-Luce update (JMLR 12, 2011,
Algorithm 4, as openskill applies it), written out here without openskill, against
what the service stores and answers for a game between new players."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from service.generator import generate_game
from service.ratings import Rating, drifted_sigma, ranks
from service.ratings.model import DRIFT_PER_DAY

from ..api.helpers import API, post_log
from .helpers import dated, record, renamed, sample

MU, SIGMA = 25.0, 25.0 / 3  # the prior
BETA = SIGMA / 2  # the performance noise
TAU = MU / 300  # added to every sigma, in quadrature, before a game
KAPPA = 1e-4  # the smallest factor a variance may shrink by


def plackett_luce(teams: list[list[tuple[float, float]]],
                  places: list[int]) -> list[list[tuple[float, float]]]:
    """New (mu, sigma) of every player.  A team's mu and sigma^2 are its players' sums;
    c^2 = sum over teams of (sigma_i^2 + beta^2); for each team q, S_q = the sum of
    exp(mu_s / c) over the teams s placed at q's place or worse, and A_q the number of
    teams sharing q's place.  For team i, over the teams q placed at i's place or
    better, with p = exp(mu_i / c) / S_q:
        Omega_i = sigma_i^2 / c * sum((1 if q == i else 0) - p) / A_q
        Delta_i = (sigma_i / c) * sigma_i^2 / c^2 * sum(p * (1 - p)) / A_q
    and each player j of i: mu_j += sigma_j^2 / sigma_i^2 * Omega_i,
    sigma_j *= sqrt(max(1 - sigma_j^2 / sigma_i^2 * Delta_i, kappa)).
    Teams sharing a place then all move by the mean of their mu changes."""
    teams = [[(mu, math.sqrt(sigma ** 2 + TAU ** 2)) for mu, sigma in team] for team in teams]
    mus = [sum(mu for mu, _ in team) for team in teams]
    variances = [sum(sigma ** 2 for _, sigma in team) for team in teams]
    c = math.sqrt(sum(v + BETA ** 2 for v in variances))
    strength = [math.exp(mu / c) for mu in mus]
    n = len(teams)
    s = [sum(strength[t] for t in range(n) if places[t] >= places[q]) for q in range(n)]
    a = [sum(1 for t in range(n) if places[t] == places[q]) for q in range(n)]
    out = []
    for i, team in enumerate(teams):
        omega = delta = 0.0
        for q in range(n):
            if places[q] <= places[i]:
                p = strength[i] / s[q]
                omega += ((1.0 if q == i else 0.0) - p) / a[q]
                delta += p * (1 - p) / a[q]
        omega *= variances[i] / c
        delta *= math.sqrt(variances[i]) / c * variances[i] / c ** 2
        out.append([(mu + sigma ** 2 / variances[i] * omega,
                     sigma * math.sqrt(max(1 - sigma ** 2 / variances[i] * delta, KAPPA)))
                    for mu, sigma in team])
    for place in set(places):
        tied = [i for i in range(n) if places[i] == place]
        if len(tied) > 1:
            shift = sum(out[i][0][0] - teams[i][0][0] for i in tied) / len(tied)
            out = [[(teams[i][j][0] + shift, sigma) for j, (_, sigma) in enumerate(team)]
                   if i in tied else team for i, team in enumerate(out)]
    return out


def expected_for_new_players(log: dict, totals: dict[str, int],
                             lower_wins: bool = False) -> dict[str, tuple[float, float]]:
    players = log["players"]
    scores = [(-1 if lower_wins else 1) * totals[p] for p in players]
    new = plackett_luce([[(MU, SIGMA)] for _ in players], ranks(scores))
    return {p: team[0] for p, team in zip(players, new, strict=True)}


def stored(client, player: str, variant: str) -> tuple[float, float]:
    (entry,) = client.get(f"{API}/players/{player}/ratings?variant={variant}").get_json()[
        "history"]
    return entry["mu"], entry["sigma"]


def check(client, log: dict, variant: str, lower_wins: bool = False) -> None:
    """The game, stored between new players, rates them as worked out by hand."""
    totals = record(log).game_players
    points = {row[2]: row[8] for row in totals}
    assert post_log(client, log).status_code == 201
    for player, (mu, sigma) in expected_for_new_players(log, points, lower_wins).items():
        assert stored(client, player, variant) == pytest.approx((mu, sigma), rel=1e-12)


def test_two_players(client):
    log = renamed(dated(sample("gin-01"), 0), "-2p")  # ana 140, ben 44
    check(client, log, "gin")
    (ana, _), (ben, _) = stored(client, "ana-2p", "gin"), stored(client, "ben-2p", "gin")
    assert ana > MU > ben and ana - MU == pytest.approx(MU - ben)


def four_player_game() -> dict:
    """The first generated four-player Rummy game whose four totals all differ."""
    for seed in range(100):
        log = generate_game("rummy", seed, players=4, played_at="2024-02-01T10:00:00Z")
        points = [row[8] for row in record(log).game_players]
        if len(set(points)) == 4:
            return renamed(log, "-4p")
    raise AssertionError("no four-player game with four different totals")


def test_four_players(client):
    check(client, four_player_game(), "rummy")


def test_four_players_with_a_tie(client):
    # ana 19, ben 0, cleo 0, dan 215: ben and cleo tie
    log = renamed(dated(sample("rummy-02"), 0), "-tie")
    check(client, log, "rummy")
    assert stored(client, "ben-tie", "rummy") == stored(client, "cleo-tie", "rummy")


def test_penalty_scoring_ranks_the_lowest_total_first(client):
    # penalty points: ana 13, ben 27, cleo 34
    log = renamed(dated(sample("greek-01"), 0), "-pen")
    check(client, log, "greek", lower_wins=True)
    ana, ben, cleo = (stored(client, p + "-pen", "greek")[0] for p in ("ana", "ben", "cleo"))
    assert ana > ben > cleo
    (entry,) = client.get(f"{API}/players/ana-pen/ratings?variant=greek").get_json()[
        "history"]
    assert entry["rank"] == 1


def test_partners_move_together(client):
    log = renamed(dated(sample("gin-4p-teams"), 0), "-team")  # ben+dan win
    assert post_log(client, log).status_code == 201
    new = plackett_luce([[(MU, SIGMA), (MU, SIGMA)], [(MU, SIGMA), (MU, SIGMA)]], [2, 1])
    got = {p: stored(client, f"{p}-team", "gin") for p in ("ana", "ben", "cleo", "dan")}
    assert got["ana"] == got["cleo"] == pytest.approx(new[0][0], rel=1e-12)
    assert got["ben"] == got["dan"] == pytest.approx(new[1][0], rel=1e-12)
    assert got["ben"][0] > MU > got["ana"][0]


def test_days_away_drift_sigma_up_to_the_prior():
    rating = Rating(27.0, 3.0, 5, record(dated(sample("gin-01"), 0)).games[15])
    later = rating.last_played + timedelta(days=40)
    assert drifted_sigma(rating, later) == pytest.approx(
        math.sqrt(9.0 + DRIFT_PER_DAY ** 2 * 40))
    assert drifted_sigma(rating, later + timedelta(days=10**5)) == pytest.approx(SIGMA)
    assert drifted_sigma(rating, rating.last_played - timedelta(days=1)) == 3.0

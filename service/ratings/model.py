"""The rating model: OpenSkill's Plackett-Luce with its defaults, a per-day drift of
the uncertainty, the displayed ordinal and the provisional flag.

A player's skill is a normal belief N(mu, sigma^2).  Everybody starts at openskill's
prior, mu = 25 and sigma = 25/3; every rated game moves mu towards the places the
players took and shrinks sigma, after adding openskill's ``tau`` (25/300) to sigma
in quadrature, which keeps ratings able to move.  On top of that, time away from a
pool makes the belief vaguer: before a game, sigma^2 grows by ``DRIFT_PER_DAY``^2 for
every day since the player's last rated game of the pool, never beyond the prior's
sigma.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
MU0 = MODEL.mu
SIGMA0 = MODEL.sigma
DRIFT_PER_DAY = 0.1  # sigma^2 grows by 0.01 a day away (a year: +3.65)
Z = 3.0  # the ordinal is mu - Z * sigma: 99.7% sure the skill is at least that
DAY = 86400.0  # seconds

# What the stored ratings were computed with: a store whose ratings were made under
# another description recomputes them (service/store/ratings.py).
DESCRIPTION = (f"openskill PlackettLuce mu={MU0} sigma={SIGMA0} beta={MODEL.beta} "
               f"tau={MODEL.tau} kappa={MODEL.kappa} drift/day={DRIFT_PER_DAY}")


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one pool after ``games`` rated games, the last at
    ``last_played`` (None before any)."""

    mu: float
    sigma: float
    games: int = 0
    last_played: datetime | None = None

    @property
    def ordinal(self) -> float:
        """The displayed rating, mu - 3 sigma: low while little is known."""
        return self.mu - Z * self.sigma


def initial_rating() -> Rating:
    """The rating of a player before their first rated game of a pool."""
    return Rating(MU0, SIGMA0)


def drifted_sigma(rating: Rating, at: datetime) -> float:
    """Sigma at ``at``: sigma^2 + DRIFT_PER_DAY^2 for each day (fractions count) since
    the player's last rated game, capped at the prior's sigma.  A game at or before the
    last one adds nothing."""
    if rating.last_played is None:
        return rating.sigma
    days = max(0.0, (at - rating.last_played).total_seconds() / DAY)
    return min(math.sqrt(rating.sigma ** 2 + DRIFT_PER_DAY ** 2 * days),
               max(SIGMA0, rating.sigma))


@dataclass(frozen=True, slots=True)
class Provisional:
    """When a rating is provisional: sigma above ``max_sigma``, or fewer than
    ``min_games`` rated games."""

    max_sigma: float = 6.0
    min_games: int = 10

    def __call__(self, sigma: float, games: int) -> bool:
        return sigma > self.max_sigma or games < self.min_games


_SLOTS = threading.local()  # rating objects reused by rate_sides, per thread


def rate_sides(sides: list[list[tuple[float, float]]],
               places: list[int]) -> list[list[tuple[float, float]]]:
    """The new (mu, sigma) of every player of a game whose sides (lists of players'
    (mu, sigma)) took ``places`` (1 the best, ties shared): exactly what
    ``MODEL.rate(teams, ranks=places)`` answers, tau included.

    ``rate`` deep-copies its teams and each copy draws a uuid: two thirds of its cost,
    and most of a full recompute's.  This does what ``rate`` does around its core,
    ``_compute`` (tau added to every sigma, the sides sorted by place and back), on
    rating objects kept for reuse (hence the upper bound on openskill; a test checks
    this against ``rate`` on random games)."""
    slots: list = getattr(_SLOTS, "objects", None) or []
    _SLOTS.objects = slots
    needed = sum(len(side) for side in sides)
    while len(slots) < needed:
        slots.append(MODEL.create_rating([MU0, SIGMA0]))
    tau_squared = MODEL.tau ** 2
    order = sorted(range(len(sides)), key=places.__getitem__)
    teams, k = [], 0
    for index in order:
        team = []
        for mu, sigma in sides[index]:
            rating = slots[k]
            rating.mu, rating.sigma = mu, math.sqrt(sigma * sigma + tau_squared)
            team.append(rating)
            k += 1
        teams.append(team)
    rated = MODEL._compute(teams=teams, ranks=[places[i] for i in order])
    out: list[list[tuple[float, float]]] = [[] for _ in sides]
    for index, team in zip(order, rated, strict=True):
        out[index] = [(r.mu, r.sigma) for r in team]
    return out


def predict_win(sides: list[list[Rating]]) -> list[float]:
    """The chance of each side (one player, or partners) finishing first in a new game
    between them, by openskill's ``predict_win``; the probabilities sum to 1."""
    teams = [[MODEL.create_rating([r.mu, r.sigma]) for r in side] for side in sides]
    return MODEL.predict_win(teams)

"""A player's share of their luck (service.analysis.luck_share): the figures worked by
hand, the cross-fitting that keeps the adjusted points unbiased, the store's SQL equal to
the module to the last digit, and the variance it takes away where taking all the luck
away adds some."""

from __future__ import annotations

import statistics

import duckdb
from hypothesis import given
from hypothesis import strategies as st

from service.analysis import luck_share
from service.analysis.luck import analyse_luck
from service.analysis.luck_share import E4, FoldSums, adjusted, fold_of, share_e4
from service.engine import parse_game, verify
from service.generator import generate_games
from service.store.luck_sql import luck_ctes

E8 = E4 * E4


def test_figures_worked_by_hand():
    """Four games, (id, deals, points, luck) in deal points.  Ids ending in 0 and 2 are
    one half, 1 and 3 the other (the parity of the last character).

    Half 0: (3, 20, -5), (1, 0, 15): 4 deals, 5 points a deal;
      sum (P - 5n) L = 5 * -5 + -5 * 15 = -100, sum L^2 = 250,
      share = (-100 + 0.7 * 1000) / (250 + 1000) = 0.48.
    Half 1: (2, 30, 10), (2, -10, -20): 4 deals, 5 points a deal;
      sum (P - 5n) L = 20 * 10 + -20 * -20 = 600, sum L^2 = 500,
      share = (600 + 700) / (500 + 1000) = 0.86667 -> 0.8667.
    Adjusted: half 0 by half 1's share, 20 - 0.8667 * 10 = 11.333; half 1 by half 0's,
    20 - 0.48 * -10 = 24.8; 36.133 over 8 deals, 4.5166 a deal (the points: 5.0).
    All games: 5 a deal, sum (P - 5n) L = 500, sum L^2 = 750, share 1200 / 1750 = 0.6857.
    """
    games = [("aa0", 3, 20 * E4, -5 * E4), ("aa2", 1, 0, 15 * E4),
             ("aa1", 2, 30 * E4, 10 * E4), ("aa3", 2, -10 * E4, -20 * E4)]
    assert [fold_of(g[0]) for g in games] == [0, 0, 1, 1]
    halves = FoldSums(), FoldSums()
    for gid, n, p, luck in games:
        halves[fold_of(gid)].add(n, p, luck)
    assert share_e4(halves[0]) == 4800
    assert share_e4(halves[1]) == 8667
    got = adjusted(games)
    assert got.deals == 8 and got.luck == 0
    assert got.adjusted_e8 == (20 * E8 - 8667 * 10 * E4) + (20 * E8 + 4800 * 10 * E4)
    assert round(got.adjusted_e8 / E8 / 8, 4) == 4.5166
    assert got.share_e4 == 6857


def test_a_half_without_games_takes_the_prior_and_shares_stay_within_0_and_1():
    assert share_e4(FoldSums()) == luck_share.PRIOR_SHARE_E4
    against = FoldSums()
    for _ in range(50):  # luck that always went against the points: no share at all
        against.add(1, -100 * E4, 100 * E4)
        against.add(1, 100 * E4, -100 * E4)
    assert share_e4(against) == 0
    along = FoldSums()
    for _ in range(50):  # points twice the luck: the share stops at 1
        along.add(1, 200 * E4, 100 * E4)
        along.add(1, -200 * E4, -100 * E4)
    assert share_e4(along) == E4
    only = adjusted([("ab1", 4, 8 * E4, 3 * E4)])  # one half only: the prior applies to it
    assert only.adjusted_e8 == 8 * E8 - luck_share.PRIOR_SHARE_E4 * 3 * E4


games_strategy = st.lists(
    st.tuples(st.text("0123456789abcdef", min_size=1, max_size=4),
              st.integers(1, 12), st.integers(-400 * E4, 400 * E4),
              st.integers(-150 * E4, 150 * E4)),
    max_size=30)


@given(games_strategy)
def test_a_games_luck_is_weighed_by_a_share_its_own_half_does_not_touch(games):
    """Cross-fitting: the figure is (P0 - s1 L0) + (P1 - s0 L1), each half's luck weighed
    by the share measured on the other half.  Turning every luck of half 0 around
    changes half 0's part by exactly 2 s1 L0, s1 untouched (and half 1's part only
    through s0): so where the luck has a zero mean, so has what is taken away."""
    flipped = [(g, n, p, -luck if fold_of(g) == 0 else luck) for g, n, p, luck in games]
    halves = {name: (FoldSums(), FoldSums()) for name in ("before", "after")}
    for name, rows in (("before", games), ("after", flipped)):
        for g, n, p, luck in rows:
            halves[name][fold_of(g)].add(n, p, luck)
    s1 = share_e4(halves["before"][1])
    assert s1 == share_e4(halves["after"][1])
    s0, s0_after = share_e4(halves["before"][0]), share_e4(halves["after"][0])
    luck0, luck1 = halves["before"][0].luck, halves["before"][1].luck
    assert (adjusted(flipped).adjusted_e8 - adjusted(games).adjusted_e8
            == 2 * s1 * luck0 - (s0_after - s0) * luck1)


@given(st.dictionaries(st.sampled_from(["ana", "ben", "cy"]), games_strategy))
def test_the_stores_sql_agrees_with_the_module_to_the_last_digit(players):
    """The store's SQL (luck_ctes) over rows of analysis_players, against
    ``luck_share.adjusted`` over the same games, per player: equal integers.  A game
    may be split over several rows (one per next player); a Rummy-family row counts its
    stored adjusted points whole."""
    con = duckdb.connect()
    con.execute("CREATE TABLE analysis_players (game_id VARCHAR, player VARCHAR, "
                "variant VARCHAR, luck_deals INTEGER, luck_e4 BIGINT, adjusted_e4 BIGINT)")
    want: dict[str, list] = {}
    whole: dict[str, int] = {}
    for player, games in players.items():
        seen = set()
        for gid, n, p, luck in games:
            if (player, gid) in seen:
                continue
            seen.add((player, gid))
            want.setdefault(player, []).append((gid, n, p, luck))
            if n > 1:  # split over two rows
                con.execute("INSERT INTO analysis_players VALUES (?, ?, 'gin', ?, ?, ?), "
                            "(?, ?, 'gin', ?, ?, ?)",
                            [gid, player, 1, luck // 2, p // 2 - luck // 2,
                             gid, player, n - 1, luck - luck // 2,
                             (p - p // 2) - (luck - luck // 2)])
            else:
                con.execute("INSERT INTO analysis_players VALUES (?, ?, 'gin', ?, ?, ?)",
                            [gid, player, n, luck, p - luck])
        rummy = ("r" + player, 5, 7 * E4, 2 * E4)  # luck 2, adjusted 5: taken whole
        con.execute("INSERT INTO analysis_players VALUES (?, ?, 'rummy', ?, ?, ?)",
                    [rummy[0], player, rummy[1], rummy[3], rummy[2] - rummy[3]])
        whole[player] = (rummy[2] - rummy[3]) * E4
    rows = con.execute(f"WITH {luck_ctes('player', '')} SELECT player, luck_deals, luck_e4, "
                       "adjusted_e8, share_e4 FROM luck ORDER BY player").fetchall()
    for player, deals, luck, adjusted_e8, share in rows:
        gin = adjusted(want.get(player, []))
        assert deals == gin.deals + 5
        assert luck == gin.luck + 2 * E4
        assert adjusted_e8 == gin.adjusted_e8 + whole[player]
        assert share == (gin.share_e4 if want.get(player) else None)
    assert [r[0] for r in rows] == sorted(whole)


def test_the_share_lowers_the_variance_where_all_the_luck_raised_it():
    """A lopsided match (a random player against a careful one, fixed seed): taking all
    the evaluator's luck away raises each player's variance of points per deal (it was
    fitted on competent players and values a beginner's good position at what they would
    make of it); weighing it by each player's cross-fitted share lowers both (measured
    here over 416 deals: all the luck 1.68 and 1.56 times the points' variance, the
    shares of 0.23 to 0.35 0.92 and 0.92)."""
    per_player: dict[str, list[tuple[str, int, float, float]]] = {"ana": [], "ben": []}
    for k, log in enumerate(generate_games("gin", 160, seed=23, players=2,
                                           skills={"ana": "random", "ben": "careful"})):
        game = parse_game(log)
        for deal in analyse_luck(game, verify(game)).deals:
            if deal.points is not None:
                for player, rows in per_player.items():
                    rows.append((f"g{k:x}", deal.deal, deal.points[player],
                                 deal.points[player] - deal.adjusted[player]))
    for rows in per_player.values():
        assert len(rows) > 300
        halves = FoldSums(), FoldSums()
        by_game: dict[str, list[float]] = {}
        for gid, _, points, luck in rows:
            got = by_game.setdefault(gid, [0, 0.0, 0.0])
            got[0] += 1
            got[1] += points
            got[2] += luck
        for gid, (n, points, luck) in by_game.items():
            halves[fold_of(gid)].add(n, round(points * E4), round(luck * E4))
        shares = share_e4(halves[1]) / E4, share_e4(halves[0]) / E4
        points = [p for _, _, p, _ in rows]
        whole = [p - luck for _, _, p, luck in rows]
        shared = [p - shares[fold_of(gid)] * luck for gid, _, p, luck in rows]
        assert statistics.variance(whole) > statistics.variance(points)
        assert statistics.variance(shared) < statistics.variance(points)

"""Scoring functions against the seeds' worked examples."""

from service.engine.rules import resolve_rules
from service.engine.scoring import Scoreboard, gin_points, rummy_blocked_points


def rules(variant="rummy-block", n=4, **overrides):
    resolved, errors = resolve_rules(variant, overrides, n)
    assert not errors
    return resolved


def test_block_rummy_example_of_the_seed():
    # 000: A has 6, B 15, C 7, D 21: A wins and scores 9 + 1 + 15 = 25.
    points, winner = rummy_blocked_points(rules(), [0, 1, 2, 3], {0: 6, 1: 15, 2: 7, 3: 21})
    assert (points, winner) == ({0: 25, 1: 0, 2: 0, 3: 0}, 0)


def test_tied_lowest_hands_share_rounded_down():
    # A 6, B 6, C 7, D 22: differences 0 + 0 + 1 + 16 = 17, shared: 8 each.
    points, winner = rummy_blocked_points(rules(), [0, 1, 2, 3], {0: 6, 1: 6, 2: 7, 3: 22})
    assert (points, winner) == ({0: 8, 1: 8, 2: 0, 3: 0}, None)


def test_settlement_blocked_tie_loses_the_remainder():
    r = rules(scoring="settlement")
    points, winner = rummy_blocked_points(r, [0, 1, 2], {0: 6, 1: 6, 2: 9})
    assert (points, winner) == ({0: 1, 1: 1, 2: -3}, None)


def test_gin_points_table():
    r = rules("gin", 2)
    assert gin_points(r, 0, 1, 5, 20, gin=False) == ("knock", 0, {0: 15, 1: 0})
    assert gin_points(r, 0, 1, 7, 7, gin=False) == ("undercut", 1, {0: 0, 1: 25})
    assert gin_points(r, 0, 1, 9, 4, gin=False) == ("undercut", 1, {0: 0, 1: 30})
    assert gin_points(r, 0, 1, 0, 31, gin=True) == ("gin", 0, {0: 56, 1: 0})
    r = rules("gin", 2, undercut_on_tie=False, undercut_bonus=10, gin_bonus=20)
    assert gin_points(r, 0, 1, 7, 7, gin=False) == ("tie", None, {0: 0, 1: 0})
    assert gin_points(r, 0, 1, 9, 4, gin=False) == ("undercut", 1, {0: 0, 1: 15})
    assert gin_points(r, 0, 1, 0, 31, gin=True, doubled=True) == ("gin", 0, {0: 102, 1: 0})


def test_scoreboard_target_and_penalty_winner():
    board = Scoreboard(rules("greek", 3, target=100), ["a", "b", "c"], {0: 0, 1: 1, 2: 2})
    board.add_deal({0: 0, 1: 60, 2: 30}, 0)
    board.end_unit()
    assert not board.over()
    board.add_deal({0: 20, 1: 40, 2: 0}, 2)
    board.end_unit()
    assert board.over()  # b reached 100
    totals, winner, margin = board.final(True)
    assert (totals, winner, margin) == ([20, 100, 30], 0, 10)

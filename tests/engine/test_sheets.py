"""Deals recorded by their result (score sheets): hand-written sheets, each figure worked
in the comments; the right arithmetic verifies, and every kind of slip is caught with its
code."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from service.engine import report as R
from service.engine.logformat import FORMAT, LogValidationError, parse_game, schema_errors
from service.engine.replay import verify

# The worked gin deal of LOG_FORMAT.md: ana knocks with 1, ben keeps 16 after a layoff (15).
GIN_WORKED: dict[str, Any] = {
    "format": FORMAT, "variant": "gin", "players": ["ana", "ben"], "rules": {"deals": 1},
    "deals": [{
        "dealer": "ben",
        "hands": {"ana": ["3C", "4C", "5C", "7H", "7S", "7D", "JD", "QD", "KD", "2S"],
                  "ben": ["6C", "2H", "3H", "4H", "8S", "9S", "TS", "AD", "KS", "QH"]},
        "upcard": "5H",
        "moves": [{"p": "ana", "a": "draw", "from": "stock", "card": "AC"},
                  {"p": "ana", "a": "discard", "card": "2S"},
                  {"p": "ben", "a": "draw", "from": "stock", "card": "5D"},
                  {"p": "ben", "a": "discard", "card": "KS"},
                  {"p": "ana", "a": "draw", "from": "stock", "card": "2D"},
                  {"p": "ana", "a": "knock", "card": "2D",
                   "melds": [["3C", "4C", "5C"], ["7H", "7S", "7D"], ["JD", "QD", "KD"]]},
                  {"p": "ben", "a": "layoff", "card": "6C", "meld": 0},
                  {"p": "ben", "a": "show", "melds": [["2H", "3H", "4H"], ["8S", "9S", "TS"]]}],
        "claimed": {"points": {"ana": 15, "ben": 0}}}]}


def game(variant: str, players: list[str], deals: list[dict[str, Any]],
         rules: dict[str, Any] | None = None, claimed: dict[str, Any] | None = None,
         ) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": FORMAT, "variant": variant, "players": players,
                           "deals": deals}
    if rules:
        doc["rules"] = rules
    if claimed:
        doc["claimed"] = claimed
    return doc


def judged(doc: dict[str, Any]) -> R.Report:
    return verify(parse_game(doc))


def codes(report: R.Report) -> list[tuple[int | None, str]]:
    return [(v.deal, v.code) for v in report.violations]


def knock(by: str, values: dict[str, int], end: str = "knock", **extra: Any) -> dict[str, Any]:
    return {"end": end, "by": by, "hand_values": values, **extra}


# --------------------------------------------------------------------------- gin, by hand

# Gin to 100 (box 20, shutout 100, gin 25, undercut 25), ana and ben:
#   0  ana knocks with 5, ben holds 30         knock     ana 30 - 5 = 25       25 /   0
#   1  ben goes gin, ana holds 20              gin       ben 25 + 20 = 45      25 /  45
#   2  ana knocks with 8, ben holds 6          undercut  ben 8 - 6 + 25 = 27   25 /  72
#   3  nobody knocks before the floor          void      nothing               25 /  72
#   4  ben knocks with 2, ana holds 40         knock     ben 40 - 2 = 38       25 / 110
# ben reaches 100: the game is over.  Boxes: ana 1, ben 3 (20 each); no shutout (ana
# scored).  Totals: ana 25 + 20 = 45, ben 110 + 60 = 170; ben wins by 125.
GIN_SHEET = game("gin", ["ana", "ben"], [
    {"dealer": "ben", "result": knock("ana", {"ana": 5, "ben": 30}),
     "claimed": {"points": {"ana": 25, "ben": 0}, "winner": "ana", "outcome": "knock",
                 "totals": {"ana": 25, "ben": 0}}},
    {"dealer": "ana", "result": knock("ben", {"ana": 20, "ben": 0}, end="gin"),
     "claimed": {"points": {"ben": 45}, "outcome": "gin", "totals": {"ana": 25, "ben": 45}}},
    {"dealer": "ben", "result": knock("ana", {"ana": 8, "ben": 6}),
     "claimed": {"points": {"ana": 0, "ben": 27}, "winner": "ben", "outcome": "undercut",
                 "totals": {"ana": 25, "ben": 72}}},
    {"dealer": "ana", "result": {"end": "void"},
     "claimed": {"points": {"ana": 0, "ben": 0}, "winner": None, "outcome": "void",
                 "totals": {"ana": 25, "ben": 72}}},
    {"dealer": "ben", "result": knock("ben", {"ana": 40, "ben": 2}),
     "claimed": {"points": {"ben": 38}, "totals": {"ana": 25, "ben": 110}}},
], claimed={"totals": {"ana": 45, "ben": 170}, "winner": "ben",
            "boxes": {"ana": 1, "ben": 3},
            "bonuses": {"ana": {"box": 20, "game": 0, "shutout": 0},
                        "ben": {"box": 60, "game": 0, "shutout": 0}}})


def test_a_gin_sheet_with_the_right_arithmetic_verifies() -> None:
    report = judged(GIN_SHEET)
    assert report.status == R.VALID, report.violations
    assert [d.outcome for d in report.deals] == ["knock", "gin", "undercut", "void", "knock"]
    assert [d.points for d in report.deals][:3] == [
        {"ana": 25, "ben": 0}, {"ana": 0, "ben": 45}, {"ana": 0, "ben": 27}]
    assert report.totals["points"] == {"ana": 45, "ben": 170}
    assert report.totals["winner"] == "ben" and report.totals["margin"] == 125
    out = report.to_dict()
    assert out["verification"] == R.RESULTS
    assert all(d["recorded"] == "result" for d in out["deals"])
    assert out["deals"][2]["hand_values"] == {"ana": 8, "ben": 6}


def slip(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """``doc`` with the figure at ``path`` changed (or removed when value is ...)."""
    out = copy.deepcopy(doc)
    node: Any = out
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


@pytest.mark.parametrize(("path", "value", "expected"), [
    # a knock with 12 deadwood (the limit is 10): illegal, the deal scores nothing
    (("deals", 0, "result", "hand_values", "ana"), 12, [(0, R.KNOCK_OVER_LIMIT)]),
    # gin with deadwood left
    (("deals", 1, "result", "hand_values", "ben"), 3, [(1, R.GIN_WITH_DEADWOOD)]),
    # big gin where the game does not allow it
    (("deals", 1, "result", "end"), "big_gin", [(1, R.ACTION_NOT_ALLOWED)]),
    # the gin bonus forgotten: 20 written for 45
    (("deals", 1, "claimed", "points", "ben"), 20, [(1, R.SCORE_MISMATCH)]),
    # an undercut scored as a knock: outcome, winner and points all differ
    (("deals", 2, "claimed"), {"points": {"ana": 2, "ben": 0}, "winner": "ana",
                               "outcome": "knock"},
     [(2, R.SCORE_MISMATCH)] * 4),
    # a running total added wrong: 25 + 45 written as 80
    (("deals", 1, "claimed", "totals", "ben"), 80, [(1, R.SCORE_MISMATCH)]),
    # a box miscounted, a box bonus and a shutout that are not there
    (("claimed", "boxes", "ben"), 2, [(None, R.SCORE_MISMATCH)]),
    (("claimed", "bonuses", "ben", "box"), 40, [(None, R.SCORE_MISMATCH)]),
    (("claimed", "bonuses", "ben", "shutout"), 100, [(None, R.SCORE_MISMATCH)]),
    # the game's total without the boxes: 110 for 170
    (("claimed", "totals", "ben"), 110, [(None, R.SCORE_MISMATCH)]),
])
def test_each_slip_on_a_gin_sheet_is_caught(path: tuple[Any, ...], value: Any,
                                            expected: list[tuple[int | None, str]]) -> None:
    report = judged(slip(GIN_SHEET, path, value))
    assert_caught(report, expected)
    assert report.status == (R.MISMATCH if expected[0][1] == R.SCORE_MISMATCH else R.ILLEGAL)


def assert_caught(report: R.Report, expected: list[tuple[int | None, str]]) -> None:
    """The slip's own codes first; after a deal that scores nothing (illegal) the running
    totals written on the later lines differ too, and are caught as such."""
    found = codes(report)
    assert found[:len(expected)] == expected, report.violations
    for violation in report.violations[len(expected):]:
        assert violation.code == R.SCORE_MISMATCH
        assert "total after the deal" in violation.message
    if len(found) > len(expected):
        assert expected[0][1] != R.SCORE_MISMATCH


def test_a_knock_over_the_limit_scores_nothing_and_the_game_goes_on() -> None:
    # deal 0 illegal: ana 0; ben 45 + 27 + 38 = 110 still ends the game at deal 4
    report = judged(slip(GIN_SHEET, ("deals", 0, "result", "hand_values", "ana"), 12))
    assert codes(report)[0] == (0, R.KNOCK_OVER_LIMIT)
    assert report.deals[0].outcome is None and report.deals[0].points == {"ana": 0, "ben": 0}
    assert report.deals[0].hand_values == {"ana": 12, "ben": 30}
    assert "12 deadwood; the limit is 10" in report.violations[0].message
    # ana scored nothing: no box for her, and ben gets the shutout, 110 + 3 boxes 60 + 100
    assert report.totals["points"] == {"ana": 0, "ben": 270}


def test_play_after_the_target_and_a_deal_missing_before_it() -> None:
    extra = slip(GIN_SHEET, ("deals",), [*GIN_SHEET["deals"], {
        "dealer": "ana", "result": knock("ana", {"ana": 3, "ben": 13})}])
    report = judged(extra)
    assert codes(report) == [(5, R.GAME_OVER)]
    missing = slip(GIN_SHEET, ("deals",), GIN_SHEET["deals"][:4])
    report = judged(missing)
    assert report.status == R.INCOMPLETE
    assert [w.code for w in report.warnings] == [R.GAME_NOT_FINISHED]
    assert "highest total is 72" in report.warnings[0].message


def test_the_tie_rule() -> None:
    # 7 against 7: an undercut by default (25 + 0), a tie without points otherwise
    deal = {"dealer": "ben", "result": knock("ana", {"ana": 7, "ben": 7})}
    report = judged(game("gin", ["ana", "ben"], [deal], {"deals": 1}))
    assert (report.deals[0].outcome, report.deals[0].points) == (
        "undercut", {"ana": 0, "ben": 25})
    report = judged(game("gin", ["ana", "ben"], [deal], {"deals": 1, "undercut_on_tie": False}))
    assert (report.deals[0].outcome, report.deals[0].winner, report.deals[0].points) == (
        "tie", None, {"ana": 0, "ben": 0})


def test_big_gin_and_a_knock_with_no_deadwood() -> None:
    # big gin: 31 + 9 = 40; a knock at 0 deadwood scores as gin: 25 + 9 = 34
    rules = {"deals": 2, "big_gin_bonus": 31}
    report = judged(game("gin", ["ana", "ben"], [
        {"dealer": "ben", "result": knock("ben", {"ana": 9, "ben": 0}, end="big_gin")},
        {"dealer": "ana", "result": knock("ana", {"ana": 0, "ben": 9})}], rules))
    assert [(d.outcome, d.points) for d in report.deals] == [
        ("gin", {"ana": 0, "ben": 40}), ("gin", {"ana": 34, "ben": 0})]


def test_oklahoma_upcard_sets_the_limit_and_a_spade_doubles() -> None:
    rules = {"deals": 1, "oklahoma": True}
    # upcard 4H: limit 4; a knock with 5 is over it
    over = {"dealer": "ben", "upcard": "4H", "result": knock("ana", {"ana": 5, "ben": 20})}
    assert codes(judged(game("gin", ["ana", "ben"], [over], rules))) == [
        (0, R.KNOCK_OVER_LIMIT)]
    # upcard 5S: limit 5, doubled: (20 - 5) x 2 = 30
    spade = {"dealer": "ben", "upcard": "5S", "result": knock("ana", {"ana": 5, "ben": 20}),
             "claimed": {"points": {"ana": 30}}}
    report = judged(game("gin", ["ana", "ben"], [spade], rules))
    assert report.status == R.VALID and report.deals[0].points == {"ana": 30, "ben": 0}
    # an ace upcard: gin only
    ace = {"dealer": "ben", "upcard": "AD", "result": knock("ana", {"ana": 1, "ben": 20})}
    assert codes(judged(game("gin", ["ana", "ben"], [ace], rules))) == [
        (0, R.KNOCK_OVER_LIMIT)]
    # the upcard is needed: without it the limit is unknown
    bare = {"dealer": "ben", "result": knock("ana", {"ana": 5, "ben": 20})}
    with pytest.raises(LogValidationError) as caught:
        parse_game(game("gin", ["ana", "ben"], [bare], rules))
    assert list(caught.value.errors) == ["deals.0.upcard"]
    # a void deal needs none
    void = {"dealer": "ben", "result": {"end": "void"}}
    assert judged(game("gin", ["ana", "ben"], [void], rules)).status == R.VALID


def test_a_shutout() -> None:
    # ana 25 + 45 + 38 = 108 in three deals, ben nothing: 108 + 3 x 20 + 100 = 268
    deals = [{"dealer": "ben", "result": knock("ana", {"ana": 5, "ben": 30})},
             {"dealer": "ana", "result": knock("ana", {"ana": 0, "ben": 20}, end="gin")},
             {"dealer": "ben", "result": knock("ana", {"ana": 2, "ben": 40})}]
    claimed = {"totals": {"ana": 268, "ben": 0}, "boxes": {"ana": 3, "ben": 0},
               "bonuses": {"ana": {"box": 60, "shutout": 100}}}
    report = judged(game("gin", ["ana", "ben"], deals, claimed=claimed))
    assert report.status == R.VALID, report.violations
    assert report.shutouts == 1
    forgotten = slip(game("gin", ["ana", "ben"], deals, claimed=claimed),
                     ("claimed", "totals", "ana"), 168)
    assert codes(judged(forgotten)) == [(None, R.SCORE_MISMATCH)]


def test_the_cards_and_melds_of_a_sheet() -> None:
    rules = {"deals": 1}

    def with_cards(**result: Any) -> R.Report:
        deal = {"dealer": "ben", "result": {"end": "knock", "by": "ana", **result}}
        return judged(game("gin", ["ana", "ben"], [deal], rules))

    melds = {"ana": [["3C", "4C", "5C"], ["7H", "7S", "7D"], ["JD", "QD", "KD"]],
             "ben": [["2H", "3H", "4H"]]}
    # ana's deadwood AS = 1; ben keeps 9S TS QH: 29; ana scores 28
    right = with_cards(hand_values={"ana": 1, "ben": 29}, melds=melds,
                       cards={"ana": ["AS"], "ben": ["9S", "TS", "QH"]})
    assert right.status == R.VALID and right.deals[0].points == {"ana": 28, "ben": 0}
    # the figure differs from the cards: 29 written for ben's 9 + 10 + 10 + 5 = 34;
    # the cards count, so ana scores 33
    wrong = with_cards(hand_values={"ana": 1, "ben": 29}, melds=melds,
                       cards={"ana": ["AS"], "ben": ["9S", "TS", "QH", "5S"]})
    assert codes(wrong) == [(0, R.SCORE_MISMATCH)]
    assert wrong.violations[0].player == "ben" and "count 34" in wrong.violations[0].message
    assert wrong.deals[0].points == {"ana": 33, "ben": 0}
    # a meld that is none, a card given twice, a knocker's hand of nine cards
    bad = {"ana": [["3C", "4C", "6C"]]}
    assert codes(with_cards(hand_values={"ana": 1, "ben": 29}, melds=bad)) == [
        (0, R.INVALID_MELD)]
    assert codes(with_cards(hand_values={"ana": 1, "ben": 29}, melds=melds,
                            cards={"ben": ["3H"]})) == [(0, R.DUPLICATE_CARD)]
    assert codes(with_cards(hand_values={"ana": 0, "ben": 29}, melds=melds,
                            cards={"ana": []})) == [(0, R.WRONG_HAND_SIZE)]


def test_a_sheet_of_three_player_gin_keeps_the_seating() -> None:
    # ana beats ben; cy, who sat out, must play ana next
    deals = [{"dealer": "ben", "players": ["ana", "ben"],
              "result": knock("ana", {"ana": 5, "ben": 30})},
             {"dealer": "ben", "players": ["ben", "cy"],
              "result": knock("cy", {"ben": 5, "cy": 3})}]
    report = judged(game("gin", ["ana", "ben", "cy"], deals, {"deals": 2}))
    assert codes(report) == [(1, R.WRONG_SEATING)]


def test_a_partnership_sheet_as_the_sheet_page_writes_it() -> None:
    # ana and cy against ben and dan: round 1 ana v ben (ana knocks, 25), cy v dan (dan
    # gins, 25 + 20 = 45); round 2 ana v dan (ana gins, 25 + 80 = 105), cy v ben (cy
    # knocks, 38).  Teams' running totals after each deal, half rounds too; at the end
    # 168 + 3 boxes = 228 against 45 + 1 box = 65.
    def line(pair: list[str], by: str, values: dict[str, int], end: str,
             totals: tuple[int, int]) -> dict[str, Any]:
        return {"dealer": pair[0], "players": pair, "result": knock(by, values, end=end),
                "claimed": {"totals": {"ana+cy": totals[0], "ben+dan": totals[1]}}}

    deals = [line(["ana", "ben"], "ana", {"ana": 5, "ben": 30}, "knock", (25, 0)),
             line(["cy", "dan"], "dan", {"cy": 20, "dan": 0}, "gin", (25, 45)),
             line(["ana", "dan"], "ana", {"ana": 0, "dan": 80}, "gin", (130, 45)),
             line(["ben", "cy"], "cy", {"ben": 40, "cy": 2}, "knock", (168, 45))]
    doc = game("gin", ["ana", "ben", "cy", "dan"], deals,
               claimed={"totals": {"ana+cy": 228, "ben+dan": 65}, "winner": "ana+cy"})
    doc["teams"] = [["ana", "cy"], ["ben", "dan"]]
    report = judged(copy.deepcopy(doc))
    assert report.status == R.VALID, report.violations
    assert report.totals["teams"] == {"ana+cy": 228, "ben+dan": 65}
    # the second round's pair written as the first round's: the wrong pairing
    doc["deals"][2] = line(["ana", "ben"], "ana", {"ana": 0, "ben": 80}, "gin", (130, 45))
    assert codes(judged(doc))[0] == (2, R.WRONG_SEATING)


def test_a_game_may_mix_moves_and_results() -> None:
    # the worked deal (ana knocks, 15) then a sheet line (ben gins, 25 + 10 = 35):
    # ana 15 + 20 = 35, ben 35 + 20 = 55
    worked = copy.deepcopy(GIN_WORKED)
    worked["rules"] = {"deals": 2}
    worked.pop("claimed", None)
    worked["deals"].append({"dealer": "ana", "result": knock("ben", {"ana": 10, "ben": 0},
                                                               end="gin")})
    report = judged(worked)
    assert report.status == R.VALID, report.violations
    assert report.verification == R.MIXED and report.to_dict()["verification"] == R.MIXED
    assert "recorded" not in report.to_dict()["deals"][0]
    assert report.totals["points"] == {"ana": 35, "ben": 55}


def test_a_log_of_moves_says_nothing_new() -> None:
    report = judged(copy.deepcopy(GIN_WORKED))
    assert report.verification == R.MOVES
    assert "verification" not in report.to_dict()


# --------------------------------------------------------------------- Rummy family, by hand

# rummy (winner collects, going rummy doubles, to 150), ana, ben and cy:
#   0  ana goes out; ben holds 12, cy 5            ana 12 + 5 = 17                 17 /  0 / 0
#   1  ben goes rummy; ana holds 30, cy 20         ben 2 x (30 + 20) = 100         17 / 100 / 0
#   2  blocked: ana 6, ben 15, cy 7                ana (15 - 6) + (7 - 6) = 10     27 / 100 / 0
#   3  cy goes out; ana 40, ben 13                 cy 53                           27 / 100 / 53
#   4  ben goes out; ana 30, cy 25                 ben 55                          27 / 155 / 53
# ben reaches 150 and wins by 155 - 53 = 102.
RUMMY_SHEET = game("rummy", ["ana", "ben", "cy"], [
    {"dealer": "cy", "result": {"end": "out", "by": "ana", "hand_values": {"ben": 12, "cy": 5}},
     "claimed": {"points": {"ana": 17}, "totals": {"ana": 17, "ben": 0, "cy": 0}}},
    {"dealer": "ana", "result": {"end": "rummy", "by": "ben",
                                 "hand_values": {"ana": 30, "ben": 0, "cy": 20}},
     "claimed": {"points": {"ben": 100}, "outcome": "rummy", "totals": {"ben": 100}}},
    {"dealer": "ben", "result": {"end": "blocked",
                                 "hand_values": {"ana": 6, "ben": 15, "cy": 7}},
     "claimed": {"points": {"ana": 10, "ben": 0, "cy": 0}, "winner": "ana",
                 "outcome": "blocked", "totals": {"ana": 27}}},
    {"dealer": "cy", "result": {"end": "out", "by": "cy", "hand_values": {"ana": 40, "ben": 13},
                                "cards": {"ben": ["3D", "KS"]}},
     "claimed": {"points": {"cy": 53}}},
    {"dealer": "ana", "result": {"end": "out", "by": "ben", "hand_values": {"ana": 30, "cy": 25}},
     "claimed": {"totals": {"ana": 27, "ben": 155, "cy": 53}}},
], claimed={"totals": {"ana": 27, "ben": 155, "cy": 53}, "winner": "ben"})


def test_a_rummy_sheet_with_the_right_arithmetic_verifies() -> None:
    report = judged(RUMMY_SHEET)
    assert report.status == R.VALID, report.violations
    assert [d.outcome for d in report.deals] == ["out", "rummy", "blocked", "out", "out"]
    assert report.deals[1].hand_values == {"ana": 30, "ben": 0, "cy": 20}
    assert report.totals["margin"] == 102


@pytest.mark.parametrize(("path", "value", "expected"), [
    # going rummy not doubled: 50 written for 100
    (("deals", 1, "claimed", "points", "ben"), 50, [(1, R.SCORE_MISMATCH)]),
    # a player who went out with cards left
    (("deals", 1, "result", "hand_values", "ben"), 4, [(1, R.IMPOSSIBLE_RESULT)]),
    # the blocked deal's winner collects only the differences: 28 is the sum of the hands
    (("deals", 2, "claimed", "points", "ana"), 28, [(2, R.SCORE_MISMATCH)]),
    # ben's 3D KS count 13; 12 written
    (("deals", 3, "result", "hand_values", "ben"), 12, [(3, R.SCORE_MISMATCH)]),
    # a card given twice
    (("deals", 3, "result", "cards", "ben"), ["3D", "3D", "KS"], [(3, R.DUPLICATE_CARD)]),
    # a running total and the final winner
    (("deals", 2, "claimed", "totals", "ana"), 37, [(2, R.SCORE_MISMATCH)]),
    (("claimed", "winner"), "cy", [(None, R.SCORE_MISMATCH)]),
])
def test_each_slip_on_a_rummy_sheet_is_caught(path: tuple[Any, ...], value: Any,
                                              expected: list[tuple[int | None, str]]) -> None:
    report = judged(slip(RUMMY_SHEET, path, value))
    assert_caught(report, expected)


def test_rummy_sheet_after_the_target_and_before_it() -> None:
    extra = slip(RUMMY_SHEET, ("deals",), [*RUMMY_SHEET["deals"], RUMMY_SHEET["deals"][0]])
    assert codes(judged(extra)) == [(5, R.GAME_OVER)]
    short = slip(RUMMY_SHEET, ("deals",), RUMMY_SHEET["deals"][:4])
    assert judged(short).status == R.INCOMPLETE


def test_penalty_scoring_from_a_sheet() -> None:
    # greek (penalty, going rummy costs each loser 25 more): ana out, ben 12, cy 5:
    # ben 12, cy 5; then cy goes rummy, ana 8, ben 10: ana 33, ben 35.  Lowest total wins:
    # ana 33, ben 47, cy 5 -> cy by 28.
    deals = [{"dealer": "cy", "result": {"end": "out", "by": "ana",
                                         "hand_values": {"ben": 12, "cy": 5}}},
             {"dealer": "ana", "result": {"end": "rummy", "by": "cy",
                                          "hand_values": {"ana": 8, "ben": 10}},
              "claimed": {"points": {"ana": 33, "ben": 35, "cy": 0},
                          "totals": {"ana": 33, "ben": 47, "cy": 5}}}]
    report = judged(game("greek", ["ana", "ben", "cy"], deals,
                         claimed={"totals": {"ana": 33, "ben": 47, "cy": 5}, "winner": "cy"}))
    assert report.status == R.VALID, report.violations
    assert report.totals["margin"] == 28


# --------------------------------------------------------------------------- the format

@pytest.mark.parametrize(("variant", "deal", "path"), [
    ("gin", {"dealer": "ben", "moves": [], "result": {"end": "void"}}, "deals.0.result"),
    ("gin", {"dealer": "ben", "hands": {"ana": [], "ben": []}, "result": {"end": "void"}},
     "deals.0.hands"),
    ("gin", {"dealer": "ben"}, "deals.0.moves"),
    ("gin", {"dealer": "ben", "result": {"end": "out", "by": "ana",
                                         "hand_values": {"ben": 1}}}, "deals.0.result.end"),
    ("gin", {"dealer": "ben", "result": {"end": "knock", "hand_values": {"ana": 1, "ben": 2}}},
     "deals.0.result.by"),
    ("gin", {"dealer": "ben", "result": {"end": "knock", "by": "ana",
                                         "hand_values": {"ana": 1}}},
     "deals.0.result.hand_values"),
    ("gin", {"dealer": "ben", "result": {"end": "void", "by": "ana"}}, "deals.0.result.by"),
    ("gin", {"dealer": "ben", "result": {"end": "knock", "by": "ana",
                                         "hand_values": {"ana": -1, "ben": 2}}},
     "deals.0.result.hand_values.ana"),
    ("rummy", {"dealer": "ben", "result": {"end": "blocked", "hand_values": {"ana": 1}}},
     "deals.0.result.hand_values"),
    ("rummy", {"dealer": "ben", "result": {"end": "out", "by": "ana", "hand_values": {"ben": 1},
                                           "melds": {}}}, "deals.0.result.melds"),
    ("rummy", {"dealer": "ben", "result": {"end": "out", "by": "ana", "hand_values": {"ben": 1},
                                           "score": 3}}, "deals.0.result.score"),
])
def test_a_result_of_the_wrong_shape_is_refused(variant: str, deal: dict[str, Any],
                                                path: str) -> None:
    doc = game(variant, ["ana", "ben"], [deal])
    assert path in schema_errors(doc), schema_errors(doc)
    with pytest.raises(LogValidationError):
        parse_game(doc)


# --------------------------------------------------------------------------- doubled shutouts

def test_a_doubled_shutout_in_moves_and_on_a_sheet() -> None:
    # the worked deal: ana's knock of 15 and a box of 20 make 35; ben scored nothing:
    # the flat bonus makes 135, a doubled shutout 2 x 35 = 70
    moves = copy.deepcopy(GIN_WORKED)
    assert judged(moves).totals["points"] == {"ana": 135, "ben": 0}
    moves["rules"]["shutout_double"] = True
    report = judged(moves)
    assert report.totals["points"] == {"ana": 70, "ben": 0} and report.shutouts == 1
    # the same as a sheet line, with a game bonus of 100: 2 x (15 + 20 + 100) = 270
    deal = {"dealer": "ben", "result": knock("ana", {"ana": 1, "ben": 16})}
    rules = {"deals": 1, "shutout_double": True, "game_bonus": 100}
    claimed = {"totals": {"ana": 270, "ben": 0},
               "bonuses": {"ana": {"box": 20, "game": 100, "shutout": 135}}}
    assert judged(game("gin", ["ana", "ben"], [deal], rules, claimed)).status == R.VALID
    # the flat bonus written instead of the doubling
    flat = slip(game("gin", ["ana", "ben"], [deal], rules, claimed),
                ("claimed", "bonuses", "ana", "shutout"), 100)
    assert codes(judged(flat)) == [(None, R.SCORE_MISMATCH)]
    # no shutout, no doubling: ben scores in a second deal (a knock, 10 - 8 = 2);
    # ana 15 + 20 + 100 = 135, ben 2 + 20 = 22
    second = {"dealer": "ana", "result": knock("ben", {"ana": 10, "ben": 8})}
    report = judged(game("gin", ["ana", "ben"], [deal, second], {**rules, "deals": 2}))
    assert report.totals["points"] == {"ana": 135, "ben": 22} and report.shutouts == 0


def test_a_doubled_shutout_of_both_opponents_at_three() -> None:
    # ana beats ben (25), then cy, who sat out (25): 50 + two boxes 40 = 90, both
    # opponents at 0: doubled twice, 360
    deals = [{"dealer": "ben", "players": ["ana", "ben"],
              "result": knock("ana", {"ana": 5, "ben": 30})},
             {"dealer": "cy", "players": ["ana", "cy"],
              "result": knock("ana", {"ana": 5, "cy": 30})}]
    report = judged(game("gin", ["ana", "ben", "cy"], deals,
                         {"deals": 2, "shutout_double": True}))
    assert report.totals["points"] == {"ana": 360, "ben": 0, "cy": 0}
    assert report.shutouts == 2


# --------------------------------------------------------------------------- Hollywood

def won(by: str, points: int) -> dict[str, Any]:
    """A sheet line where ``by`` knocks with 0 against ``points - 25``: gin, worth
    ``points`` (25 + the defender's deadwood)."""
    other = "ben" if by == "ana" else "ana"
    return {"dealer": other, "result": knock(by, {by: 0, other: points - 25}, end="gin")}


# Hollywood to 100 (box 20, shutout 100), ana and ben.  A player's first win scores in
# game 1, the second in games 1 and 2, every later one in all three; a game over takes
# nothing more.
#
#   deal  win (the player's n-th)   game 1        game 2        game 3
#   0     ana 30 (1st)              30 / 0
#   1     ana 40 (2nd)              70 / 0        40 / 0
#   2     ben 30 (ben's 1st)        70 / 30       40 / 0
#   3     ana 35 (3rd)             105 / 30 over  75 / 0        35 / 0
#   4     ben 50 (2nd: game 1 is over, so game 2 only)    75 / 50       35 / 0
#   5     ben 60 (3rd)                           75 / 110 over  35 / 60
#   6     ana 45 (4th)                                          80 / 60
#   7     ana 25 (5th)                                         105 / 60 over: the match ends
#
# game 1: ana 105 + 3 boxes (0, 1, 3) = 165, ben 30 + 1 box = 50: ana by 115
# game 2: ana 75 + 2 boxes (1, 3) = 115, ben 110 + 2 boxes (4, 5) = 150: ben by 35
# game 3: ana 105 + 3 boxes (3, 6, 7) = 165, ben 60 + 1 box (5) = 80: ana by 85
# the match: ana 165 + 115 + 165 = 445, ben 50 + 150 + 80 = 280: ana by 165
HOLLYWOOD_SHEET = game("gin", ["ana", "ben"], [
    won("ana", 30), won("ana", 40), won("ben", 30), won("ana", 35),
    won("ben", 50), won("ben", 60), won("ana", 45), won("ana", 25)],
    {"hollywood": True},
    claimed={"totals": {"ana": 445, "ben": 280}, "winner": "ana",
             "games": [{"totals": {"ana": 165, "ben": 50}, "winner": "ana",
                        "boxes": {"ana": 3, "ben": 1}},
                       {"totals": {"ana": 115, "ben": 150}, "winner": "ben",
                        "boxes": {"ana": 2, "ben": 2},
                        "bonuses": {"ben": {"box": 40, "game": 0, "shutout": 0}}},
                       {"totals": {"ana": 165, "ben": 80}, "winner": "ana"}]})
HOLLYWOOD_SHEET["deals"][4]["claimed"] = {"points": {"ben": 50},
                                          "games": [{"ana": 105, "ben": 30},
                                                    {"ana": 75, "ben": 50},
                                                    {"ana": 35, "ben": 0}]}


def test_hollywood_spreads_a_pairs_deals_over_three_games() -> None:
    report = judged(HOLLYWOOD_SHEET)
    assert report.status == R.VALID, report.violations
    assert report.to_dict()["totals"]["games"] == [
        {"points": {"ana": 165, "ben": 50}, "winner": "ana", "margin": 115},
        {"points": {"ana": 115, "ben": 150}, "winner": "ben", "margin": 35},
        {"points": {"ana": 165, "ben": 80}, "winner": "ana", "margin": 85}]
    assert report.totals["points"] == {"ana": 445, "ben": 280}
    assert report.totals["margin"] == 165


@pytest.mark.parametrize(("path", "value", "deal"), [
    # ben's second win written in game 1 as well (game 1 was over)
    (("deals", 4, "claimed", "games", 0, "ben"), 80, 4),
    (("claimed", "games", 1, "totals", "ben"), 110, None),  # game 2 without ben's boxes
    (("claimed", "games", 1, "winner"), "ana", None),
    (("claimed", "games", 0, "boxes", "ana"), 4, None),
    (("claimed", "games", 1, "bonuses", "ben", "box"), 60, None),
    (("claimed", "totals", "ana"), 425, None),
])
def test_each_slip_on_a_hollywood_sheet_is_caught(path: tuple[Any, ...], value: Any,
                                                  deal: int | None) -> None:
    assert codes(judged(slip(HOLLYWOOD_SHEET, path, value))) == [(deal, R.SCORE_MISMATCH)]


def test_hollywood_play_after_the_third_game_and_before_it() -> None:
    extra = slip(HOLLYWOOD_SHEET, ("deals",), [*HOLLYWOOD_SHEET["deals"], won("ben", 30)])
    assert codes(judged(extra)) == [(8, R.GAME_OVER)]
    short = judged(slip(HOLLYWOOD_SHEET, ("deals",), HOLLYWOOD_SHEET["deals"][:7]))
    assert short.status == R.INCOMPLETE
    assert "in each of its three games" in short.warnings[0].message


def test_hollywood_shutouts_per_game() -> None:
    #   deal  win             game 1          game 2          game 3
    #   0     ana 50 (1st)    50 / 0
    #   1     ben 30 (1st)    50 / 30
    #   2     ana 60 (2nd)   110 / 30 over    60 / 0
    #   3     ana 50 (3rd)                   110 / 0 over     50 / 0
    #   4     ana 55 (4th)                                   105 / 0 over
    # game 1: ana 110 + 2 boxes = 150, ben 30 + 20 = 50
    # game 2: ana 110 + 2 boxes + shutout 100 = 250; game 3: 105 + 40 + 100 = 245
    # the match: ana 645, ben 50; a doubled shutout instead: 150 + 2 x 150 + 2 x 145 = 740
    deals = [won("ana", 50), won("ben", 30), won("ana", 60), won("ana", 50), won("ana", 55)]
    report = judged(game("gin", ["ana", "ben"], deals, {"hollywood": True}))
    assert [g["points"] for g in report.totals["games"]] == [
        {"ana": 150, "ben": 50}, {"ana": 250, "ben": 0}, {"ana": 245, "ben": 0}]
    assert report.totals["points"] == {"ana": 645, "ben": 50} and report.shutouts == 2
    doubled = judged(game("gin", ["ana", "ben"], deals,
                          {"hollywood": True, "shutout_double": True}))
    assert doubled.totals["points"] == {"ana": 740, "ben": 50}


def test_hollywood_in_moves_and_mixed() -> None:
    # the worked deal five times, Hollywood to 40: ana wins 15 each time.
    #   deal   game 1   game 2   game 3
    #   0      15
    #   1      30       15
    #   2      45 over  30       15
    #   3               45 over  30
    #   4                        45 over
    # each game: 45 + 3 boxes 60 + shutout 100 = 205; the match 615
    worked = GIN_WORKED["deals"][0]
    doc = game("gin", ["ana", "ben"], [copy.deepcopy(worked) for _ in range(5)],
               {"hollywood": True, "target": 40})
    report = judged(doc)
    assert report.status == R.VALID, report.violations
    assert [g["points"]["ana"] for g in report.totals["games"]] == [205, 205, 205]
    assert report.totals["points"] == {"ana": 615, "ben": 0}
    assert report.verification == R.MOVES
    # deal 2 as its sheet line: the same figures, the same match
    doc["deals"][2] = {"dealer": "ben", "result": knock("ana", {"ana": 1, "ben": 16})}
    mixed = judged(doc)
    assert mixed.status == R.VALID and mixed.verification == R.MIXED
    assert mixed.totals == report.totals
    # a sixth deal: the match is over
    doc["deals"].append(copy.deepcopy(worked))
    assert codes(judged(doc)) == [(5, R.GAME_OVER)]


def test_hollywood_is_for_two_players_and_games_for_hollywood() -> None:
    three = game("gin", ["ana", "ben", "cy"], [
        {"dealer": "ben", "players": ["ana", "ben"], "result": {"end": "void"}}],
        {"hollywood": True})
    assert "rules.hollywood" in schema_errors(three)
    plain = game("gin", ["ana", "ben"], [won("ana", 30)], claimed={"games": []})
    assert "claimed.games" in schema_errors(plain)
    line = won("ana", 30) | {"claimed": {"games": [{"ana": 30}]}}
    assert "deals.0.claimed.games" in schema_errors(game("gin", ["ana", "ben"], [line]))
    assert not schema_errors(game("gin", ["ana", "ben"], [line], {"hollywood": True}))


def test_an_illegal_hollywood_match_names_no_winner_of_its_games() -> None:
    # a deal after the match is over: the match is illegal, and so has no result, nor
    # has any of its three games (the top-level winner was already null)
    extra = slip(HOLLYWOOD_SHEET, ("deals",), [*HOLLYWOOD_SHEET["deals"], won("ben", 30)])
    report = judged(extra)
    assert report.status == R.ILLEGAL
    assert (report.totals["winner"], report.totals["margin"]) == (None, 0)
    assert [(g["winner"], g["margin"]) for g in report.totals["games"]] == [(None, 0)] * 3
    assert [g["points"] for g in report.totals["games"]][1] == {"ana": 115, "ben": 150}

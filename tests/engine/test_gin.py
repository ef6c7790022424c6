"""Hand-written gin positions: knock, gin, undercut, layoffs, the upcard, the stock
floor, Oklahoma, big gin, three-player rotation and partnerships.  Expected figures
are worked out in the comments."""

from __future__ import annotations

import pytest

from .logs import check, codes, deal, game

# Ana draws AH and knocks with AH (1) as deadwood.  Ben's best: 5C-9C, AD-3D, JH JS = 20.
ANA = "2C 3C 4C 5D 5H 5S 9H 9D 9S KS"
BEN = "5C 6C 7C 8C 9C AD 2D 3D JH JS"
KNOCK = ["ana ds AH", "ana knock KS | 2C 3C 4C | 5D 5H 5S | 9H 9D 9S"]


def gin_game(moves, ana=ANA, ben=BEN, upcard="TD", rules=None, claimed=None, **kw):
    rules = {"target": None} | (rules or {})
    return game("gin", ["ana", "ben"],
                [deal("ben", {"ana": ana, "ben": ben}, upcard, moves, claimed=claimed)],
                rules=rules, **kw)


def test_knock_scores_the_difference():
    report = check(gin_game(KNOCK))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["winner"]) == ("knock", "ana")
    assert d["points"] == {"ana": 19, "ben": 0}
    assert d["hand_values"] == {"ana": 1, "ben": 20}


def test_game_bonuses_are_added_at_the_end():
    # One deal, the game is the logged deals: 19 + box 20 + shutout 100 (+ game bonus).
    report = check(gin_game(KNOCK))
    assert report["totals"]["points"] == {"ana": 139, "ben": 0}
    assert report["totals"]["winner"] == "ana"
    assert report["totals"]["margin"] == 139
    report = check(gin_game(KNOCK, rules={"game_bonus": 100, "box_bonus": 25,
                                          "shutout_bonus": 0}))
    assert report["totals"]["points"] == {"ana": 19 + 25 + 100, "ben": 0}


def test_an_illegal_game_has_no_winner_and_no_margin():
    # Deal 1: ana knocks, 19.  Deal 2: ana knocks over the limit.  The points of the
    # deals that could be scored stay, but the game has no result: nobody won it.
    deals = [deal("ben", {"ana": ANA, "ben": BEN}, "TD", KNOCK),
             deal("ana", {"ana": ANA, "ben": BEN}, "TD",  # ben declares one meld: 17 left
                  ["ben ds AH", "ben knock JS | 5C 6C 7C 8C 9C"])]
    report = check(game("gin", ["ana", "ben"], deals, rules={"target": None}))
    assert report["status"] == "illegal"
    assert codes(report) == [(1, 1, "KNOCK_OVER_LIMIT")]
    assert report["totals"]["points"]["ana"] >= 19
    assert (report["totals"]["winner"], report["totals"]["margin"]) == (None, 0)


def test_bonuses_wait_for_the_end_of_the_game():
    report = check(gin_game(KNOCK, rules={"target": 100}))
    assert report["status"] == "incomplete"
    assert report["totals"]["points"] == {"ana": 19, "ben": 0}
    assert report["totals"]["winner"] is None


def test_layoffs_grow_a_run_twice_at_the_same_end():
    # Ben lays 5C then 6C on 2C-3C-4C and keeps 7C-8C-9C and AD-2D-3D: deadwood still 20.
    report = check(gin_game(KNOCK + ["ben l 5C 0", "ben l 6C 0"]))
    assert report["status"] == "valid", report["violations"]
    assert report["deals"][0]["hand_values"] == {"ana": 1, "ben": 20}
    wrong_order = check(gin_game(KNOCK + ["ben l 6C 0"]))
    assert codes(wrong_order) == [(0, 2, "LAYOFF_DOES_NOT_FIT")]


def test_layoffs_reduce_the_defenders_deadwood():
    # Ben: 6C 7C 8C AD 2D 3D 5C? no: give Ben a loose 5C and JH JS: lay off 5C.
    ben = "5C 7C 8C TC AD 2D 3D JH JS QC"  # best: AD-3D; deadwood 5+7+8+10+10+10+10 = 60
    report = check(gin_game(KNOCK + ["ben l 5C 0"], ben=ben))
    assert report["deals"][0]["hand_values"]["ben"] == 55
    assert report["deals"][0]["points"] == {"ana": 54, "ben": 0}


def test_layoff_needs_declared_melds():
    moves = ["ana ds AH", "ana knock KS", "ben l 5C 0"]
    assert codes(check(gin_game(moves))) == [(0, 2, "MELDS_NOT_DECLARED")]
    # The engine finds Ana's best arrangement all the same: deadwood 1.
    report = check(gin_game(moves[:2]))
    assert report["deals"][0]["points"] == {"ana": 19, "ben": 0}


@pytest.mark.parametrize(("bad", "code"), [
    ("ben l 5C 3", "NO_SUCH_MELD"),
    ("ben l KH 0", "CARD_NOT_IN_HAND"),
    ("ana l 5C 0", "MOVE_AFTER_DEAL_END"),
    ("ana show", "ACTION_NOT_ALLOWED"),
    ("ben ds 4S", "MOVE_AFTER_DEAL_END"),
    ("ben x 5C", "MOVE_AFTER_DEAL_END"),
])
def test_after_a_knock_only_the_defender_lays_off_and_shows(bad, code):
    assert codes(check(gin_game(KNOCK + [bad]))) == [(0, 2, code)]


def test_show_declares_the_defenders_melds():
    # Showing only 5C-9C leaves AD 2D 3D JH JS = 26: scored as shown, with a warning.
    report = check(gin_game(KNOCK + ["ben show | 5C 6C 7C 8C 9C"]))
    assert report["status"] == "valid"
    assert report["deals"][0]["hand_values"]["ben"] == 26
    assert [w["code"] for w in report["warnings"]] == ["SUBOPTIMAL_DECLARATION"]
    # Cards shown in melds cannot be laid off afterwards.
    shown = check(gin_game(KNOCK + ["ben show | 5C 6C 7C 8C 9C", "ben l 5C 0"]))
    assert codes(shown) == [(0, 3, "CARD_NOT_IN_HAND")]
    twice = check(gin_game(KNOCK + ["ben show", "ben show"]))
    assert codes(twice) == [(0, 3, "ACTION_NOT_ALLOWED")]


# Undercut: Ana knocks with TH (10); Ben holds 5C-9C, AD-4D and a loose card.
UNDER_ANA = ANA
UNDER_MOVES = ["ana ds TH", "ana knock KS"]


@pytest.mark.parametrize(("loose", "on_tie", "outcome", "winner", "points"), [
    ("TS", True, "undercut", "ben", {"ana": 0, "ben": 25}),  # 10 v 10, tie undercuts
    ("TS", False, "tie", None, {"ana": 0, "ben": 0}),
    ("2S", True, "undercut", "ben", {"ana": 0, "ben": 8 + 25}),
    ("2S", False, "undercut", "ben", {"ana": 0, "ben": 8 + 25}),
])
def test_undercut(loose, on_tie, outcome, winner, points):
    ben = f"5C 6C 7C 8C 9C AD 2D 3D 4D {loose}"
    report = check(gin_game(UNDER_MOVES, ben=ben, rules={"undercut_on_tie": on_tie}))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["winner"], d["points"]) == (outcome, winner, points)


def test_a_tie_wins_no_box():
    ben = "5C 6C 7C 8C 9C AD 2D 3D 4D TS"
    report = check(gin_game(UNDER_MOVES, ben=ben, rules={"undercut_on_tie": False}))
    assert report["totals"]["points"] == {"ana": 0, "ben": 0}
    assert report["totals"]["winner"] is None


# Gin: Ana draws 5C: 2C-5C, 5D 5H 5S, 9H 9D 9S.  Ben: 6C-8C, AD-3D, JH JS QD KD = 40.
GIN_BEN = "6C 7C 8C AD 2D 3D JH JS QD KD"
GIN = ["ana ds 5C", "ana gin KS"]


def test_gin_scores_bonus_plus_deadwood_and_takes_no_layoffs():
    report = check(gin_game(GIN, ben=GIN_BEN))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["points"]) == ("gin", {"ana": 65, "ben": 0})
    declared = check(gin_game(["ana ds 5C", "ana gin KS | 2C 3C 4C 5C | 5D 5H 5S | 9H 9D 9S",
                               "ben l 9C 0"], ben=GIN_BEN.replace("8C", "9C")))
    assert codes(declared) == [(0, 2, "LAYOFF_ON_GIN")]


def test_a_knock_with_no_deadwood_is_gin():
    report = check(gin_game(["ana ds 5C", "ana knock KS"], ben=GIN_BEN))
    assert report["deals"][0]["outcome"] == "gin"


def test_knock_below_a_possible_gin_stays_a_knock_with_a_warning():
    ana = "AC 2C 3C 4C 5D 5H 5S 9H 9D 9S"
    moves = ["ana ds KS", "ana knock KS | 2C 3C 4C | 5D 5H 5S | 9H 9D 9S"]
    report = check(gin_game(moves, ana=ana, ben=GIN_BEN))
    assert report["status"] == "valid", report["violations"]
    assert report["deals"][0]["outcome"] == "knock"
    assert report["deals"][0]["points"] == {"ana": 39, "ben": 0}
    assert [(w["deal"], w["move"], w["code"]) for w in report["warnings"]] == \
        [(0, 1, "SUBOPTIMAL_DECLARATION")]


@pytest.mark.parametrize(("moves", "code"), [
    (["ana ds KH", "ana knock 2C"], "KNOCK_OVER_LIMIT"),  # 3C 4C KS KH = 27
    (["ana ds AH", "ana gin KS"], "GIN_WITH_DEADWOOD"),
    (["ana ds AH", "ana knock KS | 2C 3C 4C | 5D 5H 5S"], "KNOCK_OVER_LIMIT"),
    (["ana ds AH", "ana knock KS | 2C 3C | 5D 5H 5S | 9H 9D 9S"], "INVALID_MELD"),
    (["ana ds AH", "ana knock KS | 2C 3C 4C | 4C 5D 5H 5S"], "INVALID_MELD"),
    (["ana ds AH", "ana knock KS | KS QS JS"], "CARD_NOT_IN_HAND"),
    (["ana ds AH", "ana knock QC"], "CARD_NOT_IN_HAND"),
    (["ana ds AH", "ana m 2C 3C 4C"], "ACTION_NOT_ALLOWED"),
    (["ana ds AH", "ana l 2C 0"], "ACTION_NOT_ALLOWED"),
    (["ana ds AH", "ana end"], "ACTION_NOT_ALLOWED"),
    (["ana pass"], "ACTION_NOT_ALLOWED"),
    (["ana knock KS"], "MUST_DRAW_FIRST"),
    (["ana dd TD", "ana knock TD"], "DISCARD_OF_TAKEN_CARD"),
    (["ana ds AH", "ana gin"], "ACTION_NOT_ALLOWED"),  # big gin not allowed
])
def test_illegal_gin_moves(moves, code):
    report = check(gin_game(moves))
    assert codes(report) == [(0, len(moves) - 1, code)]


@pytest.mark.parametrize(("moves", "code"), [
    (["ben pass"], "NOT_YOUR_TURN"),  # a pass out of place by the wrong player: turn first
    (["ben l 5C 0"], "ACTION_NOT_ALLOWED"),  # a layoff before any knock: before the turn
    (["ben gin"], "NOT_YOUR_TURN"),  # big gin not allowed, but the turn is checked first
    (["ana gin"], "MUST_DRAW_FIRST"),  # ... and the draw
])
def test_order_of_checks_for_actions_refused_by_the_moment(moves, code):
    report = check(gin_game(moves))
    assert codes(report) == [(0, len(moves) - 1, code)]


def test_knock_limit_option():
    # Ana's deadwood after AH: 1.  With a limit of 0 only gin may end the deal.
    assert codes(check(gin_game(KNOCK, rules={"knock_limit": 0}))) == \
        [(0, 1, "KNOCK_OVER_LIMIT")]
    assert check(gin_game(KNOCK, rules={"knock_limit": 1}))["status"] == "valid"


def test_oklahoma_upcard_sets_the_limit_and_a_spade_doubles():
    # An ace upcard means gin only; 2S sets the limit to 2 and doubles the deal.
    assert codes(check(gin_game(KNOCK, upcard="AS", rules={"oklahoma": True}))) == \
        [(0, 1, "KNOCK_OVER_LIMIT")]
    report = check(gin_game(KNOCK, upcard="2S", rules={"oklahoma": True}))
    assert report["status"] == "valid", report["violations"]
    assert report["deals"][0]["points"] == {"ana": 38, "ben": 0}  # 19 doubled
    report = check(gin_game(KNOCK, upcard="TD", rules={"oklahoma": True}))
    assert report["deals"][0]["points"] == {"ana": 19, "ben": 0}


def test_knock_limit_allows_exactly_the_limit():
    # Ana draws QH: deadwood 10, the default limit.
    assert check(gin_game(["ana ds QH", "ana knock KS"]))["status"] == "valid"


# Big gin: Ana holds gin already (2C-5C, 5D 5H 5S, 9H 9D 9S) and draws 9C.
BIG_ANA = "2C 3C 4C 5C 5D 5H 5S 9H 9D 9S"


def test_big_gin_scores_its_bonus_without_a_discard():
    rules = {"big_gin_bonus": 50}
    report = check(gin_game(["ana ds 9C", "ana gin"], ana=BIG_ANA, ben=GIN_BEN, rules=rules))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["points"]) == ("gin", {"ana": 50 + 40, "ben": 0})
    not_allowed = check(gin_game(["ana ds 9C", "ana gin"], ana=BIG_ANA, ben=GIN_BEN))
    assert codes(not_allowed) == [(0, 1, "ACTION_NOT_ALLOWED")]
    loose = check(gin_game(["ana ds 6H", "ana gin"], ana=BIG_ANA, ben=GIN_BEN, rules=rules))
    assert codes(loose) == [(0, 1, "GIN_WITH_DEADWOOD")]


# The stock floor: 25 cards each leave a one-card stock, already at the floor of 2.
FLOOR_ANA = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD"
FLOOR_BEN = "KD AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS"


def floor_game(moves, rules=None):
    return gin_game(moves, ana=FLOOR_ANA, ben=FLOOR_BEN, upcard="QS",
                    rules={"hand_size": 25} | (rules or {}))


def test_a_pass_at_the_floor_voids_the_deal():
    report = check(floor_game(["ana pass"]))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["winner"], d["points"]) == ("void", None, {"ana": 0, "ben": 0})
    # A void deal wins no box.
    assert report["totals"]["points"] == {"ana": 0, "ben": 0}


@pytest.mark.parametrize(("moves", "code"), [
    (["ana ds KS"], "STOCK_FLOOR"),
    (["ana dd QS", "ana x AC"], "STOCK_FLOOR"),
    (["ana pass", "ben pass"], "MOVE_AFTER_DEAL_END"),
])
def test_at_the_floor_only_a_knock_may_follow_the_discard(moves, code):
    assert codes(check(floor_game(moves))) == [(0, len(moves) - 1, code)]


def test_knocking_at_the_stock_floor():
    # Ana takes QS and knocks discarding AC: 2C-KC and AD-QD, QS = 10 deadwood.  Ben lays
    # KD off on AD-QD and is left with none: an undercut, 10 + 25.
    moves = ["ana dd QS", "ana knock AC | 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC | "
             "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", "ben l KD 1"]
    report = check(floor_game(moves))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["winner"], d["points"]) == ("undercut", "ben", {"ana": 0, "ben": 35})
    assert d["hand_values"] == {"ana": 10, "ben": 0}


def test_floor_zero_plays_the_stock_out():
    report = check(floor_game(["ana ds KS", "ana x KS", "ben ds"], rules={"stock_floor": 0}))
    assert codes(report) == [(0, 2, "STOCK_FLOOR")]
    report = check(floor_game(["ana ds KS", "ana x KS", "ben pass"], rules={"stock_floor": 0}))
    assert report["deals"][0]["outcome"] == "void"


@pytest.mark.parametrize(("moves", "result"), [
    (["ana pass", "ben pass", "ana ds AH", "ana knock KS"], "valid"),
    (["ana pass", "ben dd TD", "ben x JH", "ana ds AH", "ana knock KS"], "valid"),
    (["ana dd TD", "ana x 9S"], "incomplete"),
    (["ana ds AH"], "UPCARD_NOT_REFUSED"),
    (["ana pass", "ben ds"], "UPCARD_NOT_REFUSED"),
    (["ana pass", "ben pass", "ana dd TD"], "ACTION_NOT_ALLOWED"),
    (["ana pass", "ben pass", "ana pass"], "ACTION_NOT_ALLOWED"),
    (["ben pass"], "NOT_YOUR_TURN"),
])
def test_upcard_pass(moves, result):
    report = check(gin_game(moves, rules={"upcard_pass": True}))
    if result in ("valid", "incomplete"):
        assert report["status"] == result, report["violations"]
    else:
        assert codes(report) == [(0, len(moves) - 1, result)]


def test_a_log_cut_at_the_upcard_says_who_was_to_take_it():
    report = check(gin_game(["ana pass"], rules={"upcard_pass": True}))
    assert report["status"] == "incomplete"
    assert report["warnings"] == [{
        "deal": 0, "move": 0, "code": "LAST_DEAL_NOT_FINISHED",
        "message": "the log ends before the deal does: ben was to take or refuse the upcard"}]


def test_without_upcard_pass_the_first_draw_is_free():
    assert check(gin_game(KNOCK))["status"] == "valid"
    assert codes(check(gin_game(["ana pass"]))) == [(0, 0, "ACTION_NOT_ALLOWED")]


# --- three players: the winner plays the one who sat out --------------------------------

def three(pairs_and_moves, rules=None):
    deals = []
    for (first, second), moves in pairs_and_moves:
        deals.append(deal(second, {first: ANA, second: BEN}, "TD",
                          [m.replace("ana", first) for m in moves], players=[first, second]))
    return game("gin", ["ana", "ben", "cy"], deals, rules={"target": None} | (rules or {}))


def test_three_player_rotation():
    ok = check(three([(("ana", "ben"), KNOCK), (("ana", "cy"), KNOCK)]))
    assert ok["status"] == "valid", ok["violations"]
    # Ana won both: 19 + 19 + two boxes + a shutout against each opponent.
    assert ok["totals"]["points"] == {"ana": 38 + 40 + 200, "ben": 0, "cy": 0}
    wrong = check(three([(("ana", "ben"), KNOCK), (("ben", "cy"), KNOCK)]))
    assert codes(wrong) == [(1, None, "WRONG_SEATING")]


def test_three_player_same_pair_after_a_deal_without_winner():
    ben = "5C 6C 7C 8C 9C AD 2D 3D 4D TS"
    tie = ["ana ds TH", "ana knock KS"]
    log = three([(("ana", "ben"), tie), (("ana", "ben"), KNOCK)], {"undercut_on_tie": False})
    log["deals"][0]["hands"]["ben"] = ben.split()
    assert check(log)["status"] == "valid"
    log["deals"][1] = deal("cy", {"ana": ANA, "cy": BEN}, "TD", KNOCK, players=["ana", "cy"])
    assert codes(check(log)) == [(1, None, "WRONG_SEATING")]


# --- four players: partnerships --------------------------------------------------------

def four(pairs):
    deals = [deal(b, {a: ANA, b: BEN}, "TD", [m.replace("ana", a) for m in KNOCK],
                  players=[a, b]) for a, b in pairs]
    return game("gin", ["a", "b", "c", "d"], deals, rules={"target": None},
                teams=[["a", "b"], ["c", "d"]])


def test_partnership_rounds_and_team_totals():
    report = check(four([("a", "c"), ("b", "d"), ("a", "d"), ("b", "c")]))
    assert report["status"] == "valid", report["violations"]
    # Four knocks of 19 for team a+b, four boxes, a shutout.
    assert report["totals"]["teams"] == {"a+b": 76 + 80 + 100, "c+d": 0}
    assert report["totals"]["points"] == {"a": 38, "b": 38, "c": 0, "d": 0}
    assert report["totals"]["winner"] == "a+b"
    wrong = check(four([("a", "c"), ("b", "d"), ("a", "c"), ("b", "d")]))
    assert codes(wrong) == [(2, None, "WRONG_SEATING"), (3, None, "WRONG_SEATING")]


def test_partnership_round_half_logged_is_incomplete():
    report = check(four([("a", "c")]))
    assert report["status"] == "incomplete"
    assert report["warnings"] == [{
        "deal": 0, "move": None, "code": "GAME_NOT_FINISHED",
        "message": "the last round is half logged: the deal between the two other "
                   "partners is missing"}]


def test_no_layoff_is_ever_inferred():
    # Ben could lay 5C and 6C off on 2C-3C-4C but records none: nothing is inferred, and
    # his own 5C-9C run stays whole (the defender breaks nothing he did not choose to).
    report = check(gin_game(KNOCK))
    assert report["deals"][0]["hand_values"]["ben"] == 20
    # A layoff that splits the defender's own run is his choice, and counts as recorded:
    # 5C to the knocker leaves 6C-9C, still a run.
    report = check(gin_game(KNOCK + ["ben l 5C 0"]))
    assert report["deals"][0]["hand_values"]["ben"] == 20

"""Hand-written positions for the Rummy family: turns, melds, layoffs, going out,
going rummy, stock exhaustion and blocked deals.  Each expected figure is worked out
by hand in the comments."""

from __future__ import annotations

import pytest

from .logs import check, codes, deal, game

ANA = "AH 2H 3H 9C 9D 9S KC 4D 7S 5C"
BEN = "2C 3C 4C JD JH TS 8D 6H QS 5S"
# Ana melds twice, Ben once, Ana lays off on Ben's run and goes out by discarding.
BASIC = [
    "ana ds 4H", "ana m AH 2H 3H 4H", "ana m 9C 9D 9S", "ana x KC",
    "ben ds 8C", "ben m 2C 3C 4C", "ben x QS",
    "ana ds 6C", "ana l 5C 2", "ana l 6C 2", "ana x 4D",
    "ben ds TC", "ben x TC",
    "ana ds 7C", "ana l 7C 2", "ana x 7S",
]
# Ben is left with JD JH TS 8D 6H 5S 8C = 10+10+10+8+6+5+8 = 57.
BEN_LEFT = 57


def basic(moves=BASIC, rules=None, **kw):
    rules = {"target": None} | (rules or {})
    return game("rummy", ["ana", "ben"],
                [deal("ben", {"ana": ANA, "ben": BEN}, "7D", moves, **kw)], rules=rules)


def test_going_out_scores_the_cards_left():
    report = check(basic())
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["winner"]) == ("out", "ana")
    assert d["points"] == {"ana": BEN_LEFT, "ben": 0}
    assert d["hand_values"] == {"ana": 0, "ben": BEN_LEFT}
    assert report["totals"]["points"] == {"ana": BEN_LEFT, "ben": 0}
    assert report["totals"]["winner"] == "ana"
    assert report["totals"]["margin"] == BEN_LEFT


def test_claims_are_compared():
    ok = check(basic(claimed={"points": {"ana": 57, "ben": 0}, "winner": "ana",
                              "outcome": "out"}))
    assert ok["status"] == "valid"
    bad = check(basic(claimed={"points": {"ana": 60}, "outcome": "rummy"}))
    assert bad["status"] == "mismatch"
    assert codes(bad) == [(0, None, "SCORE_MISMATCH"), (0, None, "SCORE_MISMATCH")]
    assert "ana" in bad["violations"][0]["message"] and "57" in bad["violations"][0]["message"]


def test_game_claims_are_compared():
    log = basic()
    log["claimed"] = {"totals": {"ana": 57, "ben": 1}, "winner": "ana"}
    report = check(log)
    assert report["status"] == "mismatch"
    assert codes(report) == [(None, None, "SCORE_MISMATCH")]


def test_a_message_says_what_is_wrong_and_leaves_where_to_deal_and_move():
    """The deal's index is in the violation: messages repeated it (and said None)."""
    log = basic(claimed={"points": {"ana": 60}, "winner": None, "outcome": "rummy"})
    log["claimed"] = {"totals": {"ana": 50}, "winner": "ben"}
    assert [(v["deal"], v["message"]) for v in check(log)["violations"]] == [
        (0, f"ana is claimed to score 60, recomputed {BEN_LEFT}"),
        (0, "the deal's claimed winner is none, recomputed ana"),
        (0, "the deal's claimed outcome is rummy, recomputed out"),
        (None, f"ana's claimed total is 50, recomputed {BEN_LEFT}"),
        (None, "the game's claimed winner is ben, recomputed ana")]
    done = deal("ben", {"ana": ANA, "ben": BEN}, "7D", BASIC)
    extra = deal("ana", {"ana": ANA, "ben": BEN}, "7D", [])
    cut = deal("ben", {"ana": ANA, "ben": BEN}, "7D", BASIC[:4])
    over = check(game("rummy", ["ana", "ben"], [done, extra], rules={"target": 50}))
    assert over["violations"][0]["message"] == "the deal was logged after the game ended"
    cut_short = check(game("rummy", ["ana", "ben"], [cut, extra], rules={"target": None}))
    assert cut_short["violations"][0]["message"] == \
        "the deal stops before it ends, and another deal follows"


@pytest.mark.parametrize(("index", "bad", "code"), [
    (0, "ben ds 4H", "NOT_YOUR_TURN"),
    (0, "ana m AH 2H 3H", "MUST_DRAW_FIRST"),
    (0, "ana x KC", "MUST_DRAW_FIRST"),
    (1, "ana ds 5H", "ALREADY_DREW"),
    (1, "ana dd", "ALREADY_DREW"),
    (1, "ana m AH 2H 9C", "INVALID_MELD"),
    (1, "ana m AH 2H", "INVALID_MELD"),
    (1, "ana m 9C 9D 9S 9H", "CARD_NOT_IN_HAND"),
    (1, "ana x QS", "CARD_NOT_IN_HAND"),
    (1, "ana l 5H 0", "CARD_NOT_IN_HAND"),
    (2, "ana l 5C 1", "NO_SUCH_MELD"),
    (2, "ana l 5C 0", "LAYOFF_DOES_NOT_FIT"),
    (0, "ana ds 2C", "STOCK_CARD_MISMATCH"),  # 2C is in Ben's hand
    (0, "ana ds 7D", "STOCK_CARD_MISMATCH"),  # 7D is the upcard
    (0, "ana ds", "STOCK_CARD_REQUIRED"),
    (0, "ana dd KS", "WRONG_DISCARD_TOP"),
    (0, "ana knock KC", "ACTION_NOT_ALLOWED"),
    (0, "ana pass", "ACTION_NOT_ALLOWED"),
    (0, "ana end", "END_NOT_ALLOWED"),
    (0, "ana reshuffle", "RESHUFFLE_NOT_ALLOWED"),
    (16, "ben ds 3S", "MOVE_AFTER_DEAL_END"),
])
def test_each_illegal_move_is_named(index, bad, code):
    moves = BASIC[:index] + [bad] + BASIC[index:]
    report = check(basic(moves))
    assert report["status"] == "illegal"
    assert codes(report) == [(0, index, code)]
    assert report["deals"][0]["outcome"] is None
    assert report["deals"][0]["points"] == {"ana": 0, "ben": 0}


def test_discard_of_the_taken_card():
    moves = ["ana dd 7D", "ana x 7D"]
    assert codes(check(basic(moves))) == [(0, 1, "DISCARD_OF_TAKEN_CARD")]
    allowed = check(basic(moves, rules={"discard_taken_card": True}))
    assert allowed["status"] == "incomplete" and not allowed["violations"]


def test_hand_values_stand_before_the_illegal_move():
    report = check(basic(["ana ds 4H", "ana x QS"]))
    # Ana holds her ten cards and 4H: 1+2+3+9+9+9+10+4+7+5+4 = 63; Ben 68.
    assert report["deals"][0]["hand_values"] == {"ana": 63, "ben": 68}


def test_melds_per_turn():
    moves = BASIC[:3]
    assert check(basic(moves, rules={"melds_per_turn": 1}))["violations"][0]["code"] == \
        "TOO_MANY_MELDS"
    assert check(basic(moves, rules={"melds_per_turn": "unlimited"}))["status"] == "incomplete"


def test_layoff_requires_own_meld():
    # Ben lays off 5H on Ana's run before melding himself.
    moves = ["ana ds 4H", "ana m AH 2H 3H 4H", "ana x KC", "ben ds 5H", "ben l 5H 0"]
    on = check(basic(moves, rules={"layoff_requires_own_meld": True}))
    assert codes(on) == [(0, 4, "LAYOFF_BEFORE_OWN_MELD")]
    off = check(basic(moves))
    assert off["status"] == "incomplete"
    # A meld laid earlier in the same turn counts as one's own.
    moves = moves[:4] + ["ben m 2C 3C 4C", "ben l 5H 0"]
    assert check(basic(moves, rules={"layoff_requires_own_meld": True}))["status"] == \
        "incomplete"


RUMMY_ANA = "AH 2H 3H 9C 9D 9S 5C 6C 7C KC"
RUMMY_BEN = "2C 3C 4C JD JH TS 8D 6H QS 5S"  # 2+3+4+10+10+10+8+6+10+5 = 68
RUMMY_MOVES = ["ana ds 4H", "ana m AH 2H 3H 4H", "ana m 9C 9D 9S", "ana m 5C 6C 7C",
               "ana x KC"]


def rummy_game(variant="rummy", rules=None, players=("ana", "ben"), hands=None):
    hands = hands or {"ana": RUMMY_ANA, "ben": RUMMY_BEN}
    rules = {"target": None, "melds_per_turn": "unlimited"} | (rules or {})
    return game(variant, list(players), [deal("ben", hands, "7D", RUMMY_MOVES)], rules=rules)


@pytest.mark.parametrize(("scoring", "bonus", "ana", "ben"), [
    ("winner_collects", "none", 68, 0),
    ("winner_collects", "double", 136, 0),
    ("winner_collects", "plus10", 78, 0),
    ("winner_collects", "penalty25", 93, 0),
    ("penalty", "none", 0, 68),
    ("penalty", "double", 0, 136),
    ("penalty", "plus10", -10, 68),
    ("penalty", "penalty25", 0, 93),
    ("settlement", "none", 68, -68),
    ("settlement", "double", 136, -136),
    ("settlement", "plus10", 78, -78),
    ("settlement", "penalty25", 93, -93),
])
def test_going_rummy_under_every_scoring(scoring, bonus, ana, ben):
    report = check(rummy_game(rules={"scoring": scoring, "rummy_bonus": bonus}))
    assert report["status"] == "valid", report["violations"]
    d = report["deals"][0]
    assert (d["outcome"], d["winner"]) == ("rummy", "ana")
    assert d["points"] == {"ana": ana, "ben": ben}


def test_penalty_scoring_lowest_total_wins():
    report = check(rummy_game(rules={"scoring": "penalty", "rummy_bonus": "none"}))
    assert report["totals"]["winner"] == "ana"
    assert report["totals"]["margin"] == 68


def test_rummy_bonus_per_loser_with_three_players():
    hands = {"ana": RUMMY_ANA, "ben": RUMMY_BEN, "cy": "2S 3S 4S 5D 6D 7H 8H 9H 4D 8S"}
    # Cy: 2+3+4+5+6+7+8+9+4+8 = 56.  penalty25 under winner_collects: 68+25 + 56+25.
    log = rummy_game(rules={"rummy_bonus": "penalty25", "hand_size": 10}, hands=hands,
                     players=("ana", "ben", "cy"))
    log["deals"][0]["dealer"] = "cy"
    report = check(log)
    assert report["status"] == "valid", report["violations"]
    assert report["deals"][0]["points"] == {"ana": 174, "ben": 0, "cy": 0}


def test_not_rummy_after_melding_in_an_earlier_turn():
    report = check(basic())
    assert report["deals"][0]["outcome"] == "out"


def test_discard_to_go_out():
    # Without a final discard Ana may go out by melding everything.
    hands = {"ana": "AH 2H 3H 9C 9D 9S 5C 6C 7C", "ben": "2C 3C 4C JD JH TS 8D 6H QS"}
    moves = ["ana ds 4H", "ana m AH 2H 3H 4H", "ana m 9C 9D 9S", "ana m 5C 6C 7C"]
    log = game("rummy", ["ana", "ben"], [deal("ben", hands, "7D", moves)],
               rules={"target": None, "hand_size": 9})
    report = check(log)
    assert report["status"] == "valid", report["violations"]
    assert report["deals"][0]["outcome"] == "rummy"
    log["rules"]["discard_to_go_out"] = True
    assert codes(check(log)) == [(0, 3, "MUST_DISCARD_TO_GO_OUT")]


def test_greek_rummy_penalty25_needs_a_final_discard():
    hands = {"ana": RUMMY_ANA, "ben": RUMMY_BEN}
    log = game("greek", ["ana", "ben"], [deal("ben", hands, "7D", RUMMY_MOVES)])
    report = check(log)
    assert report["status"] == "valid", report["violations"]
    # Greek: ace 11 points, penalty scoring, going rummy adds 25 to each loser.
    # Ben: 2+3+4+10+10+10+8+6+10+5 = 68 (no ace), + 25.
    assert report["deals"][0]["points"] == {"ana": 0, "ben": 93}


def test_duplicate_card_and_hand_size_are_deal_problems():
    dup = basic(BASIC)
    dup["deals"][0]["hands"]["ben"][0] = "AH"
    report = check(dup)
    assert codes(report) == [(0, None, "DUPLICATE_CARD")]
    assert "AH" in report["violations"][0]["message"]
    short = basic(BASIC)
    short["deals"][0]["hands"]["ben"].pop()
    assert codes(check(short)) == [(0, None, "WRONG_HAND_SIZE")]


def test_unfinished_deal_followed_by_another():
    first = deal("ben", {"ana": ANA, "ben": BEN}, "7D", BASIC[:4])
    second = deal("ana", {"ana": ANA, "ben": BEN}, "7D", [])
    report = check(game("rummy", ["ana", "ben"], [first, second], rules={"target": None}))
    assert codes(report) == [(0, None, "DEAL_NOT_FINISHED")]
    assert report["status"] == "illegal"


def test_unfinished_last_deal_is_incomplete():
    report = check(basic(BASIC[:4]))
    assert report["status"] == "incomplete"
    assert report["totals"]["winner"] is None
    assert report["warnings"] == [{
        "deal": 0, "move": 3, "code": "LAST_DEAL_NOT_FINISHED",
        "message": "the log ends before the deal does: ben was to draw"}]
    assert check(basic(BASIC[:3]))["warnings"][0]["message"] == \
        "the log ends before the deal does: ana had drawn and not discarded"
    assert check(basic([]))["warnings"] == [{
        "deal": 0, "move": None, "code": "LAST_DEAL_NOT_FINISHED",
        "message": "the log ends before the deal does: ana was to draw"}]


def test_game_over_then_another_deal():
    done = deal("ben", {"ana": ANA, "ben": BEN}, "7D", BASIC)
    extra = deal("ana", {"ana": ANA, "ben": BEN}, "7D", [])
    report = check(game("rummy", ["ana", "ben"], [done, extra], rules={"target": 50}))
    assert codes(report) == [(1, None, "GAME_OVER")]
    assert report["totals"]["points"]["ana"] == BEN_LEFT


def test_target_not_reached_is_incomplete():
    report = check(basic(rules={"target": 150}))
    assert report["status"] == "incomplete"
    assert report["deals"][0]["outcome"] == "out"
    assert report["warnings"] == [{
        "deal": 0, "move": None, "code": "GAME_NOT_FINISHED",
        "message": f"the game ends when a total reaches 150; the log has 1 deal, and the "
                   f"highest total is {BEN_LEFT}"}]


def test_fixed_number_of_deals():
    done = deal("ben", {"ana": ANA, "ben": BEN}, "7D", BASIC)
    report = check(game("rummy", ["ana", "ben"], [done], rules={"target": None, "deals": 1}))
    assert report["status"] == "valid"
    assert report["warnings"] == []
    report = check(game("rummy", ["ana", "ben"], [done], rules={"target": 500, "deals": 2}))
    assert report["status"] == "incomplete"
    assert report["warnings"][0]["message"] == (
        f"the game ends after 2 deals or when a total reaches 500; the log has 1 deal, and "
        f"the highest total is {BEN_LEFT}")


def test_an_illegal_game_cut_short_says_so_too():
    """The warning explains a missing winner whatever the verdict."""
    report = check(basic(BASIC[:1] + ["ben x QS"], rules={"target": 150}))
    assert report["status"] == "illegal" and report["totals"]["winner"] is None
    assert [w["code"] for w in report["warnings"]] == ["GAME_NOT_FINISHED"]
    assert check(basic(BASIC[:1] + ["ben x QS"]))["warnings"] == []  # no end: it ended


def test_deck_fixes_hands_and_stock_order():
    # Ana (dealer's left) gets deck[0], deck[2], ...; the upcard is deck[20].
    ana, ben = ANA.split(), BEN.split()
    dealt = [c for pair in zip(ana, ben, strict=True) for c in pair]
    stock = ["4H", "8C", "6C", "TC", "7C"]
    rest = [c for c in _all_cards() if c not in dealt + ["7D"] + stock]
    deck = " ".join(dealt + ["7D"] + stock + rest)
    log = basic(BASIC)
    log["deals"][0]["deck"] = deck.split()
    assert check(log)["status"] == "valid"
    # With the deck the stock draws need not name their card ...
    bare = [m.split()[0] + " ds" if " ds " in m else m for m in BASIC]
    log = basic(bare)
    log["deals"][0]["deck"] = deck.split()
    assert check(log)["status"] == "valid"
    # ... and a named card must be the top.
    wrong = ["ana ds 8C"] + BASIC[1:]
    log = basic(wrong)
    log["deals"][0]["deck"] = deck.split()
    assert codes(check(log)) == [(0, 0, "STOCK_CARD_MISMATCH")]
    # Hands that disagree with the deck.
    log = basic(BASIC)
    log["deals"][0]["deck"] = deck.split()
    log["deals"][0]["hands"]["ana"][0], log["deals"][0]["hands"]["ben"][0] = "2C", "AH"
    assert codes(check(log)) == [(0, None, "DEAL_MISMATCH")]
    # A deck listing a card twice.
    log = basic(BASIC)
    log["deals"][0]["deck"] = deck.split()[:-1] + ["AH"]
    assert codes(check(log)) == [(0, None, "DUPLICATE_CARD")]


def _all_cards():
    return [r + s for s in "CDHS" for r in "A23456789TJQK"]


# --- stock exhaustion: two players holding 25 cards each leave a one-card stock ------

BIG_ANA = " ".join(_all_cards()[:25])  # AC..KC, AD..QD
BIG_BEN = " ".join(_all_cards()[25:50])  # KD, AH..KH, AS..JS
# upcard QS, stock KS.


def exhausted(variant, moves, rules=None):
    rules = {"hand_size": 25, "target": None} | (rules or {})
    return game(variant, ["ana", "ben"],
                [deal("ben", {"ana": BIG_ANA, "ben": BIG_BEN}, "QS", moves)], rules=rules)


def hand_points(cards, ace=1):
    value = {"A": ace, "T": 10, "J": 10, "Q": 10, "K": 10}
    return sum(value.get(c[0], 0) or int(c[0]) for c in cards)


def test_block_rummy_ends_blocked_and_lowest_hand_wins():
    moves = ["ana ds KS", "ana x AC", "ben end"]
    report = check(exhausted("rummy-block", moves))
    assert report["status"] == "valid", report["violations"]
    ana = hand_points(BIG_ANA.split()) + 10 - 1  # drew KS, discarded AC: 169
    ben = hand_points(BIG_BEN.split())  # 160
    assert (ana, ben) == (169, 160)
    d = report["deals"][0]
    assert d["outcome"] == "blocked"
    assert d["hand_values"] == {"ana": ana, "ben": ben}
    low, high = ("ana", "ben") if ana < ben else ("ben", "ana")
    assert d["winner"] == low
    assert d["points"] == {low: abs(ana - ben), high: 0}


def test_block_rummy_may_not_draw_from_the_empty_stock():
    moves = ["ana ds KS", "ana x KC", "ben ds"]
    assert codes(check(exhausted("rummy-block", moves))) == [(0, 2, "EMPTY_STOCK")]
    # Taking the discard is always allowed.
    moves = ["ana ds KS", "ana x KC", "ben dd KC", "ben x KD"]
    assert check(exhausted("rummy-block", moves))["status"] == "incomplete"


def test_turn_over_flips_the_pile_oldest_on_top():
    # Pile: QS (upcard), KC.  Turned over: QS comes first, then KC.
    moves = ["ana ds KS", "ana x KC", "ben ds", "ben x QS", "ana ds KC"]
    assert check(exhausted("rummy-pagat", moves))["status"] == "incomplete"
    moves = ["ana ds KS", "ana x KC", "ben ds KC"]
    assert codes(check(exhausted("rummy-pagat", moves))) == [(0, 2, "STOCK_CARD_MISMATCH")]
    explicit = ["ana ds KS", "ana x KC", "ben reshuffle QS KC", "ben ds QS"]
    assert check(exhausted("rummy-pagat", explicit))["status"] == "incomplete"
    wrong_order = ["ana ds KS", "ana x KC", "ben reshuffle KC QS"]
    assert codes(check(exhausted("rummy-pagat", wrong_order))) == \
        [(0, 2, "RESHUFFLE_MISMATCH")]


def test_reshuffle_keep_top_leaves_the_top_discard():
    # Only QS is reshuffled; KC stays on the pile.  The new order is unknown.
    moves = ["ana ds KS", "ana x KC", "ben ds QS", "ben x KD", "ana dd KD"]
    assert check(exhausted("rummy", moves))["status"] == "incomplete"
    assert codes(check(exhausted("rummy", ["ana ds KS", "ana x KC", "ben ds"]))) == \
        [(0, 2, "STOCK_CARD_REQUIRED")]
    assert codes(check(exhausted("rummy", ["ana ds KS", "ana x KC", "ben ds KC"]))) == \
        [(0, 2, "STOCK_CARD_MISMATCH")]
    # The player facing the empty stock may still take the top discard.
    assert check(exhausted("rummy", ["ana ds KS", "ana x KC", "ben dd KC", "ben x KD"]))[
        "status"] == "incomplete"


def test_reshuffle_all_empties_the_pile():
    moves = ["ana ds KS", "ana x KC", "ben ds KC", "ben x KD", "ana ds QS"]
    rules = {"stock_exhausted": "reshuffle_all"}
    assert check(exhausted("rummy", moves, rules))["status"] == "incomplete"
    moves = ["ana ds KS", "ana x KC", "ben reshuffle", "ben dd"]
    assert codes(check(exhausted("rummy", moves, rules))) == [(0, 3, "EMPTY_DISCARD_PILE")]


def test_keep_last_discard_rebuilds_right_after_the_emptying_discard():
    # Greek: after Ana's KC the pile QS is reshuffled into the stock and KC starts the pile.
    moves = ["ana ds KS", "ana x KC", "ben ds QS", "ben x KD", "ana dd KD", "ana x AC"]
    report = check(exhausted("greek", moves, {"hand_size": 25}))
    assert report["status"] == "incomplete", report["violations"]
    explicit = ["ana ds KS", "ana x KC", "ben reshuffle QS", "ben ds", "ben x KD"]
    assert check(exhausted("greek", explicit))["status"] == "incomplete"
    late = ["ana ds KS", "ana x KC", "ben ds QS", "ben reshuffle"]
    assert codes(check(exhausted("greek", late))) == [(0, 3, "RESHUFFLE_NOT_ALLOWED")]


def test_reuse_limit():
    moves = ["ana ds KS", "ana x KC", "ben ds"]
    report = check(exhausted("rummy-pagat", moves, {"max_stock_reuses": 0}))
    assert codes(report) == [(0, 2, "EMPTY_STOCK")]
    ended = check(exhausted("rummy-pagat", ["ana ds KS", "ana x KC", "ben end"],
                            {"max_stock_reuses": 0}))
    assert ended["status"] == "valid" and ended["deals"][0]["outcome"] == "blocked"
    # One reuse allowed: the second exhaustion ends the deal.
    moves = ["ana ds KS", "ana x KC", "ben ds", "ben x QS", "ana ds KC", "ana x AC",
             "ben end"]
    report = check(exhausted("rummy-pagat", moves, {"max_stock_reuses": 1}))
    assert report["status"] == "valid", report["violations"]
    too_soon = check(exhausted("rummy-pagat", ["ana ds KS", "ana x KC", "ben end"],
                               {"max_stock_reuses": 1}))
    assert codes(too_soon) == [(0, 2, "END_NOT_ALLOWED")]


def test_blocked_deal_tie_shares_and_has_no_winner():
    # Both hold 160: the sum of differences is 0, shared, and nobody wins the deal.
    report = check(exhausted("rummy-block", ["ana ds KS", "ana x KC", "ben end"]))
    d = report["deals"][0]
    assert (d["winner"], d["points"]) == (None, {"ana": 0, "ben": 0})


def test_blocked_deal_with_settlement_and_penalty():
    moves = ["ana ds KS", "ana x AC", "ben end"]
    ana = hand_points(BIG_ANA.split()) + 9
    ben = hand_points(BIG_BEN.split())
    penalty = check(exhausted("rummy-block", moves, {"scoring": "penalty"}))
    assert penalty["deals"][0]["points"] == {"ana": ana, "ben": ben}
    assert penalty["deals"][0]["winner"] is None
    settle = check(exhausted("rummy-block", moves, {"scoring": "settlement"}))
    low, high = ("ana", "ben") if ana < ben else ("ben", "ana")
    assert settle["deals"][0]["points"] == {low: abs(ana - ben), high: -abs(ana - ben)}


# --- the ace option in play ------------------------------------------------------------

ACE_ANA = "QH KH 9C 9D 9S 5C 6C 7C 4D 8S"
ACE_BEN = "2C 3C 4C JD JH TS 8D 6H QS 5S"


@pytest.mark.parametrize(("ace", "meld", "ok"), [
    ("low", "QH KH AH", False),
    ("high_or_low", "QH KH AH", True),
    ("around_the_corner", "QH KH AH", True),
    ("high_or_low", "KH AH 2H", False),
    ("around_the_corner", "KH AH 2H", True),
])
def test_ace_option_in_melds(ace, meld, ok):
    hands = {"ana": ACE_ANA.replace("QH", "2H") if "2H" in meld else ACE_ANA, "ben": ACE_BEN}
    moves = ["ana ds AH", f"ana m {meld}"]
    log = game("rummy", ["ana", "ben"], [deal("ben", hands, "7D", moves)],
               rules={"target": None, "ace": ace})
    report = check(log)
    if ok:
        assert report["status"] == "incomplete", report["violations"]
    else:
        assert codes(report) == [(0, 1, "INVALID_MELD")]


@pytest.mark.parametrize(("rules", "ace_value"), [
    ({}, 1), ({"ace": "high_or_low"}, 15), ({"ace": "high_or_low", "ace_points": 11}, 11),
    ({"ace_points": 0}, 0),
])
def test_ace_points_follow_the_ace_option(rules, ace_value):
    # Ben keeps an ace: the deal's points count it at the option's value.
    ben = RUMMY_BEN.replace("5S", "AS")  # 2+3+4+10+10+10+8+6+10 + ace
    report = check(rummy_game(rules={"rummy_bonus": "none", **rules},
                              hands={"ana": RUMMY_ANA, "ben": ben}))
    assert report["status"] == "valid", report["violations"]
    assert report["deals"][0]["points"] == {"ana": 63 + ace_value, "ben": 0}

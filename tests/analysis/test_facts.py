"""The facts of each decision (service.analysis.facts) on hand-written positions, each
kind both ways, with the figures worked out in the comments.

Cards in the comments are counted as RULES.md counts them: a number its face value, J Q K
10, an ace 1 (the default of aces low).
"""

from __future__ import annotations

from service.analysis.facts import analyse
from service.engine import parse_game
from tests.engine.logs import deal, game

# ben's gin hand, used where ben only sits: no meld (AD is not there, 2D 3D need 4D, 8S
# 9C 9D are no meld) and deadwood 2+3+5+8+9+10+10+4+6+9 = 66.
BEN = "2D 3D 5S 8S 9C JD QH 4C 6C 9D"


def gin(moves, ana, ben=BEN, upcard="TD", rules=None):
    log = game("gin", ["ana", "ben"], [deal("ben", {"ana": ana, "ben": ben}, upcard, moves)],
               rules={"target": None} | (rules or {}))
    return analyse(parse_game(log))


def rummy(moves, hands, upcard, rules=None):
    log = game("rummy", ["ana", "ben"], [deal("ben", hands, upcard, moves)],
               rules={"target": None} | (rules or {}))
    return analyse(parse_game(log))


def kinds(analysis, player=None):
    return [(f.kind, f.move) for f in analysis.facts if player in (None, f.player)]


def only(analysis, kind):
    found = [f for f in analysis.facts if f.kind == kind]
    assert len(found) == 1, analysis.facts
    return found[0]


# --- missed gin ---------------------------------------------------------------------------

def test_a_gin_that_was_there_is_missed():
    # ana holds AC 2C 3C, 4H 5H 6H, 7S 7D 7C and KS.  She takes the upcard 7H: with KS
    # discarded all ten cards meld (4H-7H and the three other sevens, or 4H-6H and four
    # sevens), which is gin.  She discards 3C instead and plays on.  A gin then would
    # have scored the gin bonus 25 plus ben's deadwood 66 (no layoffs on gin): 91.
    a = gin(["ana dd 7H", "ana x 3C"], ana="AC 2C 3C 4H 5H 6H 7S 7D 7C KS", upcard="7H")
    fact = only(a, "missed_gin")
    assert (fact.deal, fact.move, fact.player, fact.position) == (0, 1, "ana", 0)
    assert (fact.alternative["a"], fact.alternative["card"]) == ("gin", "KS")
    assert fact.cost == 25 + 66
    assert fact.detail["deal_points"] is None  # the log stops: the deal scored nothing yet
    assert kinds(a) == [("missed_gin", 1)]  # not also a discard error


def test_gin_that_looks_possible_but_is_not_is_no_missed_gin():
    # ana's ten cards already meld (AC 2C 3C, 4H 5H 6H, 7S 7D 7C 7H).  She takes KS from
    # the pile: discarding KS would be gin, but the card taken from the pile may not be
    # thrown back.  Her best discards (7C, 7D, 7H, 7S or 4H) leave KS alone: deadwood 10,
    # a knock at the limit of 10.  She discards 7H and plays on: a missed knock, no gin.
    # The knock on 7C would declare AC 2C 3C (ben lays off 4C on it), 4H 5H 6H and 7D 7H
    # 7S: ben keeps 66 - 4 = 62, and the knock scores 62 - 10 = 52.
    a = gin(["ana dd KS", "ana x 7H"], ana="AC 2C 3C 4H 5H 6H 7S 7D 7C 7H", upcard="KS")
    assert "missed_gin" not in [k for k, _ in kinds(a)]
    fact = only(a, "missed_knock")
    assert (fact.alternative["a"], fact.alternative["card"]) == ("knock", "7C")
    assert fact.detail["deadwood"] == 10
    assert fact.cost == 52


def test_a_missed_knock_is_costed_with_the_declaration_that_scores_most():
    # ana holds 4C 4D 4S, 6C 6D 6H 6S, 3D 5D and AC and draws KH: discarding it leaves
    # 3 + 5 + 1 = 9, a knock.  She discards KH and plays on.  Two declarations leave
    # those 9 points: the sets of fours and sixes (ben would lay 4H off on the fours),
    # or 3D 4D 5D and the sixes (4C 4S and AC left: 9 too; ben holds no 2D, so nothing
    # to lay off).  ben's 79 points: the first scores 79 - 4 - 9 = 66, the second 79 -
    # 9 = 70, which is the knock's worth.
    ben = "4H 8S 9C JD QH 2S 7C 9D TS KC"
    a = gin(["ana ds KH", "ana x KH"], ana="4C 4D 4S 6C 6D 6H 6S 3D 5D AC", ben=ben)
    fact = only(a, "missed_knock")
    assert (fact.alternative["a"], fact.alternative["card"]) == ("knock", "KH")
    assert sorted(map(sorted, fact.alternative["melds"])) == sorted(
        map(sorted, [["3D", "4D", "5D"], ["6C", "6D", "6H", "6S"]]))
    assert fact.cost == 70


def test_a_knock_beyond_the_limit_is_no_missed_knock():
    # The same position with a knock limit of 9: the best deadwood, 10, is above it, and
    # the discard 7H leaves the best deadwood: no fact at all.
    a = gin(["ana dd KS", "ana x 7H"], ana="AC 2C 3C 4H 5H 6H 7S 7D 7C 7H", upcard="KS",
            rules={"knock_limit": 9})
    assert a.facts == []
    assert a.summary()["ana"]["decisions"] == 1
    assert a.summary()["ana"]["accuracy"] == 100.0


# --- discard error ------------------------------------------------------------------------

DISCARDER = "AC 2C 3C 4H 5H 6H 7S 7D 9C KS"
FEEDEE = "8S 9S 2D 3D JD QC KC 5C 6D AD"  # ben: AD 2D 3D melds


def test_a_discard_that_leaves_more_deadwood_is_an_error():
    # ana draws 8D: AC 2C 3C and 4H 5H 6H meld; 7S 7D 8D 9C KS are deadwood, 41.  The best
    # discard is KS, leaving 31 (no knock: above 10).  She discards 7S and keeps
    # 7D 8D 9C KS, 34: a discard error of 3.
    a = gin(["ana ds 8D", "ana x 7S"], ana=DISCARDER, ben=FEEDEE, upcard="QH")
    fact = only(a, "discard_error")
    assert fact.alternative == {"p": "ana", "a": "discard", "card": "KS"}
    assert (fact.cost, fact.detail["left"], fact.detail["best"]) == (3, 34, 31)
    summary = a.summary()["ana"]
    assert (summary["decisions"], summary["accuracy"]) == (1, 0.0)
    assert summary["average_discard_error"] == 3.0


def test_the_best_discard_is_no_error():
    a = gin(["ana ds 8D", "ana x KS"], ana=DISCARDER, ben=FEEDEE, upcard="QH")
    assert a.facts == []


# --- fed card -----------------------------------------------------------------------------

def test_a_discard_the_next_player_takes_into_a_meld_is_fed():
    # ana discards 7S (a discard error of 3, as above); ben takes it into 7S 8S 9S.  Ben's
    # deadwood before his draw: AD 2D 3D meld, 8+9+10+10+10+5+6 = 58; after taking 7S and
    # discarding KC: AD 2D 3D and 7S 8S 9S meld, JD QC 5C 6D = 31.  The card was worth 27
    # to him.  ana's safe discard was KS (ben holds one king, KC, and no JS or QS): it
    # leaves her 31.
    a = gin(["ana ds 8D", "ana x 7S", "ben dd 7S", "ben x KC"], ana=DISCARDER, ben=FEEDEE,
            upcard="QH")
    fact = only(a, "fed_card")
    assert (fact.player, fact.move, fact.detail["receiver"], fact.cost) == ("ana", 1, "ben", 27)
    assert fact.alternative == {"p": "ana", "a": "discard", "card": "KS"}
    summary = a.summary()
    assert (summary["ana"]["fed_given"], summary["ben"]["fed_received"]) == (1, 1)
    # A fed card is no error of judgement: ana's decision counts one error, the discard.
    assert summary["ana"]["errors"]["discard_error"] == 1


def test_a_taken_card_that_stays_deadwood_is_not_fed():
    # ana discards 7D instead (7S 8D 9C KS left, 34: the same error of 3).  ben takes it,
    # but with his 6D alone it is no meld (8D is ana's): not fed.
    a = gin(["ana ds 8D", "ana x 7D", "ben dd 7D", "ben x KC"], ana=DISCARDER, ben=FEEDEE,
            upcard="QH")
    assert [k for k, _ in kinds(a)] == ["discard_error"]


# --- knock into undercut, missed layoff (gin) ---------------------------------------------

KNOCKER = "AC 2C 3C 4H 5H 6H 7S 7D 7C 9D"
KNOCK = ["ana ds 5S", "ana knock 9D | AC 2C 3C | 4H 5H 6H | 7C 7D 7S"]
# ben: 2D-5D and the three kings meld; 4C, 2S and AS are deadwood, 7.
UNDERCUTTER = "2D 3D 4D 5D KH KD KC 4C 2S AS"


def test_a_knock_the_defender_was_sure_to_undercut():
    # ana draws 5S and knocks on 9D with 5 deadwood.  Ben keeps 7 as dealt, more than 5,
    # but lays 4C off on AC 2C 3C and keeps 3: an undercut was certain, worth 5 - 3 + 25 =
    # 27 to ben.  ben does lay it off here, so he missed nothing.
    a = gin([*KNOCK, "ben l 4C 0"], ana=KNOCKER, ben=UNDERCUTTER, upcard="JH")
    fact = only(a, "knock_into_undercut")
    assert (fact.player, fact.move, fact.cost) == ("ana", 1, 27)
    assert (fact.detail["knocker_deadwood"], fact.detail["defender_deadwood"]) == (5, 3)
    assert fact.alternative == {"p": "ana", "a": "discard", "card": "9D"}
    assert "missed_layoff" not in [k for k, _ in kinds(a)]


def test_a_defender_who_does_not_lay_off_missed_a_layoff():
    # The same knock, ben plays nothing after it: he is counted 7, more than 5, and ana's
    # knock scores 7 - 5 = 2.  Laying 4C off he would have kept 3 and undercut for 27: his
    # missed layoff cost him 27 + 2 = 29 (his net points, from -2 to 27).  The knock is
    # still one the defender's hand made certain to be undercut.
    a = gin(KNOCK, ana=KNOCKER, ben=UNDERCUTTER, upcard="JH")
    fact = only(a, "missed_layoff")
    assert (fact.player, fact.move, fact.position) == ("ben", 1, 1)
    assert fact.alternative == {"p": "ben", "a": "layoff", "card": "4C", "meld": 0}
    assert (fact.cost, fact.detail["deadwood"], fact.detail["best"]) == (29, 7, 3)
    assert only(a, "knock_into_undercut").cost == 27


def test_a_knock_the_defender_cannot_undercut():
    # ben: 2D 3D 4D and the kings meld; QS QD 8C 9H, 37, are deadwood and lay off nowhere.
    a = gin(KNOCK, ana=KNOCKER, ben="2D 3D 4D KH KD KC QS QD 8C 9H", upcard="JH")
    assert a.facts == []
    assert a.summary()["ben"]["decisions"] == 1  # his answer to the knock


# --- Rummy: missed rummy, missed out, missed layoff ----------------------------------------

SMALL = {"hand_size": 4}


def test_a_rummy_that_was_there_is_missed():
    # Four cards each.  ana draws 6H to 3H 4H 5H 9C: 3H-6H melds and 9C is discarded, and
    # she has played no card before: rummy.  She discards 9C and keeps the run.  Going
    # rummy would have scored ben's hand, 2 + 7 + 8 + 10 = 27, doubled: 54.
    a = rummy(["ana ds 6H", "ana x 9C"], {"ana": "3H 4H 5H 9C", "ben": "2C 7S 8S JD"}, "KD",
              rules=SMALL)
    fact = only(a, "missed_rummy")
    assert (fact.move, fact.position, fact.cost) == (1, 0, 54)
    assert fact.alternative["a"] == "meld"
    assert fact.detail["line"][-1] == {"p": "ana", "a": "discard", "card": "9C"}


def test_out_that_looks_possible_but_is_not():
    # ana's four cards 3H-6H are a run; she takes 9C from the pile.  Melding the run
    # leaves 9C, which she may not throw back the turn she took it: no way out.
    a = rummy(["ana dd 9C", "ana x 6H"], {"ana": "3H 4H 5H 6H", "ben": "2C 7S 8S JD"}, "9C",
              rules=SMALL)
    assert [k for k, _ in kinds(a) if k in ("missed_out", "missed_rummy")] == []


TWO_TURNS = ["ana ds 8C", "ana m 3H 4H 5H", "ana x KD", "ben ds 4D", "ben x QD"]
HANDS5 = {"ana": "3H 4H 5H 9C KD", "ben": "2C 6S 7S JD QD"}


def test_out_after_a_meld_is_missed_out():
    # Five cards each.  ana melds 3H 4H 5H in her first turn and keeps 8C 9C.  In her
    # second she draws 7C: melding 7C 8C 9C would take her out (no rummy: she melded
    # before).  She discards 9C.  Out, she would have scored ben's hand 2C 6S 7S JD 4D,
    # 2 + 6 + 7 + 10 + 4 = 29.
    a = rummy([*TWO_TURNS, "ana ds 7C", "ana x 9C"], HANDS5, "2S", rules={"hand_size": 5})
    fact = only(a, "missed_out")
    assert (fact.player, fact.move, fact.position, fact.cost) == ("ana", 6, 5, 29)
    assert fact.alternative == {"p": "ana", "a": "meld", "cards": ["7C", "8C", "9C"]}


def test_a_card_kept_that_fits_a_meld_on_the_table_is_a_missed_layoff():
    # As above, but ana draws 6H, which extends 3H 4H 5H.  She discards 9C and keeps 8C 6H
    # (14); laying 6H off first she would have kept 8C (8): a missed layoff of 6.  Her
    # discard is the best one (9C leaves 14, 8C 15, 6H 17).
    a = rummy([*TWO_TURNS, "ana ds 6H", "ana x 9C"], HANDS5, "2S", rules={"hand_size": 5})
    fact = only(a, "missed_layoff")
    assert (fact.move, fact.cost) == (6, 6)
    assert fact.alternative == {"p": "ana", "a": "layoff", "card": "6H", "meld": 0}
    assert [k for k, _ in kinds(a, "ana")] == ["missed_layoff"]


def test_laying_the_card_off_is_no_missed_layoff():
    a = rummy([*TWO_TURNS, "ana ds 6H", "ana l 6H 0", "ana x 9C"], HANDS5, "2S",
              rules={"hand_size": 5})
    assert kinds(a, "ana") == []


def test_figures_round_half_away_from_zero_on_the_exact_quotient():
    from service.analysis.facts import ratio

    assert ratio(1, 8, 2) == 0.13  # 0.125: round() of the float gives 0.12
    assert ratio(100 * 2, 3, 2) == 66.67
    assert ratio(-5, 8, 2) == -0.63
    assert ratio(1, 0, 2) is None

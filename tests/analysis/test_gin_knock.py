"""The knock-or-play-on choice (``service.analysis.gin_knock``): layoffs at best, the
worlds a choice is valued on, and worked choices whose every world ends alike."""

from __future__ import annotations

import pytest

from service.analysis.gin_knock import (
    CLEAR,
    KNOCK,
    PLAY_ON,
    WORLDS,
    after_layoffs,
    knock_choice,
    knock_score,
    worlds,
)
from service.analysis.values import deadwood_of, suit_tables
from service.engine.cards import FULL_DECK, parse_card, point_table
from service.engine.melds import best_arrangement
from service.engine.rules import resolve_rules
from tests.analysis.test_decisions import mask


@pytest.fixture(scope="module")
def gin():
    rules = resolve_rules("gin", None, 2)[0]
    return rules, suit_tables(str(rules.ace), point_table(rules.ace_points))


def test_layoffs_go_on_melds_as_they_grow_and_keep_the_defenders_own_melds(gin):
    _, tables = gin
    melds = (mask("5H 6H 7H"), mask("9C 9D 9S"))
    # 3H fits only once 4H is laid off; 8H and 9H extend the run (9H would fit the set).
    assert after_layoffs(mask("3H 4H 8H 9H KD"), melds, tables) == 10
    assert after_layoffs(mask("3H KD"), melds, tables) == 13  # 3H alone fits nothing
    # The queens stay a meld of the defender's: only 4H and 8H are laid off.
    assert after_layoffs(mask("4H 8H QC QD QS"), melds, tables) == 0
    assert after_layoffs(mask("2C KD"), melds, tables) == 12


def test_a_knock_is_scored_after_the_defenders_best_layoffs_and_gin_without(gin):
    rules, tables = gin
    knocker = mask("5H 6H 7H 9C 9D 9S 2C 3C 4C AD")  # deadwood 1
    defender = mask("4H 8H KS KD QC 2S 3S 4S 5S 6S")  # 4H, 8H laid off: KS KD QC
    assert deadwood_of(defender, tables) == 42
    assert knock_score(rules, tables, knocker, 1, defender, 42) == 30 - 1
    # An undercut once the layoffs are made: 25 and the difference to the defender.
    low = mask("4H 8H AS 2S 3S 4S 5S 6S 7S 8S")  # 0 after laying off 4H, 8H
    assert knock_score(rules, tables, knocker, 1, low, 12) == -(rules.undercut_bonus + 1)
    gin_hand = mask("5H 6H 7H 9C 9D 9S 2C 3C 4C 5C")
    assert knock_score(rules, tables, gin_hand, 0, defender, 42) == rules.gin_bonus + 42
    assert best_arrangement(gin_hand, tables.ace, tables.points)[0] == 0


def test_the_worlds_deal_the_unseen_cards_with_the_shown_ones_kept_and_a_fixed_seed():
    hand = mask("5H 6H 7H 9C 9D 9S 2C 3C 4C AD KS")
    unseen = FULL_DECK & ~hand & ~mask("QH JH")
    shown = mask("TC JC")
    found = worlds(unseen, shown, 10, 20, key=7)
    assert len(found) == WORLDS
    for other, stock in found:
        assert other & shown == shown and other.bit_count() == 10
        assert other & ~unseen == 0 and len(stock) == 20 == len(set(stock))
        assert all(unseen >> c & 1 and not other >> c & 1 for c in stock)
    # Shown cards not counted among the unseen ones are the other's all the same.
    assert all(o & shown == shown for o, _ in worlds(unseen & ~shown, shown, 10, 20, 7))
    assert found == worlds(unseen, shown, 10, 20, key=7)
    assert found != worlds(unseen, shown, 10, 20, key=8)
    assert len({other for other, _ in found}) > WORLDS // 2  # the other's cards vary


MINE = "2C 3C 4C 7D 8D 9D JS QS KS AH 9H"  # after the draw: throwing 9H leaves AH (1)
GINS_ON_9H = "5H 5S 5D TH JH QH 2D 3D 4D KC"  # takes 9H onto TH JH QH, throws KC: gin


def test_playing_on_into_a_certain_gin_loses_the_whole_difference(gin):
    rules, tables = gin
    hand = mask(MINE)
    other = mask(GINS_ON_9H)
    unseen = FULL_DECK & ~hand
    stock = unseen.bit_count() - 10
    # Knocking: 1 against the other's 10 (KC; nothing of theirs fits the melds) = 9.
    # Playing on: the other takes 9H and goes gin: 25 and the 1 kept, to them.
    played_on = knock_choice(hand, hand, False, unseen, other, stock, 10, rules, tables)
    assert played_on is not None
    assert (played_on.throw, played_on.knock, played_on.play_on) == (
        parse_card("9H"), 9.0, -26.0)
    assert (played_on.played, played_on.best, played_on.loss) == (PLAY_ON, KNOCK, 35.0)
    assert played_on.error == 0.0 and played_on.worlds == WORLDS
    knocked = knock_choice(hand, hand, True, unseen, other, stock, 10, rules, tables)
    assert (knocked.played, knocked.best, knocked.loss) == (KNOCK, KNOCK, 0.0)
    assert (knocked.knock, knocked.play_on) == (played_on.knock, played_on.play_on)


def test_a_close_call_is_no_loss_and_no_knock_open_is_not_judged(gin):
    rules, tables = gin
    hand = mask(MINE)
    unseen = FULL_DECK & ~hand
    stock = unseen.bit_count() - 10
    choice = knock_choice(hand, hand, True, unseen, 0, stock, 10, rules, tables)
    assert choice is not None and choice.error > 0
    gap = choice.play_on - choice.knock
    if gap > CLEAR * choice.error:
        assert (choice.best, choice.loss) == (PLAY_ON, gap)
    else:
        assert (choice.best, choice.loss) == (KNOCK, 0.0)
    assert knock_choice(hand, hand, True, unseen, 0, stock, 10, rules, tables) == choice
    # A limit below the least deadwood left, and gin, open no knock.
    assert knock_choice(hand, hand, True, unseen, 0, stock, 0, rules, tables) is None
    gin_hand = mask("2C 3C 4C 7D 8D 9D TS JS QS KS 9H")  # throwing 9H is gin
    assert knock_choice(gin_hand, gin_hand, False, FULL_DECK & ~gin_hand, 0, stock, 10,
                        rules, tables) is None


def test_a_missed_knock_and_a_knock_into_an_undercut_carry_the_choices_verdict():
    """On generated games (a greedy bot plays on for gin at times): every missed knock
    and every knock into an undercut is given the verdict of that turn's choice, and a
    discard error keeps the verdict of the throw."""
    from service.analysis.decisions import game_decisions, mark_facts, verdict
    from service.analysis.facts import analyse
    from service.engine import parse_game
    from service.generator import generate_game

    marked = {"missed_knock": 0, "knock_into_undercut": 0, "discard_error": 0}
    for n in range(6):
        parsed = parse_game(generate_game("gin", (29, n), players=2,
                                          skills={"ana": "greedy", "ben": "careful"}))
        decisions = game_decisions(parsed)
        facts = [f.to_dict() for f in analyse(parsed).facts]
        mark_facts(facts, decisions)
        for fact in facts:
            if fact["kind"] not in marked:
                assert "evaluator" not in fact
                continue
            choice = fact["kind"] != "discard_error"
            (judged,) = [x for x in decisions if (x.deal, x.move) == (fact["deal"], fact["move"])
                         and (x.choice is not None) == choice]
            assert fact["evaluator"] == verdict(judged.loss)
            assert fact["evaluator_loss"] == round(judged.loss, 4)
            if fact["kind"] == "missed_knock":
                assert judged.choice == PLAY_ON
            elif choice:
                assert judged.choice == KNOCK
            marked[fact["kind"]] += 1
    assert marked["missed_knock"] > 0 and marked["discard_error"] > 0, marked


def test_a_choice_settled_on_the_first_worlds_is_one_all_of_them_would_not_condemn(
        gin, monkeypatch):
    """A choice the played one leads clearly after ``FIRST_LOOK`` worlds stops there
    (the first worlds of a longer run are those of a shorter one); played out on every
    world instead, none of them turns into a loss, on the choices of generated games."""
    from service.analysis import gin_knock
    from service.analysis.decisions import game_decisions, positions
    from service.engine import parse_game
    from service.generator import generate_game

    hand = mask(MINE)
    unseen = FULL_DECK & ~hand
    assert worlds(unseen, 0, 10, 20, 3, 16) == worlds(unseen, 0, 10, 20, 3)[:16]
    rules, tables = gin
    settled = knock_choice(hand, hand, True, unseen, mask(GINS_ON_9H),
                           unseen.bit_count() - 10, 10, rules, tables)
    assert (settled.worlds, settled.loss) == (gin_knock.FIRST_LOOK, 0.0)
    early = []
    for n in range(4):
        parsed = parse_game(generate_game("gin", (31, n), players=2,
                                          skills={"ana": "greedy", "ben": "careful"}))
        found = {(x.deal, x.move): x for x in game_decisions(parsed) if x.choice}
        for at, at_tables in positions(parsed):
            x = found.get((at.deal, at.move))
            if x is not None and x.loss == 0 and x.best_choice == x.choice:
                early.append((at, at_tables, parsed.rules))
    monkeypatch.setattr(gin_knock, "FIRST_LOOK", WORLDS)
    for at, at_tables, at_rules in early:
        full = knock_choice(at.hand, at.throws, at.action == "knock", at.unseen, at.shown,
                            at.stock_count, at.limit, at_rules, at_tables)
        assert full.worlds == WORLDS and full.loss == 0
    assert len(early) > 20

"""The shortcuts of the play-outs' hand arithmetic, checked against the engine and
against the plain searches they stand for: a column of three or four cards that no run
could hold is laid whole (``values.split_groups``), so ``deadwood_of`` and the play-out's
``best_throw`` weigh fewer group choices, and a defender with a single card that fits
lays it off or keeps it without a search (``gin_knock._after``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.analysis.gin_duplicate import best_throw
from service.analysis.gin_knock import _after, _layoff_search, _on_table
from service.analysis.values import COLUMN, deadwood_of, split_groups, suit_tables
from service.engine.cards import point_table
from service.engine.melds import ACE_MODES, best_arrangement, least_deadwood
from tests.analysis.test_decisions import mask


def tables_of(ace: str, ace_points: int):
    return suit_tables(str(ace), point_table(ace_points))


@st.composite
def grouped_hands(draw, low: int = 3, high: int = 12) -> int:
    """A hand of ``low`` to ``high`` cards of a few ranks, so that it holds three or
    four of a rank more often than not, with runs beside them now and then."""
    ranks = draw(st.lists(st.integers(0, 12), min_size=2, max_size=6, unique=True))
    cards = [r + 13 * s for r in ranks for s in range(4)]
    size = draw(st.integers(min(low, len(cards)), min(high, len(cards))))
    hand = 0
    for card in draw(st.permutations(cards))[:size]:
        hand |= 1 << card
    return hand


rule_sets = st.tuples(st.sampled_from(ACE_MODES), st.sampled_from((1, 11, 15)))


def test_a_column_no_run_can_hold_is_laid_whole_and_the_others_stay_choices():
    tables = tables_of("low", 1)
    # The kings: no run of the hand holds one.  The fives: 5H sits in 4H 5H 6H.
    hand = mask("KC KD KS 5C 5D 5H 4H 6H")
    laid, choices = split_groups(hand, tables)
    assert laid == mask("KC KD KS")
    assert sorted(choices) == [0, mask("5C 5D 5H")]
    assert split_groups(mask("KC KD 5H"), tables) == (0, [0])


def test_a_throw_from_a_laid_column():
    tables = tables_of("low", 1)
    # Four kings and a run: throwing a king keeps three kings and the run, no deadwood,
    # as does throwing the run's end; the card worth more goes first, then the higher
    # card (spades above hearts).
    hand = mask("KC KD KS KH 2C 3C 4C 5C")
    assert best_throw(hand, -1, tables) == (mask_card("KS"), 0)
    # Three kings: a king thrown leaves two as deadwood, never the best.
    assert best_throw(mask("KC KD KS 2C 3C 4C 9D"), -1, tables) == (mask_card("9D"), 0)
    # The card just taken is never thrown.
    assert best_throw(hand, mask_card("KS"), tables)[0] == mask_card("KH")


def mask_card(text: str) -> int:
    return mask(text).bit_length() - 1


@settings(max_examples=300)
@given(rule_sets, grouped_hands())
def test_deadwood_of_agrees_with_the_engine(rule, hand):
    ace, ace_points = rule
    assert deadwood_of(hand, tables_of(ace, ace_points)) == \
        least_deadwood(hand, ace, point_table(ace_points))


@settings(max_examples=300)
@given(rule_sets, grouped_hands(low=2), st.data())
def test_best_throw_is_the_least_deadwood_throw_with_the_stated_tie_break(rule, hand, data):
    ace, ace_points = rule
    tables = tables_of(ace, ace_points)
    cards = [c for c in range(52) if hand >> c & 1]
    kept = data.draw(st.sampled_from([-1, *cards]))
    points = point_table(ace_points)
    expected = min((least_deadwood(hand & ~(1 << c), ace, points), tables.place[c], c)
                   for c in cards if c != kept)
    assert best_throw(hand, kept, tables) == (expected[2], expected[0])
    laid, _ = split_groups(hand, tables)
    assert laid & ~hand == 0 and all(
        (laid & COLUMN << c % 13).bit_count() in (0, 3, 4) for c in cards)


@settings(max_examples=300)
@given(rule_sets, grouped_hands(low=6, high=10), grouped_hands(low=3, high=10))
def test_layoffs_with_one_card_that_fits_match_the_search(rule, knocker, defender):
    ace, ace_points = rule
    tables = tables_of(ace, ace_points)
    defender &= ~knocker
    melds = best_arrangement(knocker, ace, point_table(ace_points))[1]
    start, fits = table = _on_table(melds, ace)
    assert _after(defender, table, tables) == _layoff_search(defender, start, tables)


def test_one_card_that_fits_stays_in_the_defenders_own_meld_when_that_is_better():
    tables = tables_of("low", 1)
    table = _on_table((mask("TC JC QC"), mask("2D 2H 2S")), "low")
    # 9C fits the run, but it is one of the defender's three nines.
    assert _after(mask("9C 9D 9S KH"), table, tables) == 10
    # 8C fits nothing; 2C would fit the twos and is laid off.
    assert _after(mask("2C 8C KH"), table, tables) == 18

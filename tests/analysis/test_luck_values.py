"""The values behind luck, checked against a plain brute force.

The brute force below knows nothing of suit slices or tables: it tries every set of
disjoint melds of the hand (``candidate_melds``), every set of table-fitting cards laid
off and every discard, and keeps the least points left.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from service.analysis.values import (
    draw_figures,
    hand_value,
    suit_tables,
    sum_after,
    value_after,
    values_after,
)
from service.engine.cards import cards_of, parse_card, point_table
from service.engine.melds import candidate_melds, layoff_fits, meld_kind

FULL = (1 << 52) - 1
MODES = ("low", "high_or_low", "around_the_corner")


def mask(codes: str) -> int:
    out = 0
    for code in codes.split():
        out |= 1 << parse_card(code)
    return out


@cache
def brute_deadwood(hand: int, ace: str, ace_points: int) -> int:
    """The least points left over every set of disjoint melds of the hand."""
    points = point_table(ace_points)
    if not hand:
        return 0
    # The hand's lowest card is either deadwood or in one of the melds holding it.
    lowest = hand & -hand
    best = points[lowest.bit_length() - 1] + brute_deadwood(hand & ~lowest, ace, ace_points)
    for meld in candidate_melds(hand, ace):
        if meld & lowest:
            best = min(best, brute_deadwood(hand & ~meld, ace, ace_points))
    return best


def brute_fitting(hand: int, table_melds: list[int], ace: str) -> int:
    out = 0
    for card in cards_of(hand):
        for meld in table_melds:
            if layoff_fits(meld, meld_kind(meld, ace), card, ace):
                out |= 1 << card
    return out


def subsets(m: int) -> list[int]:
    out = [0]
    for card in cards_of(m):
        out += [s | 1 << card for s in out]
    return out


def brute_value(hand: int, table_melds: list[int], ace: str, ace_points: int) -> int:
    fitting = brute_fitting(hand, table_melds, ace)
    return min(brute_deadwood(hand & ~laid, ace, ace_points) for laid in subsets(fitting))


def brute_after(hand: int, card: int, table_melds: list[int], ace: str, ace_points: int) -> int:
    """Draw the card, lay off any fitting cards, discard any card (or none is left)."""
    held = hand | 1 << card
    fitting = brute_fitting(held, table_melds, ace)
    best = None
    for laid in subsets(fitting):
        kept = held & ~laid
        if not kept:
            options = [0]
        else:
            options = [brute_deadwood(kept & ~(1 << d), ace, ace_points) for d in cards_of(kept)]
        value = min(options)
        best = value if best is None else min(best, value)
    return best


def layable_of(table_melds: list[int], ace: str, unseen_and_hand: int) -> int:
    return brute_fitting(unseen_and_hand, table_melds, ace)


def random_position(rng: random.Random, size: int, melds: int, ace: str):
    """A hand of ``size`` cards, up to ``melds`` melds on the table, and the other cards
    (some of them seen)."""
    deck = list(range(52))
    rng.shuffle(deck)
    table_melds: list[int] = []
    used = 0
    for _ in range(melds):
        options = [m for m in candidate_melds(FULL & ~used, ace)
                   if m.bit_count() <= 4 and rng.random() < 0.02]
        if options:
            meld = rng.choice(options)
            table_melds.append(meld)
            used |= meld
    free = [c for c in deck if not used >> c & 1]
    hand = 0
    for c in free[:size]:
        hand |= 1 << c
    seen = 0
    for c in free[size:size + rng.randint(0, 15)]:
        seen |= 1 << c
    unseen = FULL & ~hand & ~seen & ~used
    return hand, table_melds, unseen


def test_a_worked_position():
    # Gin, aces low: 5H 6H 7H is a run, 9S 9C a pair, and KD, QC, 2S, 3D, AC deadwood.
    # Before the draw: 9 + 9 + 10 + 10 + 2 + 3 + 1 = 44.  Drawing 9D makes 9S 9C 9D a
    # group and the best discard is KD (or QC): left QC 2S 3D AC = 16.  Drawing 4H extends
    # the run; the best discard is KD: 9 + 9 + 10 + 2 + 3 + 1 = 34.  Drawing JS helps
    # nothing: discarding it keeps 44.
    hand = mask("5H 6H 7H 9S 9C KD QC 2S 3D AC")
    tables = suit_tables("low", point_table(1))
    assert hand_value(hand, 0, tables) == 44
    assert value_after(hand, parse_card("9D"), 0, tables) == 16
    assert value_after(hand, parse_card("4H"), 0, tables) == 34
    assert value_after(hand, parse_card("JS"), 0, tables) == 44


def test_a_worked_layoff():
    # Rummy: 7S 8S 9S lies on the table.  The hand TS 2D 3C is worth 5 once TS is laid
    # off; drawing 6S (which fits as well) lets 2D 3C go down to 2 after discarding 3C.
    table_melds = [mask("7S 8S 9S")]
    hand = mask("TS 2D 3C")
    tables = suit_tables("low", point_table(1))
    layable = layable_of(table_melds, "low", FULL)
    assert hand_value(hand, layable, tables) == 5
    assert value_after(hand, parse_card("6S"), layable, tables) == 2
    assert brute_after(hand, parse_card("6S"), table_melds, "low", 1) == 2


@pytest.mark.parametrize("ace", MODES)
@pytest.mark.parametrize("ace_points", (1, 11, 15))
def test_values_match_the_brute_force(ace, ace_points):
    """Every unseen card of random small positions (hands of 3 to 8 cards, with and
    without melds on the table): the per-card values, their sum and the value before."""
    rng = random.Random(f"{ace}:{ace_points}")
    tables = suit_tables(ace, point_table(ace_points))
    for _ in range(12):
        size = rng.randint(3, 8)
        hand, table_melds, unseen = random_position(rng, size, rng.choice((0, 0, 2, 4)), ace)
        layable = layable_of(table_melds, ace, FULL)
        values = values_after(hand, unseen, layable, tables)
        expected = [brute_after(hand, c, table_melds, ace, ace_points) for c in cards_of(unseen)]
        assert values == expected
        assert sum_after(hand, unseen, layable, tables) == sum(expected)
        assert hand_value(hand, layable, tables) == brute_value(hand, table_melds, ace,
                                                                ace_points)
        before = brute_value(hand, table_melds, ace, ace_points)
        for i, card in enumerate(cards_of(unseen)):
            if i % 4 == 0:
                assert value_after(hand, card, layable, tables) == expected[i]
                assert draw_figures(hand, unseen, card, layable, tables) == (
                    before, sum(expected), expected[i])


def test_groups_and_pairs_match_the_brute_force():
    """Hands full of pairs, triples and four of a kind: the group choices."""
    rng = random.Random(7)
    tables = suit_tables("low", point_table(1))
    for _ in range(25):
        ranks = rng.sample(range(13), 3)
        cards = [r + 13 * s for r in ranks for s in range(4)]
        rng.shuffle(cards)
        hand = 0
        for c in cards[:rng.randint(5, 9)]:
            hand |= 1 << c
        extra = rng.sample([c for c in range(52) if not hand >> c & 1], 2)
        for c in extra:
            hand |= 1 << c
        unseen = FULL & ~hand
        expected = [brute_after(hand, c, [], "low", 1) for c in cards_of(unseen)]
        assert values_after(hand, unseen, 0, tables) == expected
        assert sum_after(hand, unseen, 0, tables) == sum(expected)
        card = cards_of(unseen)[rng.randrange(len(expected))]
        assert draw_figures(hand, unseen, card, 0, tables) == (
            brute_value(hand, [], "low", 1), sum(expected), expected[cards_of(unseen).index(card)])

"""The duplicate of a recorded gin deck (``gin_duplicate``): the mirror undoes itself,
the figure changes sign with it, and its mean over every order of a deck is exactly 0."""

from __future__ import annotations

import dataclasses
import random
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.analysis.gin_duplicate import (
    duplicate,
    knock_points,
    mirror,
    play_hands,
    play_out,
    swap,
)
from service.analysis.gin_luck import gin_deal_luck
from service.analysis.gin_value import gin_values
from service.analysis.values import suit_tables
from service.engine import parse_game
from service.engine.cards import parse_card, point_table
from service.engine.rules import resolve_rules
from service.generator import generate_game

POINTS = point_table(1)
TABLES = suit_tables("low", POINTS)


def rules_of(overrides: dict | None = None):
    rules, errors = resolve_rules("gin", overrides, 2)
    assert rules is not None, errors
    return rules


def deck_of(first: str, second: str, upcard: str, stock: str) -> list[int]:
    """The deck dealing ``first`` and ``second`` alternately, then the upcard and the
    stock from its top."""
    pairs = zip(first.split(), second.split(), strict=True)
    names = [c for pair in pairs for c in pair] + [upcard] + stock.split()
    return [parse_card(c) for c in names]


def test_the_mirror_swaps_the_hands_and_the_draws_and_undoes_itself():
    deck = list(range(52))
    swapped = mirror(deck, 20)
    assert swapped[:4] == [1, 0, 3, 2]
    assert swapped[20] == 20  # the upcard stays
    assert swapped[21:25] == [22, 21, 24, 23]  # each player draws what the other would
    assert swapped[51] == 51  # the last card of an odd stock has no pair
    assert sorted(swapped) == deck
    assert mirror(swapped, 20) == deck


@given(st.permutations(list(range(52))), st.booleans())
def test_the_duplicate_changes_sign_with_the_mirror(deck, oklahoma):
    """A deck and its mirror are equally likely, and their duplicates cancel: the
    figure's mean over every shuffle is 0."""
    rules = rules_of({"oklahoma": True} if oklahoma else None)
    assert duplicate(mirror(deck, 20), rules, TABLES) \
        == -duplicate(deck, rules, TABLES)


def test_the_mean_over_every_order_of_a_small_deck_is_zero():
    """Every order of an eight-card deck, two cards a hand (no stock floor): the
    duplicates sum to exactly 0, and not because they all are."""
    rules = dataclasses.replace(rules_of(), hand_size=2, stock_floor=0)
    cards = [parse_card(c) for c in ["AC", "2C", "3C", "4D", "5H", "9S", "KD", "QS"]]
    figures = [duplicate(list(order), rules, TABLES) for order in permutations(cards)]
    assert len(figures) == 40320
    assert sum(figures) == 0
    assert sum(1 for f in figures if f) > 30000


NO_MELD = "2D 4D 6D 8D TD 2S 4S 6S 8S QD"  # 60 points of deadwood
ALMOST_GIN = "AC 2C 3C 4H 5H 6H 7S 7D 7H KS"  # gin with the 4C, the KS thrown


def test_a_worked_play_out():
    """ana (first) holds AC 2C 3C 4H 5H 6H 7S 7D 7H KS; the upcard 4C lowers her
    deadwood (KS thrown: gin), so she takes it and goes gin: 25 + ben's 60."""
    deck = deck_of("AC 2C 3C 4H 5H 6H 7S 7D 7H KS", NO_MELD, "4C",
                   "9C 9D 9H JS JD JH 3S 5S")
    assert play_out(deck, rules_of(), TABLES) == 85
    # Under Oklahoma a club upcard of rank 4 sets the knock limit to 4, not doubled.
    assert play_out(deck, rules_of({"oklahoma": True}), TABLES) == 85


def test_the_stock_at_its_floor_is_a_void_deal():
    """Neither hand can use the upcard or any card of a two-card stock at its floor of
    two: no draw, the deal is void."""
    deck = deck_of("2C 4C 6C 8C TC 2H 4H 6H 8H QC", NO_MELD, "KH", "KC KS")
    assert play_out(deck, rules_of(), TABLES) == 0


@pytest.mark.parametrize("knocker,defender,tie,points", [
    (0, 30, True, 25 + 30),  # gin
    (7, 30, True, 23),  # a knock
    (7, 7, True, -25),  # a tie is an undercut
    (7, 7, False, 0),  # unless the rules say not
    (9, 4, True, -(25 + 5)),  # an undercut
])
def test_knock_points(knocker, defender, tie, points):
    rules = rules_of({"undercut_on_tie": tie})
    assert knock_points(knocker, defender, rules) == points


def test_a_recorded_deck_adds_its_weighed_duplicate_to_the_deal_luck():
    """The same deal with the deck and with its hands and draws named: the deal's luck
    differs by the duplicate's weight times the duplicate, nothing else does."""
    values = gin_values()
    assert values.deck_weight > 0
    for seed in range(4):
        log = generate_game("gin", (31, seed), players=2, with_deck=True)
        game = parse_game(log)
        with_deck = gin_deal_luck(game, 0, values)
        plain = gin_deal_luck(game, 0, dataclasses.replace(values, deck_weight=0.0))
        deck = game.deals[0].deck
        rules = game.rules
        expected = duplicate(deck, rules, suit_tables(str(rules.ace), point_table(
            rules.ace_points)))
        assert with_deck.deck == expected
        assert with_deck.swap is None  # the deck's duplicate stands in for it
        assert with_deck.deal_luck == pytest.approx(
            plain.deal_luck + values.deck_weight * expected, abs=1e-12)
        assert [c.mover_luck for c in with_deck.chances] == \
            [c.mover_luck for c in plain.chances]


def test_a_log_without_its_deck_has_no_duplicate():
    log = generate_game("gin", 3, players=2)
    assert gin_deal_luck(parse_game(log), 0, gin_values()).deck is None


def test_random_decks_often_give_a_duplicate():
    """The figure is not 0 for most decks (a test of the play-out, not a constant)."""
    rng = random.Random(5)
    rules = rules_of()
    figures = []
    for _ in range(50):
        deck = list(range(52))
        rng.shuffle(deck)
        figures.append(duplicate(deck, rules, TABLES))
    assert sum(1 for f in figures if f) > 35


def mask(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


@given(st.permutations(list(range(52))), st.booleans())
def test_the_swap_changes_sign_with_the_hands(deck, oklahoma):
    """A deal and the deal with the two hands changed over are equally likely, the
    upcard and the stock's cards the same: their swaps cancel."""
    rules = rules_of({"oklahoma": True} if oklahoma else None)
    first, second, upcard, stock = mask(deck[0:20:2]), mask(deck[1:20:2]), deck[20], \
        mask(deck[21:])
    assert swap(second, first, upcard, stock, rules, TABLES) \
        == -swap(first, second, upcard, stock, rules, TABLES)


def test_the_swap_over_every_deal_of_a_small_deck_is_zero():
    """Every deal of an eight-card deck, two cards a hand (no stock floor): the swaps
    sum to exactly 0, and not because they all are."""
    rules = dataclasses.replace(rules_of(), hand_size=2, stock_floor=0)
    cards = [parse_card(c) for c in ["AC", "2C", "3C", "4D", "5H", "9S", "KD", "QS"]]
    figures = []
    for order in permutations(cards, 5):
        a, b, upcard = order[0:4:2], order[1:4:2], order[4]
        if a[0] > a[1] or b[0] > b[1]:  # a hand is a set: each once
            continue
        stock = mask(cards) & ~mask(order)
        figures.append(swap(mask(a), mask(b), upcard, stock, rules, TABLES))
    assert len(figures) == 28 * 15 * 4
    assert sum(figures) == 0
    assert sum(1 for f in figures if f) > 600


def test_the_swap_plays_each_fixed_order_of_the_stock():
    """The swap is the mean over four fixed orders of the stock's cards, each played
    as dealt and with the hands changed over (worked: ana holds a gin but for the
    upcard's help, ben nothing)."""
    rules = rules_of()
    ana = mask(parse_card(c) for c in ALMOST_GIN.split())
    ben = mask(parse_card(c) for c in NO_MELD.split())
    upcard = parse_card("4C")
    stock = ((1 << 52) - 1) & ~ana & ~ben & ~(1 << upcard)
    # As dealt: ana takes the 4C and goes gin at once, 25 + 60, whatever the stock.
    assert play_hands(ana, ben, upcard, [], rules, TABLES) == 85
    orders = [sorted((c for c in range(52) if stock >> c & 1), key=lambda c, a=a: a * (c + 1) % 53)
              for a in (2, 3, 5, 7)]
    expected = sum(85 - play_hands(ben, ana, upcard, o, rules, TABLES)
                   for o in orders) / 8
    assert swap(ana, ben, upcard, stock, rules, TABLES) == expected
    assert expected > 0


def test_a_log_without_its_deck_adds_its_weighed_swap_to_the_deal_luck():
    values = gin_values()
    assert values.swap_weight > 0
    for seed in range(4):
        game = parse_game(generate_game("gin", (32, seed), players=2))
        luck = gin_deal_luck(game, 0, values)
        plain = gin_deal_luck(game, 0, dataclasses.replace(values, swap_weight=0.0))
        assert luck.deck is None and luck.swap is not None
        assert luck.deal_luck == pytest.approx(
            plain.deal_luck + values.swap_weight * luck.swap, abs=1e-12)
        assert [c.mover_luck for c in luck.chances] == [c.mover_luck for c in plain.chances]

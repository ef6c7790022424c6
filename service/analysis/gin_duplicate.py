"""The duplicate of a gin deck: how a fixed way of playing fares with each player's cards.

Duplicate bridge takes the cards' luck away by dealing the same cards to both sides of
the room.  A gin log that records the whole deck (``deck`` in the log) lets the auditor
do the same: play the deck out with one fixed, simple way of playing for both players
(``play_out``), then play out its **mirror**, the deck in which the two players'
cards change places (each pair of dealt cards swapped, so the hands change hands, and
each pair of stock cards swapped, so each draws what the other would have drawn; the
upcard stays), and take half the difference:

    duplicate(deck) = (S(deck) - S(mirror(deck))) / 2

``S`` being the first player's net deal points of the play-out.  The mirror is a
one-to-one map of the deck orders onto themselves that undoes itself, and a shuffled
deck is every order with the same chance, so a deck and its mirror are equally likely;
since ``duplicate(mirror(deck)) = -duplicate(deck)``, the figure's mean over every deck
is exactly 0, whoever plays and however.  The luck may subtract any multiple of it
without bias (``gin_luck``: part of the deal's luck in a log with its deck).

The way of playing (both players alike): take the discard when keeping it lowers the
deadwood, else draw from the stock; throw the card that leaves the least deadwood (the
higher card on a tie); knock or go gin as soon as the deadwood is within the knock
limit.  A knock is scored on the deadwood as it stands (no layoffs); the stock at its
floor ends the deal void.  It is not the players' way, only a fixed measure of how far
the cards carry a plain player: the luck's weight on it is fitted
(``tools/gin_value_table.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.cards import cards_of
from ..engine.gin import doubled, knock_limit
from ..engine.rules import Rules
from .values import SuitTables, after_discard, deadwood_of

TURNS = 200  # a play-out longer than this (it never is: the stock runs out) is void


def mirror(deck: Sequence[int], dealt: int) -> list[int]:
    """The deck with the two players' cards changed over: each pair of the ``dealt``
    cards dealt alternately, and each pair of stock cards after the upcard, swapped."""
    out = list(deck)
    for start, end in ((0, dealt), (dealt + 1, len(out) - 1)):
        for k in range(start, end, 2):
            out[k], out[k + 1] = out[k + 1], out[k]
    return out


def duplicate(deck: Sequence[int], rules: Rules, tables: SuitTables,
              points: Sequence[int]) -> float:
    """Half the first player's play-out points with the deck less with its mirror."""
    dealt = 2 * rules.hand_size
    return (play_out(deck, rules, tables, points)
            - play_out(mirror(deck, dealt), rules, tables, points)) / 2


def play_out(deck: Sequence[int], rules: Rules, tables: SuitTables,
             points: Sequence[int]) -> int:
    """The first player's net deal points (theirs less the other's) when both play the
    deck out the module's way: the first player dealt the first card of each pair and
    playing first, the upcard starting the pile, the stock drawn from its top (the card
    after the upcard)."""
    dealt = 2 * rules.hand_size
    hands = [0, 0]
    for k in range(dealt):
        hands[k % 2] |= 1 << deck[k]
    upcard = deck[dealt]
    limit = knock_limit(rules, upcard)
    factor = 2 if doubled(rules, upcard) else 1
    deadwood = [deadwood_of(hands[0], tables), deadwood_of(hands[1], tables)]
    pile = upcard
    top = dealt + 1
    for turn in range(TURNS):
        seat = turn % 2
        hand = hands[seat] | 1 << pile
        card, left = best_throw(hand, pile, tables, points)
        if left >= deadwood[seat]:  # the discard does not help: draw from the stock
            if len(deck) - top <= rules.stock_floor:
                return 0
            hand = hands[seat] | 1 << deck[top]
            top += 1
            card, left = best_throw(hand, -1, tables, points)
        hands[seat] = hand & ~(1 << card)
        deadwood[seat] = left
        pile = card
        if left <= limit:
            net = factor * knock_points(left, deadwood[1 - seat], rules)
            return net if seat == 0 else -net
    return 0


def best_throw(hand: int, kept: int, tables: SuitTables, points: Sequence[int]
               ) -> tuple[int, int]:
    """The throw leaving the least deadwood and that deadwood, the higher card first on
    a tie; never the card ``kept`` (a discard just taken)."""
    least = after_discard(hand, tables)
    best, best_left = -1, 1 << 30
    for card in sorted(cards_of(hand), key=lambda c: (-points[c], -c)):
        if card == kept:
            continue
        left = deadwood_of(hand & ~(1 << card), tables)
        if left < best_left:
            best, best_left = card, left
            if left == least:
                break
    return best, best_left


def knock_points(knocker: int, defender: int, rules: Rules) -> int:
    """The knocker's net points: gin, a knock, or an undercut (the defender's deadwood
    as it stands)."""
    if knocker == 0:
        return rules.gin_bonus + defender
    if defender < knocker or (defender == knocker and rules.undercut_on_tie):
        return -(rules.undercut_bonus + knocker - defender)
    return defender - knocker

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

A log that records only the hands (no deck) cannot give the stock's order, only its
cards.  Its **swap** plays the hands out against each other the same way, with the
stock's cards in a fixed order (``SWAP_ORDERS``: card ``c`` at the place ``(a * (c + 1))
mod 53``, a function of the stock's set alone), once as dealt and once with the two hands
changed over, the upcard and the stock staying where they were:

    swap(A, B) = mean over the orders of (S(A, B) - S(B, A)) / 2

The deal is as likely to have given ``B`` to the first player and ``A`` to the other,
which leaves the upcard and the stock's cards as they are, and ``swap(B, A) = -swap(A,
B)``: its mean over every deal is exactly 0.  (The deck's mirror over a fixed order of
the stock would not do: it changes the stock's order with the hands, and the figure's
two halves no longer cancel.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..engine.gin import doubled, knock_limit
from ..engine.rules import Rules
from .values import COLUMN, SuitTables, deadwood_of, slices, split_groups

TURNS = 200  # a play-out longer than this (it never is: the stock runs out) is void
SWAP_ORDERS = (2, 3, 5, 7)
_ORDERS = tuple(tuple(sorted(range(52), key=lambda c, a=a: a * (c + 1) % 53))
                for a in SWAP_ORDERS)


def mirror(deck: Sequence[int], dealt: int) -> list[int]:
    """The deck with the two players' cards changed over: each pair of the ``dealt``
    cards dealt alternately, and each pair of stock cards after the upcard, swapped."""
    out = list(deck)
    for start, end in ((0, dealt), (dealt + 1, len(out) - 1)):
        for k in range(start, end, 2):
            out[k], out[k + 1] = out[k + 1], out[k]
    return out


def duplicate(deck: Sequence[int], rules: Rules, tables: SuitTables) -> float:
    """Half the first player's play-out points with the deck less with its mirror."""
    dealt = 2 * rules.hand_size
    return (play_out(deck, rules, tables)
            - play_out(mirror(deck, dealt), rules, tables)) / 2


def swap(first: int, second: int, upcard: int, stock: int, rules: Rules,
         tables: SuitTables) -> float:
    """The mean, over the stock's fixed orders, of half the first player's play-out
    points with the dealt hands (masks) as dealt less with them changed over; ``stock``
    the mask of the stock's cards."""
    total = 0
    for order in _ORDERS:
        cards = [c for c in order if stock >> c & 1]
        total += play_hands(first, second, upcard, cards, rules, tables) \
            - play_hands(second, first, upcard, cards, rules, tables)
    return total / (2 * len(_ORDERS))


def play_out(deck: Sequence[int], rules: Rules, tables: SuitTables) -> int:
    """The first player's net deal points (theirs less the other's) when both play the
    deck out the module's way: the first player dealt the first card of each pair and
    playing first, the upcard starting the pile, the stock drawn from its top (the card
    after the upcard)."""
    dealt = 2 * rules.hand_size
    first = second = 0
    for k in range(0, dealt, 2):
        first |= 1 << deck[k]
        second |= 1 << deck[k + 1]
    return play_hands(first, second, deck[dealt], deck[dealt + 1:], rules, tables)


def play_hands(first: int, second: int, upcard: int, stock: Sequence[int], rules: Rules,
               tables: SuitTables) -> int:
    """``play_out`` of the dealt hands (masks), the upcard and the stock from its top."""
    return play_from(first, second, upcard, stock, knock_limit(rules, upcard),
                     2 if doubled(rules, upcard) else 1, rules, tables)


Score = Callable[[int, int, int, int], int]  # knocker's hand and deadwood, defender's -> net


TAKE_PILE, FROM_STOCK = 1, 2  # a first draw ``play_from`` is told to make


def play_from(first: int, second: int, pile: int, stock: Sequence[int], limit: int,
              factor: int, rules: Rules, tables: SuitTables, score: Score | None = None,
              first_draw: int = 0, known: tuple[int, int] | None = None) -> int:
    """The first player's net points when both play on the module's way from a turn of
    play: ``first`` (a mask) to move, ``pile`` the discard on offer, ``stock`` from its
    top, the knock limit and the deal's factor.  A knock is scored by ``score`` (the
    knocker's hand and deadwood, the defender's: the knocker's net points), by default
    on the deadwood as it stands (``knock_points``).  ``first_draw`` makes the first
    player's draw ``TAKE_PILE`` or ``FROM_STOCK`` whatever it does to the deadwood (an
    upcard taken, or refused by both); ``known`` the two hands' least deadwood, when
    known."""
    hands = [first, second]
    deadwood = [deadwood_of(first, tables), deadwood_of(second, tables)] if known is None \
        else list(known)
    top = 0
    last = len(stock) - rules.stock_floor  # the draws the stock allows
    for turn in range(TURNS):
        seat = turn % 2
        hand = hands[seat] | 1 << pile
        card, left = best_throw(hand, pile, tables)
        # Draw from the stock when the discard does not help (or when told to).
        if (first_draw == FROM_STOCK) if turn == 0 and first_draw else \
                left >= deadwood[seat]:
            if top >= last:
                return 0
            hand = hands[seat] | 1 << stock[top]
            top += 1
            card, left = best_throw(hand, -1, tables)
        hands[seat] = hand & ~(1 << card)
        deadwood[seat] = left
        pile = card
        if left <= limit:
            other = 1 - seat
            net = knock_points(left, deadwood[other], rules) if score is None else \
                score(hands[seat], left, hands[other], deadwood[other])
            net *= factor
            return net if seat == 0 else -net
    return 0


def best_throw(hand: int, kept: int, tables: SuitTables) -> tuple[int, int]:
    """The throw leaving the least deadwood and that deadwood, the card worth more
    first on a tie, then the higher card (``SuitTables.place``); never the card
    ``kept`` (a discard just taken)."""
    place, at = tables.place, tables.ranked
    dead, drop, thrown = tables.dead, tables.drop, tables.thrown
    best = least = 1 << 40
    laid, choices = split_groups(hand, tables)
    rest = hand & ~laid
    # A throw's deadwood is the least, over the choices of groups without the card, of
    # the sum of the suits' runs less the card: with the groups chosen, a throw changes
    # one suit's runs, and each suit's best throw is a table's (``SuitTables.thrown``).
    for groups in choices:
        s0, s1, s2, s3 = slices(rest & ~groups)
        total = dead[s0] + dead[s1] + dead[s2] + dead[s3]
        if total < least:
            least = total
        for base, ranks in ((0, s0), (13, s1), (26, s2), (39, s3)):
            if not ranks:
                continue
            if 0 <= kept - base < 13 and ranks >> (kept - base) & 1:
                here = total - dead[ranks]  # the kept card's suit: every other card
                cards = ranks ^ 1 << (kept - base)
                while cards:
                    low = cards & -cards
                    cards ^= low
                    card = base + low.bit_length() - 1
                    key = (here + dead[ranks ^ low]) << 6 | place[card]
                    if key < best:
                        best = key
                continue
            key = (total + drop[ranks]) << 6 | place[base + thrown[ranks]]
            if key < best:
                best = key
    # A card of a column laid whole: of four, the other three stay a group; of three,
    # the other two are deadwood (no run could hold them).
    cards = laid & ~(1 << kept) if kept >= 0 else laid
    while cards:
        low = cards & -cards
        cards ^= low
        card = low.bit_length() - 1
        left = least if (laid & COLUMN << card % 13).bit_count() == 4 else \
            least + 2 * tables.points[card]
        key = left << 6 | place[card]
        if key < best:
            best = key
    return at[best & 63], best >> 6


def knock_points(knocker: int, defender: int, rules: Rules) -> int:
    """The knocker's net points: gin, a knock, or an undercut (the defender's deadwood
    as it stands)."""
    if knocker == 0:
        return rules.gin_bonus + defender
    if defender < knocker or (defender == knocker and rules.undercut_on_tie):
        return -(rules.undercut_bonus + knocker - defender)
    return defender - knocker

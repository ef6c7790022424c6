"""Cards as small integers and hands as bitmasks.

A card is an int from 0 to 51: ``suit * 13 + rank`` where rank 0 is the ace and
12 the king, and suits are ordered clubs, diamonds, hearts, spades.  A set of
cards (a hand, a meld, a pile seen as a set) is an int with bit ``card`` set for
each card it holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

Card = int
CardMask = int

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ACE, JACK, QUEEN, KING = 0, 10, 11, 12
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
FULL_DECK: CardMask = (1 << 52) - 1
SUIT_MASK = 0x1FFF  # the 13 rank bits of one suit

_SUIT_ALIASES = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
                 "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"10": 9}

CARD_NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_PARSE_CACHE: dict[str, Card] = {}


def make_card(rank: int, suit: int) -> Card:
    return suit * 13 + rank


def rank_of(card: Card) -> int:
    return card % 13


def suit_of(card: Card) -> int:
    return card // 13


def card_name(card: Card) -> str:
    """The canonical two-letter code: rank then suit, e.g. ``TD``, ``AS``."""
    return CARD_NAMES[card]


def parse_card(code: object) -> Card | None:
    """Read a card code: ``7D``, ``10d``, ``T♦``; None when it is no card."""
    if not isinstance(code, str):
        return None
    cached = _PARSE_CACHE.get(code)
    if cached is not None:
        return cached
    text = code.strip()
    if len(text) < 2 or len(text) > 3:
        return None
    rank = _RANK_ALIASES.get(text[:-1].upper())
    suit = _SUIT_ALIASES.get(text[-1].upper())
    if rank is None or suit is None:
        return None
    card = make_card(rank, suit)
    if len(_PARSE_CACHE) < 4096:
        _PARSE_CACHE[code] = card
    return card


def mask_of(cards: Iterable[Card]) -> CardMask:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: CardMask) -> list[Card]:
    """The cards of a mask in ascending order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def unconnected(mask: CardMask, hand: CardMask, near: Sequence[CardMask]) -> CardMask:
    """The cards of ``mask`` that no card of ``hand`` is near (``near[c]``: the mask of
    the cards near card ``c``, by whatever rule of nearness the caller means)."""
    out = 0
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        if not hand & near[low.bit_length() - 1]:
            out |= low
    return out


def count(mask: CardMask) -> int:
    return mask.bit_count()


def card_points(card: Card, ace_points: int) -> int:
    """Points of a card left in hand: face value, J/Q/K 10, the ace ``ace_points``."""
    rank = card % 13
    if rank == ACE:
        return ace_points
    return 10 if rank >= 9 else rank + 1


@cache
def point_table(ace_points: int) -> tuple[int, ...]:
    """Points of every card, indexed by card."""
    return tuple(card_points(c, ace_points) for c in range(52))


def mask_points(mask: CardMask, table: Sequence[int]) -> int:
    """The points of the cards of a mask, from a per-card table."""
    total = 0
    while mask:
        low = mask & -mask
        total += table[low.bit_length() - 1]
        mask ^= low
    return total


def names(cards: Iterable[Card]) -> str:
    """Cards as a readable list for messages: ``7D 8D 9D``."""
    return " ".join(CARD_NAMES[c] for c in cards)

"""The parsed game log: plain, immutable types that the replay reads.

Players are seat indexes (0-based, clockwise, as listed in the log's ``players``);
cards are ints (see ``cards``).  Claims stay as the log wrote them, with player
names, because the report echoes them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .rules import Rules

DRAW, PASS, MELD, LAYOFF, DISCARD = "draw", "pass", "meld", "layoff", "discard"
KNOCK, GIN, SHOW, RESHUFFLE, END = "knock", "gin", "show", "reshuffle", "end"
ACTIONS = (DRAW, PASS, MELD, LAYOFF, DISCARD, KNOCK, GIN, SHOW, RESHUFFLE, END)
RUMMY_ACTIONS = frozenset((DRAW, MELD, LAYOFF, DISCARD, RESHUFFLE, END))
GIN_ACTIONS = frozenset((DRAW, PASS, DISCARD, KNOCK, GIN, SHOW, LAYOFF))
STOCK, DISCARD_PILE = "stock", "discard"


@dataclass(frozen=True, slots=True)
class Move:
    """One action of the log.  Only the fields of its action are set."""

    player: int
    action: str
    source: str | None = None  # draw: "stock" or "discard"
    card: Card | None = None  # draw, layoff, discard, knock, gin
    cards: tuple[Card, ...] | None = None  # meld
    meld: int | None = None  # layoff: the meld's number
    melds: tuple[tuple[Card, ...], ...] | None = None  # knock, gin, show
    stock: tuple[Card, ...] | None = None  # reshuffle
    reason: str | None = None  # end


@dataclass(frozen=True, slots=True)
class Deal:
    dealer: int
    moves: tuple[Move, ...]
    players: tuple[int, ...] | None = None  # who takes part, when not everyone
    deck: tuple[Card, ...] | None = None
    hands: dict[int, tuple[Card, ...]] | None = None
    upcard: Card | None = None
    claimed: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Game:
    rules: Rules
    players: tuple[str, ...]
    deals: tuple[Deal, ...]
    teams: tuple[tuple[int, ...], ...] | None = None
    claimed: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

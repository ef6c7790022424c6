"""The parsed game log: plain, immutable types that the replay reads.

Players are seat indexes (0-based, clockwise, as listed in the log's ``players``);
cards are ints (see ``cards``).  Claims stay as the log wrote them, with player
names, because the report echoes them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cards import Card
from .rules import Rules


class Action(StrEnum):
    """A move's ``a``: what the player did."""

    DRAW = "draw"  # from the stock or the discard pile
    PASS = "pass"  # gin: refuse the first upcard, or void the deal at the stock floor
    MELD = "meld"  # Rummy family: lay a meld on the table
    LAYOFF = "layoff"  # add a card to a meld on the table (gin: the knocker's)
    DISCARD = "discard"  # end the turn with a card on the discard pile
    KNOCK = "knock"  # gin: end the deal with deadwood within the limit
    GIN = "gin"  # gin: end the deal with no deadwood
    SHOW = "show"  # gin: the defender shows their own melds
    RESHUFFLE = "reshuffle"  # Rummy family: the stock rebuilt from the discards
    END = "end"  # Rummy family: the deal ends blocked, the stock gone for good


class Pile(StrEnum):
    """Where a draw takes its card from."""

    STOCK = "stock"
    DISCARD = "discard"


class Outcome(StrEnum):
    """How a deal ended: a claimed outcome in the log, the recomputed one in the report."""

    OUT = "out"  # Rummy family: a player's last card went
    RUMMY = "rummy"  # out in one turn, nothing laid before
    GIN = "gin"
    KNOCK = "knock"  # the knocker had less deadwood
    UNDERCUT = "undercut"  # the defender had less (or equal) deadwood
    TIE = "tie"  # equal deadwood where a tie is no undercut
    BLOCKED = "blocked"  # the stock ran out for good: the lowest hand wins
    VOID = "void"  # gin: nobody knocked before the stock floor


class End(StrEnum):
    """How a deal recorded by its result (a score sheet's line) ended: what the sheet
    says happened, from which the engine works out the outcome."""

    KNOCK = "knock"  # gin: a knock (the figures tell a knock from an undercut or a tie)
    GIN = "gin"
    BIG_GIN = "big_gin"  # gin without a discard (``big_gin_bonus``)
    VOID = "void"  # gin: nobody knocked before the stock floor
    OUT = "out"  # Rummy family
    RUMMY = "rummy"
    BLOCKED = "blocked"


GIN_ENDS = (End.KNOCK, End.GIN, End.BIG_GIN, End.VOID)
RUMMY_ENDS = (End.OUT, End.RUMMY, End.BLOCKED)
ENDS_WITHOUT_PLAYER = (End.VOID, End.BLOCKED)


DRAW, PASS, MELD, LAYOFF, DISCARD = (Action.DRAW, Action.PASS, Action.MELD, Action.LAYOFF,
                                     Action.DISCARD)
KNOCK, GIN, SHOW, RESHUFFLE, END = (Action.KNOCK, Action.GIN, Action.SHOW, Action.RESHUFFLE,
                                    Action.END)
ACTIONS = tuple(Action)
OUTCOMES = tuple(Outcome)
RUMMY_ACTIONS = frozenset((DRAW, MELD, LAYOFF, DISCARD, RESHUFFLE, END))
GIN_ACTIONS = frozenset((DRAW, PASS, DISCARD, KNOCK, GIN, SHOW, LAYOFF))
STOCK, DISCARD_PILE = Pile.STOCK, Pile.DISCARD


@dataclass(frozen=True, slots=True)
class Move:
    """One action of the log.  Only the fields of its action are set."""

    player: int
    action: Action
    source: Pile | None = None  # draw: from the stock or the discard pile
    card: Card | None = None  # draw, layoff, discard, knock, gin
    cards: tuple[Card, ...] | None = None  # meld
    meld: int | None = None  # layoff: the meld's number
    melds: tuple[tuple[Card, ...], ...] | None = None  # knock, gin, show
    stock: tuple[Card, ...] | None = None  # reshuffle
    reason: str | None = None  # end


_MOVES: dict[tuple, Move] = {}


def move_of(player: int, action: Action, source: Pile | None = None, card: Card | None = None,
            meld: int | None = None) -> Move:
    """``Move(player, action, source=..., card=..., meld=...)``, one shared instance for
    each (moves are immutable, and the lookup costs less than building one)."""
    key = (player, action, source, card, meld)
    found = _MOVES.get(key)
    if found is None:
        if len(_MOVES) >= 1 << 16:
            _MOVES.clear()
        found = _MOVES[key] = Move(player, action, source=source, card=card, meld=meld)
    return found


@dataclass(frozen=True, slots=True)
class Result:
    """A deal recorded by its result instead of its moves: who ended it and how, the
    points left in each hand (gin: the deadwood, the defender's after layoffs), and the
    cards where the sheet has them (``melds``: gin, the melds each player laid down;
    ``cards``: the cards each hand value counts)."""

    end: End
    by: int | None = None  # who knocked, went gin or went out; None: void or blocked
    hand_values: dict[int, int] | None = None
    melds: dict[int, tuple[tuple[Card, ...], ...]] | None = None
    cards: dict[int, tuple[Card, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Deal:
    dealer: int
    moves: tuple[Move, ...]
    players: tuple[int, ...] | None = None  # who takes part, when not everyone
    deck: tuple[Card, ...] | None = None
    hands: dict[int, tuple[Card, ...]] | None = None
    upcard: Card | None = None
    claimed: dict[str, Any] | None = None
    result: Result | None = None  # a deal recorded by its result has no moves


@dataclass(frozen=True, slots=True)
class Game:
    rules: Rules
    players: tuple[str, ...]
    deals: tuple[Deal, ...]
    teams: tuple[tuple[int, ...], ...] | None = None
    claimed: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

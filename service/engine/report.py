"""The verification report: status, violations, per-deal results, totals, warnings.

Violation codes are the closed list at the end of RULES.md; a new code goes there first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Outcome

VALID, ILLEGAL, MISMATCH, INCOMPLETE = "valid", "illegal", "mismatch", "incomplete"

# Problems of a deal as a whole (``move`` is null).
DUPLICATE_CARD = "DUPLICATE_CARD"
WRONG_HAND_SIZE = "WRONG_HAND_SIZE"
DEAL_MISMATCH = "DEAL_MISMATCH"
WRONG_SEATING = "WRONG_SEATING"
GAME_OVER = "GAME_OVER"
DEAL_NOT_FINISHED = "DEAL_NOT_FINISHED"
SCORE_MISMATCH = "SCORE_MISMATCH"
# Problems of one move.
ACTION_NOT_ALLOWED = "ACTION_NOT_ALLOWED"
MOVE_AFTER_DEAL_END = "MOVE_AFTER_DEAL_END"
NOT_YOUR_TURN = "NOT_YOUR_TURN"
MUST_DRAW_FIRST = "MUST_DRAW_FIRST"
ALREADY_DREW = "ALREADY_DREW"
CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
STOCK_CARD_REQUIRED = "STOCK_CARD_REQUIRED"
STOCK_CARD_MISMATCH = "STOCK_CARD_MISMATCH"
WRONG_DISCARD_TOP = "WRONG_DISCARD_TOP"
EMPTY_STOCK = "EMPTY_STOCK"
EMPTY_DISCARD_PILE = "EMPTY_DISCARD_PILE"
UPCARD_NOT_REFUSED = "UPCARD_NOT_REFUSED"
STOCK_FLOOR = "STOCK_FLOOR"
INVALID_MELD = "INVALID_MELD"
TOO_MANY_MELDS = "TOO_MANY_MELDS"
NO_SUCH_MELD = "NO_SUCH_MELD"
LAYOFF_DOES_NOT_FIT = "LAYOFF_DOES_NOT_FIT"
LAYOFF_BEFORE_OWN_MELD = "LAYOFF_BEFORE_OWN_MELD"
LAYOFF_ON_GIN = "LAYOFF_ON_GIN"
MELDS_NOT_DECLARED = "MELDS_NOT_DECLARED"
MUST_DISCARD_TO_GO_OUT = "MUST_DISCARD_TO_GO_OUT"
DISCARD_OF_TAKEN_CARD = "DISCARD_OF_TAKEN_CARD"
KNOCK_OVER_LIMIT = "KNOCK_OVER_LIMIT"
GIN_WITH_DEADWOOD = "GIN_WITH_DEADWOOD"
RESHUFFLE_NOT_ALLOWED = "RESHUFFLE_NOT_ALLOWED"
RESHUFFLE_MISMATCH = "RESHUFFLE_MISMATCH"
END_NOT_ALLOWED = "END_NOT_ALLOWED"
# A deal recorded by its result: figures no play can reach.
IMPOSSIBLE_RESULT = "IMPOSSIBLE_RESULT"

VIOLATION_CODES: tuple[str, ...] = (
    DUPLICATE_CARD, WRONG_HAND_SIZE, DEAL_MISMATCH, WRONG_SEATING, GAME_OVER,
    DEAL_NOT_FINISHED, SCORE_MISMATCH, ACTION_NOT_ALLOWED, MOVE_AFTER_DEAL_END,
    NOT_YOUR_TURN, MUST_DRAW_FIRST, ALREADY_DREW, CARD_NOT_IN_HAND, STOCK_CARD_REQUIRED,
    STOCK_CARD_MISMATCH, WRONG_DISCARD_TOP, EMPTY_STOCK, EMPTY_DISCARD_PILE,
    UPCARD_NOT_REFUSED, STOCK_FLOOR, INVALID_MELD, TOO_MANY_MELDS, NO_SUCH_MELD,
    LAYOFF_DOES_NOT_FIT, LAYOFF_BEFORE_OWN_MELD, LAYOFF_ON_GIN, MELDS_NOT_DECLARED,
    MUST_DISCARD_TO_GO_OUT, DISCARD_OF_TAKEN_CARD, KNOCK_OVER_LIMIT, GIN_WITH_DEADWOOD,
    RESHUFFLE_NOT_ALLOWED, RESHUFFLE_MISMATCH, END_NOT_ALLOWED, IMPOSSIBLE_RESULT,
)

# Warnings: legal, but worth an auditor's eye; and why an unfinished game is not finished.
SUBOPTIMAL_DECLARATION = "SUBOPTIMAL_DECLARATION"
LAST_DEAL_NOT_FINISHED = "LAST_DEAL_NOT_FINISHED"  # the log ends inside its last deal
GAME_NOT_FINISHED = "GAME_NOT_FINISHED"  # the deals logged end before the game does
WARNING_CODES: tuple[str, ...] = (SUBOPTIMAL_DECLARATION, LAST_DEAL_NOT_FINISHED,
                                  GAME_NOT_FINISHED)

OUTCOMES = tuple(Outcome)

# How much of a game the engine could check: every move (the deals recorded move by
# move), or, for deals recorded by their result (a score sheet), the arithmetic and
# the rules a sheet shows, the play itself not being recorded.
MOVES, RESULTS, MIXED = "moves", "results", "mixed"
VERIFICATION_WORDS = {
    MOVES: "every move verified",
    RESULTS: "arithmetic and rules checked; play not recorded",
    MIXED: "deals recorded move by move: every move verified; deals recorded by their "
           "result: arithmetic and rules checked, play not recorded",
}


@dataclass(slots=True)
class Violation:
    """A broken rule: where (deal and move index, 0-based), who, a stable code, why."""

    deal: int | None
    move: int | None
    player: str | None
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "move": self.move, "player": self.player,
                "code": self.code, "message": self.message}


@dataclass(slots=True)
class Warning:
    """Legal, but worth an auditor's eye, or why the game is not finished: where (deal
    and move index, 0-based; move None for the deal or game as a whole), a code of
    ``WARNING_CODES``, why."""

    deal: int
    move: int | None
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "move": self.move, "code": self.code,
                "message": self.message}


@dataclass(slots=True)
class DealResult:
    """One deal as recomputed; ``outcome`` is None when it was not judged to its end."""

    outcome: str | None
    winner: str | None
    points: dict[str, int]
    hand_values: dict[str, int]
    claimed: dict[str, Any] | None
    players: tuple[str, ...] = ()
    first: str | None = None  # who played first
    knocker: str | None = None  # gin: who knocked or went gin
    turns: int = 0
    finished: bool = False
    illegal: bool = False
    by_result: bool = False  # recorded by its result (a score sheet), not its moves

    def to_dict(self) -> dict[str, Any]:
        out = {"outcome": self.outcome, "winner": self.winner, "points": self.points,
               "hand_values": self.hand_values, "claimed": self.claimed}
        if self.by_result:
            out["recorded"] = "result"
        return out


@dataclass(slots=True)
class Report:
    """The verdict; beside what the report's JSON holds, what the rules say about the
    result, for those who store or rank it: each player's side (themselves, or their
    partnership's label ``a+b``), whether the lower total ranks first (``penalty``
    scoring), how many opponents the winner shut out (gin, at 0 points), and the side ahead
    on the points of the deals scored (the winner, but named too when the game has none)."""

    status: str
    violations: list[Violation]
    deals: list[DealResult]
    totals: dict[str, Any]
    warnings: list[Warning] = field(default_factory=list)
    sides: dict[str, str] = field(default_factory=dict)
    lower_wins: bool = False
    shutouts: int = 0
    leader: str | None = None  # the side ahead on the scored deals, even of an illegal game

    @property
    def valid(self) -> bool:
        return self.status == VALID

    @property
    def verification(self) -> str:
        """``moves`` (every deal recorded move by move), ``results`` (every deal by its
        result) or ``mixed``."""
        by_result = sum(1 for d in self.deals if d.by_result)
        if not by_result:
            return MOVES
        return RESULTS if by_result == len(self.deals) else MIXED

    def to_dict(self) -> dict[str, Any]:
        out = {"status": self.status,
               "violations": [v.to_dict() for v in self.violations],
               "deals": [d.to_dict() for d in self.deals],
               "totals": self.totals,
               "warnings": [w.to_dict() for w in self.warnings]}
        level = self.verification
        if level != MOVES:
            out["verification"] = level
        return out


def status_of(violations: list[Violation], finished: bool) -> str:
    """illegal > mismatch > incomplete > valid."""
    if any(v.code != SCORE_MISMATCH for v in violations):
        return ILLEGAL
    if violations:
        return MISMATCH
    return VALID if finished else INCOMPLETE

"""The gin evaluator: the deal points each player can expect from a position.

A position is seen as the auditor sees it after a chance event (a stock draw, or the
upcard turned): the player about to act (the drawer, or the first player before the
upcard's offer) holds a hand whose **value after** (``values``: the least deadwood kept
after the best discard) is ``after``, the other player holds ``opponent`` points of
deadwood, ``left`` cards remain in the stock above its floor, and the knock limit is
``limit``.  The evaluator's answer is a pair: the deal points the player to act and the
other player can each expect, read from a table fitted on generated deals
(``tools/gin_value_table.py``, seeded: the same run writes the same file) and committed
as ``gin_values.json``.  A doubled deal (Oklahoma's spade upcard) doubles both.

The cell of a position is three classes:

* the player's ``after``: 0 (gin in hand), within the limit (a knock), or by how much
  it passes the limit (``AFTER_EDGES``);
* the other's deadwood: within the limit, or by how much it passes it
  (``OPPONENT_EDGES``);
* the stock cards left above the floor (``LEFT_EDGES``).

A dealt hand gets its own term, ``dealt(deadwood, drawn)``, from the hand alone: its
deadwood and ``drawn``, the mean of its value after one draw over every card it does
not hold; the term is ``DEADWOOD * deadwood + DRAWN * drawn``, the two coefficients
fitted by least squares on the net deal points (own less the other's) of the hands'
holders: ``t(A) - t(B)`` is the net deal points expected of hands ``A`` against ``B``.

The table is an estimate: the luck built on it (``gin_luck``) subtracts the evaluator's
value after a chance event less its exact mean over every way the event could have
fallen, so its expectation is zero whatever the table holds; a better table only takes
more of the noise away.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache
from importlib import resources

TABLE_FILE = "gin_values.json"
AFTER_EDGES = (4, 8, 12, 17, 23, 30, 40)  # deadwood over the limit: classes 2 to 9
OPPONENT_EDGES = (5, 10, 16, 24, 35)  # deadwood over the limit: classes 1 to 6
LEFT_EDGES = (4, 10, 18)  # stock cards above the floor: classes 0 to 3
AFTER_CLASSES = 2 + len(AFTER_EDGES) + 1
OPPONENT_CLASSES = 1 + len(OPPONENT_EDGES) + 1
LEFT_CLASSES = len(LEFT_EDGES) + 1
CELLS = AFTER_CLASSES * OPPONENT_CLASSES * LEFT_CLASSES


def after_class(after: int, limit: int) -> int:
    if after == 0:
        return 0
    if after <= limit:
        return 1
    return 2 + bisect_right(AFTER_EDGES, after - limit)


def opponent_class(deadwood: int, limit: int) -> int:
    if deadwood <= limit:
        return 0
    return 1 + bisect_right(OPPONENT_EDGES, deadwood - limit)


def left_class(left: int) -> int:
    return bisect_right(LEFT_EDGES, left)


def cell(after: int, opponent: int, left: int, limit: int) -> int:
    """The table's cell of a position (see the module)."""
    return ((after_class(after, limit) * OPPONENT_CLASSES + opponent_class(opponent, limit))
            * LEFT_CLASSES + left_class(left))


@dataclass(frozen=True, slots=True)
class GinValues:
    """The fitted table: per cell, the expected deal points of the player to act and of
    the other player (one deal, not doubled); the two coefficients of a dealt hand's
    term; the analysis version it was fitted for."""

    version: int
    mover: tuple[tuple[float, float, float], ...]  # per cell: level, the two slopes
    other: tuple[tuple[float, float, float], ...]
    centres: tuple[tuple[float, float], ...]  # per cell: mean opponent's deadwood, after
    per_deadwood: float
    per_drawn: float

    def position(self, after: int, opponent: int, left: int, limit: int
                 ) -> tuple[float, float]:
        """The expected deal points of the player to act and of the other: each the
        cell's level plus its slopes times the position's distance from the cell's
        centre, never below 0."""
        at = cell(after, opponent, left, limit)
        x0, y0 = self.centres[at]
        x, y = opponent - x0, after - y0
        c, sx, sy = self.mover[at]
        v = c + sx * x + sy * y
        c, sx, sy = self.other[at]
        w = c + sx * x + sy * y
        return (v if v > 0 else 0.0), (w if w > 0 else 0.0)

    def dealt(self, deadwood: int, drawn: float) -> float:
        """A dealt hand's term (see the module)."""
        return self.per_deadwood * deadwood + self.per_drawn * drawn


def from_json(data: dict) -> GinValues:
    mover = tuple((float(c), float(x), float(y)) for c, x, y in data["mover"])
    other = tuple((float(c), float(x), float(y)) for c, x, y in data["other"])
    centres = tuple((float(x), float(y)) for x, y in data["centres"])
    if not len(mover) == len(other) == len(centres) == CELLS:
        raise ValueError("the gin value table does not fit the evaluator's cells")
    per_deadwood, per_drawn = (float(v) for v in data["dealt"])
    return GinValues(int(data["analysis_version"]), mover, other, centres, per_deadwood,
                     per_drawn)


@cache
def gin_values() -> GinValues:
    """The committed table (``gin_values.json``)."""
    text = resources.files(__package__).joinpath(TABLE_FILE).read_text(encoding="utf-8")
    return from_json(json.loads(text))

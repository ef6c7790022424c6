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

The table's two values are not the luck's values as they stand: the value the luck
takes of a position is a **blend**, a weighted sum of the position's features
(``FEATURES``: the table's two values and what the card drawn would do for the other
player), with one set of weights for the player to act (``mover_weights``) and one for
the other (``other_weights``), fitted by least squares so that the adjusted points vary
least (``tools/gin_value_table.py``).  A weight is the control variate's coefficient:
how many deal points a point of the table's estimate has been worth.

A dealt hand gets its own term, ``dealt(hand_features)``, from the hand and the set of
cards neither dealt hand holds: the weighted sum of ``HAND_FEATURES`` (its deadwood, and
what one draw makes of it over every card it does not hold and over the cards left to
draw), fitted with the blend: ``(t(A) - t(B)) / 2`` is the luck of the deal of hands
``A`` and ``B`` to the holder of ``A``.  Swapping the two hands leaves the cards left to
draw as they were, so the deal and its swap have opposite lucks.

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
# The features of a position the luck's blend weighs (per card that could have come,
# each doubled in a doubled deal): the table's values of the player to act and of the
# other; whether the card would let the other player knock (their value after drawing it
# within the knock limit), the same when the card is thrown at once (the mover's value
# after is the hand's deadwood: the other may take it from the pile); the other's value
# after drawing the card (at most 40), the same when it is thrown.
BASE_FEATURES = ("mover", "other", "feeds_knock", "thrown_feeds_knock", "other_after",
                 "thrown_other_after")
# ... and each of them again times the other player's chance at this event: the share of
# the cards that could have come that would bring the other player within the knock
# limit had they drawn it (the same for every card, so the luck's mean stays zero): how a
# card's worth depends on how close the other player is to knocking.
FEATURES = BASE_FEATURES + tuple(f"{name}_by_other_chance" for name in BASE_FEATURES)
OTHER_AFTER_CAP = 40
# A dealt hand's features (over every card it does not hold: its value after drawing
# that card): its deadwood, the mean value after, the share of cards that bring it within
# 10 (a knock under the usual limit), to 0 (gin), below its deadwood, and the mean of the
# squared value after, per 100; then the last five again over the cards neither dealt
# hand holds (the stock and the upcard: the cards the hand can really draw).
OWN_HAND_FEATURES = ("deadwood", "mean_after", "knock_share", "gin_share", "better_share",
                     "mean_square_after")
HAND_FEATURES = OWN_HAND_FEATURES + tuple(
    f"stock_{name}" for name in OWN_HAND_FEATURES[1:])


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
    the other player (one deal, not doubled); the blend's weights of ``FEATURES``; the
    weights of a dealt hand's ``HAND_FEATURES``; the analysis version it was fitted for."""

    version: int
    mover: tuple[tuple[float, float, float], ...]  # per cell: level, the two slopes
    other: tuple[tuple[float, float, float], ...]
    centres: tuple[tuple[float, float], ...]  # per cell: mean opponent's deadwood, after
    mover_weights: tuple[float, ...]
    other_weights: tuple[float, ...]
    hand_weights: tuple[float, ...]
    deck_weight: float = 0.0  # of a recorded deck's duplicate (``gin_duplicate``)
    swap_weight: float = 0.0  # of the hands' swap, in a log without its deck

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

    def dealt(self, features: tuple[float, ...]) -> float:
        """A dealt hand's term (see the module): its features weighed."""
        return sum(w * x for w, x in zip(self.hand_weights, features, strict=True))


IDENTITY = ((1.0,) + (0.0,) * (len(FEATURES) - 1), (0.0, 1.0) + (0.0,) * (len(FEATURES) - 2))


def from_json(data: dict) -> GinValues:
    mover = tuple((float(c), float(x), float(y)) for c, x, y in data["mover"])
    other = tuple((float(c), float(x), float(y)) for c, x, y in data["other"])
    centres = tuple((float(x), float(y)) for x, y in data["centres"])
    if not len(mover) == len(other) == len(centres) == CELLS:
        raise ValueError("the gin value table does not fit the evaluator's cells")
    mover_weights = tuple(float(v) for v in data.get("mover_weights", IDENTITY[0]))
    other_weights = tuple(float(v) for v in data.get("other_weights", IDENTITY[1]))
    hand_weights = tuple(float(v) for v in data.get("hand_weights", (0.0,) * len(HAND_FEATURES)))
    if not len(mover_weights) == len(other_weights) == len(FEATURES) \
            or len(hand_weights) != len(HAND_FEATURES):
        raise ValueError("the gin value table's weights do not fit the evaluator's features")
    return GinValues(int(data["analysis_version"]), mover, other, centres, mover_weights,
                     other_weights, hand_weights, float(data.get("deck_weight", 0.0)),
                     float(data.get("swap_weight", 0.0)))


@cache
def gin_values() -> GinValues:
    """The committed table (``gin_values.json``)."""
    text = resources.files(__package__).joinpath(TABLE_FILE).read_text(encoding="utf-8")
    return from_json(json.loads(text))

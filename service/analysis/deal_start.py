"""The mean value of a dealt hand, by ace mode, ace points and hand size.

Any one hand of a deal is a uniformly random set of ``hand_size`` cards of the 52,
whatever the number of players, so the mean depends on the ace mode, the ace's points
and the hand size only.  The committed table (``deal_start.json``, written by
``tools/deal_start_table.py``) holds it for every ace mode, the ace points 0, 1, 11 and
15 and every hand size from 1 to 25: exact for hands of 1 to 3 cards (every hand
enumerated), estimated from ``SAMPLES`` seeded random hands (``PRESET_SAMPLES`` for the
presets' own option sets) otherwise.  Any other option set is estimated the same way,
seeded alike, the first time it is needed.
"""

from __future__ import annotations

import json
import math
import random
from functools import cache, lru_cache
from importlib import resources
from itertools import combinations

from ..engine.cards import point_table
from ..engine.melds import least_deadwood

TABLE_FILE = "deal_start.json"
SAMPLES = 20_000
PRESET_SAMPLES = 400_000
EXACT_UP_TO = 3  # hand sizes enumerated exactly
ACE_POINTS = (0, 1, 11, 15)
HAND_SIZES = range(1, 26)
# The presets' own option sets: (ace mode, ace points, hand size).
PRESET_SETS = (("low", 1, 10), ("low", 1, 7), ("low", 1, 6), ("high_or_low", 11, 10))


def key(ace: str, ace_points: int, hand_size: int) -> str:
    return f"{ace}/{ace_points}/{hand_size}"


def estimate(ace: str, ace_points: int, hand_size: int,
             samples: int = SAMPLES) -> tuple[float, float, int]:
    """The mean least deadwood of a dealt hand, its standard error (0 when exact) and
    the number of hands it is the mean of: every hand up to ``EXACT_UP_TO`` cards, else
    ``samples`` random hands from a generator seeded by the key."""
    points = point_table(ace_points)
    if hand_size <= EXACT_UP_TO:
        total = count = 0
        for cards in combinations(range(52), hand_size):
            mask = 0
            for c in cards:
                mask |= 1 << c
            total += least_deadwood(mask, ace, points)
            count += 1
        return total / count, 0.0, count
    rng = random.Random(key(ace, ace_points, hand_size))
    deck = range(52)
    total = squares = 0
    for _ in range(samples):
        mask = 0
        for c in rng.sample(deck, hand_size):
            mask |= 1 << c
        value = least_deadwood(mask, ace, points)
        total += value
        squares += value * value
    mean = total / samples
    variance = max(0.0, squares / samples - mean * mean) * samples / (samples - 1)
    return mean, math.sqrt(variance / samples), samples


@cache
def _table() -> dict[str, float]:
    text = resources.files(__package__).joinpath(TABLE_FILE).read_text(encoding="utf-8")
    return {k: entry["mean"] for k, entry in json.loads(text)["means"].items()}


@lru_cache(maxsize=1024)
def mean_dealt_value(ace: str, ace_points: int, hand_size: int) -> float:
    """The mean least deadwood of a dealt hand of ``hand_size`` cards under the ace mode
    and ace points: from the committed table, else estimated now (``estimate``)."""
    found = _table().get(key(ace, ace_points, hand_size))
    if found is not None:
        return found
    return estimate(ace, ace_points, hand_size)[0]

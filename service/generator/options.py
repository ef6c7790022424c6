"""Random option sets for generated games: every option of a family, any value of its
range, bounded so that a game stays short."""

from __future__ import annotations

import random
from typing import Any

from ..engine.rules import GIN as GIN_FAMILY
from ..engine.rules import OPTIONS, PRESETS


def random_rules(variant: str, rng: random.Random, players: int | None = None) -> dict:
    """A random, valid override dict for the variant's family.

    Each option of the family (RULES.md, Options) is set with probability 1/2, to any
    value of its range (every choice, both booleans, null where allowed; integers within
    bounds that keep a game short).  ``hand_size`` leaves a stock for ``players`` (default:
    the preset's most players); a Rummy-family hand of 1 or 2 cards, which can never go
    out, gets a finite ``max_stock_reuses`` and ``deals`` so that its game still ends.
    """
    preset = PRESETS[variant]
    family = preset.family
    seated = 2 if family == GIN_FAMILY else (players or preset.max_players)
    out: dict[str, Any] = {}
    for name, spec in OPTIONS.items():
        if spec.family not in ("both", family) or rng.random() < 0.5:
            continue
        out[name] = _random_value(name, spec.choices, rng, seated, family)
    if family != GIN_FAMILY:
        if out.get("hand_size", 6) <= 2:  # never out: blocked deals of a card or two
            out["max_stock_reuses"] = rng.randint(0, 2)
            out["deals"] = rng.randint(1, 3)  # their tiny scores might never reach a target
    else:
        if (players or preset.max_players) != 2:
            out.pop("hollywood", None)  # a game of two players only
        stock = 52 - 2 * out.get("hand_size", 10) - 1
        if out.get("stock_floor", 2) > stock - 3:
            out["stock_floor"] = rng.randint(0, max(0, min(8, stock - 3)))
    return out


def _random_value(name: str, choices: tuple, rng: random.Random, seated: int,
                  family: str) -> Any:
    """A value of one option (see ``random_rules``)."""
    if choices:  # names as a log writes them: plain strings
        choice = rng.choice(choices)
        return str(choice) if isinstance(choice, str) else choice
    if name in ("discard_taken_card", "layoff_requires_own_meld", "discard_to_go_out",
                "oklahoma", "undercut_on_tie", "upcard_pass", "shutout_double", "hollywood"):
        return rng.random() < 0.5
    if name == "ace_points":
        return rng.choice((0, 1, 11, 15, rng.randint(0, 20)))
    if name == "hand_size":
        biggest = 51 // seated
        if family == GIN_FAMILY:
            biggest = min(biggest, 20)  # keep a stock above the floor
        if rng.random() < 0.6:
            return rng.randint(max(1, min(biggest, 6)), min(biggest, 10))
        return rng.randint(1, biggest)
    if name == "target":
        return None if rng.random() < 0.2 else rng.randint(1, 200)
    if name == "deals":
        return None if rng.random() < 0.3 else rng.randint(1, 4)
    if name == "max_stock_reuses":
        return None if rng.random() < 0.4 else rng.randint(0, 3)
    if name == "knock_limit":
        return rng.randint(0, 10)
    if name == "big_gin_bonus":
        return None if rng.random() < 0.4 else rng.randint(0, 50)
    if name == "stock_floor":
        return rng.randint(0, 8)
    if name in ("gin_bonus", "undercut_bonus"):
        return rng.randint(0, 50)
    if name in ("box_bonus", "shutout_bonus", "game_bonus"):
        return rng.randint(0, 150)
    raise ValueError(f"no random value for option {name!r}")

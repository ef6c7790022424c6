"""The score-sheet page: a game kept on paper entered deal by deal in the browser.

The page holds no rules of its own.  Its script builds a ``rummy-log/1`` document from
the sheet as it is typed, each deal recorded by its ``result`` (LOG_FORMAT.md), and
sends it to the API's dry run (``POST /api/v1/games?dry_run=true``) after every change;
the engine's verdict is shown beside the row it concerns.  Gin is played by two, three
(each deal names the two who play it, the third sitting out) or four (two partnerships,
partners opposite each other); the variant's choice names the table's size.  The finished sheet is stored
by the same ``POST /api/v1/games`` as any log, with the write key typed on the page
(kept in the tab, as on the upload page), and can be saved as the JSON it sends.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from flask import render_template

from ..api.auth import writes_need_a_key
from ..api.config import settings
from ..api.variants import describe_variants
from . import blp

# The options a sheet can change: the ones that decide a deal's score or the game's end.
# The rest (how play goes: drawing, melding, the stock; what an ace counts, the page
# taking hand values as written, not cards) leave no trace on a sheet.
SHEET_OPTIONS = {
    "gin": ("target", "deals", "knock_limit", "oklahoma", "hollywood", "gin_bonus",
            "undercut_bonus", "undercut_on_tie", "big_gin_bonus", "box_bonus",
            "shutout_bonus", "shutout_double", "game_bonus"),
    "rummy": ("target", "deals", "rummy_bonus", "scoring"),
}


def _plain(value: Any) -> Any:
    """An option's figure as JSON has it (the engine's choices are enums)."""
    return value.value if isinstance(value, Enum) else value


def sheet_variants() -> list[dict[str, Any]]:
    """Each preset with its seats and the options a sheet may set, for the page's
    script: name, kind, default, bounds, choices and description."""
    out = []
    for variant in describe_variants():
        family = variant["family"]
        keep = SHEET_OPTIONS["gin" if family == "gin" else "rummy"]
        options = [{"name": o["name"], "kind": o["kind"], "description": o["description"],
                    "default": _plain(o["default"]), "minimum": o["minimum"],
                    "maximum": o["maximum"], "nullable": o["nullable"],
                    "choices": [_plain(c) for c in o["choices"]]}
                   for o in variant["options"] if o["name"] in keep]
        out.append({"name": variant["name"], "family": family,
                    "min_players": variant["min_players"],
                    "max_players": variant["max_players"], "options": options})
    return out


def sheet_choices(variants: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The variant field's choices: a Rummy preset once (its players are the names
    typed), gin once per table size, since a gin sheet's columns depend on it (who plays
    each deal at three, the pairs and the teams' totals at four).  Two-player gin keeps
    the preset's bare name as its value; the others are ``name:count``."""
    out = []
    for v in variants:
        if v["family"] != "gin":
            out.append({"value": v["name"], "label": v["name"]})
            continue
        for count in range(v["min_players"], v["max_players"] + 1):
            value = v["name"] if count == 2 else f"{v['name']}:{count}"
            label = (f"{v['name']}, {count} players"
                     + (" (partnerships)" if count == 4 else ""))
            out.append({"value": value, "label": label})
    return out


@blp.get("/sheets/new")
def new_sheet():
    """The empty sheet; open to every visitor (it shows no stored data), the API it
    calls keeps its write policy."""
    variants = sheet_variants()
    return render_template("sheet.html", title="Enter a score sheet",
                           variants=variants, choices=sheet_choices(variants),
                           max_game_bytes=settings().max_game_bytes,
                           key_needed=writes_need_a_key())

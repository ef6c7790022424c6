"""The score-sheet page: a game kept on paper entered deal by deal in the browser.

The page holds no rules of its own.  Its script builds a ``rummy-log/1`` document from
the sheet as it is typed, each deal recorded by its ``result`` (LOG_FORMAT.md), and
sends it to the API's dry run (``POST /api/v1/games?dry_run=true``) after every change;
the engine's verdict is shown beside the row it concerns.  The finished sheet is stored
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
                    # gin at three or four needs who plays each deal and the teams: the
                    # page keeps to two-player gin, as most sheets are
                    "min_players": variant["min_players"],
                    "max_players": 2 if family == "gin" else variant["max_players"],
                    "options": options})
    return out


@blp.get("/sheets/new")
def new_sheet():
    """The empty sheet; open to every visitor (it shows no stored data), the API it
    calls keeps its write policy."""
    return render_template("sheet.html", title="Enter a score sheet",
                           variants=sheet_variants(),
                           max_game_bytes=settings().max_game_bytes,
                           key_needed=writes_need_a_key())

"""The rule of the names and ids a log gives (docs/LOG_FORMAT.md, "Names and ids"):
what people read on a page and what links to a player or a tournament carry.

A name or id is refused when it holds a character of the Unicode general categories
Cc (controls: NUL, tab, newline, ...), Cf (invisible format characters: zero-width
spaces and joiners, the right-to-left override U+202E, the byte order mark, ...), Zl
or Zp (line and paragraph separators), or when it starts or ends with a space (Zs:
the space, the no-break space, ...), so a name of spaces alone is refused too.  A
player's name and a tournament id are the last segment of a page's path, which no URL
can hold as ``.`` or ``..``: those two are refused there.

A name that breaks the rule is refused, never trimmed or cleaned: a stored game's id
is derived from its log as sent (``service.store.records.game_id``), and a log the
service changed would no longer be the log its uploader holds.

The rule is checked beside the schemas, on new documents only (:func:`name_errors`);
a log stored before the rule existed is read back as it was stored.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .errors import show

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
DOT_SEGMENTS = frozenset({".", ".."})
_WORDS = {"Cc": "a control character", "Cf": "an invisible format character",
          "Zl": "a line separator", "Zp": "a paragraph separator"}


def name_problem(text: str, in_paths: bool = False) -> str | None:
    """What is wrong with ``text`` as a name or id, or None when it follows the rule;
    ``in_paths``: a name that links carry as a path segment (``.`` and ``..`` refused)."""
    # Printable text (no Cc, Cf, Zl, Zp, Zs but the space) without spaces at its ends:
    # nearly every name, answered without looking at each character.
    if text.isprintable() and text.strip() == text and not (in_paths and text in DOT_SEGMENTS):
        return None
    for char in text:
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES:
            return (f"{show(text)} holds {_WORDS[category]} (U+{ord(char):04X}); names "
                    "and ids hold no control, format or line-breaking characters")
    if text.strip() != text:
        return (f"{show(text)} starts or ends with a space; names and ids are sent "
                "without spaces around them, and never as spaces alone")
    if in_paths and text in DOT_SEGMENTS:
        return f"{show(text)} cannot be a name: no link can carry '.' or '..' as a name"
    return None


def name_errors(document: Any) -> dict[str, list[str]]:
    """The names and ids of a decoded document that break the rule, by dotted path
    (``players.1``, ``id``, ``tournament.id``, ``tournament.table``).  Values that are no
    string are the schemas' business and are passed over here."""
    if type(document) is not dict:
        return {}
    errors: dict[str, list[str]] = {}

    def check(path: str, value: Any, in_paths: bool = False) -> None:
        if type(value) is str:
            problem = name_problem(value, in_paths)
            if problem is not None:
                errors[path] = [problem]

    players = document.get("players")
    if type(players) is list:
        for number, name in enumerate(players):
            check(f"players.{number}", name, in_paths=True)
    check("id", document.get("id"))
    tournament = document.get("tournament")
    if type(tournament) is dict:
        check("tournament.id", tournament.get("id"), in_paths=True)
        check("tournament.table", tournament.get("table"))
    return errors

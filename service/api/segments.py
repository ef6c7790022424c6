"""Names in the paths of the API and the pages: a player's name, a tournament id."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from werkzeug.routing import PathConverter

# werkzeug's characters of a path segment (WHATWG's), without "/".
SEGMENT_SAFE = "!$&'()*+,:;=@"


def segment(value: Any) -> str:
    """``value`` as one percent-encoded segment of a path: ``/``, ``?``, ``#``, ``%``
    and every character beyond ASCII encoded."""
    return quote(str(value), safe=SEGMENT_SAFE)


class NameConverter(PathConverter):
    """A player's name or a tournament id in a path (``<name:player>``).

    A name may hold ``/``: the server sees ``%2F`` decoded, so the route matches slashes
    as ``path`` does.  A link is built with the name as one segment, every ``/`` encoded:
    with ``path``'s own encoding, ``spring/../cup`` became the link ``.../spring/../cup``,
    which a browser reads as ``.../cup``.
    """

    def to_url(self, value: Any) -> str:
        return segment(value)


class TournamentConverter(NameConverter):
    """A tournament id as the last part of a path (``GET /tournaments/{id}``): any name
    but one ending in ``/tables/{round}/{table}/keep``, the address of keeping a table's
    game (``POST``).  Without it that address matched this rule too, and its OPTIONS and
    405 answers listed GET, which the address does not take."""

    regex = r"(?!.*/tables/[0-9]+/.+/keep\Z)[^/].*?"

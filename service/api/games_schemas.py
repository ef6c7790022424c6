"""Marshmallow schemas of the /games endpoints: query arguments, responses, examples.

The responses are dumped through these schemas, so the OpenAPI document describes what
is sent.  The report and the uploaded log are the engine's own JSON and pass through as
they are (``fields.Dict``); the OpenAPI document describes them by the published JSON
Schemas (:mod:`.log_schemas`), and the engine validates every upload.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Any

from marshmallow import Schema, ValidationError, fields
from marshmallow.validate import Length, OneOf, Range

from ..engine.limits import (
    MAX_ID_LENGTH,
    MAX_PLAYER_LENGTH,
    MAX_ROUND,
    TIME_RANGE,
    calendar_date,
    instant,
)
from ..engine.report import ILLEGAL, INCOMPLETE, MISMATCH, MIXED, MOVES, RESULTS, VALID
from ..engine.rules import PRESETS
from ..engine.words import integer_range
from .config import settings
from .log_schemas import REPORT_REF

STATUSES = (VALID, ILLEGAL, MISMATCH, INCOMPLETE)
LEVELS = (MOVES, RESULTS, MIXED)
LEVEL_DOC = ("How much of the game was checked: moves (every deal recorded move by move: "
             "every move verified), results (every deal recorded by its result, as on a "
             "score sheet: arithmetic and rules checked, play not recorded) or mixed")
MAX_REASON_LENGTH = 1000


# The characters a reason may not hold: control characters (C0, DEL, C1), the line and
# paragraph separators (a reason is one line) and the bidirectional embeddings, overrides
# and isolates (they would reorder the text shown around the reason on a page or in a
# listing).  The same in the API's document, where the pattern also needs a character
# that is not white space (a reason is stripped first).
_REFUSED = "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
NOT_BLANK_PATTERN = f"^[^{_REFUSED}]*[^\\s{_REFUSED}][^{_REFUSED}]*$"
_REFUSED_CHARACTERS = re.compile(f"[{_REFUSED}]")
REASON_RULE = (f"a string of 1 to {MAX_REASON_LENGTH} characters once stripped, with a "
               "character that shows, one line: no control, line separator or "
               "bidirectional control characters")


def plain_reason(text: str) -> bool:
    """A director's reason is one line of plain text: no control character (a NUL, an
    escape...), no line separator, no bidirectional control.  It is shown on pages and in
    the audit trail as written."""
    return _REFUSED_CHARACTERS.search(text) is None


def _visible(ch: str) -> bool:
    """A character that shows: not a separator (white space), not a control or format
    character (a zero-width space, a byte order mark...), not a mark that only combines
    with another."""
    category = unicodedata.category(ch)
    return category[0] not in "ZC" and category not in ("Mn", "Me")


def director_reason(value: object) -> str | None:
    """The reason as stored (stripped of white space at either end), or None when
    ``value`` is not one: a string of 1 to ``MAX_REASON_LENGTH`` characters once
    stripped, holding a character that shows, plain (``plain_reason``).  Every reason a
    director gives (a deletion, a correction, a ruling, a restore, a kept table, a table
    not played) goes through here, so that they are all held to the same rule."""
    if not isinstance(value, str) or not plain_reason(value):
        return None
    text = value.strip()
    if not 1 <= len(text) <= MAX_REASON_LENGTH or not any(_visible(ch) for ch in text):
        return None
    return text


def _plain(text: str) -> None:
    if director_reason(text) is None:
        raise ValidationError(REASON_RULE)


class ReasonField(fields.String):
    """A director's reason in a body: loaded as ``director_reason`` stores it (stripped),
    or refused with the rule."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": NOT_BLANK_PATTERN, "minLength": 1,
                    "maxLength": MAX_REASON_LENGTH, **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        reason = director_reason(value)
        if reason is None:
            raise ValidationError(REASON_RULE)
        return reason

EXAMPLE_ID = "5d69bdc52cdd76ed28a89e91"
EXAMPLE_LOG: dict[str, Any] = {
    "format": "rummy-log/1", "variant": "gin", "players": ["ana", "ben"],
    "rules": {"target": None},
    "deals": [{"dealer": "ben",
               "hands": {"ana": ["2C", "3C", "4C", "5D", "5H", "5S", "9H", "9D", "9S", "KS"],
                         "ben": ["5C", "6C", "7C", "8C", "9C", "AD", "2D", "3D", "JH", "JS"]},
               "upcard": "TD",
               "moves": [{"p": "ana", "a": "draw", "from": "stock", "card": "AH"},
                         {"p": "ana", "a": "knock", "card": "KS",
                          "melds": [["2C", "3C", "4C"], ["5D", "5H", "5S"],
                                    ["9H", "9D", "9S"]]}]}]}
EXAMPLE_REPORT: dict[str, Any] = {
    "status": "valid", "violations": [],
    "deals": [{"outcome": "knock", "winner": "ana", "points": {"ana": 19, "ben": 0},
               "hand_values": {"ana": 1, "ben": 20}, "claimed": None}],
    "totals": {"points": {"ana": 139, "ben": 0}, "winner": "ana", "margin": 139,
               "claimed": None},
    "warnings": []}
EXAMPLE_LINKS = {"self": f"/api/v1/games/{EXAMPLE_ID}",
                 "log": f"/api/v1/games/{EXAMPLE_ID}/log"}


class UtcDateTime(fields.DateTime):
    """A timestamp written in RFC 3339 in UTC, ending in ``Z``."""

    def _serialize(self, value: Any, attr: Any, obj: Any, **kwargs: Any) -> str | None:
        return utc_text(value)


_STORED_TEXT = re.compile(r"(-?[0-9]{4,})-([0-9]{2})-([0-9]{2}) ([0-9:.]+)(?:\+00(?::00)?)?")


def utc_text(value: Any) -> str | None:
    """A stored time as RFC 3339 in UTC (``2024-05-01T19:30:00Z``).  Any stored value is
    written, never refused: DuckDB hands a time it cannot make a datetime of (a year
    past 9999 in UTC, stored before the format bounded its years) back as its text."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    m = _STORED_TEXT.fullmatch(str(value))
    if m is None:
        return str(value)
    return f"{m[1]}-{m[2]}-{m[3]}T{m[4]}Z"


# Documented as the server takes it: a date or a date-time, in the years 1900 to 9998.
YEARS = "^(19[0-9]{2}|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-"
INSTANT_DOC: dict[str, Any] = {"type": "string", "pattern": YEARS,
                               "anyOf": [{"format": "date"}, {"format": "date-time"}]}
CURSOR = "^[A-Za-z0-9_-]+$"  # URL-safe base64 without padding
CURSOR_LONGEST = 1000  # characters (pagination.LONGEST)


def instant_doc(example: str, description: str) -> dict[str, Any]:
    """The OpenAPI metadata of an ``Instant`` query bound."""
    return {**INSTANT_DOC, "example": example, "description": description}


def cursor_field(longest: int = CURSOR_LONGEST) -> fields.String:
    """An opaque page cursor: its shape documented, checked with its signature (bound to
    the listing and its parameters) by the server, which answers any cursor not of its
    making with the one problem type invalid-cursor."""
    return fields.String(metadata={
        "minLength": 1, "maxLength": longest, "pattern": CURSOR,
        "description": "Opaque: from the previous page's 'next' link"})


class Instant(fields.Field):
    """A query bound: an RFC 3339 date-time, or a date meaning its midnight UTC, in the
    years the log format allows."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> datetime:
        text = value if isinstance(value, str) else ""
        when = calendar_date(text) or instant(text)
        if when is None:
            raise ValidationError("not an RFC 3339 date-time (2024-05-01T19:30:00Z) or a date "
                                  f"(2024-05-01) in the {TIME_RANGE}")
        return when


def _page_limit(value: int) -> None:
    """From 1 to the configured largest page (the document says both: the minimum
    here, the maximum by the app's spec plugin)."""
    most = settings().max_page_size
    if not 1 <= value <= most:
        raise ValidationError(integer_range(1, most))


def between(low: int, high: int) -> Range:
    """A validator: an integer from ``low`` to ``high``, said as everywhere else."""
    return Range(min=low, max=high, error=integer_range(low, high))


# --------------------------------------------------------------------------- arguments

class UploadArgsSchema(Schema):
    dry_run = fields.Boolean(load_default=False, metadata={
        "description": "Verify and answer without storing anything"})
    replaces = fields.String(validate=Length(1, 64), metadata={
        "description": "The id of a stored game this log corrects: the new log is stored "
                       "and that game withdrawn in one transaction (who, when and 'reason' "
                       "recorded); nothing changes if either cannot be done"})
    reason = fields.String(validate=_plain, metadata={
        "pattern": NOT_BLANK_PATTERN, "maxLength": MAX_REASON_LENGTH,
        "description": "With 'replaces': why the game is withdrawn (nothing without it)"})
    relocate = fields.Boolean(load_default=False, metadata={
        "description": "With 'replaces': the correction may name another variant, "
                       "tournament, round or table than the game it replaces (without it "
                       "such a correction is refused, 409 replacement-elsewhere)"})


class DeleteArgsSchema(Schema):
    reason = fields.String(validate=_plain, metadata={
        "pattern": NOT_BLANK_PATTERN, "maxLength": MAX_REASON_LENGTH,
        "description": "Why the game is withdrawn (also accepted as a JSON body "
                       "{\"reason\": ...})"})


def named(longest: int) -> list[Any]:
    """The validators of a player or tournament id given as a filter: its length only.
    A filter takes every name a log can hold, as it is (never trimmed), and a name that
    logs may no longer hold (docs/LOG_FORMAT.md, "Names and ids") too: a game stored
    before that rule is still found by it, and otherwise the filter matches nothing."""
    return [Length(1, longest)]


FOLDED = ("; the name as stored when a game holds it exactly, else every name equal to "
          "it ignoring case and accents (José, jose, JOSE)")


class ListArgsSchema(Schema):
    player = fields.String(validate=named(MAX_PLAYER_LENGTH), metadata={
        "description": "Games this player took part in" + FOLDED})
    variant = fields.String(validate=OneOf(tuple(PRESETS)))
    status = fields.String(validate=OneOf(STATUSES))
    verification = fields.String(validate=OneOf(LEVELS), metadata={
        "description": "Games checked this far: " + LEVEL_DOC})
    tournament = fields.String(validate=named(MAX_ID_LENGTH), metadata={
        "description": "The log's tournament.id" + FOLDED})
    source_id = fields.String(validate=named(MAX_ID_LENGTH), metadata={
        "description": "The log's own id, exactly as uploaded"})
    round = fields.Integer(validate=between(1, MAX_ROUND), metadata={
        "minimum": 1, "maximum": MAX_ROUND, "description": "The log's tournament.round"})
    table = fields.String(validate=named(MAX_ID_LENGTH), metadata={
        "description": "The log's tournament.table, exactly"})
    since = Instant(metadata=instant_doc(
        "2024-05-01", "Played (else uploaded) at or after this instant; a date means its "
                      "midnight UTC"))
    until = Instant(metadata=instant_doc(
        "2024-06-01T00:00:00Z", "Played (else uploaded) before this instant (exclusive)"))
    limit = fields.Integer(validate=_page_limit,
                           metadata={"minimum": 1, "description": "Games per page (default 50, at most "
                                                    "500 unless configured otherwise)"})
    cursor = cursor_field()


# --------------------------------------------------------------------------- bodies

class TournamentSchema(Schema):
    id = fields.String(allow_none=True)
    round = fields.Integer(allow_none=True)
    table = fields.String(allow_none=True)


class LinksSchema(Schema):
    self = fields.String(required=True)
    log = fields.String()


class UploadResultSchema(Schema):
    id = fields.String(required=True, metadata={"example": EXAMPLE_ID})
    status = fields.String(required=True, validate=OneOf(STATUSES))
    verification = fields.String(required=True, validate=OneOf(LEVELS),
                                 metadata={"description": LEVEL_DOC})
    created = fields.Boolean(required=True, metadata={
        "description": "False when the same log was stored before, or on a dry run"})
    dry_run = fields.Boolean(required=True)
    source_id = fields.String(allow_none=True, metadata={
        "description": "The log's own id, null when it has none"})
    tournament = fields.Nested(TournamentSchema, allow_none=True, metadata={
        "description": "The log's tournament {id, round, table}, null when it has none"})
    report = fields.Dict(required=True, metadata={"description": "The verification report",
                                                  "allOf": [REPORT_REF]})
    links = fields.Nested(LinksSchema, metadata={"description": "Absent on a dry run"})
    replaced = fields.Nested(lambda: DeletionSchema(), metadata={
        "description": "With 'replaces': the withdrawal of the game replaced"})


class GameSchema(Schema):
    id = fields.String(required=True)
    source_id = fields.String(allow_none=True, metadata={"description": "The log's own id"})
    variant = fields.String(required=True)
    status = fields.String(required=True, validate=OneOf(STATUSES))
    players = fields.List(fields.String(), required=True)
    tournament = fields.Nested(TournamentSchema, allow_none=True)
    played_at = UtcDateTime(allow_none=True)
    uploaded_at = UtcDateTime(required=True)
    uploader = fields.String(allow_none=True, metadata={
        "description": "The name of the API key that uploaded the game (a keyed hash "
                       "for a key without a name), or null when writes are open"})
    n_deals = fields.Integer(required=True)
    n_moves = fields.Integer(required=True)
    winner = fields.String(allow_none=True, metadata={
        "description": "The recomputed winner of a finished game; null when the game "
                       "counts for nothing (illegal or unfinished) or ends in a tie"})
    recomputed_leader = fields.String(allow_none=True, metadata={
        "description": "Not a result: for a game that counts for nothing (illegal or "
                       "unfinished), the player (side) ahead on the points of its scored "
                       "deals; null for a finished game"})
    margin = fields.Integer(allow_none=True, metadata={
        "description": "Null when the game has no result"})
    rules = fields.Dict(required=True, metadata={"description": "Every option, resolved"})
    meta = fields.Raw(allow_none=True)
    report = fields.Dict(required=True, metadata={"allOf": [REPORT_REF]})
    links = fields.Nested(LinksSchema, required=True)


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    source_id = fields.String(allow_none=True)
    variant = fields.String(required=True)
    status = fields.String(required=True)
    verification = fields.String(required=True, validate=OneOf(LEVELS),
                                 metadata={"description": LEVEL_DOC})
    players = fields.List(fields.String(), required=True)
    tournament = fields.Nested(TournamentSchema, allow_none=True, metadata={
        "description": "The log's tournament {id, round, table}, as in every answer"})
    played_at = UtcDateTime(allow_none=True)
    uploaded_at = UtcDateTime(required=True)
    n_deals = fields.Integer(required=True)
    winner = fields.String(allow_none=True, metadata={
        "description": "Null when the game counts for nothing (illegal or unfinished)"})
    recomputed_leader = fields.String(allow_none=True, metadata={
        "description": "Not a result: for a game that counts for nothing (illegal or "
                       "unfinished), the player (side) ahead on the points of its scored "
                       "deals; null for a finished game"})
    links = fields.Nested(LinksSchema, required=True)


class GamePageSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next = fields.String(allow_none=True, metadata={
        "description": "The next page, also in the Link header; null on the last page"})


class DeletionSchema(Schema):
    id = fields.String(required=True)
    deleted_at = UtcDateTime(required=True)
    deleted_by = fields.String(allow_none=True, metadata={
        "description": "The uploader label of the write key used (a hash of the key), "
                       "null when writes are open"})
    reason = fields.String(allow_none=True)


class MeldSchema(Schema):
    cards = fields.List(fields.String(), required=True)
    kind = fields.String(required=True)
    owner = fields.String(allow_none=True)


class StateSchema(Schema):
    """The table after a move, as a replay viewer shows it."""

    deal = fields.Integer(required=True)
    move = fields.Integer(required=True, metadata={"description": "-1: as dealt"})
    players = fields.List(fields.String(), required=True)
    to_move = fields.String(allow_none=True)
    hands = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
    hand_values = fields.Dict(keys=fields.String(), values=fields.Integer())
    stock_count = fields.Integer()
    discard_top = fields.String(allow_none=True)
    discard_count = fields.Integer()
    melds = fields.List(fields.Nested(MeldSchema))
    deal_over = fields.Boolean()
    outcome = fields.String(allow_none=True)
    scores = fields.Dict(keys=fields.String(), values=fields.Integer())
    stopped_by = fields.Dict(allow_none=True, metadata={
        "description": "The violation that stopped the replay before this move, if any"})

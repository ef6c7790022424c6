"""GET /games/export: the stored games matching the /games filters, as a download.

* ``format=ndjson`` (the default): the logs as they were uploaded, one a line, newest
  first, streamed a page of games at a time.  A log is sent byte for byte, except that
  a log uploaded with line breaks (pretty-printed JSON) has each CR and LF replaced by a
  space: in JSON a line break can only be white space between tokens, so the line is
  the same document (same content, same game id) and the output stays one game a line.
* ``format=parquet``: the per-deal results table, one row per deal per player, written
  by DuckDB into a temporary file that is streamed and then deleted.

The SQL is in :mod:`service.store.export`; this module only speaks HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

import orjson
from flask import Response
from flask_smorest import Blueprint
from marshmallow import RAISE, fields
from marshmallow.validate import OneOf

from ..store import GameFilter
from ..store.export import DEAL_RESULT_COLUMNS, deal_results_parquet, iter_logs
from .auth import read_access
from .config import current_store
from .games import FILTERS
from .games_schemas import EXAMPLE_LOG, ListArgsSchema
from .spec import PREFIX, problem_responses

blp = Blueprint("export", __name__, url_prefix=f"{PREFIX}/games",
                description="Export stored games")

NDJSON, PARQUET = "ndjson", "parquet"
MEDIA_TYPES = {NDJSON: "application/x-ndjson", PARQUET: "application/vnd.apache.parquet"}
_LINE_BREAKS = bytes.maketrans(b"\r\n", b"  ")


class ExportArgsSchema(ListArgsSchema):
    """The filters of GET /games (no paging: the export is the whole list) and the
    format."""

    class Meta:
        exclude = ("limit", "cursor")

    format = fields.String(load_default=NDJSON, validate=OneOf((NDJSON, PARQUET)),
                           metadata={"description": "ndjson: the uploaded logs, one a "
                                                    "line; parquet: the per-deal results"})


def _ndjson_lines(logs: Iterator[bytes]) -> Iterator[bytes]:
    for log in logs:
        if b"\n" in log or b"\r" in log:
            log = log.translate(_LINE_BREAKS)
        yield log + b"\n"


@blp.route("/export", methods=["GET"])
@read_access
@blp.arguments(ExportArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, description="The matching games, newest first (attachment)", headers={
    "Content-Disposition": {"description": "attachment; filename=games.ndjson or "
                                           "games.parquet", "schema": {"type": "string"}}})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Export the games matching the /games filters (NDJSON logs or Parquet "
                 "deal results)",
         description="ndjson streams the logs as uploaded, one a line, newest first (a log "
                     "uploaded over several lines has its line breaks turned into spaces: "
                     "the same JSON document). parquet is the per-deal results table, one "
                     "row per deal per player, newest game first.",
         responses={200: {"content": {
             MEDIA_TYPES[NDJSON]: {
                 "schema": {"type": "string", "description": "One uploaded log per line"},
                 "example": orjson.dumps(EXAMPLE_LOG).decode() + "\n"},
             MEDIA_TYPES[PARQUET]: {
                 "schema": {"type": "string", "format": "binary", "description":
                            "One row per deal per player; columns: "
                            + ", ".join(DEAL_RESULT_COLUMNS)}}}}})
def export_games(args: dict[str, Any]) -> Response:
    """NDJSON streams as the games are read; Parquet is written whole first, so a
    database failure is still answered as a 503 problem, and carries a Content-Length."""
    where = GameFilter(**{name: args.get(name) for name in FILTERS})
    store = current_store()
    kind = args["format"]
    if kind == NDJSON:
        # The store is captured here: the generator runs after the request context.  The
        # first page is read now, so that a database failure is still a 503 problem.
        lines = _ndjson_lines(iter_logs(store, where))
        first = next(lines, None)
        body = lines if first is None else chain((first,), lines)
        response = Response(body, mimetype=MEDIA_TYPES[NDJSON])
    else:
        export = deal_results_parquet(store, where)
        response = Response(export.blocks(), mimetype=MEDIA_TYPES[PARQUET])
        response.content_length = export.size
        response.call_on_close(export.remove)
    response.headers["Content-Disposition"] = f"attachment; filename=games.{kind}"
    return response

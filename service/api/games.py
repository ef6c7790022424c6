"""The /games endpoints: upload one log, read a game, its log, its positions, the list.

The views only translate HTTP to the engine and the store: the engine judges the log,
the store keeps it.  Illegal, mismatched and incomplete games are stored like valid
ones (the verdict is the point); only a malformed log is refused (422).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import orjson
from flask import Response, current_app, g, request, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE

from ..engine import LogValidationError, load_json, parse_game
from ..engine.state import NoSuchPosition, state_after
from ..store import GameFilter
from .auth import read_access, write_access
from .config import current_store, settings
from .games_schemas import (
    EXAMPLE_ID,
    EXAMPLE_LINKS,
    EXAMPLE_LOG,
    EXAMPLE_REPORT,
    GamePageSchema,
    GameSchema,
    ListArgsSchema,
    LogSchema,
    StateSchema,
    UploadArgsSchema,
    UploadResultSchema,
)
from .intake import JSON_TYPES, check_log, read_body, require_media_type
from .pagination import decode_cursor, encode_cursor, link_header
from .problems import INTERNAL_ERROR, NO_SUCH_POSITION, NOT_FOUND, VALIDATION_ERROR, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("games", __name__, url_prefix=f"{PREFIX}/games",
                description="Upload rummy-log/1 games, read verdicts, logs and positions")

FILTERS = ("player", "variant", "status", "tournament", "since", "until")


def game_url(game_id: str) -> str:
    """The game's URL, as ``url_for`` would build it, without its cost (a tenth of a
    millisecond a call, which counts on the upload path and on pages of 500 games)."""
    return f"{request.script_root}{PREFIX}/games/{quote(game_id)}"


def links(game_id: str) -> dict[str, str]:
    url = game_url(game_id)
    return {"self": url, "log": f"{url}/log"}


def _not_found(game_id: str) -> Problem:
    return Problem(404, NOT_FOUND, f"there is no game {game_id[:64]!r}")


@blp.route("", methods=["POST"])
@write_access
@blp.arguments(UploadArgsSchema(), location="query", unknown=RAISE,  # one instance: hot path
               error_status_code=400)
@blp.response(201, UploadResultSchema, description="Verified and stored", example={
    "id": EXAMPLE_ID, "status": "valid", "created": True, "dry_run": False,
    "report": EXAMPLE_REPORT, "links": EXAMPLE_LINKS})
@blp.alt_response(200, schema=UploadResultSchema, success=True,
                  description="The same log was stored before (created false), or a dry run")
@problem_responses(blp, 400, 401, 403, 413, 415, 422)
@blp.doc(summary="Verify one log and store it", requestBody={
    "required": True, "description": "One rummy-log/1 game",
    "content": {"application/json": {"schema": LogSchema, "example": EXAMPLE_LOG}}})
def upload(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Stored games are identified by their canonical content: uploading the same log
    again answers 200 with the existing id.  With ``dry_run=true`` nothing is stored."""
    require_media_type(JSON_TYPES)
    limit = settings().max_game_bytes
    raw = read_body(limit)
    try:
        checked = check_log(raw, limit)
    except LogValidationError as error:
        raise Problem(422, VALIDATION_ERROR, "the document is not a valid rummy-log/1 game",
                      errors=error.errors) from None
    body: dict[str, Any] = {"id": checked.id, "status": checked.report.status,
                            "created": False, "dry_run": args["dry_run"],
                            "report": checked.report.to_dict()}
    if args["dry_run"]:
        return body, 200, {}
    try:
        [(game_id, created)] = current_store().submit([checked.record(g.uploader)])
    except ValueError:
        created = None  # a lone game of its commit: the store raises instead of answering
        current_app.logger.exception("game %s could not be stored", checked.id)
    if created is None:
        raise Problem(500, INTERNAL_ERROR, "the game could not be stored; it has been logged")
    body.update(id=game_id, created=created, links=links(game_id))
    if not created:
        return body, 200, {}
    return body, 201, {"Location": body["links"]["self"]}


@blp.route("/<string:game_id>", methods=["GET"])
@read_access
@blp.response(200, GameSchema)
@problem_responses(blp, 401, 403, 404)
@blp.doc(summary="A stored game: its metadata and verification report")
def get_game(game_id: str) -> dict[str, Any]:
    row = current_store().get_game(game_id)
    if row is None:
        raise _not_found(game_id)
    tournament = None
    if row["tournament_id"] is not None or row["tournament_round"] is not None:
        tournament = {"id": row["tournament_id"], "round": row["tournament_round"],
                      "table": row["tournament_table"]}
    return {**row, "tournament": tournament, "rules": orjson.loads(row["rules"]),
            "meta": orjson.loads(row["meta"]) if row["meta"] is not None else None,
            "report": orjson.loads(row["report"]), "links": links(game_id)}


@blp.route("/<string:game_id>/log", methods=["GET"])
@read_access
@blp.response(200, LogSchema, description="The log exactly as it was uploaded")
@problem_responses(blp, 401, 403, 404)
@blp.doc(summary="The uploaded log, byte for byte")
def get_log(game_id: str) -> Response:
    raw = current_store().get_log(game_id)
    if raw is None:
        raise _not_found(game_id)
    return Response(raw, mimetype="application/json")


@blp.route("/<string:game_id>/deals/<int:deal>/moves/<int(signed=True):move>/state",
           methods=["GET"], parameters=[
               {"in": "path", "name": "move", "required": True, "description": "-1: as dealt",
                "schema": {"type": "integer", "minimum": -1}}])
@read_access
@blp.response(200, StateSchema)
@problem_responses(blp, 401, 403, 404)
@blp.doc(summary="The table after a move (move -1: as dealt)")
def get_state(game_id: str, deal: int, move: int) -> dict[str, Any]:
    """Replays the stored log to the position; a position the game does not have is a
    404 problem of type no-such-position."""
    raw = current_store().get_log(game_id)
    if raw is None:
        raise _not_found(game_id)
    game = parse_game(load_json(raw, max(len(raw), settings().max_game_bytes)))
    try:
        return state_after(game, deal, move)
    except NoSuchPosition as error:
        raise Problem(404, NO_SUCH_POSITION, str(error)) from None


@blp.route("", methods=["GET"])
@read_access
@blp.arguments(ListArgsSchema, location="query", unknown=RAISE,
               error_status_code=400)
@blp.response(200, GamePageSchema, headers={"Link": {
    "description": 'RFC 8288: <next page>; rel="next" when there are more games',
    "schema": {"type": "string"}}})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Stored games, newest first, filtered, a page at a time")
def list_games(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    config = settings()
    limit = args.get("limit", config.page_size)
    filters = {name: args.get(name) for name in FILTERS}
    before = decode_cursor(args["cursor"], filters) if "cursor" in args else None
    rows = current_store().list_games(GameFilter(**filters), limit + 1, before)
    more = len(rows) > limit
    rows = rows[:limit]
    games = [{**row, "links": {"self": game_url(row["id"])}}
             for row in rows]
    body: dict[str, Any] = {"games": games, "next": None}
    headers: dict[str, str] = {}
    if more:
        query = {name: request.args[name] for name in FILTERS if name in request.args}
        body["next"] = url_for("games.list_games", **query, limit=limit,
                               cursor=encode_cursor(rows[-1]["seq"], filters))
        headers["Link"] = link_header(body["next"])
    return body, 200, headers

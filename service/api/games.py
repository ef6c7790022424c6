"""The /games endpoints: upload one log, read a game, its log, its positions, the list.

The views only translate HTTP to the engine and the store: the engine judges the log,
the store keeps it.  Illegal, mismatched and incomplete games are stored like valid
ones (the verdict is the point); only a malformed log is refused (422).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson
from flask import Response, current_app, g, request, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE
from werkzeug.routing import BaseConverter

from ..engine import LogValidationError, load_json, parse_game
from ..engine.model import Game
from ..engine.state import NoSuchPosition, state_after
from ..store import GameFilter, Replacement
from ..store.desk import restoration_history
from ..store.stats import tournament_of
from .auth import read_access, write_access
from .config import current_store, settings
from .games_schemas import (
    EXAMPLE_ID,
    EXAMPLE_LINKS,
    EXAMPLE_LOG,
    EXAMPLE_REPORT,
    MAX_REASON_LENGTH,
    NOT_BLANK_PATTERN,
    REASON_RULE,
    DeleteArgsSchema,
    DeletionSchema,
    GamePageSchema,
    GameSchema,
    ListArgsSchema,
    StateSchema,
    UploadArgsSchema,
    UploadResultSchema,
    director_reason,
    utc_text,
)
from .intake import JSON_TYPES, check_log, read_body, require_media_type
from .log_schemas import LOG_REF
from .pagination import Part, decode_key_cursor, encode_key_cursor, link_header
from .problems import (
    GAME_DELETED,
    INTERNAL_ERROR,
    INVALID_PARAMETER,
    NO_SUCH_POSITION,
    NOT_FOUND,
    REPLACEMENT_ELSEWHERE,
    REPLACES_ITSELF,
    VALIDATION_ERROR,
    Problem,
    validation_problem,
)
from .segments import segment
from .spec import PREFIX, problem_responses

blp = Blueprint("games", __name__, url_prefix=f"{PREFIX}/games",
                description="Upload rummy-log/1 games, read verdicts, logs and positions")

FILTERS = ("player", "variant", "status", "verification", "tournament", "source_id", "round",
           "table", "since", "until")
GAMES_KEY = (Part.COUNT,)  # the seq of the page's last game
BESIDE = ("batch", "export")  # the routes /games/batch and /games/export


class GameIdConverter(BaseConverter):
    """A game id in a path: one segment, anything but the name of a route beside
    ``/games/{id}``.  ``/games/batch`` is then served by its own view alone, and its
    OPTIONS and 405 answers allow its methods only (werkzeug lists the methods of every
    rule that matches a path, so GET of ``/games/{id}`` was listed too)."""

    regex = rf"(?!(?:{'|'.join(BESIDE)})\Z)[^/]+"
    part_isolating = True

    def to_url(self, value: Any) -> str:
        return segment(value)


def game_url(game_id: str) -> str:
    """The game's URL, as ``url_for`` would build it, without its cost (a tenth of a
    millisecond a call, which counts on the upload path and on pages of 500 games)."""
    return f"{request.script_root}{PREFIX}/games/{segment(game_id)}"


def links(game_id: str) -> dict[str, str]:
    url = game_url(game_id)
    return {"self": url, "log": f"{url}/log"}


def stored_game(game_id: str) -> Game:
    """The stored log of ``game_id`` read back as a game, or the 404/410 problem."""
    raw = current_store().get_log(game_id)
    if raw is None:
        raise _not_found(game_id)
    return parse_game(load_json(raw, max(len(raw), settings().max_game_bytes),
                                repeated_keys=True), stored=True)


def _not_found(game_id: str) -> Problem:
    """404, or 410 naming who deleted the game and when, if it was stored and deleted."""
    deletion = current_store().deletion(game_id) if len(game_id) <= 64 else None
    if deletion is not None:
        problem = _deleted(410, deletion, "the game was deleted")
        replaced_by = current_store().replaced_by(game_id)
        if replaced_by is not None:
            problem.description += f"; it was replaced by game {replaced_by}"
            problem.extra["replaced_by"] = replaced_by
            problem.extra["links"]["replaced_by"] = game_url(replaced_by)
            live = current_store().live_correction(game_id, replaced_by)
            problem.extra["live_correction"] = live
            if live is not None:
                problem.description += (f"; its correction game {live} is live (withdraw "
                                         "it before restoring this one)")
        restored = restoration_history(current_store(), game_id)
        if restored:  # withdrawn again after a restoration: the earlier ones
            problem.extra["restorations"] = [
                {**entry, "restored_at": utc_text(entry["restored_at"]),
                 "deleted_at": utc_text(entry["deleted_at"])} for entry in restored]
        return problem
    return Problem(404, NOT_FOUND, f"there is no game {game_id[:64]!r}")


def deletion_fields(deletion: dict[str, Any], what: str) -> tuple[str, dict[str, Any]]:
    """The detail and the members of a game-deleted problem: who deleted the game,
    when and why."""
    when = utc_text(deletion["deleted_at"])
    by = deletion["deleted_by"] or "an open write (no key)"
    detail = f"{what}: game {deletion['id']} was deleted at {when} by {by}"
    if deletion["reason"]:
        detail += f" ({deletion['reason']})"
    return detail, {"deleted_at": when, "deleted_by": deletion["deleted_by"],
                    "reason": deletion["reason"], "links": {"self": game_url(deletion["id"])}}


REUPLOADED = ("this log is the one of a deleted game; it stays deleted (upload a "
              "corrected log: it is another game)")


def _deleted(status: int, deletion: dict[str, Any], what: str) -> Problem:
    detail, extra = deletion_fields(deletion, what)
    return Problem(status, GAME_DELETED, detail, **extra)


@blp.route("", methods=["POST"])
@write_access
@blp.arguments(UploadArgsSchema(), location="query", unknown=RAISE,  # one instance: hot path
               error_status_code=400)
@blp.response(201, UploadResultSchema, description="Verified and stored", example={
    "id": EXAMPLE_ID, "status": "valid", "verification": "moves", "created": True, "dry_run": False,
    "report": EXAMPLE_REPORT, "links": EXAMPLE_LINKS})
@blp.alt_response(200, schema=UploadResultSchema, success=True,
                  description="The same log was stored before (created false), or a dry run")
@problem_responses(blp, 400, 401, 403, 404, 408, 409, 413, 415, 422, 503)
@blp.doc(summary="Verify one log and store it", requestBody={
    "required": True, "description": "One rummy-log/1 game, as sent or with "
                                       "`Content-Encoding: gzip` (the size limit is that "
                                       "of the inflated log)",
    "content": {"application/json": {"schema": LOG_REF, "example": EXAMPLE_LOG}}})
def upload(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Stored games are identified by their canonical content: uploading the same log
    again answers 200 with the existing id.  With ``dry_run=true`` nothing is stored."""
    require_media_type(JSON_TYPES)
    limit = settings().max_game_bytes
    raw = read_body(limit)
    try:
        checked = check_log(raw, limit)
    except LogValidationError as error:
        detail, errors = validation_problem("the document is not a valid rummy-log/1 game",
                                            error.errors)
        raise Problem(422, VALIDATION_ERROR, detail, errors=errors) from None
    body: dict[str, Any] = {"id": checked.id, "status": checked.report.status,
                            "verification": checked.report.verification, "created": False, "dry_run": args["dry_run"],
                            "source_id": checked.source_id, "tournament": checked.tournament,
                            "report": checked.report.to_dict()}
    if args["dry_run"]:
        return body, 200, {}
    if "replaces" in args:
        return _replace(checked.record(g.uploader), args["replaces"], query_reason(),
                        body, args["relocate"])
    try:
        [(game_id, created)] = current_store().submit([checked.record(g.uploader)],
                                                      refuse_when_busy=True)
    except ValueError:
        created = None  # a lone game of its commit: the store raises instead of answering
        current_app.logger.exception("game %s could not be stored", checked.id)
    if created is None:
        raise Problem(500, INTERNAL_ERROR, "the game could not be stored; it has been logged")
    if not created:
        deletion = current_store().deletion(game_id)  # a re-upload: rare, one more read
        if deletion is not None:
            raise _deleted(409, deletion, REUPLOADED)
    body.update(id=game_id, created=created, links=links(game_id))
    if not created:
        return body, 200, {}
    return body, 201, {"Location": body["links"]["self"]}


def _replace(record: Any, old: str, reason: str | None, body: dict[str, Any],
             relocate: bool) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Store ``record`` and withdraw game ``old``, in one transaction, or neither."""
    if not relocate:
        moved = replacement_moved(record, old)
        if moved is not None:
            raise moved
    done = current_store().replace_game(record, old, g.uploader, reason, datetime.now(UTC))
    refusal = replacement_refused(done, old)
    if refusal is not None:
        raise refusal
    body.update(id=done.id, created=done.created, links=links(done.id),
                replaced=done.deletion)
    if not done.created:
        return body, 200, {}
    return body, 201, {"Location": body["links"]["self"]}


_PLACE = (("variant", 5), ("tournament", 11), ("round", 12), ("table", 13))  # games row


def replacement_moved(record: Any, old: str) -> Problem | None:
    """A correction naming another variant, tournament, round or table than the stored
    game it replaces, as its 409 problem (None when it names the same, or there is no
    such game: the replacement says so).  Moving a game is a director's deliberate act:
    it is asked for (``relocate``), never done by a log picked by mistake."""
    store = current_store()
    row = store.get_game(old)  # live games only: a withdrawn one is refused as such
    if row is None or record.id == old or store.deletion(record.id) is not None:
        return None
    was = {"variant": row["variant"], "tournament": row["tournament_id"],
           "round": row["tournament_round"], "table": row["tournament_table"]}
    now = {name: record.games[at] for name, at in _PLACE}
    differs = [name for name in was
               if (None if was[name] is None else str(was[name]))
               != (None if now[name] is None else str(now[name]))]
    if not differs:
        return None
    said = ", ".join(f"{name} {_shown(now[name])} (the game: {_shown(was[name])})"
                     for name in differs)
    return Problem(409, REPLACEMENT_ELSEWHERE,
                   f"the correction names another {' and '.join(differs)} than game "
                   f"{old}: {said}; nothing was stored. To move the game, send it again "
                   "with relocate=true", differs=differs)


def _shown(value: Any) -> str:
    return "none" if value is None else repr(str(value))


def replacement_refused(done: Replacement, old: str) -> Problem | None:
    """Why a replacement (``Store.replace_game``) changed nothing, as its problem; None
    when it was done.  A single upload and a batch line say the same."""
    if done.outcome == "no-game":
        return Problem(404, NOT_FOUND, f"there is no game {old[:64]!r} to replace; nothing "
                                       "was stored")
    if done.outcome == "same-game":
        return Problem(409, REPLACES_ITSELF, f"this log is the one of game {old}: a "
                                             "correction is a changed log; nothing changed")
    if done.outcome == "deleted":
        return _deleted(409, done.deletion, "the game to replace was withdrawn before; "
                                            "nothing was stored")
    if done.outcome == "new-deleted":
        return _deleted(409, done.deletion, REUPLOADED + "; nothing was withdrawn")
    return None


@blp.route("/<game_id:game_id>", methods=["GET"])
@read_access
@blp.response(200, GameSchema)
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="A stored game: its metadata and verification report",
         description="A deleted game answers 410, a problem of type game-deleted naming "
                     "who deleted it, when, and why (deleted_by, deleted_at, reason).")
def get_game(game_id: str) -> dict[str, Any]:
    row = current_store().get_game(game_id)
    if row is None:
        raise _not_found(game_id)
    tournament = tournament_of(row["tournament_id"], row["tournament_round"],
                               row["tournament_table"])
    return {**row, "tournament": tournament, "rules": orjson.loads(row["rules"]),
            "meta": orjson.loads(row["meta"]) if row["meta"] is not None else None,
            "report": orjson.loads(row["report"]), "links": links(game_id)}


@blp.route("/<game_id:game_id>", methods=["DELETE"])
@write_access
@blp.arguments(DeleteArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, DeletionSchema, description="Deleted now, or deleted before (the first "
              "deletion stands: the same answer)", example={
                  "id": EXAMPLE_ID, "deleted_at": "2024-05-01T19:30:00Z",
                  "deleted_by": "key-3f2a9c0d1e4b", "reason": "uploaded twice"})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="Withdraw a stored game (a soft delete, kept for the audit trail)",
         description="The game leaves every listing, statistic, standing and export; its "
                     "rows stay, with who deleted it (the uploader label of the key) and "
                     "when, and the reason (a JSON body {\"reason\": ...}, or else the "
                     "query's 'reason'). "
                     "Reading it then answers 410 (problem game-deleted); uploading the "
                     "same log again answers 409 and it stays deleted. Deleting it again "
                     "answers the first deletion.", requestBody={
             "required": False, "content": {"application/json": {"schema": {
                 "type": "object", "additionalProperties": False, "properties": {
                     "reason": {"type": "string", "minLength": 1,
                                "pattern": NOT_BLANK_PATTERN,
                                "maxLength": MAX_REASON_LENGTH}}}}}})
def delete_game(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    reason = query_reason()
    if request.content_length or request.headers.get("Transfer-Encoding"):
        body = _reason_body()
        if body is not None:  # the body's reason, when both are sent
            reason = body
    answer = None
    if len(game_id) <= 64:
        answer = current_store().delete_game(game_id, g.uploader, reason, datetime.now(UTC))
    if answer is None:
        raise Problem(404, NOT_FOUND, f"there is no game {game_id[:64]!r}")
    deletion, _ = answer
    return deletion


def query_reason() -> str | None:
    """The ``reason`` of the query as the director gave it, or None without one; a 400
    problem when it is not one: given twice (which one would be kept?), not valid UTF-8
    once percent-decoded (read leniently it would be stored as the escapes' text), or
    not held to the rule (``director_reason``)."""
    values = []
    for part in request.query_string.split(b"&"):
        key, _, value = part.partition(b"=")
        if unquote_to_bytes(key.replace(b"+", b" ")) != b"reason":
            continue
        try:
            values.append(unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8"))
        except UnicodeDecodeError:
            raise _query_reason_refused("not valid UTF-8 once percent-decoded") from None
    if len(values) > 1:
        raise _query_reason_refused("given more than once")
    if not values:
        return None
    reason = director_reason(values[0])
    if reason is None:
        raise _query_reason_refused(REASON_RULE)
    return reason


def _query_reason_refused(message: str) -> Problem:
    return Problem(400, INVALID_PARAMETER, f"the query's reason: {message}",
                   errors={"reason": [message]})


def _reason_body() -> str | None:
    """The ``reason`` of a JSON body, if one was sent; a 400 problem if it is not one (a
    body naming its reason twice included: which one would be kept?)."""
    require_media_type(JSON_TYPES)
    limit = 64 << 10
    raw = read_body(limit)
    if not raw.strip():
        return None
    try:
        body = load_json(raw, limit)
    except LogValidationError:
        body = None
    reason = body.get("reason") if isinstance(body, dict) else None
    cleaned = director_reason(reason)
    if not isinstance(body, dict) or set(body) - {"reason"} or ("reason" in body
                                                                and cleaned is None):
        raise Problem(400, INVALID_PARAMETER, "the body must be a JSON object "
                      f"{{\"reason\": \"...\"}} ({REASON_RULE})",
                      errors={"reason": [REASON_RULE]})
    return cleaned


@blp.route("/<game_id:game_id>/log", methods=["GET"])
@read_access
@blp.response(200, LOG_REF, description="The log exactly as it was uploaded")
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="The uploaded log, byte for byte")
def get_log(game_id: str) -> Response:
    raw = current_store().get_log(game_id)
    if raw is None:
        raise _not_found(game_id)
    return Response(raw, mimetype="application/json")


@blp.route("/<game_id:game_id>/deals/<int:deal>/moves/<int(signed=True):move>/state",
           methods=["GET"], parameters=[
               {"in": "path", "name": "move", "required": True, "description": "-1: as dealt",
                "schema": {"type": "integer", "minimum": -1}}])
@read_access
@blp.response(200, StateSchema)
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="The table after a move (move -1: as dealt)")
def get_state(game_id: str, deal: int, move: int) -> dict[str, Any]:
    """Replays the stored log to the position; a position the game does not have is a
    404 problem of type no-such-position."""
    game = stored_game(game_id)
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
@blp.doc(summary="Stored games, the last played first, filtered, a page at a time",
         description="By the time the game was played (`played_at`; the upload time when "
                     "the log has none), then the last uploaded first. Keyset pages "
                     "(`limit`, `cursor`, `Link: rel=\"next\"`): a game stored during a "
                     "walk lands before or after the walk's place, never twice.")
def list_games(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    config = settings()
    limit = args.get("limit", config.page_size)
    filters = {name: args.get(name) for name in FILTERS}
    before = decode_key_cursor(args["cursor"], "games", filters, GAMES_KEY).key[0] \
        if "cursor" in args else None
    rows = current_store().list_games(GameFilter(**filters), limit + 1, before)
    more = len(rows) > limit
    rows = rows[:limit]
    games = [{**row, "tournament": tournament_of(row["tournament_id"], row["tournament_round"],
                                                 row["tournament_table"]),
              "links": {"self": game_url(row["id"])}} for row in rows]
    body: dict[str, Any] = {"games": games, "next": None}
    headers: dict[str, str] = {}
    if more:
        query = {name: request.args[name] for name in FILTERS if name in request.args}
        body["next"] = url_for("games.list_games", **query, limit=limit,
                               cursor=encode_key_cursor("games", [rows[-1]["seq"]], filters))
        headers["Link"] = link_header(body["next"])
    return body, 200, headers

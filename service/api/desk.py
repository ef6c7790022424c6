"""The tournament desk: a director's rulings on games, and the games withdrawn.

``PUT /games/{id}/ruling`` records a ruling (write key), ``GET`` reads it with its
history, ``DELETE`` withdraws it; ``GET /tournaments/{id}/withdrawn`` lists the games
deleted or replaced; ``POST /tournaments/{id}/tables/{round}/{table}/keep`` keeps one
game of a re-entered table and withdraws the others in one transaction; ``POST
/games/{id}/restore`` undoes a withdrawal.  What a ruling makes a game count for, and which rulings each
verdict allows, is ``service.store.counting`` (docs/TOURNAMENTS.md).  A ruling never
changes the stored log or the engine's verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import g, request, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validates_schema
from marshmallow.validate import Length, OneOf, Range

from ..engine import LogValidationError, load_json
from ..engine.limits import MAX_ID_LENGTH, MAX_PLAYER_LENGTH, MAX_ROUND
from ..engine.logformat.names import name_problem
from ..store.counting import ALLOWED, FORFEIT, RANKINGS, RULINGS, TIE_BREAKS, allowed
from ..store.desk import (
    current_ruling,
    restoration_history,
    ruling_history,
    tournament_known,
    tournament_settings,
    withdrawn_games,
)
from ..store.schedule import game_off_schedule
from .auth import read_access, read_access_or_public, write_access
from .config import current_store
from .games import _not_found, _reason_body, game_url, query_reason
from .games_schemas import (
    MAX_REASON_LENGTH,
    NOT_BLANK_PATTERN,
    REASON_RULE,
    STATUSES,
    DeleteArgsSchema,
    DeletionSchema,
    ReasonField,
    UtcDateTime,
    director_reason,
)
from .intake import JSON_TYPES, read_body, require_media_type
from .problems import (
    INVALID_PARAMETER,
    NO_RULING,
    NOT_AT_TABLE,
    NOT_FOUND,
    NOT_WITHDRAWN,
    REPLACED,
    RULING_NOT_ALLOWED,
    VALIDATION_ERROR,
    Problem,
)
from .spec import PREFIX, problem_responses
from .tournaments import TOURNAMENT_PARAMETER, NoArgsSchema

blp = Blueprint("desk", __name__, url_prefix=PREFIX,
                description="The tournament desk: rulings and withdrawn games")

TABLE = "; ".join(f"{status}: {', '.join(rulings)}" for status, rulings in ALLOWED.items())
MEANINGS = " ".join(f"'{name}': {meaning}." for name, meaning in RULINGS.items())


class RulingSchema(Schema):
    ruling = fields.String(required=True, validate=OneOf(tuple(RULINGS)))
    against = fields.String(allow_none=True, metadata={
        "description": "forfeit: the player ruled against; null otherwise"})
    reason = fields.String(required=True)
    by = fields.String(allow_none=True, metadata={
        "description": "The uploader label of the write key used, null when writes are open"})
    at = UtcDateTime(required=True)


class RulingEntrySchema(RulingSchema):
    n = fields.Integer(required=True, metadata={"description": "1 for the first ruling"})
    withdrawn_at = UtcDateTime(allow_none=True)
    withdrawn_by = fields.String(allow_none=True)
    withdrawn_reason = fields.String(allow_none=True)


class RulingLinksSchema(Schema):
    self = fields.String(required=True)
    game = fields.String(required=True)


class RulingStateSchema(Schema):
    game = fields.String(required=True)
    status = fields.String(required=True, validate=OneOf(STATUSES), metadata={
        "description": "The engine's verdict, which no ruling changes"})
    allowed = fields.List(fields.String(), required=True, metadata={
        "description": "The rulings this verdict allows"})
    ruling = fields.Nested(RulingSchema, allow_none=True, required=True, metadata={
        "description": "The ruling in force; null when the last one was withdrawn"})
    history = fields.List(fields.Nested(RulingEntrySchema), required=True, metadata={
        "description": "Every ruling recorded, oldest first: each superseded by the next "
                       "unless withdrawn"})
    links = fields.Nested(RulingLinksSchema, required=True)


class WithdrawnSchema(Schema):
    id = fields.String(required=True)
    round = fields.Integer(allow_none=True)
    table = fields.String(allow_none=True)
    variant = fields.String(required=True)
    status = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    deleted_at = UtcDateTime(required=True)
    deleted_by = fields.String(allow_none=True)
    reason = fields.String(allow_none=True)
    replaced_by = fields.String(allow_none=True, metadata={
        "description": "The game stored in its place (POST /games?replaces=), or null "
                       "for a game deleted"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class WithdrawnListSchema(Schema):
    tournament = fields.String(required=True)
    withdrawn = fields.List(fields.Nested(WithdrawnSchema), required=True)


_EXAMPLE_ENTRY = {"ruling": "forfeit", "against": "ana", "reason": "discarded a card she "
                  "did not hold", "by": "key-3f2a9c0d1e4b", "at": "2024-05-12T18:00:00Z"}
EXAMPLE = {"game": "5d69bdc52cdd76ed28a89e91", "status": "illegal",
           "allowed": list(ALLOWED["illegal"]), "ruling": _EXAMPLE_ENTRY,
           "history": [{**_EXAMPLE_ENTRY, "n": 1, "withdrawn_at": None,
                        "withdrawn_by": None, "withdrawn_reason": None}],
           "links": {"self": f"{PREFIX}/games/5d69bdc52cdd76ed28a89e91/ruling",
                     "game": f"{PREFIX}/games/5d69bdc52cdd76ed28a89e91"}}
RULING_DESCRIPTION = (
    f"Rulings: {MEANINGS} Allowed by verdict: {TABLE}. A ruling settles its game's open "
    "matter in the tournament audit, never changes the stored log or the verdict, and is "
    "kept with who recorded it, when and why; a new ruling supersedes the one in force. "
    "A game whose players are not the ones its tournament's schedule seats at its round "
    "and table may also be ruled 'stands', whatever its verdict.")


def _game(game_id: str) -> dict[str, Any]:
    """The live game, or its 404/410 problem."""
    row = current_store().get_game(game_id) if len(game_id) <= 64 else None
    if row is None:
        raise _not_found(game_id)
    return row


def _allowed(row: dict[str, Any]) -> tuple[str, ...]:
    """The rulings the game's verdict allows (and ``stands`` when it is off its
    tournament's schedule)."""
    return allowed(row["status"], game_off_schedule(current_store(), row))


def _state(row: dict[str, Any]) -> dict[str, Any]:
    history = ruling_history(current_store(), row["id"])
    return {"game": row["id"], "status": row["status"], "allowed": list(_allowed(row)),
            "ruling": current_ruling(history), "history": history,
            "links": {"self": url_for("desk.get_ruling", game_id=row["id"]),
                      "game": game_url(row["id"])}}


def _invalid(field: str, message: str, what: str = "the ruling") -> Problem:
    return Problem(422, VALIDATION_ERROR, f"{what} is not valid: {field}: {message}",
                   errors={field: [message]})


def _json_body(keys: tuple[str, ...], what: str, shape: str,
               refuse: Callable[[str, str], Problem] | None = None) -> dict[str, Any]:
    """The JSON object of a small request body (64 KiB at most) holding only ``keys``,
    or the problem ``refuse(field, message)`` makes (by default a 422 naming ``what``
    is not valid)."""
    if refuse is None:
        def refuse(field: str, message: str) -> Problem:
            return _invalid(field, message, what)
    require_media_type(JSON_TYPES)
    raw = read_body(64 << 10)
    try:
        body = load_json(raw, 64 << 10)
    except LogValidationError as exc:
        repeated = next((path for path in exc.errors if path), None)
        if repeated is not None:  # valid JSON, but a key given twice: name it
            raise refuse(repeated, " ".join(exc.errors[repeated])) from None
        body = None
    if not isinstance(body, dict):
        raise refuse("$", shape)
    extra = set(body) - set(keys)
    if extra:
        raise refuse(sorted(extra)[0], "unknown field")
    return body


def _ruling_body(players: list[str]) -> tuple[str, str | None, str]:
    """The ruling, the player it is against and the reason of a PUT body, or a 422."""
    body = _json_body(("ruling", "reason", "against"), "the ruling",
                      "a JSON object {\"ruling\", \"reason\", \"against\"?}")
    ruling, reason, against = body.get("ruling"), body.get("reason"), body.get("against")
    if ruling not in RULINGS:
        raise _invalid("ruling", f"one of {', '.join(RULINGS)}")
    reason = director_reason(reason)
    if reason is None:
        raise _invalid("reason", REASON_RULE)
    if ruling == FORFEIT:
        if against not in players:
            raise _invalid("against", "a forfeit names the player it is against: one of "
                                      + ", ".join(players))
    elif against is not None:
        raise _invalid("against", f"only a forfeit is against a player, not {ruling}")
    return ruling, against, reason


RULING_PATH = "/games/<game_id:game_id>/ruling"


@blp.route(RULING_PATH, methods=["GET"])
@read_access
@blp.response(200, RulingStateSchema, example=EXAMPLE)
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="A game's ruling and its history",
         description="404 no-ruling when no ruling was ever recorded on the game. "
                     + RULING_DESCRIPTION)
def get_ruling(game_id: str) -> dict[str, Any]:
    state = _state(_game(game_id))
    if not state["history"]:
        raise Problem(404, NO_RULING, f"no ruling was recorded on game {game_id}")
    return state


@blp.route(RULING_PATH, methods=["PUT"])
@write_access
@blp.response(200, RulingStateSchema, example=EXAMPLE)
@problem_responses(blp, 401, 403, 404, 409, 410, 413, 415, 422)
@blp.doc(summary="Record a director's ruling on a game",
         description="A JSON body {\"ruling\", \"reason\", \"against\"} ('against': the "
                     "player a forfeit is against, and only then). 409 ruling-not-allowed "
                     "when the game's verdict does not allow it. " + RULING_DESCRIPTION,
         requestBody={"required": True, "content": {"application/json": {"schema": {
             "type": "object", "additionalProperties": False,
             "required": ["ruling", "reason"], "properties": {
                 "ruling": {"type": "string", "enum": list(RULINGS)},
                 "reason": {"type": "string", "minLength": 1,
                            "pattern": NOT_BLANK_PATTERN, "maxLength": MAX_REASON_LENGTH},
                 "against": {"type": "string", "nullable": True}}},
             "example": {"ruling": "forfeit", "against": "ana",
                         "reason": "discarded a card she did not hold"}}}})
def put_ruling(game_id: str) -> dict[str, Any]:
    row = _game(game_id)
    ruling, against, reason = _ruling_body(row["players"])
    rulings = _allowed(row)
    if ruling not in rulings:
        raise Problem(409, RULING_NOT_ALLOWED,
                      f"{_with_article(row['status'])} game allows {', '.join(rulings)}, "
                      f"not {ruling}",
                      allowed=list(rulings))
    if not current_store().set_ruling(row["id"], ruling, against, reason, g.uploader,
                                      datetime.now(UTC)):
        raise _not_found(game_id)  # withdrawn meanwhile
    return _state(row)


@blp.route(RULING_PATH, methods=["DELETE"])
@write_access
@blp.arguments(DeleteArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, RulingStateSchema)
@problem_responses(blp, 400, 401, 403, 404, 410)
@blp.doc(summary="Withdraw the ruling in force on a game",
         description="It stays in the history with who withdrew it, when and why (a JSON "
                     "body {\"reason\": ...}, or the query's 'reason'); the game's matter "
                     "is open again. 404 no-ruling when none is in force.")
def delete_ruling(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    row = _game(game_id)
    reason = query_reason()
    if request.content_length or request.headers.get("Transfer-Encoding"):
        body = _reason_body()
        if body is not None:
            reason = body
    if not current_store().withdraw_ruling(row["id"], g.uploader, reason, datetime.now(UTC)):
        raise Problem(404, NO_RULING, f"no ruling is in force on game {game_id}")
    return _state(row)


@blp.route("/tournaments/<name:tournament_id>/withdrawn", methods=["GET"],
           parameters=TOURNAMENT_PARAMETER)
@read_access_or_public
@blp.arguments(NoArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, WithdrawnListSchema)
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="The games withdrawn from a tournament: deleted or replaced",
         description="In the order they were withdrawn, with who withdrew each, when, why, "
                     "and the game that replaced it (null for a deletion). Each still "
                     "answers 410 at its own address.")
def get_withdrawn(_args: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    rows = None
    if 1 <= len(tournament_id) <= MAX_ID_LENGTH:
        rows = withdrawn_games(current_store(), tournament_id)
    if rows is None:
        raise Problem(404, NOT_FOUND, f"there is no tournament {tournament_id[:64]!r}")
    for row in rows:
        row["links"] = {"self": game_url(row["id"])}
        if row["replaced_by"] is not None:
            row["links"]["replaced_by"] = game_url(row["replaced_by"])
    return {"tournament": tournament_id, "withdrawn": rows}


# --------------------------------------------------------------------------- keep

class KeptSchema(Schema):
    tournament = fields.String(required=True)
    round = fields.Integer(required=True)
    table = fields.String(required=True)
    kept = fields.String(required=True, metadata={"description": "The game kept"})
    withdrawn = fields.List(fields.Nested(lambda: DeletionSchema()), required=True,
                            metadata={"description": "The other games of the table, "
                                                     "withdrawn now (none when the game "
                                                     "kept was the table's only one)"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


def _keep_body() -> tuple[str, str]:
    """The game to keep and the reason of a keep body, or a 422."""
    body = _json_body(("game", "reason"), "the body", "a JSON object {\"game\", \"reason\"}")
    game, reason = body.get("game"), body.get("reason")
    if not isinstance(game, str) or not 1 <= len(game) <= 64:
        raise _invalid("game", "the id of the game to keep", "the body")
    reason = director_reason(reason)
    if reason is None:
        raise _invalid("reason", REASON_RULE, "the body")
    return game, reason


@blp.route("/tournaments/<name:tournament_id>/tables/<int:round>/<name:table>/keep",
           methods=["POST"], parameters=[
               *TOURNAMENT_PARAMETER,
               {"in": "path", "name": "round", "required": True,
                "schema": {"type": "integer", "minimum": 0}},
               {"in": "path", "name": "table", "required": True,
                "schema": {"type": "string", "minLength": 1, "maxLength": MAX_ID_LENGTH}}])
@write_access
@blp.response(200, KeptSchema)
@problem_responses(blp, 401, 403, 404, 409, 413, 415, 422)
@blp.doc(summary="Keep one game of a re-entered table, withdrawing the others at once",
         description="A JSON body {\"game\", \"reason\"}. Every other live game of the "
                     "tournament's round and table is withdrawn in one transaction, all "
                     "or none, each with who (the write key's label), when and the "
                     "reason, as DELETE /games/{id} records it. 404 when the table has "
                     "no live game; 409 not-at-table, listing the table's live 'games', "
                     "when the game is not one of them (nothing is withdrawn). Keeping "
                     "the only game of a table withdraws nothing.",
         requestBody={"required": True, "content": {"application/json": {"schema": {
             "type": "object", "additionalProperties": False,
             "required": ["game", "reason"], "properties": {
                 "game": {"type": "string", "minLength": 1, "maxLength": 64},
                 "reason": {"type": "string", "minLength": 1,
                            "pattern": NOT_BLANK_PATTERN, "maxLength": MAX_REASON_LENGTH}}},
             "example": {"game": "5d69bdc52cdd76ed28a89e91",
                         "reason": "table 3 entered twice"}}}})
def keep_game(tournament_id: str, round: int, table: str) -> dict[str, Any]:
    game, reason = _keep_body()
    done = None
    if 1 <= len(tournament_id) <= MAX_ID_LENGTH and 1 <= len(table) <= MAX_ID_LENGTH:
        done = current_store().keep_game(tournament_id, round, table, game, g.uploader,
                                         reason, datetime.now(UTC))
    where = f"round {round}, table {table[:64]!r} of tournament {tournament_id[:64]!r}"
    if done is None:
        raise Problem(404, NOT_FOUND, f"no live game is at {where}; nothing was withdrawn")
    games, withdrawn = done
    if game not in games:
        raise Problem(409, NOT_AT_TABLE, f"game {game[:64]!r} is not a live game of {where} "
                      f"(its games: {', '.join(games)}); nothing was withdrawn",
                      games=games, links={"games": [game_url(gid) for gid in games]})
    return {"tournament": tournament_id, "round": round, "table": table, "kept": game,
            "withdrawn": withdrawn,
            "links": {"kept": game_url(game),
                      "withdrawn": url_for("desk.get_withdrawn", tournament_id=tournament_id),
                      "tournament": url_for("tournaments.get_tournament",
                                            tournament_id=tournament_id)}}


# --------------------------------------------------------------------------- restore

class RestoredSchema(Schema):
    """One restoration of a game: who restored it, when and why, and the withdrawal it
    undid."""

    n = fields.Integer(required=True, metadata={"description": "1 for the game's first "
                                                               "restoration"})
    restored_at = UtcDateTime(required=True)
    restored_by = fields.String(allow_none=True, required=True, metadata={
        "description": "The uploader label of the write key used, null when writes are open"})
    reason = fields.String(required=True)
    deleted_at = UtcDateTime(required=True, metadata={
        "description": "When the withdrawal undone was made"})
    deleted_by = fields.String(allow_none=True, required=True)
    deleted_reason = fields.String(allow_none=True, required=True, metadata={
        "description": "The withdrawal's reason"})
    replaced_by = fields.String(allow_none=True, required=True, metadata={
        "description": "The correction that had replaced the game (withdrawn since), or "
                       "null for a game deleted"})


class RestorationSchema(RestoredSchema):
    id = fields.String(required=True, metadata={"description": "The game restored"})
    warning = fields.String(allow_none=True, required=True, metadata={
        "description": "Set when other live games hold the game's tournament round and "
                       "table: the table is re-entered (duplicate_table), held out of the "
                       "standings until all but one are withdrawn"})
    at_table = fields.List(fields.String(), required=True, metadata={
        "description": "Those other live games of the round and table, in upload order "
                       "(none: no warning)"})
    restorations = fields.List(fields.Nested(RestoredSchema), required=True, metadata={
        "description": "Every restoration of the game, oldest first, this one last"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class RestorationsSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The game"})
    restorations = fields.List(fields.Nested(RestoredSchema), required=True, metadata={
        "description": "Every restoration of the game, oldest first; empty when it was "
                       "never withdrawn and restored"})
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


def _restore_refused(field: str, message: str) -> Problem:
    field = field[:64]
    return Problem(400, INVALID_PARAMETER, f"the body must be a JSON object {{\"reason\": "
                   f"\"...\"}} (1 to {MAX_REASON_LENGTH} characters): {field}: {message}",
                   errors={field: [message]})


def _restore_body() -> str:
    """The reason of a restore body, or a 400 problem naming what is wrong."""
    body = _json_body(("reason",), "the body", "a JSON object {\"reason\"}",
                      _restore_refused)
    reason = director_reason(body.get("reason"))
    if reason is None:
        raise _restore_refused("reason", REASON_RULE)
    return reason


@blp.route("/games/<game_id:game_id>/restorations", methods=["GET"])
@read_access
@blp.response(200, RestorationsSchema, example={
    "id": "5d69bdc52cdd76ed28a89e91", "restorations": [{
        "n": 1, "restored_at": "2024-05-12T18:30:00Z", "restored_by": "key-3f2a9c0d1e4b",
        "reason": "withdrawn by mistake: table 3 was B",
        "deleted_at": "2024-05-12T18:00:00Z", "deleted_by": "key-3f2a9c0d1e4b",
        "deleted_reason": "uploaded twice", "replaced_by": None}],
    "links": {"self": f"{PREFIX}/games/5d69bdc52cdd76ed28a89e91/restorations",
              "game": f"{PREFIX}/games/5d69bdc52cdd76ed28a89e91"}})
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="A live game's restorations",
         description="Every withdrawal of the game that was undone, oldest first: who "
                     "restored it, when and why, with the withdrawal it undid. An empty "
                     "list for a game never withdrawn. A game withdrawn now answers 410, "
                     "with its earlier restorations in the problem ('restorations').")
def get_restorations(game_id: str) -> dict[str, Any]:
    _game(game_id)
    return {"id": game_id, "restorations": restoration_history(current_store(), game_id),
            "links": {"self": url_for("desk.get_restorations", game_id=game_id),
                      "game": game_url(game_id)}}


@blp.route("/games/<game_id:game_id>/restore", methods=["POST"])
@write_access
@blp.response(200, RestorationSchema, example={
    "id": "5d69bdc52cdd76ed28a89e91", "n": 1, "restored_at": "2024-05-12T18:30:00Z",
    "restored_by": "key-3f2a9c0d1e4b", "reason": "withdrawn by mistake: table 3 was B",
    "deleted_at": "2024-05-12T18:00:00Z", "deleted_by": "key-3f2a9c0d1e4b",
    "deleted_reason": "uploaded twice", "replaced_by": None, "warning": None,
    "at_table": [], "restorations": [{
        "n": 1, "restored_at": "2024-05-12T18:30:00Z", "restored_by": "key-3f2a9c0d1e4b",
        "reason": "withdrawn by mistake: table 3 was B",
        "deleted_at": "2024-05-12T18:00:00Z", "deleted_by": "key-3f2a9c0d1e4b",
        "deleted_reason": "uploaded twice", "replaced_by": None}],
    "links": {"self": f"{PREFIX}/games/5d69bdc52cdd76ed28a89e91"}})
@problem_responses(blp, 400, 401, 403, 404, 409, 413, 415)
@blp.doc(summary="Restore a withdrawn game: it counts again",
         description="A JSON body {\"reason\"}. The game withdrawn (DELETE /games/{id}, a "
                     "replacement or a keep) is live again: in the listings, standings, "
                     "statistics, crosstables, exports, and in the ratings, which are "
                     "replayed from its place as if it had never been withdrawn. The "
                     "withdrawal stays in the audit trail: it is kept with the restoration "
                     "(who, when, why) in 'restorations'. 409 not-withdrawn when the game "
                     "is live; 409 replaced when a correction replaced it and is still live "
                     "('replaced_by': withdraw it first). When other live games hold the "
                     "game's tournament round and table, it is restored all the same and "
                     "the answer says so in 'warning', with those games in 'at_table': the "
                     "table is re-entered, out of the standings until settled.",
         requestBody={"required": True, "content": {"application/json": {"schema": {
             "type": "object", "additionalProperties": False, "required": ["reason"],
             "properties": {"reason": {"type": "string", "minLength": 1,
                                       "pattern": NOT_BLANK_PATTERN,
                                       "maxLength": MAX_REASON_LENGTH}}},
             "example": {"reason": "withdrawn by mistake: table 3 was B"}}}})
def restore_game(game_id: str) -> dict[str, Any]:
    reason = _restore_body()
    done = None
    if len(game_id) <= 64:
        done = current_store().restore_game(game_id, g.uploader, reason, datetime.now(UTC))
    if done is None or done.outcome == "no-game":
        raise Problem(404, NOT_FOUND, f"there is no game {game_id[:64]!r}")
    if done.outcome == "not-withdrawn":
        raise Problem(409, NOT_WITHDRAWN, f"game {game_id} is not withdrawn: it counts "
                      "already; nothing changed", links={"self": game_url(game_id)})
    if done.outcome == "replaced":
        live = done.replaced_by
        raise Problem(409, REPLACED, f"game {game_id} was replaced by a corrected log, "
                      f"game {live}, which is live: withdraw game {live} first, then "
                      "restore this one; nothing changed", replaced_by=live,
                      links={"self": game_url(game_id), "replaced_by": game_url(live)})
    restored = done.restoration
    assert restored is not None
    warning = None
    if done.at_table:
        one = len(done.at_table) == 1
        warning = (f"{len(done.at_table)} other live game{'' if one else 's'} "
                   f"hold{'s' if one else ''} this round and table "
                   f"({', '.join(done.at_table)}): the table is re-entered, and none of "
                   "its games counts in the standings until all but one are withdrawn")
    return {**restored, "warning": warning, "at_table": done.at_table,
            "restorations": restoration_history(current_store(), game_id),
            "links": {"self": game_url(game_id)}}


# --------------------------------------------------------------------------- settings

class DatesSchema(Schema):
    start = fields.Date(required=True)
    end = fields.Date(required=True)

    @validates_schema
    def _ordered(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if data["end"] < data["start"]:
            raise ValidationError("the end is before the start", "end")


class MatchPointsSchema(Schema):
    win = fields.Integer(strict=True, load_default=2, validate=Range(-1000, 1000))
    draw = fields.Integer(strict=True, load_default=1, validate=Range(-1000, 1000))
    loss = fields.Integer(strict=True, load_default=0, validate=Range(-1000, 1000))


class StrictBoolean(fields.Boolean):
    """true or false, and nothing a loose reading takes for one ("yes", 1)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise ValidationError("true or false")
        return value


def _distinct(values: list[str]) -> None:
    if len(set(values)) != len(values):
        raise ValidationError("each tie-break once")


MAX_SCHEDULE = 5000  # scheduled tables: 500 tables a round for 10 rounds


class TableField(fields.Field):
    """A table as the logs' ``tournament.table`` names it: a name (1 to 128 characters),
    or a positive integer, read as its decimal text (3 is the table "3")."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 1:
                raise ValidationError("a positive integer or a name")
            value = str(value)
        if not isinstance(value, str) or not 1 <= len(value) <= MAX_ID_LENGTH:
            raise ValidationError(f"a positive integer or a name of 1 to {MAX_ID_LENGTH} "
                                  "characters")
        problem = name_problem(value)
        if problem is not None:
            raise ValidationError(problem)
        return value


def _player_name(value: str) -> None:
    problem = name_problem(value, in_paths=True)
    if problem is not None:
        raise ValidationError(problem)


def _distinct_players(values: list[str]) -> None:
    if len(set(values)) != len(values):
        raise ValidationError("each player once at a table")


class ScheduleEntrySchema(Schema):
    round = fields.Integer(strict=True, required=True, validate=Range(1, MAX_ROUND))
    table = TableField(required=True, metadata={
        "oneOf": [{"type": "integer", "minimum": 1},
                  {"type": "string", "minLength": 1, "maxLength": MAX_ID_LENGTH}],
        "description": "As the logs' tournament.table names it: a positive integer is read "
                       "as its decimal text (3 is the table \"3\")"})
    players = fields.List(
        fields.String(validate=[Length(1, MAX_PLAYER_LENGTH), _player_name]),
        required=True, validate=[Length(2, 4), _distinct_players], metadata={
            "uniqueItems": True, "description": "2 to 4 distinct names, compared with a game's players exactly "
                           "as stored, in any order"})
    not_played = ReasonField(allow_none=True, load_default=None, metadata={
        "description": "Why the table was not played (a reason, held to the rule of every "
                       "reason of the desk, stored stripped): it is then no missing_table; "
                       "null: to be played"})


class ScheduleField(fields.List):
    """The schedule's entries, each (round, table) once; the duplicate's error is on its
    own entry (``schedule.<n>.table``), beside the entries' other errors."""

    def _deserialize(self, value: Any, attr: str | None, data: Any,
                     **kwargs: Any) -> list[dict[str, Any]]:
        twice = _scheduled_twice(value)
        try:
            entries = super()._deserialize(value, attr, data, **kwargs)
        except ValidationError as error:
            if not twice or not isinstance(error.messages, dict):
                raise
            messages: dict[Any, Any] = dict(error.messages)
            for n, message in twice.items():
                entry = messages.setdefault(n, {})
                if isinstance(entry, dict):
                    entry.setdefault("table", []).append(message)
            raise ValidationError(messages) from error
        if twice:
            raise ValidationError({n: {"table": [message]} for n, message in twice.items()})
        return entries


def _scheduled_twice(value: Any) -> dict[int, str]:
    """The entries of a schedule (as sent) naming a round and table an earlier entry
    names, by position, with the message; a table given as a number is its text."""
    if not isinstance(value, list):
        return {}
    seen: dict[tuple[int, str], int] = {}
    out: dict[int, str] = {}
    for n, entry in enumerate(value):
        if not isinstance(entry, dict):
            continue
        round_, table = entry.get("round"), entry.get("table")
        if type(round_) is not int or type(table) not in (int, str):
            continue
        key = (round_, str(table))
        if key in seen:
            out[n] = f"round {key[0]}, table {key[1]} is scheduled already (entry {seen[key]})"
        seen.setdefault(key, n)
    return out


class SettingsSchema(Schema):
    """A tournament's settings; what a PUT leaves out takes its default."""

    name = fields.String(allow_none=True, load_default=None, validate=Length(1, 200))
    dates = fields.Nested(DatesSchema, metadata={
        "description": "The first and last day, as dates (2024-05-11); left out: none"})
    venue = fields.String(allow_none=True, load_default=None, validate=Length(1, 200))
    ranking = fields.String(load_default="points", validate=OneOf(RANKINGS), metadata={
        "description": "points: total points (the default); wins: games credited as won; "
                       "match_points: 'match_points' per win, draw and loss"})
    match_points = fields.Nested(MatchPointsSchema, load_default=lambda: {
        "win": 2, "draw": 1, "loss": 0}, metadata={
        "description": "Points for a win, a draw (a counted game nobody won) and a loss"})
    tie_breaks = fields.List(fields.String(validate=OneOf(TIE_BREAKS)), load_default=list,
                             validate=_distinct, metadata={
                                 "description": "Applied in order among tied players: "
                                                "head_to_head (wins in games against "
                                                "the other tied players), points, wins, "
                                                "points_difference (own points less the "
                                                "opponents' average, summed)"})
    schedule = ScheduleField(fields.Nested(ScheduleEntrySchema), validate=Length(max=MAX_SCHEDULE),
                             metadata={
        "description": "Optional: who sits at each table of each round (at most "
                       f"{MAX_SCHEDULE} tables). A live game of a scheduled round and table "
                       "played by other players is an open matter (schedule_mismatch; it "
                       "counts for nothing until ruled), and so is a scheduled table with "
                       "no live game once its round is over (missing_table: a game of a "
                       "later round is stored, or the last day has passed) unless marked "
                       "not_played. Left out or empty: no schedule, and no such matter"})
    public = StrictBoolean(load_default=False, metadata={
        "description": "true: this tournament's answers and pages (GET /tournaments/{id}, "
                       "its report.csv, crosstable, withdrawn games and settings) are "
                       "readable without a read key even when the server requires one; "
                       "its games and players still need the key"})

    @post_load
    def _no_empty_schedule(self, data: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
        if data.get("schedule") == []:  # an empty schedule is none: the answers as before
            del data["schedule"]
        return data


class SettingsAnswerSchema(SettingsSchema):
    tournament = fields.String(required=True)
    dates = fields.Nested(DatesSchema, allow_none=True, metadata={
        "description": "The first and last day; null when not set"})
    updated_at = UtcDateTime(allow_none=True)
    updated_by = fields.String(allow_none=True)
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


SETTINGS_PATH = "/tournaments/<name:tournament_id>/settings"
DEFAULTS = SettingsSchema().load({})


def settings_answer(tournament_id: str) -> dict[str, Any]:
    stored = tournament_settings(current_store(), tournament_id)
    values = DEFAULTS if stored is None else \
        SettingsSchema().load(orjson.loads(stored["settings"]), unknown=RAISE)
    return {"tournament": tournament_id, "dates": None, **values,
            "updated_at": None if stored is None else stored["updated_at"],
            "updated_by": None if stored is None else stored["updated_by"],
            "links": {"self": url_for("desk.get_settings", tournament_id=tournament_id),
                      "tournament": url_for("tournaments.get_tournament",
                                            tournament_id=tournament_id)}}


@blp.route(SETTINGS_PATH, methods=["GET"], parameters=TOURNAMENT_PARAMETER)
@read_access_or_public
@blp.arguments(NoArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, SettingsAnswerSchema)
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="A tournament's settings (the defaults until set)")
def get_settings(_args: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    if not (1 <= len(tournament_id) <= MAX_ID_LENGTH
            and tournament_known(current_store(), tournament_id)):
        raise Problem(404, NOT_FOUND, f"there is no tournament {tournament_id[:64]!r}")
    return settings_answer(tournament_id)


@blp.route(SETTINGS_PATH, methods=["PUT"], parameters=TOURNAMENT_PARAMETER)
@write_access
@blp.arguments(SettingsSchema, location="json", unknown=RAISE, error_status_code=422)
@blp.response(200, SettingsAnswerSchema)
@problem_responses(blp, 401, 403, 404, 413, 415, 422)
@blp.doc(summary="Set a tournament's name, dates, venue, ranking and tie-breaks",
         description="The whole settings: a field left out takes its default. The "
                     "standings of GET /tournaments/{id} rank by them from now on; the "
                     "defaults (ranking by total points, no tie-break) rank as before.")
def put_settings(settings: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    require_media_type(JSON_TYPES)
    if not request.get_data():
        raise _invalid("$", "a JSON object of settings ({} for the defaults)", "the body")
    if not 1 <= len(tournament_id) <= MAX_ID_LENGTH:
        raise Problem(404, NOT_FOUND, f"there is no tournament {tournament_id[:64]!r}")
    stored = SettingsSchema().dump(settings)
    current_store().put_settings(tournament_id, orjson.dumps(stored), g.uploader,
                                 datetime.now(UTC))
    return settings_answer(tournament_id)


def _with_article(word: str) -> str:
    """``word`` after "a" or "an", as it is said ("an illegal", "a mismatch")."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"

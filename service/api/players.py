"""/players: a player's statistics, the leaderboard, head-to-head records.

Figures are defined in docs/STATISTICS.md and computed by service.store.stats; this
module only reads the query, calls the store and shapes the answer.
"""

from __future__ import annotations

from typing import Any

from flask import request, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields
from marshmallow.validate import OneOf

from ..engine.limits import MAX_ID_LENGTH, MAX_PLAYER_LENGTH
from ..engine.rules import PRESETS
from ..store.snapshots import Walk
from ..store.stats import (
    ORDERS,
    SORT_KEYS,
    StatsFilter,
    head_to_head,
    leaderboard,
    player_months,
    player_stats,
)
from .auth import read_access
from .backlog import ANALYSIS_FIELD, analysis_progress
from .config import current_store, settings
from .games_schemas import (
    LEVEL_DOC,
    Instant,
    TournamentSchema,
    UtcDateTime,
    _page_limit,
    between,
    cursor_field,
    instant_doc,
    named,
)
from .pagination import Part, decode_key_cursor, encode_key_cursor, link_header
from .problems import INVALID_PARAMETER, NOT_FOUND, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("players", __name__, url_prefix=f"{PREFIX}/players",
                description="Player statistics, leaderboard and head-to-head")

FILTERS = ("variant", "since", "until", "tournament")
BOARD_KEY = (Part.NUMBER, Part.TEXT, Part.COUNT)  # the sort key's value, player, rank


class FilterArgsSchema(Schema):
    variant = fields.String(validate=OneOf(tuple(PRESETS)))
    since = Instant(metadata=instant_doc("2024-05-01", "Games played (else uploaded) at or "
                                                       "after"))
    until = Instant(metadata=instant_doc("2024-06-01", "Games played (else uploaded) before"))
    tournament = fields.String(validate=named(MAX_ID_LENGTH))


class LeaderboardArgsSchema(FilterArgsSchema):
    sort = fields.String(load_default="wins", validate=OneOf(tuple(SORT_KEYS)))
    order = fields.String(load_default="desc", validate=OneOf(tuple(ORDERS)))
    min_games = fields.Integer(load_default=0, validate=between(0, 10**9))
    limit = fields.Integer(validate=_page_limit, metadata={"minimum": 1})
    cursor = cursor_field()


class VariantFiguresSchema(Schema):
    games = fields.Integer(metadata={"description": "Finished games"})
    won = fields.Integer()
    lost = fields.Integer()
    win_rate = fields.Float()
    deals = fields.Integer(metadata={"description": "Scored deals"})
    deals_won = fields.Integer()
    points_scored = fields.Integer()
    points_conceded = fields.Integer()
    points_per_deal = fields.Float()
    won_out = fields.Integer(metadata={"description": "Rummy family"})
    won_rummy = fields.Integer(metadata={"description": "Rummy family"})
    won_blocked = fields.Integer(metadata={"description": "Rummy family"})
    avg_hand_left_when_losing = fields.Float(allow_none=True)
    gins = fields.Integer(metadata={"description": "Gin"})
    knocks = fields.Integer(metadata={"description": "Gin: every knock without gin (won, "
                                                     "undercut or tied)"})
    knocks_won = fields.Integer(metadata={"description": "Gin: knocks that won the deal"})
    undercuts_made = fields.Integer(metadata={"description": "Gin"})
    undercuts_suffered = fields.Integer(metadata={"description": "Gin"})
    avg_deadwood_at_knock = fields.Float(allow_none=True)
    boxes = fields.Integer(metadata={"description": "Gin"})
    shutouts = fields.Integer(metadata={"description": "Gin"})
    violations = fields.Dict(keys=fields.String(), values=fields.Integer())


class PlayerStatsSchema(Schema):
    player = fields.String(required=True)
    variants = fields.Dict(keys=fields.String(), values=fields.Nested(VariantFiguresSchema))


class MonthSchema(Schema):
    month = fields.String(required=True, metadata={"example": "2024-05",
                                                   "description": "UTC, by game time"})
    games = fields.Integer(required=True, metadata={"description": "Finished games"})
    won = fields.Integer(required=True)
    deals = fields.Integer(required=True, metadata={"description": "Scored deals"})
    points = fields.Integer(required=True, metadata={"description": "Deal points scored"})
    points_per_deal = fields.Float(required=True)


class PlayerMonthsSchema(Schema):
    player = fields.String(required=True)
    variants = fields.Dict(keys=fields.String(), values=fields.List(fields.Nested(MonthSchema)),
                           metadata={"description": "Each variant's months, oldest first"})


class LeaderRowSchema(Schema):
    rank = fields.Integer()
    player = fields.String()
    games = fields.Integer()
    wins = fields.Integer()
    win_rate = fields.Float()
    deals = fields.Integer()
    points_per_deal = fields.Float()
    rating = fields.Float(allow_none=True, metadata={
        "description": "With a variant: the player's rating there, mu - 3 sigma "
                       "(docs/RATINGS.md); null when not rated"})
    accuracy = fields.Float(allow_none=True, metadata={
        "description": "Move analysis (docs/ANALYSIS.md): percent of decisions without "
                       "an error; null when no game of the player is analysed"})
    discard_error = fields.Float(allow_none=True, metadata={
        "description": "Average discard error per decision, in points"})
    errors = fields.Float(allow_none=True, metadata={
        "description": "Errors (every fact but fed cards) per 100 decisions"})
    luck = fields.Float(allow_none=True, metadata={
        "description": "Luck points per scored deal; null when no luck is stored"})
    luck_adjusted = fields.Float(allow_none=True, metadata={
        "description": "Luck-adjusted points per scored deal"})
    decision_loss = fields.Float(allow_none=True, metadata={
        "description": "Two-player gin: expected deal points given away per decision "
                       "judged by the evaluator (docs/ANALYSIS.md, Decision loss); null "
                       "when none is judged"})
    decision_accuracy = fields.Float(allow_none=True, metadata={
        "description": "Two-player gin: the evaluator's accuracy over those decisions, "
                       "percent"})


class LeaderboardSchema(Schema):
    players = fields.List(fields.Nested(LeaderRowSchema))
    next = fields.String(allow_none=True)
    analysis = ANALYSIS_FIELD


class RecentGameSchema(Schema):
    id = fields.String()
    variant = fields.String()
    status = fields.String()
    verification = fields.String(metadata={"description": LEVEL_DOC})
    winner = fields.String(allow_none=True)
    game_time = UtcDateTime()
    tournament = fields.Nested(TournamentSchema, allow_none=True, metadata={
        "description": "The log's tournament {id, round, table}, as in every answer"})
    points = fields.Dict(keys=fields.String(), values=fields.Integer(allow_none=True))


class VersusSchema(Schema):
    players = fields.List(fields.String())
    games = fields.Integer(metadata={"description": "Games they played as opponents"})
    finished = fields.Integer()
    wins = fields.Dict(keys=fields.String(), values=fields.Integer())
    points = fields.Dict(keys=fields.String(), values=fields.Integer())
    recent = fields.List(fields.Nested(RecentGameSchema))


def _player(name: str) -> str:
    if not 1 <= len(name) <= MAX_PLAYER_LENGTH:
        raise Problem(400, INVALID_PARAMETER, "a player id has 1 to 64 characters",
                      errors={"player": ["1 to 64 characters"]})
    return name


def _filter(args: dict[str, Any]) -> StatsFilter:
    return StatsFilter(**{name: args.get(name) for name in FILTERS})


PLAYER_PARAMETER = {"type": "string", "minLength": 1, "maxLength": MAX_PLAYER_LENGTH}


def _path(*names: str) -> list[dict[str, Any]]:
    return [{"in": "path", "name": name, "required": True, "schema": PLAYER_PARAMETER}
            for name in names]


@blp.route("/<name:player>/stats", methods=["GET"], parameters=_path("player"))
@read_access
@blp.arguments(FilterArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, PlayerStatsSchema, example={"player": "ana", "variants": {"gin": {
    "games": 12, "won": 7, "lost": 5, "win_rate": 0.5833, "deals": 96, "deals_won": 51,
    "points_scored": 1210, "points_conceded": 980, "points_per_deal": 12.6, "gins": 6,
    "knocks": 44, "knocks_won": 40, "undercuts_made": 5, "undercuts_suffered": 4,
    "avg_deadwood_at_knock": 6.8, "boxes": 51, "shutouts": 1, "violations": {}}}})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="A player's statistics, by variant (docs/STATISTICS.md)",
         description="404 when no stored game matches the player with the filters.")
def stats(args: dict[str, Any], player: str) -> dict[str, Any]:
    figures = player_stats(current_store(), _player(player), _filter(args))
    if not figures:
        raise Problem(404, NOT_FOUND, f"no stored game matches player {player[:64]!r} "
                      "with these filters")
    return {"player": player, "variants": figures}


@blp.route("/<name:player>/months", methods=["GET"], parameters=_path("player"))
@read_access
@blp.arguments(FilterArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, PlayerMonthsSchema, example={"player": "ana", "variants": {"gin": [
    {"month": "2024-04", "games": 3, "won": 2, "deals": 11, "points": 140,
     "points_per_deal": 12.73},
    {"month": "2024-05", "games": 2, "won": 1, "deals": 8, "points": 77,
     "points_per_deal": 9.63}]}})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="A player's figures month by month, by variant (docs/STATISTICS.md)",
         description="404 when no stored game matches the player with the filters.")
def months(args: dict[str, Any], player: str) -> dict[str, Any]:
    figures = player_months(current_store(), _player(player), _filter(args))
    if not figures:
        raise Problem(404, NOT_FOUND, f"no stored game matches player {player[:64]!r} "
                      "with these filters")
    return {"player": player, "variants": figures}


@blp.route("", methods=["GET"])
@read_access
@blp.arguments(LeaderboardArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, LeaderboardSchema, example={"players": [
    {"rank": 1, "player": "ana", "games": 7, "wins": 4, "win_rate": 0.5714, "deals": 7,
     "points_per_deal": 39.57, "rating": 3.21, "accuracy": 91.3, "discard_error": 0.412,
     "errors": 9.57, "luck": 4.18, "luck_adjusted": 35.39, "decision_loss": 0.0841,
     "decision_accuracy": 97.62},
    {"rank": 2, "player": "ben", "games": 7, "wins": 2, "win_rate": 0.2857, "deals": 7,
     "points_per_deal": 6.0, "rating": -1.87, "accuracy": 84.62, "discard_error": 1.077,
     "errors": 17.31, "luck": -4.18, "luck_adjusted": 10.18, "decision_loss": 0.2013,
     "decision_accuracy": 93.4}], "next": None,
    "analysis": {"backlog": 0, "complete": True, "running": True}},
    headers={"Link": {
    "description": 'RFC 8288: <next page>; rel="next" when there are more players',
    "schema": {"type": "string"}}})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Leaderboard: players ranked by wins, win rate, points per deal, games, "
                 "rating or a move-analysis figure",
         description="`sort=rating` needs a `variant` and lists the players rated there. "
                     "The move-analysis keys (`accuracy`, `discard_error`, `errors`, "
                     "`luck`, `luck_adjusted`, `decision_loss`, `decision_accuracy`; "
                     "docs/ANALYSIS.md) list only the players with analysed games (for "
                     "`luck` and `luck_adjusted`: with stored luck; for the decision "
                     "keys: with two-player gin decisions judged); each row carries "
                     "those figures, null when the player has "
                     "none. They are over the games analysed so far: `analysis` says how "
                     "many stored games are not analysed yet.")
def board(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    limit = args.get("limit", settings().page_size)
    scope = {name: args.get(name) for name in (*FILTERS, "sort", "order", "min_games")}
    after = None
    rank = 0
    if args["sort"] == "rating" and args.get("variant") is None:
        raise Problem(400, INVALID_PARAMETER, "sort=rating needs a variant: ratings are "
                      "kept per variant", errors={"variant": ["required with sort=rating"]})
    walk = Walk()
    if "cursor" in args:
        at = decode_key_cursor(args["cursor"], "players", scope, BOARD_KEY)
        value, player, rank = at.key
        after, walk = (value, player), Walk(at.snapshot)
    rows = leaderboard(current_store(), _filter(args), args["sort"], args["order"],
                       args["min_games"], limit + 1, after, walk)
    more = len(rows) > limit
    rows = rows[:limit]
    for offset, row in enumerate(rows, start=rank + 1):
        row["rank"] = offset
    body: dict[str, Any] = {"players": rows, "next": None,
                            "analysis": analysis_progress(current_store())}
    headers: dict[str, str] = {}
    if more:
        last = rows[-1]
        query = {k: request.args[k] for k in scope if k in request.args}
        body["next"] = url_for("players.board", **query, limit=limit, cursor=encode_key_cursor(
            "players", [last[args["sort"]], last["player"], last["rank"]], scope, walk.snapshot))
        headers["Link"] = link_header(body["next"])
    return body, 200, headers


@blp.route("/<name:a>/versus/<name:b>", methods=["GET"], parameters=_path("a", "b"))
@read_access
@blp.arguments(FilterArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, VersusSchema, example={
    "players": ["ana", "ben"], "games": 8, "finished": 7, "wins": {"ana": 4, "ben": 2},
    "points": {"ana": 517, "ben": 162}, "recent": [{
        "id": "5d69bdc52cdd76ed28a89e91", "variant": "gin", "status": "valid",
        "verification": "moves", "winner": "ana", "game_time": "2024-03-01T20:00:00Z",
        "tournament": {"id": "spring", "round": 1, "table": "A"},
        "points": {"ana": 185, "ben": 0}}]})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="Head-to-head: games, wins and points of two players as opponents",
         description="404 when either player has no stored game matching the filters, "
                     "as for a player's statistics.")
def versus(args: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    """A player never sits opposite themself: the same player twice has 0 games.  A
    player with no stored game matching the filters is a 404, as for their stats."""
    record = head_to_head(current_store(), _player(a), _player(b), _filter(args))
    if record is None:
        raise Problem(404, NOT_FOUND, f"no stored game matches player {a[:64]!r} or "
                      f"{b[:64]!r} with these filters")
    return record

"""/ratings, /players/{p}/ratings, /predict: OpenSkill ratings (docs/RATINGS.md).

The ratings are kept by the store as games are stored (service.store.ratings) and read
by service.store.rating_reads; the model is service.ratings.  This module reads the
query, calls them and shapes the answer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import unquote, unquote_plus

from flask import request, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields
from marshmallow.validate import Length, OneOf

from ..engine.limits import MAX_PLAYER_LENGTH
from ..engine.rules import GIN, PRESETS
from ..ratings import Provisional, Rating, initial_rating, predict_win
from ..store.rating_reads import current_ratings, rated_player, rating_board, rating_history
from ..store.snapshots import Walk
from .auth import read_access
from .config import current_store, settings
from .games import game_url
from .games_schemas import UtcDateTime, _page_limit, between, cursor_field, utc_text
from .pagination import Part, decode_key_cursor, encode_key_cursor, link_header
from .problems import INVALID_CURSOR, INVALID_PARAMETER, NOT_FOUND, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("ratings", __name__, url_prefix=PREFIX,
                description="OpenSkill (Plackett-Luce) ratings, history and predictions")

VARIANT_DOC = {"description": "The rating pool: one per variant (docs/RATINGS.md)"}
MAX_PREDICT_PLAYERS = 6
_NAME = "[^,+]{1,64}"
BOARD_KEY = (Part.NUMBER, Part.TEXT, Part.TEXT, Part.COUNT)  # ordinal, variant, player, rank
HISTORY_KEY = (Part.TEXT, Part.COUNT)  # the game's time to the second, its seq
PLAYERS_PATTERN = (f"^{_NAME}(\\+{_NAME})?(,{_NAME}(\\+{_NAME})?)"
                   f"{{1,{MAX_PREDICT_PLAYERS - 1}}}$")


def _rule() -> Provisional:
    config = settings()
    return Provisional(config.rating_max_sigma, config.rating_min_games)


# --------------------------------------------------------------------------- schemas

class BoardArgsSchema(Schema):
    variant = fields.String(validate=OneOf(tuple(PRESETS)), metadata=VARIANT_DOC)
    min_games = fields.Integer(load_default=0, validate=between(0, 10**9), metadata={
        "description": "Only players with at least this many rated games"})
    provisional = fields.Boolean(metadata={
        "description": "true: only provisional ratings; false: only settled ones"})
    limit = fields.Integer(validate=_page_limit, metadata={"minimum": 1})
    cursor = cursor_field()


class HistoryArgsSchema(Schema):
    variant = fields.String(validate=OneOf(tuple(PRESETS)), metadata=VARIANT_DOC)
    limit = fields.Integer(validate=_page_limit, metadata={"minimum": 1})
    cursor = cursor_field()


def _raw_players() -> str:
    """The ``players`` parameter as sent, still percent-encoded: a form decoder would
    turn a literal ``+`` into a space, and ``+`` joins partners however it is sent."""
    for pair in request.query_string.decode("latin-1").split("&"):
        key, _, value = pair.partition("=")
        if unquote_plus(key) == "players":
            return value
    return ""


def _sides(raw: str) -> list[list[str]]:
    """The sides of ``players`` as sent (see ``_raw_players``): their players' names.
    ``,`` separates sides and ``+`` partners, written as they are or percent-encoded
    (``%2C``, ``%2B``); a space is ``%20``."""
    sides = [side.split("+") for side in unquote(raw, errors="replace").split(",")]
    names = [name for side in sides for name in side]
    problem = None
    if any(not 1 <= len(name) <= MAX_PLAYER_LENGTH for name in names):
        problem = ("players are 1 to 64 characters each, separated by ',' (sides) or '+' "
                   "(partners)")
    elif len(set(names)) != len(names):
        problem = "a player is named twice"
    elif not 2 <= len(sides) <= MAX_PREDICT_PLAYERS:
        problem = f"2 to {MAX_PREDICT_PLAYERS} sides"
    if problem is not None:
        raise Problem(400, INVALID_PARAMETER, f"players: {problem}",
                      errors={"players": [problem]})
    return sides


class PredictArgsSchema(Schema):
    variant = fields.String(required=True, validate=OneOf(tuple(PRESETS)), metadata=VARIANT_DOC)
    players = fields.String(required=True, validate=Length(3, 1000), metadata={
        "description": "The sides of the new game: 'a,b,c' (each on their own) or "
                       "'a+b,c+d' (partnership gin): ',' separates sides and '+' joins "
                       "partners, sent as they are or percent-encoded; names holding ',' "
                       "or '+' cannot be given. Sides a game of the variant cannot have "
                       "(a player twice, partners outside four-player gin, too many or too "
                       "few players) are refused (400).",
        "pattern": PLAYERS_PATTERN, "example": "ana,ben"})


class RatingSchema(Schema):
    player = fields.String(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma: the rating shown"})
    games = fields.Integer(required=True, metadata={"description": "Rated games in the pool"})
    provisional = fields.Boolean(required=True)


class BoardRowSchema(RatingSchema):
    rank = fields.Integer(required=True)
    variant = fields.String(required=True)
    last_played = UtcDateTime(required=True, metadata={"description": "The last rated game's time"})
    last_game = fields.String(required=True)
    links = fields.Dict(keys=fields.String(), values=fields.String())


class BoardSchema(Schema):
    ratings = fields.List(fields.Nested(BoardRowSchema))
    next = fields.String(allow_none=True)


class HistoryRowSchema(Schema):
    variant = fields.String(required=True)
    game = fields.String(required=True)
    game_time = UtcDateTime(required=True)
    rank = fields.Integer(required=True, metadata={"description": "The place of the player's "
                                                                  "side, 1 the best"})
    mu_before = fields.Float(required=True)
    sigma_before = fields.Float(required=True, metadata={
        "description": "With the drift of the days since the previous rated game"})
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)
    games = fields.Integer(required=True)
    provisional = fields.Boolean(required=True)
    links = fields.Dict(keys=fields.String(), values=fields.String())


class HistorySchema(Schema):
    player = fields.String(required=True)
    history = fields.List(fields.Nested(HistoryRowSchema))
    next = fields.String(allow_none=True)


class PredictSideSchema(Schema):
    players = fields.List(fields.String())
    win_probability = fields.Float()
    ratings = fields.List(fields.Nested(RatingSchema))


class PredictSchema(Schema):
    variant = fields.String()
    sides = fields.List(fields.Nested(PredictSideSchema))


LINK_HEADER = {"Link": {"description": 'RFC 8288: <next page>; rel="next" when there is more',
                        "schema": {"type": "string"}}}


# --------------------------------------------------------------------------- views

def _query(names: tuple[str, ...]) -> dict[str, str]:
    return {k: request.args[k] for k in names if k in request.args}


@blp.route("/ratings", methods=["GET"])
@read_access
@blp.arguments(BoardArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, BoardSchema, headers=LINK_HEADER, example={"ratings": [
    {"rank": 1, "variant": "gin", "player": "ana", "mu": 31.27, "sigma": 5.81,
     "ordinal": 13.84, "games": 24, "provisional": False,
     "last_played": "2024-05-01T19:30:00Z", "last_game": "5d69bdc52cdd76ed28a89e91",
     "links": {"history": "/api/v1/players/ana/ratings?variant=gin",
               "last_game": "/api/v1/games/5d69bdc52cdd76ed28a89e91"}}], "next": None})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Rating leaderboard: players by ordinal (mu - 3 sigma), highest first",
         description="Every pool (variant) unless `variant` is given; ties by variant, then "
                     "player. Keyset pages (`limit`, `cursor`, `Link: rel=\"next\"`).")
def board(args: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    limit = args.get("limit", settings().page_size)
    scope = {name: args.get(name) for name in ("variant", "min_games", "provisional")}
    after, rank, walk = None, 0, Walk()
    if "cursor" in args:
        at = decode_key_cursor(args["cursor"], "ratings", scope, BOARD_KEY)
        ordinal, variant, player, rank = at.key
        after, walk = (float(ordinal), variant, player), Walk(at.snapshot)
    rows = rating_board(current_store(), args.get("variant"), args["min_games"],
                        args.get("provisional"), _rule(), limit + 1, after, walk)
    more = len(rows) > limit
    rows = rows[:limit]
    for offset, row in enumerate(rows, start=rank + 1):
        row["rank"] = offset
        row["links"] = {
            "history": url_for("ratings.history", player=row["player"], variant=row["variant"]),
            "last_game": game_url(row["last_game"])}
    body: dict[str, Any] = {"ratings": rows, "next": None}
    headers: dict[str, str] = {}
    if more:
        last = rows[-1]
        body["next"] = url_for("ratings.board", **_query(tuple(scope)), limit=limit,
                               cursor=encode_key_cursor(
                                   "ratings", [last["ordinal"], last["variant"], last["player"],
                                               last["rank"]], scope, walk.snapshot))
        headers["Link"] = link_header(body["next"])
    return body, 200, headers


PLAYER_PATH = [{"in": "path", "name": "player", "required": True,
                "schema": {"type": "string", "minLength": 1, "maxLength": MAX_PLAYER_LENGTH}}]


@blp.route("/players/<name:player>/ratings", methods=["GET"], parameters=PLAYER_PATH)
@read_access
@blp.arguments(HistoryArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, HistorySchema, headers=LINK_HEADER, example={"player": "ana", "history": [
    {"variant": "gin", "game": "5d69bdc52cdd76ed28a89e91", "game_time": "2024-05-01T19:30:00Z",
     "rank": 1, "mu_before": 25.0, "sigma_before": 8.3333, "mu": 27.6352, "sigma": 8.0655,
     "ordinal": 3.4387, "games": 1, "provisional": True,
     "links": {"game": "/api/v1/games/5d69bdc52cdd76ed28a89e91"}}], "next": None})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="A player's rating history: the rating after each rated game, in the "
                 "order games are rated",
         description="404 when the player has no rated game (in `variant`, when given). "
                     "Keyset pages (`limit`, `cursor`, `Link: rel=\"next\"`).")
def history(args: dict[str, Any], player: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    if not 1 <= len(player) <= MAX_PLAYER_LENGTH:
        raise Problem(400, INVALID_PARAMETER, "a player id has 1 to 64 characters",
                      errors={"player": ["1 to 64 characters"]})
    store = current_store()
    variant = args.get("variant")
    if not rated_player(store, player, variant):
        raise Problem(404, NOT_FOUND, f"player {player[:64]!r} has no rated game"
                      + (f" of {variant}" if variant else ""))
    limit = args.get("limit", settings().page_size)
    scope = {"player": player, "variant": variant}
    after = None
    if "cursor" in args:
        at, seq = decode_key_cursor(args["cursor"], "rating-history", scope, HISTORY_KEY).key
        try:
            after = (datetime.fromisoformat(at), seq)
        except ValueError:
            raise Problem(400, INVALID_CURSOR, "the cursor is not valid") from None
    rows = rating_history(store, player, variant, limit + 1, after)
    more = len(rows) > limit
    rows = rows[:limit]
    rule = _rule()
    entries = [{"variant": r["variant"], "game": r["game_id"], "game_time": r["game_time"],
                "rank": r["rank"], "mu_before": r["mu_before"],
                "sigma_before": r["sigma_before"], "mu": r["mu"], "sigma": r["sigma"],
                "ordinal": r["mu"] - 3 * r["sigma"], "games": r["games"],
                "provisional": rule(r["sigma"], r["games"]),
                "links": {"game": game_url(r["game_id"])}} for r in rows]
    body: dict[str, Any] = {"player": player, "history": entries, "next": None}
    headers: dict[str, str] = {}
    if more:
        last = rows[-1]
        body["next"] = url_for("ratings.history", player=player, **_query(("variant",)),
                               limit=limit, cursor=encode_key_cursor(
                                   "rating-history",
                                   [utc_text(last["game_time"].replace(microsecond=0)),
                                    last["seq"]], scope))
        headers["Link"] = link_header(body["next"])
    return body, 200, headers


def _check_sides(variant: str, sides: list[list[str]]) -> None:
    """The sides a game of ``variant`` can have: two to its most players each on their
    own, or (gin) two partnerships of two."""
    preset = PRESETS[variant]
    teams = any(len(side) > 1 for side in sides)
    if teams:
        if preset.family != GIN or len(sides) != 2 or any(len(s) != 2 for s in sides):
            raise Problem(400, INVALID_PARAMETER, "partners ('+') play only partnership "
                          "gin: two sides of two players", errors={
                              "players": ["partners only as two sides of two, in gin"]})
    elif not preset.min_players <= len(sides) <= preset.max_players:
        raise Problem(400, INVALID_PARAMETER, f"{variant} is played by {preset.min_players} "
                      f"to {preset.max_players} players", errors={
                          "players": [f"{preset.min_players} to {preset.max_players} players"]})


@blp.route("/predict", methods=["GET"])
@read_access
@blp.arguments(PredictArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, PredictSchema, example={"variant": "gin", "sides": [
    {"players": ["ana"], "win_probability": 0.6841, "ratings": [
        {"player": "ana", "mu": 31.27, "sigma": 5.81, "ordinal": 13.84, "games": 24,
         "provisional": False}]},
    {"players": ["ben"], "win_probability": 0.3159, "ratings": [
        {"player": "ben", "mu": 25.0, "sigma": 8.3333, "ordinal": 0.0, "games": 0,
         "provisional": True}]}]})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Win probabilities of a new game between rated players",
         description="openskill's predict_win over the players' current ratings in the "
                     "variant's pool; a player without a rated game there counts with the "
                     "starting rating (games 0).")
def predict(args: dict[str, Any]) -> dict[str, Any]:
    variant = args["variant"]
    sides = _sides(_raw_players())
    _check_sides(variant, sides)
    known = current_ratings(current_store(), variant, [p for side in sides for p in side])
    ratings: list[list[Rating]] = [[known.get(p) or initial_rating() for p in side]
                                   for side in sides]
    chances = predict_win(ratings)
    rule = _rule()
    return {"variant": variant, "sides": [
        {"players": side, "win_probability": chance,
         "ratings": [{"player": p, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal,
                      "games": r.games, "provisional": rule(r.sigma, r.games)}
                     for p, r in zip(side, side_ratings, strict=True)]}
        for side, side_ratings, chance in zip(sides, ratings, chances, strict=True)]}

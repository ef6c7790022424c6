"""Move analysis (docs/ANALYSIS.md): a game's facts, a player's figures, the integrity
screen.  The figures are computed by ``service.analysis`` and stored by
``service.store.analysis``; this module reads the query, calls them and shapes the
answer.  A game the store's catch-up has not reached yet is analysed when asked for,
and its analysis stored then.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from flask import request
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields
from marshmallow.validate import Length, OneOf

from ..analysis.decisions import (
    BEST,
    WITHIN_MARGIN,
    WORSE,
    decisions_json,
    game_decisions,
    mark_facts,
)
from ..analysis.facts import KINDS, analyse
from ..analysis.luck import analyse_luck
from ..engine import load_json, parse_game, verify
from ..engine.limits import MAX_PLAYER_LENGTH
from ..engine.rules import PRESETS
from ..store.analysis import (
    analysis_record,
    game_facts,
    game_summary,
    integrity_pairs,
    pair_facts,
    player_analysis,
)
from .auth import read_access
from .backlog import ANALYSIS_FIELD, EXAMPLE, analysis_progress
from .config import current_store, settings
from .games import _not_found, game_url
from .games_schemas import between
from .players import FilterArgsSchema, _filter, _path, _player
from .problems import NOT_FOUND, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("analysis", __name__, url_prefix=PREFIX,
                description="Move analysis: the facts of each decision, player figures, "
                            "the integrity screen")

MIN_GAMES = 20  # the integrity screen's default


class FactSchema(Schema):
    deal = fields.Integer(required=True)
    move = fields.Integer(required=True, metadata={
        "description": "The move the player made at the decision (from 0)"})
    player = fields.String(required=True)
    kind = fields.String(required=True, validate=OneOf(KINDS))
    alternative = fields.Dict(allow_none=True, required=True, metadata={
        "description": "The better move, in the log's move format (null: none)"})
    cost = fields.Integer(required=True, metadata={"description": "Points"})
    position = fields.Integer(required=True, metadata={
        "description": "The move after which the alternative is legal (-1: as dealt)"})
    detail = fields.Dict(metadata={"description": "The kind's own figures"})
    replay = fields.String(metadata={"description": "The position of the decision"})
    evaluator = fields.String(validate=OneOf((BEST, WITHIN_MARGIN, WORSE)), metadata={
        "description": "Two-player gin: the evaluator's verdict, in expected deal points, "
                       "on the decision a fact names (docs/ANALYSIS.md, Decision loss): on "
                       "the throw of a discard_error, on the knock-or-play-on choice of a "
                       "missed_knock or knock_into_undercut; best, within_margin (a loss "
                       "of at most 0.25) or worse"})
    evaluator_loss = fields.Float(metadata={
        "description": "Beside evaluator: the evaluator's loss of the decision, deal "
                       "points"})


class FiguresSchema(Schema):
    decisions = fields.Integer()
    errors = fields.Dict(keys=fields.String(), values=fields.Integer())
    per_100 = fields.Dict(keys=fields.String(), values=fields.Float(allow_none=True))
    average_discard_error = fields.Float(allow_none=True)
    accuracy = fields.Float(allow_none=True, metadata={"description": "Percent"})
    fed_given = fields.Integer()
    fed_received = fields.Integer()


class GameAnalysisSchema(Schema):
    id = fields.String(required=True)
    facts = fields.List(fields.Nested(FactSchema), required=True)
    summary = fields.Dict(keys=fields.String(), values=fields.Nested(FiguresSchema))
    stored = fields.Boolean(metadata={
        "description": "false: analysed for this answer (the catch-up had not reached "
                       "the game); it is stored now"})
    luck = fields.Dict(metadata={
        "description": "The luck of every stock draw and dealt hand, per deal and per "
                       "player, and the luck-adjusted points (docs/ANALYSIS.md, Luck)"})
    by_result = fields.List(fields.Integer(), metadata={
        "description": "The deals recorded by their result (a score sheet): their play is "
                       "not recorded, so they have no facts and no luck"})
    decisions = fields.Dict(metadata={
        "description": "Two-player gin: each draw's (pile or stock), each throw's and "
                       "each knock-or-play-on choice's (measure knock_or_play_on: choice, "
                       "best_choice, error) and each first upcard offer's (measure "
                       "upcard_offer: take or pass) loss in expected deal points against the "
                       "evaluator's best, from the player's view, and per player the "
                       "decisions judged, average loss and accuracy (docs/ANALYSIS.md, "
                       "Decision loss); computed when asked for"})


class DecisionLossSchema(Schema):
    decisions = fields.Integer(metadata={
        "description": "Two-player gin decisions judged (draws, pile or stock; discards; "
                       "knocks' throws; knock-or-play-on choices; upcard offers)"})
    average_loss = fields.Float(allow_none=True, metadata={
        "description": "Expected deal points given away per decision against the "
                       "evaluator's best throw, to 4 decimals (docs/ANALYSIS.md, Decision "
                       "loss)"})
    accuracy = fields.Float(allow_none=True, metadata={
        "description": "The mean of each decision's 100 * 2^(-loss / 2), percent, to 2 "
                       "decimals: 100 when every throw was the evaluator's best"})


class PlayerFiguresSchema(FiguresSchema):
    games = fields.Integer()
    deals = fields.Integer()
    missed_gins_and_knocks = fields.Integer()
    errors_per_100 = fields.Float(allow_none=True, metadata={
        "description": "Every fact but fed cards, per 100 decisions"})
    luck_deals = fields.Integer(metadata={
        "description": "Scored deals whose luck is stored: what the two figures below "
                       "are over"})
    luck_per_deal = fields.Float(allow_none=True, metadata={
        "description": "Luck points per scored deal: gin, deal points (the evaluator's "
                       "chance correction); Rummy family, card points (docs/ANALYSIS.md, "
                       "Luck); null over no deal"})
    luck_adjusted_per_deal = fields.Float(allow_none=True, metadata={
        "description": "Points per scored deal with the luck taken away: gin, deal "
                       "points less the player's share of their luck (luck_share, "
                       "cross-fitted on the two halves of their games); Rummy family, "
                       "deal points less luck points (penalty scoring: plus); null over "
                       "no deal"})
    luck_share = fields.Float(allow_none=True, metadata={
        "description": "Gin: the deal points a point of luck has been worth to the "
                       "player, measured on their games (0 to 1; docs/ANALYSIS.md, "
                       "A player's share of luck); null without gin luck"})
    decision_loss = fields.Nested(DecisionLossSchema, allow_none=True, metadata={
        "description": "Two-player gin: the decisions judged by the evaluator, their "
                       "average loss in expected deal points and the accuracy, stored by "
                       "the catch-up (docs/ANALYSIS.md, Decision loss); null where no "
                       "decision was judged (other variants)"})


class PlayerAnalysisSchema(Schema):
    player = fields.String(required=True)
    variants = fields.Dict(keys=fields.String(), values=fields.Nested(PlayerFiguresSchema))
    analysis = ANALYSIS_FIELD


class PairArgsSchema(Schema):
    variant = fields.String(validate=OneOf(tuple(PRESETS)))
    min_games = fields.Integer(load_default=MIN_GAMES, validate=between(1, 10**9))
    limit = fields.Integer(load_default=50, validate=between(1, 500))


class PairFactsArgsSchema(Schema):
    player = fields.String(required=True, validate=Length(1, MAX_PLAYER_LENGTH))
    partner = fields.String(required=True, validate=Length(1, MAX_PLAYER_LENGTH))
    variant = fields.String(validate=OneOf(tuple(PRESETS)))
    limit = fields.Integer(load_default=50, validate=between(1, 500))


class RateSchema(Schema):
    count = fields.Integer()
    rate = fields.Float(allow_none=True)
    rest_count = fields.Integer()
    rest_decisions = fields.Integer()
    rest_rate = fields.Float(allow_none=True)
    z = fields.Float()


class PairSchema(Schema):
    player = fields.String(metadata={"description": "A: the one who plays before B"})
    partner = fields.String(metadata={"description": "B"})
    games = fields.Integer()
    decisions = fields.Integer(metadata={"description": "A's decisions facing B"})
    fed = fields.Nested(RateSchema)
    soft = fields.Nested(RateSchema)
    points_conceded = fields.Integer(metadata={"description": "B's deal points in those deals"})
    points = fields.Integer()
    score = fields.Float()
    statement = fields.String()
    facts = fields.String(metadata={"description": "The games and moves behind the figures"})


class PairsSchema(Schema):
    pairs = fields.List(fields.Nested(PairSchema))
    min_games = fields.Integer()
    analysis = ANALYSIS_FIELD


class PairFactSchema(Schema):
    game = fields.String()
    deal = fields.Integer()
    move = fields.Integer()
    kind = fields.String()
    cost = fields.Integer()
    replay = fields.String()


class PairFactsSchema(Schema):
    player = fields.String()
    partner = fields.String()
    facts = fields.List(fields.Nested(PairFactSchema))
    analysis = ANALYSIS_FIELD


def _keeps_analyses(store: Any) -> bool:
    """Whether the store stores analyses (an audit's lake, read-only, does not)."""
    return hasattr(store, "add_analyses")


def holds_analyses(store: Any) -> bool:
    """Whether the store has analysis tables to read: a store always, an audit's lake
    when the audit analysed (``--analyse``)."""
    return _keeps_analyses(store) or bool(getattr(store, "holds_analyses", False))


def _analysed_store() -> Any:
    store = current_store()
    if not holds_analyses(store):
        raise Problem(404, NOT_FOUND, "this service serves an audit's results, which hold "
                      "no analysis (audit with --analyse): a game's analysis is computed "
                      "when asked for")
    return store


def _replay(gid: str, deal: int, position: int) -> str:
    return f"{game_url(gid)}/deals/{deal}/moves/{position}/state"


GAME_EXAMPLE = {"id": "5d69bdc52cdd76ed28a89e91", "stored": True, "facts": [{
    "deal": 1, "move": 16, "player": "ben", "kind": "discard_error",
    "alternative": {"p": "ben", "a": "discard", "card": "KS"}, "cost": 10, "position": 15,
    "detail": {"card": "9H", "left": 14, "best": 4},
    "replay": "/api/v1/games/5d69bdc52cdd76ed28a89e91/deals/1/moves/15/state",
    "evaluator": "worse", "evaluator_loss": 2.0885}],
    "summary": {"ben": {"decisions": 14, "errors": dict.fromkeys(KINDS, 0) | {
        "discard_error": 1}, "per_100": dict.fromkeys(KINDS, 0.0) | {"discard_error": 7.14},
        "average_discard_error": 0.714, "accuracy": 92.86, "fed_given": 0,
        "fed_received": 1}},
    "decisions": {"players": {"ben": {"decisions": 12, "loss": 2.4126,
                                      "average_loss": 0.201, "accuracy": 93.12, "best": 9}},
                  "decisions": [{"deal": 1, "move": 15, "player": "ben", "action": "draw",
                                 "card": "QD", "best": None, "measure": "this_draw",
                                 "played_value": 14.0, "best_value": 12.4, "unseen": 33,
                                 "throws": 2, "loss": 0.5216, "source": "pile",
                                 "best_source": "stock"},
                                {"deal": 1, "move": 16, "player": "ben", "action": "discard",
                                 "card": "9H", "best": "KS", "measure": "after_draw",
                                 "played_value": 11.5938, "best_value": 5.1875,
                                 "unseen": 32, "throws": 11, "loss": 2.0885}],
                  "per_drawn": 0.326, "half_loss": 2.0, "margin": 0.25}}


@blp.route("/games/<game_id:game_id>/analysis", methods=["GET"])
@read_access
@blp.response(200, GameAnalysisSchema, example=GAME_EXAMPLE)
@problem_responses(blp, 401, 403, 404, 410)
@blp.doc(summary="The facts of each decision of a stored game, its players' figures, its "
                 "luck",
         description="docs/ANALYSIS.md defines every kind and figure. Each fact links to "
                     "the position where its alternative is legal (replay).")
def game_analysis(game_id: str) -> dict[str, Any]:
    store = current_store()
    raw = store.get_log(game_id)
    if raw is None:
        raise _not_found(game_id)
    game = parse_game(load_json(raw, max(len(raw), settings().max_game_bytes),
                                repeated_keys=True), stored=True)
    report = verify(game)
    luck = analyse_luck(game, report)
    keeps = _keeps_analyses(store)
    facts = game_facts(store, game_id) if holds_analyses(store) else None
    stored = facts is not None
    decisions = game_decisions(game)
    if facts is None:
        row = store.get_game(game_id)
        if row is None:
            raise _not_found(game_id)
        analysis = analyse(game, report)
        at = row["played_at"] or row["uploaded_at"]
        if keeps:
            store.add_analyses([analysis_record(game_id, game, report, row["tournament_id"],
                                                at, analysis, luck, decisions)])
        facts = [f.to_dict() for f in analysis.facts]
        summary = analysis.summary()
    else:
        summary = game_summary(store, game_id)
    for fact in facts:
        fact["replay"] = _replay(game_id, fact["deal"], fact["position"])
    mark_facts(facts, decisions)
    return {"id": game_id, "stored": stored, "facts": facts, "summary": summary,
            "luck": luck.to_dict(),
            "by_result": [d for d, deal in enumerate(game.deals) if deal.result is not None],
            "decisions": decisions_json(game, decisions)}


@blp.route("/players/<name:player>/analysis", methods=["GET"], parameters=_path("player"))
@read_access
@blp.arguments(FilterArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, PlayerAnalysisSchema, example={"player": "ana", "variants": {"gin": {
    "games": 12, "deals": 96, "decisions": 410, "errors": dict.fromkeys(KINDS, 0) | {
        "missed_knock": 9, "fed_card": 31}, "per_100": dict.fromkeys(KINDS, 0.0) | {
        "missed_knock": 2.2, "fed_card": 7.56}, "average_discard_error": 0.0,
    "accuracy": 97.8, "fed_given": 31, "fed_received": 28, "missed_gins_and_knocks": 9,
    "errors_per_100": 2.2, "luck_deals": 96, "luck_per_deal": 1.84,
    "luck_adjusted_per_deal": 10.76, "luck_share": 0.71, "decision_loss": {
        "decisions": 402, "average_loss": 0.0841, "accuracy": 97.62}}}, "analysis": EXAMPLE})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="A player's analysis figures, by variant (docs/ANALYSIS.md)",
         description="Over the stored games already analysed, with the filters of the "
                     "player's statistics; 404 when none matches. `analysis` says how many "
                     "stored games are not analysed yet (after a bulk load, many: the "
                     "figures leave them out and may change).")
def player(args: dict[str, Any], player: str) -> dict[str, Any]:
    store = _analysed_store()
    figures = player_analysis(store, _player(player), _filter(args))
    if not figures:
        raise Problem(404, NOT_FOUND, f"no analysed game matches player {player[:64]!r} "
                      "with these filters")
    return {"player": player, "variants": figures, "analysis": analysis_progress(store)}


@blp.route("/integrity/pairs", methods=["GET"])
@read_access
@blp.arguments(PairArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, PairsSchema, example={"min_games": 20, "pairs": [{
    "player": "cy", "partner": "dee", "games": 40, "decisions": 1210,
    "fed": {"count": 290, "rate": 0.2397, "rest_count": 101, "rest_decisions": 1190,
            "rest_rate": 0.0849, "z": 10.42},
    "soft": {"count": 30, "rate": 0.0248, "rest_count": 28, "rest_decisions": 1190,
             "rest_rate": 0.0235, "z": 0.21},
    "points_conceded": 2210, "points": 850, "score": 10.63,
    "statement": "In 40 games, cy fed dee 290 cards in 1210 decisions (24.0%), against "
                 "8.5% to other players; score 10.63. A screen to look at, not a verdict: "
                 "a high score says the pair's games deserve a look, not that anyone "
                 "cheated.",
    "facts": "/api/v1/integrity/pairs/facts?player=cy&partner=dee"}],
    "analysis": {"backlog": 1200, "complete": False, "running": True}})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="Integrity screen: pairs of players whose play favours one another",
         description="For every ordered pair (A, B) with at least min_games games in which "
                     "A played just before B: A's fed cards and soft plays facing B against "
                     "A's with every other opponent (docs/ANALYSIS.md). A screen, not a "
                     "verdict. Over the games analysed so far: `analysis` says how many "
                     "stored games are not yet.")
def pairs(args: dict[str, Any]) -> dict[str, Any]:
    store = _analysed_store()
    found = integrity_pairs(store, args.get("variant"), args["min_games"], args["limit"])
    base = f"{request.script_root}{PREFIX}/integrity/pairs/facts"
    for pair in found:
        query = {"player": pair["player"], "partner": pair["partner"]}
        if args.get("variant"):
            query["variant"] = args["variant"]
        pair["facts"] = f"{base}?{urlencode(query, quote_via=quote)}"
    return {"pairs": found, "min_games": args["min_games"],
            "analysis": analysis_progress(store)}


@blp.route("/integrity/pairs/facts", methods=["GET"])
@read_access
@blp.arguments(PairFactsArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, PairFactsSchema, example={"player": "cy", "partner": "dee", "facts": [{
    "game": "5d69bdc52cdd76ed28a89e91", "deal": 2, "move": 13, "kind": "fed_card",
    "cost": 17, "replay": "/api/v1/games/5d69bdc52cdd76ed28a89e91/deals/2/moves/12/state"}],
    "analysis": EXAMPLE})
@problem_responses(blp, 400, 401, 403, 404)
@blp.doc(summary="The games and moves behind a pair's figures: A's fed cards to B and "
                 "A's soft plays facing B, newest first")
def pair_moves(args: dict[str, Any]) -> dict[str, Any]:
    store = _analysed_store()
    facts = pair_facts(store, args["player"], args["partner"], args.get("variant"),
                       args["limit"])
    for fact in facts:
        fact["replay"] = _replay(fact["game"], fact["deal"], fact["move"] - 1)
    return {"player": args["player"], "partner": args["partner"], "facts": facts,
            "analysis": analysis_progress(store)}

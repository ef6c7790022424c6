"""GET /stats/variants: how each variant is played, from the stored deals."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields

from ..store.stats import variant_stats
from .auth import read_access
from .config import current_store
from .spec import PREFIX, problem_responses

blp = Blueprint("stats", __name__, url_prefix=f"{PREFIX}/stats",
                description="Statistics by variant")


class NoArgsSchema(Schema):
    pass


class OutcomeSchema(Schema):
    count = fields.Integer()
    share = fields.Float(metadata={"description": "Of the variant's scored deals"})


class CodeCountSchema(Schema):
    code = fields.String()
    count = fields.Integer()


class VariantStatsSchema(Schema):
    variant = fields.String()
    games = fields.Integer()
    deals = fields.Integer()
    scored_deals = fields.Integer()
    outcomes = fields.Dict(keys=fields.String(), values=fields.Nested(OutcomeSchema))
    avg_turns = fields.Float(allow_none=True, metadata={"description": "Draws per deal"})
    first_player_win_share = fields.Float()
    top_violations = fields.List(fields.Nested(CodeCountSchema))


class VariantStatsPageSchema(Schema):
    variants = fields.List(fields.Nested(VariantStatsSchema))


@blp.route("/variants", methods=["GET"])
@read_access
@blp.arguments(NoArgsSchema, location="query", unknown=RAISE, error_status_code=400)
@blp.response(200, VariantStatsPageSchema, example={"variants": [{
    "variant": "gin", "games": 40, "deals": 369, "scored_deals": 369,
    "outcomes": {"gin": {"count": 29, "share": 0.0786}, "knock": {"count": 291,
                 "share": 0.7886}, "undercut": {"count": 49, "share": 0.1328}},
    "avg_turns": 13.67, "first_player_win_share": 0.4851, "top_violations": []}]})
@problem_responses(blp, 400, 401, 403)
@blp.doc(summary="Per variant: games, deals, how deals end, length, first-player wins, "
                 "frequent violations")
def variants(args: dict[str, Any]) -> dict[str, Any]:
    return {"variants": variant_stats(current_store())}

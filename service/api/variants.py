"""GET /variants: the presets a log may name, with every option a log may override.

Straight from the engine's tables (PRESETS, OPTIONS), so the API cannot drift from the
rules it applies.  A preset's defaults are its Rules resolved for its smallest table
(the hand size depends on the number of players).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from flask_smorest import Blueprint
from marshmallow import Schema, fields

from ..engine.rules import OPTIONS, PRESETS, resolve_rules
from .auth import read_access
from .spec import PREFIX, problem_responses

blp = Blueprint("variants", __name__, url_prefix=f"{PREFIX}/variants",
                description="Rule presets and their options")


class OptionSchema(Schema):
    name = fields.String(required=True, metadata={"example": "knock_limit"})
    kind = fields.String(required=True, metadata={"enum": ["bool", "int", "choice"]})
    description = fields.String(required=True)
    source = fields.String(required=True, metadata={"description": "The source texts"})
    default = fields.Raw(allow_none=True, metadata={"description": "The preset's value"})
    minimum = fields.Integer(allow_none=True)
    maximum = fields.Integer(allow_none=True)
    nullable = fields.Boolean(required=True)
    choices = fields.List(fields.Raw(), metadata={"description": "For kind choice"})


class VariantSchema(Schema):
    name = fields.String(required=True, metadata={"example": "gin"})
    family = fields.String(required=True, metadata={"enum": ["rummy", "gin"]})
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    source = fields.String(required=True)
    defaults = fields.Dict(required=True, metadata={
        "description": "Every option's value, resolved for min_players"})
    options = fields.List(fields.Nested(OptionSchema), required=True)


class VariantListSchema(Schema):
    variants = fields.List(fields.Nested(VariantSchema), required=True)


@cache
def describe_variants() -> tuple[dict[str, Any], ...]:
    out = []
    for preset in PRESETS.values():
        rules, _ = resolve_rules(preset.name, None, preset.min_players)
        defaults = rules.as_dict() if rules is not None else dict(preset.defaults)
        options = [{"name": spec.name, "kind": spec.kind, "description": spec.description,
                    "source": spec.source, "default": defaults.get(spec.name),
                    "minimum": spec.minimum, "maximum": spec.maximum,
                    "nullable": spec.nullable, "choices": list(spec.choices)}
                   for spec in OPTIONS.values() if spec.family in ("both", preset.family)]
        out.append({"name": preset.name, "family": preset.family,
                    "min_players": preset.min_players, "max_players": preset.max_players,
                    "source": preset.source, "defaults": defaults, "options": options})
    return tuple(out)


@blp.route("", methods=["GET"])
@read_access
@blp.response(200, VariantListSchema)
@problem_responses(blp, 401, 403)
@blp.doc(summary="Every preset, its defaults and its options")
def list_variants() -> dict[str, Any]:
    return {"variants": list(describe_variants())}

"""GET /api/v1: an index of links for API clients; GET / leads there.

The index names every collection, the OpenAPI document and the docs page by a link, so
a client needs only the base URL.  Links with ``{...}`` are templates (RFC 6570 level
1): fill in the id.  It stays open when API keys are configured, as /healthz does: it
reveals nothing stored.  ``/`` redirects here (302) for API clients; the pages
(``service.web``) answer ``/`` to a browser and call :func:`home` for anyone else.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint as FlaskBlueprint
from flask import Response, redirect, request
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from .spec import PREFIX

blp = Blueprint("index", __name__, url_prefix=PREFIX, description="Where everything is")
root = FlaskBlueprint("root", __name__)

# name -> (path under the prefix, what it is)
LINKS: dict[str, tuple[str, str]] = {
    "games": ("/games", "Stored games: GET lists them, POST uploads one"),
    "game": ("/games/{game_id}", "One stored game, its metadata and report"),
    "batch": ("/games/batch", "POST: many games as NDJSON"),
    "export": ("/games/export", "The stored logs (NDJSON) or per-deal results (Parquet)"),
    "players": ("/players", "The leaderboard"),
    "positions": ("/games/{game_id}/deals/{deal}/positions",
                  "Every position of one deal of a game, for a replay viewer"),
    "player_stats": ("/players/{player}/stats", "One player's figures by variant"),
    "player_months": ("/players/{player}/months", "One player's figures month by month"),
    "versus": ("/players/{a}/versus/{b}", "Head-to-head of two players"),
    "tournament": ("/tournaments/{tournament_id}", "A tournament's audit"),
    "variant_stats": ("/stats/variants", "How each variant is played"),
    "ratings": ("/ratings", "The rating leaderboard (OpenSkill, per variant)"),
    "player_ratings": ("/players/{player}/ratings", "One player's rating history"),
    "variants": ("/variants", "The presets and their options"),
    "health": ("/healthz", "Whether the service and its database work"),
    "metrics": ("/metrics", "Prometheus metrics"),
    "openapi": ("/openapi.json", "The OpenAPI 3 document"),
    "docs": ("/docs", "The interactive documentation"),
}


class LinkSchema(Schema):
    href = fields.String(required=True, metadata={"example": f"{PREFIX}/games"})
    templated = fields.Boolean(required=True, metadata={
        "description": "true: fill in the {...} parts"})
    title = fields.String(required=True)


class IndexSchema(Schema):
    title = fields.String(required=True, metadata={"example": "rummy-audit"})
    version = fields.String(required=True, metadata={"example": "1"})
    links = fields.Dict(keys=fields.String(), values=fields.Nested(LinkSchema), required=True)


@blp.route("", methods=["GET"])
@blp.response(200, IndexSchema)
@blp.doc(summary="Links to every collection, the OpenAPI document and the docs")
def index() -> dict[str, Any]:
    base = request.script_root + PREFIX
    return {"title": "rummy-audit", "version": "1",
            "links": {name: {"href": base + path, "templated": "{" in path, "title": title}
                      for name, (path, title) in LINKS.items()}}


@root.get("/")
def home() -> Response:
    return redirect(request.script_root + PREFIX, code=302)

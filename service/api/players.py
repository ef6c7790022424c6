"""Player statistics, leaderboard and head-to-head (routes to come)."""

from __future__ import annotations

from flask_smorest import Blueprint

from .spec import PREFIX

blp = Blueprint("players", __name__, url_prefix=f"{PREFIX}/players",
                description="Player statistics, leaderboard and head-to-head")

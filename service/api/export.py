"""Export stored games (routes to come)."""

from __future__ import annotations

from flask_smorest import Blueprint

from .spec import PREFIX

blp = Blueprint("export", __name__, url_prefix=f"{PREFIX}/games",
                description="Export stored games")

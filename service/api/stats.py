"""Statistics by variant (routes to come)."""

from __future__ import annotations

from flask_smorest import Blueprint

from .spec import PREFIX

blp = Blueprint("stats", __name__, url_prefix=f"{PREFIX}/stats",
                description="Statistics by variant")

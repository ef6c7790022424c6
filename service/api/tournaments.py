"""Tournament standings and audits (routes to come)."""

from __future__ import annotations

from flask_smorest import Blueprint

from .spec import PREFIX

blp = Blueprint("tournaments", __name__, url_prefix=f"{PREFIX}/tournaments",
                description="Tournament standings and audits")

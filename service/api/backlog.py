"""How far the move analysis of the stored games has got, for the answers whose figures
come from it (a player's analysis figures, the leaderboard, the integrity screen) and
the pages that show them.

The stored figures are sums over the games analysed so far: after a bulk load the
catch-up may be hours behind (docs/ANALYSIS.md), and figures read meanwhile leave the
games not analysed yet out.  So each such answer says how many games that is, and
whether the figures are complete, rather than letting them pass for final.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields


class AnalysisProgressSchema(Schema):
    backlog = fields.Integer(required=True, metadata={
        "description": "Stored games not analysed yet, which the figures leave out"})
    complete = fields.Boolean(required=True, metadata={
        "description": "false: the figures may change as the catch-up analyses the "
                       "backlog"})
    running = fields.Boolean(required=True, metadata={
        "description": "The background catch-up runs (RUMMY_ANALYSIS); when it does not, "
                       "a game is analysed only when its analysis is asked for"})


ANALYSIS_FIELD = fields.Nested(AnalysisProgressSchema, allow_none=True, metadata={
    "description": "How far the analysis the figures come from has got; null: this "
                   "service keeps no analysis (an audit's results without --analyse)"})
EXAMPLE = {"backlog": 0, "complete": True, "running": True}


def analysis_progress(store: Any) -> dict[str, Any] | None:
    """The store's analysis backlog (counted at most once a second by the store, so
    asking on every answer costs no table read most of the time), and whether the
    figures are complete.  An audit's results analysed with --analyse are complete; a
    store that keeps no analysis has none (None)."""
    health = getattr(store, "analysis_health", None)
    if health is None:
        if getattr(store, "holds_analyses", False):
            return {"backlog": 0, "complete": True, "running": False}
        return None
    figures = health()
    return {"backlog": figures["backlog"], "complete": figures["backlog"] == 0,
            "running": figures["running"]}

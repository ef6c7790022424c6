"""GET /healthz and GET /metrics: for load balancers and Prometheus.

Both stay open when API keys are configured: they reveal no game data, and probes
rarely carry credentials.

/healthz is 200 ``ok`` while the database answers and the last write committed (or
none was tried since start-up).  When the last commit failed (disk full, file or
folder not writable) it is 503, a problem of type ``degraded`` with ``health``
``degraded`` (in a problem ``status`` is the HTTP status) and the failure's time and
reason: the service still reads but does not store.  It turns ``ok`` again with the
next commit that succeeds; an orchestrator that restarts an unhealthy container
restarts it meanwhile.  A database that does not answer at all is 503
``database-unavailable``, as before; so is a store process that does not answer within
``CHECK_TIMEOUT``.

The check is one call to the store process, which reads no table (the analysis backlog
it reports is counted at most once a second) and never waits for the writer, and the
answer reports the queue in front of it (``writes.queued_games``): under a deep queue
the health check still answers at once, and says how deep it is.
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint
from marshmallow import Schema, fields
from marshmallow.validate import OneOf

from .config import current_store
from .games_schemas import UtcDateTime
from .metrics import CONTENT_TYPE, metrics_of_app
from .problems import DATABASE_UNAVAILABLE, DEGRADED, Problem
from .spec import PREFIX, problem_responses

CHECK_TIMEOUT = 2.0  # seconds the health check waits for the store process

blp = Blueprint("health", __name__, url_prefix=PREFIX, description="Health and metrics")


class WritesSchema(Schema):
    last_commit = fields.String(required=True, allow_none=True, validate=OneOf(("ok", "failed")),
                                metadata={"description": "null: no write since start-up"})
    at = UtcDateTime(required=True, allow_none=True)
    reason = fields.String(required=True, allow_none=True, metadata={
        "description": "Why the last commit failed"})
    queued = fields.Integer(required=True, metadata={
        "description": "Writes waiting for the store's writer"})
    queued_games = fields.Integer(required=True, metadata={
        "description": "Games handed to the writer and not committed yet"})
    max_queued_games = fields.Integer(required=True, metadata={
        "description": "Beyond this many queued games a single upload is refused with "
                       "503 store-busy and Retry-After (RUMMY_MAX_QUEUED_GAMES)"})


class AnalysisHealthSchema(Schema):
    running = fields.Boolean(metadata={"description": "The background catch-up runs"})
    backlog = fields.Integer(metadata={"description": "Stored games not analysed yet"})
    analysed = fields.Integer(metadata={"description": "Games analysed since start-up"})
    failed = fields.Integer(metadata={"description": "Games whose analysis failed"})
    last_error = fields.String(allow_none=True)
    paused = fields.Integer(metadata={
        "description": "Times the catch-up gave way since start-up, because 64 games or "
                       "more waited for the store's writer"})


class RatingHealthSchema(Schema):
    running = fields.Boolean(metadata={"description": "The rating catch-up runs"})
    backlog = fields.Integer(metadata={
        "description": "Games committed and not rated yet: rated once committed "
                       "hold_seconds ago, or before any read of the ratings"})
    rated = fields.Integer(metadata={"description": "Games rated since start-up"})
    hold_seconds = fields.Float(metadata={
        "description": "How long a committed game waits for the catch-up"})
    failures = fields.Integer(metadata={
        "description": "Rounds of the catch-up failed in a row (0 once one succeeds); "
                       "while above 0 the status is degraded"})
    last_error = fields.Dict(keys=fields.String(), values=fields.String(), allow_none=True,
                             metadata={"description": "The latest failure: `at` (UTC) and "
                                                      "`error`; null if none since start-up"})


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={
        "example": "ok", "enum": ["ok", "degraded"],
        "description": "ok; degraded while the rating catch-up fails (games are still "
                       "stored and read: see ratings.last_error)"})
    database = fields.String(required=True, metadata={"example": "ok"})
    schema_version = fields.Integer(required=True, metadata={"example": 1})
    writes = fields.Nested(WritesSchema, required=True)
    analysis = fields.Nested(AnalysisHealthSchema, allow_none=True, metadata={
        "description": "The move analysis of stored games (docs/ANALYSIS.md)"})
    ratings = fields.Nested(RatingHealthSchema, allow_none=True, metadata={
        "description": "The rating of stored games (docs/RATINGS.md); null: not rated "
                       "(RUMMY_RATINGS=0, or a lake)"})


def _analysis_health(store: Any) -> dict[str, Any] | None:
    """The analysis catch-up's figures; None for a store without analysis (a lake)."""
    health = getattr(store, "analysis_health", None)
    return health() if health is not None else None


def _rating_health(store: Any) -> dict[str, Any] | None:
    """The rating catch-up's figures; None for a store that rates nothing."""
    health = getattr(store, "rating_health", None)
    return health() if health is not None else None


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema)
@problem_responses(blp, 503)
@blp.doc(summary="Whether the service and its database answer")
def healthz() -> dict[str, Any]:
    store = current_store()
    try:
        checked = store.check(timeout=CHECK_TIMEOUT)
    except Exception:
        current_app.logger.exception("health check: the database does not answer")
        raise Problem(503, DATABASE_UNAVAILABLE, "the database does not answer",
                      headers={"Retry-After": "5"}, database="unavailable") from None
    version, writes = checked["schema_version"], checked["writes"]
    shown = WritesSchema().dump(writes)
    if writes["last_commit"] == "failed":
        raise Problem(503, DEGRADED, "the database answers, but its last write failed: "
                      "games are not being stored", headers={"Retry-After": "5"},
                      health="degraded", database="ok", schema_version=version, writes=shown)
    ratings = checked["ratings"]
    status = "degraded" if ratings and ratings.get("failures") else "ok"
    return {"status": status, "database": "ok", "schema_version": version, "writes": shown,
            "analysis": checked["analysis"], "ratings": ratings}


@blp.route("/metrics", methods=["GET"])
@blp.response(200, {"type": "string"}, content_type=CONTENT_TYPE,
              description="Prometheus text exposition format 0.0.4")
@blp.doc(summary="Request counts, latency histogram and games stored by status")
def metrics() -> Response:
    store = current_store()
    by_status: dict[str, int] | None = None
    writes: dict[str, int] | None = None
    try:
        by_status = store.games_by_status()
        writes = store.write_counts()
        writes = {**writes, "analysis": _analysis_health(store),
                  "ratings": _rating_health(store)}
    except Exception:
        current_app.logger.exception("metrics: the database does not answer")
    return Response(metrics_of_app().render(by_status, writes), content_type=CONTENT_TYPE)

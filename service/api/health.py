"""GET /healthz and GET /metrics: for load balancers and Prometheus.

Both stay open when API keys are configured: they reveal no game data, and probes
rarely carry credentials.
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from .config import current_store
from .metrics import CONTENT_TYPE, metrics_of_app
from .problems import DATABASE_UNAVAILABLE, Problem
from .spec import PREFIX, problem_responses

blp = Blueprint("health", __name__, url_prefix=PREFIX, description="Health and metrics")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})
    database = fields.String(required=True, metadata={"example": "ok"})
    schema_version = fields.Integer(required=True, metadata={"example": 1})


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema)
@problem_responses(blp, 503)
@blp.doc(summary="Whether the service and its database answer")
def healthz() -> dict[str, Any]:
    store = current_store()
    try:
        if not store.ping():
            raise RuntimeError("the database answered SELECT 1 wrongly")
        version = store.schema_version
    except Exception:
        current_app.logger.exception("health check: the database does not answer")
        raise Problem(503, DATABASE_UNAVAILABLE, "the database does not answer",
                      headers={"Retry-After": "5"}, database="unavailable") from None
    return {"status": "ok", "database": "ok", "schema_version": version}


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
    except Exception:
        current_app.logger.exception("metrics: the database does not answer")
    return Response(metrics_of_app().render(by_status, writes), content_type=CONTENT_TYPE)

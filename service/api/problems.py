"""RFC 9457 problem details: the one shape of every error the API answers.

Every 4xx and 5xx, whether raised by a view (:class:`Problem`), by Flask/Werkzeug
(unknown route, wrong method, body too large), by argument parsing (webargs) or by a
bug, leaves as ``application/problem+json`` with a stable ``type``.  Unexpected
exceptions are logged with their traceback and answered with a generic 500: a stack
trace never reaches the client.  The same types name the errors answered before the
app: those of the gunicorn worker (service/http_worker.py), a request whose head stalls
(408) or cannot be read (400, 414, 431, 501), and the proxy's own (deploy/nginx.conf).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import orjson
from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException

from ..store import StoreBusy, StoreError

MEDIA_TYPE = "application/problem+json"

# The stable problem types, by the status they are answered with.
BAD_REQUEST = "bad-request"  # 400
INVALID_PARAMETER = "invalid-parameter"  # 400: a query or path parameter
INVALID_CURSOR = "invalid-cursor"  # 400: a pagination cursor not made by this API
UNAUTHORIZED = "unauthorized"  # 401
FORBIDDEN = "forbidden"  # 403
NOT_FOUND = "not-found"  # 404
NO_SUCH_POSITION = "no-such-position"  # 404: a deal or move the game does not have
METHOD_NOT_ALLOWED = "method-not-allowed"  # 405
READ_ONLY = "read-only"  # 405: the service serves an audit's results (RUMMY_LAKE), no writes
GAME_DELETED = "game-deleted"  # 410 reading a deleted game; 409 uploading its log again
NOT_ACCEPTABLE = "not-acceptable"  # 406
REQUEST_TIMEOUT = "request-timeout"  # 408: the client stopped sending its request
PAYLOAD_TOO_LARGE = "payload-too-large"  # 413
URI_TOO_LONG = "uri-too-long"  # 414: by the worker or the proxy, before the app
UNSUPPORTED_MEDIA_TYPE = "unsupported-media-type"  # 415
VALIDATION_ERROR = "validation-error"  # 422: the log does not have the rummy-log/1 shape
BATCH_STOPPED = "batch-stopped"  # 422: a batch ended early by its malformed lines
EXPECTATION_FAILED = "expectation-failed"  # 417: by the worker, an Expect it cannot meet
HEADER_FIELDS_TOO_LARGE = "header-fields-too-large"  # 431: by the worker or the proxy
INTERNAL_ERROR = "internal-error"  # 500
NOT_IMPLEMENTED = "not-implemented"  # 501: a transfer coding (or method) not supported
BAD_GATEWAY = "bad-gateway"  # 502: by the proxy, the service not reachable
DATABASE_UNAVAILABLE = "database-unavailable"  # 503
GATEWAY_TIMEOUT = "gateway-timeout"  # 504: by the proxy, the service not answering
HTTP_VERSION_NOT_SUPPORTED = "http-version-not-supported"  # 505: by the proxy
DEGRADED = "degraded"  # 503: /healthz, the database answers but the last write failed
STORE_BUSY = "store-busy"  # 503: too many games wait to be written; try again shortly
RULING_NOT_ALLOWED = "ruling-not-allowed"  # 409: a ruling the game's verdict does not allow
NO_RULING = "no-ruling"  # 404: a game without a ruling (in force, for DELETE)
REPLACES_ITSELF = "replaces-itself"  # 409: a log sent to replace its own stored game
NOT_AT_TABLE = "not-at-table"  # 409: a game to keep that is not a live game of the table
# 409: a correction naming another variant, tournament, round or table than its game
REPLACEMENT_ELSEWHERE = "replacement-elsewhere"
VERIFIER_UNAVAILABLE = "verifier-unavailable"  # 503: a batch line whose verifying process ended
NOT_WITHDRAWN = "not-withdrawn"  # 409: restoring a game that is live
REPLACED = "replaced"  # 409: restoring a game whose correction is still live

_BY_STATUS = {400: BAD_REQUEST, 401: UNAUTHORIZED, 403: FORBIDDEN, 404: NOT_FOUND,
              405: METHOD_NOT_ALLOWED, 406: NOT_ACCEPTABLE, 408: REQUEST_TIMEOUT,
              413: PAYLOAD_TOO_LARGE, 414: URI_TOO_LONG, 415: UNSUPPORTED_MEDIA_TYPE,
              417: EXPECTATION_FAILED, 422: VALIDATION_ERROR, 431: HEADER_FIELDS_TOO_LARGE,
              500: INTERNAL_ERROR, 501: NOT_IMPLEMENTED, 502: BAD_GATEWAY,
              503: DATABASE_UNAVAILABLE, 504: GATEWAY_TIMEOUT, 505: HTTP_VERSION_NOT_SUPPORTED}

PROBLEM_TYPES: tuple[str, ...] = (
    BAD_REQUEST, INVALID_PARAMETER, INVALID_CURSOR, UNAUTHORIZED, FORBIDDEN, NOT_FOUND,
    NO_SUCH_POSITION, METHOD_NOT_ALLOWED, READ_ONLY, GAME_DELETED, NOT_ACCEPTABLE, REQUEST_TIMEOUT,
    PAYLOAD_TOO_LARGE, URI_TOO_LONG, UNSUPPORTED_MEDIA_TYPE, EXPECTATION_FAILED,
    VALIDATION_ERROR, BATCH_STOPPED, HEADER_FIELDS_TOO_LARGE, INTERNAL_ERROR, NOT_IMPLEMENTED,
    BAD_GATEWAY, DATABASE_UNAVAILABLE, GATEWAY_TIMEOUT, HTTP_VERSION_NOT_SUPPORTED, DEGRADED,
    STORE_BUSY, VERIFIER_UNAVAILABLE, RULING_NOT_ALLOWED, NO_RULING, REPLACES_ITSELF,
    NOT_AT_TABLE, REPLACEMENT_ELSEWHERE, NOT_WITHDRAWN, REPLACED)

# What a validation problem lists of a document's errors: its answer stays small however
# many fields are wrong and however long the keys the document invented.
MAX_FIELD_ERRORS = 10  # field paths
MAX_MESSAGES = 3  # messages of one path
MAX_PATH = 120  # characters of a path
MAX_MESSAGE = 200  # characters of a message


def type_uri(kind: str) -> str:
    """The ``type`` member of a problem: a relative URI, stable across releases."""
    return f"/problems/{kind}"


def kind_of_status(status: int) -> str:
    return _BY_STATUS.get(status, f"http-{status}")


class Problem(HTTPException):
    """An error a view answers on purpose: ``raise Problem(404, NOT_FOUND, "...")``."""

    def __init__(self, status: int, kind: str, detail: str,
                 errors: dict[str, list[str]] | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(description=detail)
        self.code = status
        self.kind = kind
        self.errors = errors
        self.extra_headers = headers or {}
        self.extra = extra


def problem_body(status: int, kind: str, detail: str,
                 errors: dict[str, list[str]] | None = None, **extra: Any) -> dict[str, Any]:
    """The problem object; ``errors`` maps field paths to messages."""
    body: dict[str, Any] = {"type": type_uri(kind), "title": HTTPStatus(status).phrase,
                            "status": status, "detail": detail}
    if errors is not None:
        body["errors"] = errors
    body.update(extra)
    return body


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def validation_problem(detail: str,
                       errors: dict[str, list[str]]) -> tuple[str, dict[str, list[str]]]:
    """The detail and the errors a validation problem shows: the first
    ``MAX_FIELD_ERRORS`` paths (the detail then says how many there were), at most
    ``MAX_MESSAGES`` messages each, paths and messages cut to ``MAX_PATH`` and
    ``MAX_MESSAGE`` characters."""
    shown: dict[str, list[str]] = {}
    for path, messages in list(errors.items())[:MAX_FIELD_ERRORS]:
        listed = shown.setdefault(_cut(path, MAX_PATH), [])
        listed.extend(_cut(message, MAX_MESSAGE) for message in messages)
        del listed[MAX_MESSAGES:]
    if len(errors) > MAX_FIELD_ERRORS:
        detail = f"{detail}; the first {MAX_FIELD_ERRORS} of {len(errors)} invalid fields " \
                 "are listed"
    return detail, shown


def problem_response(status: int, kind: str, detail: str,
                     errors: dict[str, list[str]] | None = None,
                     headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body = problem_body(status, kind, detail, errors, **extra)
    body["instance"] = request.path
    response = Response(orjson.dumps(body) + b"\n", status=status, mimetype=MEDIA_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def flatten_messages(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow/webargs messages (nested by location and field) as path -> messages;
    the location (``query``, ``json``) is dropped and ``_schema`` is the parent path."""
    out: dict[str, list[str]] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                key = str(key)
                if not path and key in ("query", "json", "view_args", "headers", "form"):
                    walk(value, "")
                elif key == "_schema":
                    walk(value, path)
                else:
                    walk(value, f"{path}.{key}" if path else key)
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item, path)
        else:
            out.setdefault(path, []).append(str(node))

    walk(messages, prefix)
    return out


def _http_problem(error: HTTPException) -> Response:
    status = error.code or 500
    headers = {name: value for name, value in error.get_headers()
               if name.lower() != "content-type"}
    if isinstance(error, Problem):
        headers.update(error.extra_headers)
        return problem_response(status, error.kind, error.description or "", error.errors,
                                headers, **error.extra)
    data = getattr(error, "data", None)  # webargs: argument validation failed
    if isinstance(data, dict) and "messages" in data:
        errors = flatten_messages(data["messages"])
        headers.update(data.get("headers") or {})
        kind = INVALID_PARAMETER if status == 400 else kind_of_status(status)
        return problem_response(status, kind, "some parameters are not valid", errors,
                                headers)
    if status >= 500:
        current_app.logger.error("HTTP %s on %s %s: %s", status, request.method,
                                 request.path, error.description)
    return problem_response(status, kind_of_status(status), error.description or "",
                            headers=headers)


def http_problem(error: HTTPException) -> Response:
    """The problem+json answer of an HTTP error (for other layers' error handlers)."""
    return _http_problem(error)


def _store_problem(error: StoreError) -> Response:
    current_app.logger.exception("database error on %s %s", request.method, request.path)
    return problem_response(503, DATABASE_UNAVAILABLE, "the database is not available; "
                            "try again later", headers={"Retry-After": "5"})


def _busy(error: StoreBusy) -> Response:
    """Back-pressure: answered at once, without waiting for the writer, and logged
    without a traceback (a burst may refuse many uploads)."""
    current_app.logger.warning("store busy on %s %s: %s", request.method, request.path, error)
    return problem_response(503, STORE_BUSY, f"the service is busy writing: {error}; "
                            "try again shortly", headers={"Retry-After": "1"})


def _unexpected(error: Exception) -> Response:
    current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
    return problem_response(500, INTERNAL_ERROR, "an unexpected error occurred; it has "
                            "been logged")


def install(app: Flask) -> None:
    """Answer every error of the app as a problem."""
    app.register_error_handler(HTTPException, _http_problem)
    app.register_error_handler(StoreError, _store_problem)
    app.register_error_handler(StoreBusy, _busy)
    app.register_error_handler(Exception, _unexpected)

"""Logs with known verdicts and small helpers shared by the API tests."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import EnvironBuilder, TestResponse
from werkzeug.wrappers import Request

from service.api.config import STORE_EXTENSION
from service.store import Store
from tests.engine.test_gin import KNOCK, gin_game
from tests.engine.test_rummy import basic

API = "/api/v1"
PROBLEM = "application/problem+json"


def valid(**changes: Any) -> dict[str, Any]:
    """A valid one-deal gin game; ``changes`` (e.g. a distinct ``id``) make new games."""
    return gin_game(KNOCK) | changes


def valid_rummy(**changes: Any) -> dict[str, Any]:
    return basic() | changes


def illegal(**changes: Any) -> dict[str, Any]:
    """Ana discards 2H, a card she does not hold: CARD_NOT_IN_HAND at deal 0, move 1."""
    return gin_game(["ana ds AH", "ana x 2H"]) | changes


def incomplete(**changes: Any) -> dict[str, Any]:
    return gin_game(["ana ds AH"]) | changes


def mismatch(**changes: Any) -> dict[str, Any]:
    return gin_game(KNOCK, claimed={"points": {"ana": 5, "ben": 0}, "winner": "ana",
                                    "outcome": "knock"}) | changes


def malformed() -> dict[str, Any]:
    """A typo (``moevs``, so ``moves`` is missing) and an upcard that is no card."""
    log = copy.deepcopy(valid())
    log["deals"][0]["moevs"] = log["deals"][0].pop("moves")
    log["deals"][0]["upcard"] = "1X"
    return log


def post_log(client: FlaskClient, log: Any, query: str = "", **kwargs: Any) -> TestResponse:
    body = log if isinstance(log, bytes) else orjson.dumps(log)
    headers = kwargs.pop("headers", {})
    return client.post(f"{API}/games{query}", data=body, content_type="application/json",
                       headers=headers, **kwargs)


def post_chunked(client: FlaskClient, path: str, stream: Any, content_type: str,
                 buffered: bool = True, headers: dict[str, str] | None = None) -> TestResponse:
    """POST a body without Content-Length, as a chunked upload arrives; unbuffered,
    the answer is produced as its body is iterated."""
    environ = EnvironBuilder(path=path, method="POST", content_type=content_type,
                             headers=headers).get_environ()
    environ.pop("CONTENT_LENGTH", None)
    environ["wsgi.input"] = stream
    environ["wsgi.input_terminated"] = True
    return client.open(Request(environ), buffered=buffered)


def ndjson(*logs: Any) -> bytes:
    lines = [log if isinstance(log, bytes) else orjson.dumps(log) for log in logs]
    return b"\n".join(lines) + b"\n"


def lines_of(response: TestResponse) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in response.data.splitlines() if line.strip()]


def store_of(app: Flask) -> Store:
    return app.extensions[STORE_EXTENSION]


def counts(app: Flask) -> dict[str, int]:
    store = store_of(app)
    return {table: store.count(table) for table in ("games", "moves", "violations")}


def assert_problem(response: TestResponse, status: int, kind: str) -> dict[str, Any]:
    """The response is an RFC 9457 problem of this status and type, without a trace."""
    assert response.status_code == status, response.data
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert body["type"] == f"/problems/{kind}"
    assert body["status"] == status
    assert body["title"] and isinstance(body["detail"], str)
    assert b"Traceback" not in response.data and b'File "' not in response.data
    return body

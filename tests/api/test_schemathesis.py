"""Schemathesis against the app's own OpenAPI document, every operation of it.

Requests are generated from the document (valid ones and, for each, invalid variants),
sent to the WSGI app with its real store, and every answer is checked: no 5xx; the
status, content type, headers and body as documented; every error an RFC 9457
problem; and a request the document allows is not refused (400), except for what no
schema can say and the document says in words: a page cursor is opaque (a made-up one
is refused as invalid-cursor), and a log that has the documented shape may still break
the rules of the format (422, the verdict of the log validator, on POST /games).

No operation is left out.  POST /games/batch takes NDJSON, which schemathesis does not
serialize: the serializer below writes its generated body as the lines sent (and one
check does not apply there: see the test).
The run is seeded and bounded (EXAMPLES per operation) to stay well under a minute.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import hypothesis
import orjson
import pytest
import schemathesis
from schemathesis import checks

from service.api import close_app, create_app
from service.api.config import VARIABLES

from .helpers import valid

pytestmark = pytest.mark.filterwarnings("ignore")

EXAMPLES = 25
ROOT = Path(__file__).resolve().parents[2]
_DIR = tempfile.TemporaryDirectory(prefix="rummy-schemathesis-")
APP = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_DB": f"{_DIR.name}/st.duckdb",
                  "RUMMY_STORE_PROCESS": "0", "RUMMY_VERIFY_PROCESSES": "0"})
_client = APP.test_client()
for _sample in sorted((ROOT / "sample_logs").glob("*.json")):  # something to read back
    _client.post("/api/v1/games", data=_sample.read_bytes(), content_type="application/json")

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", APP)


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value):
    """A generated batch body: text as it is, anything else as one JSON line."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    try:
        return orjson.dumps(value) + b"\n"
    except TypeError:  # an integer past 64 bits, which JSON allows and orjson does not
        return json.dumps(value).encode() + b"\n"


@pytest.fixture(scope="module", autouse=True)
def _close_the_app():
    yield
    close_app(APP)
    _DIR.cleanup()


PROBLEM_MEMBERS = {"type", "title", "status", "detail"}


@schemathesis.check
def errors_are_problems(ctx, response, case):
    """Every 4xx and 5xx is application/problem+json with its members."""
    if response.status_code < 400:
        return None
    headers = {name.lower(): value for name, value in response.headers.items()}
    media = headers.get("content-type", [""])
    media = media[0] if isinstance(media, list) else media
    assert media.startswith("application/problem+json"), (response.status_code, media)
    body = orjson.loads(response.content)
    assert set(body) >= PROBLEM_MEMBERS and body["status"] == response.status_code, body
    assert body["type"].startswith("/problems/"), body
    return None


@schemathesis.check
def allowed_requests_are_not_refused(ctx, response, case):
    """A request generated as valid by the document is not refused for its parameters."""
    meta = case._meta  # which parts of the request were generated as invalid
    if meta is None or meta.generation.mode.is_negative:
        return None
    if response.status_code == 400:
        body = orjson.loads(response.content)
        if case.path == "/api/v1/predict" and set(body.get("errors", {})) == {"players"}:
            return None  # sides the variant cannot have: said in words, not by a schema
        assert body.get("type") == "/problems/invalid-cursor", body
    if response.status_code == 422:
        body = orjson.loads(response.content)
        said_in_words = CROSS_FIELD.get((case.method.upper(), case.path))
        if said_in_words is not None and all(
                path in said_in_words or SAID_OF_A_SCHEDULE.fullmatch(path)
                for path in body.get("errors", {})):
            return None
        assert (case.method.upper(), case.path) == ("POST", "/api/v1/games"), case.path
    return None


# Rules between fields, documented in words: a forfeit names one of the game's players
# (and only a forfeit names one); a tournament's dates end after they start, its
# tie-breaks are each given once; its schedule holds each round and table once, and
# names and tables as a log could hold them (no control character, no space at an end).
CROSS_FIELD = {("PUT", "/api/v1/games/{game_id}/ruling"): {"against"},
               ("PUT", "/api/v1/tournaments/{tournament_id}/settings"): {"dates.end",
                                                                          "tie_breaks"}}


SAID_OF_A_SCHEDULE = re.compile(r"schedule\.[0-9]+\.(table|players\.[0-9]+)")


CHECKS = [checks.not_a_server_error, checks.status_code_conformance,
          checks.content_type_conformance, checks.response_headers_conformance,
          checks.response_schema_conformance, checks.negative_data_rejection,
          errors_are_problems, allowed_requests_are_not_refused]


@schema.parametrize()
@hypothesis.settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                     suppress_health_check=list(hypothesis.HealthCheck), database=None)
def test_the_api_keeps_to_its_document(case):
    kept = CHECKS
    if case.path == "/api/v1/games/batch":
        # Not checked there: that an invalid body is refused.  The batch answers 200 with
        # an error line for each bad line (documented; a bad line never stops the
        # others), and on the wire every body is text, which the document allows: a
        # body generated as "not a string" is one only before it is serialized.
        kept = [check for check in CHECKS if check is not checks.negative_data_rejection]
    case.call_and_validate(checks=kept)


def test_the_run_covers_every_operation():
    """Nothing is excluded: every documented operation is generated for."""
    spec = _client.get("/api/v1/openapi.json").get_json()
    documented = {(method.upper(), path) for path, item in spec["paths"].items()
                  for method in item if method != "parameters"}
    generated = {(op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations()}
    assert generated == documented and len(documented) >= 17
    assert valid()  # the helpers' logs load (the samples above are uploaded too)

"""Page cursors are signed with the server's secret and checked value by value: a cursor
made by hand (with the unkeyed digest of old, or signed but holding values of the wrong
type or range), or made for another listing, is a 400 ``invalid-cursor``, never a 500 or
503, and never answers figures it made up."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from service.api import close_app
from service.api.pagination import VERSION, fingerprint

from .conftest import _build
from .helpers import API, assert_problem, lines_of, ndjson, valid

SECRET = "a-secret-of-the-cursor-tests"
SCOPES: dict[str, tuple[str, dict[str, Any]]] = {
    # path: (listing, the scope of a first page without parameters)
    "/games": ("games", {}),
    "/players": ("players", {"sort": "wins", "order": "desc", "min_games": 0}),
    "/ratings": ("ratings", {"min_games": 0}),
    "/tournaments": ("tournaments", {}),
}


def wrapped(token: bytes) -> str:
    return base64.urlsafe_b64encode(token).decode().rstrip("=")


def signed(payload: Any, secret: str = SECRET, raw: bytes | None = None) -> str:
    """A cursor signed as the server signs them, with ``secret``."""
    text = raw if raw is not None else json.dumps(payload, separators=(",", ":")).encode()
    key = hmac.new(secret.encode(), b"rummy-audit page cursors", hashlib.sha256).digest()
    return wrapped(text + b"|" + hmac.new(key, text, hashlib.sha256).hexdigest()[:32].encode())


def old_digest(key: list[Any], scope: dict[str, Any]) -> str:
    """A cursor with the unkeyed SHA-256 digest cursors had before they were signed."""
    parts = sorted(f"{k}={v}" for k, v in scope.items() if v is not None)
    digest = hashlib.sha256("&".join(parts).encode()).hexdigest()[:12]
    payload = json.dumps(["c1", key, digest], separators=(",", ":"))
    return wrapped(f"{payload}|{hashlib.sha256(payload.encode()).hexdigest()[:12]}".encode())


@pytest.fixture(scope="module")
def app(tmp_path_factory, store_process) -> Iterator[Flask]:
    app = _build(tmp_path_factory.mktemp("cursors") / "rummy.duckdb",
                 RUMMY_STORE_PROCESS=store_process, RUMMY_LABEL_SECRET=SECRET)
    logs = [valid(id=f"c{i}", tournament={"id": f"t{i % 3}", "round": 1}) for i in range(6)]
    logs += [json.loads(json.dumps(valid(id=f"d{i}")).replace('"ben"', f'"ben{i}"')
                        .replace('"ben ', f'"ben{i} ')) for i in range(4)]
    response = app.test_client().post(f"{API}/games/batch", data=ndjson(*logs),
                                      content_type="application/x-ndjson")
    assert all("id" in line for line in lines_of(response))
    yield app
    close_app(app)


@pytest.fixture
def client(app):
    return app.test_client()


def next_cursor(client, path: str) -> str:
    body = client.get(f"{API}{path}?limit=1").get_json()
    assert body["next"] is not None
    return body["next"].rsplit("cursor=", 1)[1]


@pytest.mark.parametrize("path", list(SCOPES))
def test_a_real_walk_still_works(client, path):
    url: str | None = f"{API}{path}?limit=2"
    rows = 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.data
        body = response.get_json()
        rows += len(next(v for k, v in body.items() if isinstance(v, list)))
        url = body["next"]
    whole = client.get(f"{API}{path}?limit=500").get_json()
    assert rows == len(next(v for k, v in whole.items() if isinstance(v, list))) > 2


FORGED_KEYS = {
    "/games": [[0], [10**30], ["1"]],
    "/players": [[10**30, "zzz", 0], ["many", "zzz", 0], [{"a": 1}, "ana", 0]],
    "/ratings": [[1e30, "gin", "ana", 0], ["x", "gin", "ana", 0], [1.0, "gin", "ana", 10**30]],
    "/tournaments": [[""], [{"id": "t1"}]],
}


@pytest.mark.parametrize("path", list(SCOPES))
def test_cursors_with_the_unkeyed_digest_of_old_are_refused(client, path):
    _, scope = SCOPES[path]
    for key in FORGED_KEYS[path]:
        assert_problem(client.get(f"{API}{path}?cursor={old_digest(key, scope)}"), 400,
                       "invalid-cursor")


@pytest.mark.parametrize("path", list(SCOPES))
def test_a_cursor_signed_with_another_secret_is_refused(client, path):
    listing, scope = SCOPES[path]
    for key in FORGED_KEYS[path]:
        forged = signed([VERSION, listing, key, None, fingerprint(listing, scope)],
                        secret="not-the-servers-secret")
        assert_problem(client.get(f"{API}{path}?cursor={forged}"), 400, "invalid-cursor")


WRONG_KEYS = {
    "/games": [["12"], [-1], [2**63], [10**30], [1.5], [True], [None], [[3]], [{"seq": 3}],
               [], [1, 2], "3", {"seq": 3}],
    "/players": [["many", "ana", 1], [1e30, "ana", 1], [10**30, "ana", 1], [1, 2, 1],
                 [1, "ana", "1"], [1, "ana", -1], [1, {"a": "b"}, 1], [[1], "ana", 1],
                 [1, "a" * 300, 1], [None, "ana", 1], [1, "ana"], [True, "ana", 1]],
    "/ratings": [["x", "gin", "ana", 0], [1e30, "gin", "ana", 0], [1, 7, "ana", 0],
                 [1, "gin", None, 0], [1, "gin", "ana", 1e3], [1, "gin", "ana", 10**30],
                 [{"o": 1}, "gin", "ana", 0], [1, "gin", "ana"]],
    "/tournaments": [[3], [None], [["t1"]], [{"id": "t1"}], ["t" * 300], []],
}


@pytest.mark.parametrize("path", list(SCOPES))
def test_signed_cursors_with_values_of_the_wrong_type_or_range_are_400(client, path):
    """Signed with the server's own secret (as a leaked secret or a bug would let
    through): every value is still checked before it reaches the store."""
    listing, scope = SCOPES[path]
    digest = fingerprint(listing, scope)
    payloads: list[Any] = [[VERSION, listing, key, None, digest] for key in WRONG_KEYS[path]]
    payloads += [
        [VERSION, listing, [1], 7, digest],  # a snapshot that is no id
        [VERSION, listing, [1], {"s": 1}, digest],
        [VERSION, listing, [1], "../x", digest],
        ["c1", listing, [1], None, digest],  # another version
        [VERSION, listing, [1], None],  # too short
        {"version": VERSION},  # not a list
        "text", 12, None,
    ]
    for payload in payloads:
        response = client.get(f"{API}{path}?cursor={signed(payload)}")
        assert_problem(response, 400, "invalid-cursor")
    for raw in (b"not json", b"[1e999999", b"\xff\xfe", b"NaN", b"[" * 200):
        assert_problem(client.get(f"{API}{path}?cursor={signed(None, raw=raw)}"), 400,
                       "invalid-cursor")
    nan = signed(None, raw=f'["{VERSION}","{listing}",[NaN,"a",1],null,"{digest}"]'.encode())
    assert_problem(client.get(f"{API}{path}?cursor={nan}"), 400, "invalid-cursor")


@pytest.mark.parametrize("path", list(SCOPES))
def test_cursors_that_are_no_base64_or_too_long_are_400(client, path):
    for bad in ("%00", "a", "a=b", "////", "-" * 1001, wrapped(b"\xff" * 30),
                wrapped(b"x" * 800), "A" * 999):
        assert_problem(client.get(f"{API}{path}?cursor={bad}"), 400, "invalid-cursor")


def test_a_cursor_of_one_listing_is_refused_by_another(client):
    cursors = {path: next_cursor(client, path) for path in SCOPES}
    for made, cursor in cursors.items():
        for used in SCOPES:
            response = client.get(f"{API}{used}?limit=1&cursor={cursor}")
            if used == made:
                assert response.status_code == 200, response.data
            else:
                assert_problem(response, 400, "invalid-cursor")
    # A player's rating history is a listing of its own, bound to its player.
    history = client.get(f"{API}/players/ana/ratings?limit=1").get_json()["next"]
    cursor = history.rsplit("cursor=", 1)[1]
    assert client.get(f"{API}/players/ana/ratings?limit=1&cursor={cursor}").status_code == 200
    assert_problem(client.get(f"{API}/players/ben0/ratings?limit=1&cursor={cursor}"), 400,
                   "invalid-cursor")
    assert_problem(client.get(f"{API}/ratings?cursor={cursor}"), 400, "invalid-cursor")


@pytest.mark.parametrize("path", ["/games", "/players", "/tournaments"])
def test_the_pages_refuse_bad_cursors_too(client, path):
    listing, scope = SCOPES[path]
    headers = {"Accept": "text/html"}
    page = client.get(f"{path}?limit=1", headers=headers)
    assert page.status_code == 200
    forged = old_digest(FORGED_KEYS[path][0], scope)
    wrong = signed([VERSION, listing, WRONG_KEYS[path][0], None, fingerprint(listing, scope)])
    for bad in (forged, wrong, "%00"):
        assert client.get(f"{path}?cursor={bad}", headers=headers).status_code == 400

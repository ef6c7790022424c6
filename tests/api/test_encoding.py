"""Content-Encoding of uploads: gzip inflated within the limits, anything else 415."""

from __future__ import annotations

import gzip
import io
import os
import tracemalloc

import orjson
import pytest

from .helpers import API, assert_problem, counts, lines_of, ndjson, post_chunked, valid

BATCH = f"{API}/games/batch"
ZEROS = gzip.compress(bytes(1 << 20), 9)  # one MiB of zeros in about a kilobyte


def post(client, path: str, body: bytes, encoding: str | None = "gzip",
         content_type: str = "application/json"):
    headers = {"Content-Encoding": encoding} if encoding else {}
    return client.post(path, data=body, content_type=content_type, headers=headers)


def test_a_gzipped_log_is_stored_as_inflated(app, client):
    raw = orjson.dumps(valid(id="zipped"))
    response = post(client, f"{API}/games", gzip.compress(raw))
    assert response.status_code == 201, response.data
    assert client.get(response.get_json()["links"]["log"]).data == raw
    again = post(client, f"{API}/games", gzip.compress(raw), "identity, x-gzip")
    assert again.status_code == 200 and again.get_json()["created"] is False


def test_a_gzipped_batch_in_several_members(app, client):
    body = ndjson(*[valid(id=f"z{i}") for i in range(5)])
    members = gzip.compress(body[:1000]) + gzip.compress(body[1000:])
    response = post(client, BATCH, members, content_type="application/x-ndjson")
    results = lines_of(response)
    assert [r["line"] for r in results] == [1, 2, 3, 4, 5] and all(r["created"] for r in results)
    assert counts(app)["games"] == 5


@pytest.mark.parametrize("encoding", ["br", "deflate", "gzip, br", "compress", "gzip, gzip"])
@pytest.mark.parametrize("path", ["/games", "/games/batch"])
def test_other_codings_are_415(shared_app, encoding, path):
    client = shared_app.test_client()
    before = counts(shared_app)
    response = post(client, API + path, ndjson(valid(id=encoding)), encoding,
                    "application/json" if path == "/games" else "application/x-ndjson")
    problem = assert_problem(response, 415, "unsupported-media-type")
    assert response.headers["Accept-Encoding"] == "gzip"
    assert "Content-Encoding" in problem["detail"]
    assert counts(shared_app) == before


def test_the_size_limit_is_that_of_the_inflated_log(make_app):
    client = make_app(RUMMY_MAX_GAME_BYTES=10_000).test_client()
    padded = orjson.dumps(valid(meta={"pad": "x" * 20_000}))
    assert len(gzip.compress(padded)) < 1_000
    assert_problem(post(client, f"{API}/games", gzip.compress(padded)), 413,
                   "payload-too-large")


def test_a_broken_gzip_body_is_400(client):
    raw = gzip.compress(orjson.dumps(valid()))
    for body in (b"not gzip", raw[: len(raw) // 2]):
        assert_problem(post(client, f"{API}/games", body), 400, "bad-request")
        assert_problem(post(client, BATCH, body, content_type="application/x-ndjson"), 400,
                       "bad-request")


def test_a_batch_whose_gzip_breaks_after_some_lines_ends_with_an_error_line(app, client):
    body = ndjson(*[valid(id=f"b{i}") for i in range(3)]) + os.urandom(1 << 20).hex().encode()
    data = gzip.compress(body)
    results = lines_of(post(client, BATCH, data[:-100], content_type="application/x-ndjson"))
    assert [r["line"] for r in results] == [1, 2, 3, 4]
    assert all(r["created"] for r in results[:3])
    assert results[-1]["error"]["type"] == "/problems/bad-request"
    assert "ends inside its gzip data" in results[-1]["error"]["detail"]
    assert counts(app)["games"] == 3


def _peak_while(call) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("path", ["/games", "/games/batch"])
def test_a_gzip_bomb_is_413_without_inflating_it(app, path):
    """A GiB of zeros in a MiB of gzip (1,024 members): 413 before any line, and never
    more than a few MiB held."""
    bomb = ZEROS * 1024
    client = app.test_client()
    content_type = "application/json" if path == "/games" else "application/x-ndjson"
    response, peak = _peak_while(lambda: post_chunked(
        client, API + path, io.BytesIO(bomb), content_type, headers={"Content-Encoding": "gzip"}))
    problem = assert_problem(response, 413, "payload-too-large")
    assert peak < 16 << 20, peak
    if path == "/games/batch":
        assert "inflates to more than 200 times" in problem["detail"]
    assert counts(app)["games"] == 0


def test_gzip_of_nothing_past_the_batch_limit_ends_the_answer_with_an_error_line(make_app):
    """Empty gzip members inflate to nothing: the bytes received reach the cap first."""
    app = make_app(RUMMY_MAX_BATCH_BYTES=2 << 20)
    body = gzip.compress(ndjson(valid(id="first"), os.urandom(600_000).hex().encode()))
    body += gzip.compress(b"") * 80_000
    response = post_chunked(app.test_client(), BATCH, io.BytesIO(body),
                            "application/x-ndjson", headers={"Content-Encoding": "gzip"})
    results = lines_of(response)
    assert response.status_code == 200 and results[0]["created"]
    assert results[-1]["error"]["type"] == "/problems/payload-too-large"
    assert "lines from here on were not read" in results[-1]["error"]["detail"]
    assert counts(app)["games"] == 1

"""POST /games/batch: NDJSON in, one streamed result line per input line out."""

from __future__ import annotations

import io

import orjson
import pytest

from .helpers import (
    API,
    assert_problem,
    counts,
    illegal,
    lines_of,
    malformed,
    mismatch,
    ndjson,
    post_chunked,
    store_of,
    valid,
    valid_rummy,
)

BATCH = f"{API}/games/batch"


def post_batch(client, body: bytes, content_type: str = "application/x-ndjson"):
    return client.post(BATCH, data=body, content_type=content_type)


def test_good_illegal_and_malformed_lines_mixed(app, client):
    body = ndjson(valid(id="a"), illegal(), malformed(), b"", b"   ", b"{oops",
                  valid(id="a"), mismatch(), b"[1]", valid_rummy())
    response = post_batch(client, body)
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    results = lines_of(response)
    assert [r["line"] for r in results] == [1, 2, 3, 6, 7, 8, 9, 10]  # 4 and 5 are blank
    by_line = {r["line"]: r for r in results}
    assert by_line[1]["status"] == "valid" and by_line[1]["created"] is True
    assert by_line[2]["status"] == "illegal" and by_line[2]["created"] is True
    assert by_line[3]["error"]["type"] == "/problems/validation-error"
    assert by_line[3]["error"]["errors"]["deals.0.moevs"] == ["Unknown field."]
    assert by_line[6]["error"]["type"] == "/problems/validation-error"
    assert by_line[7] == {"line": 7, "id": by_line[1]["id"], "status": "valid",
                          "created": False}
    assert by_line[8]["status"] == "mismatch"
    assert "error" in by_line[9]
    assert by_line[10]["status"] == "valid"
    stored = {r["id"] for r in results if "id" in r}
    assert len(stored) == 4 and counts(app)["games"] == 4
    for gid in stored:
        assert client.get(f"{API}/games/{gid}").status_code == 200


def test_each_line_is_stored_byte_for_byte(client):
    line = orjson.dumps(valid(id="crlf"), option=orjson.OPT_INDENT_2).replace(b"\n", b" ")
    results = lines_of(post_batch(client, line + b"\r\n"))
    assert client.get(f"{API}/games/{results[0]['id']}/log").data == line


def test_many_lines_in_small_chunks_are_all_committed(make_app):
    app = make_app(RUMMY_BATCH_CHUNK=3)
    client = app.test_client()
    logs = [valid(id=f"g{i}") for i in range(10)] + [malformed()]
    results = lines_of(post_batch(client, ndjson(*logs)))
    assert [r["line"] for r in results] == list(range(1, 12))
    assert all(r["created"] for r in results[:10]) and "error" in results[10]
    assert counts(app)["games"] == 10


def test_a_line_over_the_game_limit_is_an_error_line(make_app):
    app = make_app(RUMMY_MAX_GAME_BYTES=2000)
    client = app.test_client()
    big = valid(id="big", meta={"pad": "x" * 5000})
    results = lines_of(post_batch(client, ndjson(valid(id="a"), big, valid(id="b"))))
    assert results[1] == {"line": 2, "error": results[1]["error"]}
    assert results[1]["error"]["type"] == "/problems/payload-too-large"
    assert results[0]["created"] and results[2]["created"]
    assert counts(app)["games"] == 2


def test_wrong_media_type_is_415(app, client):
    assert_problem(post_batch(client, ndjson(valid()), "application/json"), 415,
                   "unsupported-media-type")
    assert counts(app)["games"] == 0


def test_batch_over_the_limit_is_413_before_reading(make_app):
    app = make_app(RUMMY_MAX_BATCH_BYTES=1000)
    client = app.test_client()
    body = ndjson(*[valid(id=f"g{i}") for i in range(5)])
    assert len(body) > 1000
    assert_problem(post_batch(client, body), 413, "payload-too-large")
    assert counts(app)["games"] == 0


def test_chunked_batch_growing_past_the_limit_ends_with_an_error_line(make_app):
    app = make_app(RUMMY_MAX_BATCH_BYTES=100_000)
    client = app.test_client()
    line = ndjson(valid(id="x" * 100))
    body = b"".join(ndjson(valid(id=f"g{i}")) for i in range(3)) + line * 400
    response = post_chunked(client, BATCH, io.BytesIO(body), "application/x-ndjson")
    results = lines_of(response)
    assert response.status_code == 200
    assert results[-1]["error"]["type"] == "/problems/payload-too-large"
    assert results[-1]["line"] == len(results)  # the first line not read
    acknowledged = [r for r in results if "id" in r]
    assert acknowledged[:3] == [r for r in results[:3]] and all(r["created"] for r in results[:3])
    assert store_of(app).count("games") == len({r["id"] for r in acknowledged})


def test_empty_batch_answers_nothing(client):
    response = post_batch(client, b"")
    assert response.status_code == 200 and response.data == b""


def test_lines_verified_in_a_pool_of_processes(make_app, caplog):
    """The same verdicts, in the same order, when a pool of processes verifies."""
    app = make_app(RUMMY_VERIFY_PROCESSES=2, RUMMY_BATCH_CHUNK=4)
    client = app.test_client()
    logs = [valid(id=f"p{i}") for i in range(9)] + [malformed(), illegal(), b"{oops"]
    results = lines_of(post_batch(client, ndjson(*logs)))
    assert [r["line"] for r in results] == list(range(1, 13))
    assert all(r["created"] and r["status"] == "valid" for r in results[:9])
    assert results[9]["error"]["type"] == "/problems/validation-error"
    assert results[10]["status"] == "illegal"
    assert "error" in results[11]
    assert counts(app)["games"] == 10


class OneLineAtATime(io.RawIOBase):
    """A request body arriving a line at a time, counting the lines read so far."""

    def __init__(self, body: bytes):
        self.lines = body.splitlines(keepends=True)
        self.read_so_far = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.read_so_far == len(self.lines):
            return 0
        line = self.lines[self.read_so_far]
        assert len(line) <= len(buffer)
        buffer[:len(line)] = line
        self.read_so_far += 1
        return len(line)


@pytest.mark.parametrize("store_process", ["0", "1"])
def test_the_next_chunk_is_read_and_verified_before_one_is_answered(make_app, store_process):
    """The pool verifies a chunk while the one before is committed: by the time the
    first chunk's lines are answered, the second chunk has been read and sent."""
    app = make_app(RUMMY_VERIFY_PROCESSES="2", RUMMY_BATCH_CHUNK="2",
                   RUMMY_STORE_PROCESS=store_process)
    body = OneLineAtATime(ndjson(*[valid(id=f"n{i}") for i in range(5)], b"{oops"))
    response = post_chunked(app.test_client(), BATCH, body, "application/x-ndjson",
                            buffered=False)
    pieces = iter(response.response)
    first = next(piece for piece in pieces if piece.strip())
    assert [orjson.loads(line)["line"] for line in first.splitlines()] == [1, 2]
    assert body.read_so_far == 4
    results = [orjson.loads(line) for line in (first + b"".join(pieces)).splitlines()]
    response.close()
    assert [r["line"] for r in results] == [1, 2, 3, 4, 5, 6]
    assert all(r["created"] for r in results[:5]) and "error" in results[5]
    assert store_of(app).count("games") == 5


def test_a_line_repeating_a_key_is_an_error_line_naming_it(app, client):
    line = orjson.dumps(valid(id="twice")).replace(b'"id":"twice"', b'"id":"once","id":"twice"')
    results = lines_of(post_batch(client, ndjson(valid(id="a"), line, valid(id="b"))))
    assert results[1]["error"]["type"] == "/problems/validation-error"
    assert results[1]["error"]["errors"] == {
        "id": ["this key appears more than once in its object"]}
    assert results[0]["created"] and results[2]["created"]
    assert counts(app)["games"] == 2

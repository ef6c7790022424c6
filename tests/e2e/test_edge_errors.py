"""End to end, straight to the real gunicorn: requests the app cannot read or refuses
unread.  Malformed chunked bodies are 400 problems, requests the worker cannot read
are answered with problems too, and an answer that starts before its request's body was
read whole closes the connection (tests/e2e/test_proxy.py has the same through nginx)."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from .server import ROOT, Server

LOG = (ROOT / "sample_logs" / "gin-01.json").read_bytes()
UPLOAD = (b"POST /api/v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
          b"Transfer-Encoding: chunked\r\n\r\n")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("edge") / "rummy.duckdb",
                 env={"RUMMY_WORKERS": "1", "RUMMY_THREADS": "4"}).start()
    yield srv
    srv.stop()


def answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, dict(response.getheaders()), response.read()


def exchange(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` on a new connection and read the answer (at most 10 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        return answer(sock)


def problem(status: int, headers: dict[str, str], body: bytes, expected: int,
            kind: str) -> dict:
    assert status == expected, body[:300]
    assert headers["Content-Type"] == "application/problem+json", body[:300]
    found = json.loads(body)
    assert found["type"] == f"/problems/{kind}" and found["status"] == expected
    assert found["title"] and found["detail"]
    return found


def header_fields(count: int) -> bytes:
    return b"".join(b"X-Field-%d: x\r\n" % k for k in range(count))


@pytest.mark.parametrize("body", [
    pytest.param(b"0x5\r\nhello\r\n0\r\n\r\n", id="size-0x5"),
    pytest.param(b"5\nhello\n0\n\n", id="lf-only-lines"),
    pytest.param(b"5;" + b"e" * 100_000 + b"\r\nhello\r\n0\r\n\r\n", id="100-KB-extension"),
    pytest.param(b"5\r\nhello!!\r\n0\r\n\r\n", id="chunk-longer-than-its-size"),
    pytest.param(b"5\r\nhello\r\n0\r\nX Bad: trailer\r\n\r\n", id="bad-trailer"),
])
def test_a_malformed_chunked_body_is_a_400_problem_and_closes_the_connection(server, body):
    status, headers, text = exchange(server.port, UPLOAD + body)
    found = problem(status, headers, text, 400, "bad-request")
    assert found["detail"].startswith("the chunked body cannot be read")
    assert headers["Connection"] == "close"  # where the next request starts is unknown


def test_a_batch_whose_chunked_body_turns_malformed_ends_with_a_400_line(server):
    """A batch answers the lines read whole before the framing broke, then a 400 problem
    line, where gunicorn answered an HTML page of its own instead of the batch's answer."""
    line = LOG.replace(b"\n", b" ") + b"\n"
    head = (b"POST /api/v1/games/batch HTTP/1.1\r\nHost: test\r\n"
            b"Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
    body = b"%x\r\n%s\r\nzz\r\n" % (len(line), line)
    status, headers, text = exchange(server.port, head + body)
    assert status == 200 and headers["Connection"] == "close", text[:300]
    *answered, last = (json.loads(part) for part in text.splitlines())
    assert all("id" in result for result in answered), answered
    assert last["error"]["status"] == 400, last
    assert last["error"]["type"] == "/problems/bad-request"
    assert last["error"]["detail"].startswith("the chunked body cannot be read")


def test_a_well_formed_chunked_upload_still_goes_through(server):
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part)
                      for part in (LOG[:1000], LOG[1000:]))
    status, headers, text = exchange(server.port, UPLOAD + chunks + b"0\r\n\r\n")
    assert status in (200, 201), text
    assert headers["Connection"] == "keep-alive"


# (status, problem type, request): what the worker answers itself, the app never seeing
# the request.  The limits are gunicorn.conf.py's.
UNREADABLE = {
    "request-line-over-8190-bytes": (
        414, "uri-too-long",
        b"GET /api/v1/games?player=" + b"a" * (8191 - 34) + b" HTTP/1.1\r\nHost: t\r\n\r\n"),
    "101-header-fields": (
        431, "header-fields-too-large",
        b"GET /api/v1/healthz HTTP/1.1\r\nHost: t\r\n" + header_fields(100) + b"\r\n"),
    "a-header-field-over-16-KiB": (
        431, "header-fields-too-large",
        b"GET /api/v1/healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"b" * 16384 + b"\r\n\r\n"),
    "header-name-with-a-space": (
        400, "bad-request", b"GET /api/v1/healthz HTTP/1.1\r\nHost: t\r\nBad Name: x\r\n\r\n"),
    "malformed-request-line": (400, "bad-request", b"GET\r\nHost: t\r\n\r\n"),
    "header-without-colon": (
        400, "bad-request", b"GET /api/v1/healthz HTTP/1.1\r\nHost: t\r\nNoColon\r\n\r\n"),
    "content-length-and-chunked": (
        400, "bad-request", b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                            b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    "transfer-encoding-xchunked": (
        501, "not-implemented", b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\n"
                                b"Transfer-Encoding: xchunked\r\n\r\n"),
}


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_a_request_the_worker_cannot_read_is_answered_with_a_problem(server, case):
    expected, kind, request = UNREADABLE[case]
    status, headers, text = exchange(server.port, request)
    problem(status, headers, text, expected, kind)
    assert headers["Connection"] == "close"


def test_the_request_limits_are_gunicorn_confs(server):
    """The longest request line and the most header fields that pass (the 414 and 431
    above are one byte and one field over)."""
    line = b"GET /api/v1/healthz?" + b"a" * (8190 - 29) + b" HTTP/1.1"
    assert len(line) == 8190
    status, _, text = exchange(server.port, line + b"\r\nHost: t\r\n\r\n")
    assert status == 200, text
    fields = b"GET /api/v1/healthz HTTP/1.1\r\nHost: t\r\n" + header_fields(99) + b"\r\n"
    status, _, text = exchange(server.port, fields)
    assert status == 200, text


def test_an_answer_before_the_body_is_read_whole_closes_the_connection(server):
    """Refused unread (415 for its media type or its coding, 413 for its declared size),
    the answer says ``Connection: close`` and the connection ends: no next request on it
    can meet a connection closing under it.  A body read whole keeps it open."""
    body = b"x" * 200_000
    refused = [
        b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
        b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Content-Encoding: br\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
        b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body) * 6, body),  # over 1 MiB declared
    ]
    for request, (expected, kind) in zip(refused, [(415, "unsupported-media-type"),
                                                   (415, "unsupported-media-type"),
                                                   (413, "payload-too-large")], strict=True):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(request)
            status, headers, text = answer(sock)
            problem(status, headers, text, expected, kind)
            assert headers["Connection"] == "close"

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        upload = (b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json"
                  b"\r\nContent-Length: %d\r\n\r\n%s" % (len(LOG), LOG))
        for _ in range(2):  # the same connection serves the upload again
            sock.sendall(upload)
            status, headers, text = answer(sock)
            assert status in (200, 201), text
            assert headers["Connection"] == "keep-alive"

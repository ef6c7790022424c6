"""Slow and stalled clients against the real gunicorn, without a proxy: each gets a 408
problem within its read timeout and its thread is free again.  Short timeouts (1 s)
keep the tests fast; each test starts and stops its own server."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import orjson
import pytest

from service.generator import generate_games

from .server import Server

TIMEOUT = 1.0  # both read timeouts, in seconds
SLACK = 0.8  # how much later than its timeout an answer may come on a busy machine
TIMEOUTS = {"RUMMY_HEADER_TIMEOUT_S": str(TIMEOUT), "RUMMY_BODY_TIMEOUT_S": str(TIMEOUT)}

STALLED_HEAD = b"GET /api/v1/healthz HTTP/1.1\r\nHost: test\r\nAccept: */*\r\n"
STALLED_BODY = (b"POST /api/v1/games HTTP/1.1\r\nHost: test\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "rummy.duckdb", env=TIMEOUTS).start()
    yield srv
    srv.stop()


def send(server: Server, data: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(data)
    return sock


def answer(sock: socket.socket) -> tuple[http.client.HTTPResponse, bytes, bool]:
    """The response on ``sock``, its body, and whether the server closed the connection
    after it."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = response.read()
    try:
        closed = sock.recv(1) == b""
    except ConnectionResetError:
        closed = True
    sock.close()
    return response, body, closed


def timed(func):
    start = time.monotonic()
    result = func()
    return result, time.monotonic() - start


def assert_408(response: http.client.HTTPResponse, body: bytes, what: str) -> dict:
    assert response.status == 408, body
    assert response.getheader("Content-Type") == "application/problem+json"
    assert response.getheader("Connection") == "close"
    problem = json.loads(body)
    assert problem["type"] == "/problems/request-timeout"
    assert problem["title"] == "Request Timeout" and problem["status"] == 408
    assert what in problem["detail"]
    return problem


def test_a_stalled_head_gets_408_within_the_header_timeout(server):
    sock = send(server, STALLED_HEAD)
    (response, body, closed), waited = timed(lambda: answer(sock))
    assert_408(response, body, "head")
    assert closed
    assert TIMEOUT * 0.9 <= waited < TIMEOUT + SLACK


def test_a_head_trickling_in_is_cut_at_the_header_timeout(server):
    """The header timeout bounds the whole head, not the pause between two bytes."""
    sock = send(server, b"GET /api/v1/healthz HTTP/1.1\r\nHost: test\r\nX-Slow: ")
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(0.1):
            try:
                sock.send(b"a")
            except OSError:
                return

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        (response, body, _), waited = timed(lambda: answer(sock))
    finally:
        stop.set()
        sender.join()
    assert_408(response, body, "head")
    assert waited < TIMEOUT + SLACK


def test_a_stalled_body_gets_408_and_the_service_serves_the_others(server):
    sock = send(server, STALLED_BODY)
    (response, body, closed), waited = timed(lambda: answer(sock))
    problem = assert_408(response, body, "body")
    assert problem["instance"] == "/api/v1/games"  # answered by the app, like its others
    assert closed
    assert TIMEOUT * 0.9 <= waited < TIMEOUT + SLACK
    status, health = server.get_json("/api/v1/healthz")
    assert status == 200 and health["database"] == "ok"
    assert server.get_json("/api/v1/games")[1]["games"] == []


def test_more_stalled_clients_than_threads_hold_none_past_their_timeouts(tmp_path):
    """Eight stalled clients on four threads, which never hang up: the first four are
    cut after the timeout, the next four after another, and a health check waiting
    behind them is answered then; after that the service answers at once.  One worker:
    with several, a stalled client holds threads of whichever worker accepted it."""
    srv = Server(tmp_path / "rummy.duckdb",
                 env={**TIMEOUTS, "RUMMY_WORKERS": "1", "RUMMY_THREADS": "4"}).start()
    try:
        stalled = [send(srv, STALLED_HEAD if k % 2 else STALLED_BODY) for k in range(8)]
        time.sleep(0.1)  # all eight before the health check

        def healthz() -> int:
            return srv.request("GET", "/api/v1/healthz", timeout=10)[0]

        status, waited = timed(healthz)
        assert status == 200 and waited < 2 * TIMEOUT + SLACK
        for _ in range(3):  # the stalled clients are still connected: nothing waits on them
            status, waited = timed(healthz)
            assert status == 200 and waited < 0.5
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(answer, stalled))
    finally:
        srv.stop()
    for k, (response, body, closed) in enumerate(answers):
        assert_408(response, body, "head" if k % 2 else "body")
        assert closed


def test_a_kept_alive_connection_gets_a_new_header_timeout_for_each_request(server):
    """The head's deadline starts when its first bytes are read, not with the
    connection: a client idle longer than the timeout between requests is served."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for _ in range(2):
            conn.request("GET", "/api/v1/healthz")
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            assert response.getheader("Connection") != "close"
            time.sleep(TIMEOUT * 1.5)  # within gunicorn's keepalive (5 s)
    finally:
        conn.close()


def test_a_stalled_batch_answers_the_lines_it_read_and_ends_with_a_408_line(server):
    """The lines read before the body stalled are verified, stored and answered, and a
    last line says where the batch stopped; the connection is closed."""
    games = [orjson.dumps(g) for g in generate_games("gin", 200, seed=41, players=2,
                                                     rules={"deals": 1})]
    body = b"\n".join(games) + b"\n"
    sent = body + games[0][: len(games[0]) // 2]  # half of one more line, then nothing
    head = (b"POST /api/v1/games/batch HTTP/1.1\r\nHost: test\r\n"
            b"Content-Type: application/x-ndjson\r\n"
            b"Content-Length: %d\r\n\r\n" % (len(sent) + 1000))
    sock = send(server, head + sent)
    (response, answered, closed), waited = timed(lambda: answer(sock))
    assert response.status == 200
    assert closed and waited < TIMEOUT + SLACK + 10  # the chunk read meanwhile is stored
    *results, last = [json.loads(line) for line in answered.splitlines()]
    assert results, "no line was read before the stall"
    assert [r["line"] for r in results] == list(range(1, len(results) + 1))
    assert all(r["created"] is True for r in results)
    assert last["line"] == len(results) + 1
    assert last["error"]["type"] == "/problems/request-timeout"
    assert last["error"]["status"] == 408
    assert "lines from here on were not read" in last["error"]["detail"]
    stored = server.get_json("/api/v1/games?limit=500")[1]["games"]
    assert sorted(g["id"] for g in stored) == sorted(r["id"] for r in results)


def test_bodies_trickling_in_are_cut_below_the_minimum_rate_and_others_are_served(tmp_path):
    """A byte every 0.2 s never pauses as long as the body timeout (1 s): two such
    bodies on two threads held them for as long as they kept trickling, and nobody
    else was served.  Their waits may last the body timeout plus a second per
    ``RUMMY_BODY_MIN_RATE`` bytes (here 1,000): each gets 408 after about a second, and
    the health check waiting behind them is answered."""
    srv = Server(tmp_path / "rummy.duckdb", env={
        **TIMEOUTS, "RUMMY_WORKERS": "1", "RUMMY_THREADS": "2",
        "RUMMY_BODY_MIN_RATE": "1000"}).start()
    trickling = [send(srv, b"POST /api/v1/games HTTP/1.1\r\nHost: test\r\n"
                           b"Content-Type: application/json\r\nContent-Length: 10000\r\n\r\n{")
                 for _ in range(2)]
    stop = threading.Event()

    def trickle(sock: socket.socket) -> None:
        while not stop.wait(0.2):
            try:
                sock.send(b" ")
            except OSError:
                return

    senders = [threading.Thread(target=trickle, args=(sock,)) for sock in trickling]
    for sender in senders:
        sender.start()
    try:
        time.sleep(0.1)  # both before the health check
        status, _, _ = srv.request("GET", "/api/v1/healthz", timeout=30)
        assert status == 200
        with ThreadPoolExecutor(max_workers=2) as pool:
            answers = list(pool.map(answer, trickling))
    finally:
        stop.set()
        for sender in senders:
            sender.join()
        srv.stop()
    for response, body, closed in answers:
        problem = assert_408(response, body, "body arrived slower than 1000 bytes/s")
        assert problem["instance"] == "/api/v1/games"
        assert closed

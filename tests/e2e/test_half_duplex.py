"""Clients that send before they read, and clients that do not read, against the real
gunicorn: a batch sent whole by http.client (as requests and urllib send it) is stored
and answered line by line however large; a client that never reads its answer is
dropped after the write timeout, and its thread serves others again."""

from __future__ import annotations

import http.client
import json
import socket
import time

from .server import Server

MAX_BATCH = 16 << 20  # the largest batch the test's server takes (RUMMY_MAX_BATCH_BYTES)
BLOCK = 64 << 10


def tiny_game(number: int) -> bytes:
    """A legal log as short as they come (one deal, dealt nothing): 160-odd bytes whose
    answer line is half as long, which makes the largest answer a batch can have."""
    player = b"p%d" % number
    return (b'{"format":"rummy-log/1","variant":"gin","players":["%s","q"],"deals":'
            b'[{"dealer":"q","players":["%s","q"],"hands":{"%s":[],"q":[]},'
            b'"upcard":"AS","moves":[]}]}\n' % (player, player, player))


def largest_batch(limit: int) -> tuple[bytes, int]:
    """As many tiny games as fit in ``limit`` bytes, and their number."""
    lines, size = [], 0
    while size + len(line := tiny_game(len(lines))) <= limit:
        lines.append(line)
        size += len(line)
    return b"".join(lines), len(lines)


def stored_games(server: Server) -> int:
    status, stats = server.get_json("/api/v1/stats/variants")
    assert status == 200
    return sum(variant["games"] for variant in stats["variants"])


def test_the_largest_batch_sent_whole_before_reading_is_stored_and_answered(tmp_path):
    """http.client sends the whole body, then reads.  Once some 4 MB of answer filled
    the socket buffers, the thread blocked writing answers nobody read while the client
    blocked sending the rest of the body: 53,400 of these 98,885 games were stored, and
    neither side moved again.  The answer now waits while the body arrives.  The
    largest batch is 16 MiB here, not 64 MiB, to take a quarter of the time; chunks of
    1,000 games (not 200) verify tiny games faster."""
    server = Server(tmp_path / "rummy.duckdb", env={
        "RUMMY_MAX_BATCH_BYTES": str(MAX_BATCH), "RUMMY_BATCH_CHUNK": "1000",
        "RUMMY_WORKERS": "1", "RUMMY_ANALYSIS": "0", "RUMMY_RATINGS": "0"}).start()
    try:
        body, games = largest_batch(MAX_BATCH)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            # The body in blocks: the timeout is then that of each block, not the whole.
            blocks = (body[k:k + BLOCK] for k in range(0, len(body), BLOCK))
            conn.request("POST", "/api/v1/games/batch", body=blocks, headers={
                "Content-Type": "application/x-ndjson", "Content-Length": str(len(body))})
            response = conn.getresponse()
            assert response.status == 200
            answer = response.read()
        finally:
            conn.close()
        results = [json.loads(line) for line in answer.splitlines()]
        assert len(results) == games
        assert [r["line"] for r in results] == list(range(1, games + 1))
        assert all(r.get("created") is True for r in results), \
            next(r for r in results if r.get("created") is not True)
        assert len(answer) > 6 << 20  # more than the socket buffers hold
        assert stored_games(server) == games
    finally:
        server.stop()


def test_a_client_that_never_reads_its_answer_is_dropped_and_its_thread_serves_again(
        tmp_path):
    """One thread.  A batch whose answer (error lines for 20,000 lines that are no logs)
    is far larger than the socket buffers, from a client that never reads: the thread
    waited in the write for as long as the client stayed connected, and nobody else
    was served.  Now the client is dropped after the write timeout (1 s)."""
    server = Server(tmp_path / "rummy.duckdb", env={
        "RUMMY_WORKERS": "1", "RUMMY_THREADS": "1", "RUMMY_WRITE_TIMEOUT_S": "1",
        "RUMMY_BATCH_MAX_BAD_RUN": "100000", "RUMMY_BATCH_MAX_BAD_LINES": "100000",
        "RUMMY_ANALYSIS": "0", "RUMMY_RATINGS": "0"}).start()
    try:
        body = b"{}\n" * 20_000
        silent = socket.socket()
        silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        silent.connect(("127.0.0.1", server.port))
        silent.sendall(b"POST /api/v1/games/batch HTTP/1.1\r\nHost: test\r\n"
                       b"Content-Type: application/x-ndjson\r\n"
                       b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        time.sleep(0.2)  # the batch first, then the health check waits for the thread
        status, _, _ = server.request("GET", "/api/v1/healthz", timeout=60)
        assert status == 200
        silent.settimeout(30)
        received = bytearray()
        try:
            while block := silent.recv(1 << 16):
                received += block
        except ConnectionResetError:
            pass
        silent.close()
        assert received.count(b'{"line":') < 20_000  # cut short
        log = server.log.read_text()
        assert "Write timeout to ip=127.0.0.1" in log
        assert "Traceback" not in log
    finally:
        server.stop()

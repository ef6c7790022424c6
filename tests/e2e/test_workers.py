"""Several HTTP workers over one store process, as shipped (RUMMY_WORKERS=2 here): a
worker killed mid-upload loses no acknowledged game and stores none twice, and
/metrics adds up the requests of every worker, a dead one's included.  (The store
process killed: tests/e2e/test_service.py.)"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import threading
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from .server import Server
from .test_service import all_ids, distinct_games, upload

WORKERS = {"RUMMY_WORKERS": "2"}


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "rummy.duckdb", env=WORKERS).start()
    yield srv
    srv.stop()


def children(server: Server) -> list[tuple[int, str]]:
    """The master's children: (pid, command line)."""
    out = subprocess.run(["pgrep", "-a", "-P", str(server.process.pid)],
                         capture_output=True, text=True).stdout
    return [(int(pid), args) for pid, _, args in
            (line.partition(" ") for line in out.splitlines())]


def worker_pids(server: Server) -> set[int]:
    return {pid for pid, args in children(server) if "gunicorn" in args}


def wait_for(condition, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def holder(server: Server, sock: socket.socket) -> int | None:
    """The worker whose threads hold the server's end of ``sock``: the socket's inode in
    the kernel's TCP table, looked up in each worker's descriptors."""
    local = f"0100007F:{server.port:04X}"
    remote = f"0100007F:{sock.getsockname()[1]:04X}"
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    inodes = {row[9] for row in rows if row[1] == local and row[2] == remote}
    for pid in worker_pids(server):
        try:
            links = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        except OSError:
            continue
        if any(f"socket:[{inode}]" in links for inode in inodes):
            return pid
    return None


def post(server: Server, raw: bytes) -> tuple[int | None, str | None]:
    """One upload on a connection of its own: its status and game id, or (None, None)
    when the connection failed (the client's error)."""
    try:
        status, _, body = server.request("POST", "/api/v1/games", raw,
                                         {"Content-Type": "application/json"}, timeout=30)
    except (OSError, http.client.HTTPException):
        return None, None
    return status, json.loads(body).get("id")


def test_a_worker_killed_mid_upload_loses_no_acknowledged_game(server):
    """Six clients upload while a worker is killed holding a request half sent: that
    request fails (an error, never an answer), every acknowledged game is stored once,
    the master replaces the worker, and every game not acknowledged can be sent again."""
    games = distinct_games(360, seed=71)
    outcomes: dict[bytes, tuple[int | None, str | None]] = {}
    lock = threading.Lock()
    started = threading.Event()

    def client(mine: list[bytes]) -> None:
        for k, raw in enumerate(mine):
            outcome = post(server, raw)
            with lock:
                outcomes[raw] = outcome
            if k == 10:
                started.set()

    threads = [threading.Thread(target=client, args=(games[k::6],)) for k in range(6)]
    for thread in threads:
        thread.start()
    assert started.wait(60)
    before = worker_pids(server)
    half = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    raw = distinct_games(1, seed=72)[0]
    half.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: "
                 b"application/json\r\nContent-Length: " + str(len(raw)).encode() +
                 b"\r\n\r\n" + raw[:len(raw) // 2])
    found: list[int] = []
    wait_for(lambda: found.append(holder(server, half)) or found[-1] is not None,
             "no worker took the half-sent upload")
    os.kill(found[-1], signal.SIGKILL)
    try:
        half.sendall(raw[len(raw) // 2:])
        answer = half.recv(1024)
    except OSError:
        answer = b""
    assert answer == b"", answer  # the killed worker's request: an error, no answer
    half.close()
    for thread in threads:
        thread.join()
    wait_for(lambda: len(worker_pids(server)) == 2 and worker_pids(server) != before,
             "the killed worker was not replaced")
    assert found[-1] not in worker_pids(server)

    assert len(outcomes) == len(games)
    acknowledged = {gid for status, gid in outcomes.values() if status in (200, 201)}
    failed = [raw for raw, (status, _) in outcomes.items() if status not in (200, 201)]
    assert all(status is None or status >= 500 for status, _ in
               (outcomes[raw] for raw in failed))  # errors, never a 2xx or a 4xx
    stored = all_ids(server)
    assert len(stored) == len(set(stored))  # nothing twice
    assert acknowledged <= set(stored)  # nothing acknowledged lost
    again = [upload(server, raw) for raw in [*failed, raw]]
    assert len(set(all_ids(server))) == len(all_ids(server)) == len(games) + 1
    assert all(a["id"] in set(all_ids(server)) for a in again)


def samples(server: Server) -> dict[tuple[str, frozenset], float]:
    status, _, body = server.request("GET", "/api/v1/metrics")
    assert status == 200
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(body.decode())
            for s in family.samples}


VARIANTS_OK = ("rummy_http_requests_total",
               frozenset({"method": "GET", "endpoint": "/api/v1/variants", "status": "200"}.items()))


def pool_of(pid: int) -> set[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return {int(p) for p in out.split()}


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_metrics_add_up_every_worker_a_dead_one_included(server):
    """Requests on connections of their own land on either worker; whichever answers
    the scrape counts them all, and still does once a worker was killed, whose
    verifying pool ends with it."""
    for _ in range(40):
        assert server.request("GET", "/api/v1/variants")[0] == 200
    for seed in range(4):  # batches start the verifying pool of the workers they reach
        body = b"\n".join(distinct_games(2, seed=80 + seed))
        assert server.request("POST", "/api/v1/games/batch", body,
                              {"Content-Type": "application/x-ndjson"})[0] == 200
    for _ in range(4):  # the scrapes themselves land on either worker
        assert samples(server)[VARIANTS_OK] == 40
    victim = max(worker_pids(server), key=lambda pid: len(pool_of(pid)))
    pool = pool_of(victim)
    assert pool  # a batch reached it
    os.kill(victim, signal.SIGKILL)
    wait_for(lambda: len(worker_pids(server)) == 2 and victim not in worker_pids(server),
             "the killed worker was not replaced")
    for _ in range(4):
        assert samples(server)[VARIANTS_OK] == 40
    wait_for(lambda: not any(running(pid) for pid in pool), "the dead worker's pool lives on",
             timeout=15)

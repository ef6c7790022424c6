"""Several HTTP workers over one store process, as shipped (RUMMY_WORKERS=2 here): a
worker killed mid-upload loses no acknowledged game and stores none twice, and
/metrics adds up the requests of every worker, a dead one's included; the workers
share one verifying pool, which a lone client's batch uses whole and which loses only a
part when one of its processes is killed.  (The store process killed:
tests/e2e/test_service.py.)"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.api.intake import BLOCK

from .server import Server
from .test_service import all_ids, distinct_games, upload

WORKERS = {"RUMMY_WORKERS": "2"}


@pytest.fixture
def server(request, tmp_path):
    env = WORKERS | {"RUMMY_VERIFY_PROCESSES": "2"} | getattr(request, "param", {})
    srv = Server(tmp_path / "rummy.duckdb", env=env).start()
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
    the scrape counts them all, and still does once a worker was killed."""
    for _ in range(40):
        assert server.request("GET", "/api/v1/variants")[0] == 200
    for _ in range(4):  # the scrapes themselves land on either worker
        assert samples(server)[VARIANTS_OK] == 40
    victim = next(iter(worker_pids(server)))
    os.kill(victim, signal.SIGKILL)
    wait_for(lambda: len(worker_pids(server)) == 2 and victim not in worker_pids(server),
             "the killed worker was not replaced")
    for _ in range(4):
        assert samples(server)[VARIANTS_OK] == 40


def shared_pool(server: Server) -> set[int]:
    """The processes of the verifying pool the master serves: the dispatcher's
    children."""
    return pool_of(dispatcher(server)) if "verifying pool" in server.log.read_text() else set()


def cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # user and system time


def batch(server: Server, lines: list[bytes]) -> list[dict]:
    status, _, body = server.request("POST", "/api/v1/games/batch", b"\n".join(lines),
                                     {"Content-Type": "application/x-ndjson"}, timeout=120)
    assert status == 200, body
    return [json.loads(line) for line in body.splitlines()]


def test_a_lone_clients_batch_runs_on_every_process_of_the_one_pool(server):
    """The workers share one verifying pool, which the master starts with a process per
    core (two here): one client's batch, on one kept-alive connection and so one worker,
    is verified by both; the pool outlives a worker killed, and serves its successor."""
    wait_for(lambda: len(shared_pool(server)) == 2, "the master's pool did not start")
    pool = shared_pool(server)
    assert not any(pool_of(pid) for pid in worker_pids(server))  # no pool of their own
    before = {pid: cpu_ticks(pid) for pid in pool}
    games = distinct_games(800, seed=90)
    results = batch(server, games)
    assert [r["line"] for r in results] == list(range(1, 801))
    assert all(r.get("created") is True for r in results), results[:3]
    used = {pid: cpu_ticks(pid) - before[pid] for pid in pool}
    assert all(ticks >= 0.2 * sum(used.values()) for ticks in used.values()), used
    for victim in worker_pids(server):
        os.kill(victim, signal.SIGKILL)
    wait_for(lambda: len(worker_pids(server)) == 2, "the killed workers were not replaced")
    assert shared_pool(server) == pool
    again = batch(server, distinct_games(10, seed=91))
    assert all(r.get("created") is True for r in again)
    assert len(set(all_ids(server))) == 810


@pytest.mark.parametrize("server", [{"RUMMY_BATCH_CHUNK": "2000"}], indirect=True)
def test_a_pool_process_killed_mid_batch_fails_only_its_part(server):
    """Killed while verifying, a pool process costs only the lines of its part: each is
    answered 503 verifier-unavailable, every other line is answered as usual and every
    line acknowledged is stored; the pool gets its process back, and the failed lines
    sent again are stored (or answered as stored before), each game once."""
    wait_for(lambda: len(shared_pool(server)) == 2, "the master's pool did not start")
    pool = shared_pool(server)
    batch(server, distinct_games(2, seed=93))  # a line for each process: both started
    before = {pid: cpu_ticks(pid) for pid in pool}
    games = distinct_games(4000, seed=92)
    answer: list[list[dict]] = []
    sending = threading.Thread(target=lambda: answer.append(batch(server, games)))
    sending.start()
    wait_for(lambda: any(cpu_ticks(pid) > before[pid] + 5 for pid in pool),
             "the pool did not start verifying")
    victim = next(pid for pid in pool if cpu_ticks(pid) > before[pid] + 5)
    os.kill(victim, signal.SIGKILL)
    sending.join(120)
    [results] = answer
    assert [r["line"] for r in results] == list(range(1, len(games) + 1))
    failed = [r["line"] for r in results if "error" in r]
    assert failed, "the killed process's part was answered"
    assert failed == list(range(failed[0], failed[-1] + 1))  # one part, in one piece
    assert all(r["error"]["type"] == "/problems/verifier-unavailable" and
               r["error"]["status"] == 503 for r in results if "error" in r)
    assert len(failed) == 1000  # a chunk of 2,000 lines in two parts
    acknowledged = {r["id"] for r in results if "id" in r}
    stored = all_ids(server)
    assert acknowledged <= set(stored) and len(stored) == len(set(stored))
    wait_for(lambda: len(shared_pool(server)) == 2 and victim not in shared_pool(server),
             "the killed pool process was not replaced")
    again = batch(server, [games[line - 1] for line in failed])
    assert all("id" in r for r in again), again[:3]
    assert len(all_ids(server)) == len(set(all_ids(server))) == len(games) + 2


def dispatcher(server: Server) -> int:
    """The verifying pool's dispatcher the master runs now (it logs each it starts)."""
    return int(re.findall(r"verifying pool (\d+):", server.log.read_text())[-1])


def test_a_killed_dispatcher_is_started_again_and_the_workers_stay(server):
    wait_for(lambda: len(shared_pool(server)) == 2, "the master's pool did not start")
    workers, old = worker_pids(server), dispatcher(server)
    os.kill(old, signal.SIGKILL)
    wait_for(lambda: dispatcher(server) != old and len(shared_pool(server)) == 2,
             "the dispatcher was not started again")
    assert "the verifying pool's dispatcher ended on its own" in server.log.read_text()
    results = batch(server, distinct_games(20, seed=94))
    assert all(r.get("created") is True for r in results), results[:3]
    assert worker_pids(server) == workers


class OpenBatch:
    """A batch sent chunked on a socket of its own, its body kept open until
    ``finish``: the lines sent are judged (and their rows staged) while the request
    still waits for the rest of its body."""

    def __init__(self, server: Server, lines: list[bytes]):
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)
        self.sock.sendall(b"POST /api/v1/games/batch HTTP/1.1\r\nHost: test\r\n"
                          b"Content-Type: application/x-ndjson\r\n"
                          b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        # Blank lines after them fill the block the service reads the body by.
        self._chunk(b"\n".join(lines) + b"\n" * (BLOCK + 1))

    def _chunk(self, data: bytes) -> None:
        self.sock.sendall(b"%x\r\n%s\r\n" % (len(data), data))

    def finish(self) -> list[dict]:
        self._chunk(b"\n\n")
        self.sock.sendall(b"0\r\n\r\n")
        response = http.client.HTTPResponse(self.sock)
        response.begin()
        assert response.status == 200
        body = response.read()
        self.sock.close()
        return [json.loads(line) for line in body.splitlines()]


def idle(pids: set[int], seconds: float = 1.0) -> bool:
    """Whether none of ``pids`` used any CPU for ``seconds``."""
    before = {pid: cpu_ticks(pid) for pid in pids}
    time.sleep(seconds)
    return all(cpu_ticks(pid) == before[pid] for pid in pids)


def test_a_batch_never_takes_the_answers_of_a_new_store_process(server):
    """A batch whose lines were staged in a store process that has since been killed
    and started again must not be answered with another request's games: the new
    store process gives tickets the dead one never gave, so the first batch's lines
    answer 503 with nothing stored, and the second batch, staged in the new process,
    is stored and answered with its own games.  (Tickets were counted from 1 in each
    store process: the first batch was answered with the second one's ids, and the
    second one's committed games with 503.)"""
    from service.store import game_id

    from .test_service import store_process

    wait_for(lambda: len(shared_pool(server)) == 2, "the master's pool did not start")
    pool = shared_pool(server)
    first, second = distinct_games(200, seed=95), distinct_games(200, seed=96)
    a = OpenBatch(server, first)  # a chunk of 200 lines, judged and staged
    wait_for(lambda: idle(pool), "the pool did not finish the first batch's lines")
    old = store_process(server)
    os.kill(old, signal.SIGKILL)
    wait_for(lambda: store_process(server) != old
             and server.get_json("/api/v1/healthz")[0] == 200, "no new store process")
    b = OpenBatch(server, second)
    wait_for(lambda: idle(pool), "the pool did not finish the second batch's lines")
    answers_a, answers_b = a.finish(), b.finish()
    assert [r["line"] for r in answers_a] == list(range(1, 201))
    assert all(r.get("error", {}).get("status") == 503 for r in answers_a), answers_a[:2]
    assert [r["id"] for r in answers_b] == [game_id(json.loads(raw)) for raw in second]
    assert all(r["created"] is True for r in answers_b)
    assert sorted(all_ids(server)) == sorted(r["id"] for r in answers_b)

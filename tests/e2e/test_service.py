"""End to end: the real gunicorn with the shipped configuration, real HTTP, a real
DuckDB file.  Each test starts and stops its own server on a free port."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
import pytest

from service.generator import generate_games

from .server import ROOT, Server

SAMPLES = ROOT / "sample_logs"


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "rummy.duckdb").start()
    yield srv
    srv.stop()


def distinct_games(count: int, seed: int) -> list[bytes]:
    """Small, distinct, valid gin games (one deal each)."""
    return [orjson.dumps(g) for g in generate_games("gin", count, seed=seed, players=2,
                                                    rules={"deals": 1})]


def all_ids(server: Server) -> list[str]:
    ids, path = [], "/api/v1/games?limit=500"
    while path:
        status, body = server.get_json(path)
        assert status == 200, body
        ids.extend(g["id"] for g in body["games"])
        path = body.get("next")
    return ids


def test_samples_upload_and_read_back(server):
    files = sorted(SAMPLES.glob("*.json"))
    assert files
    for path in files:
        raw = path.read_bytes()
        status, headers, body = server.request("POST", "/api/v1/games", raw,
                                               {"Content-Type": "application/json"})
        assert status == 201, body
        answer = json.loads(body)
        assert headers["Location"].endswith(answer["id"])
        status, game = server.get_json(f"/api/v1/games/{answer['id']}")
        assert status == 200 and game["status"] == answer["status"]
        status, _, log = server.request("GET", f"/api/v1/games/{answer['id']}/log")
        assert status == 200 and log == raw
    for path in sorted(SAMPLES.glob("*.ndjson")):
        status, _, body = server.request("POST", "/api/v1/games/batch", path.read_bytes(),
                                         {"Content-Type": "application/x-ndjson"})
        assert status == 200
        results = [json.loads(line) for line in body.splitlines()]
        assert results and all("id" in r for r in results), results
    status, health = server.get_json("/api/v1/healthz")
    assert status == 200 and health["database"] == "ok"


def test_eight_clients_store_exactly_eight_hundred_games(server):
    games = distinct_games(800, seed=11)
    singles, batched = games[:400], games[400:]
    statuses: list[int] = []
    lock = threading.Lock()

    def send_single(raw: bytes) -> None:
        status, _, _ = server.request("POST", "/api/v1/games", raw,
                                      {"Content-Type": "application/json"})
        with lock:
            statuses.append(status)

    def send_batch(chunk: list[bytes]) -> None:
        status, _, body = server.request("POST", "/api/v1/games/batch", b"\n".join(chunk),
                                         {"Content-Type": "application/x-ndjson"})
        results = [json.loads(line) for line in body.splitlines()]
        with lock:
            statuses.append(status)
            statuses.extend(201 if r.get("created") else 500 for r in results)

    with ThreadPoolExecutor(max_workers=8) as pool:
        jobs = [pool.submit(send_single, raw) for raw in singles]
        jobs += [pool.submit(send_batch, batched[i:i + 25]) for i in range(0, 400, 25)]
        for job in jobs:
            job.result()
    assert not [s for s in statuses if s >= 500]
    assert statuses.count(201) == 800
    ids = all_ids(server)
    assert len(ids) == len(set(ids)) == 800
    for gid in ids[::40]:
        assert server.get_json(f"/api/v1/games/{gid}")[0] == 200


def test_same_log_twice_at_once_is_stored_once(server):
    raw = distinct_games(1, seed=5)[0]
    barrier = threading.Barrier(2)
    answers = []

    def send() -> None:
        barrier.wait()
        status, _, body = server.request("POST", "/api/v1/games", raw,
                                         {"Content-Type": "application/json"})
        answers.append((status, json.loads(body)["id"]))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(s for s, _ in answers) == [200, 201]
    assert answers[0][1] == answers[1][1]
    assert all_ids(server) == [answers[0][1]]


def test_acknowledged_games_survive_kill_9(tmp_path):
    db = tmp_path / "crash.duckdb"
    server = Server(db).start()
    games = distinct_games(600, seed=23)
    acknowledged: list[str] = []
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        conn.request("POST", "/api/v1/games/batch", b"\n".join(games),
                     {"Content-Type": "application/x-ndjson"})
        response = conn.getresponse()
        assert response.status == 200
        while len(acknowledged) < 150:
            line = response.readline()
            if not line:
                break
            if line.strip():
                acknowledged.append(json.loads(line)["id"])
        server.kill()  # SIGKILL to the whole process group, mid-batch
        conn.close()
    finally:
        server.kill()
    assert len(acknowledged) >= 1
    restarted = Server(db, port=server.port).start()
    try:
        stored = set(all_ids(restarted))
        assert set(acknowledged) <= stored
        for gid in acknowledged[::10]:
            assert restarted.get_json(f"/api/v1/games/{gid}")[0] == 200
    finally:
        restarted.stop()


def upload(server: Server, raw: bytes) -> dict:
    status, _, body = server.request("POST", "/api/v1/games", raw,
                                     {"Content-Type": "application/json"})
    assert status in (200, 201), body
    return json.loads(body)


def store_process(server: Server) -> int:
    """The store process the master runs now (it logs the id of each it starts)."""
    return int(re.findall(r"store process (\d+) serving", server.log.read_text())[-1])


def test_a_killed_store_process_is_started_again_and_the_workers_stay(server):
    """The store process killed alone: the master starts another on the same file, the
    workers stay and reconnect, and the games stored before are all there."""
    from .test_workers import worker_pids

    games = distinct_games(5, seed=31)
    ids = [upload(server, raw)["id"] for raw in games]
    workers = worker_pids(server)
    store = store_process(server)
    os.kill(store, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while True:
        try:
            status, _ = server.get_json("/api/v1/healthz")
        except OSError:
            status = None
        if status == 200 and store_process(server) != store:
            break
        assert time.monotonic() < deadline, "the service did not come back"
        time.sleep(0.2)
    assert worker_pids(server) == workers  # no worker restarted
    assert sorted(all_ids(server)) == sorted(ids)
    assert upload(server, distinct_games(1, seed=32)[0])["created"] is True
    for _ in range(4):  # each worker reconnects
        assert upload(server, distinct_games(1, seed=32)[0])["created"] is False
    assert "starting another" in server.log.read_text()


def test_sample_logs_dir_exists():
    assert Path(SAMPLES).is_dir()


def test_kept_alive_clients_share_the_threads_fairly(tmp_path):
    """The worker's threads wait on a kept-alive connection for its next request only
    while another thread is free: four clients sending request after request to two
    threads are all served from the start, none after the others are done."""
    srv = Server(tmp_path / "rummy.duckdb",
                 env={"RUMMY_WORKERS": "1", "RUMMY_THREADS": "2"}).start()
    first, done, statuses = {}, {}, []

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
        for i in range(150):
            conn.request("GET", "/api/v1/variants")
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
            if i == 0:
                first[k] = time.monotonic()
        done[k] = time.monotonic()
        conn.close()

    try:
        threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        srv.stop()
    assert statuses == [200] * 600
    assert max(first.values()) < min(done.values())


def test_a_batch_corrects_a_game_through_the_shipped_server(tmp_path):
    """Through gunicorn as shipped (the shared pool of verifying processes, the store in
    a process of its own), chunks of four lines: a correction line stores its log and
    withdraws the game it names in one transaction, recorded as the key's; one naming
    no game changes nothing; the lines around them are stored as usual."""
    key = {"Authorization": "Bearer e2e-write-key"}
    srv = Server(tmp_path / "rummy.duckdb", env={"RUMMY_API_KEYS": "td:e2e-write-key",
                                                 "RUMMY_BATCH_CHUNK": "4"}).start()
    try:
        logs = [orjson.loads(g) for g in distinct_games(12, seed=5)]
        status, _, body = srv.request("POST", "/api/v1/games", orjson.dumps(logs[0]),
                                      {"Content-Type": "application/json", **key})
        assert status == 201, body
        old = json.loads(body)["id"]
        lines = [*logs[1:6], {"replaces": old, "reason": "scores mistyped", "log": logs[6]},
                 *logs[7:11], {"replaces": "nosuchgame", "reason": "r", "log": logs[11]}]
        status, _, body = srv.request("POST", "/api/v1/games/batch",
                                      b"\n".join(orjson.dumps(line) for line in lines),
                                      {"Content-Type": "application/x-ndjson", **key})
        assert status == 200, body
        results = [json.loads(line) for line in body.splitlines()]
        assert [r["line"] for r in results] == list(range(1, 12))
        assert all(r["created"] for r in results[:10]), results
        new = results[5]["id"]
        replaced = results[5]["replaced"]
        assert (replaced["id"], replaced["deleted_by"], replaced["reason"]) == (
            old, "td", "scores mistyped")
        assert "replaced" not in results[4] and "replaced" not in results[6]
        assert (results[10]["error"]["status"], results[10]["error"]["type"]) == (
            404, "/problems/not-found")
        status, _, body = srv.request("GET", f"/api/v1/games/{old}")
        assert status == 410 and json.loads(body)["replaced_by"] == new
        status, _, body = srv.request("GET", "/api/v1/games?limit=100")
        assert status == 200
        stored = {g["id"] for g in json.loads(body)["games"]}
        assert stored == {r["id"] for r in results[:10]}  # the old game left, none more
    finally:
        srv.stop()

"""Mixed load through the real service, with 1 and then with 2 HTTP workers (or the
counts of ``--workers``), one run after the other on the same machine.

For each worker count a fresh server (gunicorn as shipped, a new DuckDB file) is
filled with ``--preload`` games through /games/batch, then:

1. single uploads only (``--singles-clients`` clients, ``--singles-seconds``): uploads/s
   and the CPU per upload of each process role (master, worker, store, pool, clients);
2. the mixed load (``--clients`` clients, ``--seconds``): uploads 40 %, reads 30 % (a
   game, its log, a page of /games), statistics 22 % (a player's figures, the
   leaderboard, head-to-head, per-variant figures) and batches of ``--batch`` games
   8 %, each client a kept-alive connection; a probe asks /healthz every 50 ms on a
   new connection, as a load balancer does.  Printed: requests/s, and per kind the
   count, p50 and p99 latency and the errors.

With ``--rate R`` the mixed load is offered at R requests/s in all, each client sending
on a schedule of its own (an open loop: a late answer does not delay the next request),
and a latency counts from the moment the request was due, so that a server falling
behind shows it.  Without it each client sends the next request as soon as the last
is answered (a closed loop): with 64 clients the mean latency is then 64 divided by the
throughput, whatever the server does, so latency targets "at a throughput" are read
with ``--rate``.

Clients are processes of their own on the same machine (``--client-processes``, each
with threads), over loopback only, bounded in time.  Every upload is a distinct game:
one-deal two-player gin games drawn from a generated set, each given its own log
``id`` (the same verification work, another game).  At the end: the single-upload
figures side by side and, from the measured CPU per upload, what 4, 8 and 16 cores
would allow and which process limits them.

    python benchmarks/mixed.py
    python benchmarks/mixed.py --workers 1 2 --seconds 60 --clients 64
    python benchmarks/mixed.py --rate 122     # the mixed load offered at 122 requests/s
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest import Connection  # noqa: E402

from service.generator import generate_game  # noqa: E402
from tests.e2e.server import Server  # noqa: E402

NAMES = tuple(f"player-{k:02d}" for k in range(40))
KINDS = (("upload", 40), ("read", 30), ("stats", 22), ("batch", 8))
BASE_GAMES = 400  # generated games; uploads vary their log id


def base_games(count: int, seed: int) -> list[dict]:
    return [generate_game("gin", (seed, k), players=2, rules={"deals": 1}, names=NAMES)
            for k in range(count)]


def body(game: dict, tag: str) -> bytes:
    return orjson.dumps(game | {"id": tag})


# --------------------------------------------------------------------------- clients

def _client_process(port: int, threads: int, seconds: float, kinds: tuple, batch: int,
                    base: list[dict], known: list[str], tag: str, start_at: float,
                    interval: float, results: multiprocessing.Queue) -> None:
    """``threads`` clients, each a kept-alive connection, from ``start_at`` (a wall
    clock time shared by every client process) for ``seconds``, each sending a request
    every ``interval`` seconds (0: as soon as the last is answered); puts the latencies
    (kind, seconds from when the request was due, status) and this process's CPU
    seconds."""
    names = [k for k, _ in kinds]
    weights = [w for _, w in kinds]
    out: list[tuple[str, float, int]] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        rng = random.Random(f"{tag}:{n}")
        conn = Connection(port)
        mine: list[tuple[str, float, int]] = []
        k = 0
        time.sleep(max(0.0, start_at - time.time()))
        deadline = time.perf_counter() + seconds
        due = time.perf_counter() + rng.random() * interval
        while time.perf_counter() < deadline:
            kind = rng.choices(names, weights)[0]
            k += 1
            if interval:
                time.sleep(max(0.0, due - time.perf_counter()))
                started, due = due, due + interval
            else:
                started = time.perf_counter()
            try:
                if kind == "upload":
                    status, _ = conn.post("/api/v1/games",
                                          body(rng.choice(base), f"{tag}-{n}-{k}"),
                                          "application/json")
                elif kind == "batch":
                    lines = b"\n".join(body(rng.choice(base), f"{tag}-{n}-{k}-{i}")
                                       for i in range(batch))
                    status, _ = conn.post("/api/v1/games/batch", lines,
                                          "application/x-ndjson")
                elif kind == "read":
                    gid = rng.choice(known)
                    path = rng.choice((f"/api/v1/games/{gid}", f"/api/v1/games/{gid}/log",
                                       "/api/v1/games?limit=20"))
                    status, _ = conn.get(path)
                else:
                    a, b = rng.sample(NAMES, 2)
                    path = rng.choice((f"/api/v1/players/{a}/stats",
                                       "/api/v1/players?sort=win_rate&min_games=1&limit=20",
                                       f"/api/v1/players/{a}/versus/{b}",
                                       "/api/v1/stats/variants"))
                    status, _ = conn.get(path)
            except OSError:
                status = 0
                conn = Connection(port)
            mine.append((kind, time.perf_counter() - started, status))
        conn.close()
        with lock:
            out.extend(mine)

    cpu = time.process_time()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for job in [pool.submit(client, n) for n in range(threads)]:
            job.result()
    results.put((out, time.process_time() - cpu))


def run_clients(port: int, processes: int, threads: int, seconds: float, kinds: tuple,
                batch: int, base: list[dict], known: list[str], tag: str,
                probe: bool, rate: float = 0.0, snapshot: Callable[[], Any] | None = None,
                ) -> tuple[list[tuple[str, float, int]], float, list[float], list[Any]]:
    """Every latency, the clients' CPU seconds, the health probe's latencies, and what
    ``snapshot`` gave when the clients started sending and when they stopped (their
    interpreters take seconds to start; none without it)."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    start_at = time.time() + 3 + processes  # time for the interpreters to start
    window: list[Any] = []
    if snapshot is not None:
        def bounds() -> None:
            time.sleep(max(0.0, start_at - time.time()))
            window.append(snapshot())
            time.sleep(seconds)
            window.append(snapshot())

        watcher = threading.Thread(target=bounds, daemon=True)
        watcher.start()
    procs = [context.Process(target=_client_process,
                             args=(port, threads, seconds, kinds, batch, base, known,
                                   f"{tag}{p}", start_at,
                                   processes * threads / rate if rate else 0.0, results))
             for p in range(processes)]
    for proc in procs:
        proc.start()
    probes: list[float] = []
    if probe:
        time.sleep(max(0.0, start_at - time.time()))
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/api/v1/healthz")
            conn.getresponse().read()
            conn.close()
            probes.append(time.perf_counter() - started)
            time.sleep(0.05)
    latencies: list[tuple[str, float, int]] = []
    cpu = 0.0
    for _ in procs:
        out, used = results.get()
        latencies.extend(out)
        cpu += used
    for proc in procs:
        proc.join()
    if snapshot is not None:
        watcher.join()
    return latencies, cpu, probes, window


# --------------------------------------------------------------------------- the server

def cpu_by_role(master: int) -> dict[str, float]:
    """CPU seconds so far of the server's processes, by role: the master, its workers,
    the store process and the verifying pool's dispatcher (both spawned by the master),
    the pool's processes (spawned by the dispatcher), anything else (multiprocessing's
    resource tracker)."""
    tick = os.sysconf("SC_CLK_TCK")
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[2]) == master:
            table[int(name)] = (int(fields[1]), cmd, (int(fields[11]) + int(fields[12])) / tick)
    spent: dict[str, float] = {}
    spawning = {parent for parent, cmd, _ in table.values() if b"spawn_main" in cmd}
    for pid, (parent, cmd, seconds) in table.items():
        if pid == master:
            role = "master"
        elif b"spawn_main" in cmd:  # the pool's dispatcher is the one with children
            role = ("dispatcher" if pid in spawning else "store") if parent == master \
                else "pool"
        elif b"gunicorn" in cmd:
            role = "worker"
        else:
            role = "other"
        spent[role] = spent.get(role, 0.0) + seconds
    return spent


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def machine_ticks() -> tuple[int, int]:
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return sum(values) - values[3] - values[4], sum(values)


def measure(workers: int, args: argparse.Namespace, base: list[dict]) -> dict:
    print(f"\n== {workers} worker{'s' if workers > 1 else ''} "
          f"(load average before: {os.getloadavg()[0]:.2f})", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "mixed.duckdb", env={"RUMMY_WORKERS": str(workers)})
        server.start()
        try:
            known = preload(server, base, args.preload, 4 * workers)
            figures = {"workers": workers}
            # 1. single uploads only
            latencies, client_cpu, _, window = run_clients(
                server.port, args.singles_processes, args.singles_clients // args.singles_processes,
                args.singles_seconds, (("upload", 1),), args.batch, base, known, f"s{workers}-",
                probe=False,
                snapshot=lambda: (cpu_by_role(server.process.pid), machine_ticks()))
            (before, ticks), (after, ticks_after) = window
            ok = [s for _, s, status in latencies if status in (200, 201)]
            rate = len(ok) / args.singles_seconds
            per = {role: (after.get(role, 0.0) - before.get(role, 0.0)) / max(1, len(ok))
                   for role in after}
            per["clients"] = client_cpu / max(1, len(ok))
            busy = (ticks_after[0] - ticks[0]) / max(1, ticks_after[1] - ticks[1])
            figures.update(singles=rate, cpu=per)
            print(f"single uploads: {rate:,.0f}/s ({len(ok)} in {args.singles_seconds:g} s, "
                  f"{args.singles_clients} clients, p50 {percentile(ok, 0.5) * 1000:.0f} ms, "
                  f"p99 {percentile(ok, 0.99) * 1000:.0f} ms, "
                  f"{len(latencies) - len(ok)} errors); machine {busy:.0%} busy")
            print("  CPU per upload: " + ", ".join(
                f"{role} {seconds * 1000:.2f} ms" for role, seconds in sorted(per.items())
                if seconds > 0) + f"; in all {sum(per.values()) * 1000:.2f} ms")
            # 2. the mixed load
            latencies, _, probes, _ = run_clients(
                server.port, args.client_processes, args.clients // args.client_processes,
                args.seconds, KINDS, args.batch, base, known, f"m{workers}-", probe=True,
                rate=args.rate)
            total = len(latencies)
            offered = f"offered {args.rate:g}/s, open loop" if args.rate else "closed loop"
            print(f"mixed load: {total / args.seconds:,.0f} requests/s "
                  f"({args.clients} clients, {offered}, {args.seconds:g} s)")
            mixed = {}
            for kind, _ in (*KINDS,):
                mine = [s for k, s, _ in latencies if k == kind]
                errors: dict[int, int] = {}
                for k, _, status in latencies:
                    if k == kind and status not in (200, 201):
                        errors[status] = errors.get(status, 0) + 1
                mixed[kind] = (percentile(mine, 0.5), percentile(mine, 0.99))
                print(f"  {kind:7s} {len(mine):6d} ({len(mine) / args.seconds:6.1f}/s)  "
                      f"p50 {mixed[kind][0] * 1000:7.1f} ms  p99 {mixed[kind][1] * 1000:7.1f} ms"
                      + (f"  errors {errors}" if errors else ""))
            mixed["healthz"] = (percentile(probes, 0.5), percentile(probes, 0.99))
            print(f"  healthz {len(probes):6d} probes       p50 {mixed['healthz'][0] * 1000:7.1f} "
                  f"ms  p99 {mixed['healthz'][1] * 1000:7.1f} ms")
            figures.update(mixed=mixed, requests=total / args.seconds)
        finally:
            server.stop()
    print(f"(load average after: {os.getloadavg()[0]:.2f})", flush=True)
    return figures


def preload(server: Server, base: list[dict], games: int, connections: int) -> list[str]:
    """``games`` games stored through /games/batch over ``connections`` connections in
    turn (so that every worker likely serves some before the measurements); their
    ids."""
    ids: list[str] = []
    conns = [Connection(server.port) for _ in range(connections)]
    for n, start in enumerate(range(0, games, 100)):
        lines = b"\n".join(body(base[k % len(base)], f"preload-{k}")
                           for k in range(start, min(games, start + 100)))
        status, answer = conns[n % connections].post("/api/v1/games/batch", lines,
                                                     "application/x-ndjson")
        assert status == 200, answer[:200]
        ids.extend(orjson.loads(line)["id"] for line in answer.splitlines() if line.strip())
    for conn in conns:
        conn.close()
    return ids


def projection(figures: dict) -> None:
    """From the CPU per upload of the run with the most workers: uploads/s on a machine
    of C cores with the clients elsewhere.  The workers scale with the cores; the store
    process's share runs in one interpreter (its writer and the Python side of every
    call), so it allows at most one core's worth: 1 / its CPU per upload."""
    cpu = figures["cpu"]
    server = sum(seconds for role, seconds in cpu.items() if role != "clients")
    store = cpu.get("store", 0.0)
    print(f"\nprojection (CPU per upload measured with {figures['workers']} workers: "
          f"server {server * 1000:.2f} ms, of which store {store * 1000:.2f} ms; "
          f"clients elsewhere):")
    for cores in (2, 4, 8, 16):
        by_cores = cores / server
        by_store = 1 / store if store else float("inf")
        limit = "the cores (HTTP workers)" if by_cores < by_store else \
            "the store process (one interpreter)"
        print(f"  {cores:2d} cores: {min(by_cores, by_store):7,.0f} uploads/s, "
              f"bounded by {limit} (cores: {by_cores:,.0f}/s, store: {by_store:,.0f}/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="offer the mixed load at this many requests/s in all "
                             "(default: closed loop)")
    parser.add_argument("--singles-seconds", type=float, default=20)
    parser.add_argument("--singles-clients", type=int, default=32)
    parser.add_argument("--singles-processes", type=int, default=2)
    parser.add_argument("--batch", type=int, default=10, help="games per batch")
    parser.add_argument("--preload", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"generating {BASE_GAMES} games ...", flush=True)
    base = base_games(BASE_GAMES, args.seed)
    runs = [measure(w, args, base) for w in args.workers]
    print("\nsingle uploads/s: " + ", ".join(f"{r['workers']} worker(s) {r['singles']:,.0f}"
                                             for r in runs))
    if len(runs) > 1 and runs[0]["singles"]:
        print(f"  {runs[-1]['workers']} workers / {runs[0]['workers']}: "
              f"{runs[-1]['singles'] / runs[0]['singles']:.2f}x")
    for r in runs:
        m = r["mixed"]
        print(f"mixed, {r['workers']} worker(s): {r['requests']:,.0f} requests/s; p99 "
              f"healthz {m['healthz'][1] * 1000:.0f} ms, reads {m['read'][1] * 1000:.0f} ms, "
              f"uploads {m['upload'][1] * 1000:.0f} ms, stats {m['stats'][1] * 1000:.0f} ms "
              f"(targets: 50, 250, 500 ms)")
    projection(runs[-1])


if __name__ == "__main__":
    main()

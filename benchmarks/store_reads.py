"""What DuckDB allows beside the one writer, and how reads share the store process.

1. A second process opening the file while the store process holds it: read-write,
   and read-only (``read_only=True``).
2. The per-variant statistics (``GET /stats/variants``, the heaviest read: one
   snapshot over every table), through the store process as the service reads it:
   one client alone, then 1, 2 and 4 clients at once (each a thread with its own
   connection, hence its own thread and cursor in the store process), and 4 at once
   while a writer commits single-game groups.

    python benchmarks/store_reads.py
    python benchmarks/store_reads.py --games 20000 --rounds 10
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_games  # noqa: E402
from service.store import build_record  # noqa: E402
from service.store.remote import RemoteStore, StoreClient  # noqa: E402
from service.store.stats import variant_stats  # noqa: E402

OPEN_BESIDE = """
import sys, duckdb
try:
    duckdb.connect(sys.argv[1], read_only=sys.argv[2] == "ro").close()
    print("opened")
except duckdb.Error as error:
    print(type(error).__name__ + ": " + str(error).splitlines()[0][:160])
"""


def records(games: int, seed: int) -> list:
    out = list(generate_games("gin", min(games, 500), seed=seed))
    docs = [out[k % len(out)] | {"id": f"g{k}"} for k in range(games)]
    result = []
    for doc in docs:
        game = parse_game(doc)
        result.append(build_record(doc, orjson.dumps(doc), game, verify(game)))
    return result


class Reader(StoreClient):
    """A client of the store process with the statistics' reads."""

    def read_many(self, statements):
        return self.call("read", [(sql, list(params)) for sql, params in statements])


def timed_reads(where: tuple[str, bytes], clients: int, rounds: int,
                stop_writes: threading.Event | None = None) -> list[float]:
    latencies: list[float] = []
    lock = threading.Lock()

    def client() -> None:
        reader = Reader(*where)
        mine = []
        for _ in range(rounds):
            start = time.perf_counter()
            variant_stats(reader)
            mine.append(time.perf_counter() - start)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    print(f"  {clients} client(s){' + writer' if stop_writes else ''}: "
          f"p50 {statistics.median(latencies) * 1000:6.1f} ms, "
          f"max {max(latencies) * 1000:6.1f} ms, {len(latencies) / wall:5.1f} reads/s")
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    print(f"building {args.games} games ...", flush=True)
    rows = records(args.games, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "reads.duckdb")
        store = RemoteStore(path)
        try:
            for start in range(0, len(rows), 1000):
                store.add_games(rows[start:start + 1000])
            print("beside the store process, another process opening the file:")
            for mode in ("rw", "ro"):
                line = subprocess.run([sys.executable, "-c", OPEN_BESIDE, path, mode],
                                      capture_output=True, text=True).stdout.strip()
                print(f"  {'read-write' if mode == 'rw' else 'read-only '}: {line}")
            print(f"/stats/variants over {args.games} games, through the store process:")
            for clients in (1, 2, 4):
                timed_reads(store.where, clients, args.rounds)
            stop = threading.Event()
            extra = records(2000, 2)
            written = [0]

            def writer() -> None:
                for record in extra:
                    if stop.is_set():
                        return
                    store.submit([record])
                    written[0] += 1

            thread = threading.Thread(target=writer)
            thread.start()
            timed_reads(store.where, 4, args.rounds, stop)
            stop.set()
            thread.join()
            print(f"  (the writer committed {written[0]} single games meanwhile)")
        finally:
            store.close()


if __name__ == "__main__":
    main()

"""The analysis catch-up's rate: games analysed and stored per second by the store
process's background catch-up (``service.store.analysis.CatchUp``) draining a backlog,
the service otherwise idle (no upload, no read; only the health probe that watches the
backlog, which does not count as use).

Stores ``--games`` generated games, half two-player gin and half four-player Rummy,
straight into a DuckDB file with no analysis (as a bulk load leaves them), then opens
the file in a store process with its catch-up on, as the service does, and times the
backlog down to 0.  Each run drains a copy of the loaded file, so ``--runs`` repeat the
same drain, and ``--db`` keeps the loaded file for the next time.

Besides the games per second by the wall clock it reports the CPU seconds the store
process and its analysis workers spent, and the games per CPU second: on a machine
other processes keep busy, the workers, which run at the lowest priority, get what is
left of the cores, and the wall-clock rate says more about the neighbours than about the
catch-up (the load average is printed too).

    python benchmarks/catchup.py                   # 2,000 games
    python benchmarks/catchup.py --games 5000 --runs 2 --db catchup-5000.duckdb
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_games  # noqa: E402
from service.store import Store, build_record  # noqa: E402
from service.store.remote import RemoteStore  # noqa: E402

CASES = (("gin", 2), ("rummy", 4))
NAMES = [f"p{k}" for k in range(40)]


def load(path: Path, games: int, seed: int) -> None:
    """``games`` games, the cases in turn, stored without analysis and rated."""
    store = Store(path, ratings=False)
    try:
        per_case = -(-games // len(CASES))
        for index, (variant, players) in enumerate(CASES):
            records = []
            for log in generate_games(variant, per_case, seed=seed + index, players=players,
                                      names=NAMES):
                game = parse_game(log)
                records.append(build_record(log, orjson.dumps(log), game, verify(game)))
            store.add_games(records)
        store.recompute_ratings()
    finally:
        store.close()


TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> tuple[float, int]:
    """The CPU seconds (user and system) of a process and of its children still running
    (the catch-up's workers), and how many children; (0, 0) where /proc is missing."""
    def own(stat: str) -> float:
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    total, children = 0.0, 0
    try:
        total = own(Path(f"/proc/{pid}/stat").read_text())
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    total += own(stat)
                    children += 1
    except OSError:
        pass
    return total, children


def drain(path: Path, timeout: float) -> tuple[int, float, dict, tuple[float, int]]:
    """Open ``path`` in a store process with its catch-up and wait for the backlog to
    empty: the backlog at the start, the seconds it took, the catch-up's last figures,
    the CPU seconds of the store process and its workers (and how many workers)."""
    store = RemoteStore(path, analysis=True, ratings=False)
    try:
        started = time.perf_counter()
        first = None
        while True:
            health = store.analysis_health()
            first = health["backlog"] if first is None else first
            if health["backlog"] == 0 or time.perf_counter() - started > timeout:
                return (first, time.perf_counter() - started, health,
                        cpu_seconds(store.pid or 0))
            time.sleep(0.2)
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds a run may take before it stops counting")
    parser.add_argument("--db", default=None,
                        help="the loaded file: used as it is when it exists, else loaded "
                             "and kept")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="catchup-bench-") as folder:
        loaded = Path(args.db or Path(folder, "loaded.duckdb"))
        if not loaded.exists():
            began = time.perf_counter()
            load(loaded, args.games, args.seed)
            print(f"stored {args.games:,} games in {time.perf_counter() - began:.1f} s "
                  f"({', '.join(f'{v} {p}p' for v, p in CASES)})")
        for run in range(1, args.runs + 1):
            copy = Path(folder, f"run{run}.duckdb")
            shutil.copyfile(loaded, copy)
            before = os.getloadavg()
            backlog, seconds, health, (cpu, workers) = drain(copy, args.timeout)
            done = backlog - health["backlog"]
            print(f"run {run}: {done:,} of {backlog:,} games analysed in {seconds:.1f} s: "
                  f"{done / seconds:.1f} games/s; {cpu:.1f} CPU s (store process and "
                  f"{workers} worker{'s' if workers != 1 else ''}): "
                  f"{done / max(cpu, 1e-9):.1f} games/CPU s; failed {health['failed']}; "
                  f"load before {before[0]:.2f}, after {os.getloadavg()[0]:.2f}; "
                  f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()

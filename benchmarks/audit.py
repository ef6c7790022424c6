"""Audit speed: games per second of ``rummy-audit audit`` on a local Dask cluster of
one and of two worker processes, against ``verify`` of the same logs in one process.

    python benchmarks/audit.py                       # 4-player Rummy and 2-player gin
    python benchmarks/audit.py --games 400 --shard-size 50
    python benchmarks/audit.py --memory 100,500,2000   # a worker's peak memory per shard size
    python benchmarks/audit.py --analyse             # and the in-process rate with --analyse
    python benchmarks/audit.py --breakdown           # a task's processor time per game, by step

For each corpus (generated, written as NDJSON):
  verify     -- ``rummy-audit verify``'s path in this process: read, validate, replay,
                report as JSON;
  in-process -- the audit's own work for every shard, called here without Dask: the
                same plus the store's rows and the Parquet files;
  analysed   -- (--analyse) the same with the analysis of every game and its tables;
  1 worker, 2 workers -- ``audit()`` on a LocalCluster as the command starts it, started
                beforehand (its start-up is not counted; the cutting of the inputs is);
and the speed-up from one worker to two.  The four are run one after the other, then
again (``--runs``, 3): each figure is the median of its runs, and each ratio the median
of the runs' own ratios, so that a change of the machine's speed falls on both sides of
a ratio.  The default corpus (2,400 games in shards of 100: 24 tasks) keeps the last
task's wait, while the other worker has nothing left, small beside the run.  The
machine's load is printed with the figures: other processes on the same cores lower
them.  Games per processor second (this process's for verify and in-process, the sum
of the tasks' for the workers) are printed too: they hardly move with the load, and say
what a core does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import median

import orjson

from service.audit import audit, engine_version
from service.audit.run import local_cluster
from service.audit.sources import cut
from service.audit.task import audit_shard
from service.audit.version import analysis_version
from service.cli import verify_one
from service.generator import generate_games

CASES = [("rummy", 4), ("gin", 2)]
AT = datetime(2026, 1, 1, tzinfo=UTC)


def write_corpus(folder: Path, variant: str, players: int, games: int) -> Path:
    path = folder / f"{variant}-{players}p.ndjson"
    with path.open("wb") as handle:
        for log in generate_games(variant, games, seed=11, players=players):
            handle.write(orjson.dumps(log) + b"\n")
    return path


def timed(work) -> tuple[float, float]:
    """Wall and processor seconds of ``work``."""
    start, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - start, time.process_time() - cpu


def measure(path: Path, games: int, shard_size: int, runs: int, scratch: Path,
            analyse: bool = False) -> list[dict]:
    """Each run's figures, as ``{name: (wall, processor seconds)}``: the runs are
    interleaved (verify, in-process, 1 worker, 2 workers, then again), so that a change
    of the machine's speed during the benchmark falls on every figure of a run alike
    and the ratios of one run compare like with like."""
    from distributed import Client

    lines = [line for line in path.read_bytes().split(b"\n") if line]

    def verify_all() -> None:
        for number, line in enumerate(lines, 1):
            orjson.dumps(verify_one(f"{path}:{number}", line)[0])

    def in_process(analysis: str | None = None) -> None:
        out = scratch / "in-process"
        shutil.rmtree(out, ignore_errors=True)
        for shard in cut([str(path)], shard_size):
            audit_shard(shard, str(out), engine_version(), AT, analysis)

    def on_workers(workers: int, run: int) -> tuple[float, float]:
        """Wall seconds of ``audit()`` on a cluster started beforehand (its start-up is
        not counted; the cutting of the inputs is), and its tasks' processor seconds."""
        with local_cluster(workers, dashboard=False) as cluster, Client(cluster) as client:
            out = scratch / f"w{workers}-{run}"
            result = audit([str(path)], str(out), client=client, shard_size=shard_size,
                           uploaded_at=AT)
            assert result.games == games and not result.failed
            shutil.rmtree(out)
            return result.seconds, sum(e.cpu_seconds for e in result.done)

    in_process()  # the first run pays for imports and caches
    figures = []
    for run in range(runs):
        figure = {"verify": timed(verify_all), "in-process": timed(in_process)}
        if analyse:
            figure["analysed"] = timed(lambda: in_process(analysis_version()))
        figure["1 worker"] = on_workers(1, run)
        figure["2 workers"] = on_workers(2, run)
        figures.append(figure)
    return figures


def report(name: str, games: int, figures: list[dict]) -> None:
    """Medians of the runs' rates and of their ratios, then every run's ratios."""
    def rate(run: dict, what: str, k: int = 0) -> float:
        return games / run[what][k]

    ratios = {"speed-up 1->2 workers": ("2 workers", "1 worker"),
              "1 worker / verify": ("1 worker", "verify"),
              "1 worker / in-process": ("1 worker", "in-process"),
              "in-process / verify": ("in-process", "verify")}
    print(f"{name} wall, median of {len(figures)}: " + ", ".join(
        f"{what} {median(rate(run, what) for run in figures):,.0f} games/s"
        for what in figures[0]), flush=True)
    print(f"{name} per processor second, median: " + ", ".join(
        f"{what} {median(rate(run, what, 1) for run in figures):,.0f} games"
        for what in figures[0]) + " (the workers' figure: their tasks only)", flush=True)
    for label, (top, bottom) in ratios.items():
        each = [rate(run, top) / rate(run, bottom) for run in figures]
        print(f"{name} {label}: median {median(each):.2f} (runs: "
              + ", ".join(f"{x:.2f}" for x in each) + ")", flush=True)


def breakdown(path: Path, games: int, shard_size: int, runs: int, scratch: Path) -> dict:
    """A task's steps in processor ms per game (the least of ``runs``), in shards of
    ``shard_size``: ``verify``'s whole path, and of the task read+parse+verify, the game
    id, the records, the rows as Arrow tables, the Parquet files."""
    import gc

    from service.audit.layout import table_file, write_table
    from service.engine import load_json, parse_game, verify
    from service.store.db import game_rows
    from service.store.records import build_record, game_id

    lines = [line for line in path.read_bytes().split(b"\n") if line]
    best: dict[str, float] = {}
    for run in range(runs):
        spent = dict.fromkeys(("verify", "judge", "game id", "records", "rows", "parquet"), 0.0)
        clock = time.process_time
        gc.disable()  # as the task does while it builds the rows
        start = clock()
        for number, line in enumerate(lines, 1):
            orjson.dumps(verify_one(f"{path}:{number}", line)[0])
        spent["verify"] = clock() - start
        for first in range(0, len(lines), shard_size):
            records = []
            for line in lines[first:first + shard_size]:
                t0 = clock()
                document = load_json(line)
                game = parse_game(document)
                report = verify(game)
                t1 = clock()
                gid = game_id(document)
                t2 = clock()
                records.append(build_record(document, line, game, report, None, AT, gid))
                t3 = clock()
                spent["judge"] += t1 - t0
                spent["game id"] += t2 - t1
                spent["records"] += t3 - t2
            t0 = clock()
            rows = game_rows(records)
            t1 = clock()
            for name, table in rows.tables.items():
                write_table(table_file(scratch / "breakdown", f"run{run}", name, str(first)),
                            table, name)
            spent["parquet"] += clock() - t1
            spent["rows"] += t1 - t0
        gc.enable()
        best = {name: min(best.get(name, float("inf")), value) for name, value in spent.items()}
    return {name: value / games * 1000 for name, value in best.items()}


PEAK = """
import resource, sys
from datetime import datetime, UTC
from service.audit import engine_version
from service.audit.sources import cut
from service.audit.task import audit_shard
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
(shard,) = cut([sys.argv[1]], int(sys.argv[2]))[:1]
audit_shard(shard, sys.argv[3], engine_version(), datetime.now(UTC))
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_memory(sizes: list[int], scratch: Path) -> None:
    """The peak resident memory of a fresh process auditing one shard of each size
    (4-player Rummy, the largest logs), against the same process before it."""
    import sys

    path = write_corpus(scratch, "rummy", 4, max(sizes))
    for size in sizes:
        out = subprocess.run([sys.executable, "-c", PEAK, str(path), str(size),
                              str(scratch / f"mem-{size}")], capture_output=True, text=True,
                             check=True).stdout.split()
        before, peak = (int(v) / 1024 for v in out)
        print(f"shard of {size} 4-player Rummy games: peak {peak:,.0f} MiB "
              f"({before:,.0f} MiB before the shard)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2400)
    parser.add_argument("--shard-size", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3,
                        help="interleaved runs (the breakdown: the least of this many)")
    parser.add_argument("--analyse", action="store_true",
                        help="also the in-process rate of an audit with --analyse")
    parser.add_argument("--breakdown", action="store_true",
                        help="print a task's processor time per game by step, instead of "
                             "the speeds")
    parser.add_argument("--memory", default=None, metavar="SIZES",
                        help="comma-separated shard sizes: print a worker's peak memory "
                             "for each, instead of the speeds")
    args = parser.parse_args()
    if args.memory:
        with tempfile.TemporaryDirectory() as tmp:
            peak_memory([int(s) for s in args.memory.split(",")], Path(tmp))
        return
    print(f"cores: {os.cpu_count()}; engine {engine_version()}; {args.games} games a corpus, "
          f"shards of {args.shard_size}, {args.runs} interleaved runs")
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for variant, players in CASES:
            path = write_corpus(scratch, variant, players, args.games)
            if args.breakdown:
                steps = breakdown(path, args.games, args.shard_size, max(args.runs, 3),
                                  scratch)
                rows = steps["game id"] + steps["records"] + steps["rows"] + steps["parquet"]
                print(f"{variant}/{players}p processor ms per game: " + ", ".join(
                    f"{name} {ms:.3f}" for name, ms in steps.items())
                    + f"; the store's rows (records, rows, parquet) "
                      f"{rows - steps['game id']:.3f}, with the game id {rows / steps['verify']:.2f}"
                      " of verify", flush=True)
                continue
            report(f"{variant}/{players}p", args.games,
                   measure(path, args.games, args.shard_size, args.runs, scratch,
                           args.analyse))
    print("load after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()

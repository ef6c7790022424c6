"""Ratings: a full recompute of a big store, and what rating costs each upload.

Builds the statistics benchmark's file (benchmarks/queries.py: ``--games`` mixed games,
2-6 players, ``--names`` distinct players, loaded with the loader's direct mode) unless
``--db`` names one that exists, then, pinned to one core:

1. the full recompute (``Store.recompute_ratings``, what ``rummy-audit ratings
   recompute`` runs): seconds and games/s, against the target of 60 s for 200,000 games;
2. the incremental cost per upload, on copies of that file: ``--uploads`` new games
   stored one commit each, played after every stored game (they extend their pool),
   then the same number played at a random time of the stored year (each a replay of
   its pool from its place), against the same uploads on a copy whose store rates
   nothing.

    python benchmarks/ratings.py                          # 200,000 games
    python benchmarks/ratings.py --games 20000            # a quicker look
    python benchmarks/ratings.py --db big.duckdb          # reuse a loaded file (or keep one)
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_game  # noqa: E402
from service.loader import YEAR_START, LoadPlan, load_direct, name_pool  # noqa: E402
from service.store import Store, build_record  # noqa: E402

RECOMPUTE_TARGET = 60.0  # seconds for 200,000 games, one core


def one_core() -> None:
    """Pin this process, DuckDB's threads included, to one core."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def uploads(count: int, seed: int, names: int, late: bool) -> list:
    """``count`` games between the file's players: played after every stored game, or
    (``late``) at a random time of the stored year."""
    rng = random.Random(seed)
    pool = name_pool(names)
    records = []
    for k in range(count):
        variant = rng.choice(["gin", "rummy", "rummy-pagat", "rummy-block", "greek"])
        when = (YEAR_START + timedelta(seconds=rng.randrange(365 * 86400)) if late
                else datetime(2030, 1, 1, tzinfo=UTC) + timedelta(minutes=k))
        log = generate_game(variant, (seed, k), names=pool,
                            played_at=when.isoformat().replace("+00:00", "Z"))
        game = parse_game(log)
        records.append(build_record(log, orjson.dumps(log), game, verify(game)))
    return records


def per_upload(db: Path, records: list, ratings: bool) -> tuple[float, float]:
    """Milliseconds per game, each stored in a commit of its own and rated at once
    (the catch-up called after each, as a read of the ratings would), on a copy of
    ``db``: elapsed, and CPU of this process (the store's threads and DuckDB's included), which
    a busy machine disturbs less."""
    with tempfile.TemporaryDirectory(dir=db.parent) as tmp:
        copy = Path(tmp) / "copy.duckdb"
        shutil.copyfile(db, copy)
        store = Store(copy, ratings=ratings)
        try:
            store.submit(records[:1])
            store.catch_up_ratings()  # the first rating loads the ratings in memory
            start, cpu = time.perf_counter(), time.process_time()
            for record in records[1:]:
                store.submit([record])
                store.catch_up_ratings()  # rated at once, as a read of the ratings does
            n = max(1, len(records) - 1)
            return ((time.perf_counter() - start) * 1000 / n,
                    (time.process_time() - cpu) * 1000 / n)
        finally:
            store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--names", type=int, default=200, help="distinct players")
    parser.add_argument("--db", type=Path, default=None,
                        help="a DuckDB file: reused as it is when it exists (no load), "
                             "else loaded and kept")
    parser.add_argument("--uploads", type=int, default=40, help="timed uploads each way")
    parser.add_argument("--processes", type=int, default=None, help="loader processes")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "ratings.duckdb"
        if db.exists():
            print(f"reusing {db} (no load)", flush=True)
        else:
            plan = LoadPlan(args.seed, "mixed", names=args.names)
            result = load_direct(plan, args.games, db, processes=args.processes,
                                 progress=sys.stderr)
            print(f"load: {result.games:,} games in {result.seconds:.0f} s", flush=True)
        one_core()
        store = Store(db, ratings=False)  # no recompute at the start: timed below
        try:
            with store.cursor() as cur:
                games, seats = cur.execute(
                    "SELECT count(DISTINCT game_id), count(*) FROM game_players").fetchone()
            start = time.perf_counter()
            rated = store.recompute_ratings()
            seconds = time.perf_counter() - start
        finally:
            store.close()
        target = RECOMPUTE_TARGET * games / 200_000
        print(f"store: {games:,} games, {seats:,} seats; database "
              f"{db.stat().st_size / 2**20:.0f} MiB")
        print(f"full recompute, one core: {rated:,} games rated in {seconds:.1f} s, "
              f"{rated / seconds:,.0f} games/s (target for this size {target:.1f} s: "
              f"{'ok' if seconds <= target else 'MISSED'})")

        print(f"generating {2 * args.uploads} uploads ...", flush=True)
        in_order = uploads(args.uploads, args.seed + 101, args.names, late=False)
        late = uploads(args.uploads, args.seed + 202, args.names, late=True)
        for label, records in (("in order", in_order),
                               ("played at a random earlier time (a replay)", late)):
            plain = per_upload(db, records, ratings=False)
            rated_ = per_upload(db, records, ratings=True)
            print(f"one game a commit, {label}: elapsed {plain[0]:.1f} ms without ratings, "
                  f"{rated_[0]:.1f} ms with ({rated_[0] - plain[0]:+.1f}); CPU {plain[1]:.1f} "
                  f"ms without, {rated_[1]:.1f} ms with ({rated_[1] - plain[1]:+.1f})")


if __name__ == "__main__":
    main()

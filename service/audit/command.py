"""The ``audit`` and ``import`` commands.

    rummy-audit audit sample_logs/ --out audit-out
    rummy-audit audit logs/ --out audit-out --scheduler tcp://10.0.0.5:8786
    rummy-audit import audit-out --db data/rummy.duckdb

``audit`` exits 0 when every shard is finished (whatever the verdicts: they are its
results), 1 when a shard failed (run it again to redo just those), 2 on a usage error
or an input that cannot be read.  ``import`` exits 0 once stored, 2 when the database
is held by another process or the folder holds no audit.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..engine.words import integer_range, plural
from .run import DEFAULT_SHARD_SIZE

STATUSES = ("valid", "illegal", "mismatch", "incomplete")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(integer_range(1))
    return value


def add_audit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="NDJSON files (plain or gzip), JSON files, Parquet files with "
                             "a log column, or folders of them")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the results folder (engine=<version>/table=<name>/...)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a running Dask scheduler (tcp://host:8786); default: a local "
                             "cluster started for the run")
    parser.add_argument("--workers", type=_positive, metavar="N",
                        help="worker processes of the local cluster (default: every core)")
    parser.add_argument("--shard-size", type=_positive, default=DEFAULT_SHARD_SIZE, metavar="N",
                        help=f"games per shard, one Dask task each (default {DEFAULT_SHARD_SIZE})")
    parser.add_argument("--analyse", action="store_true",
                        help="analyse every game too (the analysis tables, docs/ANALYSIS.md); "
                             "shards finished without it are redone")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=cmd_audit, parser=parser)


def cmd_audit(args: argparse.Namespace) -> int:
    from .run import audit
    from .sources import InputError

    if args.scheduler and args.workers:
        args.parser.error("argument --workers: only for the local cluster, not with --scheduler")
    try:
        result = audit(args.inputs, args.out, scheduler=args.scheduler, workers=args.workers,
                       shard_size=args.shard_size, analyse=args.analyse,
                       progress=None if args.quiet else sys.stderr)
    except (InputError, ValueError) as problem:
        print(f"rummy-audit audit: {problem}", file=sys.stderr)
        return 2
    statuses = result.statuses()
    counts = ", ".join(f"{statuses[s]} {s}" for s in STATUSES if statuses[s])
    line = (f"engine {result.version}"
            + (f", analysis {result.analysis}" if result.analysis else "")
            + f": {plural(result.shards, 'shard')}, "
            f"{result.skipped} finished before; {plural(result.games, 'game')} "
            + ("audited and analysed" if result.analysis else "audited")
            + (f" ({counts})" if counts else ""))
    if result.errors():
        line += f"; {plural(result.errors(), 'line')} not a game (table errors)"
    if result.analysis_failures():
        line += (f"; {plural(result.analysis_failures(), 'analysis', 'analyses')} failed "
                 "(table errors, kind analysis)")
    if result.games:
        line += f" in {result.seconds:.1f} s, {result.games / result.seconds:.0f} games/s"
    print(line)
    given_twice = _given_twice(args.out, result)
    if given_twice:
        print(f"{plural(given_twice, 'log')} given more than once: each counted once, "
              "the first in shard order (import and the lake keep that one)")
    print(f"results in {os.path.join(args.out, 'engine=' + result.version)}")
    for shard, why in sorted(result.failed.items()):
        print(f"shard {shard} failed: {why}", file=sys.stderr)
    return 1 if result.failed else 0


def _given_twice(out: str, result) -> int:
    """Later copies of games in the whole results folder: within a shard (the manifest)
    and across shards (the games files' ids)."""
    import duckdb

    from ..store.lake import Lake, LakeError, duplicates
    from .layout import read_manifest

    try:
        lake = Lake.at(out, result.version)
    except LakeError:
        return 0
    within = sum(e.duplicates for e in read_manifest(out, result.version).values())
    if not lake.files("games"):
        return within
    with duckdb.connect(":memory:") as con:
        return within + sum(len(d.left_out) for d in duplicates(con, lake))


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", help="an audit's results folder (audit --out)")
    parser.add_argument("--db", default=None, metavar="PATH",
                        help="the DuckDB file (default $RUMMY_DB or ./data/rummy.duckdb)")
    parser.add_argument("--engine", default=None, metavar="VERSION",
                        help="the engine version to import (default: the last audited)")
    parser.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from ..loader import DEFAULT_DB
    from ..store import Store, StoreLocked
    from ..store.lake import LakeError, import_lake

    path = args.db or os.environ.get("RUMMY_DB") or DEFAULT_DB
    try:
        store = Store(path)
    except StoreLocked as problem:
        print(f"rummy-audit import: {problem}", file=sys.stderr)
        return 2
    try:
        result = import_lake(store, args.folder, args.engine)
    except LakeError as problem:
        print(f"rummy-audit import: {problem}", file=sys.stderr)
        return 2
    finally:
        store.close()
    line = (f"engine {result.version}: {plural(result.shards, 'shard')}; "
            f"{plural(result.games, 'game')} stored, {result.skipped} stored before")
    if result.duplicates:
        line += f", {result.duplicates} given again in another shard (kept once)"
    if result.rows.get("analysis_games"):
        line += f"; {plural(result.rows['analysis_games'], 'analysis', 'analyses')} stored"
    print(f"{line}; {path}")
    return 0

"""Where an audit's results lie, and its manifest.

    DIR/engine=<engine version>/table=<table>/<shard id>.parquet
    DIR/engine=<engine version>/manifest.ndjson   one line per finished shard
    DIR/engine=<engine version>/layout.json       the shard size the ids were cut with

The tables are the store's (``service.store.rows``: the same columns, in the same
order) and ``errors``, the lines that are no game.  Every shard writes every table,
empty ones too, so that a reader of a table always finds files with its columns; a
shard audited with ``--analyse`` writes the analysis tables too (``ANALYSIS_TABLES``).  A
file is written under a temporary name and renamed, so a file that exists is whole;
a shard is finished when its manifest line is, which is written after its files.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from ..store.rows import ANALYSIS_ROWS, ROWS, columns

ERRORS = "errors"
TABLES = (*ROWS, ERRORS)
ANALYSIS_TABLES = tuple(ANALYSIS_ROWS)
MANIFEST = "manifest.ndjson"
LAYOUT = "layout.json"
ERROR_SCHEMA = pa.schema([
    ("source", pa.string()),  # file:line (file:row for Parquet, the file for JSON)
    ("file", pa.string()),
    ("line", pa.int64()),
    # malformed: the log's field errors; internal: the engine failed; analysis: the
    # game's analysis failed (the game is stored, without an analysis)
    ("kind", pa.string()),
    ("errors", pa.string()),  # JSON: {field path: [messages]}
])
SCHEMAS = {name: pa.schema(columns(name)) for name in (*ROWS, *ANALYSIS_ROWS)} \
    | {ERRORS: ERROR_SCHEMA}


def version_dir(out: str | Path, version: str) -> Path:
    return Path(out) / f"engine={version}"


def table_file(out: str | Path, version: str, table: str, shard: str) -> Path:
    return version_dir(out, version) / f"table={table}" / f"{shard}.parquet"


# How each table's columns are written (measured on 4-player Rummy, docs/SCALE.md):
# - zstd only for the logs and reports, most of the bytes; it costs some tens of
#   microseconds a column chunk whatever its size, which made the small tables cost
#   twice their snappy time, to save a few hundred bytes a game on the rest;
# - no dictionary for the columns whose every value is its own (the writer hashed
#   every log before giving the dictionary up);
# - no statistics where no reader skips a file by a range: the logs and reports, and
#   the moves (random game ids, every card and action in every file), whose
#   statistics were a third of their writing.
ZSTD_COLUMNS = {"games": ("log", "report")}
NO_DICTIONARY = {"games": ("id", "log", "report")}
NO_STATISTICS = {"games": ("log", "report"), "moves": tuple(SCHEMAS["moves"].names)}


def write_options(table: str) -> dict[str, Any]:
    """``pq.write_table``'s options for a file of ``table``."""
    names = SCHEMAS[table].names
    zstd, plain = ZSTD_COLUMNS.get(table, ()), NO_DICTIONARY.get(table, ())
    bare = NO_STATISTICS.get(table, ())
    return {"compression": {name: "zstd" if name in zstd else "snappy" for name in names},
            "use_dictionary": [name for name in names if name not in plain],
            "write_statistics": [name for name in names if name not in bare]}


_OPTIONS = {table: write_options(table) for table in SCHEMAS}


def write_table(path: Path, table: pa.Table, name: str) -> None:
    """Write ``table``, a table called ``name``, to ``path`` whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    # Written in memory and then at once: the writer's many small writes (a few per
    # column chunk) were each a system call, a third of a small file's cost.
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, **_OPTIONS[name])
    partial.write_bytes(buffer.getvalue())
    os.replace(partial, path)


@dataclass(slots=True)
class Finished:
    """A manifest line: a shard done, with its input's digest and what it wrote."""

    shard: str
    digest: str
    games: int  # games stored (a log given twice in a shard counts once)
    rows: dict[str, int]  # rows written per table, errors included
    statuses: dict[str, int]
    inputs: list[str]
    duplicates: int = 0
    seconds: float = 0.0  # the task's wall time
    cpu_seconds: float = 0.0  # its processor time: the per-core rate, whatever the load
    worker: str | None = None
    analysis: str | None = None  # the analysis version (``version.analysis_version``)
    extra: dict[str, Any] = field(default_factory=dict)


def read_manifest(out: str | Path, version: str) -> dict[str, Finished]:
    """The finished shards by id (a later line for a shard wins; a line cut short by a
    killed run is ignored)."""
    path = version_dir(out, version) / MANIFEST
    done: dict[str, Finished] = {}
    if not path.exists():
        return done
    for line in path.read_bytes().split(b"\n"):
        try:
            entry = Finished(**orjson.loads(line))
        except (orjson.JSONDecodeError, TypeError):
            continue
        done[entry.shard] = entry
    return done


def append_manifest(out: str | Path, version: str, entry: Finished) -> None:
    path = version_dir(out, version) / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as handle:
        handle.write(orjson.dumps(asdict(entry)) + b"\n")
        handle.flush()
        os.fsync(handle.fileno())


def check_layout(out: str | Path, version: str, shard_size: int) -> None:
    """Record the shard size of a new results folder, or check it is the same: with
    another size the shards would be other ones, and the old files would count twice."""
    path = version_dir(out, version) / LAYOUT
    if path.exists():
        before = orjson.loads(path.read_bytes()).get("shard_size")
        if before != shard_size:
            raise ValueError(f"{out} holds an audit cut in shards of {before} games; "
                             f"audit with --shard-size {before}, or into another folder")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps({"engine": version, "shard_size": shard_size}))


def versions(out: str | Path) -> list[str]:
    """The engine versions with results under ``out``, the most recently finished
    last."""
    found = []
    for child in Path(out).glob("engine=*"):
        manifest = child / MANIFEST
        if manifest.exists():
            found.append((manifest.stat().st_mtime, child.name.split("=", 1)[1]))
    return [version for _, version in sorted(found)]

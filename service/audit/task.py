"""One shard audited: what a Dask task runs, on whichever worker it lands.

Each game goes through the engine as an upload does (decode, parse, verify), and its
rows are built by the store's own builder (``build_record``, then ``game_rows``), so
the Parquet files hold exactly what the store would hold.  A line that is no game
becomes a row of ``errors`` with its source; the shard still succeeds.
"""

from __future__ import annotations

import gc
import socket
import time
import traceback
from collections import Counter
from datetime import datetime

import orjson
import pyarrow as pa

from ..engine import LogValidationError, load_json, parse_game, verify
from ..store.db import GameRows, game_rows
from ..store.records import build_record, game_id
from .layout import ERROR_SCHEMA, ERRORS, SCHEMAS, Finished, table_file, write_table
from .sources import Shard, items
from .version import engine_version


def _judge(shard: Shard, uploaded_at: datetime) -> tuple[GameRows, list[tuple], Counter[str], int]:
    """The rows of the shard's games (the first of each id), its lines that are no
    game, the games by status, and how many were given again."""
    records, errors, seen = [], [], set()
    statuses: Counter[str] = Counter()
    duplicates = 0
    for file, line, text in items(shard):
        source = file if line is None else f"{file}:{line}"
        try:
            document = load_json(text)
            game = parse_game(document)
            report = verify(game)
            gid = game_id(document)
        except LogValidationError as error:
            errors.append((source, file, line, "malformed", orjson.dumps(error.errors).decode()))
            continue
        except Exception:  # the engine failed on this game: say so, go on
            errors.append((source, file, line, "internal", orjson.dumps(
                {"": [traceback.format_exc(limit=-3)]}).decode()))
            continue
        if gid in seen:
            duplicates += 1
            continue
        seen.add(gid)
        statuses[report.status] += 1
        records.append(build_record(document, text, game, report, None, uploaded_at, gid))
    return game_rows(records), errors, statuses, duplicates


class EngineMismatch(RuntimeError):
    """The worker runs other engine code than the command that cut the shards."""


def audit_shard(shard: Shard, out: str, version: str, uploaded_at: datetime) -> Finished:
    """Verify the shard's games, write its tables, and say what was written.  Every
    game of the audit gets ``uploaded_at``, the time the audit started (a log records
    no upload time; it is the time of the games that have no ``played_at``)."""
    if engine_version() != version:
        raise EngineMismatch(f"this worker runs engine {engine_version()}, the audit "
                             f"{version}: install the same code on every worker")
    began, cpu = time.perf_counter(), time.process_time()
    # Many small objects and no cycles: the collector would cost more than verifying.
    # It is back on once the rows are Arrow tables and the Python objects are gone.
    gc.disable()
    try:
        rows, errors, statuses, duplicates = _judge(shard, uploaded_at)
    finally:
        gc.enable()
    tables = dict(rows.tables)
    tables[ERRORS] = pa.Table.from_pylist(
        [dict(zip(ERROR_SCHEMA.names, e, strict=True)) for e in errors], schema=ERROR_SCHEMA)
    for name, table in tables.items():
        write_table(table_file(out, version, name, shard.id), table.cast(SCHEMAS[name]))
    return Finished(shard.id, shard.digest, len(rows),
                    {name: table.num_rows for name, table in tables.items()},
                    dict(statuses), list(dict.fromkeys(shard.labels)), duplicates,
                    round(time.perf_counter() - began, 3), round(time.process_time() - cpu, 3),
                    socket.gethostname())

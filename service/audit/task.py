"""One shard audited: what a Dask task runs, on whichever worker it lands.

Each game goes through the engine as an upload does (decode, parse, verify), and its
rows are built by the store's own builder (``build_record``, then ``game_rows``), so
the Parquet files hold exactly what the store would hold.  With ``analysis`` (the
command's ``--analyse``) each game is also analysed, its rows built by the store's
analysis builder (``analysis_record``, then ``analysis_tables``), as the store's
catch-up does.  A line that is no game becomes a row of ``errors`` with its source; the
shard still succeeds.
"""

from __future__ import annotations

import gc
import socket
import time
import traceback
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime

import orjson
import pyarrow as pa

from ..engine import LogValidationError, load_json, parse_game, verify
from ..store.analysis import AnalysisRecord, analysis_record
from ..store.db import analysis_tables, game_rows
from ..store.records import build_record, game_id
from ..store.rows import GameRow
from .layout import (
    ANALYSIS_TABLES,
    ERROR_SCHEMA,
    ERRORS,
    SCHEMAS,
    Finished,
    table_file,
    write_table,
)
from .sources import Shard, items
from .version import analysis_version, engine_version

_TOURNAMENT = GameRow._fields.index("tournament_id")
_GAME_TIME = GameRow._fields.index("game_time")


@dataclass(slots=True)
class Judged:
    """What a shard's games gave: their rows, their lines that are no game, the games
    by status, how many were given again in the shard."""

    records: list = field(default_factory=list)
    analyses: list[AnalysisRecord] = field(default_factory=list)
    errors: list[tuple] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0


def _failure() -> str:
    return orjson.dumps({"": [traceback.format_exc(limit=-3)]}).decode()


def _judge(shard: Shard, uploaded_at: datetime, analyse: bool) -> Judged:
    """The rows of the shard's games (the first of each id) and the rest of ``Judged``."""
    judged, seen = Judged(), set()
    for file, line, text in items(shard):
        source = file if line is None else f"{file}:{line}"
        try:
            document = load_json(text)
            game = parse_game(document)
            report = verify(game)
            gid = game_id(document)
        except LogValidationError as error:
            judged.errors.append((source, file, line, "malformed",
                                  orjson.dumps(error.errors).decode()))
            continue
        except Exception:  # the engine failed on this game: say so, go on
            judged.errors.append((source, file, line, "internal", _failure()))
            continue
        if gid in seen:
            judged.duplicates += 1
            continue
        seen.add(gid)
        judged.statuses[report.status] += 1
        record = build_record(document, text, game, report, None, uploaded_at, gid)
        judged.records.append(record)
        if analyse:
            try:
                judged.analyses.append(analysis_record(
                    gid, game, report, record.games[_TOURNAMENT], record.games[_GAME_TIME]))
            except Exception:  # the game stands; its analysis is left to the store
                judged.errors.append((source, file, line, "analysis", _failure()))
    return judged


class EngineMismatch(RuntimeError):
    """The worker runs other engine (or analysis) code than the command that cut the
    shards."""


def audit_shard(shard: Shard, out: str, version: str, uploaded_at: datetime,
                analysis: str | None = None) -> Finished:
    """Verify the shard's games (and analyse them when ``analysis``, the command's
    analysis version, is given), write its tables, and say what was written.  Every
    game of the audit gets ``uploaded_at``, the time the audit started (a log records
    no upload time; it is the time of the games that have no ``played_at``)."""
    if engine_version() != version:
        raise EngineMismatch(f"this worker runs engine {engine_version()}, the audit "
                             f"{version}: install the same code on every worker")
    if analysis is not None and analysis_version() != analysis:
        raise EngineMismatch(f"this worker runs analysis {analysis_version()}, the audit "
                             f"{analysis}: install the same code on every worker")
    began, cpu = time.perf_counter(), time.process_time()
    # Many small objects and no cycles: the collector would cost more than verifying.
    # It is back on once the rows are Arrow tables and the Python objects are gone.
    gc.disable()
    try:
        judged = _judge(shard, uploaded_at, analysis is not None)
        rows = game_rows(judged.records)
        tables = dict(rows.tables)
        if analysis is not None:
            tables.update(analysis_tables(judged.analyses))
        judged.records.clear()
        judged.analyses.clear()
    finally:
        gc.enable()
    tables[ERRORS] = pa.Table.from_pylist(
        [dict(zip(ERROR_SCHEMA.names, e, strict=True)) for e in judged.errors],
        schema=ERROR_SCHEMA)
    if analysis is None:  # a shard analysed by an earlier run, redone without: no stale rows
        for name in ANALYSIS_TABLES:
            with suppress(FileNotFoundError):
                table_file(out, version, name, shard.id).unlink()
    for name, table in tables.items():
        schema = SCHEMAS[name]  # the builders' own: a cast is only for a table that differs
        write_table(table_file(out, version, name, shard.id),
                    table if table.schema == schema else table.cast(schema),
                    name)
    return Finished(shard.id, shard.digest, len(rows),
                    {name: table.num_rows for name, table in tables.items()},
                    dict(judged.statuses), list(dict.fromkeys(shard.labels)),
                    judged.duplicates, round(time.perf_counter() - began, 3),
                    round(time.process_time() - cpu, 3), socket.gethostname(), analysis,
                    {"analysis_failures": sum(e[3] == "analysis" for e in judged.errors)}
                    if analysis is not None else {})

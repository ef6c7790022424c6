"""An audit's Parquet results (``service.audit``) as the store reads them: imported
into a DuckDB store, or queried where they lie.

The layout is ``DIR/engine=<version>/table=<table>/<shard>.parquet``, each table with
the store's columns (``rows``).  One engine version is read at a time: the one named,
or else the one whose audit finished last.

One game per game id, whichever way it is read.  A log given twice in one shard was
kept once by the audit (the manifest's ``duplicates``); a log given in two shards (two
files holding it, or one file given twice) is in both shards' files, and the first
copy in shard order is the game: the later copies and their rows are left out, and
reported (``duplicates``).

Import reads the Parquet with DuckDB itself, never row by row through Python: the
shards are taken in batches, each batch in one transaction for all its tables (the
analysis tables too, for an audit that analysed), so a game and its rows arrive
together or not at all.  Games already stored (by id, deleted ones too) are skipped,
and so is a game given again in a later shard; a skipped game's rows are not inserted
either (each row is taken from the shard its game came from).  Imported games are
numbered after the stored ones, in shard order.

A lake (:class:`LakeStore`) is a DuckDB database in memory whose tables of games and
rows are views over ``read_parquet``: every read of ``StoreReads`` and every statistic
of ``stats``, ``audit`` and ``analysis`` run on it unchanged, without an import.  It is
read-only.  Its ``seq`` is the order of the shards and of the games in them (a window
over the games, computed only by the reads that use it: listings and exports).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from ..audit.layout import ERRORS, version_dir, versions
from . import ratings as rating_tables
from .db import Rows, Statement, Store, StoreError, StoreReads
from .migrations import MIGRATIONS
from .rows import ANALYSIS_ROWS, CHILD_TABLES, ROWS, TABLES

BATCH_SHARDS = 64  # shards imported per transaction


class LakeError(StoreError):
    """No audit results where they were looked for."""


def _columns(table: str) -> list[str]:
    return list(TABLES[table]._fields)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True, slots=True)
class Lake:
    """The results of one engine version under an audit folder."""

    folder: Path
    version: str

    @classmethod
    def at(cls, folder: str | Path, version: str | None = None) -> Lake:
        folder = Path(folder)
        found = versions(folder)
        if version is None:
            if not found:
                raise LakeError(f"{folder} holds no audit results (no engine=*/manifest.ndjson)")
            version = found[-1]
        elif version not in found:
            raise LakeError(f"{folder} holds no results of engine {version}")
        return cls(folder, version)

    def files(self, table: str) -> list[str]:
        """The Parquet files of a table, in shard order."""
        return sorted(str(p) for p in
                      (version_dir(self.folder, self.version) / f"table={table}").glob("*.parquet"))

    def glob(self, table: str) -> str:
        return str(version_dir(self.folder, self.version) / f"table={table}" / "*.parquet")

    def analysed(self) -> bool:
        """Whether any shard of the audit wrote the analysis tables (``--analyse``)."""
        return bool(self.files("analysis_games"))


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A game whose log is in several shards: kept from the first, left out of the
    others."""

    game_id: str
    kept: str  # the shard whose copy is the game
    left_out: list[str]


def duplicates(con: duckdb.DuckDBPyConnection, lake: Lake) -> list[Duplicate]:
    """The games of the lake given in more than one shard, by id (a read of the ids of
    every games file, which Parquet keeps apart from the rest of the rows)."""
    rows = con.execute(
        "SELECT id, list(parse_filename(filename, true) ORDER BY filename) FROM "
        "read_parquet(?, filename = true) GROUP BY id HAVING count(*) > 1 ORDER BY id",
        [lake.files("games")]).fetchall()
    return [Duplicate(gid, shards[0], shards[1:]) for gid, shards in rows]


@dataclass(slots=True)
class ImportResult:
    version: str
    shards: int
    games: int = 0  # new games stored
    skipped: int = 0  # games stored before (by id, deleted ones too)
    duplicates: int = 0  # later copies of a game given in several shards
    rows: dict[str, int] = field(default_factory=dict)  # rows inserted per table
    errors: int = 0  # rows of the audit's errors table (not imported: they are no games)


def _batches(files: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(files), size):
        yield files[start:start + size]


def import_lake(store: Store, folder: str | Path, version: str | None = None,
                batch_shards: int = BATCH_SHARDS) -> ImportResult:
    """Store the games of an audit folder that the store does not hold yet."""
    lake = Lake.at(folder, version)
    games = lake.files("games")
    tables = [*CHILD_TABLES, *ANALYSIS_ROWS]
    result = ImportResult(lake.version, len(games), rows=dict.fromkeys([*ROWS, *ANALYSIS_ROWS], 0))
    folder_of = {name: Path(lake.glob(name)).parent for name in tables}
    with store.exclusive() as cur:
        if games:
            offered, distinct = cur.execute("SELECT count(*), count(DISTINCT id) FROM "
                                            "read_parquet(?)", [games]).fetchone()
            result.duplicates = offered - distinct
        for batch in _batches(games, batch_shards):
            shards = [Path(f).stem for f in batch]
            children = {name: [str(folder_of[name] / f"{s}.parquet") for s in shards]
                        for name in tables}
            # a shard audited without --analyse has no analysis files
            children = {name: [f for f in files if name in CHILD_TABLES or Path(f).exists()]
                        for name, files in children.items()}
            _import_batch(cur, batch, {k: v for k, v in children.items() if v}, result)
        result.skipped -= result.duplicates
        errors = lake.files(ERRORS)
        if errors:
            result.errors = cur.execute("SELECT count(*) FROM read_parquet(?)",
                                        [errors]).fetchone()[0]
    return result


def _import_batch(cur: duckdb.DuckDBPyConnection, games: list[str],
                  children: dict[str, list[str]], result: ImportResult) -> None:
    """One transaction: the batch's new games (the first of each id, in shard order)
    and the rows of their shard."""
    cur.execute("BEGIN TRANSACTION")
    try:
        base = cur.execute("SELECT coalesce(max(seq), 0) FROM games").fetchone()[0]
        cur.execute(
            "CREATE OR REPLACE TEMP TABLE import_pick AS "
            "SELECT id, parse_filename(filename, true) AS shard, file_row_number AS pos, "
            "count(*) OVER (PARTITION BY id) AS copies "
            "FROM read_parquet(?, filename = true, file_row_number = true) "
            "WHERE id NOT IN (SELECT id FROM games) "
            "QUALIFY row_number() OVER (PARTITION BY id ORDER BY shard, pos) = 1", [games])
        offered = cur.execute("SELECT count(*) FROM read_parquet(?)", [games]).fetchone()[0]
        columns = _columns("games")
        picked = ", ".join("? + row_number() OVER (ORDER BY p.shard, p.pos) AS seq"
                           if c == "seq" else f"g.{c}" for c in columns)
        added = cur.execute(
            f"INSERT INTO games ({', '.join(columns)}) SELECT {picked} "
            "FROM read_parquet(?, filename = true, file_row_number = true) g "
            "JOIN import_pick p ON p.id = g.id AND p.shard = parse_filename(g.filename, true) "
            "AND p.pos = g.file_row_number", [base, games]).fetchone()[0]
        result.games += added
        result.skipped += offered - added
        result.rows["games"] += added
        for name, files in children.items():
            names = _columns(name)
            inserted = cur.execute(
                f"INSERT INTO {name} ({', '.join(names)}) "
                f"SELECT {', '.join('r.' + c for c in names)} "
                "FROM read_parquet(?, filename = true) r "
                "SEMI JOIN import_pick p ON p.id = r.game_id "
                "AND p.shard = parse_filename(r.filename, true)", [files]).fetchone()[0]
            result.rows[name] += inserted
        cur.execute("DROP TABLE import_pick")
        cur.execute("COMMIT")
    except BaseException as error:
        with suppress(duckdb.Error):
            cur.execute("ROLLBACK")
        if isinstance(error, duckdb.Error):
            raise StoreError(f"database error while importing: {error}") from error
        raise


class LakeStore(StoreReads):
    """The reads of the store over an audit folder's Parquet, read-only.  The analysis
    tables are there when the audit analysed (``holds_analyses``)."""

    def __init__(self, folder: str | Path, version: str | None = None, threads: int | None = None):
        self.lake = Lake.at(folder, version)
        self._con = duckdb.connect(":memory:")
        if threads is not None:
            self._con.execute(f"SET threads = {int(threads)}")
        self.holds_analyses = self.lake.analysed()
        self._duplicates: list[Duplicate] = []
        self._define()

    def duplicates(self) -> list[Duplicate]:
        """The games given in more than one shard (each counted once, from the first)."""
        return list(self._duplicates)

    def _source(self, name: str, keep: str) -> str:
        """``FROM`` and ``WHERE`` of a table's view: its files, less the rows of the
        later copies of games given in several shards (``keep``: the column of the
        game's id)."""
        extra = ", file_row_number = true" if name == "games" else ""
        source = f"read_parquet({_literal(self.lake.glob(name))}, filename = true{extra})"
        if not self._duplicates:
            return source
        return (f"{source} WHERE NOT EXISTS (SELECT 1 FROM lake_left_out o WHERE "
                f"o.game_id = {keep} AND o.shard = parse_filename(filename, true))")

    def _define(self) -> None:
        con = self._con
        for name in ROWS:
            if not self.lake.files(name):
                raise LakeError(f"{self.lake.folder}: engine {self.lake.version} has no "
                                f"{name} files")
        self._duplicates = duplicates(con, self.lake)
        con.execute("CREATE TABLE lake_left_out (game_id VARCHAR, shard VARCHAR)")
        if self._duplicates:
            con.executemany("INSERT INTO lake_left_out VALUES (?, ?)",
                            [(d.game_id, shard) for d in self._duplicates
                             for shard in d.left_out])
        tables = [*ROWS, *(ANALYSIS_ROWS if self.holds_analyses else ())]
        for name in tables:
            if name == "games":
                # seq: shard order, then the order of the games in their shard
                select = ", ".join(
                    "row_number() OVER (ORDER BY filename, file_row_number) AS seq"
                    if c == "seq" else c for c in _columns(name))
            else:
                select = ", ".join(_columns(name))
            keep = "id" if name == "games" else "game_id"
            con.execute(f"CREATE VIEW {name} AS SELECT {select} FROM {self._source(name, keep)}")
        con.execute("CREATE TABLE deletions (game_id VARCHAR PRIMARY KEY, "
                    "deleted_at TIMESTAMPTZ NOT NULL, deleted_by VARCHAR, reason VARCHAR)")
        con.execute(f"CREATE VIEW errors AS SELECT * FROM read_parquet("
                    f"{_literal(self.lake.glob(ERRORS))})")
        # The ratings (docs/RATINGS.md): computed from the lake's games as it opens, in
        # memory (about 2 s of one core per 20,000 games).
        (ratings_sql,) = [sql for version, _, sql in MIGRATIONS if version == 5]
        con.execute(ratings_sql)
        rating_tables.recompute(con)
        # No ruling, replacement, setting or restoration in a lake (it is read-only): the
        # tables empty, so that the tournament audit and the pages read them as everywhere.
        for version, _, sql in MIGRATIONS:
            if version in (8, 9, 11):
                con.execute(sql)
        self._define_analysis()

    def _define_analysis(self) -> None:
        """A lake without analysis tables gets them empty (migrations 6, 7 and 10), so that
        the reads that join them (the leaderboard's analysis figures) answer: no player
        has analysed games there."""
        con = self._con
        found = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = "
                            "'analysis_players' UNION ALL SELECT count(*) FROM "
                            "duckdb_views() WHERE view_name = 'analysis_players'").fetchall()
        if any(n for (n,) in found):
            return
        for version, _, sql in MIGRATIONS:
            if version in (6, 7, 10):
                con.execute(sql)

    @property
    def schema_version(self) -> int:
        """The lake's columns are those of the newest migration."""
        return max(version for version, _, _ in MIGRATIONS)

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        cur = self._con.cursor()
        try:
            yield cur
        except duckdb.Error as error:
            raise StoreError(f"database error: {error}") from error
        finally:
            cur.close()

    def read_many(self, statements: Sequence[Statement]) -> list[Rows]:
        """The files do not change under a read: no transaction is needed for one
        snapshot."""
        results = []
        with self.cursor() as cur:
            for sql, params in statements:
                cur.execute(sql, params)
                results.append(Rows(tuple(d[0] for d in cur.description or ()), cur.fetchall()))
        return results

    def write_health(self) -> dict[str, Any]:
        """A lake takes no writes: no commit, none waiting."""
        return {"last_commit": None, "at": None, "reason": None, "queued": 0,
                "queued_games": 0, "max_queued_games": 0}

    def check(self, timeout: float | None = None) -> dict[str, Any]:
        """What a health check needs: the schema version, once the lake answers a
        query, and ``write_health``; a lake neither analyses nor rates."""
        self.ping()
        return {"schema_version": self.schema_version, "writes": self.write_health(),
                "analysis": None, "ratings": None}

    def write_counts(self) -> dict[str, int]:
        return {"commits": 0, "games_committed": 0}

    def close(self) -> None:
        self._con.close()

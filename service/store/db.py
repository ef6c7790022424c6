"""The DuckDB store: owns the connection, the migrations, the writes and the reads.

DuckDB allows one read-write process per file, which opens it here, once (the HTTP
service does so in a process of its own: ``remote``).  Inside it every request takes
its own cursor, and all writes go through one writer thread.  The writer takes whatever
games are waiting, from every request, and commits them in one transaction (a group
commit: a commit costs milliseconds whatever its size, so batching is what makes
concurrent single uploads fast).  A game is acknowledged only after its transaction
committed.

Rows arrive in two shapes and are bulk-inserted in both: games as records (plain tuples,
from single uploads) go through one appender per table, flushed once per commit; rows
already built as Arrow tables (``GameRows``, from the verifying pool) are inserted from
them.  Each statement costs about a millisecond whatever its size, and the appenders
spare both the statements that turn a table into a relation and the Python loops that
build small Arrow tables, which were most of a small commit.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import duckdb
import orjson
import pyarrow as pa

from ..engine.report import MOVES
from ..ratings import RatedGame
from . import ratings as rating_tables
from .migrations import BOOKKEEPING, MIGRATIONS
from .moves import moves_table
from .rating_catchup import HOLD, RatingCatchUp
from .records import GameRecord
from .rows import ANALYSIS_ROWS, CHILD_TABLES, ROWS, columns
from .snapshots import Snapshots
from .transactions import transaction

_COLUMNS = {table: columns(table) for table in ROWS}
_ANALYSIS = {table: pa.struct(columns(table)) for table in ANALYSIS_ROWS}
_SCHEMAS = {table: pa.schema(cols) for table, cols in _COLUMNS.items()}
_STRUCTS = {table: pa.struct(cols) for table, cols in _COLUMNS.items()}
_CHILD_TABLES = CHILD_TABLES
_DELETION = ("id", "deleted_at", "deleted_by", "reason")
_TICK = timedelta(microseconds=1)


def _live_correction(cur: Any, gid: str, replaced_by: str | None) -> str | None:
    """The live end of the chain of corrections from ``gid`` replaced by
    ``replaced_by`` (a correction withdrawn by its own correction is followed to it),
    or None when the chain ends in a withdrawn game."""
    seen = {gid}
    current = replaced_by
    while current is not None and current not in seen:
        seen.add(current)
        row = cur.execute(
            "SELECT r.replaced_by FROM deletions d LEFT JOIN replacements r "
            "ON r.game_id = d.game_id WHERE d.game_id = ?", [current]).fetchall()
        if not row:
            return current
        current = row[0][0]
    return None


def _after_restorations(cur: Any, gid: str, at: datetime) -> datetime:
    """The time of a new withdrawal of ``gid``: ``at``, or just after the game's last
    restoration when ``at`` is not later (two requests' clocks are read before the write
    lock orders them: the audit trail follows the order they took effect in)."""
    last = cur.execute("SELECT max(restored_at) FROM restorations WHERE game_id = ?",
                       [gid]).fetchone()[0]
    return at if last is None or at > last else last + _TICK

_RESTORATION = ("id", "n", "restored_at", "restored_by", "reason", "deleted_at",
                "deleted_by", "deleted_reason", "replaced_by")




class StoreError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Replacement:
    """What ``Store.replace_game`` did: ``outcome`` (``replaced``, or why nothing was
    changed), the new game's id, whether it was stored now, and the withdrawal of the
    old game (or the deletion that stopped the replacement)."""

    outcome: str
    id: str
    created: bool
    deletion: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Restoration:
    """What ``Store.restore_game`` did: ``outcome`` (``restored``, or why nothing was
    changed: ``no-game``, ``not-withdrawn``, ``replaced``), the restoration recorded
    (``restored``: ``n``, ``restored_at``, ``restored_by``, ``reason`` and the
    withdrawal it undid), the live correction that stops it (``replaced``), and the
    other live games now at the game's tournament round and table, in upload order."""

    outcome: str
    restoration: dict[str, Any] | None = None
    replaced_by: str | None = None
    at_table: list[str] = field(default_factory=list)


class StoreLocked(StoreError):
    """Another process holds the database file open for writing."""


class StoreBusy(StoreError):
    """Too many games wait for the writer: a write that may be refused is (back-pressure;
    the client should try again shortly)."""


@dataclass(frozen=True, slots=True)
class GameFilter:
    """The /games filters.  ``player`` and ``tournament`` match a name as stored when
    one is (a live game holds it exactly), else every name equal to it ignoring case
    and accents; the log's own id (``source_id``), round and table match exactly."""

    player: str | None = None
    variant: str | None = None
    status: str | None = None
    tournament: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    source_id: str | None = None
    round: int | None = None
    table: str | None = None
    verification: str | None = None
    # Set by ``as_stored``: no live game holds the name as given, so it is matched
    # folded (the API never sets these; they are not filters of their own).
    fold_player: bool = False
    fold_tournament: bool = False


def _arrow(table: str, rows: Sequence[tuple]) -> pa.Table:
    """The rows as an Arrow table of ``table``'s columns.  Converted as one array of
    structs (Arrow splits the tuples into columns itself: 1.3 times faster than a list
    per column on moves, 13 times on games)."""
    return pa.Table.from_struct_array(pa.array(rows, type=_STRUCTS[table]))


@dataclass(slots=True)
class GameRows:
    """Games ready for the tables: their ids in order and, per table, one Arrow table
    with the rows of every game in that order, ``counts[table][k]`` rows for game k.
    Built where the games were verified (a pool process ships it whole), inserted by
    the writer."""

    ids: list[str]
    tables: dict[str, pa.Table]
    counts: dict[str, list[int]]

    def __len__(self) -> int:
        return len(self.ids)

    def head(self, n: int) -> GameRows:
        """The first ``n`` games, with their rows."""
        if n >= len(self.ids):
            return self
        return GameRows(self.ids[:n],
                        {name: table.slice(0, sum(self.counts[name][:n]))
                         for name, table in self.tables.items()},
                        {name: counts[:n] for name, counts in self.counts.items()})

    def between(self, start: int, stop: int) -> GameRows:
        """Games ``start`` to ``stop`` (not included), with their rows."""
        if start == 0:
            return self.head(stop)
        return GameRows(self.ids[start:stop],
                        {name: table.slice(sum(self.counts[name][:start]),
                                           sum(self.counts[name][start:stop]))
                         for name, table in self.tables.items()},
                        {name: counts[start:stop] for name, counts in self.counts.items()})


def game_rows(records: Sequence[GameRecord]) -> GameRows:
    """The rows of ``records``; a row of the wrong shape raises ValueError."""
    tables = {"games": _arrow("games", [r.games for r in records])}
    counts = {"games": [1] * len(records)}
    for name in _CHILD_TABLES:
        if name == "moves":  # kept compact by the records, built column-wise
            counts[name] = [sum(map(len, r.deal_moves)) for r in records]
            tables[name] = moves_table(records)
            continue
        per_game = [getattr(r, name) for r in records]
        counts[name] = [len(rows) for rows in per_game]
        tables[name] = _arrow(name, [row for rows in per_game for row in rows])
    return GameRows([r.id for r in records], tables, counts)


def analysis_tables(records: Sequence[Any]) -> dict[str, pa.Table]:
    """The analysis rows of ``records`` (``analysis.AnalysisRecord``) as one Arrow table
    per analysis table, with its migrated columns: what the store inserts, and what an
    audit writes as Parquet."""
    out = {}
    for name in ANALYSIS_ROWS:
        rows = [r.analysis_games for r in records] if name == "analysis_games" else \
            [row for r in records for row in getattr(r, name)]
        out[name] = pa.Table.from_struct_array(pa.array(rows, type=_ANALYSIS[name]))
    return out


def joined(parts: Sequence[GameRows]) -> GameRows:
    """The games of every part, in order, as one."""
    if len(parts) == 1:
        return parts[0]
    return GameRows([gid for part in parts for gid in part.ids],
                    {name: pa.concat_tables([part.tables[name] for part in parts])
                     for name in _SCHEMAS},
                    {name: [n for part in parts for n in part.counts[name]]
                     for name in _SCHEMAS})


Games = GameRows | list[GameRecord]
# A stored game's answer: its id, and whether it was new; None when its rows could not
# be stored (every other game of the same commit was).
Answer = tuple[str, bool | None]


def games_of(games: Sequence[GameRecord] | GameRows) -> Games:
    """Games as the writer takes them: built rows as they are, records as a list."""
    return games if isinstance(games, GameRows) else list(games)


def _ids(games: Games) -> list[str]:
    return games.ids if isinstance(games, GameRows) else [r.id for r in games]


def _kept(rows: GameRows, keep: list[bool]) -> GameRows:
    """Only the games whose ``keep`` flag is set, with their rows."""
    tables = {}
    for name, table in rows.tables.items():
        mask = [flag for flag, n in zip(keep, rows.counts[name], strict=True)
                for _ in range(n)]
        tables[name] = table.filter(pa.array(mask, type=pa.bool_()))
    counts = {name: [n for n, flag in zip(c, keep, strict=True) if flag]
              for name, c in rows.counts.items()}
    return GameRows([gid for gid, flag in zip(rows.ids, keep, strict=True) if flag],
                    tables, counts)


_log = logging.getLogger(__name__)
MAX_GROUP = 2000  # games per group commit
MAX_QUEUED_GAMES = 2000  # games handed to the writer and not committed yet, before
# ``put(..., refuse_when_busy=True)`` is refused (StoreBusy): about one full group commit
LINGER = 0.002  # seconds the writer waits for more games before a small commit
# The size of the write-ahead log at which DuckDB checkpoints (writes the tables into
# the file and empties the log).  Its default, 16 MiB, checkpointed every 300 or so
# four-player Rummy games (the log holds each game's rows uncompressed, some 54 KB),
# and each checkpoint compressed the tables' last row groups again: 0.96-1.04 ms of the
# store's processor time a game in batches of 100, against 0.59-0.64 ms from 64 MiB up,
# and commits of up to 320 ms.  The log of 3,000 such games (163 MB) is replayed in
# 0.8 s when the store opens after a crash; closing the store checkpoints it.
CHECKPOINT_THRESHOLD = "256MiB"


Statement = tuple[str, Sequence[Any]]  # SQL of this package and its parameters

# A game that counts for nothing (illegal or unfinished) has no result: its stored
# ``winner`` is only the side ahead on the points of its scored deals, read as
# ``recomputed_leader`` and never as the winner.
RESULT_WINNER = "CASE WHEN finished AND status <> 'illegal' THEN winner END"
RECOMPUTED_LEADER = "CASE WHEN NOT (finished AND status <> 'illegal') THEN winner END"

def verification_of(report: str) -> str:
    """``VERIFICATION`` of one stored report, read here: over a page of games, the SQL
    expression was computed for every game of the table before the page was cut
    (0.3 s over 300,000 games, against 0.01 s for the page with the report itself)."""
    if '"verification"' not in report:
        return MOVES
    return orjson.loads(report).get("verification", MOVES)


# How much of a game was checked: ``moves`` (every move), ``results`` (every deal recorded
# by its result, as on a score sheet: arithmetic and rules) or ``mixed``; read from the
# stored report, which names it only when some deal was recorded by its result.  The
# substring test spares parsing the reports of the games without one (nearly all): a
# key cannot be matched inside a string value, whose quotes are escaped.
VERIFICATION = (f"CASE WHEN contains(report, '\"verification\"') THEN coalesce("
                f"json_extract_string(report, '$.verification'), '{MOVES}') "
                f"ELSE '{MOVES}' END")

# A deleted game (a row of ``deletions``) keeps its rows, and is left out of every read
# but the audit trail's: each statement over a table of games or their rows filters on
# ``<alias>game_id`` (``id`` in ``games``) with this.  The deletions are few, so the
# anti-join costs a hash lookup per row (measured with benchmarks/queries.py).
LIVE = "NOT IN (SELECT game_id FROM deletions)"


def live(column: str = "game_id") -> str:
    """The clause keeping the rows of games not deleted (``column``: their game id)."""
    return f"{column} {LIVE}"


@dataclass(frozen=True, slots=True)
class Rows:
    """What one statement of ``read_many`` answered: its column names and all its rows."""

    columns: tuple[str, ...]
    rows: list[tuple]

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class Cursor(Protocol):
    """What the storage modules use of a DuckDB cursor: ``execute`` (SQL of this package
    and its parameters), then ``fetchall``, ``fetchone`` or ``description``."""

    description: Any

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Any: ...

    def fetchall(self) -> list[tuple]: ...

    def fetchone(self) -> tuple | None: ...


@runtime_checkable
class Reader(Protocol):
    """The interface the statistics, audit and export queries read through: the store
    opened in this process (:class:`Store`) and the one in its own process
    (``remote.RemoteStore``) both provide it.  See :class:`StoreReads` for the rule of
    which one to use."""

    def cursor(self) -> AbstractContextManager[Cursor]: ...

    def read_many(self, statements: Sequence[Statement]) -> list[Rows]: ...


class StoreReads:
    """The reads of the store: shared by the store opened in this process and the one
    reached in its own process (``remote.RemoteStore``).

    The snapshot rule: a read whose answer combines several statements runs them with
    ``read_many``, in one transaction, never one by one on a cursor, because each
    statement outside a transaction sees every commit made before it starts, so two of
    them may disagree about a game committed in between (a variant counted in the deals
    and missing from the games).  In one transaction every statement sees the snapshot
    its first one took; DuckDB's read transactions neither wait for the writer nor
    conflict with it.  ``cursor()`` is for reads of one statement (and for the pages of
    the log export, which hold one snapshot by their keyset: see ``export``).
    """

    def cursor(self) -> AbstractContextManager[Cursor]:
        """A cursor for one statement: each ``execute`` is its own snapshot."""
        raise NotImplementedError

    def read_many(self, statements: Sequence[Statement]) -> list[Rows]:
        """The results of ``statements``, in order, all read from one snapshot of the
        database (one read-only transaction)."""
        raise NotImplementedError

    def read_page(self, sql: str, params: list[Any], snapshot: str | None,
                  more_than: int) -> tuple[str | None, tuple[str, ...], list[tuple]]:
        """One page of a listing read on the snapshot its walk holds (``snapshots``):
        a new one when ``snapshot`` is None or gone, kept when more than ``more_than``
        rows came back.  The snapshot the next page reads (None: no next page), the
        columns' names and the rows.  Here, for a store that does not change (a lake):
        the statement on a cursor, and no snapshot."""
        with self.cursor() as cur:
            rows = cur.execute(sql, params).fetchall()
            return None, tuple(d[0] for d in cur.description or ()), rows

    @property
    def schema_version(self) -> int:
        with self.cursor() as cur:
            return cur.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]

    def ping(self) -> bool:
        with self.cursor() as cur:
            return cur.execute("SELECT 1").fetchone()[0] == 1

    def get_game(self, gid: str) -> dict[str, Any] | None:
        with self.cursor() as cur:
            row = cur.execute(
                "SELECT id, seq, uploaded_at, uploader, source_id, variant, status, players, "
                "tournament_id, tournament_round, tournament_table, played_at, n_deals, "
                f"n_moves, {RESULT_WINNER} AS winner, {RECOMPUTED_LEADER} AS recomputed_leader, "
                "CASE WHEN finished AND status <> 'illegal' THEN margin END AS margin, "
                f"rules, meta, report FROM games WHERE id = ? AND {live('id')}",
                [gid]).fetchone()
            if row is None:
                return None
            names = [d[0] for d in cur.description]
        return dict(zip(names, row, strict=True))

    def get_log(self, gid: str) -> bytes | None:
        with self.cursor() as cur:
            row = cur.execute(f"SELECT log FROM games WHERE id = ? AND {live('id')}",
                              [gid]).fetchone()
        return None if row is None else bytes(row[0])

    def deletion(self, gid: str) -> dict[str, Any] | None:
        """The deletion of a stored game (id, deleted_at, deleted_by, reason), or None."""
        with self.cursor() as cur:
            row = cur.execute("SELECT game_id, deleted_at, deleted_by, reason FROM deletions "
                              "WHERE game_id = ?", [gid]).fetchone()
        return None if row is None else dict(zip(_DELETION, row, strict=True))

    def replaced_by(self, gid: str) -> str | None:
        """The game that replaced the withdrawn game ``gid`` (``replace_game``), or None."""
        with self.cursor() as cur:
            row = cur.execute("SELECT replaced_by FROM replacements WHERE game_id = ?",
                              [gid]).fetchone()
        return None if row is None else row[0]

    def live_correction(self, gid: str, replaced_by: str) -> str | None:
        """The live end of the chain of corrections from the withdrawn game ``gid``
        replaced by ``replaced_by``, or None when the chain ends in a withdrawn game."""
        with self.cursor() as cur:
            return _live_correction(cur, gid, replaced_by)

    def deletions_of(self, gids: list[str]) -> dict[str, dict[str, Any]]:
        """The deletions of those of ``gids`` that were deleted, by game id."""
        if not gids:
            return {}
        with self.cursor() as cur:
            rows = cur.execute("SELECT game_id, deleted_at, deleted_by, reason FROM deletions "
                               "WHERE game_id IN (SELECT unnest(?))", [gids]).fetchall()
        return {row[0]: dict(zip(_DELETION, row, strict=True)) for row in rows}

    def list_games(self, where: GameFilter, limit: int,
                   before_seq: int | None = None) -> list[dict[str, Any]]:
        """The last played first (``game_time``: played, else uploaded), then the last
        uploaded (``seq``); ``before_seq`` (the ``seq`` of the last game of a page)
        continues after that game.  The key of a game never changes, so a page never
        moves: a game stored meanwhile lands where it belongs, before or after the
        walk's place, never twice."""
        where = as_stored(self, where)
        sql, params = keyset_sql(
            "id, seq, uploaded_at, source_id, variant, status, players, tournament_id, "
            "tournament_round, tournament_table, played_at, n_deals, "
            f"{RESULT_WINNER} AS winner, {RECOMPUTED_LEADER} AS recomputed_leader, report",
            where, limit, before_seq, by_played=True)
        with self.cursor() as cur:
            rows = cur.execute(sql, params).fetchall()
            names = [d[0] for d in cur.description]
        out = []
        for row in rows:
            game = dict(zip(names, row, strict=True))
            game["verification"] = verification_of(game.pop("report"))
            out.append(game)
        return out

    def games_by_status(self) -> dict[str, int]:
        with self.cursor() as cur:
            return dict(cur.execute(f"SELECT status, count(*) FROM games WHERE {live('id')} "
                                    "GROUP BY status").fetchall())

    def count(self, table: str) -> int:
        if table not in _SCHEMAS:
            raise ValueError(f"no table {table!r}")
        with self.cursor() as cur:
            return cur.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


class Store(StoreReads):
    """One DuckDB file.  Open it once per process (after any fork).

    With ``ratings`` (the default) the games stored are rated ``rating_hold`` seconds
    after their commit, or before any read of the ratings (``rating_catchup``), and
    ratings made under another model, or left stale by a store opened without them,
    are computed again here first.  Without, writes leave the ratings stale (a bulk
    load, which then calls ``recompute_ratings`` once)."""

    def __init__(self, path: str | Path, read_only: bool = False,
                 max_queued_games: int = MAX_QUEUED_GAMES, ratings: bool = True,
                 rating_hold: float = HOLD):
        self.path = str(path)
        self.max_queued_games = max_queued_games
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = duckdb.connect(self.path, read_only=read_only, config={} if read_only
                                       else {"checkpoint_threshold": CHECKPOINT_THRESHOLD})
        except duckdb.IOException as error:
            if "lock" in str(error).lower():
                raise StoreLocked(f"the database {self.path} is in use by another process "
                                  "(stop the server, or load through its HTTP API)") from error
            raise StoreError(f"cannot open the database {self.path}: {error}") from error
        self._snapshots = Snapshots(self._con.cursor)  # the pages of leaderboards
        self._write_lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Games, Future] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._writer_start = threading.Lock()
        self._writes: _Writer | None = None
        self._pending = 0  # games put and not yet committed (or failed)
        self.last_active = 0.0  # when games were last put, or a client's read was
        # answered by the store process (time.monotonic()): ``analysis.CatchUp``
        self._pending_lock = threading.Lock()
        self.catchup: Any = None  # the analysis catch-up (``start_catchup``)
        self._backlog: tuple[float, int] | None = None  # without it: (when, backlog)
        self.commits = 0  # write transactions committed since start-up
        self.games_committed = 0
        # The outcome of the last write transaction: (ok, when, why it failed), or None.
        self.last_write: tuple[bool, datetime, str | None] | None = None
        self._ratings: rating_tables.Keeper | None = None
        self._rating_catchup: RatingCatchUp | None = None
        if not read_only:
            self._migrate()
        self._seq = self._con.execute("SELECT coalesce(max(seq), 0) FROM games").fetchone()[0]
        if not read_only:
            if not ratings:
                rating_tables.mark_stale(self._con)
            else:
                self._ratings = rating_tables.Keeper()
                self._rating_catchup = RatingCatchUp(self, rating_hold)
                if not rating_tables.up_to_date(self._con):
                    _log.info("computing the ratings of %s", self.path)
                    self.recompute_ratings()
                else:
                    self._rating_catchup.note_stored(self._con)
                self._rating_catchup.start()

    # -- lifecycle ----------------------------------------------------------------------

    def _migrate(self) -> None:
        con = self._con
        con.execute(BOOKKEEPING)
        done = {v for (v,) in con.execute("SELECT version FROM schema_migrations").fetchall()}
        for version, description, sql in MIGRATIONS:
            if version in done:
                continue
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute(sql)
                con.execute("INSERT INTO schema_migrations (version, description) VALUES (?, ?)",
                            [version, description])
                con.execute("COMMIT")
            except Exception:
                con.execute("ROLLBACK")
                raise

    def start_catchup(self, processes: int | None = None) -> None:
        """Start the background analysis of the stored games (``analysis.CatchUp``;
        ``processes``: its workers while the service is idle, one per core when not
        said)."""
        from .analysis import CatchUp

        if self.catchup is None:
            self.catchup = CatchUp(self, processes).start()

    def _note_unanalysed(self, games: int) -> None:
        """Games just stored, none analysed yet: the backlog counted before grows by them
        (it is counted at most once a second, and a page right after an upload must not
        say that nothing waits)."""
        if self._backlog is not None:
            self._backlog = (self._backlog[0], self._backlog[1] + games)
        if self.catchup is not None:
            self.catchup.note_stored(games)

    def analysis_health(self) -> dict[str, Any]:
        """The analysis catch-up: games stored and not analysed yet (``backlog``), games
        analysed and failed since start-up, whether it runs."""
        from .analysis import BACKLOG_EVERY, backlog

        if self.catchup is None:
            now = time.monotonic()  # counted at most once a second, as the catch-up does
            if self._backlog is None or now - self._backlog[0] >= BACKLOG_EVERY:
                self._backlog = (now, backlog(self))
            return {"running": False, "backlog": self._backlog[1], "analysed": 0,
                    "failed": 0, "last_error": None, "paused": 0}
        return {"running": True, "backlog": self.catchup.backlog(), **self.catchup.counts()}

    def close(self) -> None:
        if self.catchup is not None:
            self.catchup.close()
            self.catchup = None
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join()
            self._writer = None
        if self._rating_catchup is not None:
            self._rating_catchup.close()
            with suppress(StoreError):  # what waits is rated at the next start otherwise
                self.catch_up_ratings()
            self._rating_catchup = None
        if self._writes is not None:
            self._writes.close()
            self._writes = None
        self._snapshots.close()
        self._con.close()

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor of its own for one request or thread; database errors come out as
        StoreError."""
        cur = self._con.cursor()
        try:
            yield cur
        except duckdb.Error as error:
            raise StoreError(f"database error: {error}") from error
        finally:
            cur.close()

    def read_many(self, statements: Sequence[Statement]) -> list[Rows]:
        """The results of ``statements``, in order, read in one read-only transaction
        on a cursor of their own: one snapshot, taken by the first statement."""
        results = []
        with self.cursor() as cur:
            cur.execute("BEGIN TRANSACTION READ ONLY")
            try:
                for sql, params in statements:
                    cur.execute(sql, params)
                    columns = tuple(d[0] for d in cur.description or ())
                    results.append(Rows(columns, cur.fetchall()))
                cur.execute("COMMIT")
            except BaseException:
                with suppress(duckdb.Error):  # a failed statement ended it already
                    cur.execute("ROLLBACK")
                raise
        return results

    def read_page(self, sql: str, params: list[Any], snapshot: str | None,
                  more_than: int) -> tuple[str | None, tuple[str, ...], list[tuple]]:
        try:
            return self._snapshots.page(sql, params, snapshot, more_than)
        except duckdb.Error as error:
            raise StoreError(f"database error: {error}") from error

    # -- writes -------------------------------------------------------------------------

    def submit(self, games: Sequence[GameRecord] | GameRows,
               refuse_when_busy: bool = False) -> list[Answer]:
        """Store games through the writer thread, committed together with whatever other
        requests are waiting; returns once they are committed, as ``add_games``.
        ``refuse_when_busy``: see ``put``."""
        return self.put(games, refuse_when_busy).result()

    def put(self, games: Sequence[GameRecord] | GameRows,
            refuse_when_busy: bool = False) -> Future:
        """``submit`` without the wait: the future holds the answers once committed.

        Back-pressure: with ``refuse_when_busy`` (single uploads), games that would
        bring the games waiting for their commit past ``max_queued_games`` are refused
        at once with StoreBusy, rather than queued behind seconds of writes.  Batches
        are never refused: their answer is streaming already, and they wait."""
        future: Future = Future()
        if not len(games):
            future.set_result([])
            return future
        with self._pending_lock:
            if refuse_when_busy and self._pending + len(games) > self.max_queued_games:
                raise StoreBusy(f"{self._pending} games are waiting to be written "
                                f"(at most {self.max_queued_games})")
            self._pending += len(games)
            self.last_active = time.monotonic()
        with self._writer_start:
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="store-writer",
                                                daemon=True)
                self._writer.start()
        self._queue.put((games_of(games), future))
        return future

    def _write_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            group = [item]
            size = len(item[0])
            deadline = time.monotonic() + LINGER
            while size < MAX_GROUP:
                try:
                    more = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                group.append(more)
                size += len(more[0])
            self._commit_group(group)

    def _commit_group(self, group: list[tuple[Games, Future]]) -> None:
        try:
            self._commit_group_now(group)
        finally:
            with self._pending_lock:
                self._pending -= sum(len(games) for games, _ in group)

    def _commit_group_now(self, group: list[tuple[Games, Future]]) -> None:
        try:
            answers = self._add([games for games, _ in group])
        except Exception as error:
            if len(group) == 1:
                group[0][1].set_exception(error)
                return
            for games, future in group:  # one bad request must not fail the others
                try:
                    future.set_result(self._add([games]))
                except Exception as single_error:
                    future.set_exception(single_error)
            return
        start = 0
        for games, future in group:
            future.set_result(answers[start:start + len(games)])
            start += len(games)

    def add_games(self, games: Sequence[GameRecord] | GameRows) -> list[Answer]:
        """Store the games not stored yet, all in one transaction; for each game its id
        and whether it was new (None: its rows could not be stored, see ``_add``)."""
        return self._add([games_of(games)])

    def _add(self, parts: list[Games]) -> list[Answer]:
        """``add_games`` for several groups of games in one transaction, answers in order.

        A game whose rows cannot be stored (a value out of its column's range) fails
        alone: the transaction is tried again with each game on its own, and that game
        answers None while the others are stored.  A lone game raises ValueError."""
        ids = [gid for part in parts for gid in _ids(part)]
        if not ids:
            return []
        with self._write_lock:
            writer = self._writer_connection()
            try:
                return self._add_locked(writer, parts, ids)
            except ValueError:
                if len(ids) == 1:
                    raise
            answers: list[Answer] = []
            for single in _each_game(parts):
                gid = _ids(single)[0]
                try:
                    answers.extend(self._add_locked(writer, [single], [gid]))
                except ValueError as error:
                    _log.error("game %s could not be stored: %s", gid, error)
                    answers.append((gid, None))
            return answers

    def _add_locked(self, writer: _Writer, parts: list[Games],
                    ids: list[str]) -> list[Answer]:
        """The games inserted in one transaction (the write lock held).

        Games without repeated ids are first inserted as they are: the primary key of
        ``games`` refuses a game stored before, and only then (a re-upload, rare) are
        they sorted out by a lookup, which spares a statement on every other commit."""
        if len(set(ids)) == len(ids):
            try:
                self._insert(writer, parts)
                return [(gid, True) for gid in ids]
            except duckdb.ConstraintException:
                pass  # some game is stored already: sort them out below
        try:
            present = {row[0] for row in writer.cursor.execute(
                "SELECT id FROM games WHERE id IN (SELECT unnest(?))", [ids]).fetchall()}
        except duckdb.Error as error:
            raise StoreError(f"database error: {error}") from error
        keep = []
        for gid in ids:
            keep.append(gid not in present)
            present.add(gid)
        if any(keep):
            try:
                self._insert(writer, _kept_parts(parts, keep))
            except duckdb.ConstraintException as error:
                raise StoreError(f"database error: {error}") from error
        return list(zip(ids, keep, strict=True))

    def delete_game(self, gid: str, by: str | None, reason: str | None,
                    at: datetime) -> tuple[dict[str, Any], bool] | None:
        """Record the deletion of a stored game: its deletion and True; the deletion
        recorded before and False when it was deleted already (the first one stands);
        None when no such game is stored.  Its rows stay, for the audit trail.  Under
        the write lock, so that no group commit runs meanwhile."""
        with self._write_lock:
            self._catch_up_locked()  # the replay below reads back the rated games
            cur = self._writer_connection().cursor
            try:
                with transaction(cur):
                    found = cur.execute("SELECT count(*) FROM games WHERE id = ?",
                                        [gid]).fetchone()[0]
                    before = cur.execute(
                        "SELECT game_id, deleted_at, deleted_by, reason FROM deletions "
                        "WHERE game_id = ?", [gid]).fetchone()
                    pending = None
                    if found and before is None:
                        at = _after_restorations(cur, gid, at)
                        cur.execute("INSERT INTO deletions VALUES (?, ?, ?, ?)",
                                    [gid, at, by, reason])
                        if self._ratings is not None:
                            pending = self._ratings.remove(cur, gid)
                if self._ratings is not None:
                    self._ratings.commit(pending)
            except duckdb.Error as error:
                raise StoreError(f"database error: {error}") from error
        if not found:
            return None
        if before is not None:
            return dict(zip(_DELETION, before, strict=True)), False
        return dict(zip(_DELETION, (gid, at, by, reason), strict=True)), True

    def replace_game(self, record: GameRecord, old: str, by: str | None,
                     reason: str | None, at: datetime) -> Replacement:
        """Store ``record`` and withdraw the stored game ``old`` in one transaction: the
        old game is never withdrawn without the new one stored.  The withdrawal is a
        row of ``deletions`` (who, when, why) and one of ``replacements`` (by which
        game).  A new log stored before (and not deleted) is kept as it is (``created``
        False) and still replaces ``old``.  Nothing changes when ``outcome`` is not
        ``replaced``: ``no-game`` (``old`` is not stored), ``deleted`` (``old`` was
        withdrawn before: ``deletion`` is that withdrawal), ``same-game`` (the new log
        is the old game's), ``new-deleted`` (the new log is a deleted game's:
        ``deletion`` is its deletion)."""
        with self._write_lock:
            self._catch_up_locked()  # the rating replay below reads the rated games
            writer = self._writer_connection()
            cur = writer.cursor
            seq = self._seq
            created = False
            pending = None
            try:
                cur.execute("BEGIN TRANSACTION")
                try:
                    outcome, deletion = self._replaceable(cur, record.id, old)
                    if outcome == "replaced":
                        if not cur.execute("SELECT count(*) FROM games WHERE id = ?",
                                           [record.id]).fetchall()[0][0]:
                            writer.append([record], seq)
                            writer.flush()
                            created = True
                        at = _after_restorations(cur, old, at)
                        cur.execute("INSERT INTO deletions VALUES (?, ?, ?, ?)",
                                    [old, at, by, reason])
                        cur.execute("INSERT INTO replacements VALUES (?, ?)",
                                    [old, record.id])
                        deletion = dict(zip(_DELETION, (old, at, by, reason), strict=True))
                        if self._ratings is not None:
                            # The replay rates again the games stored before this one
                            # only: the new game is rated by the catch-up, as every new
                            # game (rated here too, it was rated twice, and the catch-up
                            # then failed on it).
                            pending = self._ratings.remove(cur, old, until_seq=seq)
                    cur.execute("COMMIT")
                except BaseException:
                    writer.clear()
                    with suppress(duckdb.Error):
                        cur.execute("ROLLBACK")
                    raise
            except duckdb.Error as error:
                if self._ratings is not None:
                    self._ratings.forget()
                raise StoreError(f"database error: {error}") from error
            if self._ratings is not None:
                self._ratings.commit(pending)
            if created:
                self._seq = seq + 1
                if self._rating_catchup is not None:
                    self._rating_catchup.note(1, _rating_input([record], seq))
                self._note_unanalysed(1)
                self.commits += 1
                self.games_committed += 1
                self.last_write = (True, datetime.now(UTC), None)
        return Replacement(outcome, record.id, created, deletion)

    def keep_game(self, tournament_id: str, round_: int, table: str, keep: str,
                  by: str | None, reason: str | None,
                  at: datetime) -> tuple[list[str], list[dict[str, Any]]] | None:
        """Withdraw every live game of a tournament's round and table but ``keep``, in
        one transaction: all of them or none.  The table's live games before (in upload
        order) and the deletions recorded (none when ``keep`` was its only game); None
        when the table has no live game.  Nothing is withdrawn when ``keep`` is not one
        of its live games (the caller tells by the games answered)."""
        with self._write_lock:
            self._catch_up_locked()  # the rating replays below read the rated games
            cur = self._writer_connection().cursor
            removed = False
            try:
                with transaction(cur):
                    games = [row[0] for row in cur.execute(
                        f"SELECT id FROM games WHERE tournament_id = ? AND tournament_round = ? "
                        f"AND tournament_table = ? AND {live('id')} ORDER BY seq",
                        [tournament_id, round_, table]).fetchall()]
                    others = [gid for gid in games if gid != keep] if keep in games else []
                    for gid in others:
                        cur.execute("INSERT INTO deletions VALUES (?, ?, ?, ?)",
                                    [gid, _after_restorations(cur, gid, at), by, reason])
                        if self._ratings is not None:
                            self._ratings.remove(cur, gid)
                            removed = True
            except duckdb.Error as error:
                if self._ratings is not None:
                    self._ratings.forget()
                raise StoreError(f"database error: {error}") from error
            if removed:
                # Each replay saw the ones before it in the transaction; the memory of
                # the ratings is read again from the tables rather than patched twice.
                self._ratings.forget()
        if not games:
            return None
        return games, [dict(zip(_DELETION, (gid, at, by, reason), strict=True))
                       for gid in others]

    def restore_game(self, gid: str, by: str | None, reason: str,
                     at: datetime) -> Restoration:
        """Undo the withdrawal of a stored game, in one transaction under the write lock:
        its row of ``deletions`` (and of ``replacements``) moves into ``restorations``
        with who restored it, when and why, so the game is live again and the
        withdrawal stays in the audit trail; its pool's ratings are replayed from its
        place (``Keeper.restore``).  Nothing changes when the game is not stored
        (``no-game``), is live (``not-withdrawn``), or was replaced by a correction that
        is still live (``replaced``: that one is to be withdrawn first)."""
        with self._write_lock:
            self._catch_up_locked()  # the replay below reads back the rated games
            cur = self._writer_connection().cursor
            pending = None
            try:
                with transaction(cur):
                    game = cur.execute(
                        "SELECT tournament_id, tournament_round, tournament_table, seq "
                        "FROM games WHERE id = ?", [gid]).fetchall()
                    if not game:
                        return Restoration("no-game")
                    withdrawal = cur.execute(
                        "SELECT d.deleted_at, d.deleted_by, d.reason, r.replaced_by "
                        "FROM deletions d LEFT JOIN replacements r ON r.game_id = d.game_id "
                        "WHERE d.game_id = ?", [gid]).fetchall()
                    if not withdrawal:
                        return Restoration("not-withdrawn")
                    deleted_at, deleted_by, deleted_reason, replaced_by = withdrawal[0]
                    if at <= deleted_at:  # the clocks were read before the lock: see
                        at = deleted_at + _TICK  # ``_after_restorations``
                    live_end = _live_correction(cur, gid, replaced_by)
                    if live_end is not None:
                        return Restoration("replaced", replaced_by=live_end)
                    n = cur.execute("SELECT coalesce(max(n), 0) + 1 FROM restorations "
                                    "WHERE game_id = ?", [gid]).fetchall()[0][0]
                    cur.execute("INSERT INTO restorations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                [gid, n, at, by, reason, deleted_at, deleted_by,
                                 deleted_reason, replaced_by])
                    cur.execute("DELETE FROM deletions WHERE game_id = ?", [gid])
                    cur.execute("DELETE FROM replacements WHERE game_id = ?", [gid])
                    if self._ratings is not None:
                        pending = self._ratings.restore(cur, gid)
                    tournament, round_, table, seq = game[0]
                    at_table = [] if None in (tournament, round_, table) else [
                        row[0] for row in cur.execute(
                            f"SELECT id FROM games WHERE tournament_id = ? AND "
                            f"tournament_round = ? AND tournament_table = ? AND id <> ? "
                            f"AND {live('id')} ORDER BY seq",
                            [tournament, round_, table, gid]).fetchall()]
            except duckdb.Error as error:
                if self._ratings is not None:
                    self._ratings.forget()
                raise StoreError(f"database error: {error}") from error
            if self._ratings is not None:
                self._ratings.commit(pending)
        # A game withdrawn before it was analysed waits for its analysis again: the
        # catch-up goes back to its place, and the backlog is counted again when asked.
        self._backlog = None
        if self.catchup is not None:
            self.catchup.rewind(seq)
        return Restoration("restored", dict(zip(_RESTORATION, (
            gid, n, at, by, reason, deleted_at, deleted_by, deleted_reason, replaced_by),
            strict=True)), at_table=at_table)

    @staticmethod
    def _replaceable(cur: Any, new: str, old: str) -> tuple[str, dict[str, Any] | None]:
        """Whether ``new`` may replace ``old`` (see ``replace_game``), and the deletion
        that says why not when one does."""
        if new == old:
            return "same-game", None
        if not cur.execute("SELECT count(*) FROM games WHERE id = ?", [old]).fetchall()[0][0]:
            return "no-game", None
        for gid, outcome in ((old, "deleted"), (new, "new-deleted")):
            # fetchall: a result left open would stop the appender of the insert after
            rows = cur.execute("SELECT game_id, deleted_at, deleted_by, reason FROM deletions "
                               "WHERE game_id = ?", [gid]).fetchall()
            if rows:
                return outcome, dict(zip(_DELETION, rows[0], strict=True))
        return "replaced", None

    def set_ruling(self, gid: str, ruling: str, against: str | None, reason: str,
                   by: str | None, at: datetime) -> bool:
        """Record a ruling on a stored game not deleted, in force from now (the one in
        force before is superseded, and stays in the history); False when there is no
        such game.  Which rulings a game allows is the caller's check (``counting``)."""
        with self._write_lock:
            cur = self._writer_connection().cursor
            try:
                with transaction(cur):
                    if not cur.execute(f"SELECT count(*) FROM games WHERE id = ? AND "
                                       f"{live('id')}", [gid]).fetchone()[0]:
                        return False
                    cur.execute(
                        "INSERT INTO rulings (game_id, n, ruling, against, reason, ruled_by, "
                        "ruled_at) SELECT ?, coalesce(max(n), 0) + 1, ?, ?, ?, ?, ? "
                        "FROM rulings WHERE game_id = ?",
                        [gid, ruling, against, reason, by, at, gid])
            except duckdb.Error as error:
                raise StoreError(f"database error: {error}") from error
        return True

    def put_settings(self, tournament_id: str, settings: bytes, by: str | None,
                     at: datetime) -> None:
        """Store a tournament's settings (JSON), replacing those stored before."""
        with self._write_lock:
            cur = self._writer_connection().cursor
            try:
                with transaction(cur):
                    cur.execute("INSERT OR REPLACE INTO tournament_settings VALUES (?, ?, ?, ?)",
                                [tournament_id, settings.decode(), at, by])
            except duckdb.Error as error:
                raise StoreError(f"database error: {error}") from error

    def withdraw_ruling(self, gid: str, by: str | None, reason: str | None,
                        at: datetime) -> bool:
        """Withdraw the ruling in force on a game (it stays in the history, with who
        withdrew it, when and why); False when none is in force."""
        with self._write_lock:
            cur = self._writer_connection().cursor
            try:
                with transaction(cur):
                    row = cur.execute(
                        "SELECT n, withdrawn_at FROM rulings WHERE game_id = ? "
                        "ORDER BY n DESC LIMIT 1", [gid]).fetchone()
                    if row is None or row[1] is not None:
                        return False
                    cur.execute("UPDATE rulings SET withdrawn_at = ?, withdrawn_by = ?, "
                                "withdrawn_reason = ? WHERE game_id = ? AND n = ?",
                                [at, by, reason, gid, row[0]])
            except duckdb.Error as error:
                raise StoreError(f"database error: {error}") from error
        return True

    @contextmanager
    def exclusive(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The writer's cursor for bulk SQL of this package (``lake``), no group commit
        running meanwhile; games it inserts are numbered after the stored ones
        (``next_seq``) and counted from ``max(seq)`` afterwards.  Games inserted so are
        rated afterwards, by a recompute (they came without the rating of each write)."""
        with self._write_lock:
            cur = self._writer_connection().cursor
            try:
                yield cur
            finally:
                seq = cur.execute("SELECT coalesce(max(seq), 0) FROM games").fetchone()[0]
                self.games_committed += seq - self._seq
                added = seq != self._seq
                self._seq = seq
                if added and self._ratings is not None:
                    self._recompute_locked(cur)

    @property
    def next_seq(self) -> int:
        """The ``seq`` the next stored game gets."""
        return self._seq + 1

    def add_analyses(self, records: Sequence[Any]) -> int:
        """Store the analysis rows of games (``analysis.AnalysisRecord``), replacing any
        analysis stored for them before, in one transaction under the write lock; the
        number of games.  A game deleted meanwhile keeps its rows, as its other rows."""
        if not records:
            return 0
        tables = analysis_tables(records)
        with self._write_lock:
            cur = self._writer_connection().cursor
            try:
                with transaction(cur):
                    # Only games analysed before have rows to replace: a DELETE reads
                    # the whole of each analysis table, under the write lock.
                    redone = [gid for gid, in cur.execute(
                        "SELECT game_id FROM analysis_games WHERE game_id IN "
                        "(SELECT unnest(?))", [[r.id for r in records]]).fetchall()]
                    for name, table in tables.items():
                        if redone:
                            cur.execute(f"DELETE FROM {name} WHERE game_id IN "
                                        "(SELECT unnest(?))", [redone])
                        if table.num_rows:
                            cur.from_arrow(table).insert_into(name)
            except duckdb.Error as error:
                raise StoreError(f"database error: {error}") from error
        # The backlog counted before is short of these games: counted again when asked.
        self._backlog = None
        if self.catchup is not None:
            self.catchup.forget_backlog()
        return len(records)

    def catch_up_ratings(self, due_only: bool = False) -> int:
        """Rate the games committed and not rated yet (with ``due_only``, only those
        committed ``rating_hold`` seconds ago); the number of games rated.  Every read
        of the ratings calls it first, so that it is never behind the games."""
        if self._rating_catchup is None:
            return 0
        with self._write_lock:
            return self._catch_up_locked(due_only)

    def _catch_up_locked(self, due_only: bool = False) -> int:
        if self._rating_catchup is None:
            return 0
        try:
            return self._rating_catchup.rate(self._writer_connection().cursor, due_only)
        except duckdb.Error as error:
            raise StoreError(f"database error: {error}") from error

    def rating_health(self) -> dict[str, Any] | None:
        """The rating catch-up: games committed and not rated yet (``backlog``), games
        rated since start-up, the hold, whether it runs; None without ratings."""
        return None if self._rating_catchup is None else self._rating_catchup.health()

    def recompute_ratings(self, progress: Any = None, total: Any = None) -> int:
        """Rate every counted game again from scratch, in one transaction (see
        ``ratings.recompute``); the number of games rated."""
        with self._write_lock:
            return self._recompute_locked(self._writer_connection().cursor, progress, total)

    def _recompute_locked(self, cur: duckdb.DuckDBPyConnection, progress: Any = None,
                          total: Any = None) -> int:
        """``recompute_ratings`` with the write lock held."""
        try:
            with transaction(cur):
                rated = rating_tables.recompute(cur, progress, total)
        except duckdb.Error as error:
            raise StoreError(f"database error: {error}") from error
        finally:
            if self._ratings is not None:
                self._ratings.forget()
        if self._rating_catchup is not None:
            self._rating_catchup.forget()  # every stored game is rated
        return rated

    def write_counts(self) -> dict[str, int]:
        """Write transactions and games committed since start-up."""
        return {"commits": self.commits, "games_committed": self.games_committed}

    @property
    def queued_games(self) -> int:
        """Games handed to the writer and not committed yet."""
        return self._pending

    def write_health(self) -> dict[str, Any]:
        """How writes fare: the last commit's outcome (``ok``, ``failed`` or None before
        any), its time and its reason, the writes waiting for the writer, and the games
        handed to it and not committed yet (what back-pressure counts)."""
        last = self.last_write
        return {"last_commit": None if last is None else ("ok" if last[0] else "failed"),
                "at": None if last is None else last[1],
                "reason": None if last is None else last[2],
                "queued": self._queue.qsize(),
                "queued_games": self._pending,
                "max_queued_games": self.max_queued_games}

    def check(self, timeout: float | None = None) -> dict[str, Any]:
        """What a health check needs, read at once: the schema version (the database
        answers), ``write_health``, ``analysis_health`` and ``rating_health``.  Reads
        only: it never waits for the writer (so ``timeout``, which bounds the wait for a
        store process, does not apply here)."""
        return {"schema_version": self.schema_version, "writes": self.write_health(),
                "analysis": self.analysis_health(), "ratings": self.rating_health()}

    def _writer_connection(self) -> _Writer:
        if self._writes is None:
            self._writes = _Writer(self._con.cursor())
        return self._writes

    def _insert(self, writer: _Writer, parts: list[Games]) -> None:
        """Insert the rows of new games in one transaction, numbering them in order."""
        seq = self._seq
        cur = writer.cursor
        try:
            cur.execute("BEGIN TRANSACTION")
            for part in parts:
                if isinstance(part, GameRows):
                    _insert_arrow(cur, part, seq)
                else:
                    writer.append(part, seq)
                seq += len(part)
            writer.flush()
            cur.execute("COMMIT")
        except BaseException as error:
            writer.clear()
            with suppress(duckdb.Error):
                cur.execute("ROLLBACK")
            if isinstance(error, duckdb.InvalidInputException | duckdb.ConversionException):
                raise ValueError(f"a row cannot be stored: {error}") from error
            if isinstance(error, duckdb.Error) \
                    and not isinstance(error, duckdb.ConstraintException):
                self.last_write = (False, datetime.now(UTC), str(error)[:300])
                raise StoreError(f"database error: {error}") from error
            raise
        if self._rating_catchup is not None:
            start = self._seq
            for part in parts:
                self._rating_catchup.note(len(part), _rating_input(part, start))
                start += len(part)
        fresh = seq - self._seq
        self._seq = seq
        self._note_unanalysed(fresh)
        self.last_write = (True, datetime.now(UTC), None)
        self.commits += 1
        self.games_committed += fresh


class _Writer:
    """The store's connection for writes, with one appender per table (rows buffered
    by ``append``, written by ``flush`` with one statement per table)."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection):
        self.cursor = cursor
        self.appenders = {name: cursor.appender(name)
                          for name in (*_SCHEMAS, "rating_history")}
        self.pending: set[str] = set()

    def add_rows(self, name: str, rows: list[tuple]) -> None:
        """Buffer rows of one table (the ratings' history, written by ``ratings``)."""
        if rows:
            self.pending.add(name)
            self.appenders[name].append_rows(rows)

    def append(self, records: list[GameRecord], seq: int) -> None:
        """Buffer the rows of ``records``, numbered from ``seq + 1``."""
        games = [(r.games[0], seq + k, *r.games[2:]) for k, r in enumerate(records, 1)]
        # Pending before appending: an appender keeps the rows before a bad one, which
        # ``clear`` must then drop.
        self.pending.add("games")
        self.appenders["games"].append_rows(games)
        for name in _CHILD_TABLES:
            rows = [row for r in records for row in getattr(r, name)]
            if rows:
                self.pending.add(name)
                self.appenders[name].append_rows(rows)

    def flush(self) -> None:
        for name in self.pending:
            self.appenders[name].flush()
        self.pending.clear()

    def clear(self) -> None:
        for name in self.pending:
            self.appenders[name].clear()
        self.pending.clear()

    def close(self) -> None:
        self.clear()
        self.cursor.close()


def _rating_input(part: Games, seq: int) -> Callable[[], list[RatedGame]]:
    """What the rating catch-up needs of a committed part numbered from ``seq + 1``:
    its counted games, converted when they are rated (off the writer's path).  Of rows
    built as Arrow tables only the columns rating reads are kept (slices, no copy)."""
    if isinstance(part, GameRows):
        tables = {"games": part.tables["games"].select(rating_tables.GAME_COLUMNS),
                  "game_players": part.tables["game_players"].select(
                      rating_tables.SEAT_COLUMNS)}
        counts = {"game_players": part.counts["game_players"]}
        return lambda: rating_tables.from_arrow(tables, counts, seq)
    return lambda: rating_tables.from_records(part, seq)


def _insert_arrow(cur: duckdb.DuckDBPyConnection, rows: GameRows, seq: int) -> None:
    """Insert rows built as Arrow tables, their games numbered from ``seq + 1``."""
    seqs = pa.array(range(seq + 1, seq + 1 + len(rows)), type=pa.int64())
    for name, table in rows.tables.items():
        if name == "games":
            table = table.set_column(1, "seq", seqs)
        if table.num_rows:
            cur.from_arrow(table).insert_into(name)


def _each_game(parts: list[Games]) -> Iterator[Games]:
    """Every game of the parts as a part of its own."""
    for part in parts:
        if isinstance(part, GameRows):
            for k in range(len(part)):
                yield _kept(part, [i == k for i in range(len(part))])
        else:
            yield from ([record] for record in part)


def _kept_parts(parts: list[Games], keep: list[bool]) -> list[Games]:
    """The parts with only the games whose ``keep`` flag is set (in order over all
    parts), parts left empty dropped."""
    out: list[Games] = []
    start = 0
    for part in parts:
        flags = keep[start:start + len(part)]
        start += len(part)
        if all(flags):
            out.append(part)
        elif any(flags):
            out.append(_kept(part, flags) if isinstance(part, GameRows)
                       else [r for r, flag in zip(part, flags, strict=True) if flag])
    return out


def keyset_sql(columns: str, where: GameFilter, limit: int, before_seq: int | None,
               by_played: bool = False) -> tuple[str, list[Any]]:
    """One page of games, newest first, continuing after the game numbered
    ``before_seq``: by ``seq`` (upload order), or with ``by_played`` by ``game_time``
    then ``seq`` (that game's time read from its row: a deleted game's row stays, so a
    page can continue after a game deleted since).  ``columns`` is a fixed list from
    this package, never from a request."""
    clauses, params = filter_sql(where)
    order = "game_time DESC, seq DESC" if by_played else "seq DESC"
    if before_seq is not None:
        clauses.append("(game_time, seq) < (SELECT (game_time, seq) FROM games WHERE seq = ?)"
                       if by_played else "seq < ?")
        params.append(before_seq)
    sql = f"SELECT {columns} FROM games WHERE " + " AND ".join(clauses)
    return sql + f" ORDER BY {order} LIMIT ?", [*params, limit]


def filter_names(store: Reader, most: int, recent: int = 10_000) -> dict[str, list[str]]:
    """The names the /games form suggests, ``most`` of each, those with the most games
    first (then by name): the players of the ``recent`` latest live games (over a
    million games, all of them took 0.26 s a page, these 0.06 s), and the tournaments
    of all of them (a column of the games alone: 0.08 s)."""
    latest = f"SELECT id FROM games WHERE {live('id')} ORDER BY seq DESC LIMIT ?"
    players, tournaments = (result.rows for result in store.read_many([
        (f"SELECT player FROM game_players WHERE game_id IN ({latest}) GROUP BY player "
         "ORDER BY count(*) DESC, player LIMIT ?", [recent, most]),
        (f"SELECT tournament_id FROM games WHERE tournament_id IS NOT NULL AND {live('id')} "
         "GROUP BY tournament_id ORDER BY count(*) DESC, tournament_id LIMIT ?", [most]),
    ]))
    return {"player": [row[0] for row in players],
            "tournament": [row[0] for row in tournaments]}


def as_stored(store: Reader, where: GameFilter) -> GameFilter:
    """The filter with its player and tournament matched as given when a live game
    holds the name exactly, else folded (``fold_player``, ``fold_tournament``).  Decided
    by one cheap statement first: a query choosing between the two in SQL computed the
    folded match every time (six times the exact match's time over a million games)."""
    if where.player is None and where.tournament is None:
        return where
    with store.cursor() as cur:
        player, tournament = cur.execute(
            "SELECT ? IS NULL OR EXISTS (SELECT 1 FROM game_players WHERE player = ? AND "
            f"{live()}), ? IS NULL OR EXISTS (SELECT 1 FROM games WHERE tournament_id = ? "
            f"AND {live('id')})", [where.player, where.player, where.tournament,
                                   where.tournament]).fetchone()
    return replace(where, fold_player=not player, fold_tournament=not tournament)


def spellings(store: Reader, where: GameFilter, most: int = 20) -> dict[str, list[str]]:
    """For a player or tournament filter matched folded (no live game holds the name as
    given), the stored names it matched, ``most`` of each by name: so a page can say
    whose games it lists.  Empty for names matched as given."""
    resolved = as_stored(store, where)
    asked = [(kind, sql, value) for kind, sql, value, fold in (
        ("player", "SELECT DISTINCT player FROM game_players WHERE "
                   f"{folded('player')} = {folded('?')} AND {live()} ORDER BY player LIMIT ?",
         where.player, resolved.fold_player),
        ("tournament", "SELECT DISTINCT tournament_id FROM games WHERE "
                       f"{folded('tournament_id')} = {folded('?')} AND {live('id')} "
                       "ORDER BY tournament_id LIMIT ?", where.tournament,
         resolved.fold_tournament)) if fold]
    if not asked:
        return {}
    answers = store.read_many([(sql, [value, most]) for _, sql, value in asked])
    return {kind: [row[0] for row in answer.rows]
            for (kind, _, _), answer in zip(asked, answers, strict=True)}


def folded(expression: str) -> str:
    """A name as the filters compare it when no stored name is the one given: lower
    case, accents stripped (``José`` and ``JOSE`` are ``jose``)."""
    return f"strip_accents(lower({expression}))"
def filter_sql(where: GameFilter) -> tuple[list[str], list[Any]]:
    """WHERE clauses for the /games filters (deleted games left out); values always go
    in as parameters."""
    clauses: list[str] = [live("id")]
    params: list[Any] = []
    if where.player is not None:
        # The folded match goes through game_players (one row a seat), not a lambda
        # over each game's list of names.
        clauses.append("id IN (SELECT game_id FROM game_players WHERE "
                       f"{folded('player')} = {folded('?')})" if where.fold_player
                       else "list_contains(players, ?)")
        params.append(where.player)
    if where.tournament is not None:
        clauses.append(f"{folded('tournament_id')} = {folded('?')}" if where.fold_tournament
                       else "tournament_id = ?")
        params.append(where.tournament)
    for column, value in (("variant", where.variant), ("status", where.status),
                          ("source_id", where.source_id),
                          ("tournament_round", where.round),
                          ("tournament_table", where.table)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    if where.verification is not None:
        clauses.append(f"{VERIFICATION} = ?")
        params.append(where.verification)
    if where.since is not None:
        clauses.append("game_time >= ?")
        params.append(where.since)
    if where.until is not None:
        clauses.append("game_time < ?")
        params.append(where.until)
    return clauses, params

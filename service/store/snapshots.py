"""Snapshots for the pages of a listing whose order moves while games are stored.

A leaderboard is ordered by figures that every stored game changes (a player's rating,
wins, rate): a keyset page continuing after the last row of the previous page would
list a player twice when their figure fell past the cut, and never when it rose past
it.  So the pages of one walk read one snapshot of the database: the first page opens
a read-only DuckDB transaction, and when there is a next page the transaction is kept
under a random id, which the page's cursor carries (signed by the API); the next pages
run their statement in it and see the database exactly as the first page did, whatever
was committed since.  DuckDB's read transactions neither wait for the writer nor stop
its checkpoints.

A snapshot is kept ``IDLE`` seconds after its last page and ``LIFETIME`` at most, and
at most ``MOST`` are open (the least recently used is closed first).  A cursor whose
snapshot is gone (expired, or the store process started again) continues on a new
snapshot of the current state after the key it carries: the walk goes on, exact
again from there on.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import duckdb

IDLE = 600.0  # seconds a snapshot is kept after its last page
LIFETIME = 3600.0  # seconds a snapshot is kept at most
MOST = 64  # snapshots open at once


@dataclass
class Walk:
    """The snapshot a walk over a listing's pages reads: None for a first page (or a
    listing without snapshots); set by the read to the snapshot the next page reads."""

    snapshot: str | None = None


@dataclass(eq=False)
class _Snapshot:
    cur: Any
    opened: float
    used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class Snapshots:
    """The open snapshots of one DuckDB connection (``connect`` gives a new cursor of
    it): each a cursor holding a read-only transaction."""

    def __init__(self, connect: Callable[[], Any]):
        self._connect = connect
        self._lock = threading.Lock()
        self._open: dict[str, _Snapshot] = {}

    def __len__(self) -> int:
        return len(self._open)

    def page(self, sql: str, params: Sequence[Any], snapshot: str | None,
             more_than: int) -> tuple[str | None, tuple[str, ...], list[tuple]]:
        """The rows of one statement read on ``snapshot``; on a new snapshot when it is
        None or gone, kept (its id answered) when more than ``more_than`` rows came back.
        The columns' names and the rows."""
        now = time.monotonic()
        self._expire(now)
        held = self._open.get(snapshot) if snapshot is not None else None
        if held is not None:
            with held.lock:
                if self._open.get(snapshot) is held:  # not closed meanwhile
                    held.used = time.monotonic()
                    try:
                        columns, rows = _run(held.cur, sql, params)
                    except duckdb.Error:
                        with self._lock:
                            self._open.pop(snapshot, None)
                        _end(held.cur)
                        raise
                    return snapshot, columns, rows
        cur = self._connect()
        try:
            cur.execute("BEGIN TRANSACTION READ ONLY")
            columns, rows = _run(cur, sql, params)
        except BaseException:
            cur.close()
            raise
        if len(rows) <= more_than:
            _end(cur)
            return None, columns, rows
        name = secrets.token_hex(8)
        with self._lock:
            self._open[name] = _Snapshot(cur, now, now)
            crowded = sorted(self._open, key=lambda n: self._open[n].used)[:-MOST] \
                if len(self._open) > MOST else []
        for old in crowded:
            self._close(old)
        return name, columns, rows

    def _expire(self, now: float) -> None:
        with self._lock:
            old = [name for name, held in self._open.items()
                   if now - held.used > IDLE or now - held.opened > LIFETIME]
        for name in old:
            self._close(name)

    def _close(self, name: str) -> None:
        with self._lock:
            held = self._open.pop(name, None)
        if held is None:
            return
        with held.lock:  # after a page still reading on it
            _end(held.cur)

    def close(self) -> None:
        """Close every snapshot (the store is closing)."""
        for name in list(self._open):
            self._close(name)


def _end(cur: Any) -> None:
    """End a snapshot's transaction and close its cursor."""
    with suppress(duckdb.Error):
        cur.execute("ROLLBACK")
    cur.close()


def _run(cur: Any, sql: str, params: Sequence[Any]) -> tuple[tuple[str, ...], list[tuple]]:
    cur.execute(sql, list(params))
    return tuple(d[0] for d in cur.description or ()), cur.fetchall()


def page_rows(store: Any, sql: str, params: Sequence[Any], walk: Walk | None,
              more_than: int) -> list[dict[str, Any]]:
    """The rows of one page's statement as dicts: read on the walk's snapshot when
    ``walk`` is given and the store keeps snapshots (``read_page``), its snapshot then
    set for the next page; else as any statement."""
    read_page = getattr(store, "read_page", None)
    if walk is not None and read_page is not None:
        walk.snapshot, columns, rows = read_page(sql, list(params), walk.snapshot, more_than)
    else:
        with store.cursor() as cur:
            rows = cur.execute(sql, list(params)).fetchall()
            columns = tuple(d[0] for d in cur.description)
    return [dict(zip(columns, row, strict=True)) for row in rows]

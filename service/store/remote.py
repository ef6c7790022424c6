"""The store in a process of its own, for the HTTP service.

Why: DuckDB's Python client takes the interpreter lock many times per statement, so in a
process whose other threads run Python code (HTTP parsing, verification) each statement
of a commit waits for the lock again and again.  Measured on two cores: a 16-game group
commit takes 16-20 ms alone, about 55 ms in the serving process under load, and 100-300
ms beside one busy Python thread.  In a process of its own the store's threads only wait
on DuckDB, and the serving process keeps its lock for HTTP.

``RemoteStore`` starts that process (a fresh interpreter, never a fork) and offers the
same reads and writes as ``Store``: each call is one message over a Unix socket
authenticated with a random key, answered once done (a write once committed).  The
store process ends with its parent: when the parent exits, is killed, or closes it.
Should it end first, ``on_lost`` is called.

Two owners.  Served by gunicorn (``gunicorn.conf.py``), the master process starts the
one store process of the database file (``serve_shared``) before it forks its HTTP
workers, and starts it again on the same socket and key should it end (killed, out of
memory): the workers, which reach it as an ``AttachedStore`` (``shared_store``), keep
running, their calls in flight fail (their requests answer 503) and the next ones
reconnect.  A worker that dies is replaced by the master without the store noticing.
Anywhere else (tests, an embedding server) the app starts a store process of its own.

The store process ignores SIGINT (and the shared one SIGTERM): a terminal's Ctrl-C and
``kill`` of the process group reach every process of the group, and the store must
outlive the workers still answering; its owner closes it once they are gone (a
checkpoint).

The socket lives in a private temporary folder, ``rummy-store-<pid>-<random>``, named
after the process that made it, and removed when the store is closed.  A ``kill -9``
leaves it behind, so each start removes the folders of this user whose owner process
is gone (never one whose owner still runs: another server on the same machine).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from ..supervised import Served, Supervised, answer_connections
from .analysis_switch import analysis_enabled
from .db import (
    MAX_QUEUED_GAMES,
    Answer,
    GameRows,
    Replacement,
    Restoration,
    Rows,
    Statement,
    Store,
    StoreBusy,
    StoreError,
    StoreLocked,
    StoreReads,
    games_of,
)
from .ratings_switch import ratings_enabled
from .records import GameRecord

DIR_PREFIX = "rummy-store-"
_DIR_NAME = re.compile(re.escape(DIR_PREFIX) + r"([0-9]+)-[A-Za-z0-9_]+")
START_TIMEOUT = 120.0  # seconds for the store process to open and migrate the file
TICKET_LIFETIME = 600.0  # seconds staged rows wait for their request to release them
_ERRORS: dict[str, type[Exception]] = {"StoreError": StoreError, "StoreBusy": StoreBusy,
                                        "ValueError": ValueError, "TypeError": TypeError}


# --------------------------------------------------------------------------- the process

def _serve(path: str, address: str, key: bytes, control: Connection,
           max_queued_games: int = MAX_QUEUED_GAMES, shared: bool = False,
           analysis: bool = False, ratings: bool = True) -> None:
    """The store process: open the store, answer every connection in a thread, and
    end when the parent closes the control pipe (or dies, which closes it too).

    It ignores SIGINT: Ctrl-C in a terminal reaches the whole process group, and the
    store must not end under its parent's feet (a KeyboardInterrupt here left the
    write-ahead log behind and the worker believing its store lost).  The parent,
    shutting down on that SIGINT, closes it, which checkpoints the file.  ``shared``
    (the gunicorn master's store): SIGTERM too, for the same reason, since the master
    stops its workers first and closes the store only then."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if shared:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        store = Store(path, max_queued_games=max_queued_games, ratings=ratings)
    except StoreLocked as error:
        control.send(("locked", str(error)))
        return
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        control.send(("failed", f"{type(error).__name__}: {error}"))
        return
    if analysis:
        store.start_catchup()  # the background analysis (``analysis.CatchUp``)
    with suppress(FileNotFoundError):
        os.unlink(address)  # left by the store process this one replaces
    listener = Listener(address, family="AF_UNIX", authkey=key)
    served = _Served(store)
    threading.Thread(target=answer_connections,
                     args=(listener, lambda conn: _answer(conn, served)), daemon=True).start()
    control.send(("ready", None))
    with suppress(EOFError, OSError):
        control.recv()  # a close request, or EOFError when the parent is gone
    store.close()
    control.close()
    os._exit(0)  # the connection threads are daemons blocked on their sockets


class Tickets:
    """Rows staged by the verifying processes (``stage``), each under a ticket, and
    committed only when a request releases its tickets, in its lines' order
    (``commit``): the pool's processes finish their parts in any order, and a batch's
    games must be numbered (``seq``, the ratings' order within a second) as its lines
    are, whichever process judged them first.

    A ticket is random, never a count: a store process started again after a crash
    must not know the tickets the dead one gave, or a request still holding one would
    take another request's answers.  Rows nobody releases (their request gone) are
    forgotten after ``TICKET_LIFETIME``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._staged: dict[str, tuple[float, Any]] = {}

    def stage(self, rows: Any) -> str:
        now = time.monotonic()
        ticket = secrets.token_hex(16)
        with self._lock:
            stale = [t for t, (since, _) in self._staged.items()
                     if now - since > TICKET_LIFETIME]
            for old in stale:
                del self._staged[old]
            self._staged[ticket] = (now, rows)
        return ticket

    def release(self, tickets: Sequence[str]) -> list[Any]:
        """The rows staged under ``tickets``, in order, each handed out once.  All or
        none: should one be unknown (staged in a store process that has ended since),
        StoreError, and the others are dropped too (their request answers none)."""
        with self._lock:
            entries = [self._staged.pop(t, None) for t in tickets]
        missing = [t for t, entry in zip(tickets, entries, strict=True) if entry is None]
        if missing:
            raise StoreError(f"no rows are staged under ticket {missing[0]!r} (the store "
                             "process was started again since); nothing was stored")
        return [entry[1] for entry in entries if entry is not None]

    def __len__(self) -> int:
        return len(self._staged)


def commit_staged(store: Store, tickets: Tickets, numbers: Sequence[str]) -> list[list[Answer]]:
    """Commit the rows staged under ``numbers``, queued in that order (so numbered in
    it), once committed: the answers of each."""
    futures = [store.put(rows) for rows in tickets.release(numbers)]
    return [future.result() for future in futures]


@dataclass
class _Served:
    """What the store process serves: the store, and the tickets of writes put."""

    store: Store
    tickets: Tickets = field(default_factory=Tickets)


def _answer(conn: Connection, served: _Served) -> None:
    """Answer one client's calls in order until it hangs up."""
    while True:
        try:
            op, args = conn.recv()
        except (EOFError, OSError):
            conn.close()
            return
        try:
            reply = ("ok", _call(served, op, args))
        except Exception as error:  # noqa: BLE001 - sent back and raised by the client
            reply = ("error", (type(error).__name__, str(error)))
        if not _send(conn, reply):  # the client hung up meanwhile
            conn.close()
            return


def _send(conn: Connection, reply: tuple) -> bool:
    """Send a reply; one that does not pickle goes as an error of its call.  False when
    the client is gone."""
    try:
        conn.send(reply)
    except (OSError, EOFError):
        return False
    except Exception as error:  # noqa: BLE001 - an answer that does not pickle
        return _send(conn, ("error", ("StoreError", f"the answer could not be sent: {error}")))
    return True


# The operations that change nothing: one may be sent again when its answer was lost.
# ``catch_up_ratings`` changes what is stored, but sent again it rates nothing more.
READ_OPERATIONS = frozenset(("query", "read", "page", "counters", "health", "analysis_health",
                             "check", "rating_health", "catch_up_ratings",
                             "games_by_status"))


class _StaleConnection(Exception):
    """A thread's connection was to a store process that has gone: try a new one."""


# Calls that do not count as the service being busy (health probes, metrics scrapes):
# the analysis catch-up takes a share of the time after any other (``CatchUp.rest_after``).
# A scrape's count of the games by status is one: counted as use, a scrape every second
# kept the catch-up of an idle service at a tenth of its rate.
PROBES = frozenset(("counters", "health", "analysis_health", "check", "rating_health",
                    "games_by_status"))


def _call(served: _Served, op: str, args: tuple) -> Any:
    store = served.store
    if op not in PROBES:
        store.last_active = time.monotonic()
    if op == "query":
        sql, params = args
        with store.cursor() as cur:
            cur.execute(sql, params)
            description = [(d[0],) for d in cur.description] if cur.description else None
            return description, cur.fetchall()
    if op == "read":
        return store.read_many(args[0])
    if op == "page":
        return store.read_page(*args)
    if op == "submit":
        return store.submit(*args)
    if op == "stage":
        return served.tickets.stage(args[0])
    if op == "commit_staged":
        return commit_staged(store, served.tickets, args[0])
    if op == "add":
        return store.add_games(args[0])
    if op == "delete":
        return store.delete_game(*args)
    if op == "replace":
        return store.replace_game(*args)
    if op == "keep":
        return store.keep_game(*args)
    if op == "restore":
        return store.restore_game(*args)
    if op == "rule":
        return store.set_ruling(*args)
    if op == "unrule":
        return store.withdraw_ruling(*args)
    if op == "settings":
        return store.put_settings(*args)
    if op == "counters":
        return store.commits, store.games_committed
    if op == "health":
        return store.write_health()
    if op == "add_analyses":
        return store.add_analyses(args[0])
    if op == "analysis_health":
        return store.analysis_health()
    if op == "check":
        return store.check()
    if op == "rating_health":
        return store.rating_health()
    if op == "catch_up_ratings":
        return store.catch_up_ratings()
    if op == "games_by_status":
        return store.games_by_status()
    raise ValueError(f"unknown store operation {op!r}")


# --------------------------------------------------------------------------- signals

# --------------------------------------------------------------------------- the folder

def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def remove_stale_folders(root: str | None = None) -> list[str]:
    """Remove the socket folders under ``root`` (the temporary directory) that this
    user's store clients left when killed: those whose owner process is gone.  The
    folders removed, by path."""
    root = root or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        match = _DIR_NAME.fullmatch(entry.name)
        if match is None or int(match[1]) == os.getpid():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) \
                    or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        if not _running(int(match[1])):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


# --------------------------------------------------------------------------- the client

class RemoteCursor:
    """What the storage modules use of a DuckDB cursor: ``execute`` then ``fetchall``,
    ``fetchone`` or ``description``; the whole result comes back with ``execute``.  Each
    ``execute`` is a call of its own, and its own transaction in the store process: a
    read of several statements goes as one call, ``RemoteStore.read_many``."""

    def __init__(self, store: StoreClient):
        self._store = store
        self._rows: list[tuple] = []
        self._next = 0
        self.description: list[tuple] | None = None

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> RemoteCursor:
        self.description, self._rows = self._store.call("query", sql, params)
        self._next = 0
        return self

    def fetchall(self) -> list[tuple]:
        rows, self._next = self._rows[self._next:], len(self._rows)
        return rows

    def fetchone(self) -> tuple | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]


class StoreClient:
    """Calls to a running store process, from any thread of any process that knows its
    address and key (``RemoteStore.where``): the HTTP worker, and the verifying pool,
    whose processes store the rows they build without sending them through the worker."""

    def __init__(self, address: str, key: bytes):
        self._address = address
        self._key = key
        self._local = threading.local()
        self._closed = False

    def call(self, op: str, *args: Any, timeout: float | None = None) -> Any:
        """One call, on this thread's own connection; the store's errors raised here.
        ``timeout``: seconds to wait for the answer (StoreError after them, and the
        connection is dropped: its late answer must not be read as the next one's).

        A thread's connection may have been made to a store process that has ended
        since (and been started again): a call that finds it so is made once more on a
        new connection, when it cannot have reached the old process (the sending
        failed) or when it only reads.  Otherwise each of the serving threads would fail
        one request after every restart of the store process."""
        try:
            return self._call_once(op, args, timeout)
        except _StaleConnection:
            return self._call_once(op, args, timeout)

    def _call_once(self, op: str, args: tuple, timeout: float | None) -> Any:
        if self._closed:
            raise StoreError("the store is closed")
        conn = getattr(self._local, "conn", None)
        reused = conn is not None
        sent = False
        try:
            if conn is None:
                conn = self._local.conn = Client(self._address, family="AF_UNIX",
                                                 authkey=self._key)
            conn.send((op, args))
            sent = True
            if timeout is not None and not conn.poll(timeout):
                self._local.conn = None
                conn.close()
                raise StoreError(f"the store process did not answer within {timeout:g} s")
            status, value = conn.recv()
        except (OSError, EOFError, multiprocessing.AuthenticationError) as error:
            self._local.conn = None
            if conn is not None:
                with suppress(OSError):
                    conn.close()
            if reused and (not sent or op in READ_OPERATIONS):
                raise _StaleConnection from error
            raise StoreError(f"the store process is not answering: {error}") from error
        if status == "ok":
            return value
        kind, message = value
        raise _ERRORS.get(kind, StoreError)(message)

    def submit(self, games: Sequence[GameRecord] | GameRows,
               refuse_when_busy: bool = False) -> list[Answer]:
        """As ``Store.submit``: returns once the games are committed (StoreBusy at once
        when ``refuse_when_busy`` and too many games wait)."""
        if not len(games):
            return []
        return self.call("submit", games_of(games), refuse_when_busy)

    def stage(self, games: GameRows) -> str:
        """Hand rows to the store process without storing them yet: a ticket for
        ``commit_staged``."""
        return self.call("stage", games)

    def commit_staged(self, tickets: Sequence[str]) -> list[list[Answer]]:
        """Store the rows staged under ``tickets``, in that order, in the store process
        that staged them (StoreError if it has ended since: nothing is stored); from
        any client, once.  The answers of each ticket, once committed."""
        return self.call("commit_staged", list(tickets))


class _StoreCalls(StoreClient, StoreReads):
    """The reads and writes of ``Store``, each one call to a store process."""

    path: str

    @property
    def where(self) -> tuple[str, bytes]:
        """The address and key a ``StoreClient`` needs (never logged: the key admits)."""
        return self._address, self._key

    @contextmanager
    def cursor(self) -> Iterator[RemoteCursor]:
        yield RemoteCursor(self)

    def read_many(self, statements: Sequence[Statement]) -> list[Rows]:
        """As ``Store.read_many``, in one call: the store process runs the statements in
        one transaction and answers all their results."""
        return self.call("read", [(sql, list(params)) for sql, params in statements])

    def read_page(self, sql: str, params: list[Any], snapshot: str | None,
                  more_than: int) -> tuple[str | None, tuple[str, ...], list[tuple]]:
        """As ``Store.read_page``, in one call: the snapshots live in the store process,
        which every worker reaches."""
        return self.call("page", sql, list(params), snapshot, more_than)

    def add_games(self, games: Sequence[GameRecord] | GameRows) -> list[Answer]:
        return self.call("add", games_of(games))

    def delete_game(self, gid: str, by: str | None, reason: str | None,
                    at: datetime) -> tuple[dict[str, Any], bool] | None:
        """As ``Store.delete_game``, in one call."""
        return self.call("delete", gid, by, reason, at)

    def replace_game(self, record: GameRecord, old: str, by: str | None,
                     reason: str | None, at: datetime) -> Replacement:
        """As ``Store.replace_game``, in one call."""
        return self.call("replace", record, old, by, reason, at)

    def keep_game(self, tournament_id: str, round_: int, table: str, keep: str,
                  by: str | None, reason: str | None,
                  at: datetime) -> tuple[list[str], list[dict[str, Any]]] | None:
        """As ``Store.keep_game``, in one call."""
        return self.call("keep", tournament_id, round_, table, keep, by, reason, at)

    def restore_game(self, gid: str, by: str | None, reason: str,
                     at: datetime) -> Restoration:
        """As ``Store.restore_game``, in one call."""
        return self.call("restore", gid, by, reason, at)

    def set_ruling(self, gid: str, ruling: str, against: str | None, reason: str,
                   by: str | None, at: datetime) -> bool:
        """As ``Store.set_ruling``, in one call."""
        return self.call("rule", gid, ruling, against, reason, by, at)

    def withdraw_ruling(self, gid: str, by: str | None, reason: str | None,
                        at: datetime) -> bool:
        """As ``Store.withdraw_ruling``, in one call."""
        return self.call("unrule", gid, by, reason, at)

    def put_settings(self, tournament_id: str, settings: bytes, by: str | None,
                     at: datetime) -> None:
        """As ``Store.put_settings``, in one call."""
        return self.call("settings", tournament_id, settings, by, at)

    def write_counts(self) -> dict[str, int]:
        """As ``Store.write_counts``, in one call."""
        commits, games = self.call("counters")
        return {"commits": commits, "games_committed": games}

    def write_health(self) -> dict[str, Any]:
        """As ``Store.write_health``, in one call."""
        return self.call("health")

    def games_by_status(self) -> dict[str, int]:
        """As ``Store.games_by_status``, as a probe (``PROBES``): what a metrics scrape
        reads."""
        return self.call("games_by_status")

    def add_analyses(self, records: Sequence[Any]) -> int:
        """As ``Store.add_analyses``, in one call."""
        return self.call("add_analyses", list(records))

    def analysis_health(self) -> dict[str, Any]:
        """As ``Store.analysis_health``: the catch-up runs in the store process."""
        return self.call("analysis_health")

    def rating_health(self) -> dict[str, Any] | None:
        """As ``Store.rating_health``: the catch-up runs in the store process."""
        return self.call("rating_health")

    def catch_up_ratings(self) -> int:
        """As ``Store.catch_up_ratings``, in one call."""
        return self.call("catch_up_ratings")

    def check(self, timeout: float | None = None) -> dict[str, Any]:
        """As ``Store.check``, in one call, answered within ``timeout`` seconds or
        StoreError."""
        return self.call("check", timeout=timeout)

    @property
    def commits(self) -> int:
        return self.write_counts()["commits"]

    @property
    def games_committed(self) -> int:
        return self.write_counts()["games_committed"]


class RemoteStore(Supervised, _StoreCalls):
    """The store of ``path``, opened in a process of its own (see the module).

    ``restart``: should the store process end on its own, start another on the same
    socket and key (after ``on_lost``), so that clients reconnect to it; otherwise only
    ``on_lost`` is called.  ``daemon``: the process is ended with this one at its exit
    (never for a store whose owner forks: a forked child's exit would end it too).
    Closing it closes the file (a checkpoint)."""

    failure = StoreError
    what = "the store process"

    def __init__(self, path: str, start_timeout: float = START_TIMEOUT,
                 max_queued_games: int = MAX_QUEUED_GAMES, restart: bool = False,
                 daemon: bool = True, analysis: bool | None = None,
                 ratings: bool | None = None):
        self.path = str(path)
        # The background analysis of stored games: RUMMY_ANALYSIS when not said.
        self.analysis = analysis_enabled() if analysis is None else analysis
        # The rating of stored games: RUMMY_RATINGS when not said.
        self.ratings = ratings_enabled() if ratings is None else ratings
        remove_stale_folders()
        self._dir = tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-")
        _StoreCalls.__init__(self, os.path.join(self._dir, "store.sock"),
                             secrets.token_bytes(32))
        self.max_queued_games = max_queued_games
        self.start_timeout = start_timeout
        self.restart = restart
        self.daemon = daemon
        self._supervise("store-watch")

    def _child(self, control: Connection) -> tuple[Callable[..., None], str, tuple]:
        return _serve, "rummy-store", (self.path, self._address, self._key, control,
                                       self.max_queued_games, not self.daemon,
                                       self.analysis, self.ratings)

    def _ready(self, status: str, detail: Any) -> None:
        """The store process opened the file, or StoreLocked or StoreError."""
        if status != "ready":
            raise (StoreLocked if status == "locked" else StoreError)(detail)


class AttachedStore(_StoreCalls):
    """A store process started by another process of the service (the gunicorn master),
    reached by its address and key; closing it closes only this side."""

    def __init__(self, path: str, address: str, key: bytes):
        self.path = str(path)
        super().__init__(address, key)

    def close(self) -> None:
        self._closed = True


# --------------------------------------------------------------------------- shared

_SHARED = Served()  # in the gunicorn master, and inherited by its workers


def serve_shared(path: str, max_queued_games: int = MAX_QUEUED_GAMES) -> RemoteStore:
    """Start the one store process of ``path`` for the processes this one forks (the
    gunicorn master, before its workers), restarted should it end on its own."""
    return _SHARED.serve(lambda: RemoteStore(path, max_queued_games=max_queued_games,
                                             restart=True, daemon=False))


def shared_store(path: str) -> AttachedStore | None:
    """In a forked child: the shared store of ``path``, if its parent serves one."""
    store = _SHARED.inherited()
    if not isinstance(store, RemoteStore) \
            or os.path.abspath(store.path) != os.path.abspath(path):
        return None
    return AttachedStore(store.path, *store.where)


def shared_pid() -> int | None:
    """The id of the shared store process, when this process serves one."""
    store = _SHARED.owned()
    return store.pid if store is not None else None


def close_shared() -> None:
    """Close the shared store (the gunicorn master, once its workers are gone)."""
    _SHARED.close()

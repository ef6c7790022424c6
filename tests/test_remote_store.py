"""The store in a process of its own: start-up errors, queries, and its end with its
parent.  (Reads and writes themselves are the tests of test_store.py, run both ways.)"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from service.store import Store, StoreError, StoreLocked
from service.store.migrations import MIGRATIONS
from service.store.remote import RemoteStore, StoreClient
from service.store.rows import GameRow

LATEST = MIGRATIONS[-1][0]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_file_in_use_is_refused_as_locked(tmp_path):
    path = tmp_path / "db.duckdb"
    holder = Store(path)
    try:
        with pytest.raises(StoreLocked, match="in use"):
            RemoteStore(str(path))
    finally:
        holder.close()


def test_queries_answer_like_a_cursor(tmp_path):
    store = RemoteStore(str(tmp_path / "db.duckdb"))
    try:
        with store.cursor() as cur:
            cur.execute("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(n, s) ORDER BY n")
            assert [d[0] for d in cur.description] == ["n", "s"]
            assert cur.fetchone() == (1, "a")
            assert cur.fetchall() == [(2, "b")]
            assert cur.fetchone() is None
            assert cur.execute("SELECT ?::INTEGER + 1", [41]).fetchone() == (42,)
            with pytest.raises(StoreError, match="nope"):
                cur.execute("SELECT * FROM nope")
            # A parameter DuckDB cannot take is an error of that call; the next one works.
            with pytest.raises(StoreError, match="python value"):
                cur.execute("SELECT ?", [object()])
            assert cur.execute("SELECT 7").fetchone() == (7,)
        assert store.ping() and store.schema_version == LATEST
        assert (store.commits, store.games_committed) == (0, 0)
    finally:
        store.close()
    with pytest.raises(StoreError, match="closed"):
        store.ping()
    Store(tmp_path / "db.duckdb").close()  # the file is free again


CHILD = """
import sys, time
from service.store.remote import RemoteStore, StoreClient
store = RemoteStore(sys.argv[1])
print("open", flush=True)
time.sleep(600)
"""


def test_the_store_process_ends_with_its_parent(tmp_path):
    """A parent killed outright leaves no store process holding the file."""
    path = tmp_path / "db.duckdb"
    parent = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "open"
        with pytest.raises(StoreLocked):
            Store(path)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30
        while True:
            try:
                Store(path).close()
                break
            except StoreLocked:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_the_owner_hears_when_the_store_process_ends_on_its_own(tmp_path):
    store = RemoteStore(str(tmp_path / "db.duckdb"))
    lost = threading.Event()
    store.on_lost = lost.set
    try:
        store._process.kill()
        assert lost.wait(30)
        with pytest.raises(StoreError, match="not answering"):
            store.ping()
    finally:
        store.close()
    closed = RemoteStore(str(tmp_path / "db.duckdb"))
    heard = threading.Event()
    closed.on_lost = heard.set
    closed.close()
    assert not heard.wait(1)  # a close is not a loss


def test_a_client_without_the_key_is_turned_away_and_others_still_served(tmp_path):
    store = RemoteStore(str(tmp_path / "db.duckdb"))
    try:
        address, _ = store.where
        intruder = StoreClient(address, b"not the key")
        with pytest.raises((StoreError, multiprocessing.AuthenticationError)):
            intruder.call("counters")
        # Served within seconds (a listener stopped by the intruder would never answer).
        answer: list = []
        caller = threading.Thread(
            target=lambda: answer.append(StoreClient(*store.where).call("counters")),
            daemon=True)
        caller.start()
        caller.join(30)
        assert answer == [(0, 0)]
        assert store.ping()
    finally:
        store.close()


def test_staged_rows_are_committed_once_by_any_client_in_the_order_asked(tmp_path):
    """A pool process stages rows; the request commits them with the tickets, in the
    order it gives (its lines' order), whatever order they were staged in."""
    from service.store import game_rows
    from tests.test_store import record

    store = RemoteStore(str(tmp_path / "db.duckdb"))
    pool_side = StoreClient(*store.where)
    try:
        first, second, third = record(id="a"), record(id="b"), record(id="c")
        late = pool_side.stage(game_rows([second, third, first]))  # staged first
        early = pool_side.stage(game_rows([first]))
        assert store.count("games") == 0  # staged only
        assert store.commit_staged([early, late]) == [
            [(first.id, True)], [(second.id, True), (third.id, True), (first.id, False)]]
        seqs = dict(store.cursor().__enter__().execute(
            "SELECT id, seq FROM games").fetchall())
        assert seqs[first.id] < seqs[second.id] < seqs[third.id]
        for ticket in (early, "987654"):  # once only; never given
            with pytest.raises(StoreError, match="no rows are staged under ticket"):
                store.commit_staged([ticket])
        # A write that fails is raised by its commit, and stores nothing.
        broken = record(id="broken")
        broken.games = GameRow(*broken.games)._replace(variant=None)  # no variant
        ticket = pool_side.stage(game_rows([broken]))
        with pytest.raises(StoreError, match="NOT NULL"):
            store.commit_staged([ticket])
        assert store.count("games") == 3
        # All or none: one unknown ticket among them, and nothing is stored.
        kept = pool_side.stage(game_rows([record(id="d")]))
        with pytest.raises(StoreError, match="no rows are staged"):
            store.commit_staged([kept, "unknown"])
        assert store.count("games") == 3
    finally:
        store.close()


def test_tickets_are_never_given_again_by_a_new_store_process(tmp_path):
    """A store process started again must not know the tickets of the one that died:
    a request holding one of those would take another request's games."""
    from service.store import game_rows
    from tests.test_store import record

    path = str(tmp_path / "db.duckdb")
    given = set()
    for _ in range(2):
        store = RemoteStore(path)
        try:
            pool_side = StoreClient(*store.where)
            for n in range(3):
                given.add(pool_side.stage(game_rows([record(id=f"g{n}")])))
        finally:
            store.close()
    assert len(given) == 6


def test_staged_rows_nobody_commits_are_forgotten(monkeypatch):
    """Rows whose request went away do not stay in memory for ever."""
    from service.store import remote

    tickets = remote.Tickets()
    old = tickets.stage("rows of a request gone")
    monkeypatch.setattr(remote, "TICKET_LIFETIME", -1.0)
    fresh = tickets.stage("fresh rows")
    assert len(tickets) == 1
    with pytest.raises(StoreError):
        tickets.release([old])
    monkeypatch.setattr(remote, "TICKET_LIFETIME", 600.0)
    assert tickets.release([fresh]) == ["fresh rows"]


def test_folders_left_by_killed_owners_are_removed_at_start(tmp_path, monkeypatch):
    """A kill -9 leaves the socket folder; the next start removes it, and only the
    folders whose owner process is gone."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    living = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = tmp_path / f"rummy-store-{gone.pid}-abc123"
        kept = tmp_path / f"rummy-store-{living.pid}-def456"
        other = tmp_path / "rummy-store-notapid"
        for folder in (stale, kept, other):
            folder.mkdir()
            (folder / "store.sock").write_text("")
        store = RemoteStore(str(tmp_path / "db.duckdb"))
        try:
            assert not stale.exists()
            assert kept.exists() and other.exists()
            [own] = [p for p in tmp_path.iterdir()
                     if p.name.startswith(f"rummy-store-{os.getpid()}-")]
            assert (own / "store.sock").exists()
        finally:
            store.close()
        assert not own.exists()  # a close removes its own folder
    finally:
        living.kill()
        living.wait()


def test_a_killed_owner_leaves_its_folder_for_the_next_start(tmp_path):
    """The real case: a parent killed outright, then a new store started."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    parent = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "db.duckdb")],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert parent.stdout.readline().strip() == "open"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    finally:
        if parent.poll() is None:
            parent.kill()
    left = [p for p in tmp_path.iterdir() if p.name.startswith("rummy-store-")]
    assert len(left) == 1  # the kill left it
    import tempfile

    original = tempfile.tempdir
    tempfile.tempdir = str(tmp_path)
    try:
        RemoteStore(str(tmp_path / "db2.duckdb")).close()
    finally:
        tempfile.tempdir = original
    assert not left[0].exists()


def test_both_stores_offer_the_reader_interface_the_queries_use(tmp_path):
    from service.store import Reader
    from service.store.stats import variant_stats

    local = Store(tmp_path / "local.duckdb")
    remote = RemoteStore(str(tmp_path / "remote.duckdb"))
    try:
        for store in (local, remote):
            assert isinstance(store, Reader)
            with store.cursor() as cur:
                for name in ("execute", "fetchall", "fetchone", "description"):
                    assert hasattr(cur, name), (type(store).__name__, name)
            assert variant_stats(store) == []  # an empty store, read through the interface
    finally:
        local.close()
        remote.close()
    assert not isinstance(object(), Reader)


def test_threads_connected_before_a_restart_are_served_after_it(tmp_path):
    """Each thread keeps its own connection; after the store process is killed and
    started again, a thread whose connection was to the old one is not failed for it:
    a read is sent again on a new connection (and so is a write that never left)."""
    store = RemoteStore(str(tmp_path / "db.duckdb"), restart=True)
    try:
        client = StoreClient(*store.where)
        answers: list[object] = []

        def first_then_after(barrier: threading.Barrier, done: threading.Event) -> None:
            client.call("check")  # this thread's connection is made now
            barrier.wait()
            done.wait(30)
            try:
                answers.append(client.call("check")["schema_version"])
                answers.append(len(client.call("read", [("SELECT 1", [])])))
            except StoreError as error:
                answers.append(error)

        barrier, done = threading.Barrier(4), threading.Event()
        threads = [threading.Thread(target=first_then_after, args=(barrier, done))
                   for _ in range(3)]
        for thread in threads:
            thread.start()
        barrier.wait()
        old = store.pid
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while store.restarts == 0 or store.pid == old:
            assert time.monotonic() < deadline, "no new store process"
            time.sleep(0.05)
        while True:  # the new one answers new connections
            try:
                StoreClient(*store.where).call("check")
                break
            except StoreError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        done.set()
        for thread in threads:
            thread.join(30)
        assert len(answers) == 6 and not any(isinstance(a, StoreError) for a in answers), answers
    finally:
        store.close()

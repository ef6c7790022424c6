"""Every statistics read is one consistent snapshot, whatever is committed meanwhile.

A read of several statements that are not one transaction sees each commit made between
them in some statements and not in others: a variant counted in the deals and missing
from the games (a KeyError, answered 500), standings of a game the list does not show.
Here a game is committed through the real store right after the first statement of a
read (the one injection: the store's cursor, or its calls to the store process, are
wrapped on the test's side), and the answer must be the one from before that commit;
then real threads upload games of every variant while the statistics are read.
Both ways the service runs its store: in this process and in a process of its own.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest

from service.api.intake import check_log
from service.engine.rules import PRESETS
from service.generator import generate_game
from service.store import Store
from service.store import export as store_export
from service.store.remote import RemoteStore

from .helpers import API, post_log, store_of, valid

TOURNAMENT = "spring"
PLAYERS = ("ana", "ben")
# The reads that combine statements, and a few of one statement as a control.
READS = (
    "/stats/variants",
    f"/players/{PLAYERS[0]}/stats",
    f"/players/{PLAYERS[0]}/versus/{PLAYERS[1]}",
    f"/tournaments/{TOURNAMENT}",
    f"/tournaments/{TOURNAMENT}/report.csv",
    "/players",
    "/games",
    "/games/export",
)
MODES = {"here": "0", "own process": "1"}


def new_game(variant: str, n: int, players: int = 2) -> dict[str, Any]:
    """A generated game of ``variant`` with ana and ben seated, in the tournament."""
    names = PLAYERS if players == 2 else (*PLAYERS, "cleo", "dan")
    return generate_game(variant, (7, n), players=players, names=names,
                         tournament={"id": TOURNAMENT, "round": n + 1, "table": "A"})


def commit(store: Store | RemoteStore, log: dict[str, Any]) -> None:
    """Verify and store one game through the store itself, as an upload does."""
    raw = orjson.dumps(log)
    [(_, created)] = store.submit([check_log(raw, len(raw) + 1).record(None)])
    assert created


@contextmanager
def write_after_first_query(store: Store | RemoteStore, write: Callable[[], None]
                            ) -> Iterator[list[int]]:
    """Run ``write`` once, right after the first query any read sends while inside;
    yields a list that holds 1 once it ran.

    Here: the store's cursors are wrapped, so the write lands between the statements the
    read runs on its cursor (and its reads of a page, one statement each, are followed
    by the write: ``read_page``).  Store process: its calls are wrapped, so the write lands
    between the calls of the read (a read that is one call has none to land between)."""
    done: list[int] = []

    def after() -> None:
        if not done:
            done.append(1)
            write()

    if isinstance(store, RemoteStore):
        real_call = store.call

        def call(op: str, *args: Any) -> Any:
            answer = real_call(op, *args)
            if op in ("query", "read", "page"):
                after()
            return answer

        store.call = call  # type: ignore[method-assign]
        try:
            yield done
        finally:
            del store.call
        return

    real_cursor = store.cursor

    class Cursor:
        def __init__(self, cur: Any):
            self._cur = cur

        def execute(self, sql: str, *args: Any) -> Cursor:
            self._cur.execute(sql, *args)
            if not sql.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
                after()
            return self

        def __getattr__(self, name: str) -> Any:
            return getattr(self._cur, name)

    @contextmanager
    def cursor() -> Iterator[Cursor]:
        with real_cursor() as cur:
            yield Cursor(cur)

    real_page = store.read_page

    def read_page(*args: Any) -> Any:
        answer = real_page(*args)
        after()
        return answer

    store.cursor = cursor  # type: ignore[method-assign]
    store.read_page = read_page  # type: ignore[method-assign]
    try:
        yield done
    finally:
        del store.cursor
        del store.read_page


def answer(client: Any, path: str) -> tuple[int, Any]:
    """The status and body of a read; without the analysis backlog the leaderboard
    carries, which is no figure of the read's snapshot: the store counts it apart, at
    most once a second (``service.api.backlog``)."""
    response = client.get(f"{API}{path}")
    body = response.get_json() if response.is_json else response.get_data()
    if isinstance(body, dict):
        body.pop("analysis", None)
    return response.status_code, body


@pytest.mark.parametrize("mode", MODES)
def test_a_game_committed_during_a_read_is_not_half_seen(make_app, mode):
    """Each read answers as of one moment: the same as before the concurrent commit
    (which came after its first statement), and the commit shows in the next read."""
    app = make_app(RUMMY_STORE_PROCESS=MODES[mode])
    client = app.test_client()
    store = store_of(app)
    first = valid(tournament={"id": TOURNAMENT, "round": 1, "table": "A"})
    assert post_log(client, first).status_code == 201
    # A variant not stored yet for each read (then gin again, four seats, two teams),
    # so that the first read, of the variant statistics, meets a variant it has not
    # counted the games of.
    variants = itertools.chain(
        ((v, 2) for v in PRESETS if v != "gin"), itertools.repeat(("gin", 4)))
    half_seen = []
    for n, (path, (variant, seats)) in enumerate(zip(READS, variants, strict=False), 1):
        before = answer(client, path)
        assert before[0] == 200, (path, before)
        log = new_game(variant, n, seats)
        with write_after_first_query(store, lambda log=log: commit(store, log)) as done:
            during = answer(client, path)
        assert done, f"{path}: no query was sent"
        if during != before:
            half_seen.append(f"{path} ({during[0]})")
        after = answer(client, path)
        assert after[0] == 200 and after != before, f"{path}: the game does not show"
    assert not half_seen, f"reads that saw part of a game committed meanwhile: {half_seen}"


@pytest.mark.parametrize("mode", MODES)
def test_an_export_keeps_to_the_games_of_its_first_page(make_app, monkeypatch, mode):
    """The logs export reads a page per statement; a game committed after the first
    page is in no page (it is newer than all of them), so the walk is one snapshot."""
    app = make_app(RUMMY_STORE_PROCESS=MODES[mode])
    client = app.test_client()
    store = store_of(app)
    for k in range(5):
        assert post_log(client, valid(id=f"old-{k}")).status_code == 201
    monkeypatch.setattr(store_export, "PAGE_SIZE", 2)
    late = valid(id="late")
    with write_after_first_query(store, lambda: commit(store, late)) as done:
        response = client.get(f"{API}/games/export", buffered=False)
        lines = b"".join(response.response).splitlines()
        response.close()
    assert done
    assert [orjson.loads(line)["id"] for line in lines] == [f"old-{k}" for k in range(4, -1, -1)]
    assert orjson.loads(client.get(f"{API}/games/export").data.splitlines()[0])["id"] == "late"


def _games_of_every_variant(count: int) -> list[bytes]:
    """``count`` games per variant, with ana and ben seated and in the tournament (two
    players, and four-seat team gin), in an interleaved order."""
    logs = [[orjson.dumps(new_game(v, 1000 + k, 4 if v == "gin" and k % 3 == 0 else 2))
             for k in range(count)] for v in PRESETS]
    return [log for batch in zip(*logs, strict=True) for log in batch]


def check_consistent(path: str, body: dict[str, Any]) -> None:
    """Figures of one answer that come from different statements agree, as they do in
    one snapshot: a variant's outcomes add up to its scored deals; every game of the
    tournament seats ana and ben, so each has as many counted games in a standings
    table as the table has."""
    if path == "/stats/variants":
        for figures in body["variants"]:
            assert sum(o["count"] for o in figures["outcomes"].values()) \
                == figures["scored_deals"], figures
    elif path.startswith("/tournaments/"):
        assert body["summary"]["games"] == len(body["games"])
        for table in body["standings"]:
            rows = {row["player"]: row for row in table["players"]}
            assert all(rows[p]["games"] == table["games"] for p in PLAYERS), table


@pytest.mark.parametrize("mode", MODES)
def test_statistics_under_concurrent_uploads(make_app, mode):
    """Uploaders keep a game of every variant in flight while readers hammer the
    statistics: no answer is 5xx and each is consistent (no read meets half a commit),
    all in bounded time."""
    app = make_app(RUMMY_STORE_PROCESS=MODES[mode])
    logs = _games_of_every_variant(12)
    uploads = [logs[k::len(PRESETS)] for k in range(len(PRESETS))]  # one a variant each
    statuses: dict[str, list[int]] = {path: [] for path in READS[:4]}
    uploaded: list[int] = []
    failures: list[BaseException] = []
    stop = threading.Event()

    def upload(batch: list[bytes]) -> None:
        client = app.test_client()
        try:
            for raw in batch:
                response = client.post(f"{API}/games", data=raw,
                                       content_type="application/json")
                uploaded.append(response.status_code)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)

    def read(path: str) -> None:
        client = app.test_client()
        try:
            while not stop.is_set():
                response = client.get(f"{API}{path}")
                statuses[path].append(response.status_code)
                if response.status_code == 200:
                    check_consistent(path, response.get_json())
        except BaseException as error:  # noqa: BLE001 - reported by the test
            failures.append(error)

    writers = [threading.Thread(target=upload, args=(batch,)) for batch in uploads]
    readers = [threading.Thread(target=read, args=(path,))
               for path in statuses for _ in range(2)]
    started = time.monotonic()
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=60)
    stop.set()
    for thread in readers:
        thread.join(timeout=30)
    elapsed = time.monotonic() - started
    assert not any(thread.is_alive() for thread in readers + writers), "threads hang"
    assert not failures, failures
    assert uploaded == [201] * len(logs)
    for path, codes in statuses.items():
        assert codes, f"{path} was never read"
        assert all(code < 500 for code in codes), \
            f"{path}: {sum(code >= 500 for code in codes)} of {len(codes)} answered 5xx"
    assert elapsed < 60
    client = app.test_client()
    variants = {v["variant"]: v["games"]
                for v in client.get(f"{API}/stats/variants").get_json()["variants"]}
    assert variants == dict.fromkeys(PRESETS, 12)
    audit = client.get(f"{API}/tournaments/{TOURNAMENT}").get_json()
    assert audit["summary"]["games"] == len(logs)


def test_statements_of_one_read_share_a_transaction(make_app):
    """The rule as the store sees it: of every read endpoint, a cursor that runs more
    than one statement has begun a transaction first.  (In the worker's store: the
    cursor watched here is that store's; the store process runs the same reads.)"""
    app = make_app(RUMMY_STORE_PROCESS="0")
    client = app.test_client()
    store = store_of(app)
    assert post_log(client, valid(tournament={"id": TOURNAMENT, "round": 1})).status_code \
        == 201
    game_id = client.get(f"{API}/games").get_json()["games"][0]["id"]
    runs: list[list[str]] = []
    real_cursor = store.cursor

    class Cursor:
        def __init__(self, cur: Any, statements: list[str]):
            self._cur = cur
            self._statements = statements

        def execute(self, sql: str, *args: Any) -> Cursor:
            self._statements.append(sql.lstrip().split(None, 1)[0].upper())
            self._cur.execute(sql, *args)
            return self

        def __getattr__(self, name: str) -> Any:
            return getattr(self._cur, name)

    @contextmanager
    def cursor() -> Iterator[Cursor]:
        runs.append([])
        with real_cursor() as cur:
            yield Cursor(cur, runs[-1])

    store.cursor = cursor  # type: ignore[method-assign]
    paths = [*READS, "/games/export?format=parquet", f"/games/{game_id}",
             f"/games/{game_id}/log", f"/games/{game_id}/deals/0/moves/-1/state",
             "/healthz", "/metrics", f"/players/{PLAYERS[0]}/stats?variant=gin"]
    try:
        for path in paths:
            runs.clear()
            status = client.get(f"{API}{path}").status_code
            assert status == 200, path
            assert runs, path
            for statements in runs:
                assert len(statements) == 1 or statements[0] == "BEGIN", (path, statements)
    finally:
        del store.cursor

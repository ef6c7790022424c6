"""The DuckDB store on a real file: migrations, idempotent writes, atomicity, filters."""

from __future__ import annotations

import subprocess
import sys
import threading
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from service.engine import parse_game, verify
from service.store import (
    GameFilter,
    Store,
    StoreBusy,
    StoreError,
    StoreLocked,
    build_record,
    game_rows,
    joined,
)
from service.store.migrations import MIGRATIONS
from service.store.remote import RemoteStore
from service.store.rows import GameRow
from tests.engine.test_gin import KNOCK, gin_game

LATEST = MIGRATIONS[-1][0]

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
TABLES = ("games", "game_players", "deals", "deal_players", "moves", "violations")


def record(**changes):
    doc = gin_game(KNOCK) | changes
    game = parse_game(doc)
    return build_record(doc, orjson.dumps(doc), game, verify(game))


@pytest.fixture(params=["here", "own process"])
def store(request, tmp_path):
    """The store opened in this process, and the same reached in a process of its own
    (as the HTTP service runs it): every test holds for both."""
    path = tmp_path / "data" / "rummy.duckdb"
    s = Store(path) if request.param == "here" else RemoteStore(str(path))
    yield s
    s.close()


def test_the_store_checkpoints_at_its_own_threshold(store):
    """DuckDB's 16 MiB made the store checkpoint every few hundred large games; a commit
    leaves its rows in the write-ahead log until the threshold (or the close)."""
    from service.store.db import CHECKPOINT_THRESHOLD

    (setting,) = store.read_many([("SELECT current_setting('checkpoint_threshold')",
                                   [])])[0].rows[0]
    number, unit = setting.split()
    assert CHECKPOINT_THRESHOLD == "256MiB" and (float(number), unit) == (256.0, "MiB")
    store.submit([record()])
    wal = Path(store.path + ".wal")
    assert wal.exists() and wal.stat().st_size > 0  # not checkpointed after the commit


def test_migrations_run_once(tmp_path):
    path = tmp_path / "db.duckdb"
    first = Store(path)
    assert first.schema_version == LATEST
    first.close()
    again = Store(path)
    assert again.schema_version == LATEST
    again.close()


def test_a_store_of_version_10_gains_the_restorations_and_keeps_its_withdrawals(tmp_path):
    """Migration 11 on a file made before it: its withdrawals stay as they were, and its
    games can be restored."""
    import duckdb

    from service.store.migrations import BOOKKEEPING

    path = tmp_path / "db.duckdb"
    Store(path, ratings=False).close()
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE restorations")
    con.execute("DELETE FROM schema_migrations WHERE version = 11")
    con.execute(BOOKKEEPING)
    con.close()
    old = Store(path, read_only=True)
    assert old.schema_version == 10
    old.close()
    with_a_game = Store(path)
    rec = record(id="before")
    with_a_game.add_games([rec])
    at = datetime(2024, 5, 1, tzinfo=UTC)
    with_a_game.delete_game(rec.id, "key-abc", "typo", at)
    with_a_game.close()

    migrated = Store(path)
    assert migrated.schema_version == LATEST == 11
    assert migrated.deletion(rec.id)["reason"] == "typo"
    done = migrated.restore_game(rec.id, "key-def", "no typo", at)
    assert done.outcome == "restored" and done.restoration["deleted_reason"] == "typo"
    assert migrated.get_game(rec.id) is not None and migrated.deletion(rec.id) is None
    migrated.close()


def test_a_restored_game_is_live_and_its_withdrawal_is_kept(store):
    rec = record(id="restored")
    store.add_games([rec])
    at = datetime(2024, 5, 1, 19, 30, tzinfo=UTC)
    later = datetime(2024, 5, 2, tzinfo=UTC)
    assert store.restore_game("0" * 24, "key-abc", "r", later).outcome == "no-game"
    assert store.restore_game(rec.id, "key-abc", "r", later).outcome == "not-withdrawn"
    store.delete_game(rec.id, "key-abc", "typo", at)
    done = store.restore_game(rec.id, "key-def", "no typo", later)
    assert done.outcome == "restored" and done.at_table == []
    assert done.restoration == {
        "id": rec.id, "n": 1, "restored_at": later, "restored_by": "key-def",
        "reason": "no typo", "deleted_at": at, "deleted_by": "key-abc",
        "deleted_reason": "typo", "replaced_by": None}
    assert store.get_game(rec.id) is not None and store.deletion(rec.id) is None
    assert [g["id"] for g in store.list_games(GameFilter(), 10)] == [rec.id]
    # Withdrawn again: a new withdrawal, recorded as the first one was.
    assert store.delete_game(rec.id, "key-abc", "again", later)[1] is True


def test_the_audit_trail_follows_the_order_the_writes_took_effect_in(store):
    """Two requests read the clock before the write lock orders them: a restore whose
    time is before the withdrawal it undoes is stamped just after it, and a withdrawal
    whose time is before the last restoration just after that one."""
    rec = record(id="raced")
    store.add_games([rec])
    early = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    late = datetime(2024, 5, 1, 12, 0, 0, 5, tzinfo=UTC)
    store.delete_game(rec.id, "key-abc", "first", late)
    done = store.restore_game(rec.id, "key-def", "second", early)
    assert done.restoration["restored_at"] == late + timedelta(microseconds=1)
    deletion, created = store.delete_game(rec.id, "key-abc", "third", early)
    assert created and deletion["deleted_at"] == late + timedelta(microseconds=2)
    assert store.deletion(rec.id)["deleted_at"] == deletion["deleted_at"]


def test_a_game_withdrawn_before_its_analysis_is_analysed_once_restored(tmp_path):
    """The analysis catch-up walks the games in upload order; a game restored behind its
    place (withdrawn before it was analysed) is taken again from there."""
    from service.store.analysis import CatchUp, backlog

    store = Store(tmp_path / "db.duckdb")
    try:
        gone, *others = [record(id=f"game-{k}") for k in range(3)]
        store.add_games([gone, *others])
        at = datetime(2024, 5, 1, tzinfo=UTC)
        store.delete_game(gone.id, None, "typo", at)
        store.catchup = catchup = CatchUp(store, processes=0)
        assert catchup.step_all() == 2 and backlog(store) == 0
        assert store.restore_game(gone.id, None, "no typo", at).outcome == "restored"
        assert catchup.backlog() == 1 and backlog(store) == 1
        assert catchup.step_all() == 1 and backlog(store) == 0
    finally:
        store.catchup = None
        store.close()


def test_same_game_is_stored_once(store):
    rec = record()
    assert store.add_games([rec]) == [(rec.id, True)]
    assert store.add_games([rec]) == [(rec.id, False)]
    # Twice in one batch too.
    other = record(id="x")
    assert store.add_games([other, other]) == [(other.id, True), (other.id, False)]
    assert store.count("games") == 2
    assert store.count("moves") == 4
    assert store.count("deal_players") == 4
    # A stored game among new ones: the new ones alone are added, numbered in order.
    third = record(id="y")
    assert store.add_games([rec, third]) == [(rec.id, False), (third.id, True)]
    assert store.count("games") == 3 and store.count("moves") == 6
    with store.cursor() as cur:
        assert cur.execute("SELECT max(seq), count(DISTINCT seq) FROM games").fetchone() == (3, 3)


def test_rows_built_elsewhere_keep_only_the_new_games(store):
    """Rows shipped whole (as a pool process builds them) and joined: a game already
    stored, or twice in the group, keeps none of its rows but the first copy's."""
    first, second, third = record(id="a"), record(id="b"), record(id="c")
    store.add_games([first])
    rows = joined([game_rows([first, second]), game_rows([third, second])])
    assert len(rows) == 4
    assert store.add_games(rows) == [(first.id, False), (second.id, True), (third.id, True),
                                     (second.id, False)]
    assert store.count("games") == 3
    assert store.count("moves") == 3 * len(first.moves)
    assert store.count("deal_players") == 3 * len(first.deal_players)
    with store.cursor() as cur:
        seqs = cur.execute("SELECT source_id, seq FROM games ORDER BY seq").fetchall()
    assert seqs == [("a", 1), ("b", 2), ("c", 3)]


def sample_records():
    """Every sample log as a record: every variant, teams, tournaments, meta, claims,
    illegal, mismatched and incomplete games (violations)."""
    out = []
    for path in sorted(SAMPLES.glob("*.json")):
        raw = path.read_bytes()
        doc = orjson.loads(raw)
        game = parse_game(doc)
        out.append(build_record(doc, raw, game, verify(game), uploader="key-1"))
    return out


def test_appended_rows_equal_arrow_rows(tmp_path):
    """Records go through the appenders, rows built elsewhere through Arrow: both give
    the same tables, value for value."""
    records = sample_records()
    assert {GameRow(*r.games).status for r in records} == {"valid", "illegal", "mismatch", "incomplete"}
    assert all(any(getattr(r, name) for r in records) for name in TABLES)
    appended, from_arrow = Store(tmp_path / "a.duckdb"), Store(tmp_path / "b.duckdb")
    try:
        appended.add_games(records[:3])
        appended.add_games(records[3:])
        from_arrow.add_games(game_rows(records))
        for name in TABLES:
            with appended.cursor() as a, from_arrow.cursor() as b:
                query = f"SELECT * FROM {name} ORDER BY ALL"
                rows = a.execute(query).fetchall()
                assert rows == b.execute(query).fetchall()
                assert len(rows) == sum(len(getattr(r, name)) for r in records) \
                    if name != "games" else len(records)
    finally:
        appended.close()
        from_arrow.close()


def test_records_and_rows_in_one_transaction(tmp_path):
    """A writer's group may hold records and Arrow rows: one transaction for both,
    numbered in order, a game repeated across them stored once."""
    first, second, third = record(id="a"), record(id="b"), record(id="c")
    store = Store(tmp_path / "db.duckdb")
    try:
        answers = store._add([[first, second], game_rows([third, first]), [second]])
        assert answers == [(first.id, True), (second.id, True), (third.id, True),
                           (first.id, False), (second.id, False)]
        assert store.commits == 1
        with store.cursor() as cur:
            assert cur.execute("SELECT source_id, seq FROM games ORDER BY seq").fetchall() \
                == [("a", 1), ("b", 2), ("c", 3)]
        assert store.count("moves") == 3 * len(first.moves)
    finally:
        store.close()


def test_records_and_rows_from_concurrent_requests(store):
    first, second, third = record(id="a"), record(id="b"), record(id="c")
    answers = {}

    def send(name, games):
        answers[name] = store.submit(games)

    threads = [threading.Thread(target=send, args=args)
               for args in (("records", [first, second]), ("rows", game_rows([third, first])))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers["records"] + answers["rows"]) == sorted(
        [(first.id, True), (first.id, False), (second.id, True), (third.id, True)])
    assert store.count("games") == 3 and store.count("moves") == 3 * len(first.moves)
    with store.cursor() as cur:
        assert cur.execute("SELECT count(DISTINCT seq), max(seq) FROM games").fetchone() == (3, 3)


def test_reads(store):
    rec = record(id="mine")
    store.add_games([rec])
    game = store.get_game(rec.id)
    assert game["status"] == "valid" and game["source_id"] == "mine"
    assert orjson.loads(game["report"])["deals"][0]["points"] == {"ana": 19, "ben": 0}
    assert store.get_log(rec.id) == GameRow(*rec.games).log
    assert store.get_game("nope") is None and store.get_log("nope") is None
    assert store.games_by_status() == {"valid": 1}


def test_read_many_answers_every_statement_in_order(store):
    store.add_games([record(id="one"), record(id="two")])
    games, pairs, nothing = store.read_many([
        ("SELECT source_id, status FROM games ORDER BY source_id", []),
        ("SELECT ?::INTEGER AS n, ? AS s", [7, "x"]),
        ("SELECT id FROM games WHERE id = ?", ["nope"]),
    ])
    assert games.columns == ("source_id", "status")
    assert games.rows == [("one", "valid"), ("two", "valid")]
    assert games.dicts() == [{"source_id": "one", "status": "valid"},
                             {"source_id": "two", "status": "valid"}]
    assert pairs.dicts() == [{"n": 7, "s": "x"}]
    assert nothing.rows == [] and nothing.columns == ("id",)
    assert store.read_many([]) == []


def test_read_many_is_a_read_only_transaction(store):
    """A failing statement fails the read as a StoreError; a statement that writes is
    refused; either way no transaction is left open, and the next read answers."""
    store.add_games([record(id="one")])
    with pytest.raises(StoreError, match="nope"):
        store.read_many([("SELECT count(*) FROM games", []), ("SELECT * FROM nope", [])])
    with pytest.raises(StoreError, match="read-only"):
        store.read_many([("DELETE FROM violations", [])])
    [(count,)] = store.read_many([("SELECT count(*) FROM games", [])])[0].rows
    assert count == 1
    store.add_games([record(id="two")])
    assert store.read_many([("SELECT count(*) FROM games", [])])[0].rows == [(2,)]


def test_read_many_reads_one_snapshot(tmp_path):
    """A game committed after the first statement of a read is in none of its
    results (the store in this process: its cursor is wrapped to commit one there)."""
    store = Store(tmp_path / "db.duckdb")
    store.add_games([record(id="one")])
    real_cursor = store.cursor

    class Cursor:
        def __init__(self, cur):
            self._cur = cur
            self.queries = 0

        def execute(self, sql, params=None):
            self._cur.execute(sql, params)
            if sql.startswith("SELECT"):
                self.queries += 1
                if self.queries == 1:
                    store.submit([record(id="two")])
            return self

        def __getattr__(self, name):
            return getattr(self._cur, name)

    @contextmanager
    def cursor():
        with real_cursor() as cur:
            yield Cursor(cur)

    store.cursor = cursor
    try:
        results = store.read_many([(f"SELECT count(*) FROM {table}", []) for table in TABLES])
    finally:
        del store.cursor
    assert [r.rows[0][0] for r in results] == [store.count(t) // 2 for t in TABLES]
    assert store.count("games") == 2
    store.close()


def unstorable(gid):
    """A game whose round is past its INTEGER column (the log format bounds it, so only
    a fault could build it): DuckDB refuses the row when it is inserted."""
    rec = record(id=gid)
    rec.games = GameRow(*rec.games)._replace(tournament_round=2**40)
    return rec


def test_a_game_that_cannot_be_stored_fails_alone(store):
    good, other = record(id="good"), record(id="other")
    bad = record(id="bad")
    bad.deals.append(("bad",))  # a row of the wrong shape
    assert store.add_games([good, bad, other]) == [(good.id, True), (bad.id, None),
                                                   (other.id, True)]
    assert store.count("games") == 2 and store.count("moves") == 2 * len(good.moves)
    # Alone, it raises; the rows buffered before the bad one are not written later.
    with pytest.raises(ValueError):
        store.add_games([bad])
    third = record(id="third")
    assert store.add_games([third]) == [(third.id, True)]
    assert store.count("games") == 3 and store.count("moves") == 3 * len(good.moves)
    # Rows built elsewhere: a refused value among good games.
    a, b, c = record(id="a"), unstorable("b"), record(id="c")
    answers = store.add_games(joined([game_rows([a, b]), game_rows([c, good])]))
    assert answers == [(a.id, True), (b.id, None), (c.id, True), (good.id, False)]
    assert store.count("games") == 5 and store.count("moves") == 5 * len(good.moves)
    with store.cursor() as cur:
        assert cur.execute("SELECT count(*) FROM games WHERE id = ?", [b.id]).fetchone() == (0,)
        assert cur.execute("SELECT max(seq), count(DISTINCT seq) FROM games").fetchone() \
            == (5, 5)


def test_a_refused_game_does_not_fail_requests_committed_with_it(store):
    """Through the writer, requests sent together share a commit: only the game that
    cannot be stored fails."""
    results = {}
    fresh, bad = record(id="fresh"), unstorable("bad")
    start = threading.Barrier(2)

    def send(name, rec):
        start.wait()
        try:
            results[name] = store.submit([rec])
        except Exception as error:
            results[name] = error

    threads = [threading.Thread(target=send, args=(n, r)) for n, r in (("g", fresh), ("b", bad))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["g"] == [(fresh.id, True)]
    assert isinstance(results["b"], ValueError) or results["b"] == [(bad.id, None)]
    assert store.count("games") == 1 and store.count("moves") == len(fresh.moves)


def test_concurrent_submits_all_commit(store):
    records = [record(id=f"g{i}") for i in range(64)]
    out = []

    def send(chunk):
        for rec in chunk:
            out.extend(store.submit([rec]))

    threads = [threading.Thread(target=send, args=(records[k::8],)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out) == sorted((r.id, True) for r in records)
    assert store.count("games") == 64


def test_filters_and_keyset_pages(store):
    for i in range(5):
        store.add_games([record(id=f"g{i}", tournament={"id": "spring" if i % 2 else "fall"})])
    page = store.list_games(GameFilter(), 2)
    assert [g["source_id"] for g in page] == ["g4", "g3"]
    page = store.list_games(GameFilter(), 2, before_seq=page[-1]["seq"])
    assert [g["source_id"] for g in page] == ["g2", "g1"]
    assert len(store.list_games(GameFilter(tournament="spring"), 10)) == 2
    assert len(store.list_games(GameFilter(player="ana", variant="gin"), 10)) == 5
    assert store.list_games(GameFilter(player="ana' OR '1'='1"), 10) == []
    assert store.list_games(GameFilter(status="valid'; DROP TABLE games; --"), 10) == []
    future = datetime(2100, 1, 1, tzinfo=UTC)
    assert store.list_games(GameFilter(since=future), 10) == []
    assert len(store.list_games(GameFilter(until=future), 10)) == 5
    assert store.count("games") == 5


def test_a_second_process_gets_a_clear_error(tmp_path):
    path = tmp_path / "locked.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(30)", str(path)],
        stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"ready"
        with pytest.raises(StoreLocked, match="in use by another process"):
            Store(path)
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize(("part", "whole", "places", "expected"), [
    (133, 8, 2, 16.63), (-133, 8, 2, -16.63), (201, 200, 2, 1.01), (1, 3, 4, 0.3333),
    (2, 3, 4, 0.6667), (7, 8, 4, 0.875), (0, 5, 2, 0.0), (5, 0, 2, 0.0),
    (10**11 * 7 + 5, 10, 0, 70000000001.0),
])
def test_one_rounding_rule_in_python_and_in_sql(part, whole, places, expected):
    """Half away from zero on the exact quotient, the same in both: 1.005 is a binary
    float a hair below 1.005, which DuckDB's round() and Python's both take to 1.0."""
    import duckdb

    from service.store.stats import ratio, ratio_sql

    assert ratio(part, whole, places) == expected
    con = duckdb.connect()
    value = con.execute(f"SELECT {ratio_sql('p', 'w', places)} FROM (VALUES "
                        "(CAST(? AS HUGEINT), CAST(? AS BIGINT))) t(p, w)",
                        [part, whole]).fetchone()[0]
    assert value == expected


def test_a_deleted_game_keeps_its_rows_and_its_first_deletion(store):
    rec = record(id="withdrawn")
    store.add_games([rec])
    at = datetime(2024, 5, 1, 19, 30, tzinfo=UTC)
    deletion = {"id": rec.id, "deleted_at": at, "deleted_by": "key-abc", "reason": "typo"}
    assert store.delete_game(rec.id, "key-abc", "typo", at) == (deletion, True)
    later = datetime(2024, 5, 2, tzinfo=UTC)
    assert store.delete_game(rec.id, "key-def", "other", later) == (deletion, False)
    assert store.delete_game("0" * 24, "key-abc", None, at) is None
    assert store.deletion(rec.id) == deletion and store.deletion("0" * 24) is None
    assert store.get_game(rec.id) is None and store.get_log(rec.id) is None
    assert store.list_games(GameFilter(), 10) == []
    assert store.count("games") == 1 and store.count("moves") == 2  # kept for the audit
    assert store.add_games([rec]) == [(rec.id, False)]  # the log again: still deleted
    assert store.deletion(rec.id) == deletion


def test_past_the_queue_limit_a_write_that_may_be_refused_is(tmp_path):
    """Store opened with no room in its queue, here and in a process of its own (the
    refusal crosses the socket as StoreBusy): a single upload's write is refused, a
    batch's waits its turn."""
    for store in (Store(tmp_path / "here.duckdb", max_queued_games=0),
                  RemoteStore(str(tmp_path / "remote.duckdb"), max_queued_games=0)):
        try:
            with pytest.raises(StoreBusy, match="at most 0"):
                store.submit([record(id="refused")], refuse_when_busy=True)
            assert store.submit([record(id="waits")]) == [(record(id="waits").id, True)]
            assert store.write_health()["queued_games"] == 0
        finally:
            store.close()


def _named(source_id: str, player: str, tournament: str | None):
    doc = gin_game(KNOCK) | {"id": source_id}
    if tournament is not None:
        doc["tournament"] = {"id": tournament}
    text = orjson.dumps(doc).replace(b'"ana"', orjson.dumps(player))
    doc = orjson.loads(text)
    game = parse_game(doc)
    return build_record(doc, text, game, verify(game))


def test_the_names_suggested_are_the_live_ones_most_played_first(store):
    from service.store.db import filter_names

    store.add_games([_named("a", "zoe", "cup"), _named("b", "zoe", "cup"),
                     _named("c", "ana", "open"), _named("d", "gone", "gone-cup")])
    store.delete_game(store.list_games(GameFilter(source_id="d"), 1)[0]["id"], None, None,
                      datetime.now(UTC))
    assert filter_names(store, 10) == {"player": ["ben", "zoe", "ana"],
                                       "tournament": ["cup", "open"]}
    assert filter_names(store, 2) == {"player": ["ben", "zoe"], "tournament": ["cup", "open"]}
    # The players of the latest games only; the tournaments of all of them.
    assert filter_names(store, 10, recent=1) == {"player": ["ana", "ben"],
                                                 "tournament": ["cup", "open"]}


def test_a_name_matched_ignoring_case_and_accents_names_its_stored_spellings(store):
    from service.store.db import spellings

    store.add_games([_named("a", "José", "Été"), _named("b", "jose", "Été"),
                     _named("c", "Zoë", None)])
    assert spellings(store, GameFilter(player="JOSE", tournament="ete")) == {
        "player": ["José", "jose"], "tournament": ["Été"]}
    assert spellings(store, GameFilter(player="jose", tournament="Été")) == {}
    assert spellings(store, GameFilter(player="zoe", variant="gin")) == {"player": ["Zoë"]}
    assert spellings(store, GameFilter(player="nobody")) == {"player": []}
    assert spellings(store, GameFilter(variant="gin")) == {}

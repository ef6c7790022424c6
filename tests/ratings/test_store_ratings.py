"""The store keeps the ratings in step with the games: whatever the order of upload,
the path (single uploads, batches of built rows, a late game, a deletion), the result
is what a recompute from scratch gives; games that do not count change nothing."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from service.ratings.model import DESCRIPTION
from service.store import Store, game_rows

from .helpers import NOT_COUNTED, corpus, dated, history_of, ratings_of, record, sample


@pytest.fixture
def open_store(tmp_path):
    stores: list[Store] = []

    def make(name: str = "db", **kw) -> Store:
        stores.append(Store(tmp_path / f"{name}.duckdb", **kw))
        return stores[-1]

    yield make
    for store in stores:
        store.close()


def assert_recompute_agrees(store: Store) -> None:
    ratings, history = ratings_of(store), history_of(store)
    store.recompute_ratings()
    assert ratings_of(store) == ratings
    assert history_of(store) == history


def test_upload_order_does_not_change_the_ratings(open_store):
    logs = corpus()
    shuffled = logs[:]
    random.Random(3).shuffle(shuffled)
    forward, mixed = open_store("forward"), open_store("mixed")
    forward.submit([record(log) for log in logs])
    late = 0
    for k, log in enumerate(shuffled):  # most arrive late: a replay from their place
        late += any(earlier["played_at"] > log["played_at"] for earlier in shuffled[:k])
        mixed.submit([record(log)])
        mixed.catch_up_ratings()  # as a read of the ratings after each upload does
    # Most replays start within the last games rated, kept in memory; the others (before
    # all of them) read the ratings back from the tables.  Both paths are taken.
    assert 0 < mixed._ratings.replays < late
    assert ratings_of(forward) == ratings_of(mixed)
    assert history_of(forward, with_seq=False) == history_of(mixed, with_seq=False)
    assert len(history_of(forward)) == sum(len(log["players"]) for log in logs)
    assert_recompute_agrees(forward)
    assert_recompute_agrees(mixed)


def test_batches_of_built_rows_rate_as_single_uploads(open_store):
    logs = corpus()
    single, batched = open_store("single"), open_store("batched")
    single.submit([record(log) for log in logs])
    order = logs[:]
    random.Random(5).shuffle(order)
    for start in range(0, len(order), 7):  # a chunk of built rows, as the pool sends
        batched.submit(game_rows([record(log) for log in order[start:start + 7]]))
    assert ratings_of(single) == ratings_of(batched)
    assert history_of(single, with_seq=False) == history_of(batched, with_seq=False)


def test_a_late_game_gives_what_a_recompute_gives(open_store):
    store = open_store()
    store.submit([record(log) for log in corpus()])
    before = ratings_of(store)
    late = dated(sample("gin-01"), -5)  # before every other game
    store.submit([record(late)])
    assert ratings_of(store) != before
    assert_recompute_agrees(store)
    middle = dated(sample("rummy-02"), 17 * 10 + 3)
    store.submit([record(middle)])
    assert_recompute_agrees(store)


def test_games_of_the_same_time_are_rated_in_upload_order(open_store):
    one, two = open_store("one"), open_store("two")
    a, b = dated(sample("gin-01"), 1), dated(sample("gin-02"), 1)
    one.submit([record(a)])
    one.submit([record(b)])
    two.submit([record(b)])
    two.submit([record(a)])
    assert ratings_of(one) != ratings_of(two)  # the order counts, and it is upload order
    assert_recompute_agrees(one)
    assert_recompute_agrees(two)


def test_illegal_and_incomplete_games_change_nothing(open_store):
    store = open_store()
    store.submit([record(log) for log in corpus(copies=1)])
    ratings, history = ratings_of(store), history_of(store)
    for k, name in enumerate(NOT_COUNTED):
        store.submit([record(dated(sample(name), -100 - k))])  # early: would replay
    store.submit(game_rows([record(dated(sample(name), 10**5)) for name in NOT_COUNTED]))
    assert ratings_of(store) == ratings
    assert history_of(store) == history


def test_a_deleted_game_counts_for_nothing(open_store):
    logs = corpus()
    store, without = open_store("store"), open_store("without")
    gone = record(logs[5])
    store.submit([record(log) for log in logs])
    without.submit([record(log) for log in logs if log is not logs[5]])
    store.delete_game(gone.id, "tester", "wrong table", gone.games[2])
    assert ratings_of(store) == ratings_of(without)
    assert history_of(store, with_seq=False) == history_of(without, with_seq=False)
    assert_recompute_agrees(store)
    last = record(logs[-1])  # the last game of its pool, and the only game of some players
    store.delete_game(last.id, None, None, last.games[2])
    assert_recompute_agrees(store)


def test_a_restored_game_counts_as_if_never_withdrawn(open_store):
    logs = corpus()
    store, never = open_store("store"), open_store("never")
    store.submit([record(log) for log in logs])
    never.submit([record(log) for log in logs])
    for log in (logs[5], logs[-1], logs[0]):  # early, the last of its pool, the first
        gone = record(log)
        store.delete_game(gone.id, "tester", "wrong table", gone.games[2])
        assert store.restore_game(gone.id, "tester", "right table",
                                  gone.games[2]).outcome == "restored"
        assert ratings_of(store) == ratings_of(never)
        assert history_of(store) == history_of(never)
        assert_recompute_agrees(store)
    # Two withdrawn, one restored: as if only the other one had been withdrawn.
    first, second = record(logs[3]), record(logs[7])
    store.delete_game(first.id, None, None, first.games[2])
    store.delete_game(second.id, None, None, second.games[2])
    never.delete_game(second.id, None, None, second.games[2])
    store.restore_game(first.id, None, "r", first.games[2])
    assert ratings_of(store) == ratings_of(never)
    assert_recompute_agrees(store)


def test_a_player_whose_only_game_is_deleted_has_no_rating(open_store):
    store = open_store()
    log = dated(sample("gin-3p"), 1)
    store.submit([record(log)])
    assert {row[1] for row in ratings_of(store) if row[0] == "gin"} == {"ana", "ben", "cleo"}
    gone = record(log)
    store.delete_game(gone.id, None, None, gone.games[2])
    assert ratings_of(store) == [] and history_of(store) == []


def test_ratings_are_computed_when_a_store_opens_with_stale_ones(tmp_path):
    path = tmp_path / "db.duckdb"
    logs = corpus(copies=1)
    loading = Store(path, ratings=False)  # a bulk load: no ratings as it goes
    loading.submit([record(log) for log in logs])
    assert ratings_of(loading) == []
    loading.close()
    store = Store(path)
    try:
        assert len(history_of(store)) == sum(len(log["players"]) for log in logs)
        ratings = ratings_of(store)
        with store.cursor() as cur:  # a model changed since: computed again at the start
            cur.execute("UPDATE rating_model SET description = 'another model'")
            cur.execute("DELETE FROM rating_history")
    finally:
        store.close()
    store = Store(path)
    try:
        assert ratings_of(store) == ratings
        with store.cursor() as cur:
            assert cur.execute("SELECT description FROM rating_model").fetchall() == [
                (DESCRIPTION,)]
    finally:
        store.close()


def test_games_of_the_same_second_are_rated_in_upload_order_without_a_replay(open_store):
    store = open_store()
    first = sample("gin-01") | {"played_at": "2024-03-01T10:00:00.900Z"}
    second = sample("gin-02") | {"played_at": "2024-03-01T10:00:00.100Z"}  # earlier
    store.submit([record(first)])
    store.catch_up_ratings()  # the first rated before the second is stored
    store.submit([record(second)])
    store.catch_up_ratings()
    assert store._ratings.replays == 0
    with store.cursor() as cur:
        order = [gid for (gid,) in cur.execute(
            "SELECT game_id FROM rating_history WHERE player = 'ana' ORDER BY games"
        ).fetchall()]
    assert order == [record(first).id, record(second).id]
    assert_recompute_agrees(store)


def test_the_catch_up_rates_committed_games_after_its_hold_without_a_read(open_store):
    store = open_store(rating_hold=0.05)
    logs = corpus(copies=1)
    store.submit([record(log) for log in logs])
    deadline = time.monotonic() + 10  # bounded: a catch-up that never runs fails here
    while store.rating_health()["backlog"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.rating_health()["backlog"] == 0
    assert store.rating_health()["rated"] == len(logs)
    with store.cursor() as cur:  # read without catching up: rated by the thread
        rows = cur.execute("SELECT count(*) FROM rating_history").fetchone()[0]
    assert rows == sum(len(log["players"]) for log in logs)


def test_games_left_unrated_by_an_ended_process_are_rated_when_the_store_opens(
        open_store, tmp_path):
    logs = corpus(copies=1)
    path = tmp_path / "ended.duckdb"
    first = Store(path)
    first.submit([record(log) for log in logs[:5]])
    first.close()  # rated at close
    # A process that stores the rest and ends before its catch-up's hold is over.
    script = (
        "import os, sys, orjson\n"
        "from service.store import Store\n"
        "from tests.ratings.helpers import record\n"
        "store = Store(sys.argv[1], rating_hold=3600)\n"
        "store.submit([record(log) for log in orjson.loads(sys.stdin.buffer.read())])\n"
        "assert store.rating_health()['backlog'] > 0\n"
        "store._con.close()\n"
        "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", script, str(path)], input=orjson.dumps(logs[5:]),
                   check=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    reopened = open_store("ended")
    assert reopened.rating_health()["backlog"] == len(logs) - 5
    expected = open_store("whole")
    expected.submit([record(log) for log in logs])
    assert ratings_of(reopened) == ratings_of(expected)
    assert history_of(reopened) == history_of(expected)
    assert_recompute_agrees(reopened)


@pytest.mark.parametrize("hours", [10**5, 17 * 10 + 5, -5],
                         ids=["after every game", "among them", "before every game"])
def test_a_replaced_game_is_rated_once_as_if_uploaded_in_its_place(open_store, hours):
    """A replacement stores the new game and withdraws the old one at once: the ratings
    then are those of a store that never held the old game, the new one rated once,
    wherever it falls in time, and later uploads and reads keep working."""
    logs = corpus()
    store, without = open_store("store"), open_store("without")
    gone = next(k for k, log in enumerate(logs) if log["variant"] == "gin" and k > 3)
    old = record(logs[gone])  # the same pool as the new game: its replay could see it
    new = record(dated(sample("gin-02"), hours))
    store.submit([record(log) for log in logs])
    store.catch_up_ratings()
    without.submit([record(log) for log in logs if log is not logs[gone]] + [new])
    store.replace_game(new, old.id, "director", "corrected", old.games[2])
    assert ratings_of(store) == ratings_of(without)
    assert history_of(store, with_seq=False) == history_of(without, with_seq=False)
    assert_recompute_agrees(store)
    after = record(dated(sample("gin-01"), 2 * 10**5))
    store.submit([after])
    without.submit([after])
    assert ratings_of(store) == ratings_of(without)

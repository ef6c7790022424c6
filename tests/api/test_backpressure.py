"""Back-pressure: with the writer held (its write lock taken by the test, as a long
commit holds it), single uploads queue up to RUMMY_MAX_QUEUED_GAMES games, the next is
refused at once with 503 store-busy and Retry-After, batches still queue, /healthz
answers at once with the depth, and everything queued is stored once the writer goes on.

The writer is held for real only where the store is in this process (the store
process's lock cannot be taken from here): RUMMY_STORE_PROCESS=0."""

from __future__ import annotations

import threading
import time

import pytest

from .helpers import API, assert_problem, ndjson, post_log, store_of, valid

LIMIT = 3


@pytest.fixture
def held(make_app):
    """An app whose store's writer is held until ``release`` is set."""
    app = make_app(RUMMY_STORE_PROCESS="0", RUMMY_MAX_QUEUED_GAMES=str(LIMIT))
    store = store_of(app)
    release = threading.Event()
    store._write_lock.acquire()

    def let_go() -> None:
        release.wait(60)
        store._write_lock.release()

    waiter = threading.Thread(target=let_go)
    waiter.start()
    yield app, release
    release.set()
    waiter.join()


def wait_queued(app, games: int) -> None:
    deadline = time.monotonic() + 30
    while store_of(app).write_health()["queued_games"] < games:
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.mark.parametrize("store_process", ["0"])
def test_a_deep_queue_refuses_single_uploads_at_once(held):
    app, release = held
    answers: list[int] = []

    def upload(k: int) -> None:
        answers.append(post_log(app.test_client(), valid(id=f"queued-{k}")).status_code)

    queued = [threading.Thread(target=upload, args=(k,)) for k in range(LIMIT)]
    for thread in queued:
        thread.start()
    wait_queued(app, LIMIT)

    client = app.test_client()
    start = time.monotonic()
    refused = post_log(client, valid(id="one-too-many"))
    assert time.monotonic() - start < 1.0  # refused, not queued behind the writer
    problem = assert_problem(refused, 503, "store-busy")
    assert refused.headers["Retry-After"] == "1"
    assert f"at most {LIMIT}" in problem["detail"]

    start = time.monotonic()
    health = client.get(f"{API}/healthz")
    assert time.monotonic() - start < 1.0
    assert health.status_code == 200
    writes = health.get_json()["writes"]
    assert writes["queued_games"] == LIMIT and writes["max_queued_games"] == LIMIT

    batch: list[str] = []
    batcher = threading.Thread(target=lambda: batch.append(client.post(
        f"{API}/games/batch", data=ndjson(valid(id="batched-0"), valid(id="batched-1")),
        content_type="application/x-ndjson").get_data(as_text=True)))
    batcher.start()
    wait_queued(app, LIMIT + 2)  # a batch is never refused: it waits its turn

    release.set()
    for thread in [*queued, batcher]:
        thread.join(60)
    assert sorted(answers) == [201] * LIMIT
    assert batch[0].count('"created":true') == 2
    assert store_of(app).write_health()["queued_games"] == 0
    assert post_log(client, valid(id="one-too-many")).status_code == 201  # room again
    games = client.get(f"{API}/games?limit=50").get_json()["games"]
    assert len(games) == LIMIT + 3

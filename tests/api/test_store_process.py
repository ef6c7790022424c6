"""The app as served: its store in a process of its own (the default)."""

from __future__ import annotations

from service.store.migrations import MIGRATIONS

from .helpers import API, lines_of, ndjson, post_log, store_of, valid

LATEST = MIGRATIONS[-1][0]


def test_uploads_and_reads_through_the_store_process(make_app):
    app = make_app(RUMMY_STORE_PROCESS="1")
    client = app.test_client()
    first = post_log(client, valid(id="one"))
    assert first.status_code == 201
    game_id = first.get_json()["id"]
    assert post_log(client, valid(id="one")).status_code == 200  # stored once
    assert client.get(f"{API}/games/{game_id}").get_json()["source_id"] == "one"
    assert client.get(f"{API}/games?limit=5").get_json()["games"][0]["id"] == game_id
    health = client.get(f"{API}/healthz").get_json()
    assert health["writes"]["last_commit"] == "ok" and health["writes"]["reason"] is None
    del health["writes"]
    assert health.pop("analysis")["backlog"] == 1  # RUMMY_ANALYSIS is off in these tests
    assert health.pop("ratings")["running"] is True  # rated by the store process's catch-up
    assert health == {"status": "ok", "database": "ok", "schema_version": LATEST}
    metrics = client.get(f"{API}/metrics").get_data(as_text=True)
    assert "rummy_store_games_committed_total 1" in metrics
    assert "rummy_store_commits_total 1" in metrics


def test_batch_lines_are_stored_by_the_pool_processes_themselves(make_app):
    """With a pool, each process writes its rows to the store process directly; the
    answers keep line order, duplicates and bad lines included."""
    app = make_app(RUMMY_STORE_PROCESS="1", RUMMY_VERIFY_PROCESSES="2", RUMMY_BATCH_CHUNK="4")
    client = app.test_client()
    logs = [valid(id=f"g{i}") for i in range(7)]
    body = ndjson(*logs[:3], b"{not json", logs[1], *logs[3:])
    response = client.post(f"{API}/games/batch", data=body,
                           content_type="application/x-ndjson")
    results = lines_of(response)
    assert [r["line"] for r in results] == list(range(1, 10))
    assert results[3]["error"]["type"] == "/problems/validation-error"
    assert [r.get("created") for r in results] == [True, True, True, None, False,
                                                   True, True, True, True]
    store = store_of(app)
    assert store.count("games") == 7 and store.games_committed == 7
    ids = {r["id"] for r in results if "id" in r}
    assert all(client.get(f"{API}/games/{gid}").status_code == 200 for gid in ids)


def test_batch_lines_answer_503_when_the_store_process_is_gone(make_app):
    app = make_app(RUMMY_STORE_PROCESS="1", RUMMY_VERIFY_PROCESSES="2")
    store = store_of(app)
    store._process.kill()
    store._process.join()
    response = app.test_client().post(f"{API}/games/batch",
                                      data=ndjson(valid(id="a"), valid(id="b")),
                                      content_type="application/x-ndjson")
    results = lines_of(response)
    assert [r["error"]["type"] for r in results] == ["/problems/database-unavailable"] * 2
    assert b"Traceback" not in response.data
    client = app.test_client()
    assert client.get(f"{API}/healthz").status_code == 503
    metrics = client.get(f"{API}/metrics")
    assert metrics.status_code == 200 and "rummy_database_up 0" in metrics.get_data(as_text=True)
    assert client.get(f"{API}/games").status_code == 503

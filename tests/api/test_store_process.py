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


def _ratings_walk(client) -> list[dict]:
    rows, path = [], f"{API}/ratings?limit=500"
    while path:
        body = client.get(path).get_json()
        rows.extend({k: v for k, v in row.items() if k != "last_played"}  # the upload's time
                    for row in body["ratings"])
        path = body["next"]
    return rows


def test_the_same_batch_rates_the_same_whatever_the_pool_does(make_app):
    """A batch's games without ``played_at`` share one upload time and are numbered in
    line order, however the pool's processes split and finish its parts: the same batch
    stored into fresh databases gives the same ratings every time.  (Before, each game
    took its upload time as its process judged it and was numbered in the order the
    parts finished: the ratings differed from one database to the next.)"""
    import orjson

    from service.generator import generate_games

    names = [f"p{k}" for k in range(12)]
    logs = [orjson.dumps(g) for g in generate_games("gin", 360, seed=71, players=2,
                                                     rules={"deals": 1}, names=names)]
    body = b"\n".join(logs) + b"\n"
    walks, histories = [], []
    for _ in range(4):
        app = make_app(RUMMY_STORE_PROCESS="1", RUMMY_VERIFY_PROCESSES="2",
                       RUMMY_BATCH_CHUNK="30")
        client = app.test_client()
        results = lines_of(client.post(f"{API}/games/batch", data=body,
                                       content_type="application/x-ndjson"))
        assert all(r.get("created") is True for r in results), results[:3]
        walks.append(_ratings_walk(client))
        history = client.get(f"{API}/players/p0/ratings?limit=500").get_json()["history"]
        histories.append([{k: v for k, v in entry.items() if k != "game_time"}
                          for entry in history])
    assert walks[0] and histories[0]
    assert all(walk == walks[0] for walk in walks[1:])
    assert all(history == histories[0] for history in histories[1:])

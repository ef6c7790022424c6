"""The app as served: its store in a process of its own (the default)."""

from __future__ import annotations

from .helpers import API, post_log, valid


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
    assert health == {"status": "ok", "database": "ok", "schema_version": 1}
    metrics = client.get(f"{API}/metrics").get_data(as_text=True)
    assert "rummy_store_games_committed_total 1" in metrics
    assert "rummy_store_commits_total 1" in metrics

"""API keys: writes need RUMMY_API_KEYS when set, reads RUMMY_READ_KEYS when set."""

from __future__ import annotations

import pytest

from service.api.auth import uploader_label

from .helpers import API, assert_problem, counts, ndjson, post_log, store_of, valid

WRITE, READ = "w-secret-1", "r-secret-9"


@pytest.fixture
def guarded(make_app):
    return make_app(RUMMY_API_KEYS=f"other-key, {WRITE}")


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_writes_need_a_key(guarded):
    client = guarded.test_client()
    missing = assert_problem(post_log(client, valid()), 401, "unauthorized")
    assert "Bearer" in missing["detail"]
    response = post_log(client, valid())
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    for header in ("Basic dXNlcjpwYXNz", "Bearer", "Bearer ", WRITE):
        assert_problem(post_log(client, valid(), headers={"Authorization": header}), 401,
                       "unauthorized")
    assert_problem(post_log(client, valid(), headers=bearer("wrong")), 403, "forbidden")
    assert_problem(post_log(client, valid(), headers=bearer(WRITE + "x")), 403, "forbidden")
    batch = client.post(f"{API}/games/batch", data=ndjson(valid()),
                        content_type="application/x-ndjson")
    assert_problem(batch, 401, "unauthorized")
    assert counts(guarded)["games"] == 0


def test_the_uploader_is_a_hash_of_the_key_never_the_key(guarded):
    client = guarded.test_client()
    response = post_log(client, valid(), headers=bearer(WRITE))
    assert response.status_code == 201
    game = client.get(response.get_json()["links"]["self"]).get_json()
    assert game["uploader"] == uploader_label(WRITE) != uploader_label("other-key")
    assert WRITE not in str(store_of(guarded).get_game(game["id"]))
    batch = client.post(f"{API}/games/batch", data=ndjson(valid(id="b")),
                        content_type="application/x-ndjson", headers=bearer("other-key"))
    gid = batch.get_json(force=True)["id"]
    assert client.get(f"{API}/games/{gid}").get_json()["uploader"] == uploader_label("other-key")


def test_reads_are_open_without_read_keys(guarded):
    client = guarded.test_client()
    post_log(client, valid(), headers=bearer(WRITE))
    assert client.get(f"{API}/games").status_code == 200
    assert client.get(f"{API}/variants").status_code == 200


def test_read_keys_guard_reads(make_app):
    app = make_app(RUMMY_API_KEYS=WRITE, RUMMY_READ_KEYS=READ)
    client = app.test_client()
    gid = post_log(client, valid(), headers=bearer(WRITE)).get_json()["id"]
    paths = ["/games", f"/games/{gid}", f"/games/{gid}/log",
             f"/games/{gid}/deals/0/moves/0/state", "/variants"]
    for path in paths:
        assert_problem(client.get(API + path), 401, "unauthorized")
        assert_problem(client.get(API + path, headers=bearer("nope")), 403, "forbidden")
        assert client.get(API + path, headers=bearer(READ)).status_code == 200
        assert client.get(API + path, headers=bearer(WRITE)).status_code == 200
    # A read key does not write.
    assert_problem(post_log(client, valid(id="x"), headers=bearer(READ)), 403, "forbidden")
    # Operations endpoints stay open.
    for path in ("/healthz", "/metrics", "/openapi.json", "/docs"):
        assert client.get(API + path).status_code == 200


def test_the_key_is_checked_before_the_body(guarded):
    client = guarded.test_client()
    response = client.post(f"{API}/games", data=b"x", content_type="text/plain")
    assert_problem(response, 401, "unauthorized")

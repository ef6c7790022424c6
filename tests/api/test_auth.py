"""API keys: writes need RUMMY_API_KEYS when set, reads RUMMY_READ_KEYS when set."""

from __future__ import annotations

import hashlib
import hmac
import stat

import pytest

from service.api import close_app
from service.api.config import Settings

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


def uploader(client, response) -> str:
    """The recorded uploader of the game an upload (single or batch) answered."""
    body = response.get_json(force=True)
    return client.get(f"{API}/games/{body['id']}").get_json()["uploader"]


def test_the_uploader_of_a_bare_key_is_a_keyed_hash_never_the_key(guarded):
    client = guarded.test_client()
    response = post_log(client, valid(), headers=bearer(WRITE))
    assert response.status_code == 201
    label = uploader(client, response)
    assert label.startswith("key-") and len(label) == 4 + 16
    assert WRITE not in str(store_of(guarded).get_game(response.get_json()["id"]))
    # Not the plain hash of the key, which a guess of a weak key would reproduce.
    assert label[4:] not in hashlib.sha256(WRITE.encode()).hexdigest()
    batch = client.post(f"{API}/games/batch", data=ndjson(valid(id="b")),
                        content_type="application/x-ndjson", headers=bearer("other-key"))
    other = uploader(client, batch)
    assert other.startswith("key-") and other != label


def test_named_keys_are_recorded_by_their_names(make_app, tmp_path):
    app = make_app(RUMMY_API_KEYS=f"ci-loader:{WRITE}, club.desk:k:with:colons, bare-key")
    client = app.test_client()
    assert uploader(client, post_log(client, valid(), headers=bearer(WRITE))) == "ci-loader"
    # The name ends at the first colon: the rest, colons and all, is the key.
    named = post_log(client, valid(id="2"), headers=bearer("k:with:colons"))
    assert uploader(client, named) == "club.desk"
    assert_problem(post_log(client, valid(id="3"), headers=bearer("ci-loader")), 403,
                   "forbidden")
    assert_problem(post_log(client, valid(id="3"), headers=bearer(f"ci-loader:{WRITE}")),
                   403, "forbidden")
    assert uploader(client, post_log(client, valid(id="4"),
                                     headers=bearer("bare-key"))).startswith("key-")


def test_named_read_keys_read(make_app):
    client = make_app(RUMMY_API_KEYS=f"writer:{WRITE}",
                      RUMMY_READ_KEYS=f"dashboard:{READ}").test_client()
    assert client.get(f"{API}/games", headers=bearer(READ)).status_code == 200
    assert client.get(f"{API}/games", headers=bearer(WRITE)).status_code == 200
    assert_problem(client.get(f"{API}/games", headers=bearer("dashboard")), 403, "forbidden")
    assert_problem(post_log(client, valid(), headers=bearer(READ)), 403, "forbidden")


def _label_of_a_fresh_app(make_app, db, **config) -> str:
    """Start an app on ``db``, upload with the bare key WRITE, close it: the label."""
    from .conftest import _build

    app = _build(db, RUMMY_API_KEYS=WRITE, **config)
    try:
        client = app.test_client()
        response = post_log(client, valid(id=f"g{len(str(config))}"), headers=bearer(WRITE))
        return uploader(client, response)
    finally:
        close_app(app)


def test_keyed_labels_are_stable_across_restarts_and_differ_between_secrets(make_app,
                                                                            tmp_path):
    db = tmp_path / "data" / "rummy.duckdb"
    first = _label_of_a_fresh_app(make_app, db)
    assert _label_of_a_fresh_app(make_app, db) == first  # the kept secret is read back
    other_db = tmp_path / "other" / "rummy.duckdb"
    assert _label_of_a_fresh_app(make_app, other_db) != first  # another secret
    given = "a-label-secret-of-the-operator"
    labelled = _label_of_a_fresh_app(make_app, tmp_path / "third" / "rummy.duckdb",
                                     RUMMY_LABEL_SECRET=given)
    expected = hmac.new(given.encode(), WRITE.encode(), hashlib.sha256).hexdigest()[:16]
    assert labelled == "key-" + expected
    assert _label_of_a_fresh_app(make_app, tmp_path / "fourth" / "rummy.duckdb",
                                 RUMMY_LABEL_SECRET=given + "2") != labelled


def test_the_generated_secret_is_kept_beside_the_database_for_its_owner_only(make_app,
                                                                              tmp_path):
    db = tmp_path / "data" / "rummy.duckdb"
    secret = db.with_name("rummy.duckdb.label-secret")
    _label_of_a_fresh_app(make_app, db)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert len(bytes.fromhex(secret.read_text().strip())) == 32
    assert [p.name for p in secret.parent.iterdir() if "label-secret" in p.name] \
        == [secret.name]  # no draft left behind
    # Named keys alone need no secret: none is made.
    from .conftest import _build

    close_app(_build(tmp_path / "named" / "rummy.duckdb", RUMMY_API_KEYS=f"ci:{WRITE}"))
    assert not (tmp_path / "named" / "rummy.duckdb.label-secret").exists()


def test_a_damaged_secret_file_stops_the_start(tmp_path):
    from .conftest import _build

    db = tmp_path / "rummy.duckdb"
    db.with_name("rummy.duckdb.label-secret").write_text("not hex\n")
    with pytest.raises(ValueError, match="label-secret is not a label secret"):
        _build(db, RUMMY_API_KEYS=WRITE)


@pytest.mark.parametrize(("value", "message"), [
    (":s3cr3t-a", "entry 1: the name before ':'"),
    ("ok:s3cr3t-a, bad name:s3cr3t-b", "entry 2: a key must be printable and without spaces"),
    ("ci:", "entry 1: the key after 'ci:' is empty"),
    ("-ci:s3cr3t-a", "the name before ':'"),
    ("ci:s3cr3t-a,ci:s3cr3t-b", "the name 'ci' is given to two different keys"),
    ("a:s3cr3t-a,b:s3cr3t-a", "one key is listed under two names"),
])
def test_a_malformed_key_list_stops_the_start_with_its_reason(value, message):
    with pytest.raises(ValueError, match=message) as raised:
        Settings.load(environ={"RUMMY_API_KEYS": value})
    assert "RUMMY_API_KEYS" in str(raised.value)
    assert "s3cr3t" not in str(raised.value)  # the message never shows a key


def test_a_short_label_secret_stops_the_start(tmp_path):
    from .conftest import _build

    with pytest.raises(ValueError, match="RUMMY_LABEL_SECRET must have at least 16"):
        _build(tmp_path / "rummy.duckdb", RUMMY_API_KEYS=WRITE, RUMMY_LABEL_SECRET="short")


def test_keys_never_appear_in_the_settings_repr():
    settings = Settings.load(environ={"RUMMY_API_KEYS": f"ci:{WRITE},{READ}",
                                      "RUMMY_LABEL_SECRET": "a-label-secret-of-the-operator"})
    assert WRITE not in repr(settings) and READ not in repr(settings)
    assert "operator" not in repr(settings)


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

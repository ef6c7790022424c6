"""Every error is an RFC 9457 problem; unexpected ones are logged, never shown."""

from __future__ import annotations

import logging
import re

import orjson
import pytest

from service.api import problems
from service.store import StoreError

from .helpers import API, assert_problem, ndjson, post_log, store_of, valid


@pytest.mark.parametrize("path", ["/nope", f"{API}/", f"{API}/gamez", f"{API}/games/",
                                  f"{API}/docs/assets/index.html",
                                  f"{API}/docs/assets/..%2F..%2Fsetup.py"])
def test_unknown_routes_are_404(shared_client, path):
    assert_problem(shared_client.get(path), 404, "not-found")


@pytest.mark.parametrize(("method", "path"), [
    ("delete", "/games"), ("put", "/games"), ("delete", "/games/abc/log"),
    ("post", "/variants"), ("post", "/healthz"), ("patch", "/games/abc"),
])
def test_wrong_methods_are_405_with_allow(shared_client, method, path):
    response = getattr(shared_client, method)(API + path)
    assert_problem(response, 405, "method-not-allowed")
    assert set(response.headers["Allow"].split(", ")) & {"GET", "POST"}


def _sample_path(rule: str) -> str:
    """A path the rule matches: each variable part filled with a value of its kind."""
    return re.sub(r"<(?:(\w+)(?:\([^)]*\))?:)?\w+>",
                  lambda m: "0" if m.group(1) == "int" else "abc", rule)


def test_options_allows_exactly_the_methods_of_the_path(shared_app):
    """Every route: OPTIONS lists the methods of the rules written for that path, and
    no other (GET of /games/{id} was listed for /games/batch)."""
    client = shared_app.test_client()
    by_rule: dict[str, set[str]] = {}
    for rule in shared_app.url_map.iter_rules():
        by_rule.setdefault(rule.rule, set()).update(rule.methods or ())
    for rule, methods in by_rule.items():
        path = _sample_path(rule)
        response = client.options(path)
        assert response.status_code == 200, path
        assert set(response.headers["Allow"].split(", ")) == methods, path
    assert set(client.options(f"{API}/games/batch").headers["Allow"].split(", ")) == {
        "POST", "OPTIONS"}


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("get", "/games/batch", {"POST", "OPTIONS"}),
    ("put", "/games/batch", {"POST", "OPTIONS"}),
    ("post", "/games/export", {"GET", "HEAD", "OPTIONS"}),
    ("post", "/games/abc", {"GET", "HEAD", "DELETE", "OPTIONS"}),
])
def test_405_allows_exactly_the_methods_of_the_path(shared_client, method, path, allowed):
    response = getattr(shared_client, method)(API + path)
    assert_problem(response, 405, "method-not-allowed")
    assert set(response.headers["Allow"].split(", ")) == allowed


def test_only_the_names_of_the_routes_beside_a_game_are_no_game_ids(shared_app):
    adapter = shared_app.url_map.bind("localhost")
    for game in ("abc", "batchx", "xbatch", "exports", "0123456789abcdef01234567"):
        assert adapter.match(f"{API}/games/{game}", method="GET") == (
            "games.get_game", {"game_id": game})
    assert adapter.match(f"{API}/games/batch", method="POST")[0] == "batch.upload_batch"
    assert adapter.match(f"{API}/games/export", method="GET")[0] == "export.export_games"


def test_unexpected_exception_is_500_logged_not_shown(app, client, monkeypatch, caplog):
    def explode(game_id):
        raise RuntimeError("secret internals: password=hunter2")

    monkeypatch.setattr(store_of(app), "get_game", explode)
    with caplog.at_level(logging.ERROR):
        response = client.get(f"{API}/games/abc")
    problem = assert_problem(response, 500, "internal-error")
    assert "secret" not in response.get_data(as_text=True)
    assert "secret" not in problem["detail"]
    assert any(record.exc_info and "secret internals" in str(record.exc_info[1])
               for record in caplog.records)


def test_database_errors_are_503(app, client, monkeypatch):
    def down(records, refuse_when_busy=False):
        raise StoreError("disk full")

    monkeypatch.setattr(store_of(app), "submit", down)
    response = post_log(client, valid())
    assert_problem(response, 503, "database-unavailable")
    assert "disk" not in response.get_data(as_text=True)


def test_batch_line_survives_an_engine_bug(app, client, monkeypatch):
    from service.api import verifier

    real = verifier.check_log

    def flaky(text, limit):
        if b'"boom"' in text:
            raise ValueError("engine bug")
        return real(text, limit)

    monkeypatch.setattr(verifier, "check_log", flaky)
    body = ndjson(valid(id="boom"), valid(id="fine"))
    results = client.post(f"{API}/games/batch", data=body,
                          content_type="application/x-ndjson").get_data(as_text=True)
    assert '"/problems/internal-error"' in results and '"created":true' in results
    assert "engine bug" not in results


def test_problem_types_are_stable_relative_uris():
    for kind in problems.PROBLEM_TYPES:
        assert problems.type_uri(kind) == f"/problems/{kind}"
        assert kind == kind.lower() and " " not in kind
    assert problems.kind_of_status(418) == "http-418"


def test_a_batch_chunk_the_store_refuses_gets_error_lines_and_the_rest_goes_on(make_app,
                                                                             monkeypatch):
    app = make_app(RUMMY_BATCH_CHUNK=2)
    store = store_of(app)
    real, calls = store.submit, []

    def fail_first(records):
        calls.append(len(records))
        if len(calls) == 1:
            raise StoreError("disk full")
        return real(records)

    monkeypatch.setattr(store, "submit", fail_first)
    body = ndjson(*[valid(id=f"g{i}") for i in range(4)])
    response = app.test_client().post(f"{API}/games/batch", data=body,
                                      content_type="application/x-ndjson")
    results = [orjson.loads(line) for line in response.data.splitlines()]
    assert [r["error"]["type"] for r in results[:2]] == ["/problems/database-unavailable"] * 2
    assert [r["created"] for r in results[2:]] == [True, True]
    assert store.count("games") == 2 and b"disk" not in response.data

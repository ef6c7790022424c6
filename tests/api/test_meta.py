"""/variants, /healthz, /metrics, /openapi.json and /docs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.api.games_schemas import EXAMPLE_ID, EXAMPLE_LOG, EXAMPLE_REPORT
from service.engine import parse_game, verify
from service.engine.rules import OPTIONS, PRESETS
from service.store import game_id
from service.store.migrations import MIGRATIONS
from service.store.rating_catchup import HOLD

from .helpers import API, assert_problem, illegal, post_log, store_of, valid

LATEST = MIGRATIONS[-1][0]


def test_variants_lists_every_preset_with_its_options(client):
    response = client.get(f"{API}/variants")
    assert response.status_code == 200
    variants = {v["name"]: v for v in response.get_json()["variants"]}
    assert set(variants) == {"rummy", "rummy-pagat", "rummy-block", "gin", "greek"}
    gin = variants["gin"]
    assert (gin["family"], gin["min_players"], gin["max_players"]) == ("gin", 2, 4)
    assert gin["defaults"]["knock_limit"] == 10 and gin["defaults"]["target"] == 100
    options = {o["name"]: o for o in gin["options"]}
    assert "rummy_bonus" not in options and "ace" in options
    assert options["knock_limit"] == {
        "name": "knock_limit", "kind": "int", "description": OPTIONS["knock_limit"].description,
        "source": "001", "default": 10, "minimum": 0, "maximum": 10, "nullable": False,
        "choices": []}
    greek = variants["greek"]
    assert greek["defaults"]["ace"] == "high_or_low" and greek["defaults"]["ace_points"] == 11
    rummy = {o["name"]: o for o in variants["rummy"]["options"]}
    assert rummy["melds_per_turn"]["choices"] == [1, "unlimited"]
    assert variants["rummy"]["defaults"]["melds_per_turn"] == "unlimited"
    for name, variant in variants.items():
        family = PRESETS[name].family
        assert {o["name"] for o in variant["options"]} == {
            spec.name for spec in OPTIONS.values() if spec.family in ("both", family)}
        assert all(o["description"] and o["source"] for o in variant["options"])


def test_healthz(client):
    response = client.get(f"{API}/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "database": "ok", "schema_version": LATEST,
                                   "writes": {"last_commit": None, "at": None, "reason": None,
                                              "queued": 0, "queued_games": 0,
                                              "max_queued_games": 2000},
                                   "analysis": {"running": False, "backlog": 0, "analysed": 0,
                                                "failed": 0, "last_error": None, "paused": 0},
                                   "ratings": {"running": True, "backlog": 0, "rated": 0,
                                               "hold_seconds": HOLD, "failures": 0,
                                               "last_error": None}}


@pytest.mark.parametrize("store_process", ["0", "1"])
def test_healthz_is_degraded_while_writes_fail(make_app, store_process):
    """Writes made to fail for real: the write-ahead log's path taken by a folder, so
    DuckDB cannot open it at commit.  Reads go on; healthz says degraded (503) with the
    failure, and ok again once a commit succeeds."""
    app = make_app(RUMMY_STORE_PROCESS=store_process)
    client = app.test_client()
    assert post_log(client, valid(id="before")).status_code == 201
    assert client.get(f"{API}/healthz").get_json()["writes"]["last_commit"] == "ok"
    store = store_of(app)
    with store.cursor() as cur:
        cur.execute("CHECKPOINT")  # the log folded into the file, and removed
    wal = Path(store.path + ".wal")
    assert not wal.exists()
    wal.mkdir()
    try:
        assert_problem(post_log(client, valid(id="during")), 503, "database-unavailable")
        health = client.get(f"{API}/healthz")
        problem = assert_problem(health, 503, "degraded")
        assert health.headers["Retry-After"] == "5"
        assert problem["health"] == "degraded" and problem["database"] == "ok"
        writes = problem["writes"]
        assert writes["last_commit"] == "failed" and "wal" in writes["reason"]
        assert writes["at"].endswith("Z") and writes["queued"] == 0
        assert client.get(f"{API}/games").status_code == 200  # reads go on
    finally:
        wal.rmdir()
    assert post_log(client, valid(id="after")).status_code == 201
    recovered = client.get(f"{API}/healthz")
    assert recovered.status_code == 200 and recovered.get_json()["status"] == "ok"
    assert recovered.get_json()["writes"]["last_commit"] == "ok"


def test_healthz_says_degraded_while_the_ratings_fail_and_ok_once_they_recover(make_app):
    """The rating history made unreachable for real (renamed under the store): games are
    still stored and read, a read of the ratings fails, healthz says degraded with the
    error; the table back, the next read rates what waited and healthz is ok again."""
    app = make_app(RUMMY_STORE_PROCESS="0")
    client = app.test_client()
    assert post_log(client, valid(id="before")).status_code == 201
    assert client.get(f"{API}/ratings").status_code == 200
    store = store_of(app)
    with store.cursor() as cur:
        cur.execute("ALTER TABLE rating_history RENAME TO rating_history_away")
    try:
        assert post_log(client, valid(id="during")).status_code == 201
        assert client.get(f"{API}/ratings").status_code >= 500
        health = client.get(f"{API}/healthz")
        assert health.status_code == 200
        body = health.get_json()
        assert body["status"] == "degraded" and body["ratings"]["failures"] == 1
        assert "rating_history" in body["ratings"]["last_error"]["error"]
        assert body["ratings"]["last_error"]["at"].endswith("Z")
        assert client.get(f"{API}/games").status_code == 200  # reads go on
    finally:
        with store.cursor() as cur:
            cur.execute("ALTER TABLE rating_history_away RENAME TO rating_history")
    ratings = client.get(f"{API}/ratings")
    assert ratings.status_code == 200
    assert {row["player"] for row in ratings.get_json()["ratings"]} == {"ana", "ben"}
    recovered = client.get(f"{API}/healthz").get_json()
    assert recovered["status"] == "ok" and recovered["ratings"]["failures"] == 0
    assert recovered["ratings"]["backlog"] == 0


def test_healthz_is_503_when_the_database_fails(app, client, monkeypatch):
    def broken(timeout=None):
        raise RuntimeError("connection lost")

    monkeypatch.setattr(store_of(app), "check", broken)
    problem = assert_problem(client.get(f"{API}/healthz"), 503, "database-unavailable")
    assert problem["database"] == "unavailable"
    assert "connection lost" not in str(problem)


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of an exposition, read by prometheus-client's own parser: by name and
    labels (in any order, as Prometheus reads them)."""
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_count_requests_and_stored_games(client):
    post_log(client, valid())
    post_log(client, illegal())
    client.get(f"{API}/games")
    client.get("/nope")
    client.get(f"{API}/games/abc")
    response = client.get(f"{API}/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = response.get_data(as_text=True)
    found = samples(text)

    def value(name: str, **labels: str) -> float | None:
        return found.get((name, frozenset(labels.items())))

    assert value("rummy_http_requests_total", method="POST", endpoint="/api/v1/games",
                 status="201") == 2
    assert value("rummy_http_requests_total", method="GET", endpoint="unmatched",
                 status="404") == 1
    assert value("rummy_http_requests_total", method="GET", endpoint="/api/v1/games/{game_id}",
                 status="404") == 1
    assert "# TYPE rummy_http_request_duration_seconds histogram" in text
    assert value("rummy_http_request_duration_seconds_bucket", method="POST",
                 endpoint="/api/v1/games", le="+Inf") == 2
    assert value("rummy_games_stored", status="valid") == 1
    assert value("rummy_games_stored", status="illegal") == 1
    assert value("rummy_database_up") == 1
    label = r'[a-z_]+="(?:[^"\\\n]|\\.)*"'
    sample = re.compile(rf"[a-z_]+(\{{{label}(,{label})*\}})? [0-9.e+-]+")
    for line in text.splitlines():  # every sample line is "name{labels} number"
        if not line.startswith("#"):
            assert sample.fullmatch(line), line


def test_metrics_methods_are_bounded(client):
    client.open(f"{API}/games", method="BREW")
    text = client.get(f"{API}/metrics").get_data(as_text=True)
    assert 'method="other"' in text and "BREW" not in text


def test_openapi_documents_every_path(app, client):
    spec = client.get(f"{API}/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    documented = set(spec["paths"])
    routes = {re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
              for rule in app.url_map.iter_rules()
              if rule.endpoint.split(".")[0] not in ("docs", "root_docs", "root", "static", "web",
                                                        "api-docs")}
    assert routes == documented
    assert {"/api/v1/games", "/api/v1/games/batch", "/api/v1/games/{game_id}",
            "/api/v1/games/{game_id}/log",
            "/api/v1/games/{game_id}/deals/{deal}/moves/{move}/state", "/api/v1/variants",
            "/api/v1/healthz", "/api/v1/metrics", "/api/v1/players",
            "/api/v1/players/{player}/stats", "/api/v1/players/{a}/versus/{b}",
            "/api/v1/stats/variants"} <= documented
    upload = spec["paths"]["/api/v1/games"]["post"]
    assert set(upload["responses"]) >= {"200", "201", "413", "415", "422"}
    assert upload["requestBody"]["content"]["application/json"]["example"] == EXAMPLE_LOG
    assert upload["responses"]["201"]["content"]["application/json"]["example"]["report"] \
        == EXAMPLE_REPORT
    assert upload["security"] == [{"bearerAuth": []}, {}]  # writes open: no key needed
    problem = spec["components"]["responses"]["NOT_FOUND"]["content"]
    assert "application/problem+json" in problem
    assert "bearerAuth" in spec["components"]["securitySchemes"]
    batch = spec["paths"]["/api/v1/games/batch"]["post"]
    assert "application/x-ndjson" in batch["requestBody"]["content"]
    assert "application/x-ndjson" in batch["responses"]["200"]["content"]


def test_the_documented_example_is_true():
    assert game_id(EXAMPLE_LOG) == EXAMPLE_ID
    assert verify(parse_game(EXAMPLE_LOG)).to_dict() == EXAMPLE_REPORT


def test_docs_page_and_assets_are_served_locally(client):
    page = client.get(f"{API}/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html  # no CDN
    urls = re.findall(r'(?:src|href|data-spec-url)="([^"]+)"', html)
    assert f"{API}/openapi.json" in urls
    assert any(url.endswith("swagger-ui-bundle.js") for url in urls)
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert len(response.data) > 50
    init = client.get(f"{API}/docs/init.js").get_data(as_text=True)
    assert "validatorUrl: null" in init
    assert_problem(client.get(f"{API}/docs/assets/oauth2-redirect.html"), 404, "not-found")


def test_root_paths_lead_to_the_document_and_the_page(client):
    for path, target in (("/openapi.json", f"{API}/openapi.json"), ("/docs", f"{API}/docs")):
        response = client.get(path)
        assert response.status_code == 308 and response.headers["Location"].endswith(target)
    assert client.get("/openapi.json", follow_redirects=True).get_json()["openapi"]


def test_the_api_root_is_an_index_of_links(client):
    response = client.get(API)
    assert response.status_code == 200 and response.mimetype == "application/json"
    index = response.get_json()
    links = index["links"]
    spec = client.get(f"{API}/openapi.json").get_json()
    assert {"games", "players", "variants", "variant_stats", "tournament", "openapi",
            "docs"} <= set(links)
    for name, link in links.items():
        href = link["href"]
        assert href.startswith(API) and link["title"]
        assert link["templated"] == ("{" in href)
        if name in ("openapi", "docs"):
            assert client.get(href).status_code == 200, name
        else:  # every other link is a documented path of the API
            assert href in spec["paths"], name
            if not link["templated"] and "get" in spec["paths"][href]:
                assert client.get(href).status_code == 200, name
    assert API in spec["paths"]  # the index documents itself


def test_the_site_root_redirects_to_the_api_for_now(client):
    response = client.get("/")
    assert response.status_code == 302  # not permanent: a web app is to own / later
    assert response.headers["Location"].endswith(API)
    assert client.get("/", follow_redirects=True).get_json()["links"]["games"]["href"] \
        == f"{API}/games"


def test_the_document_says_what_the_server_takes(make_app):
    """A client that keeps to the document is not refused: each constraint the server
    checks is in the schema (regressions of requests the old document allowed)."""
    open_app = make_app()
    spec = open_app.test_client().get(f"{API}/openapi.json").get_json()
    paths = spec["paths"]

    def query(path: str, name: str, method: str = "get") -> dict:
        return next(p["schema"] for p in paths[path][method]["parameters"] if p["name"] == name)

    def path_parameter(path: str, name: str) -> dict:
        return next(p["schema"] for p in paths[path]["parameters"] if p["name"] == name)

    games, board = f"{API}/games", f"{API}/players"
    assert query(games, "cursor")["minLength"] == 1 and query(games, "cursor")["pattern"]
    assert query(board, "cursor")["minLength"] == 1
    assert query(games, "limit")["maximum"] == 500 and query(games, "limit")["minimum"] == 1
    for name in ("since", "until"):
        bound = query(games, name)
        assert bound["pattern"].startswith("^(19") and {"format": "date"} in bound["anyOf"]
    versus = f"{board}/{{a}}/versus/{{b}}"
    for path, name in ((f"{board}/{{player}}/stats", "player"), (versus, "a"), (versus, "b")):
        assert path_parameter(path, name) == {"type": "string", "minLength": 1, "maxLength": 64}
    assert path_parameter(f"{API}/tournaments/{{tournament_id}}", "tournament_id")["minLength"] \
        == 1
    state = f"{API}/games/{{game_id}}/deals/{{deal}}/moves/{{move}}/state"
    assert path_parameter(state, "move")["minimum"] == -1
    assert path_parameter(state, "deal")["minimum"] == 0
    log = spec["components"]["schemas"]["Log"]["properties"]
    assert log["players"]["minItems"] == 2 and log["deals"]["minItems"] == 1
    # Open writes: no credentials needed, and the document says so; set keys: needed.
    assert paths[games]["post"]["security"] == [{"bearerAuth": []}, {}]
    guarded = make_app(RUMMY_API_KEYS="ci:k3y", RUMMY_MAX_PAGE_SIZE="80")
    guarded_spec = guarded.test_client().get(f"{API}/openapi.json").get_json()
    assert guarded_spec["paths"][games]["post"]["security"] == [{"bearerAuth": []}]
    assert guarded_spec["paths"][games]["get"]["security"] == [{"bearerAuth": []}, {}]
    limit = next(p for p in guarded_spec["paths"][games]["get"]["parameters"]
                 if p["name"] == "limit")
    assert limit["schema"]["maximum"] == 80


def test_head_to_head_of_a_player_with_themself_is_zero_games(client):
    """The document cannot say 'two different players'; the server takes it and answers
    the truth: a player never sits opposite themself."""
    post_log(client, valid())
    response = client.get(f"{API}/players/ana/versus/ana")
    assert response.status_code == 200
    assert response.get_json()["games"] == 0

"""``import`` of an audit, and the lake: the same API statistics as uploading the same
logs through ``/games/batch``, and the same figures read over the Parquet directly; a
log given twice counted once; an audit's analysis imported and served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from service import loader
from service.api import close_app, create_app
from service.api.config import STORE_EXTENSION
from service.audit import audit
from service.cli import main
from service.store import Store
from service.store.analysis import CatchUp, backlog
from service.store.lake import LakeStore, import_lake
from service.store.stats import StatsFilter, leaderboard, player_stats, variant_stats
from tests.api.conftest import DEFAULTS

from .conftest import AT, CORRUPT

GAMES = 36


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    """Games as load-synthetic draws them (every preset, options, tournaments, play
    times), a few corrupt lines among them."""
    plan = loader.LoadPlan(9, loader.MIXED, names=12)  # four tournament games
    lines = [orjson.dumps(loader.make_document(plan.job(i), plan.seed)) for i in range(GAMES)]
    lines[5:5] = CORRUPT[:2]
    path = tmp_path_factory.mktemp("mixed") / "mixed.ndjson"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.fixture(scope="module")
def audited(mixed, cluster_client, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lake") / "out"
    result = audit([str(mixed)], str(out), client=cluster_client, shard_size=5, uploaded_at=AT)
    assert not result.failed and result.games == GAMES
    return out


def _app(path: Path):
    return create_app({**DEFAULTS, "RUMMY_DB": str(path), "TESTING": True})


def _figures(client) -> dict[str, Any]:
    """Every statistic of the API over the stored games."""
    def get(url: str) -> Any:
        response = client.get(f"/api/v1{url}")
        assert response.status_code == 200, (url, response.data)
        return response.get_json()

    board = get("/players?sort=wins&min_games=0&limit=500")
    # How far the analysis has got is no statistic of the games: a lake audited without
    # analysis keeps none (null), a store counts the games it has not analysed yet.
    board.pop("analysis")
    players = [row["player"] for row in board["players"]]
    out = {"leaderboard": board, "variants": get("/stats/variants"),
           "tournaments": get("/tournaments?limit=100"),
           "games": [(g["id"], g["status"], g["winner"])
                     for g in get("/games?limit=500")["games"]]}
    for p in players:
        out[f"player {p}"] = get(f"/players/{p}/stats")
    assert len(players) >= 2, board
    a, b = players[:2]
    versus = get(f"/players/{a}/versus/{b}")
    for game in versus["recent"]:
        game.pop("game_time", None)  # the upload time of a game without played_at differs
    out["versus"] = versus
    for t in out["tournaments"]["tournaments"]:
        out[f"tournament {t['id']}"] = get(f"/tournaments/{t['id']}")
    return out


def test_import_gives_the_statistics_of_a_batch_upload(mixed, audited, tmp_path):
    imported = tmp_path / "imported.duckdb"
    store = Store(imported)
    result = import_lake(store, audited)
    again = import_lake(store, audited)
    store.close()
    assert (result.games, result.errors) == (GAMES, 2)
    assert (again.games, again.skipped) == (0, GAMES)

    uploaded = _app(tmp_path / "uploaded.duckdb")
    answer = uploaded.test_client().post("/api/v1/games/batch", data=mixed.read_bytes(),
                                         content_type="application/x-ndjson")
    lines = [orjson.loads(line) for line in answer.data.splitlines()]
    assert sum("id" in line for line in lines) == GAMES
    app = _app(imported)
    try:
        ours, theirs = _figures(app.test_client()), _figures(uploaded.test_client())
        assert ours["tournaments"]["tournaments"] and len(ours) > 10
        assert ours == theirs
    finally:
        close_app(app)
        close_app(uploaded)


def test_the_import_command(audited, tmp_path, capsys):
    db = tmp_path / "rummy.duckdb"
    assert main(["import", str(audited), "--db", str(db)]) == 0
    assert f"{GAMES} games stored" in capsys.readouterr().out
    assert main(["import", str(audited), "--db", str(db)]) == 0
    assert f"0 games stored, {GAMES} stored before" in capsys.readouterr().out
    assert main(["import", str(tmp_path), "--db", str(db)]) == 2
    assert "no audit results" in capsys.readouterr().err


def test_the_lake_answers_as_the_imported_store(audited, tmp_path):
    store = Store(tmp_path / "imported.duckdb")
    import_lake(store, audited)
    lake = LakeStore(audited)
    try:
        assert lake.games_by_status() == store.games_by_status()
        assert variant_stats(lake) == variant_stats(store)
        everyone = StatsFilter()
        board = leaderboard(store, everyone, "wins", "desc", 0, 500)
        assert leaderboard(lake, everyone, "wins", "desc", 0, 500) == board
        for row in board:
            assert player_stats(lake, row["player"], everyone) == \
                player_stats(store, row["player"], everyone)
        assert [g["id"] for g in lake.list_games(loader_filter(), 500)] == \
            [g["id"] for g in store.list_games(loader_filter(), 500)]
    finally:
        lake.close()
        store.close()


def loader_filter():
    from service.store import GameFilter

    return GameFilter()


def test_the_service_serves_a_lake_read_only(mixed, audited, tmp_path):
    store = Store(tmp_path / "imported.duckdb")
    import_lake(store, audited)
    store.close()
    imported = _app(tmp_path / "imported.duckdb")
    served = create_app({**DEFAULTS, "RUMMY_LAKE": str(audited), "TESTING": True})
    try:
        client = served.test_client()
        assert _figures(client) == _figures(imported.test_client())
        health = client.get("/api/v1/healthz")
        assert health.status_code == 200 and health.get_json()["writes"]["queued"] == 0
        metrics = client.get("/api/v1/metrics")
        assert metrics.status_code == 200 and b'status="valid"' in metrics.data
        first = mixed.read_bytes().split(b"\n")[0]
        for method, url, body in (("POST", "/games", first), ("POST", "/games/batch", first),
                                  ("DELETE", f"/games/{_figures(client)['games'][0][0]}", b"")):
            answer = client.open(f"/api/v1{url}", method=method, data=body,
                                 content_type="application/json")
            assert answer.status_code == 405, (method, url)
            assert answer.get_json()["type"] == "/problems/read-only"
            assert answer.headers["Allow"] == "GET, HEAD, OPTIONS"
    finally:
        close_app(served)
        close_app(imported)


@pytest.fixture(scope="module")
def doubled(mixed, cluster_client, tmp_path_factory) -> Path:
    """The mixed logs given twice (the same file under two names), audited with
    ``--analyse``."""
    folder = tmp_path_factory.mktemp("doubled")
    for name in ("mixed.ndjson", "again.ndjson"):
        (folder / name).write_bytes(mixed.read_bytes())
    out = tmp_path_factory.mktemp("lake") / "doubled"
    result = audit([str(folder)], str(out), client=cluster_client, shard_size=5,
                   uploaded_at=AT, analyse=True)
    assert not result.failed and result.games == 2 * GAMES
    return out


def _analysis(client, players: list[str]) -> dict[str, Any]:
    """Every player's analysis figures and the integrity screen's pairs."""
    out = {}
    for p in players:
        answer = client.get(f"/api/v1/players/{p}/analysis")
        out[p] = (answer.status_code, answer.get_json())
    pairs = client.get("/api/v1/integrity/pairs?min_games=1&limit=500")
    assert pairs.status_code == 200, pairs.get_json()
    out["pairs"] = pairs.get_json()
    assert out["pairs"]["pairs"]
    return out


def test_a_log_given_twice_counts_once_and_the_analysis_comes_along(mixed, doubled, tmp_path):
    """The doubled audit, imported and served as a lake, answers as the single one and,
    for the analysis, as uploading the logs once and letting the catch-up finish."""
    store = Store(tmp_path / "imported.duckdb")
    result = import_lake(store, doubled)
    assert (result.games, result.duplicates, result.skipped) == (GAMES, GAMES, 0)
    assert result.rows["analysis_games"] == GAMES and result.rows["analysis_facts"] > 0
    assert backlog(store) == 0  # nothing left for the store's catch-up
    store.close()
    lake = LakeStore(doubled)
    try:
        assert len(lake.duplicates()) == GAMES and lake.holds_analyses
        assert sum(lake.games_by_status().values()) == GAMES
    finally:
        lake.close()

    uploaded = _app(tmp_path / "uploaded.duckdb")
    apps = [uploaded, _app(tmp_path / "imported.duckdb"),
            create_app({**DEFAULTS, "RUMMY_LAKE": str(doubled), "TESTING": True})]
    try:
        client = uploaded.test_client()
        answer = client.post("/api/v1/games/batch", data=mixed.read_bytes(),
                             content_type="application/x-ndjson")
        assert answer.status_code == 200
        # the store's catch-up, stepped here until it is done (as its thread does)
        assert CatchUp(uploaded.extensions[STORE_EXTENSION], processes=0).step_all() == GAMES
        figures = _figures(client)
        players = [row["player"] for row in figures["leaderboard"]["players"]]
        expected = _analysis(client, players)
        assert any(code == 200 for code, _ in list(expected.values())[:-1])
        for app in apps[1:]:  # the doubled audit, imported, and served where it lies
            assert _figures(app.test_client()) == figures
            assert _analysis(app.test_client(), players) == expected
    finally:
        for app in apps:
            close_app(app)


def test_the_commands_report_a_log_given_twice(doubled, tmp_path, capsys):
    db = tmp_path / "rummy.duckdb"
    assert main(["import", str(doubled), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"{GAMES} games stored, 0 stored before, {GAMES} given again" in out
    assert f"{GAMES} analyses stored" in out

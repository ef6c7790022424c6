"""``load-synthetic``: generated, verified games into a store, directly or over HTTP.

Small loads (tens of games) so the whole file runs in seconds; the command line runs as
a real subprocess, as a user would run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest

from service.engine import parse_game, verify
from service.generator import PLAYER_NAMES, generate_game
from service.loader import MIXED, LoadPlan, load_direct, name_pool
from tests.e2e.server import Server

ROOT = Path(__file__).resolve().parent.parent
GAMES = 30


def cli(*args: str, timeout: float = 300, env: dict | None = None
        ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service", "load-synthetic", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def game_ids(db: Path) -> list[str]:
    return [gid for (gid,) in rows(db, "SELECT id FROM games ORDER BY seq")]


# --------------------------------------------------------------------------- direct mode

def test_direct_mode_stores_exactly_the_games_asked_for(tmp_path):
    db = tmp_path / "direct.duckdb"
    result = cli("--games", str(GAMES), "--variant", "gin", "--seed", "3", "--db", str(db),
                 "--processes", "2")
    assert result.returncode == 0, result.stderr
    assert f"loaded {GAMES} games ({GAMES} new)" in result.stdout
    assert "games/s" in result.stderr  # progress, at least the final line
    assert rows(db, "SELECT count(*), count(DISTINCT id) FROM games") == [(GAMES, GAMES)]
    assert rows(db, "SELECT DISTINCT status FROM games") == [("valid",)]
    assert rows(db, "SELECT DISTINCT variant FROM games") == [("gin",)]
    deals, players = rows(db, "SELECT sum(n_deals), sum(n_players) FROM games")[0]
    assert rows(db, "SELECT count(*) FROM deals") == [(deals,)]
    assert rows(db, "SELECT count(*) FROM game_players") == [(players,)]
    assert rows(db, "SELECT count(*) FROM violations") == [(0,)]
    # Every stored log is the game as generated: it verifies valid again.
    for (log,) in rows(db, "SELECT log FROM games LIMIT 5"):
        assert verify(parse_game(orjson.loads(log))).status == "valid"


def test_same_seed_same_games_and_a_second_load_adds_nothing(tmp_path):
    plan = LoadPlan(seed=7, variant=MIXED)
    first, second = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    result = load_direct(plan, 12, first, chunk=5, processes=1)
    assert (result.games, result.created) == (12, 12)
    assert result.deals == rows(first, "SELECT sum(n_deals) FROM games")[0][0]
    load_direct(LoadPlan(seed=7, variant=MIXED), 12, second, processes=1)
    assert game_ids(first) == game_ids(second)
    again = load_direct(plan, 12, first, processes=1)
    assert (again.games, again.created) == (12, 0)
    assert rows(first, "SELECT count(*) FROM games") == [(12,)]
    other = tmp_path / "c.duckdb"
    load_direct(LoadPlan(seed=8, variant=MIXED), 12, other, processes=1)
    assert not set(game_ids(other)) & set(game_ids(first))


def test_mixed_mode_varies_presets_players_and_draws_from_the_name_pool(tmp_path):
    db = tmp_path / "mixed.duckdb"
    result = cli("--games", "40", "--mixed", "--seed", "1", "--names", "15", "--db", str(db),
                 "--processes", "2")
    assert result.returncode == 0, result.stderr
    variants = dict(rows(db, "SELECT variant, count(*) FROM games GROUP BY variant"))
    assert sum(variants.values()) == 40
    assert len(variants) >= 3, variants
    counts = {n for (n,) in rows(db, "SELECT DISTINCT n_players FROM games")}
    assert len(counts) >= 3, counts
    players = {p for (p,) in rows(db, "SELECT DISTINCT player FROM game_players")}
    assert players <= set(name_pool(15))
    assert len(players) > 6  # more than one table's worth: drawn, not the fixed names
    assert rows(db, "SELECT count(*) FROM games WHERE played_at IS NOT NULL")[0][0] >= 30
    assert rows(db, "SELECT DISTINCT status FROM games") == [("valid",)]
    assert len({r for (r,) in rows(db, "SELECT rules FROM games")}) > 10  # house rules


def test_plans_have_tournaments_and_dates_within_the_year():
    plan = LoadPlan(seed=5, variant=MIXED)
    jobs = [plan.job(i) for i in range(2000)]
    assert jobs[17] == LoadPlan(seed=5, variant=MIXED).job(17)
    in_tournaments = [j for j in jobs if j.tournament is not None]
    assert 50 <= len(in_tournaments) <= 160  # about 5%
    ids = {j.tournament["id"] for j in in_tournaments}
    assert 2 <= len(ids) <= 6
    for tid in ids:  # a tournament keeps its variant, table size and roster
        games = [j for j in in_tournaments if j.tournament["id"] == tid]
        assert len({(j.variant, j.players, j.names) for j in games}) == 1
        assert all(j.tournament["round"] >= 1 and j.tournament["table"] for j in games)
    dates = sorted(j.played_at for j in jobs if j.played_at)
    assert len(dates) > 1800
    assert dates[0].startswith("2025-0") and dates[-1].startswith("2025-12")
    assert {j.variant for j in jobs} == {"gin", "rummy", "rummy-pagat", "rummy-block", "greek"}
    single = LoadPlan(seed=5, variant="greek", players=3, names=10)
    assert {(single.job(i).variant, single.job(i).players) for i in range(50)} == {("greek", 3)}


def test_bad_arguments_exit_1(tmp_path):
    result = cli("--games", "3", "--variant", "canasta", "--db", str(tmp_path / "x.duckdb"))
    assert result.returncode == 1
    assert "canasta" in result.stderr
    result = cli("--games", "3", "--variant", "greek", "--players", "6",
                 "--db", str(tmp_path / "x.duckdb"))
    assert result.returncode == 1
    result = cli("--games", "3", "--names", "3", "--db", str(tmp_path / "x.duckdb"))
    assert result.returncode == 1
    assert "names" in result.stderr


def test_a_held_database_file_is_a_clear_error_exit_2(tmp_path):
    db = tmp_path / "held.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, duckdb\n"
         f"con = duckdb.connect({str(db)!r})\nprint('ready', flush=True)\nsys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        result = cli("--games", "3", "--db", str(db), timeout=120)
    finally:
        holder.communicate("", timeout=30)
    assert result.returncode == 2, result.stderr
    assert str(db) in result.stderr
    assert "--url" in result.stderr and "server" in result.stderr
    assert "Traceback" not in result.stderr


# --------------------------------------------------------------------------- HTTP mode

@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path / "served.duckdb").start()
    yield running
    running.stop()


def test_http_mode_stores_the_games_through_the_service(server, tmp_path):
    url = f"http://127.0.0.1:{server.port}"
    result = cli("--games", str(GAMES), "--mixed", "--seed", "4", "--url", url,
                 "--batch", "8", "--processes", "2")
    assert result.returncode == 0, result.stderr
    assert f"loaded {GAMES} games ({GAMES} new)" in result.stdout
    status, page = server.get_json("/api/v1/games?limit=100")
    assert status == 200
    assert len(page["games"]) == GAMES
    assert {g["status"] for g in page["games"]} == {"valid"}
    # The same games as a direct load of the same seed.
    direct = tmp_path / "direct.duckdb"
    load_direct(LoadPlan(seed=4, variant=MIXED), GAMES, direct, processes=1)
    assert {g["id"] for g in page["games"]} == set(game_ids(direct))
    again = cli("--games", str(GAMES), "--mixed", "--seed", "4", "--url", url)
    assert again.returncode == 0, again.stderr
    assert f"({0} new)" in again.stdout


def test_http_mode_sends_the_key_of_rummy_client_key(tmp_path):
    """The client's key has a variable of its own: RUMMY_API_KEYS is the server's list
    (name:key entries), which a client cannot send as it is."""
    guarded = Server(tmp_path / "guarded.duckdb",
                     env={"RUMMY_API_KEYS": "synthetic:s3cret-loader-key"}).start()
    try:
        url = f"http://127.0.0.1:{guarded.port}"
        args = ("--games", "2", "--variant", "gin", "--url", url, "--processes", "1")
        refused = cli(*args, env={"RUMMY_CLIENT_KEY": ""})
        assert refused.returncode == 1 and "401" in refused.stderr
        result = cli(*args, env={"RUMMY_CLIENT_KEY": "s3cret-loader-key"})
        assert result.returncode == 0, result.stderr
        _, page = guarded.get_json("/api/v1/games")
        uploaders = {guarded.get_json(f"/api/v1/games/{g['id']}")[1]["uploader"]
                     for g in page["games"]}
        assert len(page["games"]) == 2 and uploaders == {"synthetic"}
    finally:
        guarded.stop()


def test_http_mode_reports_an_unreachable_service(tmp_path):
    result = cli("--games", "2", "--url", "http://127.0.0.1:9", "--processes", "1")
    assert result.returncode == 1
    assert "failed" in result.stderr


# --------------------------------------------------------------------------- the generator

def test_generator_draws_players_from_a_pool_and_passes_context_through():
    pool = name_pool(40)
    plain = generate_game("rummy", (3, 1), 4)
    named = generate_game("rummy", (3, 1), 4, names=pool, tournament={"id": "cup", "round": 2},
                          played_at="2025-05-01T19:30:00Z")
    assert plain["players"] == list(PLAYER_NAMES[:4])
    assert len(set(named["players"])) == 4 and set(named["players"]) <= set(pool)
    assert named["tournament"] == {"id": "cup", "round": 2}
    assert named["played_at"] == "2025-05-01T19:30:00Z"
    assert verify(parse_game(named)).status == "valid"
    # The same cards and moves: only the names differ.
    rename = dict(zip(plain["players"], named["players"], strict=True))
    assert [d["moves"][0]["a"] for d in plain["deals"]] == \
        [d["moves"][0]["a"] for d in named["deals"]]
    assert [d["upcard"] for d in plain["deals"]] == [d["upcard"] for d in named["deals"]]
    assert [rename[d["dealer"]] for d in plain["deals"]] == [d["dealer"] for d in named["deals"]]
    assert generate_game("rummy", (3, 1), 4, names=pool) == \
        generate_game("rummy", (3, 1), 4, names=pool)
    assert generate_game("rummy", (3, 2), 4, names=pool)["players"] != named["players"]


def test_partnership_gin_teams_follow_the_drawn_players():
    log = generate_game("gin", 9, 4, names=name_pool(30))
    a, b, c, d = log["players"]
    assert log["teams"] == [[a, c], [b, d]]
    assert set(log["claimed"]["totals"]) == {a, b, c, d, f"{a}+{c}", f"{b}+{d}"}
    assert verify(parse_game(log)).status == "valid"


def test_generator_refuses_bad_pools_and_context():
    with pytest.raises(ValueError):
        generate_game("rummy", 1, 5, names=["ana", "ben", "ana", "cleo"])  # 3 distinct
    with pytest.raises(ValueError):
        generate_game("gin", 1, 2, names=["ana", ""])
    with pytest.raises(ValueError):
        generate_game("gin", 1, 2, names="anaben")
    with pytest.raises(ValueError):
        generate_game("gin", 1, 2, played_at="yesterday")
    with pytest.raises(ValueError):
        generate_game("gin", 1, 2, tournament={"name": "cup"})

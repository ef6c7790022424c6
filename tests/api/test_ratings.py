"""GET /ratings, /players/{p}/ratings, /predict and the leaderboard's sort=rating: what
they answer is what the store keeps (tested in tests/ratings), paged without loss, and
every bad parameter is a problem."""

from __future__ import annotations

import math

import pytest

from service.store.ratings import counted_games
from tests.ratings.helpers import NOT_COUNTED, corpus, dated, renamed, sample

from .helpers import API, assert_problem, lines_of, ndjson, post_log, store_of

BETA = 25 / 6


@pytest.fixture(scope="module")
def loaded(shared_app):
    """The shared store with every counted sample three times, and the others once."""
    client = shared_app.test_client()
    logs = corpus(copies=3) + [dated(sample(name), 5) for name in NOT_COUNTED]
    response = client.post(f"{API}/games/batch", data=ndjson(*logs),
                           content_type="application/x-ndjson")
    assert all("id" in line for line in lines_of(response))
    return shared_app


@pytest.fixture
def client(loaded):
    return loaded.test_client()


def walk(client, url: str) -> list[dict]:
    rows, pages = [], 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.data
        body = response.get_json()
        rows += body.get("ratings", body.get("history", body.get("players")))
        url = body["next"]
        assert (url is None) == ("Link" not in response.headers)
        pages += 1
    return rows


def stored_ratings(app) -> list[tuple]:
    store_of(app).catch_up_ratings()  # what the endpoints do before they read
    with store_of(app).cursor() as cur:
        return cur.execute("SELECT variant, player, mu, sigma, ordinal, games FROM ratings"
                           ).fetchall()


def test_the_leaderboard_is_the_stored_ratings_by_ordinal(client, loaded):
    rows = walk(client, f"{API}/ratings")
    expected = sorted(stored_ratings(loaded), key=lambda r: (-r[4], r[0], r[1]))
    assert [(r["variant"], r["player"], r["mu"], r["sigma"], r["ordinal"], r["games"])
            for r in rows] == expected
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    for row in rows:
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])
        assert row["provisional"] == (row["sigma"] > 6.0 or row["games"] < 10)
        assert client.get(row["links"]["last_game"]).status_code == 200
    # every player of every counted game, and nobody else
    with store_of(loaded).cursor() as cur:
        seated = {(g.variant, p) for g in counted_games(cur) for p in g.players}
    assert {(r["variant"], r["player"]) for r in rows} == seated


@pytest.mark.parametrize("limit", [1, 2, 5])
@pytest.mark.parametrize("query", ["", "variant=gin", "min_games=4", "provisional=true",
                                   "provisional=false&variant=rummy"])
def test_the_leaderboard_pages_without_loss(client, limit, query):
    whole = client.get(f"{API}/ratings?{query}&limit=500").get_json()["ratings"]
    assert walk(client, f"{API}/ratings?{query}&limit={limit}") == whole


def test_leaderboard_filters(client):
    every = walk(client, f"{API}/ratings")
    gin = walk(client, f"{API}/ratings?variant=gin")
    assert gin and {r["variant"] for r in gin} == {"gin"}
    assert [r["player"] for r in gin] == [r["player"] for r in every if r["variant"] == "gin"]
    busy = walk(client, f"{API}/ratings?min_games=6")
    assert busy and [r["player"] for r in busy] == [r["player"] for r in every
                                                   if r["games"] >= 6]
    provisional = walk(client, f"{API}/ratings?provisional=true")
    settled = walk(client, f"{API}/ratings?provisional=false")
    assert all(r["provisional"] for r in provisional)
    assert not any(r["provisional"] for r in settled)
    assert len(provisional) + len(settled) == len(every)


def test_the_provisional_thresholds_are_settings(make_app):
    app = make_app(RUMMY_RATING_PROVISIONAL_SIGMA="9", RUMMY_RATING_PROVISIONAL_GAMES="1")
    client = app.test_client()
    assert post_log(client, dated(sample("gin-01"), 0)).status_code == 201
    rows = client.get(f"{API}/ratings").get_json()["ratings"]
    assert len(rows) == 2 and not any(r["provisional"] for r in rows)
    assert walk(client, f"{API}/ratings?provisional=true") == []


def test_a_players_history_ends_at_their_rating(client):
    board = walk(client, f"{API}/ratings?variant=gin")
    for row in board[:3]:
        history = walk(client, row["links"]["history"])
        assert len(history) == row["games"]
        assert [h["games"] for h in history] == list(range(1, row["games"] + 1))
        assert [h["game_time"] for h in history] == sorted(h["game_time"] for h in history)
        last = history[-1]
        assert (last["mu"], last["sigma"]) == (row["mu"], row["sigma"])
        assert last["game"] == row["last_game"]
        for before, after in zip(history, history[1:], strict=False):
            assert after["mu_before"] == before["mu"]
            assert after["sigma_before"] >= before["sigma"]  # drift, never less
        assert client.get(last["links"]["game"]).status_code == 200
        assert walk(client, row["links"]["history"] + "&limit=2") == history


def test_a_history_across_variants(client):
    history = walk(client, f"{API}/players/ana/ratings")
    assert {h["variant"] for h in history} == {"gin", "greek", "rummy", "rummy-block",
                                               "rummy-pagat"}
    assert walk(client, f"{API}/players/ana/ratings?limit=3") == history


def test_history_of_unknown_or_unrated_players(client):
    assert_problem(client.get(f"{API}/players/nobody/ratings"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/dan/ratings?variant=greek"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/{'x' * 65}/ratings"), 400, "invalid-parameter")


def phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def test_predict_two_players(client):
    board = {r["player"]: r for r in walk(client, f"{API}/ratings?variant=gin")}
    body = client.get(f"{API}/predict?variant=gin&players=ana,ben").get_json()
    a, b = board["ana"], board["ben"]
    chance = phi((a["mu"] - b["mu"]) / math.sqrt(2 * BETA ** 2 + a["sigma"] ** 2
                                                + b["sigma"] ** 2))
    assert [s["players"] for s in body["sides"]] == [["ana"], ["ben"]]
    assert body["sides"][0]["win_probability"] == pytest.approx(chance)
    assert body["sides"][1]["win_probability"] == pytest.approx(1 - chance)
    assert body["sides"][0]["ratings"][0]["mu"] == a["mu"]


def test_predict_many_players_teams_and_newcomers(client):
    body = client.get(f"{API}/predict?variant=rummy&players=ana,ben,cleo,zed").get_json()
    chances = [s["win_probability"] for s in body["sides"]]
    assert sum(chances) == pytest.approx(1.0) and all(0 < c < 1 for c in chances)
    zed = body["sides"][3]["ratings"][0]
    assert (zed["mu"], zed["games"], zed["provisional"]) == (25.0, 0, True)
    teams = client.get(f"{API}/predict?variant=gin&players=ana+cleo,ben+dan").get_json()
    assert [s["players"] for s in teams["sides"]] == [["ana", "cleo"], ["ben", "dan"]]
    assert sum(s["win_probability"] for s in teams["sides"]) == pytest.approx(1.0)
    # separators percent-encoded (as form encoders write them) mean the same
    encoded = client.get(f"{API}/predict?variant=gin&players=ana%2Bcleo%2Cben%2Bdan")
    assert encoded.get_json() == teams
    spaced = client.get(f"{API}/predict?variant=gin&players=ana%20maria,ben").get_json()
    assert [s["players"] for s in spaced["sides"]] == [["ana maria"], ["ben"]]


@pytest.mark.parametrize("query", [
    "", "variant=gin", "players=ana,ben", "variant=chess&players=ana,ben",
    "variant=gin&players=ana", "variant=gin&players=ana,ana", "variant=gin&players=ana,,ben",
    "variant=rummy&players=a,b,c,d,e,f,g", "variant=gin&players=a,b,c,d,e",
    "variant=rummy&players=ana+cleo,ben+dan", "variant=gin&players=a+b,c+d,e+f",
    "variant=gin&players=a+b+c,d", "variant=gin&players=a+b,c",
    f"variant=gin&players=ana,{'x' * 65}", "variant=gin&players=ana,ben&extra=1"])
def test_bad_predictions(client, query):
    assert_problem(client.get(f"{API}/predict?{query}"), 400, "invalid-parameter")


@pytest.mark.parametrize("query", [
    "variant=chess", "min_games=-1", "min_games=x", "provisional=maybe", "limit=0",
    "limit=100000", "sort=ordinal", "player=ana"])
def test_bad_leaderboard_parameters(client, query):
    assert_problem(client.get(f"{API}/ratings?{query}"), 400, "invalid-parameter")


@pytest.mark.parametrize("path", ["/ratings", "/players/ana/ratings"])
def test_cursors_not_made_here_or_for_other_filters(client, path):
    assert_problem(client.get(f"{API}{path}?cursor=bm9wZQ"), 400, "invalid-cursor")
    first = client.get(f"{API}{path}?limit=1").get_json()["next"]
    cursor = first.split("cursor=")[1]
    assert_problem(client.get(f"{API}{path}?variant=greek&limit=1&cursor={cursor}"), 400,
                   "invalid-cursor")
    assert_problem(client.get(f"{API}{path}?variant=chess"), 400, "invalid-parameter")


def test_the_leaderboard_sorts_by_rating(client):
    players = walk(client, f"{API}/players?sort=rating&variant=gin&limit=2")
    ratings = walk(client, f"{API}/ratings?variant=gin")
    assert [(p["player"], p["rating"]) for p in players] == [
        (r["player"], r["ordinal"]) for r in ratings]
    ascending = walk(client, f"{API}/players?sort=rating&order=asc&variant=gin&limit=3")
    assert [p["player"] for p in ascending] == [
        p["player"] for p in sorted(players, key=lambda p: (p["rating"], p["player"]))]
    by_wins = client.get(f"{API}/players?variant=gin").get_json()["players"]
    assert {p["player"]: p["rating"] for p in by_wins} == {
        r["player"]: r["ordinal"] for r in ratings}
    assert all(p["rating"] is None for p in client.get(f"{API}/players").get_json()["players"])
    assert_problem(client.get(f"{API}/players?sort=rating"), 400, "invalid-parameter")


def test_a_deleted_game_leaves_the_ratings(make_app):
    client = make_app().test_client()
    logs = [dated(sample("gin-01"), 0), dated(sample("gin-02"), 1)]
    ids = [post_log(client, log).get_json()["id"] for log in logs]
    assert len(walk(client, f"{API}/players/ana/ratings")) == 2
    assert client.delete(f"{API}/games/{ids[0]}").status_code == 200
    (left,) = walk(client, f"{API}/players/ana/ratings")
    assert left["game"] == ids[1] and left["mu_before"] == 25.0 and left["games"] == 1


def test_openapi_documents_the_ratings(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    for path in ("/api/v1/ratings", "/api/v1/players/{player}/ratings", "/api/v1/predict"):
        operation = spec["paths"][path]["get"]
        assert operation["responses"]["200"]["content"]["application/json"]["example"]
        assert "400" in operation["responses"]


def test_a_read_of_the_ratings_is_never_behind_the_games_stored(client):
    """The catch-up holds a committed game a few seconds before it rates it; a read of
    the ratings rates first whatever it holds, and /healthz and /metrics show none left."""
    log = renamed(dated(sample("gin-01"), 9000), "-fresh")
    assert post_log(client, log).status_code == 201
    board = client.get(f"{API}/ratings?variant=gin&limit=500").get_json()["ratings"]
    assert {row["player"] for row in board} >= set(log["players"])
    health = client.get(f"{API}/healthz").get_json()["ratings"]
    assert health["backlog"] == 0 and health["running"] is True and health["rated"] > 0
    assert "rummy_rating_backlog 0.0" in client.get(f"{API}/metrics").get_data(as_text=True)

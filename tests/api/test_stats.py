"""Player statistics, leaderboard, head-to-head and variant statistics, checked against a
small hand-built set of games whose every figure is worked out below by hand."""

from __future__ import annotations

import orjson
import pytest

from tests.engine.logs import deal, game
from tests.engine.test_gin import GIN, GIN_BEN, KNOCK, gin_game
from tests.engine.test_rummy import BIG_ANA, BIG_BEN, basic, rummy_game

from .helpers import API, assert_problem, post_log

# Gin, ana against ben, one deal each, the game = the logged deal (target null):
#   G1 ana knocks, 1 v 20 deadwood: 19; game 19 + box 20 + shutout 100 = 139 to 0.
#   G2 ana goes gin, ben 40 deadwood: 65; game 185 to 0.
#   G3 ana knocks with 10, ben holds 2: undercut, ben 8 + 25 = 33; game 153 to 0 for ben.
#   G4 ana knocks over the limit: illegal (KNOCK_OVER_LIMIT by ana), nothing scored.
#   G5 ana knocks with 10, ben holds 10, ties are no undercut: outcome tie, no winner.
# Rummy (preset rummy): R1 ana goes out, ben left with 57; R2 ana goes rummy, 2 x 68.
# Block rummy: R3 blocked, ana 169 v ben 160: ben scores 9.
UNDERCUT_BEN = "5C 6C 7C 8C 9C AD 2D 3D 4D 2S"
TIE_BEN = "5C 6C 7C 8C 9C AD 2D 3D 4D TS"


def dated(log, when, tournament=None):
    log["played_at"] = when
    if tournament:
        log["tournament"] = {"id": tournament, "round": 1, "table": "A"}
    return log


def games():
    block = game("rummy-block", ["ana", "ben"], [deal(
        "ben", {"ana": BIG_ANA, "ben": BIG_BEN}, "QS", ["ana ds KS", "ana x AC", "ben end"])],
        rules={"hand_size": 25, "target": None})
    return [
        dated(gin_game(KNOCK), "2024-01-10T20:00:00Z", "spring"),
        dated(gin_game(GIN, ben=GIN_BEN), "2024-03-01T20:00:00Z", "spring"),
        dated(gin_game(["ana ds TH", "ana knock KS"], ben=UNDERCUT_BEN), "2024-03-02T20:00:00Z"),
        dated(gin_game(["ana ds KH", "ana knock 2C"]), "2024-03-03T20:00:00Z"),
        dated(gin_game(["ana ds TH", "ana knock KS"], ben=TIE_BEN,
                       rules={"undercut_on_tie": False}), "2024-03-04T20:00:00Z"),
        dated(basic(), "2024-03-05T20:00:00Z"),
        dated(rummy_game(), "2024-03-06T20:00:00Z"),
        dated(block, "2024-03-07T20:00:00Z"),
    ]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from service.api import close_app, create_app
    from service.api.config import VARIABLES

    db = tmp_path_factory.mktemp("stats") / "stats.duckdb"
    app = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_DB": str(db),
                      "RUMMY_VERIFY_PROCESSES": "0"})
    test_client = app.test_client()
    statuses = [post_log(test_client, log).get_json()["status"] for log in games()]
    assert statuses == ["valid"] * 3 + ["illegal"] + ["valid"] * 4
    yield test_client
    close_app(app)


def stats_of(client, player, query=""):
    response = client.get(f"{API}/players/{player}/stats{query}")
    assert response.status_code == 200, response.get_json()
    return response.get_json()["variants"]


def test_gin_figures(client):
    ana = stats_of(client, "ana")["gin"]
    assert ana == {
        "games": 4, "won": 2, "lost": 1, "win_rate": 0.5,  # G4 illegal is not finished
        "deals": 4, "deals_won": 2, "points_scored": 84, "points_conceded": 33,
        "points_per_deal": 21.0, "gins": 1, "knocks": 3,
        "knocks_won": 1,  # G1; G3 is undercut, G5 a tie: each deal counted once on the page
        "undercuts_made": 0,
        "undercuts_suffered": 1, "avg_deadwood_at_knock": 7.0,  # (1 + 10 + 10) / 3
        "boxes": 2, "shutouts": 2, "violations": {"KNOCK_OVER_LIMIT": 1}}
    ben = stats_of(client, "ben")["gin"]
    assert ben == {
        "games": 4, "won": 1, "lost": 2, "win_rate": 0.25, "deals": 4, "deals_won": 1,
        "points_scored": 33, "points_conceded": 84, "points_per_deal": 8.25, "gins": 0,
        "knocks": 0, "knocks_won": 0, "undercuts_made": 1, "undercuts_suffered": 0,
        "avg_deadwood_at_knock": None, "boxes": 1, "shutouts": 1, "violations": {}}


def test_rummy_family_figures(client):
    figures = stats_of(client, "ana")
    assert figures["rummy"] == {
        "games": 2, "won": 2, "lost": 0, "win_rate": 1.0, "deals": 2, "deals_won": 2,
        "points_scored": 57 + 136, "points_conceded": 0, "points_per_deal": 96.5,
        "won_out": 1, "won_rummy": 1, "won_blocked": 0, "avg_hand_left_when_losing": None,
        "violations": {}}
    assert figures["rummy-block"]["avg_hand_left_when_losing"] == 169
    ben = stats_of(client, "ben")
    assert ben["rummy"]["avg_hand_left_when_losing"] == 62.5  # (57 + 68) / 2
    assert ben["rummy"]["points_conceded"] == 193
    assert ben["rummy-block"]["won_blocked"] == 1 and ben["rummy-block"]["points_scored"] == 9


def test_filters(client):
    assert list(stats_of(client, "ana", "?variant=gin")) == ["gin"]
    since = stats_of(client, "ana", "?variant=gin&since=2024-02-01")["gin"]
    assert (since["games"], since["won"], since["points_scored"]) == (3, 1, 65)
    until = stats_of(client, "ana", "?until=2024-03-01T20:00:00Z")["gin"]
    assert (until["games"], until["points_scored"]) == (1, 19)
    spring = stats_of(client, "ana", "?tournament=spring")
    assert list(spring) == ["gin"] and spring["gin"]["games"] == 2
    response = client.get(f"{API}/players/ana/stats?tournament=autumn")
    assert_problem(response, 404, "not-found")


def test_leaderboard_sorts_and_pages(client):
    # ana: 7 finished games, 4 won, 7 scored deals, 277 points; ben: 7, 2, 7, 42.
    body = client.get(f"{API}/players?sort=wins").get_json()
    assert [(p["rank"], p["player"], p["games"], p["wins"], p["points_per_deal"])
            for p in body["players"]] == [(1, "ana", 7, 4, 39.57), (2, "ben", 7, 2, 6.0)]
    assert body["players"][0]["win_rate"] == 0.5714
    body = client.get(f"{API}/players?sort=points_per_deal&order=asc").get_json()
    assert [p["player"] for p in body["players"]] == ["ben", "ana"]
    first = client.get(f"{API}/players?sort=win_rate&limit=1")
    assert first.get_json()["players"][0]["player"] == "ana"
    assert first.headers["Link"].endswith('rel="next"')
    second = client.get(first.get_json()["next"]).get_json()
    assert [(p["rank"], p["player"]) for p in second["players"]] == [(2, "ben")]
    assert second["next"] is None
    only_gin = client.get(f"{API}/players?variant=gin&sort=games").get_json()["players"]
    assert [(p["player"], p["games"]) for p in only_gin] == [("ana", 4), ("ben", 4)]
    assert client.get(f"{API}/players?min_games=8").get_json()["players"] == []


def test_head_to_head(client):
    body = client.get(f"{API}/players/ana/versus/ben").get_json()
    assert (body["games"], body["finished"]) == (8, 7)
    assert body["wins"] == {"ana": 4, "ben": 2}
    # Game totals: ana 139 + 185 + 57 + 136; ben 153 + 9.
    assert body["points"] == {"ana": 517, "ben": 162}
    assert [g["variant"] for g in body["recent"]][:2] == ["rummy-block", "rummy"]
    gin = client.get(f"{API}/players/ana/versus/ben?variant=gin").get_json()
    assert gin["games"] == 5 and gin["wins"] == {"ana": 2, "ben": 1}
    # One rule for unknown players: 404, for either side, as for their statistics.
    for path in ("ana/versus/zed", "zed/versus/ana", "zed/versus/yul"):
        assert_problem(client.get(f"{API}/players/{path}"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/zed/stats"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/ana/versus/ben?tournament=autumn"), 404,
                   "not-found")
    # The tournament is named as in every answer: {id, round, table}.
    assert body["recent"][-1]["tournament"] == {"id": "spring", "round": 1, "table": "A"}
    assert body["recent"][0]["tournament"] is None


def test_variant_stats(client):
    body = {v["variant"]: v for v in client.get(f"{API}/stats/variants").get_json()["variants"]}
    gin = body["gin"]
    assert (gin["games"], gin["deals"], gin["scored_deals"]) == (5, 5, 4)
    assert gin["outcomes"] == {o: {"count": 1, "share": 0.25}
                               for o in ("gin", "knock", "tie", "undercut")}
    assert gin["avg_turns"] == 1.0 and gin["first_player_win_share"] == 0.5
    assert gin["top_violations"] == [{"code": "KNOCK_OVER_LIMIT", "count": 1}]
    rummy = body["rummy"]
    assert rummy["outcomes"] == {"out": {"count": 1, "share": 0.5},
                                 "rummy": {"count": 1, "share": 0.5}}
    assert rummy["avg_turns"] == 3.0  # R1 has 5 draws, R2 one
    assert rummy["first_player_win_share"] == 1.0
    assert body["rummy-block"]["first_player_win_share"] == 0.0


@pytest.mark.parametrize("query", [
    "?sort=bogus", "?order=sideways", "?min_games=-1", "?limit=0", "?since=yesterday",
    "?variant=poker", "?sort=wins;DROP TABLE games", "?extra=1", "?until=2024-13-01",
])
def test_bad_leaderboard_parameters(client, query):
    assert_problem(client.get(f"{API}/players{query}"), 400, "invalid-parameter")
    assert_problem(client.get(f"{API}/players/ana/stats{query.replace('sort', 'x')}"), 400,
                   "invalid-parameter")


def test_a_cursor_not_made_here(client):
    assert_problem(client.get(f"{API}/players?cursor=abc"), 400, "invalid-cursor")


@pytest.mark.parametrize("name", ["ana' OR '1'='1", "x%27%3B%20DROP%20TABLE%20games%3B--",
                                  "ana\" --"])
def test_injection_like_players_find_nothing(client, name):
    assert_problem(client.get(f"{API}/players/{name}/stats"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/{name}/versus/ben"), 404, "not-found")
    assert stats_of(client, "ana")["gin"]["games"] == 4  # the tables are intact


def test_cursor_is_bound_to_its_sort(client):
    first = client.get(f"{API}/players?sort=wins&limit=1").get_json()
    cursor = first["next"].split("cursor=")[1]
    assert_problem(client.get(f"{API}/players?sort=games&limit=1&cursor={cursor}"), 400,
                   "invalid-cursor")


def test_partners_are_not_opponents(make_app):
    app = make_app()
    client = app.test_client()
    log = game("gin", ["a", "b", "c", "d"], [
        deal(y, {x: "2C 3C 4C 5D 5H 5S 9H 9D 9S KS", y: "5C 6C 7C 8C 9C AD 2D 3D JH JS"},
             "TD", [m.replace("ana", x) for m in KNOCK], players=[x, y])
        for x, y in (("a", "c"), ("b", "d"))], rules={"target": None},
        teams=[["a", "b"], ["c", "d"]])
    assert post_log(client, log).get_json()["status"] == "valid"
    assert client.get(f"{API}/players/a/versus/b").get_json()["games"] == 0
    versus = client.get(f"{API}/players/a/versus/d").get_json()
    assert versus["games"] == 1 and versus["wins"] == {"a": 1, "d": 0}
    # Both partners won the game; the other side scored nothing: a shutout each.
    for player in ("a", "b"):
        figures = stats_of(client, player)["gin"]
        assert (figures["won"], figures["shutouts"], figures["knocks"]) == (1, 1, 1)


def test_one_rounding_rule_for_player_figures_and_the_leaderboard(make_app):
    """ana scores 19 in each of seven knocks and 0 in the deal she loses: 133 / 8 =
    16.625 points per deal, exactly half way: 16.63 in both her figures and the
    leaderboard (half away from zero), where Python's round gave 16.62."""
    client = make_app().test_client()
    logs = [gin_game(KNOCK) | {"id": f"win{i}"} for i in range(7)]
    swapped = orjson.dumps(gin_game(KNOCK) | {"id": "loss"}).decode()
    swapped = swapped.replace('"ana"', '"\x00"').replace('"ben"', '"ana"')
    logs.append(orjson.loads(swapped.replace('"\x00"', '"ben"')))
    for log in logs:
        assert post_log(client, log).get_json()["status"] == "valid"
    figures = stats_of(client, "ana")["gin"]
    assert (figures["deals"], figures["points_scored"]) == (8, 133)
    assert figures["points_per_deal"] == 16.63
    board = {row["player"]: row for row in
             client.get(f"{API}/players?sort=points_per_deal").get_json()["players"]}
    assert board["ana"]["points_per_deal"] == 16.63
    # 7 of 8 games: 0.875 exactly, four places
    assert figures["win_rate"] == board["ana"]["win_rate"] == 0.875


def test_recent_games_are_newest_first_when_less_than_a_millisecond_apart(make_app):
    """Two games 0.3 ms apart, the older one with the greater id: the newer comes first
    (the order was the time in milliseconds, then the id)."""
    from service.store.records import game_id

    client = make_app().test_client()
    older = newer = None
    for n in range(100):
        older = gin_game(KNOCK) | {"id": f"o{n}", "played_at": "2024-03-01T20:00:00.0001Z"}
        newer = gin_game(KNOCK) | {"id": f"n{n}", "played_at": "2024-03-01T20:00:00.0004Z"}
        if game_id(older) > game_id(newer):
            break
    ids = [post_log(client, log).get_json()["id"] for log in (older, newer)]
    recent = client.get(f"{API}/players/ana/versus/ben").get_json()["recent"]
    assert [g["id"] for g in recent] == ids[::-1]
    assert [g["game_time"] for g in recent] == ["2024-03-01T20:00:00.000400Z",
                                                "2024-03-01T20:00:00.000100Z"]

"""Tournament settings: name, dates, venue, and the ranking system with its tie-breaks,
on a tournament whose every figure is worked out by hand.

Tournament "ranks" (gin; the logs of tests/api/test_desk.py, players seated as named):

    R1 A  ana beats ben     (KNOCK)                 ana 139, ben 0
    R1 B  cleo beats dan    (KNOCK)                 cleo 139, dan 0
    R2 A  ben beats cleo    (KNOCK)                 ben 139, cleo 0
    R2 B  dan - ana, unfinished, ruled "stands"     0 - 0, nobody wins: a draw
    R3 A  ana - dan, illegal, forfeit against ana   ana 19 (deal 1), dan 0; dan wins

Totals: ana 139 + 0 + 19 = 158 in 3 games (1 won); ben 139 in 2 (1 won); cleo 139 in 2
(1 won); dan 0 in 3 (1 won).  Head to head: ben beat cleo.
Match points at 3/1/0: ana W D L = 4, dan L D W = 4, ben L W = 3, cleo W L = 3.
Points difference (own less the opponent's, summed): ana 139 + 0 + 19 = 158,
dan -139 + 0 - 19 = -158, ben -139 + 139 = 0, cleo 139 - 139 = 0.
"""

from __future__ import annotations

import csv
import io

import pytest

from .helpers import API, assert_problem, incomplete, post_log, valid
from .test_desk import at, rule, two_deals_illegal
from .test_desk_properties import renamed

KEY = {"Authorization": "Bearer write-key"}


@pytest.fixture
def ranks(make_app):
    client = make_app(RUMMY_API_KEYS="director:write-key").test_client()

    def put(log, round_, table):
        response = post_log(client, at(log, "ranks", round_, table), headers=KEY)
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    put(valid(), 1, "A")
    put(renamed(valid(), "cleo", "dan"), 1, "B")
    put(renamed(valid(), "ben", "cleo"), 2, "A")
    draw = put(renamed(incomplete(), "dan", "ana"), 2, "B")
    forfeit = put(renamed(two_deals_illegal(), "ana", "dan"), 3, "A")
    assert rule(client, draw, "stands", headers=KEY).status_code == 200
    assert rule(client, forfeit, "forfeit", "ana", headers=KEY).status_code == 200
    return client


def ranked(client, settings=None):
    if settings is not None:
        response = client.put(f"{API}/tournaments/ranks/settings", json=settings, headers=KEY)
        assert response.status_code == 200, response.get_json()
    body = client.get(f"{API}/tournaments/ranks").get_json()
    assert body["final"] is True
    [table] = body["standings"]
    return [(r["player"], r["rank"]) for r in table["players"]], table, body


def test_each_ranking_and_tie_break_by_hand(ranks):
    order, table, body = ranked(ranks)
    # The default: total points, ties shared; the answer as before any setting.
    assert order == [("ana", 1), ("ben", 2), ("cleo", 2), ("dan", 4)]
    assert set(table) == {"variant", "better", "games", "players"} and body["settings"] is None
    assert [(r["points"], r["games"], r["won"]) for r in table["players"]] == [
        (158, 3, 1), (139, 2, 1), (139, 2, 1), (0, 3, 1)]

    order, table, _ = ranked(ranks, {"tie_breaks": ["head_to_head"]})
    assert order == [("ana", 1), ("ben", 2), ("cleo", 3), ("dan", 4)]
    assert (table["ranking"], table["tie_breaks"]) == ("points", ["head_to_head"])

    assert ranked(ranks, {"ranking": "wins"})[0] == [
        ("ana", 1), ("ben", 1), ("cleo", 1), ("dan", 1)]
    assert ranked(ranks, {"ranking": "wins", "tie_breaks": ["points"]})[0] == [
        ("ana", 1), ("ben", 2), ("cleo", 2), ("dan", 4)]
    assert ranked(ranks, {"ranking": "wins", "tie_breaks": ["points", "head_to_head"]})[0] \
        == [("ana", 1), ("ben", 2), ("cleo", 3), ("dan", 4)]

    match = {"ranking": "match_points", "match_points": {"win": 3, "draw": 1, "loss": 0}}
    order, table, _ = ranked(ranks, match)
    assert order == [("ana", 1), ("dan", 1), ("ben", 3), ("cleo", 3)]
    assert [r["match_points"] for r in table["players"]] == [4, 4, 3, 3]
    assert ranked(ranks, match | {"tie_breaks": ["wins"]})[0] == order  # one win each
    assert ranked(ranks, match | {"tie_breaks": ["points_difference"]})[0] == [
        ("ana", 1), ("dan", 2), ("ben", 3), ("cleo", 3)]
    assert ranked(ranks, match | {"tie_breaks": ["points_difference", "head_to_head"]})[0] \
        == [("ana", 1), ("dan", 2), ("ben", 3), ("cleo", 4)]
    # The default match points are 2, 1 and 0: ana 3, dan 3, ben 2, cleo 2.
    order, table, _ = ranked(ranks, {"ranking": "match_points"})
    assert [(r["player"], r["match_points"]) for r in table["players"]] == [
        ("ana", 3), ("dan", 3), ("ben", 2), ("cleo", 2)]

    # Back to the defaults: today's answer again.
    order, table, _ = ranked(ranks, {})
    assert order == [("ana", 1), ("ben", 2), ("cleo", 2), ("dan", 4)]
    assert "ranking" not in table


def test_settings_are_stored_read_and_checked(ranks):
    url = f"{API}/tournaments/ranks/settings"
    defaults = ranks.get(url).get_json()
    assert defaults == {"tournament": "ranks", "name": None, "dates": None, "venue": None,
                        "ranking": "points", "match_points": {"win": 2, "draw": 1, "loss": 0},
                        "tie_breaks": [], "public": False, "updated_at": None,
                        "updated_by": None,
                        "links": {"self": url, "tournament": f"{API}/tournaments/ranks"}}
    settings = {"name": "Spring Ranks", "dates": {"start": "2024-05-11", "end": "2024-05-12"},
                "venue": "Club house", "ranking": "wins", "tie_breaks": ["points"]}
    response = ranks.put(url, json=settings, headers=KEY)
    assert response.status_code == 200
    body = response.get_json()
    assert {k: body[k] for k in settings} == settings
    assert body["updated_by"] == "director" and body["updated_at"].endswith("Z")
    assert ranks.get(url).get_json() == body
    assert ranks.get(f"{API}/tournaments/ranks").get_json()["settings"] == {
        **settings, "match_points": {"win": 2, "draw": 1, "loss": 0}, "public": False}

    for bad, field in (({"ranking": "elo"}, "ranking"),
                       ({"tie_breaks": ["wins", "wins"]}, "tie_breaks"),
                       ({"tie_breaks": ["coin_toss"]}, "tie_breaks.0"),
                       ({"dates": {"start": "2024-05-12", "end": "2024-05-11"}}, "dates.end"),
                       ({"colour": "red"}, "colour"),
                       ({"match_points": {"win": "lots"}}, "match_points.win"),
                       ({"match_points": {"loss": 0.5}}, "match_points.loss")):
        problem = assert_problem(ranks.put(url, json=bad, headers=KEY), 422, "validation-error")
        assert any(path.startswith(field) for path in problem["errors"]), (bad, problem)
    assert_problem(ranks.put(url, headers=KEY), 415, "unsupported-media-type")
    assert_problem(ranks.put(url, data=b"", content_type="application/json", headers=KEY),
                   422, "validation-error")
    assert ranks.get(url).get_json() == body  # nothing changed
    assert_problem(ranks.put(url, json={}), 401, "unauthorized")
    assert_problem(ranks.get(f"{API}/tournaments/nosuch/settings"), 404, "not-found")


def test_the_page_and_the_csv_show_the_ranking_and_its_match_points(ranks):
    """Ranked by match points (3/1/0) then points difference: the page's table has a
    Match points column with each player's, and says how it is ranked; the CSV's
    standings rows carry the same figures and words (worked above: ana 4, dan 4, ben 3,
    cleo 3)."""
    ranked(ranks, {"ranking": "match_points", "match_points": {"win": 3, "draw": 1, "loss": 0},
                   "tie_breaks": ["points_difference"]})
    words = "ranked by most match points, ties broken by points difference"
    page = ranks.get("/tournaments/ranks", headers={"Accept": "text/html"}).get_data(
        as_text=True)
    assert '<th scope="col">Match points</th>' in page and words in page
    text = ranks.get(f"{API}/tournaments/ranks/report.csv").get_data(as_text=True)
    standings = [row for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
                 if row["section"] == "standings"]
    assert [(r["player"], r["rank"], r["match_points"]) for r in standings] == [
        ("ana", "1", "4"), ("dan", "2", "4"), ("ben", "3", "3"), ("cleo", "3", "3")]
    assert {r["detail"] for r in standings} == {words}
    # The default ranking keeps its words, and no column of match points.
    ranked(ranks, {})
    page = ranks.get("/tournaments/ranks", headers={"Accept": "text/html"}).get_data(
        as_text=True)
    assert "Match points" not in page and "the higher total ranks first" not in page
    assert "higher total ranks first." in page

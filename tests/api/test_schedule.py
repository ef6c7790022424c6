"""A tournament's schedule (its settings' ``schedule``) and the two open matters it
makes: a game played by others than the players scheduled at its table
(``schedule_mismatch``) and a scheduled table with no game once its round is over
(``missing_table``).  Figures worked out by hand from tests/api/test_desk.py's logs: a
gin KNOCK game is 139 to 0 for the player seated as ana.

Tournament "sched", scheduled:

    R1 A  ana, ben      R1 B  cleo, dan
    R2 A  ana, cleo     R2 B  ben, dan

Stored: R1 A ana beats ben (as scheduled); R2 A ana beats dan (scheduled: ana, cleo).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import API, assert_problem, post_log, valid
from .test_desk import at, rule
from .test_desk_properties import renamed

KEY = {"Authorization": "Bearer write-key"}
URL = f"{API}/tournaments/sched"
SCHEDULE = [{"round": 1, "table": "A", "players": ["ana", "ben"]},
            {"round": 1, "table": "B", "players": ["cleo", "dan"]},
            {"round": 2, "table": "A", "players": ["cleo", "ana"]},
            {"round": 2, "table": "B", "players": ["ben", "dan"]}]


@pytest.fixture
def client(make_app):
    return make_app(RUMMY_API_KEYS="director:write-key").test_client()


def put_game(client, p: str, q: str, round_: int, table: str) -> str:
    response = post_log(client, renamed(at(valid(), "sched", round_, table), p, q),
                        headers=KEY)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def put_settings(client, settings: dict[str, Any]) -> dict[str, Any]:
    response = client.put(f"{URL}/settings", json=settings, headers=KEY)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def state(client, query: str = "") -> tuple[bool, list[tuple[str, list[str], int, str]]]:
    body = client.get(f"{URL}{query}").get_json()
    return body["final"], [(m["kind"], m["games"], m["round"], m["table"])
                           for m in body["open"]]


def standings(client) -> list[tuple[str, int | None, int | None, int]]:
    [table] = client.get(URL).get_json()["standings"]
    return [(r["player"], r["rank"], r["points"], r["games"]) for r in table["players"]]


def test_a_game_off_its_schedule_is_open_until_ruled(client):
    first = put_game(client, "ana", "ben", 1, "A")
    put_settings(client, {"schedule": SCHEDULE})
    # Round 1 is under way: R1 B has no game yet, and that is no matter.
    assert state(client) == (True, [])
    off = put_game(client, "ana", "dan", 2, "A")
    # Now round 1 is over (a game of round 2 is stored): R1 B is missing; R2 A was
    # played by ana and dan, not ana and cleo, and counts for nothing until ruled.
    assert state(client) == (False, [("schedule_mismatch", [off], 2, "A"),
                                     ("missing_table", [], 1, "B")])
    body = client.get(URL).get_json()
    mismatch, missing = body["open"]
    assert mismatch["links"] == {"games": [f"{API}/games/{off}"],
                                 "ruling": f"{API}/games/{off}/ruling"}
    assert mismatch["detail"] == (f"game {off} (round 2, table A): played by ana, dan, "
                                  "scheduled for cleo, ana: it counts for nothing until ruled")
    assert missing["links"] == {"games": [], "settings": f"{URL}/settings"}
    assert "scheduled for cleo, dan" in missing["detail"]
    assert "a game of round 2 is stored" in missing["detail"]
    games = {game["id"]: game for game in body["games"]}
    assert (games[off]["counted"], games[off]["basis"]) == (
        False, "not the players scheduled at its table, no ruling yet")
    assert games[first]["counted"] is True
    assert standings(client) == [("ana", 1, 139, 1), ("ben", 2, 0, 1), ("dan", None, None, 0)]
    [listed] = client.get(f"{API}/tournaments").get_json()["tournaments"]
    assert (listed["final"], listed["open"]) == (False, 2)

    # A valid game off its schedule may be ruled "stands" (its result as played).
    ruling = client.get(f"{API}/games/{off}/ruling")
    assert ruling.status_code == 404  # none yet
    response = rule(client, off, "stands", headers=KEY)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["allowed"] == ["void", "forfeit", "stands"]
    assert state(client) == (False, [("missing_table", [], 1, "B")])
    assert standings(client) == [("ana", 1, 278, 2), ("ben", 2, 0, 1), ("dan", 2, 0, 1)]
    # Withdrawn, the matter is open again; void settles it too, counting nothing.
    assert client.delete(f"{API}/games/{off}/ruling", headers=KEY).status_code == 200
    assert state(client)[1][0] == ("schedule_mismatch", [off], 2, "A")
    assert rule(client, off, "void", headers=KEY).status_code == 200
    assert state(client) == (False, [("missing_table", [], 1, "B")])
    assert standings(client) == [("ana", 1, 139, 1), ("ben", 2, 0, 1), ("dan", None, None, 0)]


def test_stands_is_allowed_only_off_the_schedule(client):
    scheduled = put_game(client, "ana", "ben", 1, "A")
    elsewhere = put_game(client, "cleo", "dan", 1, "C")  # a table the schedule lacks
    put_settings(client, {"schedule": SCHEDULE})
    for gid in (scheduled, elsewhere):
        problem = assert_problem(rule(client, gid, "stands", headers=KEY), 409,
                                 "ruling-not-allowed")
        assert problem["allowed"] == ["void", "forfeit"]
    # The same players in another order, or seated the other way, are the scheduled ones.
    swapped = put_game(client, "ana", "cleo", 2, "A")
    assert state(client) == (False, [("missing_table", [], 1, "B")])
    assert rule(client, swapped, "stands", headers=KEY).status_code == 409


def test_a_missing_table_is_settled_by_its_game_or_marked_not_played(client):
    put_game(client, "ana", "ben", 1, "A")
    put_game(client, "cleo", "ana", 2, "A")
    put_settings(client, {"schedule": SCHEDULE})
    assert state(client) == (False, [("missing_table", [], 1, "B")])
    # The standings after round 1 are as if round 2 were not stored: round 1 not over.
    assert state(client, "?after_round=1") == (True, [])

    # Marked not played, with the reason: settled.
    marked = [dict(entry) for entry in SCHEDULE]
    marked[1]["not_played"] = "  dan did not come "  # stored stripped, as every reason
    body = put_settings(client, {"schedule": marked})
    assert body["schedule"][1] == {"round": 1, "table": "B", "players": ["cleo", "dan"],
                                   "not_played": "dan did not come"}
    assert body["schedule"][0]["not_played"] is None
    assert state(client) == (True, [])

    # Unmarked again, then its game stored: settled.
    put_settings(client, {"schedule": SCHEDULE})
    assert state(client)[0] is False
    put_game(client, "dan", "cleo", 1, "B")
    assert state(client) == (True, [])

    # Round 2 (the last) is over once the last day has passed: R2 B is missing.
    put_settings(client, {"schedule": SCHEDULE,
                          "dates": {"start": "2020-01-01", "end": "2020-01-02"}})
    final, matters = state(client)
    assert (final, matters) == (False, [("missing_table", [], 2, "B")])
    assert "the tournament's last day has passed" in client.get(URL).get_json()["open"][0][
        "detail"]
    csv = client.get(f"{URL}/report.csv").get_data(as_text=True)
    [row] = [line for line in csv.splitlines() if line.startswith("open,")]
    assert row.startswith("open,,2,B,,") and ",missing_table,\"round 2, table B " in row
    # A last day still to come: not over.
    put_settings(client, {"schedule": SCHEDULE,
                          "dates": {"start": "2020-01-01", "end": "9998-12-31"}})
    assert state(client) == (True, [])


def test_the_csv_lists_a_mismatch_in_its_open_section(client):
    put_game(client, "ana", "ben", 1, "A")
    put_game(client, "cleo", "dan", 1, "B")
    off = put_game(client, "dan", "ben", 2, "B")  # scheduled: ben, dan - the same set
    wrong = put_game(client, "ana", "ben", 2, "A")
    put_settings(client, {"schedule": SCHEDULE})
    assert state(client) == (False, [("schedule_mismatch", [wrong], 2, "A")])
    csv = client.get(f"{URL}/report.csv").get_data(as_text=True)
    rows = [line for line in csv.splitlines() if line.startswith("open,")]
    assert rows == [f"open,,2,A,{wrong},,,,,,,,,,,,,schedule_mismatch,\"game {wrong} "
                    "(round 2, table A): played by ana, ben, scheduled for cleo, ana: it "
                    "counts for nothing until ruled\",,,,"]
    assert off != wrong


def test_without_a_schedule_every_answer_is_as_before(client):
    put_game(client, "ana", "ben", 1, "A")
    put_game(client, "ana", "dan", 2, "A")
    put_game(client, "ben", "cleo", 3, "B")
    paths = ("", "?after_round=1", "/crosstable", "/report.csv", "/withdrawn")
    before = {path: client.get(f"{URL}{path}").get_json() or client.get(
        f"{URL}{path}").get_data() for path in paths}
    listed = client.get(f"{API}/tournaments").get_json()
    assert before[""]["settings"] is None and before[""]["final"] is True
    defaults = client.get(f"{URL}/settings").get_json()
    assert "schedule" not in defaults
    # An empty schedule is none: the settings and every answer as before (the audit
    # shows the settings now set, which are the defaults).
    body = put_settings(client, {"schedule": []})
    assert "schedule" not in body
    assert body | {"updated_at": None, "updated_by": None} == defaults
    for path in paths:
        now = client.get(f"{URL}{path}").get_json() or client.get(f"{URL}{path}").get_data()
        if path in ("", "?after_round=1"):
            assert "schedule" not in now["settings"]
            now["settings"] = None
        assert now == before[path], path
    assert client.get(f"{API}/tournaments").get_json() == listed


BAD = [
    ({"round": 0, "table": "A", "players": ["ana", "ben"]}, "schedule.0.round"),
    ({"round": "1", "table": "A", "players": ["ana", "ben"]}, "schedule.0.round"),
    ({"table": "A", "players": ["ana", "ben"]}, "schedule.0.round"),
    ({"round": 1, "table": 0, "players": ["ana", "ben"]}, "schedule.0.table"),
    ({"round": 1, "table": "", "players": ["ana", "ben"]}, "schedule.0.table"),
    ({"round": 1, "table": True, "players": ["ana", "ben"]}, "schedule.0.table"),
    ({"round": 1, "table": " A", "players": ["ana", "ben"]}, "schedule.0.table"),
    ({"round": 1, "table": "A", "players": ["ana"]}, "schedule.0.players"),
    ({"round": 1, "table": "A", "players": ["a", "b", "c", "d", "e"]}, "schedule.0.players"),
    ({"round": 1, "table": "A", "players": ["ana", "ana"]}, "schedule.0.players"),
    ({"round": 1, "table": "A", "players": ["ana", "ben "]}, "schedule.0.players.1"),
    ({"round": 1, "table": "A", "players": ["ana", ".."]}, "schedule.0.players.1"),
    ({"round": 1, "table": "A", "players": ["ana", "b" * 65]}, "schedule.0.players.1"),
    ({"round": 1, "table": "A", "players": ["ana", 7]}, "schedule.0.players.1"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": ""},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": "   "},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": "a\nb"},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": "a\u202eb"},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": "\u00a0"},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": "\ufeff"},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": "x" * 1001},
     "schedule.0.not_played"),
    ({"round": 1, "table": "A", "players": ["ana", "ben"], "seat": 1}, "schedule.0.seat"),
]


@pytest.mark.parametrize(("entry", "path"), BAD)
def test_a_schedule_that_is_not_valid_is_a_422_and_nothing_is_stored(shared_client, entry,
                                                                      path):
    url = f"{API}/tournaments/checked/settings"
    assert post_log(shared_client, at(valid(), "checked")).status_code in (200, 201)
    before = shared_client.get(url).get_json()
    response = shared_client.put(url, json={"name": "Kept out", "schedule": [entry]})
    problem = assert_problem(response, 422, "validation-error")
    assert path in problem["errors"], problem
    assert shared_client.get(url).get_json() == before


def test_a_table_is_scheduled_once_and_the_schedule_has_a_size_limit(shared_client):
    url = f"{API}/tournaments/checked/settings"
    assert post_log(shared_client, at(valid(), "checked")).status_code in (200, 201)
    before = shared_client.get(url).get_json()
    twice = [{"round": 1, "table": 3, "players": ["ana", "ben"]},
             {"round": 2, "table": 3, "players": ["ana", "ben"]},
             {"round": 1, "table": "3", "players": ["cleo", "dan"]}]
    problem = assert_problem(shared_client.put(url, json={"schedule": twice}), 422,
                             "validation-error")
    assert problem["errors"] == {
        "schedule.2.table": ["round 1, table 3 is scheduled already (entry 0)"]}
    # Reported beside the entries' other errors.
    problem = assert_problem(shared_client.put(url, json={"schedule": [
        *twice, {"round": 2, "table": "3", "players": ["cleo", "cleo"]}]}), 422,
        "validation-error")
    assert problem["errors"] == {
        "schedule.2.table": ["round 1, table 3 is scheduled already (entry 0)"],
        "schedule.3.players": ["each player once at a table"],
        "schedule.3.table": ["round 2, table 3 is scheduled already (entry 1)"]}
    many = [{"round": 1 + n // 500, "table": 1 + n % 500, "players": ["ana", "ben"]}
            for n in range(5001)]
    problem = assert_problem(shared_client.put(url, json={"schedule": many}), 422,
                             "validation-error")
    assert "schedule" in problem["errors"]
    assert shared_client.get(url).get_json() == before
    # A table given as a number is its decimal text.
    body = shared_client.put(url, json={"schedule": twice[:2]}).get_json()
    assert [entry["table"] for entry in body["schedule"]] == ["3", "3"]
    assert shared_client.get(url).get_json()["schedule"] == body["schedule"]


# --------------------------------------------------------------------------- property
# For any games (valid, some ruled void), schedule and last day, the open matters, what
# counts and whether the tournament is final equal a plain recomputation of the rules.

PLAYERS = ("ana", "ben", "cleo", "dan")
_serial = iter(range(10**9))


@st.composite
def plans(draw) -> dict[str, Any]:
    games = draw(st.lists(st.fixed_dictionaries({
        "players": st.permutations(PLAYERS).map(lambda order: tuple(order[:2])),
        "round": st.integers(1, 3), "table": st.sampled_from("ABC"),
        "void": st.booleans()}), min_size=1, max_size=6))
    slots = [{"round": round_, "table": table,
              "players": list(draw(st.permutations(PLAYERS))[:2]),
              "not_played": draw(st.none() | st.just("withdrew"))}
             for round_ in (1, 2, 3) for table in "AB" if draw(st.booleans())]
    end = draw(st.sampled_from((None, "2020-01-02", "9998-12-31")))
    return {"games": games, "slots": slots, "end": end}


def expected(plan: dict[str, Any], ids: list[str]) -> tuple[set[tuple], dict[str, bool]]:
    """The open matters and what counts, recomputed plainly from the plan."""
    games = [{**game, "id": gid} for game, gid in zip(plan["games"], ids, strict=True)]
    at = {(slot["round"], slot["table"]): slot for slot in plan["slots"]}
    claims: dict[tuple[int, str], list[str]] = {}
    for game in games:
        claims.setdefault((game["round"], game["table"]), []).append(game["id"])
    latest = max(game["round"] for game in games)
    ended = plan["end"] == "2020-01-02"
    open_: set[tuple] = set()
    counted = {}
    for key, claimed in claims.items():
        if len(claimed) > 1:
            open_.add(("duplicate_table", tuple(claimed), *key))
    for game in games:
        key = (game["round"], game["table"])
        off = key in at and set(game["players"]) != set(at[key]["players"])
        if off and not game["void"]:
            open_.add(("schedule_mismatch", (game["id"],), *key))
        counted[game["id"]] = len(claims[key]) == 1 and not game["void"] and not off
    for key, slot in at.items():
        if slot["not_played"] is None and key not in claims and (ended or latest > key[0]):
            open_.add(("missing_table", (), *key))
    return open_, counted


@settings(max_examples=40)
@given(plans())
def test_the_schedule_matters_equal_a_plain_recomputation(shared_app, plan):
    shared_client = shared_app.test_client()
    tournament = f"sched-prop-{next(_serial)}"
    ids = []
    for game in plan["games"]:
        log = renamed(at(valid(id=f"s{next(_serial)}"), tournament, game["round"],
                         game["table"]), *game["players"])
        response = post_log(shared_client, log)
        assert response.status_code == 201, response.get_json()
        ids.append(response.get_json()["id"])
        if game["void"]:
            assert rule(shared_client, ids[-1], "void").status_code == 200
    settings_body: dict[str, Any] = {"schedule": plan["slots"]}
    if plan["end"] is not None:
        settings_body["dates"] = {"start": "2020-01-01", "end": plan["end"]}
    response = shared_client.put(f"{API}/tournaments/{tournament}/settings",
                                 json=settings_body)
    assert response.status_code == 200, response.get_json()
    body = shared_client.get(f"{API}/tournaments/{tournament}").get_json()
    open_, counted = expected(plan, ids)
    assert {(m["kind"], tuple(m["games"]), m["round"], m["table"])
            for m in body["open"]} == open_
    assert len(body["open"]) == len(open_)
    assert {game["id"]: game["counted"] for game in body["games"]} == counted
    assert body["final"] is (not open_)

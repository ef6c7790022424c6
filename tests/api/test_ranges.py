"""Values at and past the format's ranges: every one is stored and read back, or refused
as a validation error; never a 500, never a store that stops answering reads."""

from __future__ import annotations

from typing import Any

import pytest

from service.engine.limits import MAX_CLAIM, MAX_ROUND
from tests.api.helpers import (
    API,
    assert_problem,
    counts,
    lines_of,
    ndjson,
    post_log,
    store_of,
    valid,
)

TOUR = {"id": "cup", "round": 1, "table": "t1"}

# Every read that shows a stored game, for the games of ana and ben in tournament cup.
READS = ["/games", "/games?player=ana", "/games?tournament=cup", "/players/ana/stats",
         "/players?min_games=1", "/players/ana/versus/ben", "/tournaments/cup",
         "/tournaments/cup/report.csv", "/stats/variants", "/games/export?format=ndjson",
         "/games/export?format=parquet"]


def reads_answer(client, game_id: str) -> None:
    for path in [*READS, f"/games/{game_id}", f"/games/{game_id}/log",
                 f"/games/{game_id}/deals/0/moves/0/state"]:
        response = client.get(API + path)
        assert response.status_code == 200, (path, response.data[:300])


def with_claimed_total(total: int, **changes: Any) -> dict[str, Any]:
    log = valid(tournament=TOUR, **changes)
    log["claimed"] = {"totals": {"ana": total, "ben": 0}}
    return log


def layoff_meld(meld: int) -> dict[str, Any]:
    log = valid(tournament=TOUR)
    log["deals"][0]["moves"].append({"p": "ben", "a": "layoff", "card": "2S", "meld": meld})
    return log


# The reproductions: each refused, dry run or not, with nothing stored.
REFUSED = {
    "played_at past year 9999 in UTC": (valid(played_at="9999-12-31T23:59:59-01:00"),
                                        "played_at"),
    "played_at before 1900": (valid(played_at="1899-12-31T23:59:59+00:00"), "played_at"),
    "leap second": (valid(played_at="2016-12-31T23:59:60Z"), "played_at"),
    "round of 2^31": (valid(tournament=TOUR | {"round": 2**31}), "tournament.round"),
    "total past 2^53": (with_claimed_total(MAX_CLAIM + 1), "claimed.totals.ana"),
    "layoff meld 3e9": (layoff_meld(3_000_000_000), "deals.0.moves.2.meld"),
    "box bonus 3e9": (valid(rules={"target": None, "box_bonus": 3_000_000_000}),
                      "rules.box_bonus"),
}


@pytest.mark.parametrize("name", REFUSED)
@pytest.mark.parametrize("query", ["", "?dry_run=true"])
def test_values_past_their_range_are_validation_errors(app, client, name, query):
    log, path = REFUSED[name]
    body = assert_problem(post_log(client, log, query), 422, "validation-error")
    assert path in body["errors"], body["errors"]
    assert counts(app)["games"] == 0


EDGES = {
    "claimed total of 2^31": with_claimed_total(2**31),
    "largest claimed total": with_claimed_total(MAX_CLAIM, id="big"),
    "smallest claimed total": with_claimed_total(-MAX_CLAIM, id="small"),
    "last round": valid(tournament=TOUR | {"round": MAX_ROUND}),
    "first and last instants": valid(tournament=TOUR, played_at="1900-01-01T00:00:00+23:59"),
    "last instant": valid(tournament=TOUR, played_at="9998-12-31T23:59:59.999999-23:59"),
    "largest bonus": valid(tournament=TOUR, rules={"target": None, "box_bonus": 1_000_000,
                                                   "shutout_bonus": 1_000_000,
                                                   "game_bonus": 1_000_000}),
}


@pytest.mark.parametrize("name", EDGES)
def test_values_at_the_edges_are_stored_and_read_back(app, client, name):
    response = post_log(client, EDGES[name])
    assert response.status_code == 201, response.data
    reads_answer(client, response.get_json()["id"])


def test_the_largest_totals_are_stored_exactly(app, client):
    game_id = post_log(client, with_claimed_total(MAX_CLAIM)).get_json()["id"]
    rich = post_log(client, valid(id="rich", rules={"target": None, "box_bonus": 1_000_000,
                                                    "shutout_bonus": 1_000_000,
                                                    "game_bonus": 1_000_000}))
    assert rich.get_json()["report"]["totals"]["points"]["ana"] == 3_000_019
    with store_of(app).cursor() as cur:
        claimed = cur.execute("SELECT claimed FROM game_players WHERE game_id = ? AND "
                              "player = 'ana'", [game_id]).fetchone()
        assert claimed == (MAX_CLAIM,)
        points = cur.execute("SELECT points FROM game_players WHERE game_id = ? AND "
                             "player = 'ana'", [rich.get_json()["id"]]).fetchone()
        assert points == (3_000_019,)
    audit = client.get(f"{API}/tournaments/cup").get_json()
    ana = next(row for row in audit["standings"][0]["players"] if row["player"] == "ana")
    assert ana["claimed_points"] == MAX_CLAIM


def test_a_batch_line_past_a_range_fails_alone(app, client):
    """30 good lines and one past a range: 30 stored and acknowledged, one 422."""
    logs = [valid(id=f"g{k}") for k in range(30)]
    logs.insert(17, with_claimed_total(MAX_CLAIM + 1))
    response = client.post(f"{API}/games/batch", data=ndjson(*logs),
                           content_type="application/x-ndjson")
    lines = lines_of(response)
    assert [line["line"] for line in lines] == list(range(1, 32))
    bad = lines.pop(17)
    assert bad["error"]["status"] == 422 and "claimed.totals.ana" in bad["error"]["errors"]
    assert all(line.get("created") is True for line in lines), lines
    assert counts(app)["games"] == 30


def test_reads_show_any_time_the_store_holds(app, client):
    """Games stored before the format bounded its years: a played_at past year 9999 in
    UTC, which DuckDB hands back as text.  Every read still answers."""
    game_id = post_log(client, valid(tournament=TOUR)).get_json()["id"]
    with store_of(app).cursor() as cur:
        late = "TIMESTAMPTZ '9999-12-31 23:59:59-01:00'"
        cur.execute(f"UPDATE games SET played_at = {late}, game_time = {late}")
        for table in ("game_players", "deal_players"):
            cur.execute(f"UPDATE {table} SET game_time = {late}")
    reads_answer(client, game_id)
    shown = client.get(f"{API}/games/{game_id}").get_json()["played_at"]
    assert shown.startswith("10000-01-01T00:59:59") and shown.endswith("Z")
    versus = client.get(f"{API}/players/ana/versus/ben").get_json()
    assert versus["recent"][0]["game_time"] == shown


@pytest.mark.parametrize("bound", ["9999-12-31T23:59:59-01:00", "1899-12-31", "10000-01-01",
                                   "2024-02-30", "2016-12-31T23:59:60Z"])
def test_query_bounds_past_the_years_are_parameter_errors(shared_client, bound):
    for path in ("/games", "/players/ana/stats"):
        response = shared_client.get(f"{API}{path}", query_string={"since": bound})
        assert_problem(response, 400, "invalid-parameter")


def test_query_bounds_at_the_edges_answer(shared_client):
    for bound in ("1900-01-01", "9998-12-31T23:59:59-23:59"):
        for path in ("/games", "/players/ana/stats", "/players"):
            response = shared_client.get(f"{API}{path}", query_string={"until": bound})
            assert response.status_code in (200, 404), (path, bound, response.data)


@pytest.mark.parametrize(("query", "field", "message"), [
    ("/games?limit=0", "limit", "must be an integer from 1 to 500"),
    ("/games?limit=501", "limit", "must be an integer from 1 to 500"),
    ("/players?limit=0", "limit", "must be an integer from 1 to 500"),
    ("/players?min_games=-1", "min_games", "must be an integer from 0 to 1000000000"),
])
def test_every_range_is_said_one_way(shared_client, query, field, message):
    """As the log parser says it: 'must be an integer from X to Y' (one message, not a
    second one in another style)."""
    problem = assert_problem(shared_client.get(API + query), 400, "invalid-parameter")
    assert problem["errors"][field] == [message]


def test_settings_say_ranges_the_same_way():
    from service.api.config import Settings

    with pytest.raises(ValueError, match="^RUMMY_PAGE_SIZE must be an integer of at least 1$"):
        Settings.load(environ={"RUMMY_PAGE_SIZE": "0"})

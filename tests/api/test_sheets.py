"""Games recorded on score sheets (deals by their result) through the API: uploaded,
judged and stored like any game; what needs the play (positions, a deal's state, the
analysis of decisions) says the deal has none, instead of failing."""

from __future__ import annotations

import copy
import csv
import io

import orjson
import pyarrow.parquet as pq

from tests.engine.test_sheets import GIN_SHEET, GIN_WORKED, HOLLYWOOD_SHEET, knock

from .helpers import API, assert_problem, counts, lines_of, ndjson, post_log


def mixed() -> dict:
    """The worked gin deal, then a sheet line: ben goes gin against 10 (35)."""
    log = copy.deepcopy(GIN_WORKED)
    log["rules"] = {"deals": 2}
    log["deals"].append({"dealer": "ana",
                         "result": knock("ben", {"ana": 10, "ben": 0}, end="gin")})
    return log


def test_a_sheet_uploads_is_stored_and_read_back(client, app):
    posted = post_log(client, GIN_SHEET)
    assert posted.status_code == 201
    body = posted.get_json()
    assert body["status"] == "valid"
    assert body["report"]["verification"] == "results"
    assert body["report"]["totals"]["points"] == {"ana": 45, "ben": 170}
    game = client.get(f"{API}/games/{body['id']}").get_json()
    assert game["status"] == "valid" and game["winner"] == "ben"
    assert game["report"]["verification"] == "results"
    assert all(d["recorded"] == "result" for d in game["report"]["deals"])
    assert counts(app)["games"] == 1
    listed = client.get(f"{API}/games").get_json()
    assert [g["id"] for g in listed["games"]] == [body["id"]]


def test_a_sheet_deal_has_no_positions_and_no_state(client):
    gid = post_log(client, mixed()).get_json()["id"]
    assert client.get(f"{API}/games/{gid}/deals/0/positions").status_code == 200
    for path in ("deals/1/positions", "deals/1/moves/-1/state"):
        problem = assert_problem(client.get(f"{API}/games/{gid}/{path}"), 404,
                                 "no-such-position")
        assert "recorded by its result" in problem["detail"]


def test_the_analysis_skips_sheet_deals_and_says_so(client):
    gid = post_log(client, mixed()).get_json()["id"]
    response = client.get(f"{API}/games/{gid}/analysis")
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["by_result"] == [1]
    assert all(fact["deal"] == 0 for fact in body["facts"])
    assert body["luck"]["deals"][1]["start"] == [] and body["luck"]["deals"][1]["draws"] == []


def test_a_hollywood_sheet_gives_its_three_games(client):
    body = post_log(client, HOLLYWOOD_SHEET).get_json()
    assert body["status"] == "valid"
    assert [g["winner"] for g in body["report"]["totals"]["games"]] == ["ana", "ben", "ana"]
    page = client.get(f"/games/{body['id']}")  # the game's page
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Hollywood: the three games" in html
    assert "Verification: arithmetic and rules checked; play not recorded." in html
    assert "Every move is legal" not in html


def test_the_page_of_a_mixed_game_says_what_was_checked(client):
    gid = post_log(client, mixed()).get_json()["id"]
    html = client.get(f"/games/{gid}").get_data(as_text=True)
    assert "Every recorded move is legal; 1 deal recorded by the result alone" in html
    assert "score sheet: play not recorded" in html


def test_variant_statistics_count_sheet_deals_but_not_their_turns(client):
    # the worked deal has 3 draws; the sheet deal has no turns recorded
    post_log(client, mixed())
    body = client.get(f"{API}/stats/variants").get_json()
    gin = next(v for v in body["variants"] if v["variant"] == "gin")
    assert (gin["games"], gin["deals"], gin["scored_deals"]) == (1, 2, 2)
    assert gin["avg_turns"] == 3
    # deal 0: ben dealt, ana first and won; deal 1: ana dealt, ben first and won
    assert gin["first_player_win_share"] == 1


def test_the_games_list_names_how_much_of_each_game_was_checked(client):
    moves = post_log(client, GIN_WORKED).get_json()["id"]
    sheet = post_log(client, GIN_SHEET).get_json()["id"]
    both = post_log(client, mixed()).get_json()["id"]
    listed = client.get(f"{API}/games").get_json()["games"]
    assert {g["id"]: g["verification"] for g in listed} == {
        moves: "moves", sheet: "results", both: "mixed"}
    for level, gid in (("moves", moves), ("results", sheet), ("mixed", both)):
        page = client.get(f"{API}/games?verification={level}").get_json()["games"]
        assert [g["id"] for g in page] == [gid]
    assert_problem(client.get(f"{API}/games?verification=paper"), 400, "invalid-parameter")


def test_an_upload_answer_carries_the_verification_level(client):
    assert post_log(client, GIN_SHEET, "?dry_run=true").get_json()["verification"] == "results"
    assert post_log(client, GIN_SHEET).get_json()["verification"] == "results"
    assert post_log(client, GIN_WORKED).get_json()["verification"] == "moves"
    lines = lines_of(client.post(f"{API}/games/batch", data=ndjson(GIN_SHEET, GIN_WORKED,
                                                                   mixed()),
                                 content_type="application/x-ndjson"))
    assert [line["verification"] for line in lines] == ["results", "moves", "mixed"]


def test_the_games_page_marks_the_sheet_game_only(client):
    sheet = post_log(client, GIN_SHEET).get_json()["id"]
    moves = post_log(client, GIN_WORKED).get_json()["id"]
    html = client.get("/games").get_data(as_text=True)
    rows = {gid: row for row in html.split("<tr>")[2:] for gid in (sheet, moves)
            if gid[:12] in row}
    assert "· sheet" in rows[sheet]
    assert "arithmetic and rules checked; play not recorded" in rows[sheet]
    assert "class=\"level" not in rows[moves]
    filtered = client.get("/games?verification=results").get_data(as_text=True)
    assert sheet[:12] in filtered and moves[:12] not in filtered


def test_the_player_page_marks_the_sheet_game_only(client):
    sheet = post_log(client, GIN_SHEET).get_json()["id"]
    moves = post_log(client, GIN_WORKED).get_json()["id"]
    html = client.get("/players/ana").get_data(as_text=True)
    items = {gid: item for item in html.split("<li>") for gid in (sheet, moves)
             if gid[:12] in item}
    assert "· sheet" in items[sheet].split("</li>")[0]
    assert "class=\"level" not in items[moves].split("</li>")[0]


def _at_table(log: dict, table: str) -> dict:
    return dict(log, tournament={"id": "club-night", "round": 1, "table": table})


def test_the_tournament_names_each_games_verification_level(client):
    sheet = post_log(client, _at_table(GIN_SHEET, "A")).get_json()["id"]
    moves = post_log(client, _at_table(GIN_WORKED, "B")).get_json()["id"]
    body = client.get(f"{API}/tournaments/club-night").get_json()
    assert {g["id"]: g["verification"] for g in body["games"]} == {
        sheet: "results", moves: "moves"}
    report = client.get(f"{API}/tournaments/club-night/report.csv").data.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(report, newline="")))
    assert {(r["game"], r["verification"]) for r in rows if r["section"] == "games"} == {
        (sheet, "results"), (moves, "moves")}
    html = client.get("/tournaments/club-night").get_data(as_text=True)
    games = html[html.index('id="games-title"'):]
    cells = {gid: games[games.index(gid[:12]):].split("</tr>")[0] for gid in (sheet, moves)}
    assert "· sheet" in cells[sheet]
    assert "arithmetic and rules checked; play not recorded" in cells[sheet]
    assert "class=\"level" not in cells[moves]


def test_head_to_head_names_each_recent_games_level_and_marks_the_sheet(client):
    sheet = post_log(client, GIN_SHEET).get_json()["id"]
    moves = post_log(client, GIN_WORKED).get_json()["id"]
    body = client.get(f"{API}/players/ana/versus/ben").get_json()
    assert {g["id"]: g["verification"] for g in body["recent"]} == {
        sheet: "results", moves: "moves"}
    html = client.get("/players/ana/versus?opponent=ben").get_data(as_text=True)
    items = {gid: html[html.index(f'data-game="{gid}"'):].split("</li>")[0]
             for gid in (sheet, moves)}
    assert "· sheet" in items[sheet] and "class=\"level" not in items[moves]


def test_the_export_takes_the_verification_filter(client):
    post_log(client, GIN_SHEET)
    post_log(client, GIN_WORKED)
    logs = client.get(f"{API}/games/export?verification=results").data.splitlines()
    assert [orjson.loads(line)["deals"][0].get("result") is not None for line in logs] == [True]
    moves = client.get(f"{API}/games/export?format=parquet&verification=moves")
    assert moves.status_code == 200
    assert set(pq.read_table(io.BytesIO(moves.data)).column("game_id").to_pylist()) == {
        post_log(client, GIN_WORKED).get_json()["id"]}

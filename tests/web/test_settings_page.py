"""The settings page of a tournament: the form shows the stored settings, the tournament
page links to it, and it reads as the tournament's other pages do (a read key, or none
for a public tournament)."""

from __future__ import annotations

import re

from service.api import close_app, create_app
from service.api.config import VARIABLES
from tests.api.helpers import post_log, valid
from tests.api.test_desk import at

from .conftest import BROWSER

WRITE = {"Authorization": "Bearer write-key"}
READ = {**BROWSER, "Authorization": "Bearer read-key"}
SETTINGS = {"name": "Spring Open", "dates": {"start": "2024-05-11", "end": "2024-05-12"},
            "venue": "Club house", "ranking": "match_points",
            "match_points": {"win": 3, "draw": 1, "loss": -1},
            "tie_breaks": ["points_difference", "head_to_head"], "public": False}


def selected(page: str, select_id: str) -> str:
    block = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', page, re.S)
    assert block, select_id
    [value] = re.findall(r'<option value="([^"]*)" selected>', block[1])
    return value


def value(page: str, input_id: str) -> str:
    found = re.search(rf'<input id="{input_id}"[^>]*value="([^"]*)"', page)
    assert found, input_id
    return found[1]


def test_the_form_shows_the_stored_settings(tmp_path):
    app = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                      "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0",
                      "RUMMY_API_KEYS": "director:write-key", "RUMMY_READ_KEYS": "read-key",
                      "RUMMY_DB": str(tmp_path / "rummy.duckdb")})
    try:
        shows_the_stored_settings(app.test_client())
    finally:
        close_app(app)


def shows_the_stored_settings(client):
    assert post_log(client, at(valid(), "spring"), headers=WRITE).status_code == 201

    page = client.get("/tournaments/spring/settings", headers=READ).get_data(as_text=True)
    assert value(page, "s-name") == "" and selected(page, "s-ranking") == "points"
    assert [value(page, f"s-mp-{p}") for p in ("win", "draw", "loss")] == ["2", "1", "0"]
    assert [selected(page, f"s-tb-{n}") for n in range(1, 5)] == [""] * 4
    assert 'id="s-public" name="public" type="checkbox">' in page  # not checked

    assert client.put("/api/v1/tournaments/spring/settings", json=SETTINGS,
                      headers=WRITE).status_code == 200
    page = client.get("/tournaments/spring/settings", headers=READ).get_data(as_text=True)
    assert (value(page, "s-name"), value(page, "s-venue")) == ("Spring Open", "Club house")
    assert (value(page, "s-start"), value(page, "s-end")) == ("2024-05-11", "2024-05-12")
    assert selected(page, "s-ranking") == "match_points"
    assert [value(page, f"s-mp-{p}") for p in ("win", "draw", "loss")] == ["3", "1", "-1"]
    assert [selected(page, f"s-tb-{n}") for n in range(1, 5)] == [
        "points_difference", "head_to_head", "", ""]
    assert 'data-url="/api/v1/tournaments/spring/settings"' in page
    assert "by director" in page and 'id="api-key"' in page

    tournament = client.get("/tournaments/spring", headers=READ).get_data(as_text=True)
    assert 'href="/tournaments/spring/settings" id="settings-link"' in tournament

    # Read as the tournament: 401 without a key, open once the tournament is public.
    assert client.get("/tournaments/spring/settings", headers=BROWSER).status_code == 401
    assert client.put("/api/v1/tournaments/spring/settings", json={**SETTINGS, "public": True},
                      headers=WRITE).status_code == 200
    page = client.get("/tournaments/spring/settings", headers=BROWSER)
    assert page.status_code == 200
    assert 'id="s-public" name="public" type="checkbox" checked>' in page.get_data(as_text=True)
    assert client.get("/tournaments/nosuch/settings", headers=READ).status_code == 404


def test_the_schedule_is_shown_and_its_matters_listed_with_their_actions(tmp_path):
    app = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                      "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0",
                      "RUMMY_API_KEYS": "director:write-key",
                      "RUMMY_DB": str(tmp_path / "rummy.duckdb")})
    try:
        shows_the_schedule(app.test_client())
    finally:
        close_app(app)


def shows_the_schedule(client):
    page = client.get("/tournaments/cup/settings", headers=BROWSER)
    assert page.status_code == 404
    first = post_log(client, at(valid(), "cup", 1, "A"), headers=WRITE).get_json()["id"]
    # Round 2, table A, played by ana and ben: scheduled for ana and cleo.
    off = post_log(client, at(valid(), "cup", 2, "A"), headers=WRITE).get_json()["id"]
    page = client.get("/tournaments/cup/settings", headers=BROWSER).get_data(as_text=True)
    assert re.search(r'<textarea id="s-schedule"[^>]*></textarea>', page)  # none yet

    schedule = [{"round": 1, "table": "A", "players": ["ana", "ben"]},
                {"round": 1, "table": "B", "players": ["cleo", "dan"]},
                {"round": 2, "table": "A", "players": ["ana", "cleo"]},
                {"round": 2, "table": "B", "players": ["ben", "dan"],
                 "not_played": "dan withdrew"}]
    assert client.put("/api/v1/tournaments/cup/settings", json={"schedule": schedule},
                      headers=WRITE).status_code == 200
    page = client.get("/tournaments/cup/settings", headers=BROWSER).get_data(as_text=True)
    area = re.search(r'<textarea id="s-schedule"[^>]*>(.*?)</textarea>', page, re.S)
    assert area and area[1] == ("1, A, ana, ben\n1, B, cleo, dan\n2, A, ana, cleo\n"
                                "2, B, ben, dan | not played: dan withdrew\n")
    assert 'id="s-schedule-errors"' in page

    tournament = client.get("/tournaments/cup", headers=BROWSER).get_data(as_text=True)
    kinds = re.findall(r'<li class="matter" data-kind="([a-z_]+)"', tournament)
    assert kinds == ["schedule_mismatch", "missing_table"]
    missing = tournament.split('data-kind="missing_table"')[1].split("</li>")[0]
    assert "round 1, table B (scheduled for cleo, dan)" in missing
    assert 'href="/tournaments/cup/settings#s-schedule"' in missing
    assert "ruling-form" not in missing and "keep-form" not in missing
    mismatch = tournament.split('data-kind="schedule_mismatch"')[1].split("</li>")[0]
    assert f'href="/games/{off}"' in mismatch
    # A valid game off its schedule may be ruled "stands": the form offers it.
    assert re.findall(r'<option value="([a-z_]+)">', mismatch) == [
        "void", "forfeit", "stands", "ana", "ben"]
    game = client.get(f"/games/{off}", headers=BROWSER).get_data(as_text=True)
    assert '<option value="stands">' in game
    game = client.get(f"/games/{first}", headers=BROWSER).get_data(as_text=True)
    assert '<option value="void">' in game and '<option value="stands">' not in game


def test_a_reason_stored_on_several_lines_stays_one_line_of_the_schedule():
    """A table's not-played reason is one line of the text area, whatever was stored
    before reasons were held to one line: saving the form again keeps it whole."""
    from service.web.settings import schedule_line
    entry = {"round": 2, "table": "B", "players": ["cleo", "dan"],
             "not_played": "dan withdrew\n2, C, x, y"}
    assert schedule_line(entry) == "2, B, cleo, dan | not played: dan withdrew 2, C, x, y"

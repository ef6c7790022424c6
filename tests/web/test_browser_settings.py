"""The settings page in a real headless Chromium against the real service (gunicorn as
shipped, one server for the module, writes behind a key): a refusal shows the API's
problem, the saved form changes the tournament's settings, and the write key typed once
stays in the tab for the next page.

Skipped, and saying why, without Chromium or Playwright (as test_browser.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.api.helpers import valid
from tests.api.test_desk import at
from tests.e2e.server import Server

from .chromium import sync_api

KEY = "settings-test-key"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("settings") / "rummy.duckdb",
                 env={"RUMMY_API_KEYS": f"director:{KEY}", "RUMMY_VERIFY_PROCESSES": "0"}).start()
    status, _, body = srv.request("POST", "/api/v1/games", json.dumps(at(valid(), "cup")).encode(),
                                  {"Content-Type": "application/json",
                                   "Authorization": f"Bearer {KEY}"})
    assert status == 201, body
    yield srv
    srv.stop()


def settings_of(server: Server) -> dict:
    status, body = server.get_json("/api/v1/tournaments/cup/settings")
    assert status == 200, body
    return body


def test_the_settings_form_is_refused_without_the_key_and_saved_with_it(watched, server):
    page = watched.page
    page.goto("/tournaments/cup")
    page.locator("#settings-link").click()
    page.wait_for_url("**/tournaments/cup/settings")
    result = page.locator("#settings-result")

    page.fill("#s-name", "Club Cup")
    page.locator("#s-save").click()
    sync_api.expect(result).to_contain_text("Refused (HTTP 401)")
    sync_api.expect(result).to_contain_text("needs an API key")
    assert settings_of(server)["name"] is None

    page.fill("#api-key", KEY)
    page.fill("#s-start", "2024-05-11")  # the last day left out: the API says so
    page.locator("#s-save").click()
    sync_api.expect(result).to_contain_text("Refused (HTTP 422)")
    sync_api.expect(result).to_contain_text("dates.end")
    # The browser logs each refused request; those two were meant.
    refused = [e for e in watched.errors if "status of 401" in e or "status of 422" in e]
    assert len(refused) == 2, watched.errors
    watched.errors[:] = [e for e in watched.errors if e not in refused]

    page.fill("#s-end", "2024-05-12")
    page.fill("#s-venue", "Club house")
    page.select_option("#s-ranking", "match_points")
    page.fill("#s-mp-win", "3")
    page.select_option("#s-tb-1", "head_to_head")
    page.select_option("#s-tb-2", "points")
    page.check("#s-public")
    page.locator("#s-save").click()
    sync_api.expect(result).to_have_text("Saved by director.")
    # An edit after the save: the page no longer says the form is saved.
    page.fill("#s-venue", "Club house, upstairs")
    sync_api.expect(result).to_have_text("Changed since it was saved: not saved yet.")
    page.fill("#s-venue", "Club house")
    stored = settings_of(server)
    assert {k: stored[k] for k in ("name", "dates", "venue", "ranking", "match_points",
                                   "tie_breaks", "public")} == {
        "name": "Club Cup", "dates": {"start": "2024-05-11", "end": "2024-05-12"},
        "venue": "Club house", "ranking": "match_points",
        "match_points": {"win": 3, "draw": 1, "loss": 0},
        "tie_breaks": ["head_to_head", "points"], "public": True}

    # The page read again shows what was saved; the key is still in the tab.
    page.reload()
    sync_api.expect(page.locator("#s-name")).to_have_value("Club Cup")
    sync_api.expect(page.locator("#s-public")).to_be_checked()
    sync_api.expect(page.locator("#api-key")).to_have_value(KEY)
    page.goto("/")
    sync_api.expect(page.locator("#api-key")).to_have_value(KEY)  # the upload page's too


def test_the_schedule_is_read_line_by_line_and_its_errors_shown_by_line(watched, server):
    page = watched.page
    page.goto("/tournaments/cup/settings")
    page.fill("#api-key", KEY)
    result = page.locator("#settings-result")
    errors = page.locator("#s-schedule-errors li")

    # A line the page cannot read is not sent: said by its line (blank lines count).
    page.fill("#s-schedule", "1, A, ana, ben\n\nx, B, cleo, dan\n2, A, ana | absent")
    page.locator("#s-save").click()
    sync_api.expect(result).to_contain_text("Not sent")
    sync_api.expect(errors).to_have_text([
        "line 3: the round is a whole number",
        'line 4: after "|" write "not played: the reason"'])
    assert "schedule" not in settings_of(server)

    # The API's refusal, by line: a player twice, a table scheduled twice.
    page.fill("#s-schedule", "1, A, ana, ben\n\n1, B, cleo, cleo\n1, A, dan, eve")
    page.locator("#s-save").click()
    sync_api.expect(result).to_contain_text("Refused (HTTP 422)")
    sync_api.expect(errors).to_have_text([
        "line 3: players: each player once at a table",
        "line 4: table: round 1, table A is scheduled already (entry 0)"])
    refused = [e for e in watched.errors if "status of 422" in e]
    assert len(refused) == 1, watched.errors
    watched.errors[:] = [e for e in watched.errors if e not in refused]
    assert "schedule" not in settings_of(server)

    page.fill("#s-schedule", "1, A, ana, ben\n1, B, cleo, dan | not played: dan withdrew\n")
    page.locator("#s-save").click()
    sync_api.expect(result).to_contain_text("Saved")
    sync_api.expect(errors).to_have_count(0)
    assert settings_of(server)["schedule"] == [
        {"round": 1, "table": "A", "players": ["ana", "ben"], "not_played": None},
        {"round": 1, "table": "B", "players": ["cleo", "dan"], "not_played": "dan withdrew"}]
    page.reload()
    sync_api.expect(page.locator("#s-schedule")).to_have_value(
        "1, A, ana, ben\n1, B, cleo, dan | not played: dan withdrew\n")


def test_an_edit_while_the_save_is_on_its_way_is_not_called_saved(watched, server):
    """The form is edited after it was sent, before its answer: the answer says what
    was saved was the form as sent, and that the edit is not saved yet.  An edit after a
    refusal keeps the refusal readable, said to be the answer to the form before it."""
    page = watched.page
    page.goto("/tournaments/cup/settings")
    page.fill("#api-key", KEY)
    result = page.locator("#settings-result")
    held: list = []
    page.route("**/api/v1/tournaments/cup/settings", lambda route: held.append(route))

    page.fill("#s-venue", "Hall A")
    page.locator("#s-save").click()
    sync_api.expect(result).to_have_text("Saving…")
    page.fill("#s-venue", "Hall B")  # edited while the save is held
    for _ in range(50):
        if held:
            break
        page.wait_for_timeout(100)
    held.pop().continue_()
    sync_api.expect(result).to_have_text(
        "Saved by director, as it was sent; changed while it was saving: not saved yet.")
    assert settings_of(server)["venue"] == "Hall A"
    page.unroute("**/api/v1/tournaments/cup/settings")

    page.fill("#s-start", "2024-05-11")
    page.fill("#s-end", "")
    page.locator("#s-save").click()
    sync_api.expect(result).to_contain_text("Refused (HTTP 422)")
    refused = [e for e in watched.errors if "status of 422" in e]
    assert len(refused) == 1, watched.errors
    watched.errors[:] = [e for e in watched.errors if e not in refused]
    page.fill("#s-end", "2024-05-12")
    sync_api.expect(result).to_contain_text("Changed since it was refused: not sent yet. "
                                            "The refusal was:")
    sync_api.expect(result).to_contain_text("dates.end")
    assert "stale" in (result.get_attribute("class") or "")
    page.locator("#s-save").click()
    sync_api.expect(result).to_have_text("Saved by director.")
    assert settings_of(server)["venue"] == "Hall B"


def test_the_settings_page_fits_a_phone(watched, server):
    page = watched.page
    page.set_viewport_size({"width": 360, "height": 900})
    page.goto("/tournaments/cup/settings")
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    box = page.locator("#s-schedule").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 360
    note = page.locator("#s-schedule-note").bounding_box()
    assert note is not None and note["x"] + note["width"] <= 360

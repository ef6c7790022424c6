"""A director's day in a real headless Chromium against the real service (gunicorn as
shipped, one server for the module, writes behind a key): a round is uploaded with a
table entered twice, an illegal game and a wrong claim; the tournament page says
provisional with three matters; the director, typing the write key once, keeps one copy
of the table, refuses nothing by mistake (a refusal is said in words), rules on the two
games from the pages; the page says Final, its standings are the CSV's, and its print
view has no menu.

Skipped, and saying why, without Chromium or Playwright (as test_browser.py)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

import pytest

from tests.api.helpers import illegal, mismatch, valid
from tests.e2e.server import Server

from .chromium import SHOTS, Watched, api, sync_api

KEY = "director-test-key"
TOURNAMENT = "director-day"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("director") / "rummy.duckdb",
                 env={"RUMMY_API_KEYS": f"td:{KEY}", "RUMMY_VERIFY_PROCESSES": "0",
                      "RUMMY_ANALYSIS": "0"}).start()
    yield srv
    srv.stop()


def upload(server: Server, log: dict) -> dict:
    status, _, body = server.request("POST", "/api/v1/games", json.dumps(log).encode(), {
        "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    assert status == 201, body
    return json.loads(body)


def at(log: dict, table: str) -> dict:
    return log | {"tournament": {"id": TOURNAMENT, "round": 1, "table": table}}


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000


def test_a_directors_day_settled_from_the_pages(watched, server, tmp_path):
    first = upload(server, at(valid(), "A"))["id"]
    again = upload(server, at(valid(id="typed-again"), "A"))["id"]
    bad = upload(server, at(illegal(), "B"))
    wrong = upload(server, at(mismatch(), "C"))
    assert (bad["status"], wrong["status"]) == ("illegal", "mismatch")
    bad, wrong = bad["id"], wrong["id"]

    page = watched.page
    page.on("dialog", lambda dialog: dialog.accept())  # each "are you sure?": yes
    page.goto(f"/tournaments/{TOURNAMENT}")
    state = page.locator("#state-title")
    sync_api.expect(state).to_have_text("Provisional: 3 matters open")
    assert page.locator("li.matter").evaluate_all("(all) => all.map((m) => m.dataset.kind)") \
        == ["duplicate_table", "illegal_game", "score_mismatch"]
    shot(page, "director-provisional-1280")

    # The re-entered table: keep the first copy. The key is typed here, once.
    page.fill("#director-key", KEY)
    keep = page.locator('form[data-action="keep"]')
    keep.locator('input[name="reason"]').fill("table A entered twice")
    keep.locator(f'button[value="{first}"]').click()
    answer = page.locator("#director-answer")
    sync_api.expect(answer).to_have_text(
        f"Kept game {first[:12]}; withdrawn: {again[:12]} (reason: \u2068table A entered twice\u2069).")
    sync_api.expect(state).to_have_text("Provisional: 2 matters open")
    withdrawn = api(server, f"/tournaments/{TOURNAMENT}/withdrawn")["withdrawn"]
    assert [(w["id"], w["deleted_by"], w["reason"]) for w in withdrawn] == [
        (again, "td", "table A entered twice")]

    # The illegal game, from its own page: the key is there already.
    page.locator('li.matter[data-kind="illegal_game"] a', has_text="the director's panel").click()
    page.wait_for_url(f"**/games/{bad}#director")
    sync_api.expect(page.locator("#director-key")).to_have_value(KEY)
    assert page.locator("#director-ruling option").evaluate_all("(all) => all.map((o) => o.value)") \
        == ["", "void", "forfeit", "to_violation", "stands"]  # none chosen for the director
    against = page.locator("#director-against")
    sync_api.expect(against).to_be_hidden()  # only a forfeit is against a player
    # A refusal is said in words: the game's own log is no correction.
    log = tmp_path / "same.json"
    log.write_bytes(server.request("GET", f"/api/v1/games/{bad}/log")[2])
    page.set_input_files("#replace-file", str(log))
    page.fill("#replace-reason", "corrected")
    page.locator("#replace-form button").click()
    sync_api.expect(answer).to_have_text(
        f"Refused: this log is the one of game {bad}: a correction is a changed log; "
        "nothing changed.")
    watched.errors.clear()  # the browser logs the 409 itself
    page.select_option("#director-ruling", "forfeit")
    sync_api.expect(against).to_be_visible()
    page.select_option("#director-against", "ana")
    page.fill("#director-ruling-reason", "discarded a card she did not hold")
    page.locator("#director-ruling-form button").click()
    sync_api.expect(answer).to_have_text(
        f"Recorded on game {bad[:12]}: forfeit against ana (reason: \u2068discarded a card she did "
        "not hold\u2069).")
    sync_api.expect(page.locator("#ruling")).to_contain_text(
        "Verdict: illegal; ruling: forfeit against ana (td,")
    shot(page, "director-game-1280")

    # The wrong claim, inline on the tournament page.
    page.goto(f"/tournaments/{TOURNAMENT}")
    sync_api.expect(state).to_have_text("Provisional: 1 matter open")
    sync_api.expect(page.locator("#director-key")).to_have_value(KEY)
    matter = page.locator('li.matter[data-kind="score_mismatch"]')
    matter.locator("select[name=ruling]").select_option("recomputed")
    matter.locator("input[name=reason]").fill("the claim was mistyped")
    matter.locator("button").click()
    sync_api.expect(state).to_have_text("✔ Final")
    sync_api.expect(answer).to_have_text(
        f"Recorded on game {wrong[:12]}: recomputed (reason: \u2068the claim was mistyped\u2069).")
    assert api(server, f"/tournaments/{TOURNAMENT}")["final"] is True
    assert page.locator("#rulings li.ruling").count() == 2

    # The CSV's standings are the page's.
    shown = page.locator("table.standings tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent.trim()))")
    response = page.request.get(page.locator("a", has_text="Download CSV").get_attribute("href"))
    assert response.ok
    rows = [row for row in csv.DictReader(io.StringIO(response.text().lstrip("\ufeff")))
            if row["section"] == "standings"]
    assert rows and [[r["player"], r["rank"], r["points"], r["games"], r["won"]]
                     for r in rows] == [[c[0], c[1], c[2], c[5], c[6]] for c in shown]

    # Printed: no menu, no director's forms.
    page.emulate_media(media="print")
    assert not page.locator("header.site nav").is_visible()
    assert not page.locator("#director-answer").is_visible()
    assert page.locator("table.standings").first.is_visible()
    shot(page, "director-final-print")


def test_a_game_replaced_ruled_unruled_and_withdrawn_from_its_page(watched, server, tmp_path):
    """The other actions of the panel, each answered in words: a wrong key refused, a
    corrected log stored in the game's place (the page moves to the new game), a ruling
    recorded then withdrawn, the game withdrawn (the page moves to its tournament, which
    stays readable once its last game is withdrawn).  The panel fits a 360 px phone."""
    where = {"tournament": {"id": "corrections", "round": 2, "table": "7"}}
    old = upload(server, mismatch() | where)["id"]
    last = upload(server, illegal() | {"tournament": {"id": "corrections", "round": 2,
                                                      "table": "8"}})["id"]
    corrected = tmp_path / "corrected.json"
    corrected.write_text(json.dumps(valid() | where))

    page = watched.page
    page.on("dialog", lambda dialog: dialog.accept())  # each "are you sure?": yes
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(f"/games/{old}#director")
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    page.set_viewport_size({"width": 1280, "height": 900})
    answer = page.locator("#director-answer")
    page.fill("#director-key", "not-the-key")
    page.set_input_files("#replace-file", str(corrected))
    page.fill("#replace-reason", "deal 1 claim mistyped")
    page.locator("#replace-form button").click()
    sync_api.expect(answer).to_have_text(
        "Refused: the key typed is not one of this server's write keys: check it, then try "
        "again.")
    watched.errors.clear()  # the browser logs the 403 itself
    assert api(server, "/tournaments/corrections/withdrawn")["withdrawn"] == []
    # A reason too long for a query (1,000 characters of three bytes each, encoded): said
    # before anything is sent, with the way to send it.
    page.fill("#director-key", KEY)
    page.fill("#replace-reason", "\u6f22" * 1000)
    page.locator("#replace-form button").click()
    sync_api.expect(answer).to_contain_text(
        "Refused: the reason is too long to go with a correction (9041 bytes once encoded, "
        "at most 7000)")
    sync_api.expect(answer).to_contain_text("POST /api/v1/games/batch")
    assert api(server, "/tournaments/corrections/withdrawn")["withdrawn"] == []
    page.fill("#replace-reason", "deal 1 claim mistyped")

    page.fill("#director-key", KEY)
    page.locator("#replace-form button").click()
    page.wait_for_url(lambda url: "/games/" in url and old not in url)
    new = page.url.rsplit("/", 1)[1]
    assert new != old
    sync_api.expect(answer).to_have_text(
        f"Game {old[:12]} is replaced by game {new[:12]} (valid; reason: \u2068deal 1 claim "
        "mistyped\u2069).")
    [gone] = api(server, "/tournaments/corrections/withdrawn")["withdrawn"]
    assert (gone["id"], gone["replaced_by"], gone["reason"]) == (
        old, new, "deal 1 claim mistyped")

    assert page.locator("#director-ruling option").evaluate_all(
        "(all) => all.map((o) => o.value)") == ["", "void", "forfeit"]
    page.fill("#director-ruling-reason", "played at the wrong table")
    page.locator("#director-ruling-form button").click()  # no ruling chosen: not sent
    assert page.locator("#director-ruling").evaluate("(s) => s.validity.valueMissing")
    assert server.request("GET", f"/api/v1/games/{new}/ruling")[0] == 404  # none recorded
    page.select_option("#director-ruling", "void")
    page.locator("#director-ruling-form button").click()
    sync_api.expect(page.locator("p#ruling")).to_contain_text("Verdict: valid; ruling: void")
    page.fill("#unrule-reason", "it was the right table")
    page.locator("#unrule-form button").click()
    sync_api.expect(answer).to_have_text(
        f"The ruling on game {new[:12]} is withdrawn: its matter is open again.")
    assert page.locator("p#ruling").count() == 0
    status, _, body = server.request("GET", f"/api/v1/games/{new}/ruling")
    [entry] = json.loads(body)["history"]
    assert (entry["withdrawn_by"], entry["withdrawn_reason"]) == ("td", "it was the right table")

    page.fill("#withdraw-reason", "the match was replayed")
    page.locator("#withdraw-form button").click()
    page.wait_for_url("**/tournaments/corrections")
    sync_api.expect(answer).to_have_text(
        f"Game {new[:12]} is withdrawn (reason: \u2068the match was replayed\u2069); it no longer counts "
        "anywhere.")
    sync_api.expect(page.locator("#withdrawn li")).to_have_count(2)
    assert server.request("GET", f"/api/v1/games/{new}")[0] == 410

    # The tournament's last game withdrawn: its page stays, with no standings, the
    # withdrawn games, and a note saying every game was withdrawn.
    page.goto(f"/games/{last}#director")
    page.fill("#withdraw-reason", "entered in the wrong event")
    page.locator("#withdraw-form button").click()
    page.wait_for_url("**/tournaments/corrections")
    sync_api.expect(answer).to_have_text(
        f"Game {last[:12]} is withdrawn (reason: \u2068entered in the wrong event\u2069); it no longer "
        "counts anywhere.")
    sync_api.expect(page.locator("#all-withdrawn")).to_contain_text(
        "Every game of this tournament was withdrawn (3 games)")
    sync_api.expect(page.locator("#withdrawn li")).to_have_count(3)
    assert page.locator("table.standings").count() == 0
    sync_api.expect(page.locator("#state-title")).to_have_text("No live game")
    assert server.request("GET", f"/api/v1/games/{last}")[0] == 410
    assert api(server, "/tournaments/corrections")["withdrawn"] == 3


def test_keeping_a_copy_is_one_request_all_or_nothing(watched, server):
    """The page's "Keep game" sends one request for the table: when it is refused (here
    the copy chosen was withdrawn meanwhile by someone else), no other copy is withdrawn
    and the refusal says so; kept again, every other copy goes at once."""
    copies = [upload(server, valid(id=f"copy-{k}") | {"tournament": {
        "id": "stale-keep", "round": 4, "table": "2"}})["id"] for k in range(3)]
    page = watched.page
    page.on("dialog", lambda dialog: dialog.accept())  # each "are you sure?": yes
    page.goto("/tournaments/stale-keep")
    page.fill("#director-key", KEY)
    status, _, _ = server.request("DELETE", f"/api/v1/games/{copies[0]}?reason=meanwhile",
                                  headers={"Authorization": f"Bearer {KEY}"})
    assert status == 200
    keep = page.locator('form[data-action="keep"]')
    keep.locator('input[name="reason"]').fill("table 2 entered three times")
    keep.locator(f'button[value="{copies[0]}"]').click()
    answer = page.locator("#director-answer")
    sync_api.expect(answer).to_contain_text(
        f"Refused: nothing was withdrawn: game '{copies[0]}' is not a live game of round 4")
    watched.errors.clear()  # the browser logs the 409 itself
    withdrawn = api(server, "/tournaments/stale-keep/withdrawn")["withdrawn"]
    assert [w["id"] for w in withdrawn] == [copies[0]]

    keep.locator(f'button[value="{copies[1]}"]').click()
    sync_api.expect(answer).to_have_text(
        f"Kept game {copies[1][:12]}; withdrawn: {copies[2][:12]} (reason: \u2068table 2 entered "
        "three times\u2069).")
    sync_api.expect(page.locator("#state-title")).to_have_text("✔ Final")
    withdrawn = api(server, "/tournaments/stale-keep/withdrawn")["withdrawn"]
    assert [(w["id"], w["deleted_by"]) for w in withdrawn] == [(copies[0], "td"),
                                                               (copies[2], "td")]


def test_a_public_tournament_opens_without_a_key_and_a_private_one_asks_for_it(
        browser, tmp_path):
    """On a server whose reads need a key, the director makes one event public: a
    visitor with no key reads its standings, crosstable and CSV, is asked for a key by
    the other event and by the public one's games, and gets in once the key is typed."""
    private = Server(tmp_path / "rummy.duckdb",
                     env={"RUMMY_API_KEYS": f"td:{KEY}", "RUMMY_READ_KEYS": "club:read-key",
                          "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0"}).start()
    try:
        games = {}
        for event in ("open-cup", "club-cup"):
            log = valid() | {"tournament": {"id": event, "round": 1, "table": "A"}}
            games[event] = upload(private, log)["id"]
        status, _, body = private.request(
            "PUT", "/api/v1/tournaments/open-cup/settings",
            json.dumps({"name": "The open cup", "public": True}).encode(),
            {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        assert status == 200, body

        visitor = Watched(browser, f"http://127.0.0.1:{private.port}")
        page = visitor.page
        try:
            shown = page.goto("/tournaments/open-cup")
            assert shown.status == 200
            sync_api.expect(page.locator("h1")).to_contain_text("The open cup")
            sync_api.expect(page.locator("#public-note")).to_be_visible()
            assert page.locator("table.standings tbody tr").count() == 2
            assert page.goto("/tournaments/open-cup/crosstable").status == 200
            csv_answer = page.request.get("/api/v1/tournaments/open-cup/report.csv")
            assert csv_answer.status == 200 and "ana" in csv_answer.text()

            # The other event, and the public one's own games, ask for the key.
            for path in ("/tournaments/club-cup", f"/games/{games['open-cup']}"):
                assert page.goto(path).status == 401, path
                sync_api.expect(page.locator("h1")).to_have_text("A read key is needed")
            page.goto("/key?next=/tournaments/club-cup")
            page.fill("#read-key", "read-key")
            page.locator("#key-form button[type=submit]").click()
            page.wait_for_url("**/tournaments/club-cup")
            assert page.locator("table.standings tbody tr").count() == 2
            sync_api.expect(page.locator("#public-note")).to_have_count(0)
        finally:
            visitor.close()
        # A 401 answer is logged by the browser as a failed resource: the only errors.
        assert all("401" in error for error in visitor.errors), visitor.errors
    finally:
        private.stop()


def test_a_game_withdrawn_by_mistake_is_restored_from_its_page_and_from_the_list(
        watched, server):
    """The withdrawn game's page (410) has the Restore form: with a reason, the game is
    restored and the page moves to the game, saying so; from the tournament's withdrawn
    list, a copy of a table restored beside the kept one is restored with the warning
    said in words, and the tournament is provisional again."""
    where = {"tournament": {"id": "restored", "round": 1, "table": "3"}}
    first = upload(server, valid(id="first") | where)["id"]
    second = upload(server, valid(id="second") | where)["id"]
    status, _, _ = server.request(
        "POST", "/api/v1/tournaments/restored/tables/1/3/keep",
        json.dumps({"game": first, "reason": "entered twice"}).encode(),
        {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    assert status == 200
    status, _, _ = server.request("DELETE", f"/api/v1/games/{first}?reason=wrong+copy",
                                  headers={"Authorization": f"Bearer {KEY}"})
    assert status == 200

    page = watched.page
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.goto(f"/games/{first}")
    answer = page.locator("#director-answer")
    page.fill("#director-key", KEY)
    page.locator("#restore-form button").click()  # no reason: not sent
    assert page.locator("#restore-reason").evaluate("(i) => i.validity.valueMissing")
    page.fill("#restore-reason", "withdrawn by mistake")
    page.locator("#restore-form button").click()
    page.wait_for_url(f"**/games/{first}")
    sync_api.expect(answer).to_have_text(
        f"Game {first[:12]} is restored (reason: \u2068withdrawn by mistake\u2069): it counts again.")
    assert server.request("GET", f"/api/v1/games/{first}")[0] == 200
    assert asked == [f"Restore game {first[:12]}? It counts again in the standings, "
                     "statistics and ratings (its withdrawal stays on record)."]
    # The browser logs the withdrawn page's 410 itself, and nothing else.
    assert {"410" in error for error in watched.errors} <= {True}
    watched.errors.clear()

    page.goto("/tournaments/restored")
    restore = page.locator(f'form[data-action="restore"][data-game="{second}"]')
    restore.locator('input[name="reason"]').fill("both copies were real games")
    restore.locator("button").click()
    sync_api.expect(answer).to_contain_text(
        f"Game {second[:12]} is restored (reason: \u2068both copies were real games\u2069): it counts "
        f"again. Its round and table are re-entered: {first[:12]} holds it too")
    sync_api.expect(page.locator("#state-title")).to_contain_text("Provisional: 1 matter")
    assert api(server, "/tournaments/restored/withdrawn")["withdrawn"] == []

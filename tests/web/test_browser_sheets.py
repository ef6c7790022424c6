"""The score-sheet page in a real headless Chromium against the real service (gunicorn
as shipped, one server for the module, writes behind a key): a gin sheet entered by
keyboard alone, its slips flagged in words as they are typed, fixed, stored, downloaded
and found in the tournament's standings; and the sheet usable on a 360 px phone.

Skipped, and saying why, without Chromium or Playwright (as test_browser.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.e2e.server import Server

from .chromium import Watched, api, sync_api

KEY = "sheet-test-key"
TOURNAMENT = "club night"

# Gin to 100, ana and ben, as the paper sheet has it (box 20, no game bonus):
#  deal  dealer  end    by   deadwood ana/ben  points      totals ana/ben
#   1    ben     knock  ana     5 / 30         ana 25        25 /   0
#   2    ana     gin    ben    20 /  –         ben 45        25 /  45   (25 + 20)
#   3    ben     knock  ana     8 /  6         ben 27        25 /  72   (undercut: 2 + 25)
#   4    ana     void                                        25 /  72
#   5    ben     knock  ana     3 / 23         ana 20        45 /  72
#   6    ana     knock  ben    30 /  2         ben 28        45 / 100   (ben reaches 100)
# Boxes: ana 2, ben 3 (the void deal is nobody's): ana 45 + 40 = 85, ben 100 + 60 = 160.
# Each line: dealer (kept as the page fills it), end, by, deadwood, points, totals; a
# select is chosen by typing its first letter, a blank field is passed over.
SHEET = [
    ["", "k", "a", "5", "30", "25", "", "25", "0"],
    ["", "g", "b", "20", "", "", "45", "25", "45"],
    ["", "k", "a", "8", "6", "", "27", "25", "72"],
    ["", "v", "", "", "", "", "", "25", "72"],
    ["", "k", "a", "3", "23", "20", "", "45", "72"],
    ["", "k", "b", "30", "2", "", "28", "45", "100"],
]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("sheets") / "rummy.duckdb",
                 env={"RUMMY_API_KEYS": f"scorer:{KEY}", "RUMMY_VERIFY_PROCESSES": "0"}).start()
    yield srv
    srv.stop()


def type_fields(page, fields: list[str]) -> None:
    """Type each field of a line and Tab past it, the last one left focused."""
    for n, text in enumerate(fields):
        if text:
            page.keyboard.type(text)
        if n < len(fields) - 1:
            page.keyboard.press("Tab")


def focused(page) -> str:
    return page.evaluate("document.activeElement.id")


def test_a_six_deal_gin_sheet_entered_by_keyboard_checked_stored_and_counted(
        watched, server, tmp_path):
    page = watched.page
    page.goto("/")
    page.locator("#sheet-link a").click()
    page.wait_for_url("**/sheets/new")
    assert focused(page) == "variant"  # the first field has the focus: no mouse needed
    sync_api.expect(page.locator("#variant")).to_have_value("gin")
    page.keyboard.press("Tab")
    type_fields(page, ["ana", "ben", TOURNAMENT, "2", "3"])
    page.fill("#played-on", "2024-05-01")  # the day on the paper sheet
    _tab_to(page, "api-key")  # past the day's fields and the options, left closed
    page.keyboard.type(KEY)
    page.keyboard.press("Tab")
    assert focused(page) == "d1-dealer"
    sync_api.expect(page.locator("#d1-dealer")).to_have_value("ben")  # ana plays first

    for n, line in enumerate(SHEET, start=1):
        assert focused(page) == f"d{n}-dealer"
        if n == 3:  # ben's total slips: 73 written for 72
            type_fields(page, [*line[:-1], "73"])
            note = page.locator("#d3-note")
            sync_api.expect(note).to_contain_text(
                "SCORE_MISMATCH ben's claimed total after the deal is 73, recomputed 72")
            sync_api.expect(page.locator('tr.deal[data-deal="3"]')).to_have_attribute(
                "data-state", "mismatch")
            page.keyboard.press("Backspace")
            page.keyboard.type("2")
            sync_api.expect(note).to_have_text("Agrees with the rules (undercut: ben 27).")
        elif n == 5:  # ana's deadwood slips: 13, over the knock limit
            type_fields(page, [*line[:3], "13", *line[4:]])
            note = page.locator("#d5-note")
            sync_api.expect(note).to_contain_text(
                "KNOCK_OVER_LIMIT ana knocked with 13 deadwood; the limit is 10")
            sync_api.expect(page.locator('tr.deal[data-deal="5"]')).to_have_attribute(
                "data-state", "illegal")
            sync_api.expect(page.locator("#sheet-status")).to_contain_text("illegal")
            for _ in range(5):  # back to the deadwood, as a keyboard user would
                page.keyboard.press("Shift+Tab")
            assert focused(page) == "d5-value-1"
            page.keyboard.press("Control+a")
            page.keyboard.type("3")
            sync_api.expect(note).to_have_text("Agrees with the rules (knock: ana 20).")
        else:
            type_fields(page, line)
        if n < len(SHEET):
            page.keyboard.press("Enter")  # the next deal
    sync_api.expect(page.locator("#d6-note")).to_have_text(
        "Agrees with the rules (knock: ben 28).")
    sync_api.expect(page.locator("tr.deal")).to_have_count(6)
    page.keyboard.press("Tab")
    assert focused(page) == "final-winner"
    type_fields(page, ["b", "85", "160"])
    status = page.locator("#sheet-status")
    sync_api.expect(status).to_have_attribute("data-status", "valid")
    sync_api.expect(page.locator("#sheet-state")).to_contain_text(
        "Totals as the rules give them: ana 85, ben 160 · winner ben.")
    for n in range(1, 7):
        # each line's mark is redrawn when the last check's answer arrives: wait for it
        sync_api.expect(page.locator(f'tr.deal[data-deal="{n}"]')).to_have_attribute(
            "data-state", "ok")
    assert api(server, "/games")["games"] == []  # every check was a dry run

    for _ in range(4):  # past "Add a deal", "Remove the last deal" and "Store"
        page.keyboard.press("Tab")
    assert focused(page) == "download"
    with page.expect_download() as download:
        page.keyboard.press("Enter")
    path = tmp_path / "sheet.json"
    download.value.save_as(path)
    assert download.value.suggested_filename == "sheet-club_night-r2-t3.json"
    log = json.loads(path.read_text())
    assert log["format"] == "rummy-log/1" and log["variant"] == "gin"
    assert log["tournament"] == {"id": TOURNAMENT, "round": 2, "table": "3"}
    assert log["played_at"] == "2024-05-01T00:00:00Z"
    assert [d["result"]["end"] for d in log["deals"]] == ["knock", "gin", "knock", "void",
                                                          "knock", "knock"]
    assert log["deals"][1]["result"]["hand_values"] == {"ana": 20, "ben": 0}
    assert log["deals"][2]["claimed"] == {"points": {"ben": 27},
                                          "totals": {"ana": 25, "ben": 72}}
    assert log["claimed"] == {"totals": {"ana": 85, "ben": 160}, "winner": "ben"}

    page.keyboard.press("Shift+Tab")
    assert focused(page) == "store"
    page.keyboard.press("Enter")
    stored = page.locator("#stored-line")
    sync_api.expect(stored).to_have_attribute("data-status", "valid")
    game_id = stored.locator("a.game-link").get_attribute("href").rsplit("/", 1)[1]
    game = api(server, f"/games/{game_id}")
    assert game["status"] == "valid" and game["winner"] == "ben"
    assert game["report"]["verification"] == "results"
    assert game["uploader"] == "scorer"
    assert game["played_at"].startswith("2024-05-01T00:00")
    # the file downloaded is the game stored: sent again, it is the same game
    status, _, body = server.request("POST", "/api/v1/games", path.read_bytes(), {
        "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    assert status == 200 and json.loads(body)["id"] == game_id

    stored.locator("a.tournament-link").click()
    page.wait_for_url("**/tournaments/club%20night")
    standings = page.locator('section[aria-labelledby="st-gin"] table.standings tbody tr')
    sync_api.expect(standings).to_have_count(2)
    ben = standings.filter(has_text="ben")
    cells = ben.locator("td").evaluate_all("(cells) => cells.map((c) => c.textContent)")
    assert cells[:2] == ["1", "160"]  # rank and points
    ana = standings.filter(has_text="ana")
    assert ana.locator("td").evaluate_all("(cells) => cells.map((c) => c.textContent)")[
        :2] == ["2", "85"]


def test_a_rummy_sheet_names_the_line_that_is_not_complete_and_checks_the_rest(watched):
    page = watched.page
    page.goto("/sheets/new")
    page.select_option("#variant", "rummy")
    page.fill("#api-key", KEY)
    for n, name in enumerate(["ana", "ben", "cy"], start=1):
        page.fill(f"#player-{n}", name)
        page.locator(f"#player-{n}").dispatch_event("change")
    sync_api.expect(page.locator("#d1-value-3")).to_be_visible()
    assert page.locator("#d1-dealer").input_value() == "cy"
    # ana goes out; ben holds 12, cy 5: ana scores 17 (winner collects), claimed 18
    page.select_option("#d1-end", "out")
    page.select_option("#d1-by", "ana")
    page.fill("#d1-value-2", "12")
    sync_api.expect(page.locator("#d1-note")).to_have_text(
        "Not checked yet: give cy's hand value in deal 1.")
    page.fill("#d1-value-3", "5")
    page.fill("#d1-points-1", "18")
    sync_api.expect(page.locator("#d1-note")).to_contain_text("SCORE_MISMATCH")
    sync_api.expect(page.locator("#d1-note")).to_contain_text("18")
    page.fill("#d1-points-1", "17")
    sync_api.expect(page.locator("#d1-note")).to_have_text(
        "Agrees with the rules (out: ana 17).")
    sync_api.expect(page.locator("#sheet-status")).to_have_attribute("data-status",
                                                                     "incomplete")


def test_the_sheet_is_usable_on_a_360_px_phone(browser, server):
    watched = Watched(browser, f"http://127.0.0.1:{server.port}", 360)
    page = watched.page
    page.goto("/sheets/new")
    page.fill("#api-key", KEY)
    page.fill("#player-1", "ana")
    page.fill("#player-2", "ben")
    page.locator("#player-2").dispatch_event("change")
    page.locator("#options-box summary").click()
    page.select_option("#opt-oklahoma", "yes")  # one more column: the upcard
    page.locator("#d1-upcard").focus()
    page.keyboard.type("3S")
    page.select_option("#d1-end", "knock")
    page.select_option("#d1-by", "ana")
    page.fill("#d1-value-1", "5")
    page.fill("#d1-value-2", "30")
    note = page.locator("#d1-note")
    # the three of spades sets the limit at 3, and a spade doubles the deal
    sync_api.expect(note).to_contain_text("KNOCK_OVER_LIMIT ana knocked with 5 deadwood; "
                                          "the limit is 3")
    # the page never grows wider than the screen: the sheet scrolls in its own box
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    box = page.locator("#sheet-box")
    assert box.evaluate("(b) => b.scrollWidth > b.clientWidth")
    assert box.evaluate("(b) => getComputedStyle(b).overflowX") == "auto"
    # the line's verdict is read on screen whatever the box's scroll
    for scrolled in (0, 10_000):
        box.evaluate(f"(b) => {{ b.scrollLeft = {scrolled}; }}")
        edges = note.evaluate("(n) => { const r = n.getBoundingClientRect(); "
                              "return [r.left, r.right]; }")
        assert edges[0] >= 0 and edges[1] <= 360, (scrolled, edges)
    # a field past the screen's edge is scrolled to when it gets the focus
    page.locator("#d1-total-2").focus()
    right = page.locator("#d1-total-2").evaluate("(f) => f.getBoundingClientRect().right")
    assert right <= 360
    page.keyboard.type("25")
    sync_api.expect(note).to_contain_text("KNOCK_OVER_LIMIT")
    watched.check()
    watched.close()


def test_a_hollywood_sheet_gives_each_deal_its_three_games(watched):
    """RULES.md's short Hollywood match to 50: ana's first win counts in game 1, her
    second in game 2 alone (game 1 is over at 50), ben's first win goes nowhere, her
    third reaches game 2's 80 and game 3's 50.  Each game a shutout: 170, 220, 170."""
    page = watched.page
    page.goto("/sheets/new")
    page.fill("#api-key", KEY)
    page.fill("#player-1", "ana")
    page.fill("#player-2", "ben")
    page.locator("#player-2").dispatch_event("change")
    page.locator("#options-box summary").click()
    page.select_option("#opt-hollywood", "yes")
    page.fill("#opt-target", "50")
    page.locator("#opt-target").dispatch_event("change")
    sync_api.expect(page.locator("#sheet thead")).to_contain_text("Game 3 total")
    assert page.locator("#d1-total-1").count() == 0  # the three games take its place
    lines = [  # end, by, deadwood ana/ben, points ana/ben, games 1-3 ana/ben
        ["gin", "ana", "", "25", "50", "", "50", "", "", "", "", ""],
        ["gin", "ana", "", "5", "30", "", "50", "", "30", "", "", ""],
        ["knock", "ben", "23", "3", "", "20", "", "20", "", "", "", ""],  # a slip
        ["gin", "ana", "", "25", "50", "", "50", "", "80", "", "50", ""],
    ]
    keys = ["value-1", "value-2", "points-1", "points-2", "g1-1", "g1-2", "g2-1", "g2-2",
            "g3-1", "g3-2"]
    for n, line in enumerate(lines, start=1):
        if n > 1:
            page.locator(f"#d{n - 1}-value-1").press("Enter")
        page.select_option(f"#d{n}-end", line[0])
        page.select_option(f"#d{n}-by", line[1])
        for key, text in zip(keys, line[2:], strict=True):
            if text:
                page.fill(f"#d{n}-{key}", text)
    note = page.locator("#d3-note")
    sync_api.expect(note).to_have_text(
        "SCORE_MISMATCH ben's claimed total in game 1 after the deal is 20, recomputed 0")
    page.fill("#d3-g1-2", "")  # his first win goes nowhere: game 1 is over
    sync_api.expect(note).to_have_text("Agrees with the rules (knock: ben 20).")
    page.select_option("#final-winner", "ana")
    page.fill("#final-total-1", "560")
    page.fill("#final-total-2", "0")
    sync_api.expect(page.locator("#sheet-status")).to_have_attribute("data-status", "valid")
    state = page.locator("#sheet-state")
    sync_api.expect(state).to_contain_text("Game 1: ana 170, ben 0 · winner ana.")
    sync_api.expect(state).to_contain_text("Game 2: ana 220, ben 0 · winner ana.")
    sync_api.expect(state).to_contain_text("Game 3: ana 170, ben 0 · winner ana.")


def test_enter_moves_down_the_sheet_and_a_refused_document_is_said_in_words(watched):
    page = watched.page
    page.goto("/sheets/new")
    page.fill("#api-key", KEY)
    page.fill("#player-1", "ana")
    page.fill("#player-2", "..")  # no link could carry this name: the format refuses it
    page.locator("#player-2").dispatch_event("change")
    page.select_option("#d1-end", "void")
    state = page.locator("#sheet-state")
    sync_api.expect(state).to_contain_text("Not a valid sheet yet: the document is not a "
                                           "valid rummy-log/1 game")
    sync_api.expect(state).to_contain_text("players.1:")
    watched.errors.clear()  # the browser logs the 422 itself
    page.fill("#player-2", "ben")
    page.locator("#player-2").dispatch_event("change")
    sync_api.expect(page.locator("#d1-note")).to_have_text(
        "Agrees with the rules (void: no points).")
    page.locator("#d1-end").press("Enter")  # the last line: a new one
    sync_api.expect(page.locator("tr.deal")).to_have_count(2)
    assert focused(page) == "d2-dealer"
    assert page.locator("#d2-dealer").input_value() == "ana"  # the deal passes
    page.locator("#d1-dealer").press("Enter")  # not the last: down to the next line
    assert focused(page) == "d2-dealer"
    sync_api.expect(page.locator("tr.deal")).to_have_count(2)
    page.locator("#remove-row").click()
    sync_api.expect(page.locator("tr.deal")).to_have_count(1)


def test_the_upload_page_marks_a_sheet_game_beside_its_verdict(watched, tmp_path):
    """A score sheet uploaded as a file is answered with its verdict and, beside it, a
    mark saying its play was not recorded; a move-by-move log gets no mark."""
    from tests.engine.test_sheets import GIN_SHEET, GIN_WORKED

    batch = tmp_path / "club.ndjson"
    batch.write_text("".join(json.dumps(log) + "\n" for log in (GIN_SHEET, GIN_WORKED)))
    page = watched.page
    page.goto("/")
    page.fill("#api-key", KEY)
    page.check("#dry-run")
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps(GIN_SHEET))
    page.set_input_files("#files", str(sheet))
    results = page.locator("#results > li")
    sync_api.expect(page.locator("#upload-state")).to_contain_text("Done")
    mark = results.nth(0).locator("p.verdict-line .level")
    sync_api.expect(mark).to_contain_text("· sheet")
    assert mark.get_attribute("title") == "arithmetic and rules checked; play not recorded"
    page.uncheck("#dry-run")
    page.set_input_files("#files", str(batch))
    sync_api.expect(results).to_have_count(3)
    sync_api.expect(results.nth(1).locator("p.verdict-line .level")).to_contain_text("sheet")
    sync_api.expect(results.nth(2).locator("p.verdict-line")).to_contain_text("line 2")
    assert results.nth(2).locator(".level").count() == 0


# Three-player gin to 100 (box 20, shutout 100), ana, ben and cy; each line names who
# sat out, the other two playing:
#  deal  sits out  end    by   deadwood      points   totals ana/ben/cy
#   1    cy        knock  ana  ana 5, ben 30 ana 25   25 / 0 /   0
#   2    ben       gin    cy   ana 20        cy 45    25 / 0 /  45   (ana won: she plays cy)
#   3    ana       gin    cy   ben 70        cy 95    25 / 0 / 140   (cy won: he plays ben)
# ana 25 + a box 20 = 45; cy 140 + two boxes 40 + ben shut out 100 = 280.
# Each line: who sat out, dealer (as the page fills it), end, by, the two players'
# deadwood and points (the third's fields are passed over), the three totals.
THREE = [
    ["c", "", "k", "a", "5", "30", "25", "", "25", "0", "0"],
    ["b", "", "g", "c", "20", "", "", "45", "25", "0", "45"],
    ["a", "", "g", "c", "70", "", "", "95", "25", "0", "140"],
]
# Partnership gin to 100, ana and cy against ben and dan (partners opposite).  Round 1:
# ana v ben and cy v dan; round 2 the partners swap opponents: ana v dan, cy v ben.
#  deal  pair        end    by   deadwood       points    teams ana+cy / ben+dan
#   1    ana v ben   knock  ana  ana 5, ben 30  ana 25     25 /  0
#   2    cy v dan    gin    dan  cy 20          dan 45     25 / 45
#   3    ana v dan   gin    ana  dan 80         ana 105   130 / 45
#   4    cy v ben    knock  cy   ben 40, cy 2   cy 38     168 / 45   (ana+cy past 100)
# Boxes: ana+cy 3, ben+dan 1: 168 + 60 = 228 and 45 + 20 = 65.  A pair is chosen by its
# first letter, typed again for the second pair with that letter (round 2's).
FOUR = [
    ["a", "", "k", "a", "5", "30", "25", "", "25", "0"],
    ["c", "", "g", "d", "20", "", "", "45", "25", "45"],
    ["aa", "", "g", "a", "", "80", "105", "", "130", "45"],
    ["cc", "", "k", "c", "40", "2", "", "38", "168", "45"],
]


def _setup_by_keyboard(page, table_size: int, names: list[str]) -> None:
    """Choose gin for `table_size` players, name them and give the key, by keyboard."""
    page.goto("/sheets/new")
    assert focused(page) == "variant"
    for _ in range(table_size - 2):
        page.keyboard.press("ArrowDown")
    sync_api.expect(page.locator("#variant")).to_have_value(f"gin:{table_size}")
    page.keyboard.press("Tab")
    type_fields(page, [*names, "", "", ""])  # tournament, round and table left blank
    _tab_to(page, "api-key")  # past the day played and the options, left closed
    page.keyboard.type(KEY)
    page.keyboard.press("Tab")
    assert focused(page) == "d1-pair"


def _tab_to(page, target: str) -> None:
    for _ in range(60):
        if focused(page) == target:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target}")


def test_three_player_and_partnership_gin_sheets_entered_by_keyboard(watched, browser,
                                                                      server):
    page = watched.page
    _setup_by_keyboard(page, 3, ["ana", "ben", "cy"])
    heads = page.locator("#sheet thead tr").first.locator("th")
    assert heads.all_text_contents()[:3] == ["Deal", "Sits out", "Dealer"]
    for n, line in enumerate(THREE, start=1):
        assert focused(page) == f"d{n}-pair"
        if n < 3:
            type_fields(page, line)
            page.keyboard.press("Enter")
            continue
        # the slip: ben written as sitting out, ana (who lost) playing on
        type_fields(page, ["b", *line[1:]])
        note = page.locator("#d3-note")
        sync_api.expect(note).to_have_text(
            "WRONG_SEATING ana v cy is the wrong pair; ben v cy should play")
        sync_api.expect(page.locator('tr.deal[data-deal="3"]')).to_have_attribute(
            "data-state", "illegal")
        for _ in range(10):  # back to who sat out, past the line's open fields
            page.keyboard.press("Shift+Tab")
        assert focused(page) == "d3-pair"
        page.keyboard.type("a")
        # ana's deadwood is now passed over and ben's is wanted
        sync_api.expect(page.locator("#d3-value-1")).to_be_disabled()
        sync_api.expect(note).to_have_text("Not checked yet: give ben's deadwood in deal 3.")
        for _ in range(4):  # dealer, end, by, then ben's deadwood (ana's passed over)
            page.keyboard.press("Tab")
        assert focused(page) == "d3-value-2"
        page.keyboard.type("70")
        sync_api.expect(note).to_have_text("Agrees with the rules (gin: cy 95).")
    for n, (dealer, points) in enumerate([("ana", "knock: ana 25"), ("cy", "gin: cy 45"),
                                          ("ben", "gin: cy 95")], start=1):
        # the page deals to one of the pair: the other one when the last dealer plays
        assert page.locator(f"#d{n}-dealer").input_value() == dealer
        sync_api.expect(page.locator(f"#d{n}-note")).to_have_text(
            f"Agrees with the rules ({points}).")
    _tab_to(page, "final-winner")
    type_fields(page, ["c", "45", "0", "280"])
    sync_api.expect(page.locator("#sheet-status")).to_have_attribute("data-status", "valid")
    sync_api.expect(page.locator("#sheet-state")).to_contain_text(
        "Totals as the rules give them: ana 45, ben 0, cy 280 · winner cy.")
    _tab_to(page, "store")
    page.keyboard.press("Enter")
    stored = page.locator("#stored-line")
    sync_api.expect(stored).to_have_attribute("data-status", "valid")
    game_id = stored.locator("a.game-link").get_attribute("href").rsplit("/", 1)[1]
    game = api(server, f"/games/{game_id}")
    assert game["status"] == "valid" and game["winner"] == "cy"
    assert game["report"]["verification"] == "results"
    log = api(server, f"/games/{game_id}/log")  # the document the page sent
    assert [(d["players"], d["dealer"]) for d in log["deals"]] == [
        (["ana", "ben"], "ana"), (["ana", "cy"], "cy"), (["ben", "cy"], "ben")]
    assert log["deals"][2]["result"] == {"end": "gin", "by": "cy",
                                         "hand_values": {"ben": 70, "cy": 0}}
    assert log["deals"][2]["claimed"] == {"points": {"cy": 95},
                                          "totals": {"ana": 25, "ben": 0, "cy": 140}}
    assert log["claimed"] == {"totals": {"ana": 45, "ben": 0, "cy": 280}, "winner": "cy"}
    assert "teams" not in log

    # the partnership sheet on a 360 px phone
    phone = Watched(browser, f"http://127.0.0.1:{server.port}", 360)
    page = phone.page
    _setup_by_keyboard(page, 4, ["ana", "ben", "cy", "dan"])
    sync_api.expect(page.locator("#partners-note")).to_be_visible()
    heads = page.locator("#sheet thead tr").first.locator("th")
    assert heads.all_text_contents() == ["Deal", "Pair", "Dealer", "End",
                                         "Knocked or gin by", "Deadwood", "Points",
                                         "Team running total"]
    assert page.locator("#sheet thead tr").nth(1).locator("th").all_text_contents()[
        -2:] == ["ana+cy", "ben+dan"]
    for n, line in enumerate(FOUR, start=1):
        assert focused(page) == f"d{n}-pair"
        assert page.locator("#sheet-box").evaluate("(b) => b.scrollLeft") == 0
        if n == 2:  # ben+dan's total slips: 46 written for 45
            type_fields(page, [*line[:-1], "46"])
            note = page.locator("#d2-note")
            sync_api.expect(note).to_have_text(
                "SCORE_MISMATCH ben+dan's claimed total after the deal is 46, recomputed 45")
            sync_api.expect(page.locator('tr.deal[data-deal="2"]')).to_have_attribute(
                "data-state", "mismatch")
            page.keyboard.press("Backspace")
            page.keyboard.type("5")
            sync_api.expect(note).to_have_text("Agrees with the rules (gin: dan 45).")
        else:
            type_fields(page, line)
        if n < len(FOUR):
            page.keyboard.press("Enter")
    assert [page.locator(f"#d{n}-pair option:checked").text_content()
            for n in range(1, 5)] == ["ana v ben", "cy v dan", "ana v dan", "cy v ben"]
    sync_api.expect(page.locator("#d4-note")).to_have_text(
        "Agrees with the rules (knock: cy 38).")
    # Enter in a line's last field, the sheet swiped back a little: the next line's
    # first field comes into view clear of the deal number that stays at the left edge
    page.locator("#d1-team-2").focus()
    box = page.locator("#sheet-box")
    box.evaluate("(b) => { b.scrollLeft = 20; }")
    page.keyboard.press("Enter")
    assert focused(page) == "d2-pair" and box.evaluate("(b) => b.scrollLeft") == 0
    _tab_to(page, "final-winner")
    type_fields(page, ["a", "228", "65"])
    sync_api.expect(page.locator("#sheet-status")).to_have_attribute("data-status", "valid")
    state = page.locator("#sheet-state")
    sync_api.expect(state).to_contain_text(
        "Team totals as the rules give them: ana+cy 228, ben+dan 65 · winner ana+cy.")
    sync_api.expect(state).to_contain_text(
        "Deal points by player: ana 130, ben 0, cy 38, dan 45.")
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    _tab_to(page, "store")
    page.keyboard.press("Enter")
    stored = page.locator("#stored-line")
    sync_api.expect(stored).to_have_attribute("data-status", "valid")
    game_id = stored.locator("a.game-link").get_attribute("href").rsplit("/", 1)[1]
    game = api(server, f"/games/{game_id}")
    assert game["status"] == "valid" and game["winner"] == "ana+cy"
    assert game["report"]["totals"]["teams"] == {"ana+cy": 228, "ben+dan": 65}
    log = api(server, f"/games/{game_id}/log")
    assert log["teams"] == [["ana", "cy"], ["ben", "dan"]]
    assert [d["players"] for d in log["deals"]] == [["ana", "ben"], ["cy", "dan"],
                                                    ["ana", "dan"], ["ben", "cy"]]
    assert log["deals"][1]["claimed"] == {"points": {"dan": 45},
                                          "totals": {"ana+cy": 25, "ben+dan": 45}}
    assert log["claimed"] == {"totals": {"ana+cy": 228, "ben+dan": 65},
                              "winner": "ana+cy"}
    phone.check()
    phone.close()


def test_the_table_size_changes_the_columns_and_back(watched):
    """A pair chosen before every player is named offers only the named ones as dealer
    and who went out; back at two players the sheet is the two-player sheet again."""
    page = watched.page
    page.goto("/sheets/new")
    page.fill("#api-key", KEY)
    page.select_option("#variant", "gin:3")
    sync_api.expect(page.locator("#player-3")).to_be_visible()
    sync_api.expect(page.locator("#player-4")).to_be_hidden()
    page.fill("#player-1", "ana")
    page.fill("#player-2", "ben")
    page.locator("#player-2").dispatch_event("change")
    sync_api.expect(page.locator("#d1-pair option")).to_have_text(
        ["—", "player 3", "ben", "ana"])
    page.select_option("#d1-pair", "1-2")  # ana sits out: ben against the unnamed third
    sync_api.expect(page.locator("#d1-dealer option")).to_have_text(["—", "ben"])
    assert page.locator("#d1-dealer").input_value() == "ben"
    sync_api.expect(page.locator("#d1-value-1")).to_be_disabled()
    sync_api.expect(page.locator("#sheet-state")).to_contain_text(
        "Not checked yet: name all three players of the game.")
    page.select_option("#variant", "gin")
    sync_api.expect(page.locator("#player-3")).to_be_hidden()
    sync_api.expect(page.locator("#d1-pair")).to_have_count(0)
    sync_api.expect(page.locator("#d1-value-1")).to_be_enabled()
    sync_api.expect(page.locator("#d1-dealer option")).to_have_text(["—", "ana", "ben"])
    page.select_option("#d1-end", "void")
    sync_api.expect(page.locator("#d1-note")).to_have_text(
        "Agrees with the rules (void: no points).")

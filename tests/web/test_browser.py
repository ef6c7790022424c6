"""The pages in a real headless Chromium (Debian's, driven by Playwright) against the
real service: gunicorn as shipped, on a free port, with a DuckDB file of the test's own.

Every page a test opens is watched: a console error, an uncaught exception or a request
to anywhere but the test server fails the test.  Screenshots of every page at 360 px
(the first screen) and 1280 px (the whole page) are written under
``build/screenshots/`` (ignored by git).

Without Chromium (``apt-get install chromium``) or Playwright the module is skipped and
says so; ``playwright install`` is never needed, nor run.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from collections.abc import Iterator

import pytest

from tests.e2e.server import Server

from .chromium import SHOTS, Watched, api, sync_api
from .conftest import ROOT, SAMPLES

SAMPLES_DIR = ROOT / "sample_logs"

THROUGH_THE_PAGE = "gin-3p"  # uploaded by the upload test, not beforehand
KEY = "browser-test-key"  # writes need it: the upload page must send it


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("browser") / "rummy.duckdb",
                 # batches verified in the request: the pool has tests of its own, and
                 # spawning it costs seconds here
                 env={"RUMMY_API_KEYS": f"tester:{KEY}", "RUMMY_VERIFY_PROCESSES": "0"}).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def ids(server: Server) -> dict[str, str]:
    out = {}
    for path in SAMPLES:
        if path.stem == THROUGH_THE_PAGE:
            continue
        status, _, body = server.request("POST", "/api/v1/games", path.read_bytes(), {
            "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        assert status == 201, body
        out[path.stem] = json.loads(body)["id"]
    return out


def test_upload_one_log_then_a_batch_and_see_each_verdict(watched, server):
    page = watched.page
    page.goto("/")
    sample = str(ROOT / "sample_logs" / f"{THROUGH_THE_PAGE}.json")
    page.set_input_files("#files", sample)  # without the key: refused, and said so
    refused = page.locator("#results > li").first
    sync_api.expect(refused).to_have_attribute("data-status", "error")
    sync_api.expect(refused).to_have_text(
        f"{THROUGH_THE_PAGE}.json was refused: this server needs an API key to check or "
        "store a game: type it in the API key field above, then send the file again.")
    sync_api.expect(page.locator("#upload-state")).to_have_text(
        "Done: 0 games checked, 1 file refused.")
    watched.errors.clear()  # the browser logs the 401 itself
    page.fill("#api-key", KEY)
    page.set_input_files("#files", sample)
    first = page.locator("#results > li").nth(1)
    sync_api.expect(first).to_have_attribute("data-status", re.compile(r"\w+"))
    link = first.locator("a.game-link")
    href = link.get_attribute("href")
    game_id = href.rsplit("/", 1)[1]
    stored = api(server, f"/games/{game_id}")
    assert first.get_attribute("data-status") == stored["status"]
    sync_api.expect(first).to_contain_text(THROUGH_THE_PAGE)

    batch = ROOT / "sample_logs" / "batch-gin.ndjson"
    lines = [json.loads(line) for line in batch.read_text().splitlines() if line.strip()]
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    page.set_input_files("#files", str(batch))
    results = page.locator("#results > li")
    sync_api.expect(results).to_have_count(2 + len(lines))
    sync_api.expect(page.locator("#upload-state")).to_contain_text("Done")
    statuses = []
    for n in range(1, len(lines) + 1):
        item = results.nth(n + 1)
        sync_api.expect(item).to_contain_text(f"line {n}")
        sync_api.expect(item).not_to_contain_text("stored before")  # a fresh upload
        game = api(server, "/games/" + item.locator("a.game-link").get_attribute("href")
                   .rsplit("/", 1)[1])
        assert item.get_attribute("data-status") == game["status"]
        statuses.append(game["status"])
    assert posted == [f"{watched.base}/api/v1/games/batch"]  # the batch is posted once
    words = {"valid": "valid", "mismatch": "with wrong claims", "illegal": "illegal",
             "incomplete": "unfinished"}
    counts = ", ".join(f"{statuses.count(k)} {w}" for k, w in words.items() if k in statuses)
    sync_api.expect(page.locator("#upload-state")).to_have_text(
        f"Done: {len(lines)} games checked: {counts}.")

    link.click()
    page.wait_for_url(f"**/games/{game_id}")
    sync_api.expect(page.locator("#verdict-title")).to_be_visible()
    sync_api.expect(page.locator("dl.facts")).to_contain_text("tester")  # the key's name


def test_each_uploaded_game_is_named_by_its_log_id_round_and_table(watched, tmp_path):
    """A batch of one event's tables was listed as "line 1", "line 2"...: each verdict
    now also names the game as its log does, by its own id, tournament, round and table."""
    base = json.loads((SAMPLES_DIR / "gin-01.json").read_text())
    logs = [{**base, "id": "r5-t3", "tournament": {"id": "cup", "round": 5, "table": "3"}},
            {**base, "tournament": {"id": "cup", "round": 5}},
            {key: value for key, value in base.items() if key != "tournament"}]
    batch = tmp_path / "round-5.ndjson"
    batch.write_text("".join(json.dumps(log) + "\n" for log in logs))
    single = tmp_path / "one.json"
    single.write_text(json.dumps({**base, "id": "solo", "tournament": {"id": "cup"}}))
    page = watched.page
    page.goto("/")
    page.fill("#api-key", KEY)
    page.set_input_files("#files", str(batch))
    results = page.locator("#results > li")
    sync_api.expect(page.locator("#upload-state")).to_contain_text("Done")
    heads = [results.nth(n).locator("p.verdict-line") for n in range(3)]
    sync_api.expect(heads[0]).to_contain_text(
        "round-5.ndjson, line 1 (log r5-t3 · cup, round 5, table 3): ")
    sync_api.expect(heads[1]).to_contain_text("round-5.ndjson, line 2 (cup, round 5): ")
    sync_api.expect(heads[2]).to_contain_text("round-5.ndjson, line 3: ")
    assert results.nth(2).locator(".game-name").count() == 0
    page.check("#dry-run")
    page.set_input_files("#files", str(single))
    sync_api.expect(results).to_have_count(4)
    sync_api.expect(results.nth(3).locator("p.verdict-line")).to_contain_text(
        "one.json (log solo · cup): ")
    watched.check()


@pytest.mark.usefixtures("ids")
def test_check_only_stores_nothing_and_the_key_stays_in_the_tab(watched, server):
    page = watched.page
    before = len(api(server, "/games?limit=500")["games"])
    page.goto("/")
    page.fill("#api-key", KEY)
    page.check("#dry-run")
    page.set_input_files("#files", str(ROOT / "sample_logs" / "illegal-greek-invalid-meld.json"))
    item = page.locator("#results > li").first
    sync_api.expect(item).to_have_attribute("data-status", "illegal")
    sync_api.expect(item).to_contain_text("checked only, not stored")
    sync_api.expect(item.locator("code").first).to_have_text("INVALID_MELD")
    assert len(api(server, "/games?limit=500")["games"]) == before
    assert page.evaluate("sessionStorage.getItem('rummy-audit.api-key')") == KEY
    page.reload()
    sync_api.expect(page.locator("#api-key")).to_have_value(KEY)  # kept in the tab
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []


@pytest.mark.parametrize("sample", ["illegal-rummy-not-your-turn",
                                    "illegal-gin-discard-of-taken-card"])
def test_a_violation_link_opens_the_viewer_on_the_move(watched, server, ids, sample):
    page = watched.page
    game_id = ids[sample]
    [violation] = [v for v in api(server, f"/games/{game_id}")["report"]["violations"]
                   if v["code"] != "SCORE_MISMATCH"][:1]
    page.goto(f"/games/{game_id}")
    page.locator("a.violation-link").first.click()
    page.wait_for_url(re.compile(r"/replay#"))
    box = page.locator("#violation")
    sync_api.expect(box).to_be_visible()
    sync_api.expect(box).to_contain_text(violation["code"])
    sync_api.expect(box).to_contain_text(violation["message"])
    move = violation["move"] + 1
    assert page.evaluate("location.hash") == f"#deal={violation['deal'] + 1}&move={move}"
    current = page.locator("#moves li[aria-current=step]")
    sync_api.expect(current).to_have_class("illegal")
    sync_api.expect(page.locator("#move-words")).to_contain_text(f"Move {move}:")
    sync_api.expect(page.locator("#log-ends")).to_be_hidden()  # stopped, not cut short


def test_a_flagged_decision_opens_the_viewer_where_the_better_move_was(watched, server, ids):
    page = watched.page
    game_id = ids["gin-01"]
    [fact] = api(server, f"/games/{game_id}/analysis")["facts"][:1]
    page.goto(f"/games/{game_id}")
    page.locator("a.fact-link").first.click()
    page.wait_for_url(re.compile(r"/replay#"))
    fragment = f"#deal={fact['deal'] + 1}&move={fact['position'] + 1}"
    sync_api.expect(page.locator("body")).to_have_attribute(
        "data-position", f"{fact['deal'] + 1}:{fact['position'] + 1}")
    assert page.evaluate("location.hash") == fragment


def use_key_and_land(page, game_id: str, move: int) -> None:
    """Type the read key on the key page and land on the replay of deal 1 at ``move``."""
    page.locator("#read-key").fill("read-key")
    page.get_by_role("button", name="Use this key").click()
    page.wait_for_url(f"**/games/{game_id}/replay#deal=1&move={move}")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{move}")


def test_with_read_keys_a_key_typed_once_opens_the_pages_and_the_viewer(
        browser, tmp_path):
    srv = Server(tmp_path / "rummy.duckdb", env={
        "RUMMY_API_KEYS": f"tester:{KEY}", "RUMMY_READ_KEYS": "reader:read-key",
        "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0"}).start()
    try:
        status, _, body = srv.request("POST", "/api/v1/games", SAMPLES[0].read_bytes(), {
            "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        assert status == 201, body
        game_id = json.loads(body)["id"]
        page = Watched(browser, f"http://127.0.0.1:{srv.port}")
        try:
            response = page.page.goto(f"/games/{game_id}/replay#deal=1&move=3")
            assert response.status == 401
            page.page.locator("#enter-key").click()
            # Back on the replay link, its fragment kept (the browser never sent it:
            # the pages' script carried it), and the viewer's fetch carried the key.
            use_key_and_land(page.page, game_id, 3)
            # A key page opened with a fragment of its own posts it back too.
            page.page.context.clear_cookies()
            page.page.goto(f"/key?next=/games/{game_id}/replay#deal=1&move=2")
            use_key_and_land(page.page, game_id, 2)
            # The variants need no key: they hold no stored data.
            page.page.context.clear_cookies()
            assert page.page.goto("/variants").status == 200
            page.errors = [e for e in page.errors if "401" not in e]  # the first answer
            page.check()
        finally:
            page.close()
    finally:
        srv.stop()


def _on_screen(page) -> dict:
    """What the viewer shows: cards drawn in each hand, the stock, the discard top."""
    return page.evaluate("""() => ({
        position: document.body.dataset.position,
        hash: location.hash,
        hands: Object.fromEntries([...document.querySelectorAll('#hands .hand')].map(
            (h) => [h.dataset.player, h.querySelectorAll('svg.card').length])),
        stock: document.getElementById('stock').textContent,
        top: document.querySelector('#discard-top svg.card')?.dataset.card ?? null,
    })""")


def _expected(server: Server, game_id: str, deal: int, move: int) -> dict:
    state = api(server, f"/games/{game_id}/deals/{deal}/moves/{move - 1}/state")
    count = state["stock_count"]
    return {"position": f"{deal + 1}:{move}", "hash": f"#deal={deal + 1}&move={move}",
            "hands": {player: len(cards) for player, cards in state["hands"].items()},
            "stock": f"{count} card{'' if count == 1 else 's'}", "top": state["discard_top"]}


def test_the_keyboard_steps_through_a_whole_deal_as_the_api_replays_it(watched, server, ids):
    page = watched.page
    game_id = ids["rummy-01"]
    moves = len(api(server, f"/games/{game_id}/deals/0/positions")["moves"])
    page.goto(f"/games/{game_id}/replay#deal=1&move=0")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:0")
    for move in range(moves + 1):
        if move:
            page.keyboard.press("ArrowRight")
            sync_api.expect(page.locator("body")).to_have_attribute("data-position",
                                                                    f"1:{move}")
        assert _on_screen(page) == _expected(server, game_id, 0, move), move
    page.keyboard.press("Home")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:0")
    page.keyboard.press("End")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{moves}")
    page.keyboard.press("PageDown")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "2:0")
    page.keyboard.press("ArrowLeft")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{moves}")
    page.keyboard.press("PageDown")
    page.keyboard.press("PageUp")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:0")
    page.select_option("#speed", "400")
    page.locator("h1").click()  # the keys act outside the form fields
    page.keyboard.press("Space")  # autoplay
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:2")
    page.keyboard.press("Space")
    sync_api.expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")
    page.wait_for_timeout(300)  # a step already under way when the key came may still land
    stopped = page.locator("body").get_attribute("data-position")
    page.wait_for_timeout(900)  # playing at 400 ms a move, this would be two moves on
    assert page.locator("body").get_attribute("data-position") == stopped
    first = page.locator("#hands svg.card").first
    assert re.fullmatch(r"(ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|"
                        r"king) of (clubs|diamonds|hearts|spades)",
                        first.get_attribute("aria-label"))


def test_a_deep_link_opens_its_position_and_a_seat_sees_only_its_hand(watched, server, ids):
    page = watched.page
    game_id = ids["rummy-01"]
    page.goto(f"/games/{game_id}/replay#deal=2&move=7")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "2:7")
    expected = _expected(server, game_id, 1, 7)
    assert _on_screen(page) == expected
    page.select_option("#seat", "ana")
    ben = page.locator('#hands .hand[data-player="ben"]')
    assert ben.locator("svg.card.back").count() == expected["hands"]["ben"]
    assert page.locator('#hands .hand[data-player="ana"] svg.card.back').count() == 0
    page.locator("#pile summary").click()
    state = api(server, f"/games/{game_id}/deals/1/moves/6/state")
    sync_api.expect(page.locator("#pile-cards svg.card")).to_have_count(state["discard_count"])
    sync_api.expect(page.locator("#violation")).to_be_hidden()
    # a wrong claim is told at the end of its deal
    wrong = ids["mismatch-gin-deal-points"]
    [claim] = [v for v in api(server, f"/games/{wrong}")["report"]["violations"]]
    moves = len(api(server, f"/games/{wrong}/deals/{claim['deal']}/positions")["moves"])
    page.goto(f"/games/{wrong}/replay#deal={claim['deal'] + 1}&move={moves}")
    sync_api.expect(page.locator("#violation")).to_contain_text(claim["message"])
    page.keyboard.press("ArrowLeft")
    sync_api.expect(page.locator("#violation")).to_be_hidden()


def _stored(server: Server, log: bytes) -> str:
    """The id of a log stored through the API (200: stored before, by another test)."""
    status, _, body = server.request("POST", "/api/v1/games", log, {
        "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    assert status in (200, 201), body
    return json.loads(body)["id"]


def _moves_listed(page) -> list[str]:
    return page.locator("#moves li").evaluate_all("(items) => items.map((i) => i.textContent)")


def test_a_seat_sees_the_other_hands_draws_and_deadwood_only_as_that_seat_could(
        watched, server, ids):
    page = watched.page
    game_id = ids["gin-01"]
    deal = api(server, f"/games/{game_id}/deals/0/positions")
    seat, other = deal["players"]
    hidden_draws = [k + 1 for k, m in enumerate(deal["moves"])
                    if m["player"] == other and m["words"] != m["public"]]
    assert hidden_draws, "the deal has no stock draw by the other seat to hide"
    move = hidden_draws[0]
    page.goto(f"/games/{game_id}/replay#deal=1&move={move}")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{move}")
    page.select_option("#seat", seat)
    count = deal["positions"][move]["hands"][other]["count"]
    sync_api.expect(page.locator(f'#hands .hand[data-player="{other}"] .meta')).to_have_text(
        f"{count} card{'' if count == 1 else 's'}")
    sync_api.expect(page.locator(f'#hands .hand[data-player="{seat}"] .meta')).to_contain_text(
        f"deadwood {deal['positions'][move]['hand_values'][seat]}")
    said = deal["moves"][move - 1]
    sync_api.expect(page.locator("#move-words")).to_have_text(f"Move {move}: {said['public']}")
    assert said["public"] == f"{other} draws from the stock"
    assert _moves_listed(page) == ["as dealt"] + [
        m["words"] if m["player"] == seat else m["public"] for m in deal["moves"]]
    for k in hidden_draws:  # the card is named nowhere in the list
        card = deal["moves"][k - 1]["words"].split()[2]
        assert card not in page.locator(f'#moves a[data-move="{k}"]').inner_text()
    chart = page.locator("#chart circle")
    assert set(chart.evaluate_all("(ps) => ps.map((p) => p.dataset.player)")) == {seat}
    assert chart.count() == len(deal["positions"])
    page.select_option("#seat", "")  # the auditor's view keeps everything
    sync_api.expect(page.locator("#move-words")).to_have_text(f"Move {move}: {said['words']}")
    assert _moves_listed(page) == ["as dealt"] + [m["words"] for m in deal["moves"]]
    assert page.locator("#chart circle").count() == 2 * len(deal["positions"])
    sync_api.expect(page.locator(f'#hands .hand[data-player="{other}"] .meta')).to_contain_text(
        "deadwood")


def test_the_viewer_says_where_the_log_stops_inside_a_deal(watched, server, ids):
    page = watched.page
    game_id = ids["incomplete-rummy-block"]
    [warning] = [w for w in api(server, f"/games/{game_id}")["report"]["warnings"]
                 if w["code"] == "LAST_DEAL_NOT_FINISHED"]
    page.goto(f"/games/{game_id}")
    page.locator("ul.warnings a").first.click()
    page.wait_for_url(re.compile(r"/replay#"))
    end = f"{warning['deal'] + 1}:{warning['move'] + 1}"
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", end)
    note = page.locator("#log-ends")
    sync_api.expect(note).to_have_text(re.compile(
        r"^The log ends here: the deal is not finished \(\w+ was to play\)\.$"))
    page.keyboard.press("ArrowLeft")
    sync_api.expect(note).to_be_hidden()
    page.goto(f"/games/{game_id}/replay#deal=1&move=end")  # a finished deal: nothing said
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", re.compile("^1:"))
    sync_api.expect(note).to_be_hidden()
    # A deal cut short with another after it is illegal: said at its last position too.
    log = json.loads((SAMPLES_DIR / "rummy-01.json").read_text())
    log["deals"][0]["moves"] = log["deals"][0]["moves"][:6]
    log["deals"][0].pop("claimed", None)
    log.pop("claimed", None)
    cut = _stored(server, json.dumps(log).encode())
    page.goto(f"/games/{cut}/replay#deal=1&move=end")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:6")
    sync_api.expect(note).to_contain_text("The log ends here: the deal is not finished")
    sync_api.expect(page.locator("#violation")).to_contain_text("DEAL_NOT_FINISHED")
    page.keyboard.press("PageDown")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "2:0")
    sync_api.expect(note).to_be_hidden()


def test_three_player_gin_says_who_sits_out_and_offers_only_the_deals_seats(
        watched, server):
    page = watched.page
    game_id = _stored(server, (SAMPLES_DIR / f"{THROUGH_THE_PAGE}.json").read_bytes())
    game = api(server, f"/games/{game_id}")
    deals = [api(server, f"/games/{game_id}/deals/{d}/positions")["players"]
             for d in range(len(game["report"]["deals"]))]
    page.goto(f"/games/{game_id}/replay#deal=1&move=0")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:0")
    chosen = deals[0][0]  # a seat of the first deal that sits a later one out
    later = next(d for d, players in enumerate(deals) if chosen not in players)
    page.select_option("#seat", chosen)
    for d, players in enumerate(deals):
        if d:
            page.keyboard.press("PageDown")
        sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"{d + 1}:0")
        [out] = [p for p in game["players"] if p not in players]
        told = f"{out} sits out this deal" + (", so all hands are shown" if out == chosen
                                              else "") + "."
        sync_api.expect(page.locator("#sits-out")).to_have_text(told)
        assert page.locator("#seat option:not([disabled])").evaluate_all(
            "(os) => os.map((o) => o.value)") == [""] + [p for p in game["players"]
                                                          if p in players]
        assert page.locator("#hands .hand").evaluate_all(
            "(hs) => hs.map((h) => h.dataset.player)") == players
        backs = page.locator("#hands svg.card.back").count()
        assert page.locator("#seat").input_value() == ("" if d == later else chosen)
        assert (backs == 0) == (d == later)


def test_the_deadwood_chart_has_the_apis_points_and_jumps_where_clicked(watched, server, ids):
    page = watched.page
    game_id = ids["gin-01"]
    positions = api(server, f"/games/{game_id}/deals/0/positions")
    page.goto(f"/games/{game_id}/replay#deal=1&move=0")
    sync_api.expect(page.locator("#chart-box")).to_be_visible()
    for player in positions["players"]:
        points = page.locator(f'#chart circle[data-player="{player}"]')
        values = [int(v) for v in points.evaluate_all("(ps) => ps.map((p) => p.dataset.value)")]
        assert values == [p["hand_values"][player] for p in positions["positions"]]
    target = len(positions["positions"]) // 2
    page.locator(f'#chart circle[data-move="{target}"]').first.click()
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{target}")


@pytest.mark.usefixtures("ids")
def test_the_player_page_charts_the_apis_figures(watched, server):
    page = watched.page
    figures = api(server, "/players/ana/stats")["variants"]
    page.goto("/players/ana")
    for variant, row in figures.items():
        chart = page.locator(f'svg[data-chart="{variant}-games"]')
        sync_api.expect(chart).to_be_visible()
        assert chart.locator('g.bar[data-label="won"]').get_attribute("data-value") \
            == str(row["won"])
        assert chart.locator('g.bar[data-label="lost"]').get_attribute("data-value") \
            == str(row["lost"])
        ends = page.locator(f'svg[data-chart="{variant}-ends"] g.bar')
        key = {"gin": "gins", "knock won": "knocks_won", "out": "won_out", "rummy": "won_rummy",
               "blocked": "won_blocked", "undercut made": "undercuts_made",
               "undercut suffered": "undercuts_suffered"}
        for bar in ends.all():
            assert bar.get_attribute("data-value") == str(row[key[bar.get_attribute(
                "data-label")]])
    months = api(server, "/players/ana/months")["variants"]
    for variant, rows in months.items():
        wins = page.locator(f'svg[data-chart="{variant}-wins-by-month"] g.bar')
        assert [(bar.get_attribute("data-label"), int(bar.get_attribute("data-value")))
                for bar in wins.all()] == [(r["month"], r["won"]) for r in rows]
        points = page.locator(f'svg[data-chart="{variant}-points-by-month"] g.bar')
        assert [float(bar.get_attribute("data-value")) for bar in points.all()] \
            == [r["points_per_deal"] for r in rows]
    page.fill("#opponent", "ben")
    page.click("#versus-form button")
    versus = api(server, "/players/ana/versus/ben")
    sync_api.expect(page.locator("#versus")).to_contain_text(f"{versus['games']} games")


@pytest.mark.usefixtures("ids")
def test_the_leaderboard_sorts_by_each_column(watched, server):
    page = watched.page
    page.goto("/players")
    for label, key in (("Win rate", "win_rate"), ("Points per deal", "points_per_deal"),
                       ("Games", "games")):
        page.locator("#leaderboard thead a", has_text=label).click()
        page.wait_for_url(f"**sort={key}**")
        shown = page.locator("#leaderboard tbody tr").evaluate_all(
            "(rows) => rows.map((r) => r.dataset.player)")
        assert shown == [r["player"] for r in api(server, f"/players?sort={key}")["players"]]
    page.locator("#leaderboard thead a", has_text="Games").click()  # again: ascending
    page.wait_for_url("**order=asc**")
    shown = page.locator("#leaderboard tbody tr").evaluate_all(
        "(rows) => rows.map((r) => r.dataset.player)")
    assert shown == [r["player"] for r in api(server, "/players?sort=games&order=asc")["players"]]


@pytest.mark.usefixtures("ids")
def test_the_leaderboard_offers_rating_only_while_a_variant_is_chosen(watched):
    """Drawn with a variant, the form offered rating; choosing "any" then kept it, and
    showing the leaderboard answered a 400 page."""
    page = watched.page
    page.goto("/players?variant=gin&sort=rating")
    options = "(select) => [...select.options].map((o) => o.value)"
    assert "rating" in page.locator("#sort").evaluate(options)
    page.select_option("#variant", "")
    assert "rating" not in page.locator("#sort").evaluate(options)
    assert page.locator("#sort").input_value() == "wins"
    with page.expect_navigation() as shown:
        page.get_by_role("button", name="Show").click()
    assert shown.value.status == 200
    assert "sort=wins" in page.url and "rating" not in page.locator("#sort").evaluate(options)
    page.select_option("#variant", "gin")
    values = page.locator("#sort").evaluate(options)
    assert values.index("rating") == values.index("games") + 1  # back in its place
    page.select_option("#sort", "rating")
    with page.expect_navigation() as shown:
        page.get_by_role("button", name="Show").click()
    assert shown.value.status == 200 and page.locator("#leaderboard tbody tr").count() > 0


def test_the_leaderboard_shows_how_far_behind_the_analysis_is(browser, tmp_path):
    """A server that analyses nothing in the background: every stored game is in the
    backlog the note shows, above the table whose columns it qualifies; once each game's
    analysis was asked for (and so stored), no note."""
    srv = Server(tmp_path / "rummy.duckdb", env={
        "RUMMY_API_KEYS": f"tester:{KEY}", "RUMMY_VERIFY_PROCESSES": "0",
        "RUMMY_ANALYSIS": "0"}).start()
    try:
        ids = []
        for path in SAMPLES[:3]:
            status, _, body = srv.request("POST", "/api/v1/games", path.read_bytes(), {
                "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
            assert status == 201, body
            ids.append(json.loads(body)["id"])
        watched = Watched(browser, f"http://127.0.0.1:{srv.port}")
        page = watched.page
        page.goto("/players")
        note = page.locator("#analysis-behind")
        sync_api.expect(note).to_have_text(
            "Analysis 3 games behind: figures may change. The background analysis is off: "
            "a game is analysed when its analysis is asked for.")
        sync_api.expect(note).to_be_visible()
        assert note.bounding_box()["y"] < page.locator("#leaderboard").bounding_box()["y"]
        for game_id in ids:
            assert srv.request("GET", f"/api/v1/games/{game_id}/analysis")[0] == 200
        page.goto("/players")
        sync_api.expect(page.locator("#leaderboard")).to_be_visible()
        assert note.count() == 0
        watched.check()
        watched.close()
    finally:
        srv.stop()


def test_the_tournament_page_shows_the_planted_mismatch_and_the_illegal_game(
        watched, server, ids):
    page = watched.page
    page.goto("/tournaments")
    listed = next(t for t in api(server, "/tournaments")["tournaments"]
                  if t["id"] == "spring-cup")
    row = page.locator("#tournaments tbody tr", has_text="spring-cup")
    assert row.locator("td").evaluate_all("(cells) => cells.map((c) => c.textContent)")[1:9] \
        == [str(listed[k]) for k in ("games", "counted", "players")] + \
        [f"✘ {listed['illegal']}", f"≠ {listed['mismatch']}", str(listed["discrepancies"]),
         "Final" if listed["final"] else f"Provisional: {listed['open']} open",
         ", ".join(listed["variants"])]
    page.locator("#tournaments a", has_text="spring-cup").click()
    page.wait_for_url("**/tournaments/spring-cup")
    illegal = page.locator('li.discrepancy[data-kind="illegal_game"]')
    mismatch = page.locator('li.discrepancy[data-kind="score_mismatch"]')
    sync_api.expect(illegal.first).to_be_visible()
    assert illegal.locator(f'a[href="/games/{ids["illegal-gin-discard-of-taken-card"]}"]') \
        .count() == 1
    assert mismatch.locator(f'a[href="/games/{ids["mismatch-gin-deal-points"]}"]').count() >= 1
    illegal.locator("a.to-move").click()
    page.wait_for_url(f"**/games/{ids['illegal-gin-discard-of-taken-card']}/replay#*")
    sync_api.expect(page.locator("#violation")).to_contain_text("DISCARD_OF_TAKEN_CARD")
    page.go_back()
    illegal.locator("a").first.click()
    page.wait_for_url(f"**/games/{ids['illegal-gin-discard-of-taken-card']}")
    sync_api.expect(page.locator("#verdict-title")).to_contain_text("Illegal game")
    page.go_back()
    # A wrong deal claim opens the viewer on the table after the deal's last move.
    claim = mismatch.filter(has=page.locator("a.to-move", has_text="the end of deal"))
    claim.first.locator("a.to-move").click()
    page.wait_for_url("**/replay#*")
    game_id = page.url.split("/games/")[1].split("/")[0]
    deal = int(page.url.split("#deal=")[1].split("&")[0])
    last = len(api(server, f"/games/{game_id}/deals/{deal - 1}/positions")["positions"]) - 1
    sync_api.expect(page).to_have_url(re.compile(rf"#deal={deal}&move={last}$"))


def test_the_game_page_works_without_javascript(browser, server, ids):
    context = browser.new_context(java_script_enabled=False,
                                  base_url=f"http://127.0.0.1:{server.port}")
    page = context.new_page()
    page.goto(f"/games/{ids['mismatch-gin-deal-points']}")
    sync_api.expect(page.locator("#verdict-title")).to_contain_text("claimed scores are wrong")
    sync_api.expect(page.locator("table.deals .differs").first).to_be_visible()
    page.goto("/games?variant=gin")
    assert page.locator("#games tbody tr").count() == len(api(server, "/games?variant=gin")
                                                          ["games"])
    context.close()


def test_screenshots_of_every_page_at_two_widths(browser, server, ids):
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = {"home": "/", "games": "/games", "game": f"/games/{ids['mismatch-gin-deal-points']}",
             "replay": f"/games/{ids['illegal-gin-discard-of-taken-card']}/replay#deal=1&move=6",
             "players": "/players", "player": "/players/ana", "tournaments": "/tournaments",
             "tournament": "/tournaments/spring-cup", "variants": "/variants",
             "sheet": "/sheets/new"}
    base = f"http://127.0.0.1:{server.port}"
    for width in (360, 1280):
        watched = Watched(browser, base, width)
        for name, path in pages.items():
            watched.page.goto(path)
            if name == "replay":
                sync_api.expect(watched.page.locator("body")).to_have_attribute(
                    "data-position", "1:6")
            shot = SHOTS / f"{name}-{width}.png"
            # whole pages at 1280 px; the first screen at 360 px (a phone's view; whole
            # narrow pages cost seconds to encode)
            watched.page.screenshot(path=str(shot), full_page=width > 360)
            assert shot.stat().st_size > 1000
            # Nothing sticks out sideways: wide tables scroll in their own box.
            assert watched.page.evaluate("document.documentElement.scrollWidth") == width, name
        watched.check()
        watched.close()


_CHART_TEXT_OUTSIDE = """() => [...document.querySelectorAll("svg.chart")].flatMap((svg) => {
  const box = svg.getBoundingClientRect();
  return [...svg.querySelectorAll("text")].filter((text) => {
    const r = text.getBoundingClientRect();
    return r.left < box.left - 0.5 || r.right > box.right + 0.5;
  }).map((text) => `${svg.dataset.chart}: ${text.textContent}`);
})"""
_CAPTIONS = """() => [...document.querySelectorAll("figure.chart-figure")].map((figure) => {
  const caption = figure.querySelector("figcaption");
  const shown = getComputedStyle(caption).visibility === "visible";
  return [caption.textContent, figure.querySelector("svg").getAttribute("aria-label"),
          shown ? caption.getBoundingClientRect().height : 0];
})"""


@pytest.mark.usefixtures("ids")
def test_the_player_charts_fit_and_head_to_head_works_with_and_without_javascript(
        browser, server):
    base = f"http://127.0.0.1:{server.port}"
    watched = Watched(browser, base, 360)
    page = watched.page
    page.goto("/players/ana")
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate(_CHART_TEXT_OUTSIDE) == []  # every label and value fits
        captions = page.evaluate(_CAPTIONS)
        assert len(captions) == page.locator("svg.chart").count() > 0
        for caption, name, height in captions:  # shown above the chart, and its name
            assert caption == name and height > 0
        assert page.evaluate("document.documentElement.scrollWidth") == width
    # with JavaScript the refusal shows in the player page
    page.fill("#opponent", "ana")
    page.click("#versus-form button")
    sync_api.expect(page.locator("#versus .error")).to_contain_text(
        "ana cannot be compared with ana")
    assert page.url == f"{base}/players/ana"
    watched.check()
    watched.close()
    context = browser.new_context(java_script_enabled=False, base_url=base)
    page = context.new_page()
    page.goto("/players/ana")
    page.fill("#opponent", "ben")
    page.click("#versus-form button")
    page.wait_for_url("**/players/ana/versus?opponent=ben")
    versus = api(server, "/players/ana/versus/ben")
    sync_api.expect(page.locator("#versus-summary")).to_contain_text(
        f"{versus['games']} games as opponents, {versus['finished']} finished")
    for who in ("ana", "ben"):
        assert page.locator(f'td[data-figure="wins"][data-player="{who}"]').text_content() \
            == str(versus["wins"][who])
    context.close()


def test_files_the_server_would_refuse_are_refused_before_sending(watched, tmp_path):
    page = watched.page
    page.goto("/")
    page.fill("#api-key", KEY)
    limit = int(page.locator("#upload").get_attribute("data-max-game-bytes"))
    binary = tmp_path / "photo.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    packed = tmp_path / "games.ndjson"
    packed.write_bytes(gzip.compress((SAMPLES_DIR / "batch-gin.ndjson").read_bytes()))
    large = tmp_path / "large.json"
    log = json.loads((SAMPLES_DIR / "gin-01.json").read_text())
    log["meta"] = {"padding": "x" * limit}
    large.write_text(json.dumps(log))
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    page.set_input_files("#files", [str(binary), str(packed), str(large)])
    sync_api.expect(page.locator("#upload-state")).to_have_text(
        "Done: 0 games checked, 3 files refused.")
    items = page.locator("#results > li")
    sync_api.expect(items.nth(0)).to_have_text(
        "photo.json was refused: it is not a text file (a game log is JSON text, a batch "
        "NDJSON text).")
    sync_api.expect(items.nth(1)).to_contain_text("games.ndjson was refused: it is "
                                                  "gzip-compressed")
    sync_api.expect(items.nth(2)).to_contain_text(
        "large.json was refused: it is larger than 1 MiB, the most this server takes in "
        "a single log (a batch, one game a line, may be up to 64 MiB).")
    for n in range(3):
        assert items.nth(n).get_attribute("data-status") == "error"
        assert ": :" not in items.nth(n).inner_text()
    assert posted == []  # nothing was sent


def test_a_dropped_batch_is_posted_once(watched, server):
    page = watched.page
    page.goto("/")
    page.fill("#api-key", KEY)
    page.check("#dry-run")  # each line checked alone: nothing stored, counts still said
    text = (SAMPLES_DIR / "batch-gin.ndjson").read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    # a drop that also reaches the file field (which then reports a change)
    page.evaluate("""(text) => {
        const file = new File([text], "dropped.ndjson", {type: "application/x-ndjson"});
        const data = new DataTransfer();
        data.items.add(file);
        const zone = document.getElementById("drop");
        for (const type of ["dragenter", "dragover", "drop"]) {
          zone.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true,
                                                  cancelable: true}));
        }
        const input = document.getElementById("files");
        input.files = data.files;
        input.dispatchEvent(new Event("change", {bubbles: true}));
    }""", text)
    sync_api.expect(page.locator("#upload-state")).to_have_text(re.compile(
        rf"^Done: {len(lines)} games checked: "))
    assert len(posted) == len(lines)  # one dry run per line, each once
    assert page.locator("#results > li").count() == len(lines)


def test_a_seat_and_keys_chosen_before_the_deal_arrives_break_nothing(watched, server, ids):
    page = watched.page
    game_id = ids["gin-01"]
    deal = api(server, f"/games/{game_id}/deals/0/positions")
    seat, other = deal["players"]
    held = []  # the positions' request, answered only when the test says so
    page.route("**/deals/*/positions", lambda route: held.append(route))
    page.goto(f"/games/{game_id}/replay#deal=1&move=0")
    while not held:
        page.wait_for_timeout(20)
    page.select_option("#seat", seat)
    page.locator("h1").click()
    for key in ("End", "ArrowRight", "PageDown", "Space"):  # nothing to step through yet
        page.keyboard.press(key)
    held[0].continue_()
    page.unroute("**/deals/*/positions")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:0")
    assert page.locator("#seat").input_value() == seat
    count = deal["positions"][0]["hands"][other]["count"]
    sync_api.expect(page.locator(f'#hands .hand[data-player="{other}"] .meta')).to_have_text(
        f"{count} card{'' if count == 1 else 's'}")
    sync_api.expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")


def test_a_seat_sees_the_hands_laid_down_at_the_show(watched, server, ids):
    page = watched.page
    game_id = ids["gin-01"]
    deal = api(server, f"/games/{game_id}/deals/0/positions")
    knock = next(k for k, m in enumerate(deal["moves"]) if m["action"] == "knock") + 1
    knocker = deal["moves"][knock - 1]["player"]
    [defender] = [p for p in deal["players"] if p != knocker]
    last = len(deal["positions"]) - 1
    assert last > knock, "the defender plays on after the knock in this sample"

    def backs(player):
        return page.locator(f'#hands .hand[data-player="{player}"] svg.card.back').count()

    page.goto(f"/games/{game_id}/replay#deal=1&move={knock - 1}")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{knock - 1}")
    page.select_option("#seat", defender)
    assert backs(knocker) == deal["positions"][knock - 1]["hands"][knocker]["count"]
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")  # the knock: the knocker's hand is laid down
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{knock}")
    assert deal["positions"][knock]["public"] == [knocker]
    assert backs(knocker) == 0
    shown = page.locator(f'#hands .hand[data-player="{knocker}"] svg.card')
    hand = deal["positions"][knock]["hands"][knocker]
    assert shown.count() == hand["count"]
    page.select_option("#seat", knocker)  # the knocker does not see the defender's yet
    assert backs(defender) == deal["positions"][knock]["hands"][defender]["count"]
    page.locator("h1").click()
    page.keyboard.press("End")  # the deal counted: every hand is public
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{last}")
    assert deal["positions"][last]["public"] == deal["players"]
    assert page.locator("#hands svg.card.back").count() == 0


def test_the_viewer_passes_over_deals_recorded_on_a_score_sheet(watched, server):
    """A sheet deal has no positions: the viewer says which deals were kept by their result,
    a link or key toward one lands on the nearest deal recorded move by move, and a game
    kept wholly on a sheet shows no viewer at all, only why."""
    from tests.engine.test_sheets import GIN_SHEET, GIN_WORKED, knock

    mixed = copy.deepcopy(GIN_WORKED)
    mixed["rules"] = {"deals": 2}
    mixed["deals"].append({"dealer": "ana",
                           "result": knock("ben", {"ana": 10, "ben": 0}, end="gin")})
    mixed["id"] = "viewer-mixed-sheet"
    game_id = _stored(server, json.dumps(mixed).encode())
    last = len(api(server, f"/games/{game_id}/deals/0/positions")["positions"]) - 1
    page = watched.page
    page.goto(f"/games/{game_id}/replay#deal=2&move=0")  # deal 2 is a sheet line
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", "1:0")
    sync_api.expect(page.locator("#sheet-deals")).to_contain_text(
        "Deal 2 was recorded by its result")
    page.locator("h1").click()
    page.keyboard.press("PageDown")  # no later deal with moves: it stays
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position", f"1:{last}")
    sync_api.expect(page.locator("#move-words")).not_to_contain_text("answered")

    whole = _stored(server, json.dumps({**GIN_SHEET, "id": "viewer-whole-sheet"}).encode())
    page.goto(f"/games/{whole}/replay")
    sync_api.expect(page.locator("#sheet-deals")).to_contain_text("nothing to replay")
    assert page.locator("#viewer").is_hidden()


_CELLS_PAST_THE_EDGE = """(table) => [...document.querySelectorAll(table + " td")]
  .filter((td) => td.getBoundingClientRect().right > window.innerWidth + 0.5)
  .map((td) => td.textContent.trim())"""


@pytest.mark.usefixtures("ids")
def test_the_games_list_and_the_leaderboard_fit_a_phone(browser, server):
    """At 360 px every cell of the games list and of the leaderboard is on screen, each
    with its column's name (they were tables whose right-hand columns lay past the
    screen's edge); at 1280 px they are tables with their heads."""
    watched = Watched(browser, f"http://127.0.0.1:{server.port}", 360)
    page = watched.page
    for path, table in (("/games", "#games"), ("/players?variant=gin", "#leaderboard")):
        page.set_viewport_size({"width": 360, "height": 900})
        page.goto(path)
        assert page.locator(f"{table} tbody tr").count() > 0
        assert page.evaluate(_CELLS_PAST_THE_EDGE, table) == []
        assert page.evaluate("document.documentElement.scrollWidth") == 360
        label = page.locator(f"{table} tbody td").first.evaluate(
            "(td) => getComputedStyle(td, '::before').content")
        assert label.strip('"') in ("Game", "Rank")
        page.set_viewport_size({"width": 1280, "height": 900})
        assert page.locator(f"{table} thead").is_visible()
        assert page.locator(f"{table} tbody td").first.evaluate(
            "(td) => getComputedStyle(td).display") == "table-cell"
    watched.check()
    watched.close()


def test_a_gin_games_last_position_shows_each_card_once_and_the_final_totals(
        watched, server, ids):
    """At the end of gin-01's last deal nobody is to move, the knocker's melds are on the
    table and not in their hand as well, and the scores end with the game's totals with
    its boxes and bonuses, those of the game page (the replay said the knocker was to
    move, showed their melds twice and left the bonuses out)."""
    page = watched.page
    game_id = ids["gin-01"]
    game = api(server, f"/games/{game_id}")
    last_deal = len(game["report"]["deals"])
    deal = api(server, f"/games/{game_id}/deals/{last_deal - 1}/positions")
    last = len(deal["positions"]) - 1
    page.goto(f"/games/{game_id}/replay#deal={last_deal}&move={last}")
    sync_api.expect(page.locator("body")).to_have_attribute("data-position",
                                                            f"{last_deal}:{last}")
    assert page.locator("#hands .to-move").count() == 0
    assert "to move" not in page.locator("#hands").inner_text()
    hands = page.locator("#hands svg.card").evaluate_all(
        "(cards) => cards.map((c) => c.dataset.card)")
    on_table = page.locator("#table-melds svg.card").evaluate_all(
        "(cards) => cards.map((c) => c.dataset.card)")
    assert on_table and not set(hands) & set(on_table)
    totals = game["report"]["totals"]
    final = {row.get_attribute("data-side"): int(row.locator("td").inner_text())
             for row in page.locator("#scores tr.final").all()}
    assert final == (totals.get("teams") or totals["points"]) == deal["final"]


@pytest.mark.usefixtures("ids")
def test_times_are_shown_in_the_browsers_time_zone_to_the_minute(browser, server):
    """Stored times reach the page in UTC; the page shows each in the browser's own time
    zone, to the minute (they were ISO texts with microseconds), the UTC text kept as
    the element's title."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    context = browser.new_context(timezone_id="Asia/Tokyo", locale="en-US",
                                  base_url=f"http://127.0.0.1:{server.port}")
    page = context.new_page()
    page.goto("/games")
    times = page.locator("#games time").evaluate_all(
        "(all) => all.map((t) => [t.dateTime, t.textContent, t.title])")
    assert times
    for instant, text, title in times:
        at = datetime.fromisoformat(instant.replace("Z", "+00:00")).astimezone(
            ZoneInfo("Asia/Tokyo"))
        hour = at.hour % 12 or 12
        expected = f"{at:%b} {at.day}, {at.year}, {hour}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"
        assert " ".join(text.replace("\u202f", " ").split()) == expected
        assert title == f"{instant[:10]} {instant[11:16]} UTC"
    context.close()


@pytest.mark.usefixtures("ids")
def test_printed_pages_have_no_menu_and_no_buttons(watched):
    """Printed (a director's standings on A4), a page keeps its content and drops the
    site's menu, its forms and its buttons."""
    page = watched.page
    page.goto("/tournaments")
    page.goto(page.locator("main table a").first.get_attribute("href"))
    assert page.locator("header.site nav").is_visible()
    page.emulate_media(media="print")
    for hidden in ("header.site", "footer.site", "a.button", "form"):
        assert all(not element.is_visible() for element in page.locator(hidden).all())
    assert page.locator("main h1").is_visible() and page.locator("main table").first.is_visible()
    assert page.pdf(format="A4").startswith(b"%PDF")  # Chromium prints it on A4


def test_a_tournament_and_a_player_named_with_slashes_dots_hash_and_question_open(
        browser, tmp_path):
    """Ids holding ``/ .. # ?`` are carried by the links as one encoded segment: the
    browser follows them to their own pages (it would rewrite ``a/../b`` to ``b``), the
    key page returns to them, and the CSV link of the tournament works."""
    tournament, player = "cup/../2024 #1?final", "ana/../ben #2?x"
    log = json.loads((SAMPLES_DIR / "gin-01.json").read_text())
    log["tournament"] = {"id": tournament, "round": 1}
    text = json.dumps(log).replace('"ana"', json.dumps(player))
    srv = Server(tmp_path / "rummy.duckdb", env={
        "RUMMY_API_KEYS": f"tester:{KEY}", "RUMMY_READ_KEYS": "reader:read-key",
        "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0"}).start()
    try:
        status, _, body = srv.request("POST", "/api/v1/games", text.encode(), {
            "Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        assert status == 201, body
        watched = Watched(browser, f"http://127.0.0.1:{srv.port}")
        page = watched.page
        try:
            assert page.goto("/tournaments").status == 401
            page.locator("#enter-key").click()
            page.locator("#read-key").fill("read-key")
            page.get_by_role("button", name="Use this key").click()
            page.wait_for_url("**/tournaments")
            page.locator("#tournaments a", has_text=tournament).first.click()
            page.wait_for_url("**/tournaments/cup%2F..%2F2024%20%231%3Ffinal")
            sync_api.expect(page.locator("h1")).to_have_text(f"Tournament {tournament}")
            csv = page.locator("a", has_text="Download CSV").get_attribute("href")
            answer = page.request.get(csv)
            assert answer.status == 200 and answer.headers["content-type"].startswith(
                "text/csv") and f"valid,true,,{player}," in answer.text()
            page.locator("a", has_text=player).first.click()
            page.wait_for_url("**/players/ana%2F..%2Fben%20%232%3Fx")
            sync_api.expect(page.locator("h1")).to_have_text(player)
            # Asked for without the key, the page sends the browser back to itself.
            page.context.clear_cookies()
            assert page.reload().status == 401
            page.locator("#enter-key").click()
            page.locator("#read-key").fill("read-key")
            page.get_by_role("button", name="Use this key").click()
            page.wait_for_url("**/players/ana%2F..%2Fben%20%232%3Fx")
            sync_api.expect(page.locator("h1")).to_have_text(player)
            watched.errors = [e for e in watched.errors if "401" not in e]
            watched.check()
        finally:
            watched.close()
    finally:
        srv.stop()

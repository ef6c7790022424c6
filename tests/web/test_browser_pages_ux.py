"""How the score sheet and the director's pages behave for the person using them, in a
real headless Chromium against the real service (gunicorn as shipped, one server for
the module, writes open): a four-player sheet fits a 1280 px window, long names head
their columns without being cut inside a word, a field reached by Shift+Tab is never
under the column that stays at the left edge; the director's answer is never an old
one, gets the focus once an action is done, and every action that withdraws a game or a
ruling asks first (dismissed, nothing is done).

Skipped, and saying why, without Chromium or Playwright (as test_browser.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.api.helpers import illegal, mismatch, valid
from tests.e2e.server import Server

from .chromium import Watched, api, sync_api


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("ux") / "rummy.duckdb",
                 env={"RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0"}).start()
    yield srv
    srv.stop()


def upload(server: Server, log: dict) -> str:
    status, body = server.post_json("/api/v1/games", log)
    assert status == 201, body
    return body["id"]


def focused(page) -> str:
    return page.evaluate("document.activeElement.id")


def settled(page) -> None:
    """Two frames later: what the page does once the browser has scrolled is done."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => "
                  "requestAnimationFrame(r)))")


def name_players(page, variant: str, names: list[str], oklahoma: bool = False) -> None:
    page.goto("/sheets/new")
    page.select_option("#variant", variant)
    for n, name in enumerate(names, start=1):
        page.fill(f"#player-{n}", name)
    page.locator(f"#player-{len(names)}").dispatch_event("change")
    if oklahoma:  # one more column: the upcard
        page.locator("#options-box summary").click()
        page.select_option("#opt-oklahoma", "yes")
        sync_api.expect(page.locator("#d1-upcard")).to_be_visible()
    heading = page.locator("#sheet thead tr").nth(1).locator("th")
    sync_api.expect(heading.first).to_contain_text(names[0].split(" ")[0][:3])


# ------------------------------------------------------------------ the score sheet

@pytest.mark.parametrize(("variant", "names", "oklahoma"), [
    ("gin:4", ["ana", "ben", "cy", "dan"], True),  # the widest gin sheet
    ("gin:4", ["Margaret", "Benedikt", "Caroline", "Dominika"], False),
    ("rummy", ["Margaret", "Benedikt", "Caroline", "Dominika"], False),
])
def test_a_four_player_sheet_fits_a_1280_px_window(watched, variant, names, oklahoma):
    page = watched.page
    name_players(page, variant, names, oklahoma)
    assert page.evaluate("document.documentElement.scrollWidth") == 1280
    box = page.locator("#sheet-box")
    widths = box.evaluate("(b) => [b.scrollWidth, b.clientWidth]")
    assert widths[0] <= widths[1], widths  # nothing to scroll to: every column in view
    right = box.evaluate("(b) => b.getBoundingClientRect().right")
    last = page.locator("#sheet thead tr").nth(1).locator("th").last
    assert last.evaluate("(c) => c.getBoundingClientRect().right") <= right + 0.5


def test_long_names_wrap_at_their_spaces_and_a_long_word_ends_in_an_ellipsis(watched):
    names = ["Anna Maria de la Cruz", "Maximiliankowalczykowski", "cy", "Jo Ann"]
    page = watched.page
    name_players(page, "gin:4", names)
    heads = page.locator("#sheet thead tr").nth(1).locator("th")
    assert heads.all_text_contents() == [*names, *names, f"{names[0]}+{names[2]}",
                                         f"{names[1]}+{names[3]}"]
    assert heads.evaluate_all("(all) => all.map((h) => h.title)")[:4] == names
    # each word on one line, whole or cut with an ellipsis, never broken in two
    words = page.locator("#sheet thead th.name .word").evaluate_all("""(all) => all.map((w) => {
        const style = getComputedStyle(w);
        const line = parseFloat(getComputedStyle(w.parentElement).lineHeight) || 20;
        return {text: w.textContent, lines: w.getClientRects().length,
                tall: w.getBoundingClientRect().height < 1.5 * line,
                cut: w.scrollWidth > w.clientWidth, ellipsis: style.textOverflow,
                nowrap: style.whiteSpace};
    })""")
    assert [w["text"] for w in words[:6]] == ["Anna", "Maria", "de", "la", "Cruz",
                                               "Maximiliankowalczykowski"]
    for w in words:
        assert w["lines"] == 1 and w["tall"], w
        assert w["nowrap"] == "nowrap" and w["ellipsis"] == "ellipsis", w
    long = [w for w in words if w["text"] == "Maximiliankowalczykowski"]
    assert long and all(w["cut"] for w in long)
    assert not any(w["cut"] for w in words if w["text"] in ("Anna", "Maria", "cy", "Jo"))
    # the multi-word name wraps at its spaces: its heading is more than one line high
    first = heads.first.evaluate("(h) => h.querySelectorAll('.word')[0].getBoundingClientRect().top"
                                 " < h.querySelectorAll('.word')[4].getBoundingClientRect().top")
    assert first
    # a team's heading may wrap after its "+"
    team = heads.nth(8)
    assert team.locator(".word").all_text_contents() == [
        "Anna", "Maria", "de", "la", "Cruz+", "cy"]
    # every field still says whose it is in full
    assert page.locator("#d1-value-2").get_attribute("aria-label") == \
        "Deal 1: Maximiliankowalczykowski's deadwood"


def test_shift_tab_back_along_a_line_never_leaves_a_field_under_the_stuck_column(
        browser, server):
    watched = Watched(browser, f"http://127.0.0.1:{server.port}", 360)
    page = watched.page
    name_players(page, "gin", ["ana", "ben"])
    page.select_option("#d1-end", "knock")
    page.select_option("#d1-by", "ana")
    for field, text in (("value-1", "5"), ("value-2", "30"), ("points-1", "25"),
                        ("total-1", "25"), ("total-2", "0")):
        page.fill(f"#d1-{field}", text)
    box = page.locator("#sheet-box")
    page.locator("#add-row").focus()
    seen = []
    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        settled(page)
        here = focused(page)
        if here in ("variant", "api-key", "remove-row") or not here:
            break
        seen.append(here)
        edges = page.evaluate("""(id) => {
            const field = document.getElementById(id);
            const stuck = field.closest('tr').cells[0];
            const box = document.getElementById('sheet-box').getBoundingClientRect();
            const r = field.getBoundingClientRect();
            return {left: r.left, right: r.right, stuck: stuck.getBoundingClientRect().right,
                    boxRight: box.right, own: stuck.contains(field)};
        }""", here)
        if not edges["own"]:
            assert edges["left"] >= edges["stuck"] - 0.5, (here, edges)
        assert edges["right"] <= edges["boxRight"] + 0.5, (here, edges)
        if here == "d1-dealer":
            break
    assert seen[:3] == ["final-total-2", "final-total-1", "final-winner"]
    assert seen[-1] == "d1-dealer" and "d1-value-1" in seen
    assert box.evaluate("(b) => b.scrollWidth > b.clientWidth")  # it did scroll
    watched.check()
    watched.close()


# ------------------------------------------------------------------ the director

def test_the_directors_answer_gets_the_focus_and_goes_once_the_director_moves_on(
        watched, server):
    game = upload(server, valid(id="ux-answer") | {"tournament": {
        "id": "ux-answer", "round": 1, "table": "1"}})
    page = watched.page
    page.goto(f"/games/{game}#director")
    answer = page.locator("#director-answer")
    assert answer.get_attribute("role") == "status"
    page.select_option("#director-ruling", "void")
    page.fill("#director-ruling-reason", "played at the wrong table")
    page.locator("#director-ruling-form button").click()
    # said on the page loaded again, and focused there
    sync_api.expect(answer).to_contain_text(f"Recorded on game {game[:12]}: void")
    sync_api.expect(answer).to_be_focused()
    page.locator("#unrule-reason").press_sequentially("it was")
    sync_api.expect(answer).to_have_text("")  # the director moved on: the answer is old
    # a refusal is focused too: the game was withdrawn meanwhile, behind the page's back
    status, _, _ = server.request("DELETE", f"/api/v1/games/{game}?reason=meanwhile")
    assert status == 200
    page.select_option("#director-ruling", "forfeit")
    page.fill("#director-ruling-reason", "discarded a card he did not hold")
    page.locator("#director-ruling-form button").click()
    sync_api.expect(answer).to_contain_text("Refused: ")
    sync_api.expect(answer).to_be_focused()
    watched.errors.clear()  # the browser logs the refusal itself
    page.select_option("#director-against", index=1)
    sync_api.expect(answer).to_have_text("")


class Dialogs:
    """Every dialog of a page, accepted or dismissed as told."""

    def __init__(self, page) -> None:
        self.seen: list[tuple[str, str]] = []
        self.accept = False
        page.on("dialog", self.answer)

    def answer(self, dialog) -> None:
        self.seen.append((dialog.type, dialog.message))
        if self.accept:
            dialog.accept()
        else:
            dialog.dismiss()


def test_keep_asks_first_and_the_answer_gets_the_focus(watched, server):
    copies = [upload(server, valid(id=f"ux-copy-{k}") | {"tournament": {
        "id": "ux-keep", "round": 1, "table": "A"}}) for k in range(2)]
    page = watched.page
    dialogs = Dialogs(page)
    page.goto("/tournaments/ux-keep")
    state = page.locator("#state-title")
    sync_api.expect(state).to_have_text("Provisional: 1 matter open")
    keep = page.locator('form[data-action="keep"]')
    keep.locator('input[name="reason"]').fill("table A entered twice")
    keep.locator(f'button[value="{copies[0]}"]').click()
    page.wait_for_timeout(300)
    assert [t for t, _ in dialogs.seen] == ["confirm"]
    message = dialogs.seen[0][1]
    assert f"Keep game {copies[0][:12]}" in message and copies[1][:12] in message
    assert "withdraw" in message.lower()
    answer = page.locator("#director-answer")
    sync_api.expect(answer).to_have_text("")  # dismissed: nothing sent, nothing said
    assert api(server, "/tournaments/ux-keep/withdrawn")["withdrawn"] == []
    sync_api.expect(keep.locator("button").first).to_be_enabled()

    dialogs.accept = True
    keep.locator(f'button[value="{copies[0]}"]').click()
    sync_api.expect(answer).to_have_text(
        f"Kept game {copies[0][:12]}; withdrawn: {copies[1][:12]} (reason: \u2068table A entered "
        "twice\u2069).")
    sync_api.expect(state).to_have_text("✔ Final")
    assert answer.get_attribute("role") == "status"
    sync_api.expect(answer).to_be_focused()
    assert [w["id"] for w in api(server, "/tournaments/ux-keep/withdrawn")["withdrawn"]] \
        == [copies[1]]
    assert len(dialogs.seen) == 2


def test_the_game_panels_destructive_actions_ask_first_and_no_answer_lingers(
        watched, server, tmp_path):
    where = {"tournament": {"id": "ux-desk", "round": 1, "table": "1"}}
    old = upload(server, mismatch() | where)
    upload(server, illegal() | {"tournament": {"id": "ux-desk", "round": 1, "table": "2"}})
    same = tmp_path / "same.json"
    same.write_bytes(server.request("GET", f"/api/v1/games/{old}/log")[2])
    corrected = tmp_path / "corrected.json"
    corrected.write_text(json.dumps(valid() | where))

    page = watched.page
    dialogs = Dialogs(page)
    page.goto(f"/games/{old}#director")
    answer = page.locator("#director-answer")

    # A refusal: said, and focused, so that it is heard and read at once.
    dialogs.accept = True
    page.set_input_files("#replace-file", str(same))
    page.fill("#replace-reason", "corrected")
    page.locator("#replace-form button").click()
    sync_api.expect(answer).to_have_text(
        f"Refused: this log is the one of game {old}: a correction is a changed log; "
        "nothing changed.")
    sync_api.expect(answer).to_be_focused()
    watched.errors.clear()  # the browser logs the 409 itself
    assert dialogs.seen[-1][0] == "confirm" and f"Replace game {old[:12]}" in \
        dialogs.seen[-1][1]
    # Changing a form: the old answer is gone.
    page.fill("#withdraw-reason", "the match was replayed")
    sync_api.expect(answer).to_have_text("")

    # Replace, dismissed: nothing is sent.
    dialogs.accept = False
    page.set_input_files("#replace-file", str(corrected))
    page.locator("#replace-form button").click()
    page.wait_for_timeout(300)
    assert len(dialogs.seen) == 2 and "corrected.json" in dialogs.seen[-1][1]
    assert old in page.url
    assert api(server, "/tournaments/ux-desk/withdrawn")["withdrawn"] == []
    sync_api.expect(answer).to_have_text("")
    sync_api.expect(page.locator("#replace-form button")).to_be_enabled()
    # accepted: the corrected log takes the game's place
    dialogs.accept = True
    page.locator("#replace-form button").click()
    page.wait_for_url(lambda url: "/games/" in url and old not in url)
    new = page.url.rsplit("/", 1)[1]
    sync_api.expect(answer).to_contain_text(f"Game {old[:12]} is replaced by game {new[:12]}")
    sync_api.expect(answer).to_be_focused()

    # A ruling is recorded without a question (it withdraws nothing); its answer is
    # focused on the page loaded again.
    asked = len(dialogs.seen)
    page.select_option("#director-ruling", "void")
    sync_api.expect(answer).to_have_text("")  # the replacement's answer is old now
    page.fill("#director-ruling-reason", "played at the wrong table")
    page.locator("#director-ruling-form button").click()
    sync_api.expect(answer).to_contain_text(f"Recorded on game {new[:12]}: void")
    sync_api.expect(answer).to_be_focused()
    assert len(dialogs.seen) == asked

    # Withdrawing the ruling asks first.
    dialogs.accept = False
    page.fill("#unrule-reason", "it was the right table")
    sync_api.expect(answer).to_have_text("")
    page.locator("#unrule-form button").click()
    page.wait_for_timeout(300)
    assert len(dialogs.seen) == asked + 1
    assert "Withdraw the ruling" in dialogs.seen[-1][1]
    assert api(server, f"/games/{new}/ruling")["ruling"]["ruling"] == "void"
    dialogs.accept = True
    page.locator("#unrule-form button").click()
    sync_api.expect(answer).to_have_text(
        f"The ruling on game {new[:12]} is withdrawn: its matter is open again.")
    sync_api.expect(answer).to_be_focused()
    assert page.locator("p#ruling").count() == 0

    # Withdrawing the game asks first.
    dialogs.accept = False
    page.fill("#withdraw-reason", "the match was replayed")
    page.locator("#withdraw-form button").click()
    page.wait_for_timeout(300)
    assert len(dialogs.seen) == asked + 3
    assert f"Withdraw game {new[:12]}" in dialogs.seen[-1][1]
    assert server.request("GET", f"/api/v1/games/{new}")[0] == 200
    dialogs.accept = True
    page.locator("#withdraw-form button").click()
    page.wait_for_url("**/tournaments/ux-desk")
    sync_api.expect(answer).to_have_text(
        f"Game {new[:12]} is withdrawn (reason: \u2068the match was replayed\u2069); it no longer counts "
        "anywhere.")
    sync_api.expect(answer).to_be_focused()
    assert server.request("GET", f"/api/v1/games/{new}")[0] == 410

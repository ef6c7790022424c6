"""The director's actions on the pages, as served: the game page's panel offers the
rulings the game's verdict allows (and only those), a forfeit's player, the withdrawal
of the ruling in force, of the game, and its replacement; the tournament page gives each
open matter its action inline.  The browser side is tests/web/test_browser_director.py."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask import Flask

from service.api import close_app, create_app
from service.api.config import VARIABLES
from service.store.counting import ALLOWED
from tests.api.helpers import illegal, incomplete, mismatch, post_log, valid

from .conftest import BROWSER


def make_app(path, **config: str) -> Flask:
    return create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                       "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0", "TESTING": True,
                       "RUMMY_DB": str(path / "rummy.duckdb"), **config})


@pytest.fixture
def app(tmp_path) -> Iterator[Flask]:
    app = make_app(tmp_path, RUMMY_API_KEYS="director:write-key")
    yield app
    close_app(app)


KEY = {"Authorization": "Bearer write-key"}
LOGS = {"valid": valid, "mismatch": mismatch, "illegal": illegal, "incomplete": incomplete}


def at(log, round_, table):
    return log | {"tournament": {"id": "desk", "round": round_, "table": table}}


def page(client, path: str) -> str:
    response = client.get(path, headers=BROWSER)
    assert response.status_code == 200, response.data[:300]
    return response.get_data(as_text=True)


def options(html: str, select_id: str) -> list[str]:
    [inside] = re.findall(rf'<select id="{select_id}"[^>]*>(.*?)</select>', html, re.S)
    return re.findall(r'<option value="([^"]+)"', inside)


def form(html: str, form_id: str) -> str:
    [inside] = re.findall(rf'<form [^>]*id="{form_id}"[^>]*>(.*?)</form>', html, re.S)
    return inside


@pytest.mark.parametrize("status", list(LOGS))
def test_the_game_page_offers_the_rulings_its_verdict_allows(app, status):
    client = app.test_client()
    answer = post_log(client, LOGS[status](), headers=KEY).get_json()
    assert answer["status"] == status
    html = page(client, f"/games/{answer['id']}")
    assert '<section aria-labelledby="director-title" id="director"' in html
    assert options(html, "director-ruling") == list(ALLOWED[status])
    assert options(html, "director-against") == ["ana", "ben"]
    assert f'data-action="ruling" data-game="{answer["id"]}"' in html
    for action in ("withdraw", "replace"):
        assert f'data-action="{action}" data-game="{answer["id"]}"' in html
        assert 'name="reason" required' in form(html, f"{action}-form")
    assert 'name="log" type="file"' in form(html, "replace-form")
    assert 'name="reason" required' in form(html, "director-ruling-form")
    assert 'id="unrule-form"' not in html  # no ruling in force: nothing to withdraw
    # The key is asked for (writes need one here); the buttons wait for the script.
    assert '<input id="director-key"' in html and "Writes are open" not in html
    assert re.search(r'<button type="submit" disabled>Record the ruling</button>', html)
    assert "director.js" in html


def test_a_ruling_in_force_can_be_withdrawn_from_the_page(app):
    client = app.test_client()
    game_id = post_log(client, illegal(), headers=KEY).get_json()["id"]
    assert client.put(f"/api/v1/games/{game_id}/ruling", headers=KEY, json={
        "ruling": "void", "reason": "cards exposed"}).status_code == 200
    html = page(client, f"/games/{game_id}")
    assert 'id="ruling-history"' in html
    assert "In force: void." in form(html, "unrule-form")
    assert 'name="reason" required' in form(html, "unrule-form")
    assert "Record another ruling (it supersedes the one in force)" in html


def test_with_open_writes_the_panel_asks_for_no_key(tmp_path):
    app = make_app(tmp_path)
    try:
        client = app.test_client()
        game_id = post_log(client, valid()).get_json()["id"]
        html = page(client, f"/games/{game_id}")
        assert 'id="director-key"' not in html
        assert "Writes are open on this server: the director's actions need no key." in html
        assert options(html, "director-ruling") == list(ALLOWED["valid"])
    finally:
        close_app(app)


def test_each_open_matter_of_the_tournament_page_has_its_action(app):
    client = app.test_client()
    first, bad, again, wrong = (post_log(client, log, headers=KEY).get_json()["id"] for log in (
        at(valid(), 1, "A"), at(illegal(), 2, "A"), at(valid(id="edited"), 1, "A"),
        at(mismatch(), 3, "A")))
    html = page(client, "/tournaments/desk")
    assert "Provisional: 3 matters open" in html
    matters = dict(re.findall(r'<li class="matter" data-kind="([^"]+)">(.*?)</li>', html,
                              re.S))
    keep = matters["duplicate_table"]
    assert f'data-action="keep" data-games="{first} {again}"' in keep
    # The keep goes to the table's one endpoint, named by the tournament, round, table.
    assert 'data-tournament="desk" data-round="1" data-table="A"' in keep
    assert re.findall(r'<button type="submit" name="keep" value="([^"]+)"', keep) == [
        first, again]
    assert 'name="reason" required' in keep
    for kind, game_id, status in (("illegal_game", bad, "illegal"),
                                  ("score_mismatch", wrong, "mismatch")):
        matter = matters[kind]
        assert f'href="/games/{game_id}#director"' in matter
        assert f'data-action="ruling" data-game="{game_id}"' in matter
        [select] = re.findall(r'<select id="(m\d-ruling)"', matter)
        assert options(matter, select) == list(ALLOWED[status])
    assert '<input id="director-key"' in html

    # Final: no matter left to act on; the one action left is to restore the game
    # withdrawn (the key is asked for it).
    client.delete(f"/api/v1/games/{again}?reason=twice", headers=KEY)
    for game_id in (bad, wrong):
        client.put(f"/api/v1/games/{game_id}/ruling", headers=KEY,
                   json={"ruling": "void", "reason": "r"})
    html = page(client, "/tournaments/desk")
    assert "✔ Final" in html and html.count('id="director-key"') == 1
    assert re.findall(r'<form class="director-form[^"]*" data-action="([^"]+)" '
                      r'data-game="([^"]+)"', html) == [("restore", again)]


def test_the_game_page_lists_every_ruling_with_who_gave_or_withdrew_it(app):
    client = app.test_client()
    game_id = post_log(client, illegal(), headers=KEY).get_json()["id"]
    assert 'id="ruling-history"' not in page(client, f"/games/{game_id}")
    for body in ({"ruling": "void", "reason": "cards exposed"},
                 {"ruling": "forfeit", "against": "ana", "reason": "second look"}):
        assert client.put(f"/api/v1/games/{game_id}/ruling", headers=KEY,
                          json=body).status_code == 200
    assert client.delete(f"/api/v1/games/{game_id}/ruling?reason=appeal+upheld",
                         headers=KEY).status_code == 200
    html = page(client, f"/games/{game_id}")
    [listed] = re.findall(r'<ol class="ruling-history"[^>]*>(.*?)</ol>', html, re.S)
    entries = re.findall(r'<li data-state="([^"]+)">(.*?)</li>', listed, re.S)
    assert [state for state, _ in entries] == ["superseded", "withdrawn"]
    assert entries[0][1].startswith("void, by director, <time")
    assert "(reason: <bdi>cards exposed</bdi>); superseded by the next" in entries[0][1]
    assert entries[1][1].startswith("forfeit against ana, by director, <time")
    assert "; withdrawn by director, <time" in entries[1][1]
    assert entries[1][1].endswith("(reason: <bdi>appeal upheld</bdi>)")
    assert 'id="unrule-form"' not in html and 'id="ruling"' not in html


def test_a_tournament_whose_every_game_was_withdrawn_keeps_its_page(app):
    """Its last game withdrawn, the tournament page stays: no standings, the withdrawn
    games with who withdrew them and why, and a note saying so."""
    client = app.test_client()
    first, second = (post_log(client, log, headers=KEY).get_json()["id"] for log in (
        at(valid(), 1, "A"), at(illegal(), 1, "B")))
    for game_id, why in ((first, "wrong event"), (second, "replayed")):
        assert client.delete(f"/api/v1/games/{game_id}?reason={why}",
                             headers=KEY).status_code == 200
    html = page(client, "/tournaments/desk")
    [note] = re.findall(r'<p class="behind" id="all-withdrawn">(.*?)</p>', html, re.S)
    assert note.startswith("Every game of this tournament was withdrawn (2 games)")
    assert "table class=\"list standings\"" not in html
    assert '<h2 id="state-title">No live game</h2>' in html
    [listed] = re.findall(r'<ul class="withdrawn" id="withdrawn">(.*?)</ul>', html, re.S)
    assert re.findall(r'<li data-game="([^"]+)">', listed) == [first, second]
    assert "by director" in listed and "(<bdi>wrong event</bdi>)" in listed
    # An id no game ever named is still not found.
    assert client.get("/tournaments/nosuch", headers=BROWSER).status_code == 404


def test_a_withdrawn_games_page_says_so_and_leads_to_its_replacement(app):
    """The 410 page of a replaced game says when, by whom and why, to the minute, and
    links the game that replaced it; a game deleted without a replacement has no link."""
    client = app.test_client()
    old = post_log(client, at(mismatch(), 1, "A"), headers=KEY).get_json()["id"]
    new = post_log(client, at(valid(), 1, "A"), f"?replaces={old}&reason=claims+mistyped",
                   headers=KEY).get_json()["id"]
    response = client.get(f"/games/{old}", headers=BROWSER)
    assert response.status_code == 410
    html = response.get_data(as_text=True)
    [detail] = re.findall(r'<p class="lead" id="error-detail">(.*?)</p>', html, re.S)
    assert re.fullmatch(r"This game was withdrawn on \d{4}-\d\d-\d\d \d\d:\d\d UTC by "
                        "director: \u2068claims mistyped\u2069\\. A corrected log replaced it\\.",
                        detail)
    assert f'id="replaced-by" href="/games/{new}"' in html
    assert client.delete(f"/api/v1/games/{new}?reason=wrong+event", headers=KEY).status_code \
        == 200
    html = client.get(f"/games/{new}", headers=BROWSER).get_data(as_text=True)
    assert "wrong event\u2069." in html and "replaced-by" not in html


def test_the_tournament_pages_winner_is_the_rulings_once_a_game_is_ruled(app):
    """An illegal game ruled a forfeit against ana: the games table names ben, credited
    the win by the ruling, where the play itself named nobody."""
    client = app.test_client()
    bad = post_log(client, at(illegal(), 1, "A"), headers=KEY).get_json()["id"]
    assert client.put(f"/api/v1/games/{bad}/ruling", headers=KEY, json={
        "ruling": "forfeit", "against": "ana", "reason": "r"}).status_code == 200
    html = page(client, "/tournaments/desk")
    [row] = [r for r in re.findall(r"<tr>(.*?)</tr>", html, re.S) if bad[:12] in r]
    assert 'ben <span class="hint">(by the ruling)</span>' in row


def test_matters_and_discrepancies_are_named_in_words_with_their_codes_beside(app):
    client = app.test_client()
    for log, table in ((valid(), "A"), (valid(id="again"), "A"), (illegal(), "B")):
        post_log(client, at(log, 1, table), headers=KEY)
    html = page(client, "/tournaments/desk")
    [matters] = re.findall(r'<ul class="matters" id="matters">(.*?)</ul>', html, re.S)
    assert re.findall(r"<strong>([^<]+)</strong> <code class=\"hint\">([a-z_]+)</code>",
                      matters) == [("Table entered twice", "duplicate_table"),
                                   ("Illegal game", "illegal_game")]


def test_a_withdrawn_games_page_offers_to_restore_it_and_lists_its_restorations(app):
    """The 410 page has the director's Restore form (a reason, a button the script
    enables), sent by director.js to POST /api/v1/games/{id}/restore; once restored and
    withdrawn again, the page lists the earlier restoration with the withdrawal it
    undid."""
    client = app.test_client()
    gid = post_log(client, at(valid(), 1, "A"), headers=KEY).get_json()["id"]
    assert client.delete(f"/api/v1/games/{gid}?reason=wrong+event", headers=KEY).status_code \
        == 200
    response = client.get(f"/games/{gid}", headers=BROWSER)
    assert response.status_code == 410
    html = response.get_data(as_text=True)
    restore = form(html, "restore-form")
    assert f'data-action="restore" data-game="{gid}"' in html
    assert '<input id="restore-reason" name="reason" required maxlength="1000">' in restore
    assert "<button type=\"submit\" disabled>Restore the game</button>" in restore
    assert 'id="director-key"' in html and 'id="director-answer"' in html
    assert "/assets/director.js" in html
    assert 'id="restorations"' not in html  # never restored

    restored = client.post(f"/api/v1/games/{gid}/restore", json={"reason": "right event"},
                           headers=KEY)
    assert restored.status_code == 200
    live = page(client, f"/games/{gid}")  # the live game's panel keeps the trail too
    [listed] = re.findall(r'<ol class="restorations" id="restorations"[^>]*>(.*?)</ol>', live,
                          re.S)
    assert "by director (<bdi>wrong event</bdi>)" in listed \
        and "(reason: <bdi>right event</bdi>)" in listed
    assert client.delete(f"/api/v1/games/{gid}?reason=really+wrong",
                         headers=KEY).status_code == 200
    html = client.get(f"/games/{gid}", headers=BROWSER).get_data(as_text=True)
    [listed] = re.findall(r'<ol class="restorations" id="restorations">(.*?)</ol>', html, re.S)
    [entry] = re.findall(r'<li data-n="1">(.*?)</li>', listed, re.S)
    assert "Withdrawn <time" in entry and "by director (<bdi>wrong event</bdi>)" in entry
    assert "restored <time" in entry and "(reason: <bdi>right event</bdi>)" in entry
    assert "really wrong" in html  # the withdrawal in force, above


def test_a_replaced_games_page_says_its_correction_is_withdrawn_first(app):
    """While the correction counts, the page names it and offers no Restore form (the
    API would refuse it); once the correction is withdrawn, the form is there."""
    client = app.test_client()
    old = post_log(client, at(mismatch(), 1, "A"), headers=KEY).get_json()["id"]
    new = post_log(client, at(valid(), 1, "A"), f"?replaces={old}&reason=claims+mistyped",
                   headers=KEY).get_json()["id"]
    html = client.get(f"/games/{old}", headers=BROWSER).get_data(as_text=True)
    assert 'id="restore-form"' not in html
    [blocked] = re.findall(r'<p id="restore-blocked">(.*?)</p>', html, re.S)
    assert "withdraw that one first" in blocked and f'href="/games/{new}"' in blocked
    assert client.delete(f"/api/v1/games/{new}?reason=also+wrong",
                         headers=KEY).status_code == 200
    html = client.get(f"/games/{old}", headers=BROWSER).get_data(as_text=True)
    assert 'id="restore-blocked"' not in html
    assert "that correction is withdrawn too" in form(html, "restore-form")


def test_a_chain_of_corrections_is_followed_to_its_live_end(app):
    """A replaced by B, B by C: A's restore is refused while C counts, naming C."""
    client = app.test_client()
    a = post_log(client, at(mismatch(), 1, "A"), headers=KEY).get_json()["id"]
    b = post_log(client, at(valid(), 1, "A") | {"id": "b"}, f"?replaces={a}&reason=first",
                 headers=KEY).get_json()["id"]
    c = post_log(client, at(valid(), 1, "A") | {"id": "c"}, f"?replaces={b}&reason=again",
                 headers=KEY).get_json()["id"]
    assert len({a, b, c}) == 3
    gone = client.get(f"/api/v1/games/{a}").get_json()
    assert (gone["replaced_by"], gone["live_correction"]) == (b, c)
    refused = client.post(f"/api/v1/games/{a}/restore", json={"reason": "mistake"},
                          headers=KEY)
    assert refused.status_code == 409 and refused.get_json()["replaced_by"] == c
    html = client.get(f"/games/{a}", headers=BROWSER).get_data(as_text=True)
    assert f'href="/games/{c}"' in re.findall(r'<p id="restore-blocked">(.*?)</p>', html,
                                              re.S)[0]


def test_an_api_client_gets_the_problem_not_the_form(app):
    client = app.test_client()
    gid = post_log(client, at(valid(), 1, "A"), headers=KEY).get_json()["id"]
    client.delete(f"/api/v1/games/{gid}", headers=KEY)
    response = client.get(f"/games/{gid}", headers={"Accept": "application/json"})
    assert response.status_code == 410 and response.mimetype == "application/problem+json"


def test_the_tournament_pages_withdrawn_games_each_have_a_restore_form(app):
    """Each withdrawn game of the list has its Restore form (the page is loaded again
    after it, ``data-stay``), but a game whose correction is live, which says to
    withdraw the correction first; the write key field is there when no matter is open."""
    client = app.test_client()
    kept = post_log(client, at(valid(), 1, "A"), headers=KEY).get_json()["id"]
    gone = post_log(client, at(valid(id="gone"), 1, "B"), headers=KEY).get_json()["id"]
    old = post_log(client, at(mismatch(), 1, "C"), headers=KEY).get_json()["id"]
    new = post_log(client, at(valid(id="fixed"), 1, "C"), f"?replaces={old}&reason=claims",
                   headers=KEY).get_json()["id"]
    assert client.delete(f"/api/v1/games/{gone}?reason=typo", headers=KEY).status_code == 200
    html = page(client, "/tournaments/desk")
    assert 'data-final="true"' in html and 'id="director-key"' in html
    [listed] = re.findall(r'<ul class="withdrawn" id="withdrawn">(.*?)</ul>', html, re.S)
    forms = re.findall(r'<form class="director-form restore-form" data-action="restore" '
                       r'data-game="([^"]+)" data-stay id="(restore-\d+)">', listed)
    assert [game for game, _ in forms] == [gone]
    assert f"Restore game {gone[:12]}" in form(html, forms[0][1])
    assert f"withdraw game {new[:12]} first" in listed

    response = client.post(f"/api/v1/games/{gone}/restore", json={"reason": "no typo"},
                           headers=KEY)
    assert response.status_code == 200
    html = page(client, "/tournaments/desk")
    [listed] = re.findall(r'<ul class="withdrawn" id="withdrawn">(.*?)</ul>', html, re.S)
    assert gone[:12] not in listed and kept[:12] in html


def test_a_right_to_left_reason_is_isolated_on_the_pages(app):
    """A reason in a right-to-left script is shown in its own isolate (<bdi>), so that
    the sentence around it keeps its order; the withdrawn game's plain sentence isolates
    it with the first strong isolate and its pop."""
    client = app.test_client()
    gid = post_log(client, at(illegal(), 1, "A"), headers=KEY).get_json()["id"]
    why = "\u05d4\u05e7\u05dc\u05e4\u05d9\u05dd \u05e0\u05d7\u05e9\u05e4\u05d5 12"
    assert client.put(f"/api/v1/games/{gid}/ruling", headers=KEY,
                      json={"ruling": "void", "reason": why}).status_code == 200
    html = page(client, f"/games/{gid}")
    assert f"reason: <bdi>{why}</bdi>)" in html
    assert html.count(f"<bdi>{why}</bdi>") == html.count(why) == 2  # the ruling, its history
    assert client.delete(f"/api/v1/games/{gid}", json={"reason": why},
                         headers=KEY).status_code == 200
    gone = client.get(f"/games/{gid}", headers=BROWSER).get_data(as_text=True)
    assert f"\u2068{why}\u2069" in gone

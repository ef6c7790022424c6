"""The tournament desk on the pages: provisional or final with each open matter linked,
the rulings (verdict beside ruling) and the withdrawn games."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask import Flask

from service.api import close_app, create_app
from service.api.config import VARIABLES
from tests.api.helpers import illegal, post_log, valid

from .conftest import BROWSER


@pytest.fixture
def app(tmp_path) -> Iterator[Flask]:
    app = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                      "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0",
                      "RUMMY_API_KEYS": "director:write-key", "TESTING": True,
                      "RUMMY_DB": str(tmp_path / "rummy.duckdb")})
    yield app
    close_app(app)


KEY = {"Authorization": "Bearer write-key"}


def at(log, round_, table):
    return log | {"tournament": {"id": "desk", "round": round_, "table": table}}


def page(client, path: str) -> str:
    response = client.get(path, headers=BROWSER)
    assert response.status_code == 200, response.data[:300]
    return response.get_data(as_text=True)


def test_the_tournament_page_says_provisional_then_final(app):
    client = app.test_client()
    ids = [post_log(client, log, headers=KEY).get_json()["id"] for log in (
        at(valid(), 1, "A"), at(illegal(), 2, "A"), at(valid(id="edited"), 1, "A"))]
    first, bad, again = ids

    html = page(client, "/tournaments/desk")
    assert 'data-final="false"' in html
    assert "Provisional: 2 matters open" in html
    matters = re.findall(r'<li class="matter" data-kind="([^"]+)">(.*?)</li>', html, re.S)
    assert [kind for kind, _ in matters] == ["duplicate_table", "illegal_game"]
    assert f'href="/games/{first}"' in matters[0][1] and f'href="/games/{again}"' in matters[0][1]
    assert f'href="/games/{bad}"' in matters[1][1]
    assert f'href="/api/v1/games/{bad}/ruling"' in matters[1][1]
    listing = page(client, "/tournaments")
    assert "Provisional: 2 open" in listing

    ruled = client.put(f"/api/v1/games/{bad}/ruling", headers=KEY, json={
        "ruling": "forfeit", "against": "ana", "reason": "discarded a card she did not hold"})
    assert ruled.status_code == 200
    html = page(client, "/tournaments/desk")
    assert "Provisional: 1 matter open" in html
    assert client.delete(f"/api/v1/games/{again}?reason=entered+twice",
                         headers=KEY).status_code == 200

    html = page(client, "/tournaments/desk")
    assert 'data-final="true"' in html and "✔ Final" in html and "Provisional" not in html
    [ruling] = re.findall(r'<li class="ruling" data-game="[^"]+">(.*?)</li>', html, re.S)
    assert "verdict: illegal; ruling: forfeit against ana (director," in ruling
    assert "reason: <bdi>discarded a card she did not hold</bdi>" in ruling
    [withdrawn] = re.findall(r'<ul class="withdrawn" id="withdrawn">(.*?)</ul>', html, re.S)
    assert again[:12] in withdrawn and "by director (<bdi>entered twice</bdi>)" in withdrawn
    assert "Final" in page(client, "/tournaments")

    game = page(client, f"/games/{bad}")
    assert re.search(r'<p id="ruling">Verdict: illegal; ruling: forfeit against ana '
                     r'\(director, <time', game)


def test_the_tournament_page_names_the_event_its_dates_venue_and_ranking(app):
    client = app.test_client()
    assert post_log(client, at(valid(), 1, "A"), headers=KEY).status_code == 201
    assert "<h1>Tournament desk</h1>" in page(client, "/tournaments/desk")
    response = client.put("/api/v1/tournaments/desk/settings", headers=KEY, json={
        "name": "Desk Open", "dates": {"start": "2024-05-11", "end": "2024-05-12"},
        "venue": "Club house", "ranking": "match_points", "tie_breaks": ["head_to_head"]})
    assert response.status_code == 200
    html = page(client, "/tournaments/desk")
    assert '<h1>Desk Open <span class="hint">(tournament desk)</span></h1>' in html
    assert ("2024-05-11 to 2024-05-12 · Club house · ranked by match points, then head to "
            "head") in html

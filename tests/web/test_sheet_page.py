"""The score-sheet page through Flask's test client: it renders for every visitor with
the presets and the options a sheet may set, the upload page links to it, and it loads
nothing from elsewhere.  What its script does is tested in Chromium
(test_browser_sheets.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from flask import Flask

from service.api import close_app, create_app
from service.api.config import VARIABLES

from .conftest import BROWSER
from .test_pages import _page, _parse


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[Flask]:
    config = dict.fromkeys(VARIABLES, "") | {"RUMMY_VERIFY_PROCESSES": "0",
                                             "RUMMY_STORE_PROCESS": "0",
                                             "RUMMY_ANALYSIS": "0"}
    app = create_app({**config, "TESTING": True,
                      "RUMMY_DB": str(tmp_path_factory.mktemp("sheet") / "rummy.duckdb")})
    yield app
    close_app(app)


def _variants(html: str) -> dict[str, dict]:
    m = re.search(r'<script type="application/json" id="sheet-variants">(.*?)</script>',
                  html, re.S)
    assert m, "the page carries the presets for its script"
    return {v["name"]: v for v in json.loads(m[1])}


def test_the_page_renders_with_the_presets_and_the_sheet_options(app):
    html = _page(app.test_client(), "/sheets/new")
    for part in ('id="variant"', 'id="player-1"', 'id="player-6"', 'id="tournament"',
                 'id="round"', 'id="table"', 'id="api-key"', 'id="sheet"', 'id="store"',
                 'id="download"', 'id="sheet-state"'):
        assert part in html, part
    assert '<option value="gin" selected>' in html  # gin first: most sheets are gin
    variants = _variants(html)
    assert set(variants) == {"rummy", "rummy-pagat", "rummy-block", "gin", "greek"}
    gin = variants["gin"]
    assert (gin["family"], gin["min_players"], gin["max_players"]) == ("gin", 2, 4)
    options = {o["name"]: o for o in gin["options"]}
    assert {"target", "knock_limit", "oklahoma", "hollywood", "shutout_double",
            "big_gin_bonus"} <= set(options)
    assert "stock_floor" not in options  # how play goes leaves no trace on a sheet
    assert options["target"]["default"] == 100 and options["target"]["nullable"]
    rummy = {o["name"]: o for o in variants["rummy"]["options"]}
    assert variants["rummy"]["max_players"] == 6
    assert rummy["rummy_bonus"]["choices"] == ["double", "plus10", "penalty25", "none"]
    assert "oklahoma" not in rummy


def test_the_variant_field_names_the_size_of_a_gin_table(app):
    """Gin is offered for two, three and four (a sheet's columns depend on it), two
    keeping the preset's bare name; a Rummy preset once, its players the names typed."""
    html = _page(app.test_client(), "/sheets/new")
    field = re.search(r'<select id="variant"[^>]*>(.*?)</select>', html, re.S)
    assert field
    choices = re.findall(r'<option value="([^"]+)"(?: selected)?>([^<]+)</option>', field[1])
    assert choices == [("rummy", "rummy"), ("rummy-pagat", "rummy-pagat"),
                       ("rummy-block", "rummy-block"), ("gin", "gin, 2 players"),
                       ("gin:3", "gin, 3 players"),
                       ("gin:4", "gin, 4 players (partnerships)"), ("greek", "greek")]
    # at four the partners sit opposite: the page says so when that table is chosen
    note = re.search(r'<p id="partners-note"[^>]*>(.*?)</p>', html, re.S)
    assert note and " hidden" in note[0]
    assert note[1] == "Partners sit opposite: players 1 and 3 against players 2 and 4."
    assert "who sat out of each deal" in html and "which pair played it" in html


def test_the_upload_page_links_to_the_sheet_page(app):
    html = _page(app.test_client(), "/")
    assert "/sheets/new" in _parse(html).urls
    assert "Enter the score sheet" in html


def test_the_page_and_its_script_load_only_from_the_app(app):
    client = app.test_client()
    html = _page(client, "/sheets/new")
    assert "http://" not in html and "https://" not in html
    urls = _parse(html).urls
    assert all(url.startswith(("/", "#")) for url in urls), urls
    assert "/assets/sheet.js" in urls and "/assets/style.css" in urls
    for url in (u for u in urls if u.startswith("/assets/")):
        response = client.get(url)
        assert response.status_code == 200 and len(response.data) > 100, url
    script = client.get("/assets/sheet.js").get_data(as_text=True)
    assert "http://" not in script and "https://" not in script
    assert re.findall(r'^import ', script, re.M) == []  # one module, nothing imported
    # the page's checks are the API's dry run, its store the API's upload
    assert "?dry_run=true" in script and "/games" in script


def test_the_page_is_open_without_a_read_key_and_says_writes_need_one(keyed):
    client = keyed.test_client()
    page = client.get("/sheets/new", headers=BROWSER)
    assert page.status_code == 200  # no stored data on it: no read key needed
    html = page.get_data(as_text=True)
    assert 'data-key-needed="true"' in html
    assert "this server needs one to check or store a game" in html
    # what the page calls refuses a dry run without the write key
    response = client.post("/api/v1/games?dry_run=true", data=b"{}",
                           content_type="application/json")
    assert response.status_code == 401

"""Fixtures of the page tests: one app per module on a temporary DuckDB file, with every
sample log uploaded through the API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from service.api import close_app, create_app
from service.api.config import VARIABLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_logs").glob("*.json"))
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
# A form a page of the test client's own site posts (the forms refuse any other).
FROM_HERE = {**BROWSER, "Origin": "http://localhost"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[Flask, dict[str, str]]]:
    """The app, and the id of each sample by its file's stem."""
    config = dict.fromkeys(VARIABLES, "") | {"RUMMY_VERIFY_PROCESSES": "0",
                                             "RUMMY_STORE_PROCESS": "0",
                                             # no background analysis: the pages are
                                             # compared with API answers read just before
                                             "RUMMY_ANALYSIS": "0"}
    app = create_app({**config, "TESTING": True,
                      "RUMMY_DB": str(tmp_path_factory.mktemp("web") / "rummy.duckdb")})
    client = app.test_client()
    ids = {}
    for path in SAMPLES:
        response = client.post("/api/v1/games", data=path.read_bytes(),
                               content_type="application/json")
        assert response.status_code == 201, response.get_json()
        ids[path.stem] = response.get_json()["id"]
    yield app, ids
    close_app(app)


@pytest.fixture
def keyed(tmp_path) -> Iterator[Flask]:
    """An app whose reads need reader's key and whose writes need writer's."""
    app = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                      "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_READ_KEYS": "reader:read-key",
                      "RUMMY_API_KEYS": "writer:write-key",
                      "RUMMY_DB": str(tmp_path / "rummy.duckdb")})
    yield app
    close_app(app)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per browser test module."""
    from .chromium import launch, sync_api  # skips the module without Chromium

    with sync_api.sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def watched(browser, server):
    """A fresh page on the module's ``server``; at its end no console error, no uncaught
    exception and no request to anywhere else may have happened."""
    from .chromium import Watched

    page = Watched(browser, f"http://127.0.0.1:{server.port}")
    yield page
    page.check()
    page.close()

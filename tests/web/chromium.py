"""What every browser test module shares: Debian's Chromium driven by Playwright, the
watched page, and a JSON read of the API.

Importing this module skips the importing test module, saying why, when Playwright or
Chromium is missing (``apt-get install chromium``); ``playwright install`` is never
needed, nor run.  The ``browser`` and ``watched`` fixtures live in ``conftest.py``; each
module brings its own ``server``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.server import Server

from .conftest import ROOT

CHROMIUM = os.environ.get("RUMMY_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update"]
SHOTS = ROOT / "build" / "screenshots"

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need "
                               "Playwright: pip install -e '.[test]'")
if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
    pytest.skip(f"the browser tests need Chromium at {CHROMIUM}: apt-get install chromium "
                "(or set RUMMY_CHROMIUM to its path)", allow_module_level=True)
# A shared two-core machine can be slow: wait for what the page shows for up to 30 s
# (a batch's verdicts wait for its games' commits).
sync_api.expect.set_options(timeout=30_000)


def launch(playwright):
    """Debian's Chromium, headless, with nothing reaching out to the network."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


class Watched:
    """A page whose console errors, exceptions and requests are recorded."""

    def __init__(self, browser, base: str, width: int = 1280) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": width, "height": 900},
                                           base_url=base)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.context.on("request", lambda r: self.requests.append(r.url))

    def check(self) -> None:
        assert self.errors == []
        assert self.requests, "the page made no request"
        outside = [url for url in self.requests if not url.startswith(self.base + "/")
                   and not url.startswith("data:")]
        assert outside == []

    def close(self) -> None:
        self.context.close()


def api(server: Server, path: str) -> dict:
    """The API's answer to a GET of ``/api/v1`` + ``path``, which must be a 200."""
    status, body = server.get_json(f"/api/v1{path}")
    assert status == 200, (path, body)
    return body

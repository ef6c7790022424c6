"""One service per module for the ratings tests, as shipped (the store in a process of
its own); each test plays new players (``helpers.renamed``), so tests share it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from service.api import close_app

from ..api.conftest import _build


@pytest.fixture(scope="module")
def rated_app(tmp_path_factory) -> Iterator[Flask]:
    app = _build(tmp_path_factory.mktemp("ratings") / "rummy.duckdb", RUMMY_STORE_PROCESS="1")
    yield app
    close_app(app)


@pytest.fixture
def client(rated_app):
    return rated_app.test_client()

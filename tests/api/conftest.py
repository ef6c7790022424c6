"""Fixtures of the HTTP API tests: apps on temporary DuckDB files, closed after.

Every app is built with each RUMMY_* variable given explicitly (empty: the default), so
the shell that runs the suite cannot change what the tests see.  ``shared_client`` is
one app per module for tests that only read or that write the same games every time.

Every test runs twice, as the service is shipped (the store in a process of its own,
``RUMMY_STORE_PROCESS=1``) and with the store in the worker (``0``); a test that sets
the variable itself runs as it says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api import close_app, create_app
from service.api.config import VARIABLES

# Verification in the request thread, so that tests can patch the engine; the pool of
# verifying processes has tests of its own (test_batch.py).
# The background analysis is off but where a test turns it on (tests/api/test_analysis.py):
# it would take CPU from every other test.
DEFAULTS = dict.fromkeys(VARIABLES, "") | {"RUMMY_VERIFY_PROCESSES": "0",
                                           "RUMMY_STORE_PROCESS": "0", "RUMMY_ANALYSIS": "0"}


STORE_MODES = {"store process": "1", "store here": "0"}


def _build(path: Path, **config: Any) -> Flask:
    return create_app({**DEFAULTS, "RUMMY_DB": str(path), "TESTING": True, **config})


@pytest.fixture(scope="module", params=list(STORE_MODES))
def store_process(request) -> str:
    """Where the store runs for this test's apps: RUMMY_STORE_PROCESS."""
    return STORE_MODES[request.param]


@pytest.fixture
def make_app(tmp_path, store_process) -> Iterator[Callable[..., Flask]]:
    """Build apps with config overrides; each gets its own database file."""
    apps: list[Flask] = []

    def make(**config: Any) -> Flask:
        config = {"RUMMY_STORE_PROCESS": store_process, **config}
        apps.append(_build(tmp_path / f"db{len(apps)}" / "rummy.duckdb", **config))
        return apps[-1]

    yield make
    for app in apps:
        close_app(app)


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    return make_app()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="module")
def shared_app(tmp_path_factory, store_process) -> Iterator[Flask]:
    app = _build(tmp_path_factory.mktemp("shared") / "rummy.duckdb",
                 RUMMY_STORE_PROCESS=store_process)
    yield app
    close_app(app)


@pytest.fixture
def shared_client(shared_app: Flask) -> FlaskClient:
    return shared_app.test_client()

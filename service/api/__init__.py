"""The HTTP API (Flask, flask-smorest), under ``/api/v1``.

    from service.api import create_app
    app = create_app()                       # settings from RUMMY_* environment variables
    app = create_app({"RUMMY_DB": path})     # or overridden, as the tests do

The app opens its DuckDB store when it is created, so create it in the process that
serves (a gunicorn worker after the fork, never at import time), and in one process per
database file: DuckDB allows one writer process.  By default the store runs in a
process of its own (``service.store.remote``: DuckDB statements would otherwise wait on
the HTTP threads for the interpreter lock): under gunicorn the one the master started
for all its workers, elsewhere one that the app starts.  The app's own store is closed
at exit, or by :func:`close_app`.  With ``RUMMY_LAKE`` the app serves an audit's
Parquet results instead (``service.store.lake``), read-only: every write answers 405
``read-only``.

Modules, one concern each: ``config`` (settings), ``problems`` (RFC 9457 errors),
``auth`` (API keys), ``pagination`` (cursors, Link), ``spec`` (OpenAPI), ``jsonio``
(JSON answers by orjson), ``intake`` (body reads and verification), and the blueprints
``games``, ``positions`` (a deal's every position), ``batch``, ``variants``, ``health``
(+ ``metrics``), ``index`` (``/api/v1`` and ``/``) and ``docs``, each with its schemas
beside it.  The pages for people (``service.web``) are registered on the same app.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, request

from ..shared_pool import shared_where
from ..store import Store
from ..store.lake import LakeStore
from ..store.remote import AttachedStore, RemoteStore, shared_store
from . import (
    analysis,
    batch,
    desk,
    docs,
    export,
    games,
    health,
    index,
    metrics,
    players,
    positions,
    problems,
    ratings,
    stats,
    tournaments,
    variants,
)
from .auth import KEYRING_EXTENSION, Keyring
from .config import EXTENSION, STORE_EXTENSION, VERIFIER_EXTENSION, Settings
from .jsonio import OrjsonProvider
from .problems import READ_ONLY, Problem
from .segments import NameConverter, TournamentConverter
from .spec import make_api
from .verifier import SharedVerifier, Verifier

_CLOSER = "rummy_close"

__all__ = ["Settings", "close_app", "create_app", "on_store_lost"]


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A new app: settings from the environment overridden by ``config`` (``RUMMY_*``
    keys; any other key goes to Flask's own config), its store opened."""
    settings = Settings.load(config)
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    app.config.update({key: value for key, value in (config or {}).items()
                       if not key.startswith("RUMMY_")})
    app.config["MAX_CONTENT_LENGTH"] = max(settings.max_game_bytes, settings.max_batch_bytes)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep the engine's key order
    app.extensions[EXTENSION] = settings
    app.extensions[KEYRING_EXTENSION] = Keyring.of(settings)

    app.url_map.converters["game_id"] = games.GameIdConverter
    app.url_map.converters["name"] = NameConverter
    app.url_map.converters["tournament"] = TournamentConverter
    problems.install(app)
    metrics.install(app)
    api = make_api(app)
    for blueprint in (export.blp, games.blp, batch.blp, variants.blp, health.blp, players.blp,
                      tournaments.blp, stats.blp, index.blp, positions.blp, analysis.blp,
                      ratings.blp, desk.blp):
        api.register_blueprint(blueprint)
    from ..web import install as install_pages  # the pages import this package

    install_pages(app)  # before index.root: the pages take "/" over for browsers
    app.register_blueprint(index.root)
    app.register_blueprint(docs.blp)
    app.register_blueprint(docs.root)

    if settings.lake_path is not None:
        store: Store | RemoteStore | AttachedStore | LakeStore = LakeStore(settings.lake_path)
        verifier = Verifier(0)
        app.before_request(_read_only)
    else:
        store = open_store(settings)
        verifier = open_verifier(settings, store)
    app.extensions[STORE_EXTENSION] = store
    app.extensions[VERIFIER_EXTENSION] = verifier
    app.extensions[_CLOSER] = _closer(store, verifier)
    atexit.register(app.extensions[_CLOSER])
    return app


READS = ("GET", "HEAD", "OPTIONS")


def _read_only() -> None:
    """Serving a lake: every write is refused before its view runs."""
    if request.method not in READS:
        raise Problem(405, READ_ONLY, "this service serves an audit's results, read-only; "
                      "import them into a store to add or delete games",
                      headers={"Allow": ", ".join(READS)})


def open_store(settings: Settings) -> Store | RemoteStore | AttachedStore:
    """The store of the app: the one the gunicorn master serves for its workers when
    there is one for this file, else a store process of the app's own, or DuckDB in
    this process (``RUMMY_STORE_PROCESS=0``)."""
    if not settings.store_process:
        store = Store(settings.db_path, max_queued_games=settings.max_queued_games,
                      ratings=settings.ratings)
        if settings.analysis:
            store.start_catchup()  # the background analysis (docs/ANALYSIS.md)
        return store
    return shared_store(settings.db_path) \
        or RemoteStore(settings.db_path, max_queued_games=settings.max_queued_games,
                       analysis=settings.analysis, ratings=settings.ratings)


def open_verifier(settings: Settings,
                  store: Store | RemoteStore | AttachedStore) -> Verifier | SharedVerifier:
    """The verifier of batch lines: the pool the gunicorn master serves for all of its
    workers when there is one, else a pool of the app's own (``RUMMY_VERIFY_PROCESSES``
    processes; 0: in the request thread), whose processes store the games themselves
    when there is a store process."""
    shared = shared_where()
    if shared is not None and isinstance(store, AttachedStore):
        return SharedVerifier(*shared)
    return Verifier(settings.verify_processes, store.where
                    if isinstance(store, RemoteStore | AttachedStore) else None)


def _closer(store: Store | RemoteStore | AttachedStore | LakeStore,
            verifier: Verifier | SharedVerifier) -> Callable[[], None]:
    """Close the store and the verifying pool once, whoever asks first (atexit or
    close_app)."""
    lock = threading.Lock()
    closed = False

    def close() -> None:
        nonlocal closed
        with lock:
            if not closed:
                closed = True
                verifier.close()
                store.close()

    return close


def on_store_lost(app: Flask, callback: Callable[[], None]) -> None:
    """Have ``callback`` called if the app's own store process ends on its own (the
    shipped gunicorn configuration then ends the worker, and its replacement starts
    afresh).  The store the gunicorn master serves is none of the app's: the master
    starts it again, and the app's calls reconnect."""
    store = app.extensions[STORE_EXTENSION]
    if isinstance(store, RemoteStore):
        store.on_lost = callback


def close_app(app: Flask) -> None:
    """Close the app's store now (tests, or an embedding server shutting down)."""
    close = app.extensions[_CLOSER]
    close()
    atexit.unregister(close)

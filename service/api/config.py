"""The service's settings: environment variables, overridable by a dict (tests).

Also the accessors of what the app holds per process: its settings and its store.

Every setting is read once, when the app is created, and checked then: a bad value
stops the start-up with a message naming the variable rather than failing a request
later.

    RUMMY_DB               DuckDB file                         ./data/rummy.duckdb
    RUMMY_API_KEYS         comma-separated keys for writes     (unset: writes open)
    RUMMY_READ_KEYS        comma-separated keys for reads      (unset: reads open)
    RUMMY_MAX_GAME_BYTES   largest single log                  1 MiB
    RUMMY_MAX_BATCH_BYTES  largest NDJSON batch body           64 MiB
    RUMMY_PAGE_SIZE        default page size of GET /games     50
    RUMMY_MAX_PAGE_SIZE    largest page size                   500
    RUMMY_BATCH_CHUNK      games verified and committed at once in a batch  200
    RUMMY_VERIFY_PROCESSES processes verifying batch lines (0: none)  cores
    RUMMY_STORE_PROCESS    1: DuckDB in a process of its own; 0: in this one  1
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import current_app

from ..engine.parse import MAX_BYTES
from ..store import Store
from ..store.remote import RemoteStore

if TYPE_CHECKING:
    from .verifier import Verifier

VARIABLES = ("RUMMY_DB", "RUMMY_API_KEYS", "RUMMY_READ_KEYS", "RUMMY_MAX_GAME_BYTES",
             "RUMMY_MAX_BATCH_BYTES", "RUMMY_PAGE_SIZE", "RUMMY_MAX_PAGE_SIZE",
             "RUMMY_BATCH_CHUNK", "RUMMY_VERIFY_PROCESSES", "RUMMY_STORE_PROCESS")
EXTENSION = "rummy_settings"
STORE_EXTENSION = "rummy_store"
VERIFIER_EXTENSION = "rummy_verifier"


def _cores() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting of the HTTP service, resolved and checked."""

    db_path: str = "./data/rummy.duckdb"
    api_keys: tuple[str, ...] = ()
    read_keys: tuple[str, ...] = ()
    max_game_bytes: int = MAX_BYTES
    max_batch_bytes: int = 64 << 20
    page_size: int = 50
    max_page_size: int = 500
    batch_chunk: int = 200
    verify_processes: int = field(default_factory=_cores)
    store_process: bool = True

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None,
             environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``environ`` (default: the process environment), each variable
        replaced by the same key in ``overrides`` when present (an empty value means the
        default)."""
        source: dict[str, Any] = dict(os.environ if environ is None else environ)
        source.update(overrides or {})
        base = cls()
        settings = cls(
            db_path=str(source.get("RUMMY_DB") or base.db_path),
            api_keys=_keys(source, "RUMMY_API_KEYS"),
            read_keys=_keys(source, "RUMMY_READ_KEYS"),
            max_game_bytes=_int(source, "RUMMY_MAX_GAME_BYTES", base.max_game_bytes),
            max_batch_bytes=_int(source, "RUMMY_MAX_BATCH_BYTES", base.max_batch_bytes),
            page_size=_int(source, "RUMMY_PAGE_SIZE", base.page_size),
            max_page_size=_int(source, "RUMMY_MAX_PAGE_SIZE", base.max_page_size),
            batch_chunk=_int(source, "RUMMY_BATCH_CHUNK", base.batch_chunk),
            verify_processes=_int(source, "RUMMY_VERIFY_PROCESSES", base.verify_processes,
                                  minimum=0),
            store_process=_flag(source, "RUMMY_STORE_PROCESS", base.store_process),
        )
        if settings.page_size > settings.max_page_size:
            raise ValueError("RUMMY_PAGE_SIZE must not exceed RUMMY_MAX_PAGE_SIZE")
        return settings


def _int(source: Mapping[str, Any], name: str, default: int, minimum: int = 1) -> int:
    value = source.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum}")
    return number


def _flag(source: Mapping[str, Any], name: str, default: bool) -> bool:
    value = source.get(name)
    if value is None or value == "":
        return default
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0, not {value!r}")


def _keys(source: Mapping[str, Any], name: str) -> tuple[str, ...]:
    """A comma-separated string (or a list, from a test) as a tuple of non-empty keys."""
    value = source.get(name)
    if not value:
        return ()
    parts: Iterable[Any] = value.split(",") if isinstance(value, str) else value
    keys = tuple(str(part).strip() for part in parts if str(part).strip())
    for key in keys:
        if not key.isprintable() or " " in key:
            raise ValueError(f"{name}: a key must be printable and without spaces")
    return keys


def settings() -> Settings:
    """The settings of the current app."""
    return current_app.extensions[EXTENSION]


def current_store() -> Store | RemoteStore:
    """The store the current app opened (one per process, shared by its threads)."""
    return current_app.extensions[STORE_EXTENSION]


def current_verifier() -> Verifier:
    """The pool verifying batch lines (one per process)."""
    return current_app.extensions[VERIFIER_EXTENSION]

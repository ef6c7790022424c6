"""The service's settings: environment variables, overridable by a dict (tests).

Also the accessors of what the app holds per process: its settings and its store.

Every setting is read once, when the app is created, and checked then: a bad value
stops the start-up with a message naming the variable rather than failing a request
later.

    RUMMY_DB               DuckDB file                         ./data/rummy.duckdb
    RUMMY_API_KEYS         comma-separated keys for writes,    (unset: writes open)
                           each ``name:key`` or a bare ``key``
    RUMMY_READ_KEYS        the same for reads                  (unset: reads open)
    RUMMY_LABEL_SECRET     secret of the uploader labels of bare keys
                           (unset: a random one kept beside the database file)
    RUMMY_MAX_GAME_BYTES   largest single log                  1 MiB
    RUMMY_MAX_BATCH_BYTES  largest NDJSON batch body           64 MiB
    RUMMY_PAGE_SIZE        default page size of GET /games     50
    RUMMY_MAX_PAGE_SIZE    largest page size                   500
    RUMMY_BATCH_CHUNK      games verified and committed at once in a batch  200
    RUMMY_BATCH_MAX_BAD_RUN    malformed lines in a row that stop a batch  500
    RUMMY_BATCH_MAX_BAD_LINES  malformed lines in all that stop a batch    1000
    RUMMY_VERIFY_PROCESSES processes verifying batch lines (0: none)  cores
    RUMMY_STORE_PROCESS    1: DuckDB in a process of its own; 0: in this one  1
    RUMMY_MAX_QUEUED_GAMES games waiting to be written before a single upload is
                           refused with 503 and Retry-After (back-pressure)  2000
    RUMMY_LAKE             an audit's results folder to serve, read-only,    (unset)
                           instead of RUMMY_DB (service.store.lake)
    RUMMY_ANALYSIS         1: the stored games analysed in the background; 0: only
                           when asked for                      1
    RUMMY_RATINGS          1: the stored games rated (docs/RATINGS.md); 0: not
                           rated, the ratings computed again at the next start
                           with 1                              1
    RUMMY_RATING_PROVISIONAL_SIGMA  a rating is provisional above this sigma  6.0
    RUMMY_RATING_PROVISIONAL_GAMES  ... or below this many rated games        10
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import current_app

from ..engine.limits import MAX_BYTES
from ..engine.words import integer_range
from ..store import Store
from ..store.db import MAX_QUEUED_GAMES
from ..store.remote import AttachedStore, RemoteStore

if TYPE_CHECKING:
    from .verifier import SharedVerifier, Verifier

VARIABLES = ("RUMMY_DB", "RUMMY_API_KEYS", "RUMMY_READ_KEYS", "RUMMY_LABEL_SECRET",
             "RUMMY_MAX_GAME_BYTES",
             "RUMMY_MAX_BATCH_BYTES", "RUMMY_PAGE_SIZE", "RUMMY_MAX_PAGE_SIZE",
             "RUMMY_BATCH_CHUNK", "RUMMY_BATCH_MAX_BAD_RUN", "RUMMY_BATCH_MAX_BAD_LINES",
             "RUMMY_VERIFY_PROCESSES", "RUMMY_STORE_PROCESS", "RUMMY_MAX_QUEUED_GAMES",
             "RUMMY_LAKE", "RUMMY_ANALYSIS", "RUMMY_RATINGS",
             "RUMMY_RATING_PROVISIONAL_SIGMA", "RUMMY_RATING_PROVISIONAL_GAMES")
EXTENSION = "rummy_settings"
STORE_EXTENSION = "rummy_store"
VERIFIER_EXTENSION = "rummy_verifier"


def _cores() -> int:
    return os.cpu_count() or 1


KEY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One configured key: its secret, and the name it was given (``name:key``), which
    is the uploader label of the games it sends; None for a key given bare."""

    key: str
    name: str | None = None

    def __repr__(self) -> str:  # never the secret in a log or a traceback
        return f"ApiKey(name={self.name!r})"


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting of the HTTP service, resolved and checked."""

    db_path: str = "./data/rummy.duckdb"
    api_keys: tuple[ApiKey, ...] = ()
    read_keys: tuple[ApiKey, ...] = ()
    label_secret: str | None = field(default=None, repr=False)
    max_game_bytes: int = MAX_BYTES
    max_batch_bytes: int = 64 << 20
    page_size: int = 50
    max_page_size: int = 500
    batch_chunk: int = 200
    batch_max_bad_run: int = 500
    batch_max_bad_lines: int = 1000
    verify_processes: int = field(default_factory=_cores)
    store_process: bool = True
    max_queued_games: int = MAX_QUEUED_GAMES
    lake_path: str | None = None  # serve an audit's results, read-only
    analysis: bool = True
    ratings: bool = True
    rating_max_sigma: float = 6.0
    rating_min_games: int = 10

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
            label_secret=str(source.get("RUMMY_LABEL_SECRET") or "") or None,
            max_game_bytes=_int(source, "RUMMY_MAX_GAME_BYTES", base.max_game_bytes),
            max_batch_bytes=_int(source, "RUMMY_MAX_BATCH_BYTES", base.max_batch_bytes),
            page_size=_int(source, "RUMMY_PAGE_SIZE", base.page_size),
            max_page_size=_int(source, "RUMMY_MAX_PAGE_SIZE", base.max_page_size),
            batch_chunk=_int(source, "RUMMY_BATCH_CHUNK", base.batch_chunk),
            batch_max_bad_run=_int(source, "RUMMY_BATCH_MAX_BAD_RUN", base.batch_max_bad_run),
            batch_max_bad_lines=_int(source, "RUMMY_BATCH_MAX_BAD_LINES",
                                     base.batch_max_bad_lines),
            verify_processes=_int(source, "RUMMY_VERIFY_PROCESSES", base.verify_processes,
                                  minimum=0),
            store_process=_flag(source, "RUMMY_STORE_PROCESS", base.store_process),
            max_queued_games=_int(source, "RUMMY_MAX_QUEUED_GAMES", base.max_queued_games),
            lake_path=str(source.get("RUMMY_LAKE") or "") or None,
            analysis=_flag(source, "RUMMY_ANALYSIS", base.analysis),
            ratings=_flag(source, "RUMMY_RATINGS", base.ratings),
            rating_max_sigma=_float(source, "RUMMY_RATING_PROVISIONAL_SIGMA",
                                    base.rating_max_sigma),
            rating_min_games=_int(source, "RUMMY_RATING_PROVISIONAL_GAMES",
                                  base.rating_min_games, minimum=0),
        )
        if settings.page_size > settings.max_page_size:
            raise ValueError("RUMMY_PAGE_SIZE must not exceed RUMMY_MAX_PAGE_SIZE")
        _distinct(settings.api_keys + settings.read_keys)
        return settings


def _int(source: Mapping[str, Any], name: str, default: int, minimum: int = 1) -> int:
    value = source.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer, not {value!r}") from None
    if number < minimum:
        raise ValueError(f"{name} {integer_range(minimum)}")
    return number


def _float(source: Mapping[str, Any], name: str, default: float) -> float:
    value = source.get(name)
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None
    if not number >= 0 or number == float("inf"):
        raise ValueError(f"{name} must be a finite number, 0 or more")
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


def _keys(source: Mapping[str, Any], name: str) -> tuple[ApiKey, ...]:
    """A comma-separated string (or a list, from a test) of ``name:key`` or bare
    ``key`` entries; empty entries are skipped.  The name ends at the first colon, so a
    key holding a colon needs a name.  A malformed entry raises ValueError, which names
    the variable and the entry's position, never the key."""
    value = source.get(name)
    if not value:
        return ()
    parts: Iterable[Any] = value.split(",") if isinstance(value, str) else value
    entries = [str(part).strip() for part in parts]
    keys: list[ApiKey] = []
    for number, entry in enumerate(entries, 1):
        if not entry:
            continue
        where = f"{name}, entry {number}"
        if not entry.isprintable() or " " in entry:
            raise ValueError(f"{where}: a key must be printable and without spaces")
        label, colon, key = entry.partition(":")
        if not colon:
            keys.append(ApiKey(entry))
            continue
        if not KEY_NAME.fullmatch(label):
            raise ValueError(f"{where}: the name before ':' must be 1 to 64 letters, digits, "
                             "'.', '_' or '-', starting with a letter or digit "
                             "(write entries as name:key or key)")
        if not key:
            raise ValueError(f"{where}: the key after '{label}:' is empty")
        keys.append(ApiKey(key, label))
    return tuple(keys)


def _distinct(keys: tuple[ApiKey, ...]) -> None:
    """A name names one key, and a key has one name (or none), across RUMMY_API_KEYS
    and RUMMY_READ_KEYS: the label of every key is then unambiguous."""
    by_name: dict[str, str] = {}
    by_key: dict[str, str | None] = {}
    for entry in keys:
        if entry.name is not None and by_name.setdefault(entry.name, entry.key) != entry.key:
            raise ValueError(f"RUMMY_API_KEYS, RUMMY_READ_KEYS: the name {entry.name!r} is "
                             "given to two different keys")
        if by_key.setdefault(entry.key, entry.name) != entry.name:
            raise ValueError("RUMMY_API_KEYS, RUMMY_READ_KEYS: one key is listed under two "
                             "names (or with and without a name)")


def settings() -> Settings:
    """The settings of the current app."""
    return current_app.extensions[EXTENSION]


def current_store() -> Store | RemoteStore | AttachedStore:
    """The store the current app opened (one per process, shared by its threads)."""
    return current_app.extensions[STORE_EXTENSION]


def current_verifier() -> Verifier | SharedVerifier:
    """The pool verifying batch lines: the app's own, or the one its workers share."""
    return current_app.extensions[VERIFIER_EXTENSION]

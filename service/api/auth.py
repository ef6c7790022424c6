"""Bearer API keys: writes need one of RUMMY_API_KEYS, reads one of RUMMY_READ_KEYS.

Either list unset leaves that side open.  A write key also reads.  A browser cannot
send a header from its address bar, so a read may also carry its key in the
``rummy_read_key`` cookie, which the web app's key page sets (HttpOnly, SameSite=Strict,
for the browser session only).  Writes never take the cookie: a page of another site
could make the browser send it, so a write needs the Authorization header.  The uploader of a
game is recorded as a label of the key that sent it, never the key itself, so the
database does not hold credentials:

- a key configured as ``name:key`` is labelled by its name;
- a bare key by ``key-`` and 16 hex digits of HMAC-SHA256 under the label secret
  (``RUMMY_LABEL_SECRET``, or else a random secret generated once and kept beside the
  database file, readable by its owner only).  A plain hash of the key would let anyone
  who reads the labels try guesses of a weak key offline; under a secret they cannot,
  and the labels stay the same across restarts as long as the secret does.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from flask import current_app, g, request
from flask_smorest import Blueprint

from ..engine.limits import MAX_ID_LENGTH
from ..store.desk import tournament_public
from .config import ApiKey, Settings, current_store
from .problems import FORBIDDEN, UNAUTHORIZED, Problem

SCHEME_NAME = "bearerAuth"
SECURITY_SCHEME = {"type": "http", "scheme": "bearer",
                   "description": "An API key from RUMMY_API_KEYS (writes) or "
                                  "RUMMY_READ_KEYS (reads); needed only when those are set."}

F = TypeVar("F", bound=Callable[..., Any])

READ_COOKIE = "rummy_read_key"


KEYRING_EXTENSION = "rummy_keyring"
ACCESS = "x-access"  # in the document: "read", "write" or "public", which keys the operation takes
# A view of one tournament read without a key when that tournament is public.
PUBLIC_NOTE = ("Without a read key, answered only for a tournament whose settings say "
               "`\"public\": true`; any other answers 401.")
SECRET_SUFFIX = ".label-secret"
MIN_SECRET_LENGTH = 16
_STORED_SECRET = re.compile(r"[0-9a-f]{64}")


def keyed_label(secret: bytes, key: str) -> str:
    """The uploader label of a bare key: ``key-`` and 16 hex digits of its HMAC-SHA256
    under ``secret``."""
    return "key-" + hmac.new(secret, key.encode(), hashlib.sha256).hexdigest()[:16]


def secret_path(db_path: str) -> Path | None:
    """Where the generated label secret of a database file is kept (None in memory)."""
    return None if db_path == ":memory:" else Path(db_path + SECRET_SUFFIX)


def label_secret(config: Settings) -> bytes:
    """RUMMY_LABEL_SECRET, else the secret kept beside the database file, created the
    first time (mode 0600); ValueError for a secret too short or a file not ours."""
    if config.label_secret is not None:
        if len(config.label_secret) < MIN_SECRET_LENGTH:
            raise ValueError(f"RUMMY_LABEL_SECRET must have at least {MIN_SECRET_LENGTH} "
                             "characters")
        return config.label_secret.encode()
    path = secret_path(config.db_path)
    if path is None:
        return secrets.token_bytes(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(secrets.token_hex(32) + "\n")
            out.flush()
            os.fsync(out.fileno())
        # Whole or not at all: a link never replaces a secret another start wrote.
        with suppress(FileExistsError):
            os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
    text = path.read_text().strip()
    if not _STORED_SECRET.fullmatch(text):
        raise ValueError(f"{path} is not a label secret written by this service: remove it "
                         "(the labels of bare keys then change) or set RUMMY_LABEL_SECRET")
    return bytes.fromhex(text)


@dataclass(frozen=True, slots=True)
class Keyring:
    """The keys of an app as bytes to compare, the write keys with their labels;
    ``read`` is None when reads are open, else the read keys and the write keys."""

    write: tuple[bytes, ...]
    labels: tuple[str, ...]
    read: tuple[bytes, ...] | None

    @classmethod
    def of(cls, config: Settings) -> Keyring:
        """The keyring of ``config``; the label secret is read (or made) only when a
        write key is bare."""
        secret = label_secret(config) if any(k.name is None for k in config.api_keys) \
            else b""
        write = tuple(k.key.encode() for k in config.api_keys)
        labels = tuple(uploader_label(k, secret) for k in config.api_keys)
        read = tuple(k.key.encode() for k in config.read_keys) + write \
            if config.read_keys else None
        return cls(write, labels, read)


def uploader_label(key: ApiKey, secret: bytes) -> str:
    """What the store records as the uploader of a game sent with ``key``."""
    return key.name if key.name is not None else keyed_label(secret, key.key)


def _authorize(keys: tuple[bytes, ...], labels: tuple[str, ...] | None = None,
               cookie: bool = False) -> str | None:
    """The label of the request's key (None without ``labels``), if it is one of
    ``keys``; else a 401/403 problem.  With ``cookie``, a request without an
    Authorization header may send its key in the read cookie."""
    challenge = {"WWW-Authenticate": 'Bearer realm="rummy-audit"'}
    header = request.headers.get("Authorization", "")
    if not header and cookie and request.cookies.get(READ_COOKIE):
        header = "Bearer " + request.cookies[READ_COOKIE]
    if not header:
        raise Problem(401, UNAUTHORIZED, "this endpoint needs an API key: "
                      "send 'Authorization: Bearer <key>'", headers=challenge)
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, UNAUTHORIZED, "the Authorization header must be "
                      "'Bearer <key>'", headers=challenge)
    found = _key_number(keys, token)
    if found is None:
        raise Problem(403, FORBIDDEN, "this API key is not allowed here")
    return labels[found] if labels is not None else None


def _key_number(keys: tuple[bytes, ...], token: str) -> int | None:
    """Which of ``keys`` ``token`` is, every key compared in constant time."""
    sent = token.encode()
    found = None
    for number, key in enumerate(keys):
        if hmac.compare_digest(sent, key) and found is None:
            found = number
    return found


def reads_need_a_key() -> bool:
    """Whether RUMMY_READ_KEYS closes the reads of the current app."""
    keyring: Keyring = current_app.extensions[KEYRING_EXTENSION]
    return keyring.read is not None


def writes_need_a_key() -> bool:
    """Whether RUMMY_API_KEYS closes the writes (uploads, dry runs too) of the current
    app."""
    keyring: Keyring = current_app.extensions[KEYRING_EXTENSION]
    return bool(keyring.write)


def reads_with(key: str) -> bool:
    """Whether ``key`` opens the reads of the current app (any key does when they are
    open)."""
    keyring: Keyring = current_app.extensions[KEYRING_EXTENSION]
    return keyring.read is None or _key_number(keyring.read, key.strip()) is not None


def _guard(func: F, which: str) -> F:
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        keyring: Keyring = current_app.extensions[KEYRING_EXTENSION]
        if which == "write":
            g.uploader = _authorize(keyring.write, keyring.labels) if keyring.write else None
        elif keyring.read is not None:
            _authorize(keyring.read, cookie=True)
        return func(*args, **kwargs)

    return Blueprint.doc(security=[{SCHEME_NAME: []}], **{ACCESS: which})(wrapper)


def write_access(func: F) -> F:
    """The view stores data: it needs a write key when RUMMY_API_KEYS is set, and finds
    the uploader label (or None) in ``g.uploader``.  Place it right under the route, so
    it runs before the arguments are parsed."""
    return _guard(func, "write")


def read_access_or_public(func: F) -> F:
    """As ``read_access``, but a tournament whose settings say ``"public": true`` is read
    without a key.  Only for views of one tournament, named by their ``tournament_id``
    argument: the key is checked first (no store query for a reader holding one), and
    only when it is missing or refused is the store asked whether that tournament is
    public; if not, the key's 401/403 stands."""
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        keyring: Keyring = current_app.extensions[KEYRING_EXTENSION]
        if keyring.read is not None:
            try:
                _authorize(keyring.read, cookie=True)
            except Problem:
                tournament_id = kwargs.get("tournament_id")
                if not (isinstance(tournament_id, str)
                        and 1 <= len(tournament_id) <= MAX_ID_LENGTH
                        and tournament_public(current_store(), tournament_id)):
                    raise
        return func(*args, **kwargs)

    return Blueprint.doc(security=[{SCHEME_NAME: []}], **{ACCESS: "public"})(wrapper)


def read_access(func: F) -> F:
    """The view reads stored games: it needs a read or write key when RUMMY_READ_KEYS
    is set, in the Authorization header or the read cookie."""
    return _guard(func, "read")

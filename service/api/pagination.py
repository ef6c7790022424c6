"""Keyset pagination: signed opaque cursors and the RFC 8288 ``Link: <...>; rel="next"``
header.

A cursor names the last row of a page by its sort key, the listing it belongs to
(``games``, ``players``, ...), the parameters it was made with and, for a listing whose
order moves while games are stored (the leaderboards), the snapshot its pages read
(``service.store.snapshots``).  It is signed with HMAC-SHA256 under a key derived from
the server's secret (the label secret of ``auth``): a cursor edited by hand, made for
another listing or reused with other parameters is refused with one 400 problem,
``invalid-cursor``, and so is a signed one whose values are not of the types and ranges
its listing expects (a second line of defence: nothing reaches the store unchecked).
A cursor grants nothing: it only saves the server the work of finding its place.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import math
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from flask import current_app

from .auth import label_secret
from .config import settings
from .problems import INVALID_CURSOR, Problem

log = logging.getLogger(__name__)

VERSION = "c2"
LONGEST = 1000  # characters of a cursor: a key holds at most a 64-character name
_KEY_EXTENSION = "rummy_cursor_key"
_KEY_LOCK = threading.Lock()
_LABEL = b"rummy-audit page cursors"
_BIGGEST_INT = 2**63 - 1
_BIGGEST_NUMBER = 1e15
_LONGEST_TEXT = 256


class Part(Enum):
    """What one value of a sort key may be."""

    COUNT = "count"  # an integer 0 ... 2^63 - 1 (a seq, a rank)
    NUMBER = "number"  # a finite number, |x| <= 10^15 (an ordinal, a rate)
    TEXT = "text"  # a string of at most 256 characters (a player, a variant, an id)


@dataclass(frozen=True, slots=True)
class Position:
    """Where a cursor continues: the sort key of the last row it names, and the
    snapshot its listing's pages read (None: the listing needs none)."""

    key: list[Any]
    snapshot: str | None = None


def cursor_key() -> bytes:
    """The key cursors are signed with: derived from the server's secret (RUMMY_LABEL_SECRET,
    else the secret kept beside the database, made the first time it is needed); a
    random key of this process when that file cannot be written (a lake on a read-only
    disk: its cursors then hold in this process only)."""
    app = current_app
    key = app.extensions.get(_KEY_EXTENSION)
    if key is None:
        with _KEY_LOCK:
            key = app.extensions.get(_KEY_EXTENSION)
            if key is None:
                config = settings()
                if config.lake_path is not None and config.label_secret is None:
                    config = replace(config, db_path=config.lake_path.rstrip("/"))
                try:
                    secret = label_secret(config)
                except OSError as error:
                    log.warning("page cursors signed with a key of this process only: %s",
                                error)
                    secret = secrets.token_bytes(32)
                key = hmac.new(secret, _LABEL, hashlib.sha256).digest()
                app.extensions[_KEY_EXTENSION] = key
    return key


def _sign(payload: bytes) -> str:
    return hmac.new(cursor_key(), payload, hashlib.sha256).hexdigest()[:32]


def fingerprint(listing: str, scope: Mapping[str, Any]) -> str:
    """A short digest of the listing and the parameters a cursor belongs to
    (order-independent; a parameter not given counts as absent)."""
    parts = sorted(f"{key}={value}" for key, value in scope.items() if value is not None)
    return hashlib.sha256("&".join([listing, *parts]).encode()).hexdigest()[:16]


def encode_key_cursor(listing: str, key: Sequence[Any], scope: Mapping[str, Any],
                      snapshot: str | None = None) -> str:
    """A cursor naming the last row of a page of ``listing`` by its sort key (JSON
    values), bound to ``scope`` (the parameters of the listing) and to ``snapshot``."""
    payload = json.dumps([VERSION, listing, list(key), snapshot, fingerprint(listing, scope)],
                         separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    token = payload + b"|" + _sign(payload).encode()
    return base64.urlsafe_b64encode(token).decode().rstrip("=")


def _fits(value: Any, part: Part) -> bool:
    if part is Part.COUNT:
        return type(value) is int and 0 <= value <= _BIGGEST_INT
    if part is Part.NUMBER:
        return (type(value) in (int, float) and math.isfinite(value)
                and abs(value) <= _BIGGEST_NUMBER)
    return type(value) is str and len(value) <= _LONGEST_TEXT


def decode_key_cursor(cursor: str, listing: str, scope: Mapping[str, Any],
                      shape: Sequence[Part]) -> Position:
    """Where a cursor of ``listing`` continues; a 400 problem ``invalid-cursor`` when it
    is not one this server signed for this listing and ``scope``, or its key is not of
    ``shape``."""
    bad = Problem(400, INVALID_CURSOR, "the cursor is not valid: use the 'next' link of "
                  "the previous page, with the same parameters")
    if not cursor or len(cursor) > LONGEST:
        raise bad
    try:
        token = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload, _, check = token.rpartition(b"|")
        if not payload or not hmac.compare_digest(check, _sign(payload).encode()):
            raise bad
        decoded = json.loads(payload)
    except (binascii.Error, ValueError):
        raise bad from None
    if not (isinstance(decoded, list) and len(decoded) == 5):
        raise bad
    version, named, key, snapshot, scope_digest = decoded
    if (version != VERSION or named != listing or scope_digest != fingerprint(listing, scope)
            or not isinstance(key, list) or len(key) != len(shape)
            or not all(_fits(value, part) for value, part in zip(key, shape, strict=True))
            or not (snapshot is None or (type(snapshot) is str and snapshot.isalnum()
                                         and len(snapshot) <= 64))):
        raise bad
    return Position(key, snapshot)


def link_header(url: str, rel: str = "next") -> str:
    return f'<{url}>; rel="{rel}"'

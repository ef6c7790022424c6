"""Keyset pagination: opaque cursors and the RFC 8288 ``Link: <...>; rel="next"`` header.

A cursor names the last game of a page by its ``seq`` (insertion order), so pages stay
exact while games are added: newer games land before the first page, never inside the
walk.  It is bound to the filters it was made with and carries a check digest, so a
cursor edited by hand or reused with other filters is refused (400) instead of quietly
answering another list.  It grants nothing: the digest is an integrity check, not a
secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .problems import INVALID_CURSOR, Problem

_VERSION = "c1"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def fingerprint(filters: Mapping[str, Any]) -> str:
    """A short digest of the filters a cursor belongs to (order-independent)."""
    parts = sorted(f"{key}={value}" for key, value in filters.items() if value is not None)
    return _digest("&".join(parts))


def _wrapped(token: str) -> str:
    """A token as URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


def _unwrapped(cursor: str, encoding: str) -> str:
    """The token of ``_wrapped``; binascii.Error or ValueError when it is not one."""
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode(encoding)


def encode_cursor(seq: int, filters: Mapping[str, Any]) -> str:
    payload = f"{_VERSION}:{seq}:{fingerprint(filters)}"
    return _wrapped(f"{payload}:{_digest(payload)}")


def decode_cursor(cursor: str, filters: Mapping[str, Any]) -> int:
    """The ``seq`` a cursor continues after; a 400 problem when it is not one of ours
    or was made for other filters."""
    bad = Problem(400, INVALID_CURSOR, "the cursor is not valid: use the 'next' link of "
                  "the previous page, with the same filters")
    if not cursor or len(cursor) > 200:
        raise bad
    try:
        token = _unwrapped(cursor, "ascii")
    except (binascii.Error, ValueError):
        raise bad from None
    version, _, rest = token.partition(":")
    payload, _, check = token.rpartition(":")
    seq_text, _, scope = rest.rpartition(":")[0].partition(":")
    if (version != _VERSION or not seq_text.isdigit() or len(seq_text) > 18
            or not payload or check != _digest(payload)):
        raise bad
    if scope != fingerprint(filters):
        raise bad
    return int(seq_text)


def link_header(url: str, rel: str = "next") -> str:
    return f'<{url}>; rel="{rel}"'


def encode_key_cursor(key: list[Any], filters: Mapping[str, Any]) -> str:
    """A cursor naming the last row of a page by its sort key (a list of JSON values),
    bound to the filters and sort it was made with."""
    payload = json.dumps([_VERSION, key, fingerprint(filters)], separators=(",", ":"))
    return _wrapped(f"{payload}|{_digest(payload)}")


def decode_key_cursor(cursor: str, filters: Mapping[str, Any], arity: int) -> list[Any]:
    """The sort key a cursor continues after; a 400 problem when it is not one of ours
    or was made for other filters."""
    bad = Problem(400, INVALID_CURSOR, "the cursor is not valid: use the 'next' link of "
                  "the previous page, with the same parameters")
    if not cursor or len(cursor) > 400:
        raise bad
    try:
        token = _unwrapped(cursor, "utf-8")
        payload, _, check = token.rpartition("|")
        if not payload or check != _digest(payload):
            raise bad
        version, key, scope = json.loads(payload)
    except (binascii.Error, ValueError, TypeError):
        raise bad from None
    if version != _VERSION or scope != fingerprint(filters) or not isinstance(key, list) \
            or len(key) != arity:
        raise bad
    return key

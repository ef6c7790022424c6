"""Bearer API keys: writes need one of RUMMY_API_KEYS, reads one of RUMMY_READ_KEYS.

Either list unset leaves that side open.  A write key also reads.  The uploader of a
game is recorded as a short hash of the key that sent it, never the key itself, so the
database does not hold credentials and a key can be rotated by its hash.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import g, request
from flask_smorest import Blueprint

from .config import settings
from .problems import FORBIDDEN, UNAUTHORIZED, Problem

SCHEME_NAME = "bearerAuth"
SECURITY_SCHEME = {"type": "http", "scheme": "bearer",
                   "description": "An API key from RUMMY_API_KEYS (writes) or "
                                  "RUMMY_READ_KEYS (reads); needed only when those are set."}

F = TypeVar("F", bound=Callable[..., Any])


def uploader_label(key: str) -> str:
    """What the store records as the uploader: ``key-`` and 12 hex digits of SHA-256."""
    return "key-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def _authorize(keys: tuple[str, ...]) -> str:
    """The label of the request's key, if it is one of ``keys``; else a 401/403 problem."""
    challenge = {"WWW-Authenticate": 'Bearer realm="rummy-audit"'}
    header = request.headers.get("Authorization", "")
    if not header:
        raise Problem(401, UNAUTHORIZED, "this endpoint needs an API key: "
                      "send 'Authorization: Bearer <key>'", headers=challenge)
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, UNAUTHORIZED, "the Authorization header must be "
                      "'Bearer <key>'", headers=challenge)
    sent = token.encode()
    found = None
    for key in keys:  # every key compared, in constant time
        if hmac.compare_digest(sent, key.encode()) and found is None:
            found = key
    if found is None:
        raise Problem(403, FORBIDDEN, "this API key is not allowed here")
    return uploader_label(found)


def _guard(func: F, which: str) -> F:
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        config = settings()
        if which == "write":
            g.uploader = _authorize(config.api_keys) if config.api_keys else None
        elif config.read_keys:
            _authorize(config.read_keys + config.api_keys)
        return func(*args, **kwargs)

    return Blueprint.doc(security=[{SCHEME_NAME: []}])(wrapper)


def write_access(func: F) -> F:
    """The view stores data: it needs a write key when RUMMY_API_KEYS is set, and finds
    the uploader label (or None) in ``g.uploader``.  Place it right under the route, so
    it runs before the arguments are parsed."""
    return _guard(func, "write")


def read_access(func: F) -> F:
    """The view reads stored games: it needs a read or write key when RUMMY_READ_KEYS
    is set."""
    return _guard(func, "read")

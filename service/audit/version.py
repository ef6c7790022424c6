"""The engine version an audit's results are filed under.

A verdict depends on the engine's code and on the row builder that turns its report
into the store's rows, so the version is the package's release followed by a digest of
those sources: any change to them is a new version, whose audit redoes every shard
(the point of re-auditing when the engine improves), while a re-run of the same code
skips the shards it finished.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

_SERVICE = Path(__file__).resolve().parent.parent
# The packages and modules whose code decides a verdict or a row.
_SOURCES = ("engine", "store/records.py", "store/rows.py")
DIGEST_LENGTH = 10


@cache
def engine_version() -> str:
    """``<release>-<digest>``, e.g. ``0.1.0-3f2a9c81d0``: the same on every machine that
    runs the same code."""
    digest = hashlib.blake2b(digest_size=16)
    for name in _SOURCES:
        root = _SERVICE / name
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root] if root.exists() else []
        for path in files:
            digest.update(path.relative_to(_SERVICE).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    try:
        release = metadata.version("rummy-audit")
    except metadata.PackageNotFoundError:  # run from a source tree not installed
        release = "0"
    return f"{release}-{digest.hexdigest()[:DIGEST_LENGTH]}"

"""The engine version an audit's results are filed under.

A verdict depends on the engine's code and on the row builder that turns its report
into the store's rows, so the version is the package's release followed by a digest of
those sources: any change to them is a new version, whose audit redoes every shard
(the point of re-auditing when the engine improves), while a re-run of the same code
skips the shards it finished.

An audit with ``--analyse`` also records, per shard, the analysis version: the
definitions' number (``service.store.analysis.VERSION``) and a digest of the analysis
code and its row builder.  It is not part of the engine version, so an analysis change
leaves the verdicts where they are; a shard finished without it, or with another one,
is redone by an audit that analyses.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

_SERVICE = Path(__file__).resolve().parent.parent
# The packages and modules whose code decides a verdict or a row.
_SOURCES = ("engine", "store/records.py", "store/rows.py")
# ... and those that decide an analysis row (on top of the engine's).
_ANALYSIS_SOURCES = ("analysis", "store/analysis.py")
DIGEST_LENGTH = 10


def _digest(sources: tuple[str, ...]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for name in sources:
        root = _SERVICE / name
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root] if root.exists() else []
        for path in files:
            digest.update(path.relative_to(_SERVICE).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:DIGEST_LENGTH]


@cache
def engine_version() -> str:
    """``<release>-<digest>``, e.g. ``0.1.0-3f2a9c81d0``: the same on every machine that
    runs the same code."""
    try:
        release = metadata.version("rummy-audit")
    except metadata.PackageNotFoundError:  # run from a source tree not installed
        release = "0"
    return f"{release}-{_digest(_SOURCES)}"


@cache
def analysis_version() -> str:
    """``<definitions>-<digest>``, e.g. ``1-8c01d2e4f7``: what an analysed shard's
    manifest line records (``service.store.analysis.VERSION`` is the number of the
    definitions a stored analysis is checked against)."""
    from ..store.analysis import VERSION

    return f"{VERSION}-{_digest(_ANALYSIS_SOURCES)}"

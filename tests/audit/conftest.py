"""Fixtures of the audit tests: one real Dask cluster for them all (two worker processes),
and small generated corpora written as the audit's inputs."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from service.engine.rules import PRESETS
from service.generator import generate_games

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)  # the upload time of every audited game
CORRUPT = [b'{"format": "rummy-log/1", "variant": "gin", "players": ["ana"',
           b'not json at all',
           b'{"format": "rummy-log/1", "variant": "gin", "players": ["ana"], "deals": []}']


@pytest.fixture(scope="package")
def cluster_client() -> Iterator[object]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def write_corpus(folder: Path, games: int = 5) -> dict[str, list[bytes]]:
    """A small corpus of every preset: one NDJSON file per preset (gin gzipped, the
    greek one with corrupt lines between games), and a sub-folder of single JSON files.
    Returns each file's lines as written."""
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[bytes]] = {}
    for k, variant in enumerate(PRESETS):
        lines = [orjson.dumps(log) for log in generate_games(variant, games, seed=40 + k)]
        if variant == "greek":
            lines = [lines[0], CORRUPT[0], lines[1], b"", CORRUPT[1], *lines[2:], CORRUPT[2]]
        name = f"{variant}.ndjson"
        data = b"\n".join(lines) + b"\n"
        if variant == "gin":
            name += ".gz"
            data = gzip.compress(data)
        (folder / name).write_bytes(data)
        written[str(folder / name)] = lines
    singles = folder / "singles"
    singles.mkdir(exist_ok=True)
    for i, log in enumerate(generate_games("rummy", 3, seed=99, players=4)):
        path = singles / f"game-{i}.json"
        path.write_bytes(orjson.dumps(log, option=orjson.OPT_INDENT_2))
        written[str(path)] = [path.read_bytes()]
    return written

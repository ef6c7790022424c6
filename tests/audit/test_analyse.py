"""``--analyse`` on the real Dask cluster: the analysis tables of an audit are, row for
row, what the store's catch-up writes for the same games, and the manifest tells an
analysed shard from one that is not."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from service.audit import audit, engine_version
from service.audit.layout import ANALYSIS_TABLES, SCHEMAS, read_manifest, version_dir
from service.audit.version import analysis_version
from service.engine import load_json, parse_game, verify
from service.store import Store
from service.store.analysis import CatchUp, backlog
from service.store.records import build_record

from .conftest import AT, CORRUPT, write_corpus

SHARD = 3
# analysed_at is the time the rows were made, here or in the audit: the one column
# that cannot agree.
LEFT_OUT = "analysed_at"


def _table(out: Path, name: str) -> pa.Table:
    files = sorted((version_dir(out, engine_version()) / f"table={name}").glob("*.parquet"))
    assert files, name
    return pa.concat_tables([pq.read_table(f) for f in files])


def _rows(table: pa.Table) -> list[dict]:
    """The rows without ``analysed_at``, in an order that does not depend on where they
    were made."""
    rows = [{k: v for k, v in row.items() if k != LEFT_OUT} for row in table.to_pylist()]
    return sorted(rows, key=lambda row: tuple(str(v) for v in row.values()))


def _snapshot(out: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def analysed(cluster_client, tmp_path_factory):
    """A corpus of every preset audited without ``--analyse``, then with it."""
    folder = tmp_path_factory.mktemp("logs")
    written = write_corpus(folder, games=2)
    out = tmp_path_factory.mktemp("audit") / "out"
    plain = audit([str(folder)], str(out), client=cluster_client, shard_size=SHARD,
                  uploaded_at=AT)
    assert not plain.failed and plain.analysis is None
    assert not (version_dir(out, engine_version()) / "table=analysis_games").exists()
    again = audit([str(folder)], str(out), client=cluster_client, shard_size=SHARD,
                  uploaded_at=AT, analyse=True)
    return folder, written, out, plain, again


def test_an_audit_that_analyses_redoes_the_shards_finished_without(analysed, cluster_client):
    folder, _, out, plain, again = analysed
    assert not again.failed and again.analysis == analysis_version()
    assert again.skipped == 0 and len(again.done) == plain.shards
    assert again.games == plain.games and again.analysis_failures() == 0
    manifest = read_manifest(out, engine_version())
    assert {entry.analysis for entry in manifest.values()} == {analysis_version()}
    before = _snapshot(out)
    for analyse in (True, False):  # analysed: skipped by both
        rerun = audit([str(folder)], str(out), client=cluster_client, shard_size=SHARD,
                      uploaded_at=AT, analyse=analyse)
        assert rerun.skipped == rerun.shards == plain.shards and not rerun.done
    assert _snapshot(out) == before


def test_the_analysis_tables_are_what_the_catch_up_writes(analysed, tmp_path):
    _, written, out, _, _ = analysed
    store = Store(tmp_path / "store.duckdb")
    try:
        records = []
        for lines in written.values():
            for line in lines:
                if line.strip() and line not in CORRUPT:
                    document = load_json(line)
                    game = parse_game(document)
                    records.append(build_record(document, line, game, verify(game), None, AT))
        store.add_games(records)
        CatchUp(store, processes=0).step_all()
        assert backlog(store) == 0
        for name in ANALYSIS_TABLES:
            got = _table(out, name)
            assert got.schema == SCHEMAS[name], name
            with store.cursor() as cur:
                expected = cur.sql(f"SELECT * FROM {name}").to_arrow_table()
            assert got.column_names == expected.column_names, name
            assert _rows(got) == _rows(expected), name
        assert len({r.id for r in records}) == _table(out, "analysis_games").num_rows
        assert _table(out, "analysis_facts").num_rows > 0
    finally:
        store.close()

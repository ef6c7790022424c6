"""The audit on a real Dask cluster (two worker processes): its Parquet results are
row for row those of verifying the same logs in one process, a re-run writes nothing,
a worker killed mid-run changes nothing, and bad lines are rows of ``errors``."""

from __future__ import annotations

import os
import shutil
import signal
import threading
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from service.audit import audit, engine_version
from service.audit.layout import ERRORS, TABLES, read_manifest, version_dir
from service.audit.sources import cut
from service.cli import verify_one
from service.engine import load_json, parse_game, verify
from service.store.db import game_rows
from service.store.records import build_record, game_id
from service.store.rows import ROWS

from .conftest import AT, CORRUPT, write_corpus

SHARD = 3
KEYS = {"games": ["id"], "game_players": ["game_id", "seat"], "deals": ["game_id", "deal_no"],
        "deal_players": ["game_id", "deal_no", "player"],
        "moves": ["game_id", "deal_no", "move_no"],
        "violations": ["game_id", "deal_no", "move_no", "code"], ERRORS: ["source"]}


def read_table(out: Path, table: str) -> pa.Table:
    """Every shard's rows of one table, in a stable order."""
    files = sorted((version_dir(out, engine_version()) / f"table={table}").glob("*.parquet"))
    assert files, table
    rows = pa.concat_tables([pq.read_table(f) for f in files])
    return rows.sort_by([(k, "ascending") for k in KEYS[table]])


def in_one_process(written: dict[str, list[bytes]]) -> tuple[dict[str, pa.Table], dict]:
    """The rows of the same logs, verified here one by one, and the report ``verify``
    prints for each (by game id, without its source)."""
    records, reports = [], {}
    for path, lines in written.items():
        for line in lines:
            if line in CORRUPT or not line.strip():
                continue
            document = load_json(line)
            game = parse_game(document)
            records.append(build_record(document, line, game, verify(game), None, AT))
            report = verify_one(path, line)[0]
            del report["source"]
            reports[game_id(document)] = report
    tables = game_rows(records).tables
    return ({name: t.sort_by([(k, "ascending") for k in KEYS[name]])
             for name, t in tables.items()}, reports)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict[str, list[bytes]]]:
    folder = tmp_path_factory.mktemp("logs")
    return folder, write_corpus(folder)


@pytest.fixture(scope="module")
def clean_run(corpus, cluster_client, tmp_path_factory):
    folder, _ = corpus
    out = tmp_path_factory.mktemp("audit") / "out"
    result = audit([str(folder)], str(out), client=cluster_client, shard_size=SHARD,
                   uploaded_at=AT)
    return out, result


def test_every_preset_equals_verify_in_one_process(corpus, clean_run):
    _, written = corpus
    out, result = clean_run
    assert not result.failed and result.skipped == 0
    expected, reports = in_one_process(written)
    assert result.games == len(reports) == expected["games"].num_rows
    for name in ROWS:
        got = read_table(out, name)
        assert got.schema == expected[name].schema, name
        assert got.to_pylist() == expected[name].to_pylist(), name
    # each stored report is the one ``verify`` prints for the game
    stored = {row["id"]: orjson.loads(row["report"]) for row in read_table(out, "games").to_pylist()}
    assert stored == reports
    manifest = read_manifest(out, engine_version())
    assert len(manifest) == result.shards
    assert sum(e.rows["games"] for e in manifest.values()) == result.games
    assert {s for e in manifest.values() for s in e.statuses} <= {"valid", "illegal",
                                                                  "mismatch", "incomplete"}


def test_corrupt_lines_are_rows_of_errors_with_their_source(corpus, clean_run):
    folder, written = corpus
    out, _ = clean_run
    greek = str(folder / "greek.ndjson")
    lines = written[greek]
    expected = {f"{greek}:{lines.index(bad) + 1}" for bad in CORRUPT}
    errors = read_table(out, ERRORS).to_pylist()
    assert {e["source"] for e in errors} == expected
    for e in errors:
        assert e["file"] == greek and e["source"] == f"{greek}:{e['line']}"
        assert e["kind"] == "malformed" and orjson.loads(e["errors"])
    assert read_table(out, "games").num_rows == sum(
        1 for ls in written.values() for line in ls if line.strip() and line not in CORRUPT)


def _snapshot(out: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in out.rglob("*") if p.is_file()}


def test_a_rerun_writes_nothing_new(corpus, clean_run, cluster_client):
    folder, _ = corpus
    out, first = clean_run
    before = _snapshot(out)
    again = audit([str(folder)], str(out), client=cluster_client, shard_size=SHARD,
                  uploaded_at=AT)
    assert again.skipped == again.shards == first.shards and not again.done
    assert _snapshot(out) == before


def test_another_shard_size_is_refused_in_the_same_folder(corpus, clean_run):
    folder, _ = corpus
    out, _ = clean_run
    with pytest.raises(ValueError, match=f"--shard-size {SHARD}"):
        audit([str(folder)], str(out), shard_size=SHARD + 1)


def test_the_results_folder_inside_an_input_is_no_input(corpus, clean_run, tmp_path):
    """Its games Parquet has a log column: walked into, it would be audited again."""
    folder, _ = corpus
    out, _ = clean_run
    inside = tmp_path / "logs"
    (inside / "sub").mkdir(parents=True)
    (inside / "sub" / "greek.ndjson").write_bytes((folder / "greek.ndjson").read_bytes())
    shutil.copytree(out, inside / "out")
    assert len(cut([str(inside)], SHARD, skip=inside / "out")) == \
        len(cut([str(inside / "sub")], SHARD)) < len(cut([str(inside)], SHARD))


def test_a_changed_input_redoes_only_its_shards(corpus, cluster_client, tmp_path):
    folder, written = corpus
    copy = tmp_path / "logs"
    copy.mkdir()
    rummy = folder / "rummy.ndjson"
    (copy / "rummy.ndjson").write_bytes(rummy.read_bytes())
    (copy / "gin.ndjson.gz").write_bytes((folder / "gin.ndjson.gz").read_bytes())
    out = tmp_path / "out"
    first = audit([str(copy)], str(out), client=cluster_client, shard_size=SHARD, uploaded_at=AT)
    lines = written[str(rummy)]
    (copy / "rummy.ndjson").write_bytes(b"\n".join([*lines[:-1], CORRUPT[1]]) + b"\n")
    second = audit([str(copy)], str(out), client=cluster_client, shard_size=SHARD,
                   uploaded_at=AT)
    assert second.shards == first.shards
    assert [e.shard for e in second.done] == [max(e.shard for e in first.done
                                                  if e.shard.startswith("rummy."))]
    assert read_table(out, "games").num_rows == first.games - 1
    assert len(read_table(out, ERRORS)) == 1


def test_a_killed_worker_changes_nothing(corpus, clean_run, cluster_client, tmp_path):
    """SIGKILL of a worker process once the first shard is recorded: the scheduler runs
    its task again, the nanny starts a new worker, the results equal a clean run's."""
    folder, _ = corpus
    clean, _ = clean_run
    out = tmp_path / "out"
    pids = list(cluster_client.run(os.getpid).values())
    killed = threading.Event()
    seen: list[int] = []

    def kill_once(entry) -> None:
        seen.append(1)
        if not killed.is_set():
            killed.set()
            os.kill(pids[0], signal.SIGKILL)

    result = audit([str(folder)], str(out), client=cluster_client, shard_size=1,
                   uploaded_at=AT, on_finished=kill_once)
    assert killed.is_set() and not result.failed
    assert result.shards > 10 and len(result.done) == result.shards
    cluster_client.wait_for_workers(2, timeout=60)
    assert os.getpid() not in pids and pids[0] not in cluster_client.run(os.getpid).values()
    for name in TABLES:
        assert read_table(out, name).to_pylist() == read_table(clean, name).to_pylist(), name


def test_parquet_with_a_log_column_is_an_input(clean_run, cluster_client, tmp_path):
    """An audit's own games table (its ``log`` column) audited again, from a file of
    several row groups, a log as text among them: the same games, by ``file:row``."""
    out, _ = clean_run
    games = read_table(out, "games")
    logs = [bytes(v) for v in games.column("log").to_pylist()]
    path = tmp_path / "logs.parquet"
    texts = [log.decode() for log in logs]
    texts[1] = "not json"
    pq.write_table(pa.table({"id": list(range(len(texts))), "log": texts}), path,
                   row_group_size=4)
    again = audit([str(path)], str(tmp_path / "again"), client=cluster_client,
                  shard_size=SHARD, uploaded_at=AT)
    assert not again.failed and again.games == len(logs) - 1
    redone = read_table(tmp_path / "again", "games")
    kept = games.filter(pa.array([i != 1 for i in range(len(logs))]))
    assert redone.column("id").to_pylist() == kept.column("id").to_pylist()
    assert redone.column("report").to_pylist() == kept.column("report").to_pylist()
    (error,) = read_table(tmp_path / "again", ERRORS).to_pylist()
    assert error["source"] == f"{path}:2" and error["line"] == 2


def test_the_commands_own_cluster_runs_its_workers_without_the_profiler():
    import dask
    from distributed import Client

    from service.audit.run import QUIET_WORKERS, local_cluster

    with local_cluster(1, dashboard=False) as cluster, Client(cluster) as client:
        seen = client.run(lambda: {k: dask.config.get(k) for k in QUIET_WORKERS})
    assert list(seen.values()) == [QUIET_WORKERS]
    assert dask.config.get("distributed.worker.profile.enabled") is True  # here, unchanged

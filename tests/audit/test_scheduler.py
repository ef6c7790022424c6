"""The command against a cluster of its own processes: a ``dask scheduler`` and a
``dask worker`` started here, the audit run as the console script."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from service.store.lake import LakeStore

from .conftest import CORRUPT, write_corpus

BIN = Path(sys.executable).parent


def _start(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "dask"), *args], stdout=subprocess.DEVNULL,
                            stderr=log.open("wb"), start_new_session=True)


@pytest.fixture
def scheduler(tmp_path):
    """The address of a scheduler with one worker, both stopped after the test."""
    info = tmp_path / "scheduler.json"
    processes = [_start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                        "--scheduler-file", str(info), log=tmp_path / "scheduler.log")]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.1)
        processes.append(_start("worker", "--scheduler-file", str(info), "--nworkers", "1",
                                "--nthreads", "1", "--no-dashboard",
                                log=tmp_path / "worker.log"))
        yield json.loads(info.read_text())["address"]
    finally:  # each started in a session of its own: its group is it and its children
        for process in reversed(processes):
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "rummy-audit"), *args], capture_output=True, timeout=300,
                          env={**os.environ, "RUMMY_DB": ""})


def test_the_command_against_a_scheduler_process(scheduler, tmp_path):
    """With --analyse, a file named again (cut once) and a copy of it elsewhere (its
    games counted once, the copy reported)."""
    logs = tmp_path / "logs"
    written = write_corpus(logs, games=2)
    games = sum(1 for ls in written.values() for line in ls if line.strip() and line not in CORRUPT)
    (tmp_path / "copy").mkdir()
    again = (logs / "rummy.ndjson").read_bytes()
    (tmp_path / "copy" / "rummy.ndjson").write_bytes(again)
    copies = sum(1 for line in again.split(b"\n") if line.strip())
    out = tmp_path / "out"
    done = _run("audit", str(logs), str(logs / "rummy.ndjson"), str(tmp_path / "copy"),
                "--out", str(out), "--scheduler", scheduler, "--shard-size", "4", "--analyse",
                "--quiet")
    assert done.returncode == 0, done.stderr.decode()
    summary = done.stdout.decode()
    assert f"{games + copies} games audited and analysed" in summary, summary
    assert "3 lines not a game" in summary
    assert f"{copies} logs given more than once" in summary
    lake = LakeStore(out)
    try:
        assert sum(lake.games_by_status().values()) == games
        assert len(lake.duplicates()) == copies and lake.holds_analyses
        with lake.cursor() as cur:
            assert cur.execute("SELECT count(DISTINCT source) FROM errors").fetchone()[0] == 3
            assert cur.execute("SELECT count(*) FROM analysis_games").fetchone()[0] == games
    finally:
        lake.close()

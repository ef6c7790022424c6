"""The catch-up's worker process (``python -m service.store.worker``): when the store
process that feeds it is gone it ends with one line on stderr, not a traceback."""

from __future__ import annotations

import pickle
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson

from service.generator import generate_games

ROOT = Path(__file__).resolve().parent.parent.parent


def _item() -> tuple:
    log = next(iter(generate_games("gin", 1, seed=5, players=2)))
    return ("g1", orjson.dumps(log), None, datetime(2024, 1, 1, tzinfo=UTC))


def _worker() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "service.store.worker"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_a_worker_whose_answer_finds_no_reader_logs_one_line():
    """The store process killed while the worker analyses: the answer's pipe is broken."""
    worker = _worker()
    worker.stdout.close()  # the store process's end, gone before the answer is written
    pickle.dump([_item()], worker.stdin)
    worker.stdin.flush()
    try:
        err = worker.stderr.read().decode()
    finally:
        worker.stdin.close()
        worker.wait(60)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert len(err.splitlines()) == 1, err
    assert "the store process is gone" in err
    assert worker.returncode == 0


def test_a_worker_whose_batch_is_cut_short_logs_one_line():
    """The store process killed while it sends a batch: the worker reads half of it."""
    worker = _worker()
    whole = pickle.dumps([_item()])
    worker.stdin.write(whole[: len(whole) // 2])
    worker.stdin.close()
    out, err = worker.stdout.read(), worker.stderr.read()
    assert worker.wait(60) == 0 and out == b""
    assert "Traceback" not in err.decode() and len(err.decode().splitlines()) == 1, err
    assert "the store process is gone" in err.decode()


def test_a_worker_closed_between_batches_ends_quietly():
    worker = _worker()
    pickle.dump([_item()], worker.stdin)
    worker.stdin.flush()
    (record,) = pickle.load(worker.stdout)
    assert record.id == "g1" and record.analysis_facts is not None
    worker.stdin.close()
    assert worker.stdout.read() == b"" and worker.stderr.read() == b""
    assert worker.wait(60) == 0

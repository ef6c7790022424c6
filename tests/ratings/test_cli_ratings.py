"""rummy-audit ratings recompute: rates a DuckDB file from scratch, as the store would
have as the games came; refuses a file the server holds."""

from __future__ import annotations

import subprocess
import sys

from service.cli import main
from service.store import Store

from .helpers import corpus, history_of, ratings_of, record


def test_recompute_rates_a_file_loaded_without_ratings(tmp_path, capsys):
    logs = corpus(copies=1)
    rated = Store(tmp_path / "rated.duckdb")
    rated.submit([record(log) for log in logs])
    bare = Store(tmp_path / "bare.duckdb", ratings=False)
    bare.submit([record(log) for log in logs])
    bare.close()
    assert main(["ratings", "recompute", "--db", str(tmp_path / "bare.duckdb"),
                 "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(f"rated {len(logs)} games of ")
    done = Store(tmp_path / "bare.duckdb", read_only=True)
    try:
        assert ratings_of(done) == ratings_of(rated)
        assert history_of(done, with_seq=False) == history_of(rated, with_seq=False)
    finally:
        done.close()
        rated.close()


def test_a_file_held_by_the_server_is_refused(tmp_path):
    path = tmp_path / "held.duckdb"
    store = Store(path)
    try:
        result = subprocess.run([sys.executable, "-m", "service", "ratings", "recompute",
                                 "--db", str(path)], capture_output=True, text=True,
                                timeout=120)
    finally:
        store.close()
    assert result.returncode == 2
    assert "in use by another process" in result.stderr and "Traceback" not in result.stderr

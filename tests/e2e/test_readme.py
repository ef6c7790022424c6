"""The README's quick-start curl block, run with bash against a real server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from .server import ROOT, Server


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_quick_start_curl_examples(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```sh\n(.*?)```", readme, flags=re.S)
                 if "curl" in b)
    server = Server(tmp_path / "readme.duckdb").start()
    try:
        script = block.replace("http://localhost:8000", f"http://127.0.0.1:{server.port}")
        work, temp = tmp_path / "work", tmp_path / "temp"
        work.mkdir()
        temp.mkdir()
        (work / "sample_logs").symlink_to(ROOT / "sample_logs")
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work,
                                capture_output=True, timeout=300,
                                env={**os.environ, "TMPDIR": str(temp)})
    finally:
        server.stop()
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    assert '"status":"valid"' in out and '"created":true' in out
    assert '"/problems/validation-error"' in out
    assert '"line":5' in out  # the batch answered its five lines
    assert "rummy_http_requests_total" in out
    assert "docs: 200" in out
    assert '"discrepancies"' in out and "section" in out  # the tournament, its CSV
    assert '"win_probability"' in out and '"ordinal"' in out  # the ratings
    assert '"facts"' in out and '"pairs"' in out  # a game's analysis, the integrity screen
    # The downloads land in a temporary folder, never in the working tree.
    assert [p.name for p in work.iterdir()] == ["sample_logs"]
    [parquet] = temp.glob("*/results.parquet")
    assert parquet.stat().st_size > 0
    assert {p.name for p in parquet.parent.iterdir()} == {"spring-cup.csv", "gin-logs.ndjson",
                                                          "results.parquet"}


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_directors_workflow_curl_examples(tmp_path):
    """The tournament desk block: two matters open, one game replaced, one ruled, a
    re-entered table kept, a game corrected by a batch line, final."""
    readme = (ROOT / "README.md").read_text()
    [block] = [b for b in re.findall(r"```sh\n(.*?)```", readme, flags=re.S) if "/ruling" in b]
    server = Server(tmp_path / "desk.duckdb").start()
    try:
        script = block.replace("http://localhost:8000", f"http://127.0.0.1:{server.port}")
        work = tmp_path / "work"
        work.mkdir()
        (work / "sample_logs").symlink_to(ROOT / "sample_logs")
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work,
                                capture_output=True, timeout=300)
    finally:
        server.stop()
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    lines = out.splitlines()
    assert re.fullmatch(r"open: score_mismatch [0-9a-f]+ illegal_game [0-9a-f]+", lines[0])
    assert '"replaced":{' in out and '"status":"valid"' in out
    assert '"ruling":"forfeit"' in out and '"against":"ben"' in out
    assert "final" in lines and '"replaced_by":"' in out
    # The re-entered table kept in one request; a batch line correcting a game.
    assert '"kept":"' in out and '"reason":"table B entered twice"' in out
    [corrected] = [line for line in lines if line.startswith('{"line":1,')]
    assert '"replaced":{' in corrected and '"created":true' in corrected
    answers = [json.loads(line) for line in lines if line.startswith("{")]
    [listed] = [a for a in answers if "withdrawn" in a and "kept" not in a]
    assert [(w["replaced_by"] is not None, w["reason"]) for w in listed["withdrawn"]] == [
        (True, "deal 1 claim mistyped"), (False, "table B entered twice"),
        (True, "the sheet number was left out")]
    assert '"name":"Spring Cup"' in out and '"public":true' in out  # published
    assert lines[-1] == "replaced game: 410"

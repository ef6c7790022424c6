"""The README's examples run as written: its Python block and its command lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_python_example_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    (code,) = blocks("python")
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "{'ana': 140, 'ben': 44} ana"
    assert out[1] == "NOT_YOUR_TURN 1 5"
    assert out[-1] == "['deals', 'moevs', 'players']"


def test_command_line_examples_run(tmp_path):
    cli = next(b for b in blocks("sh") if "python -m service verify" in b)
    script = cli.replace("> games.ndjson", f"> {tmp_path}/games.ndjson").replace(
        "> round1.ndjson", f"> {tmp_path}/round1.ndjson")
    for line in script.splitlines():
        command = line.split("#")[0].strip()
        if not command:
            continue
        command = command.replace("python ", f"{sys.executable} ", 1)
        result = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True,
                                timeout=300)
        # The samples include illegal, mismatched and incomplete games: exit 1.
        assert result.returncode in (0, 1), (command, result.stderr[-2000:])
        assert result.stdout or "> " in command
    assert len((tmp_path / "games.ndjson").read_text().splitlines()) == 100


def test_audit_examples_run(tmp_path):
    """The audit block, in a folder of its own holding the samples: audit, import and a
    re-run, as written (``.venv/bin/`` being the interpreter's folder)."""
    (block,) = [b for b in blocks("sh") if "rummy-audit audit" in b]
    (tmp_path / "sample_logs").symlink_to(ROOT / "sample_logs")
    outputs = []
    for line in block.splitlines():
        command = line.split("#")[0].strip()
        command = command.replace(".venv/bin/", f"{Path(sys.executable).parent}/", 1)
        result = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True,
                                timeout=300)
        assert result.returncode == 0, (command, result.stderr[-2000:])
        outputs.append(result.stdout.decode())
    assert "23 games audited and analysed (17 valid, 3 illegal, 2 mismatch, 1 incomplete)" \
        in outputs[0]
    assert "23 games stored" in outputs[1] and "23 analyses stored" in outputs[1]
    assert "2 finished before; 0 games audited" in outputs[2]
    assert (tmp_path / "audit.duckdb").exists() and not (ROOT / "audit-out").exists()

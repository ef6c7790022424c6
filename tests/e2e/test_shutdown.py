"""Ctrl-C on the running service: the whole process group gets SIGINT, as a terminal
sends it, and the service stops as cleanly as on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from .server import Server
from .test_service import all_ids, distinct_games, upload


def test_sigint_to_the_group_shuts_down_cleanly(tmp_path):
    db = tmp_path / "ctrl-c.duckdb"
    server = Server(db, env={"TMPDIR": str(tmp_path)}).start()
    try:
        ids = [upload(server, raw)["id"] for raw in distinct_games(4, seed=41)]
        batch = b"\n".join(distinct_games(6, seed=42))  # starts the verifying pool too
        status, _, _ = server.request("POST", "/api/v1/games/batch", batch,
                                      {"Content-Type": "application/x-ndjson"})
        assert status == 200
        os.killpg(server.process.pid, signal.SIGINT)
        code = server.process.wait(timeout=60)
    finally:
        server.kill()
    log = server.log.read_text()
    assert code == 0, log[-3000:]
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log[-3000:]
    assert "[ERROR]" not in log, log[-3000:]
    assert not db.with_name(db.name + ".wal").exists()  # closed with a checkpoint
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("rummy-store-")]
    deadline = time.monotonic() + 10
    while subprocess.run(["pgrep", "-g", str(server.process.pid)],
                         capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "a process of the group outlived the server"
        time.sleep(0.1)
    restarted = Server(db, port=server.port).start()
    try:
        stored = set(all_ids(restarted))
        assert set(ids) <= stored and len(stored) == 10
    finally:
        restarted.stop()

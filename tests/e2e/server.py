"""Start and stop the real service: gunicorn with the shipped configuration, on a free
port and a DuckDB file of the test's own; plain HTTP from the standard library."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """One gunicorn process group; ``stop`` ends it, ``kill`` sends SIGKILL to it all."""

    def __init__(self, db: Path, port: int | None = None, env: dict | None = None):
        self.db = db
        self.port = port or free_port()
        self.env = {**os.environ, "PORT": str(self.port), "HOST": "127.0.0.1",
                    "RUMMY_DB": str(db), **(env or {})}
        self.process: subprocess.Popen | None = None
        self.log = db.with_suffix(".log")

    def start(self, timeout: float = 60) -> Server:
        log = open(self.log, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        self.process = subprocess.Popen([str(GUNICORN), "-c", "gunicorn.conf.py"], cwd=ROOT,
                                        env=self.env, stdout=log, stderr=log,
                                        start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-2000:]}")
            try:
                status, _, _ = self.request("GET", "/api/v1/healthz", timeout=2)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn did not answer: {self.log.read_text()[-2000:]}")

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None, timeout: float = 60) -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def post_json(self, path: str, document) -> tuple[int, dict]:
        status, _, body = self.request("POST", path, json.dumps(document).encode(),
                                       {"Content-Type": "application/json"})
        return status, json.loads(body)

    def get_json(self, path: str) -> tuple[int, dict]:
        status, _, body = self.request("GET", path)
        return status, json.loads(body)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

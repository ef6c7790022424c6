"""Start and stop the real nginx with the shipped proxy configuration (deploy/nginx.conf),
on a free loopback port, with its pid file, temporary files and log in a directory of
the test's own: no root needed, nothing written outside that directory."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from .server import ROOT, free_port

CONFIG = ROOT / "deploy" / "nginx.conf"
PLACEHOLDERS = ("${RUMMY_LISTEN}", "${RUMMY_UPSTREAM}")
# Debian installs nginx in /usr/sbin, which is not on every user's PATH.
NGINX = shutil.which("nginx", path=os.pathsep.join(
    [os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"]))

# The main configuration around deploy/nginx.conf, which the official image has of its own.
MAIN = """\
{user}worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/rummy.conf;
}}
"""


def filled(listen: str, upstream: str) -> str:
    """deploy/nginx.conf with its placeholders filled in, as the image's template step
    fills them."""
    text = CONFIG.read_text()
    for placeholder in PLACEHOLDERS:
        assert placeholder in text, placeholder
    text = text.replace("${RUMMY_LISTEN}", listen).replace("${RUMMY_UPSTREAM}", upstream)
    assert "${" not in text
    return text


class Nginx:
    """One nginx (master and worker) in front of ``upstream_port`` on 127.0.0.1."""

    def __init__(self, directory: Path, upstream_port: int, port: int | None = None):
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.upstream_port = upstream_port
        self.process: subprocess.Popen | None = None
        self.log = self.dir / "error.log"
        # Run as root (CI), nginx's workers would switch to nobody, who cannot enter
        # the test's directory: they keep the test's user.
        user = "user root;\n" if os.geteuid() == 0 else ""
        (self.dir / "rummy.conf").write_text(
            filled(f"127.0.0.1:{self.port}", f"127.0.0.1:{self.upstream_port}"))
        self.conf = self.dir / "nginx.conf"
        self.conf.write_text(MAIN.format(user=user, dir=self.dir))

    def command(self, *extra: str) -> list[str]:
        assert NGINX is not None
        return [NGINX, "-p", str(self.dir), "-c", str(self.conf), "-e", str(self.log), *extra]

    def check(self) -> subprocess.CompletedProcess:
        """``nginx -t``: the configuration is valid."""
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=30)

    def start(self, timeout: float = 15) -> Nginx:
        with open(self.dir / "stderr.log", "wb") as stderr:
            self.process = subprocess.Popen(self.command("-g", "daemon off;"),
                                            stdout=subprocess.DEVNULL, stderr=stderr,
                                            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.messages()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen: {self.messages()}")

    def messages(self) -> str:
        return "".join(path.read_text()[-2000:] for path in
                       (self.dir / "stderr.log", self.log) if path.exists())

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # fast shutdown, workers too
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)

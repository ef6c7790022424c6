"""Static checks of the Dockerfile and the gunicorn configuration (no container engine
is reachable here, so the image is checked, not built)."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_is_slim_non_root_with_volume_and_healthcheck():
    steps = instructions()
    kinds = [k for k, _ in steps]
    assert steps[0][0] == "FROM" and "slim" in steps[0][1]
    user = [v for k, v in steps if k == "USER"]
    assert user and user[-1] not in ("root", "0")
    assert kinds.index("USER") > kinds.index("RUN")  # installs run before dropping root
    assert any(k == "VOLUME" and "/data" in v for k, v in steps)
    assert any(k == "HEALTHCHECK" and "/api/v1/healthz" in v for k, v in steps)
    assert any(k == "CMD" and "gunicorn" in v for k, v in steps)
    assert any(k == "ENV" and "RUMMY_DB=/data/" in v for k, v in steps)


def test_dockerfile_copies_only_what_exists():
    for kind, args in instructions():
        if kind == "COPY":
            *sources, _ = args.split()
            for source in sources:
                assert (ROOT / source).exists(), source


def test_gunicorn_runs_one_worker_with_threads_and_no_preload(monkeypatch):
    monkeypatch.setenv("PORT", "8123")
    settings = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert settings["workers"] == 1
    assert settings["control_socket_disable"] is True  # nothing may raise the worker count
    assert settings["worker_class"] == "service.http_worker.LingeringThreadWorker"
    assert settings["threads"] >= 4
    assert settings["preload_app"] is False
    assert settings["bind"].endswith(":8123")
    assert settings["wsgi_app"] == "service.api:create_app()"


def test_access_log_only_when_asked(monkeypatch):
    monkeypatch.delenv("RUMMY_ACCESS_LOG", raising=False)
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["accesslog"] is None
    monkeypatch.setenv("RUMMY_ACCESS_LOG", "-")
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["accesslog"] == "-"

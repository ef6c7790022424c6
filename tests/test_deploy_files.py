"""Static checks of the Dockerfile, the gunicorn configuration, the proxy's and the
compose file (no container engine is reachable here, so the image is checked, not
built)."""

from __future__ import annotations

import json
import os
import re
import runpy
from http import HTTPStatus
from pathlib import Path

import pytest
import yaml

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


def test_gunicorn_runs_a_worker_per_core_with_threads_and_no_preload(monkeypatch):
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.delenv("RUMMY_WORKERS", raising=False)
    monkeypatch.delenv("RUMMY_STORE_PROCESS", raising=False)
    settings = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert settings["workers"] == (os.cpu_count() or 1)
    assert {"on_starting", "on_exit", "child_exit"} <= set(settings)  # the store's hooks
    assert settings["control_socket_disable"] is True  # nothing may raise the worker count
    assert settings["worker_class"] == "service.http_worker.LingeringThreadWorker"
    assert settings["threads"] >= 4
    assert settings["preload_app"] is False
    assert settings["bind"].endswith(":8123")
    assert settings["wsgi_app"] == "service.api:create_app()"


def test_worker_count_from_the_environment(monkeypatch):
    monkeypatch.setenv("RUMMY_WORKERS", "3")
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"] == 3
    monkeypatch.setenv("RUMMY_STORE_PROCESS", "0")  # DuckDB in the worker: one writer
    with pytest.raises(ValueError, match="RUMMY_STORE_PROCESS=1"):
        runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    monkeypatch.delenv("RUMMY_WORKERS")
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"] == 1
    monkeypatch.setenv("RUMMY_WORKERS", "many")
    with pytest.raises(ValueError, match="RUMMY_WORKERS must be an integer"):
        runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_access_log_only_when_asked(monkeypatch):
    monkeypatch.delenv("RUMMY_ACCESS_LOG", raising=False)
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["accesslog"] is None
    monkeypatch.setenv("RUMMY_ACCESS_LOG", "-")
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["accesslog"] == "-"


# deploy/nginx.conf, read as nginx reads it (tests/e2e/test_proxy.py runs it).

NGINX_CONF = ROOT / "deploy" / "nginx.conf"


def nginx_directives(text: str) -> list[tuple[tuple[str, ...], str, list[str]]]:
    """(the blocks it is in, name, arguments) of each directive; a block's own
    directive comes with the blocks it is in."""
    tokens = re.findall(r"""'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(#[^\n]*)|([{};])"""
                        r"""|((?:\$\{\w+\}|[^\s{};'"#])+)""", text)
    out: list[tuple[tuple[str, ...], str, list[str]]] = []
    blocks: list[str] = []
    words: list[str] = []
    for single, double, comment, punct, word in tokens:
        if comment:
            continue
        if punct == ";":
            out.append((tuple(blocks), words[0], words[1:]))
            words = []
        elif punct == "{":
            out.append((tuple(blocks), words[0], words[1:]))
            blocks.append(" ".join(words))
            words = []
        elif punct == "}":
            blocks.pop()
        else:
            words.append(single or double or word)
    assert not blocks and not words
    return out


def nginx_values(name: str, blocks: tuple[str, ...] | None = None) -> list[list[str]]:
    return [args for inside, found, args in nginx_directives(NGINX_CONF.read_text())
            if found == name and (blocks is None or inside == blocks)]


SERVER = ("server",)


def test_nginx_has_two_placeholders_and_only_lowercase_variables():
    """The image's template step and the test fill ${RUMMY_LISTEN} and
    ${RUMMY_UPSTREAM}; nginx's own variables must never look like them."""
    text = NGINX_CONF.read_text()
    assert set(re.findall(r"\$\{(\w+)\}", text)) == {"RUMMY_LISTEN", "RUMMY_UPSTREAM"}
    variables = set(re.findall(r"\$(\w+)", text))
    assert variables and all(v == v.lower() for v in variables), variables
    assert nginx_values("listen", SERVER) == [["${RUMMY_LISTEN}"]]
    assert nginx_values("server", ("upstream rummy_app",)) == [["${RUMMY_UPSTREAM}"]]


def test_nginx_limits_match_the_service(monkeypatch):
    from service.api.config import Settings
    from service.http_worker import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HEADER_TIMEOUT_S

    [[size]] = nginx_values("client_max_body_size", SERVER)
    assert size.endswith("m") and int(size[:-1]) << 20 == Settings().max_batch_bytes
    assert nginx_values("client_header_timeout", SERVER) == [[f"{DEFAULT_HEADER_TIMEOUT_S:g}s"]]
    assert nginx_values("client_body_timeout", SERVER) == [[f"{DEFAULT_BODY_TIMEOUT_S:g}s"]]
    # Idle connections to gunicorn are closed by nginx before gunicorn closes them.
    monkeypatch.setenv("PORT", "8123")
    keepalive = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["keepalive"]
    [[idle]] = nginx_values("keepalive_timeout", ("upstream rummy_app",))
    assert nginx_values("keepalive", ("upstream rummy_app",))
    assert idle.endswith("s") and int(idle[:-1]) < keepalive


def test_the_heads_nginx_passes_on_are_within_gunicorns_limits(monkeypatch):
    """nginx refuses a request line or a header field that does not fit one of its large
    buffers, CRLF included; gunicorn's limits are no lower (a header field with room for
    the ", address" nginx appends to X-Forwarded-For), so gunicorn never refuses the head
    of a request nginx passed on, but for its number of fields, which nginx does not
    count."""
    monkeypatch.setenv("PORT", "8123")
    settings = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    [[_, size]] = nginx_values("large_client_header_buffers", SERVER)
    assert size.endswith("k")
    longest = (int(size[:-1]) << 10) - len("\r\n")
    assert settings["limit_request_line"] >= longest  # without its CRLF
    assert settings["limit_request_field_size"] >= longest + len("\r\n") + 64  # with it
    assert settings["limit_request_fields"] >= 100


def test_nginx_buffers_requests_and_streams_only_the_batch_answer():
    assert nginx_values("proxy_request_buffering", SERVER) == [["on"]]
    assert nginx_values("proxy_buffering", SERVER) == [["on"]]
    assert nginx_values("proxy_http_version", SERVER) == [["1.1"]]
    assert nginx_values("proxy_set_header", SERVER).count(["Connection", ""]) == 1
    batch = ("server", "location = /api/v1/games/batch")
    assert nginx_values("proxy_buffering", batch) == [["off"]]
    assert nginx_values("proxy_pass", batch) == nginx_values("proxy_pass", ("server",
                                                             "location /")) == [
        ["http://rummy_app"]]


def test_nginx_answers_its_own_errors_as_the_services_problems():
    from service.api.problems import PROBLEM_TYPES, kind_of_status, type_uri

    pages = {}
    for inside, name, args in nginx_directives(NGINX_CONF.read_text()):
        if name == "return" and inside[-1].startswith("location = /_errors/"):
            pages[inside[-1].removeprefix("location = ")] = (int(args[0]), args[1])
    answered = set()
    for *codes, target in nginx_values("error_page", SERVER):
        status, body = pages[target]
        for code in codes:
            assert code.isdigit() or code == f"={status}", codes
            if code.isdigit() and code != "494":  # nginx's code for a header too large
                assert int(code) == status
        problem = json.loads(body)
        assert problem == {"type": type_uri(kind_of_status(status)),
                           "title": HTTPStatus(status).phrase, "status": status,
                           "detail": problem["detail"]}
        assert kind_of_status(status) in PROBLEM_TYPES
        answered.add(status)
    assert {400, 405, 408, 413, 414, 431, 501, 502, 504, 505} <= answered
    assert set(status for status, _ in pages.values()) == answered


def test_compose_runs_the_image_behind_the_proxy_and_publishes_only_the_proxy():
    deploy = ROOT / "deploy"
    services = yaml.safe_load((deploy / "compose.yaml").read_text())["services"]
    assert set(services) == {"app", "proxy"}
    app, proxy = services["app"], services["proxy"]
    # The app: the image of the Dockerfile, with its data volume, not published.
    assert (deploy / app["build"]["context"]).resolve() == ROOT
    assert (ROOT / app["build"]["dockerfile"]).samefile(ROOT / "Dockerfile")
    assert any(volume.endswith(":/data") for volume in app["volumes"])
    assert [name for name, service in services.items() if "ports" in service] == ["proxy"]
    # The proxy: the official nginx image on Debian, with deploy/nginx.conf as its
    # template, filled in for the app's port, and started once the app is healthy.
    image, _, tag = proxy["image"].partition(":")
    assert image == "nginx" and tag and "alpine" not in tag
    [(source, target, *_)] = [volume.split(":") for volume in proxy["volumes"]]
    assert (deploy / source).resolve() == NGINX_CONF
    assert target.startswith("/etc/nginx/templates/") and target.endswith(".conf.template")
    environment = proxy["environment"]
    placeholders = set(re.findall(r"\$\{(\w+)\}", NGINX_CONF.read_text()))
    assert placeholders <= set(environment)
    only = re.compile(environment["NGINX_ENVSUBST_FILTER"])
    assert all(only.search(name) for name in placeholders)
    assert not any(only.search(name) for name in ("PATH", "HOSTNAME", "NGINX_VERSION"))
    [app_port] = [rest.split("PORT=")[1].split()[0] for kind, rest in instructions()
                  if kind == "ENV" and " PORT=" in f" {rest}"]
    assert environment["RUMMY_UPSTREAM"] == f"app:{app_port}"
    [published] = proxy["ports"]
    assert published.rsplit(":", 1)[1] == environment["RUMMY_LISTEN"]
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"



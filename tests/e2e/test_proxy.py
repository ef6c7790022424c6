"""End to end through the shipped proxy: the real nginx with deploy/nginx.conf in front
of the real gunicorn, each test with its own on free loopback ports.  Skipped only
where no nginx is installed; CI installs it (.ci/run) and fails rather than skip."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time

import pytest

from .proxy import NGINX, Nginx
from .server import ROOT, Server, free_port
from .test_edge_errors import UNREADABLE, exchange

if NGINX is None and os.environ.get("CI"):
    pytest.fail("nginx is not installed; .ci/run installs it", pytrace=False)
pytestmark = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (Debian: apt-get install nginx)")

SLOW_CLIENTS = 200
THREADS = 4  # far fewer threads than slow clients, in one worker (with more workers a
# stalled client holds the threads of the worker that accepted it, which may be another)


@pytest.fixture
def service(tmp_path):
    server = Server(tmp_path / "rummy.duckdb",
                    env={"RUMMY_WORKERS": "1", "RUMMY_THREADS": str(THREADS)}).start()
    proxy = Nginx(tmp_path / "nginx", server.port)
    try:
        proxy.start()
        yield server, proxy
    finally:
        proxy.stop()
        server.stop()


def request(port: int, method: str, path: str, body=None, headers=None,
            timeout: float = 30) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})  # an iterator: chunked
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def slow_clients(port: int, count: int) -> list[socket.socket]:
    """Connections that send part of an upload and then nothing: half stop in the head,
    half after the head and one byte of the body."""
    clients = []
    for k in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        head = (b"POST /api/v1/games HTTP/1.1\r\nHost: test\r\n"
                b"Content-Type: application/json\r\n")
        sock.sendall(head if k % 2 else head + b"Content-Length: 5000\r\n\r\n{")
        clients.append(sock)
    return clients


def healthz_seconds(port: int, timeout: float) -> float:
    start = time.monotonic()
    status, _, body = request(port, "GET", "/api/v1/healthz", timeout=timeout)
    assert status == 200 and json.loads(body)["database"] == "ok"
    return time.monotonic() - start


def problem(status: int, headers: dict, body: bytes) -> dict:
    assert headers["Content-Type"] == "application/problem+json", body
    answer = json.loads(body)
    assert answer["status"] == status and answer["type"].startswith("/problems/")
    assert answer["title"] and answer["detail"]
    return answer


def test_the_shipped_configuration_is_valid(tmp_path):
    result = Nginx(tmp_path / "nginx", free_port()).check()
    assert result.returncode == 0, result.stderr


def test_slow_clients_wait_in_the_proxy_and_others_are_served_at_once(service):
    """200 stalled uploads on a service of 4 threads: straight to gunicorn they hold
    every thread, so a health check gets no answer within 1 s; through nginx, health
    checks of another client are each answered within 1 s."""
    server, proxy = service
    direct = slow_clients(server.port, SLOW_CLIENTS)
    try:
        time.sleep(0.2)
        with pytest.raises(TimeoutError):
            healthz_seconds(server.port, timeout=1)
    finally:
        for sock in direct:
            sock.close()
    healthz_seconds(server.port, timeout=10)  # the threads are free again

    stalled = slow_clients(proxy.port, SLOW_CLIENTS)
    try:
        time.sleep(0.2)
        latencies = [healthz_seconds(proxy.port, timeout=5) for _ in range(10)]
        log = (ROOT / "sample_logs" / "gin-01.json").read_bytes()
        status, _, _ = request(proxy.port, "POST", "/api/v1/games", log,
                               {"Content-Type": "application/json"})
        assert status == 201  # uploads go through meanwhile too
    finally:
        for sock in stalled:
            sock.close()
    print("healthz through nginx with", SLOW_CLIENTS, "stalled clients, seconds:",
          ", ".join(f"{s:.4f}" for s in latencies))
    assert max(latencies) < 1.0, latencies


def test_uploads_and_batches_pass_through_the_proxy(service):
    """Bodies are buffered by nginx, chunked ones too, and the service's answers and
    problems come back as the service gave them."""
    _, proxy = service
    status, headers, body = request(proxy.port, "POST", "/api/v1/games",
                                    (ROOT / "sample_logs" / "gin-01.json").read_bytes(),
                                    {"Content-Type": "application/json"})
    assert status == 201 and headers["Location"].endswith(json.loads(body)["id"])
    lines = (ROOT / "sample_logs" / "batch-gin.ndjson").read_bytes().splitlines(True)
    status, headers, body = request(proxy.port, "POST", "/api/v1/games/batch", iter(lines),
                                    {"Content-Type": "application/x-ndjson"})
    assert status == 200 and headers["Content-Type"] == "application/x-ndjson"
    results = [json.loads(line) for line in body.splitlines()]
    assert [r["line"] for r in results] == list(range(1, len(lines) + 1))
    assert all("id" in r for r in results), results
    status, headers, body = request(proxy.port, "GET", "/api/v1/games/nope")
    assert problem(404, headers, body)["instance"] == "/api/v1/games/nope"  # the app's


def test_the_proxys_own_errors_are_problems(service):
    _, proxy = service
    status, headers, body = request(proxy.port, "GET", "/api/v1/games?player=" + "a" * 9000)
    assert status == 414
    assert problem(414, headers, body)["type"] == "/problems/uri-too-long"

    status, headers, body = request(proxy.port, "GET", "/api/v1/healthz",
                                    headers={"X-Large": "b" * 9000})
    assert status == 431
    assert problem(431, headers, body)["type"] == "/problems/header-fields-too-large"

    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(b"POST /api/v1/games/batch HTTP/1.1\r\nHost: test\r\n"
                     b"Content-Type: application/x-ndjson\r\n"
                     b"Content-Length: %d\r\n\r\n" % ((64 << 20) + 1))
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 413
        answer = problem(413, dict(response.getheaders()), response.read())
        assert answer["type"] == "/problems/payload-too-large"

    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 400
        answer = problem(400, dict(response.getheaders()), response.read())
        assert answer["type"] == "/problems/bad-request"

    status, headers, body = request(proxy.port, "GET", "/_errors/502")  # internal only
    assert status == 404 and problem(404, headers, body)["type"] == "/problems/not-found"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One service behind one proxy for the tests that leave nothing behind but their
    uploads."""
    directory = tmp_path_factory.mktemp("proxied")
    server = Server(directory / "rummy.duckdb",
                    env={"RUMMY_WORKERS": "1", "RUMMY_THREADS": str(THREADS)}).start()
    proxy = Nginx(directory / "nginx", server.port)
    try:
        proxy.start()
        yield server, proxy
    finally:
        proxy.stop()
        server.stop()


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_requests_gunicorn_cannot_read_are_problems_through_the_proxy_too(shared, case):
    """Refused by nginx itself with the same problem, or, for more header fields than
    gunicorn takes (nginx does not count them), by gunicorn through nginx.  A header line
    without a colon is dropped by nginx (``ignore_invalid_headers``): served."""
    _, proxy = shared
    expected, kind, head = UNREADABLE[case]
    status, headers, body = exchange(proxy.port, head)
    if case == "header-without-colon":
        assert status == 200, body[:300]
        return
    assert status == expected, body[:300]
    assert problem(status, headers, body)["type"] == f"/problems/{kind}"


def test_the_proxys_limits_are_below_gunicorns(shared):
    """The longest request line and header field nginx passes on reach the app; one byte
    more is refused by nginx, never by gunicorn (its limits are no lower)."""
    _, proxy = shared
    for size, expected in ((8190, 200), (8191, 414)):
        line = b"GET /api/v1/healthz?" + b"a" * (size - 29) + b" HTTP/1.1"
        status, headers, body = exchange(proxy.port, line + b"\r\nHost: t\r\n\r\n")
        assert status == expected, body[:300]
    for size, expected in ((8190, 200), (8191, 431)):
        for name in (b"X-Big: ", b"X-Forwarded-For:"):  # nginx adds to X-Forwarded-For
            field = name + b"b" * (size - len(name))
            status, headers, body = exchange(
                proxy.port, b"GET /api/v1/healthz HTTP/1.1\r\nHost: t\r\n" + field
                + b"\r\n\r\n")
            assert status == expected, body[:300]
            if expected != 200:
                assert problem(status, headers, body)["detail"] == \
                    "a header field is longer than 8190 bytes"


@pytest.mark.parametrize(("request_head", "expected", "kind"), [
    (b"TRACE /api/v1/healthz HTTP/1.1\r\nHost: t\r\n\r\n", 405, "method-not-allowed"),
    (b"POST /api/v1/games HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
     501, "not-implemented"),
    (b"GET /api/v1/healthz HTTP/2.5\r\nHost: t\r\n\r\n", 505, "http-version-not-supported"),
    (b"GET /api/v1/healthz HTTP/1.1\r\n\r\n", 400, "bad-request"),  # no Host
], ids=["405-trace", "501-transfer-coding", "505-version", "400-no-host"])
def test_the_proxys_405_501_and_505_are_problems(shared, request_head, expected, kind):
    _, proxy = shared
    status, headers, body = exchange(proxy.port, request_head)
    assert status == expected, body[:300]
    assert problem(status, headers, body)["type"] == f"/problems/{kind}"


REFUSED_PAIRS = 30


def test_a_refused_upload_never_makes_another_clients_upload_fail(shared):
    """gunicorn refuses an upload without reading its body (its media type, its coding,
    its declared size); nginx, which then reused the connection for another client's
    upload, had it fail with 502 in 4 to 6 pairs of 10 (a POST is not sent again).  The
    refusal now closes the connection: every other upload goes through."""
    _, proxy = shared
    body = b"x" * 200_000  # over the 64 KiB gunicorn drains before reusing a connection
    refusals = [
        ({"Content-Type": "text/plain"}, body, 415),
        ({"Content-Type": "application/json", "Content-Encoding": "br"}, body, 415),
        ({"Content-Type": "application/json"}, body * 6, 413),  # over 1 MiB
    ]
    log = (ROOT / "sample_logs" / "gin-01.json").read_bytes()
    victims = []
    for k in range(REFUSED_PAIRS):
        headers, refused_body, refused = refusals[k % len(refusals)]
        status, _, answer = request(proxy.port, "POST", "/api/v1/games", refused_body,
                                    headers, timeout=10)
        assert status == refused, answer[:300]
        status, _, answer = request(proxy.port, "POST", "/api/v1/games", log,
                                    {"Content-Type": "application/json"}, timeout=10)
        victims.append(status)
    assert victims.count(502) == 0, victims
    assert set(victims) <= {200, 201}, victims


def test_a_service_that_is_down_is_a_502_problem(tmp_path):
    proxy = Nginx(tmp_path / "nginx", free_port()).start()  # nothing listens there
    try:
        status, headers, body = request(proxy.port, "GET", "/api/v1/healthz")
    finally:
        proxy.stop()
    assert status == 502
    assert problem(502, headers, body)["type"] == "/problems/bad-gateway"


def test_the_key_form_sent_from_the_proxys_own_page_is_taken(service):
    """The forms compare where a page was (Origin) with the host and port the browser
    addressed: the proxy passes the Host the browser sent, port included, so a form of
    the site is taken on any port, and one of another site is refused."""
    _, proxy = service
    here = f"http://127.0.0.1:{proxy.port}"
    form = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"}
    status, headers, _ = request(proxy.port, "POST", "/key", b"key=any&next=/players",
                                 {**form, "Origin": here})
    assert (status, headers["Location"]) == (303, "/players")
    status, _, _ = request(proxy.port, "POST", "/key", b"key=any&next=/players",
                           {**form, "Origin": "http://127.0.0.1"})
    assert status == 403

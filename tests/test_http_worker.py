"""The shipped gunicorn worker's parts, on real socket pairs: the lingering decision
(wait on a kept-alive connection for its next request, or hand it back to gunicorn's
poller) and the reader that times a request's head and body.  The worker runs for real
in every end-to-end test (tests/e2e/test_slow_clients.py for the timeouts)."""

from __future__ import annotations

import io
import socket
import threading
import time
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.http.parser import RequestParser

from service.http_requests import MalformedBody, serve_requests
from service.http_worker import (
    LingeringThreadWorker,
    RequestReadTimeout,
    TimedReader,
    body_min_rate,
    linger_seconds,
    read_timeouts,
)

LINGER = 0.2


class Connection:
    """What the decision reads of gunicorn's connection: its socket and the bytes its
    parser has read ahead."""

    def __init__(self, sock: socket.socket, buffered: bytes = b""):
        self.sock = sock
        self.parser = SimpleNamespace(unreader=SimpleNamespace(buf=io.BytesIO(buffered)))


def worker(threads: int = 4, busy: int = 1, alive: bool = True) -> LingeringThreadWorker:
    w = object.__new__(LingeringThreadWorker)  # the decision needs none of gunicorn's set-up
    w.cfg = SimpleNamespace(threads=threads)
    w.alive, w.linger, w._busy = alive, LINGER, busy
    return w


@pytest.fixture
def pair():
    ours, client = socket.socketpair()
    yield ours, client
    ours.close()
    client.close()


def timed(func):
    start = time.monotonic()
    return func(), time.monotonic() - start


def test_a_request_arriving_within_the_linger_is_served_by_the_same_thread(pair):
    ours, client = pair
    threading.Timer(LINGER / 4, client.sendall, args=(b"GET / HTTP/1.1\r\n",)).start()
    answer, waited = timed(lambda: worker()._next_request_arrives(Connection(ours)))
    assert answer is True and waited < LINGER


def test_no_request_within_the_linger_goes_back_to_the_poller(pair):
    ours, _ = pair
    answer, waited = timed(lambda: worker()._next_request_arrives(Connection(ours)))
    assert answer is False and waited >= LINGER * 0.9


def test_bytes_read_ahead_are_served_at_once(pair):
    ours, _ = pair
    answer, waited = timed(lambda: worker()._next_request_arrives(Connection(ours, b"GET")))
    assert answer is True and waited < LINGER / 2


@pytest.mark.parametrize("state", [{"busy": 4}, {"busy": 5}, {"alive": False}])
def test_no_wait_when_every_thread_is_busy_or_the_worker_stops(pair, state):
    ours, client = pair
    client.sendall(b"GET / HTTP/1.1\r\n")  # even with a request waiting
    answer, waited = timed(lambda: worker(**state)._next_request_arrives(Connection(ours)))
    assert answer is False and waited < LINGER / 2


def test_no_wait_on_http2(pair):
    ours, client = pair
    client.sendall(b"PRI * HTTP/2.0\r\n")
    conn = Connection(ours)
    conn.is_http2 = True
    assert worker()._next_request_arrives(conn) is False


def test_no_wait_when_turned_off(pair):
    ours, client = pair
    client.sendall(b"GET / HTTP/1.1\r\n")
    w = worker()
    w.linger = 0
    assert w._next_request_arrives(Connection(ours)) is False


def test_linger_setting(monkeypatch):
    monkeypatch.delenv("RUMMY_KEEPALIVE_LINGER_MS", raising=False)
    assert linger_seconds() == 0.010
    monkeypatch.setenv("RUMMY_KEEPALIVE_LINGER_MS", "2.5")
    assert linger_seconds() == 0.0025
    monkeypatch.setenv("RUMMY_KEEPALIVE_LINGER_MS", "0")
    assert linger_seconds() == 0
    for bad in ("-1", "5000", "soon"):
        monkeypatch.setenv("RUMMY_KEEPALIVE_LINGER_MS", bad)
        with pytest.raises(ValueError, match="RUMMY_KEEPALIVE_LINGER_MS"):
            linger_seconds()


# The read timeouts: gunicorn's own HTTP/1 parser reading through the worker's reader.

def timed_parser(sock: socket.socket, header_timeout: float = 5, body_timeout: float = 5,
                 min_rate: float = 0):
    parser = RequestParser(Config(), sock, ("127.0.0.1", 0))
    reader = TimedReader(sock, header_timeout, body_timeout, min_rate)
    parser.unreader = reader
    return parser, reader


def dribble(sock: socket.socket, data: bytes, every: float) -> threading.Event:
    """Send ``data`` a byte at a time, one each ``every`` seconds, until it is sent or
    the returned event is set."""
    stop = threading.Event()

    def run() -> None:
        for byte in data:
            if stop.wait(every):
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return

    threading.Thread(target=run, daemon=True).start()
    return stop


def test_a_head_must_arrive_within_the_header_timeout_however_it_trickles(pair):
    ours, client = pair
    parser, reader = timed_parser(ours, header_timeout=0.3)
    stop = dribble(client, b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100, 0.02)
    start = time.monotonic()
    with pytest.raises(RequestReadTimeout, match="head did not arrive within 0.3 s"):
        next(parser)  # a byte every 20 ms: the pauses alone would never time out
    assert 0.25 < time.monotonic() - start < 0.6
    stop.set()
    assert "head" in reader.timed_out


def test_a_head_in_time_is_parsed_and_its_body_may_pause_up_to_the_body_timeout(pair):
    ours, client = pair
    parser, reader = timed_parser(ours, header_timeout=0.5, body_timeout=0.3)
    client.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n")
    request = next(parser)
    reader.expect_body(request)
    dribble(client, b"12345678", 0.1)  # 0.8 s in all, never 0.3 s without a byte
    body, waited = timed(lambda: request.body.read(8))
    assert body == b"12345678" and waited > 0.5
    assert reader.timed_out is None and not request.should_close()


def test_a_stalled_body_times_out_and_its_answer_closes_the_connection(pair):
    ours, client = pair
    parser, reader = timed_parser(ours, body_timeout=0.3)
    client.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n1")
    request = next(parser)
    reader.expect_body(request)
    start = time.monotonic()
    with pytest.raises(RequestReadTimeout, match="no byte of the request's body arrived"):
        request.body.read(8)
    assert 0.25 < time.monotonic() - start < 0.6
    assert request.should_close()  # the 408 says Connection: close
    assert request.body.failed  # and gunicorn does not reuse the connection


def body_request(client: socket.socket, parser, reader, length: int):
    client.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % length)
    request = next(parser)
    reader.expect_body(request)
    return request


def test_a_body_trickling_in_is_cut_once_it_falls_below_the_minimum_rate(pair):
    """A byte more often than the body timeout: the pauses alone never time out, and a
    thread was held for as long as the client cared to trickle.  Its waits may last the
    body timeout plus a second per ``min_rate`` bytes in all: here 0.3 s and a bit."""
    ours, client = pair
    parser, reader = timed_parser(ours, body_timeout=0.3, min_rate=1000)
    request = body_request(client, parser, reader, 60)
    stop = dribble(client, b"x" * 60, 0.05)  # 3 s in all, 20 bytes/s
    start = time.monotonic()
    with pytest.raises(RequestReadTimeout, match="body arrived slower than 1000 bytes/s"):
        request.body.read(60)
    assert time.monotonic() - start < 1.5
    stop.set()
    assert "slower than" in reader.timed_out and request.should_close()


def test_a_body_keeping_up_the_minimum_rate_takes_as_long_as_it_needs(pair):
    ours, client = pair
    parser, reader = timed_parser(ours, body_timeout=0.3, min_rate=10)
    request = body_request(client, parser, reader, 16)
    dribble(client, b"y" * 16, 0.05)  # 20 bytes/s, against 10
    body, waited = timed(lambda: request.body.read(16))
    assert body == b"y" * 16 and waited > 0.5
    assert reader.timed_out is None


def test_only_the_time_spent_waiting_for_the_body_counts(pair):
    """The app may take its time between two reads (a batch verifying a chunk): the
    bytes sent meanwhile wait in the socket, and the reader waits for none of them."""
    ours, client = pair
    parser, reader = timed_parser(ours, body_timeout=0.3, min_rate=100_000)
    request = body_request(client, parser, reader, 2048)  # gunicorn reads 1 KiB at least
    client.sendall(b"a" * 1024)
    assert request.body.read(1024) == b"a" * 1024
    client.sendall(b"b" * 1024)
    time.sleep(0.6)  # twice the allowance, spent by the app
    assert request.body.read(1024) == b"b" * 1024
    assert reader.timed_out is None


def test_reads_after_the_request_are_gunicorns_alone(pair):
    """Once the app answered, a body left unread is drained by gunicorn within its own
    deadline: the reader no longer times anything."""
    ours, client = pair
    _, reader = timed_parser(ours, header_timeout=0.1, body_timeout=0.1)
    reader.stop_timing()
    threading.Timer(0.3, client.sendall, args=(b"late",)).start()
    assert reader.chunk() == b"late"
    assert reader.timed_out is None


# The requests the worker's connections make (service/http_requests.py), read by
# gunicorn's own parser.

def served(sock: socket.socket) -> RequestParser:
    sock.settimeout(5)  # a read that would wait fails the test instead
    parser = RequestParser(Config(), sock, ("127.0.0.1", 0))
    serve_requests(parser)
    return parser


CHUNKED = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"


def test_an_answer_before_the_body_is_read_whole_closes_the_connection(pair):
    ours, client = pair
    client.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody")
    request = next(served(ours))
    assert request.should_close()  # asked as the answer's head is written
    assert request.body.read() == b"body"
    assert request.should_close()  # and it stays so: the answer said close


def test_a_body_read_whole_keeps_the_connection(pair):
    ours, client = pair
    parser = served(ours)
    client.sendall(CHUNKED + b"4\r\nbody\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
    request = next(parser)
    assert request.body.read() == b"body"
    assert not request.should_close()
    assert not next(parser).should_close()  # no body: read whole at once


def test_a_chunk_line_ended_by_a_bare_lf_is_refused_without_waiting(pair):
    ours, client = pair
    client.sendall(CHUNKED + b"4\nbody\n0\n\n")
    request = next(served(ours))
    with pytest.raises(MalformedBody, match="bare LF"):
        request.body.read()
    with pytest.raises(MalformedBody):  # again: the body never seems to end
        request.body.read()
    assert request.should_close()


def test_read_timeout_settings(monkeypatch):
    monkeypatch.delenv("RUMMY_HEADER_TIMEOUT_S", raising=False)
    monkeypatch.delenv("RUMMY_BODY_TIMEOUT_S", raising=False)
    assert read_timeouts() == (10.0, 30.0)
    monkeypatch.setenv("RUMMY_HEADER_TIMEOUT_S", "2.5")
    monkeypatch.setenv("RUMMY_BODY_TIMEOUT_S", " 60 ")
    assert read_timeouts() == (2.5, 60.0)
    for name in ("RUMMY_HEADER_TIMEOUT_S", "RUMMY_BODY_TIMEOUT_S"):
        for bad in ("0", "-1", "7200", "nan", "inf", "soon"):
            monkeypatch.setenv(name, bad)
            with pytest.raises(ValueError, match=name):
                read_timeouts()
        monkeypatch.setenv(name, "5")


def test_body_min_rate_setting(monkeypatch):
    monkeypatch.delenv("RUMMY_BODY_MIN_RATE", raising=False)
    assert body_min_rate() == 8192
    monkeypatch.setenv("RUMMY_BODY_MIN_RATE", "0")
    assert body_min_rate() == 0
    monkeypatch.setenv("RUMMY_BODY_MIN_RATE", " 1024 ")
    assert body_min_rate() == 1024
    for bad in ("-1", "nan", "inf", "fast", str(2 << 30)):
        monkeypatch.setenv("RUMMY_BODY_MIN_RATE", bad)
        with pytest.raises(ValueError, match="RUMMY_BODY_MIN_RATE"):
            body_min_rate()


def test_a_second_quit_signal_inside_the_first_does_not_hang_the_worker(monkeypatch):
    """Ctrl-C: SIGINT from the terminal, SIGQUIT from the master at once.  Here the
    second handler runs where it can hurt most, inside the thread pool's shutdown of
    the first (under its lock); the worker must still quit, not wait for ever."""
    from concurrent.futures import ThreadPoolExecutor

    w = object.__new__(LingeringThreadWorker)
    w.cfg = SimpleNamespace(worker_int=lambda _: None)
    w.alive = True
    w.tpool = ThreadPoolExecutor(max_workers=1)

    class SignalInShutdown:
        """The pool's queue, whose wake-up call (made under the shutdown's lock) is
        where the second signal arrives."""

        def __init__(self, queue) -> None:
            self.queue, self.signalled = queue, False

        def put(self, item, *args, **kwargs) -> None:
            if not self.signalled:
                self.signalled = True
                w.handle_quit(3, None)  # SIGQUIT
            self.queue.put(item, *args, **kwargs)

    w.tpool._work_queue = SignalInShutdown(w.tpool._work_queue)
    outcome: list[BaseException] = []

    def quit_on_sigint() -> None:
        try:
            w.handle_quit(2, None)
        except BaseException as error:  # noqa: BLE001 - what the handler raised
            outcome.append(error)

    thread = threading.Thread(target=quit_on_sigint, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), "the worker hangs on its second quit signal"
    assert [type(e) for e in outcome] == [SystemExit] and w.alive is False

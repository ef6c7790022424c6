"""The lingering gunicorn worker's one decision: wait on a kept-alive connection for
its next request, or hand it back to gunicorn's poller.  Checked on a real socket
pair; the worker runs for real in every end-to-end test."""

from __future__ import annotations

import io
import socket
import threading
import time
from types import SimpleNamespace

import pytest

from service.http_worker import LingeringThreadWorker, linger_seconds

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

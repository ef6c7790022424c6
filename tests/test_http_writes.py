"""The answer's writes (service.http_writes) on real socket pairs: held while the
request's body arrives, within the write timeout after.  The end-to-end tests
(tests/e2e/test_half_duplex.py) run them in the real gunicorn."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from service import http_writes
from service.http_writes import AnswerSocket, AnswerTimeout, write_timeout

BLOCK = 64 << 10


@pytest.fixture
def pair():
    ours, client = socket.socketpair()
    yield ours, client
    ours.close()
    client.close()


class Body:
    """Whether the request's body still arrives, as the test says."""

    def __init__(self, arriving: bool) -> None:
        self.arriving = arriving

    def __call__(self) -> bool:
        return self.arriving


def answer_bytes(size: int) -> bytes:
    return (bytes(range(251)) * (size // 251 + 1))[:size]  # no block like the next


def read_all(sock: socket.socket, size: int, pause: float = 0.0) -> bytearray:
    got = bytearray()
    while len(got) < size:
        block = sock.recv(16 << 10)
        if not block:
            break
        got += block
        if pause:
            time.sleep(pause)
    return got


def reader(sock: socket.socket, size: int, pause: float = 0.0):
    """Read ``size`` bytes in a thread; the returned function joins it and answers them."""
    out: list[bytearray] = []
    thread = threading.Thread(target=lambda: out.append(read_all(sock, size, pause)))
    thread.start()

    def result() -> bytearray:
        thread.join(30)
        return out[0]

    return result


def test_while_the_body_arrives_no_write_waits_and_what_is_not_taken_is_held(pair):
    """A client sending its whole body first reads nothing meanwhile: 8 MiB of answer,
    far more than the socket holds, are written without waiting, held (on disk past
    1 MiB), and sent in order once the body is in and the client reads."""
    ours, client = pair
    body = Body(arriving=True)
    answer = AnswerSocket(ours, body, timeout=0.5)
    data = answer_bytes(8 << 20)
    start = time.monotonic()
    for offset in range(0, len(data), BLOCK):
        answer.sendall(data[offset:offset + BLOCK])
    assert time.monotonic() - start < 10  # no write waited 0.5 s, or it would have raised
    assert len(answer.held) > 4 << 20 and answer.held.on_disk
    body.arriving = False
    got = reader(client, len(data))
    answer.finish()
    assert got() == data
    assert len(answer.held) == 0
    answer.close_spool()


def test_a_client_reading_while_it_sends_gets_the_answer_at_once(pair):
    ours, client = pair
    answer = AnswerSocket(ours, Body(arriving=True), timeout=0.5)
    answer.sendall(b'{"line": 1}\n')
    assert len(answer.held) == 0
    assert client.recv(100) == b'{"line": 1}\n'


def test_a_client_that_does_not_read_is_dropped_after_the_write_timeout(pair):
    ours, _ = pair
    answer = AnswerSocket(ours, Body(arriving=False), timeout=0.3)
    data = answer_bytes(8 << 20)
    with pytest.raises(AnswerTimeout, match="took no 64 KiB of its answer within 0.3 s"):
        answer.sendall(data)


def test_an_answer_held_and_never_read_times_out_once_the_body_is_in(pair):
    ours, _ = pair
    body = Body(arriving=True)
    answer = AnswerSocket(ours, body, timeout=0.3)
    answer.sendall(answer_bytes(2 << 20))
    assert answer.held
    body.arriving = False
    with pytest.raises(AnswerTimeout):
        answer.finish()
    answer.close_spool()


def test_a_slow_reader_taking_each_block_in_time_gets_all_of_it(pair):
    """The timeout is for each 64 KiB taken, not the whole answer: a client reading
    16 KiB every 20 ms takes 1 MiB in more than a second, twice the timeout."""
    ours, client = pair
    answer = AnswerSocket(ours, Body(arriving=False), timeout=0.5)
    data = answer_bytes(1 << 20)
    got = reader(client, len(data), pause=0.02)
    start = time.monotonic()
    answer.sendall(data)
    answer.finish()
    assert got() == data
    assert time.monotonic() - start > 0.5


def test_past_the_spool_limit_writes_wait_for_the_client(pair, monkeypatch):
    monkeypatch.setattr(http_writes, "SPOOL_LIMIT", 1 << 20)
    ours, _ = pair
    answer = AnswerSocket(ours, Body(arriving=True), timeout=0.3)
    with pytest.raises(AnswerTimeout):
        for _ in range(40):  # 2.5 MiB
            answer.sendall(answer_bytes(BLOCK))
    assert len(answer.held) <= 1 << 20
    answer.close_spool()


def test_write_timeout_setting(monkeypatch):
    monkeypatch.delenv("RUMMY_WRITE_TIMEOUT_S", raising=False)
    assert write_timeout() == 30.0
    monkeypatch.setenv("RUMMY_WRITE_TIMEOUT_S", " 2.5 ")
    assert write_timeout() == 2.5
    for bad in ("0", "-1", "7200", "nan", "inf", "soon"):
        monkeypatch.setenv("RUMMY_WRITE_TIMEOUT_S", bad)
        with pytest.raises(ValueError, match="RUMMY_WRITE_TIMEOUT_S"):
            write_timeout()

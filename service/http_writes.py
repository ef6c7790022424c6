"""Writing a request's answer: never blocked while the request's body still arrives,
and never for longer than the write timeout once it has.

Half-duplex clients.  Python's http.client, requests and urllib send a request's whole
body before they read a byte of the answer.  The batch (POST /games/batch) answers each
line once it is stored, while the rest of the body arrives; once the unread answer had
filled the socket buffers (some 4 MB, 50,000 tiny games), the thread blocked writing it
while the client blocked sending the body to a thread that no longer read: neither
moved again.  So here, while the body still arrives, the answer goes out as far as the
client takes it and no further: what does not fit is held, in memory up to
``SPOOL_MEMORY`` (1 MiB), then in a temporary file, and sent once the client takes it,
at the latest after the body's last byte.  A client that reads while it sends (curl)
gets each line as before; one that sends first gets its whole answer once it reads.
What is held is at most ``SPOOL_LIMIT`` (256 MiB); past it the answer waits for the
client like any other write.  The batch's answer is at most some 0.55 times its body
(an 85-byte line for a game of 155 bytes, about the smallest a log can be), 35 MiB for
the largest batch (64 MiB); more only for lines answered with a long problem (at most
1,000 malformed lines; re-uploads of deleted games).  Measured with http.client and
64 MiB of 172-byte games: 23 MiB held at most, all 389,839 games stored and answered,
where the batch stopped for good at 53,400.

Write timeout.  Once the body is in, a write waits for the client, but not for ever: a
client that does not take each ``PIECE`` (64 KiB) of its answer within
``RUMMY_WRITE_TIMEOUT_S`` (30 s), whether it stopped reading or reads a byte now and
then, is dropped (``AnswerTimeout``), and its thread is free again.  Without it, a
client that never read kept its thread in the write for as long as it stayed
connected.

Plain sockets only: behind the TLS of gunicorn itself (not used here: the proxy ends
TLS), the answer is written as gunicorn writes it.
"""

from __future__ import annotations

import errno
import os
import select
import socket
import tempfile
import time
from collections.abc import Callable
from typing import Any

from gunicorn.http.body import ChunkedReader, EOFReader, LengthReader

DEFAULT_WRITE_TIMEOUT_S = 30.0
MAX_WRITE_TIMEOUT_S = 3600.0
PIECE = 64 << 10  # bytes the client must take within the write timeout
SPOOL_MEMORY = 1 << 20  # bytes held in memory before the spool moves to a file
SPOOL_LIMIT = 256 << 20  # bytes held at most while the body arrives


def write_timeout() -> float:
    """The write timeout in seconds, from RUMMY_WRITE_TIMEOUT_S."""
    text = os.environ.get("RUMMY_WRITE_TIMEOUT_S", "").strip()
    try:
        value = float(text) if text else DEFAULT_WRITE_TIMEOUT_S
    except ValueError:
        raise ValueError(f"RUMMY_WRITE_TIMEOUT_S must be a number of seconds, "
                         f"not {text!r}") from None
    if not 0 < value <= MAX_WRITE_TIMEOUT_S:
        raise ValueError(f"RUMMY_WRITE_TIMEOUT_S must be more than 0 and at most "
                         f"{MAX_WRITE_TIMEOUT_S:g} seconds")
    return value


class AnswerTimeout(BrokenPipeError):
    """The client did not take its answer within the write timeout.  A broken pipe to
    gunicorn, which then closes the connection without a traceback."""

    def __init__(self, detail: str) -> None:
        super().__init__(errno.EPIPE, detail)

    def __str__(self) -> str:
        return self.strerror


def body_arriving(request: Any) -> bool:
    """Whether gunicorn has not read the request's whole body yet.  A body whose read
    failed (stalled, malformed) is read no further, so it no longer counts."""
    body = getattr(request, "body", None)
    if body is None or getattr(body, "failed", False):
        return False
    reader = body.reader
    if isinstance(reader, LengthReader):
        return reader.length > 0
    if isinstance(reader, ChunkedReader):
        return reader.parser is not None
    if isinstance(reader, EOFReader):
        return not reader.finished
    return False


class Spool:
    """Bytes waiting to be sent, first in first out: in memory up to ``SPOOL_MEMORY``,
    then in an unnamed temporary file."""

    def __init__(self) -> None:
        self._file: Any = None
        self._start = self._end = 0  # the bytes waiting, as offsets in the file

    def __len__(self) -> int:
        return self._end - self._start

    @property
    def on_disk(self) -> bool:
        return self._file is not None and bool(getattr(self._file, "_rolled", False))

    def append(self, data: memoryview) -> None:
        if self._file is None:
            self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115 - closed by close()
        self._file.seek(self._end)
        self._file.write(data)
        self._end += len(data)

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes waiting (fewer at the end)."""
        self._file.seek(self._start)
        return self._file.read(min(size, len(self)))

    def consume(self, size: int) -> None:
        """``size`` bytes of the head were sent."""
        self._start += size
        if self._start == self._end:
            self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file, self._start, self._end = None, 0, 0


class AnswerSocket:
    """A client's socket as the answer to one request sees it (gunicorn's response
    writes through ``sendall``, ``send`` and ``sendfile``): while ``arriving()`` says the
    body is still coming, writes take no longer than the client does and hold the rest;
    afterwards each write, the held bytes first, waits at most ``timeout`` for each
    ``PIECE``.  Anything else is the socket's own."""

    def __init__(self, sock: socket.socket, arriving: Callable[[], bool],
                 timeout: float) -> None:
        self.sock = sock
        self.arriving = arriving
        self.timeout = timeout
        self.held = Spool()
        self.most_held = 0  # the largest number of bytes held at once
        self._poll = select.poll()
        self._poll.register(sock, select.POLLOUT)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)

    def sendall(self, data: Any) -> None:
        view = memoryview(data).cast("B")
        if self.arriving() and len(self.held) + len(view) <= SPOOL_LIMIT:
            self._send_held_now()
            if not self.held:
                view = view[self._send_now(view):]
            if view:
                self.held.append(view)
                self.most_held = max(self.most_held, len(self.held))
            return
        self.finish()
        self._send_within(view)

    def send(self, data: Any, flags: int = 0) -> int:
        """A whole write (gunicorn's ``100 Continue``)."""
        self.sendall(data)
        return len(data)

    def sendfile(self, file: Any, offset: int = 0, count: int | None = None) -> int:
        """The held bytes first, then the file as the socket sends it, each block within
        the write timeout."""
        self.finish()
        self.sock.settimeout(self.timeout)
        try:
            return self.sock.sendfile(file, offset, count)
        except TimeoutError:
            raise self._timed_out() from None
        finally:
            self.sock.settimeout(None)

    def finish(self) -> None:
        """Send what is held, waiting for the client within the write timeout."""
        while self.held:
            block = self.held.head(PIECE)
            self._send_within(memoryview(block))
            self.held.consume(len(block))

    def close_spool(self) -> None:
        self.held.close()

    def _send_held_now(self) -> None:
        if self.held and not self._poll.poll(0):
            return  # no room: the held bytes are not even read back
        while self.held:
            block = self.held.head(PIECE)
            sent = self._send_now(memoryview(block))
            self.held.consume(sent)
            if sent < len(block):
                return

    def _send_now(self, view: memoryview) -> int:
        """Send what the socket takes without waiting; the number of bytes sent."""
        sent = 0
        while sent < len(view):
            try:
                sent += self.sock.send(view[sent:], socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                break
        return sent

    def _send_within(self, view: memoryview) -> None:
        for start in range(0, len(view), PIECE):
            piece = view[start:start + PIECE]
            deadline = time.monotonic() + self.timeout
            while piece:
                piece = piece[self._send_now(piece):]
                if not piece:
                    break
                wait = deadline - time.monotonic()
                if wait <= 0 or not self._poll.poll(wait * 1000):
                    raise self._timed_out()

    def _timed_out(self) -> AnswerTimeout:
        return AnswerTimeout(f"the client took no {PIECE >> 10} KiB of its answer "
                             f"within {self.timeout:g} s")

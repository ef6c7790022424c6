"""The gunicorn worker the service ships with: gunicorn's threaded worker, with read
timeouts on every request, and keeping a thread on a kept-alive connection for a few
milliseconds after each answer.

Read timeouts.  A thread reads its request from the socket, head and body, and waits as
long as the client takes: a client that sends part of a request and then nothing kept a
thread until it hung up, and a few dozen such clients held every thread of the one
worker, so the service answered nobody.  Here the head of a request must have arrived
``RUMMY_HEADER_TIMEOUT_S`` (10 s) after the thread began reading it, however it trickles
in, and its body may pause at most ``RUMMY_BODY_TIMEOUT_S`` (30 s) between two reads
and must keep up ``RUMMY_BODY_MIN_RATE`` (8 KiB/s) over the time the thread waits for
it (``BodyPace``: a byte every few seconds held a thread for ever; a large batch on a
slow link takes as long as it needs, as long as it keeps that pace).  A client over
any gets a 408 ``application/problem+json`` answer, from the app when the body stalls
while the app reads it, from the worker when the head does, and the connection is
closed: the thread is free again.  The answer is written by ``service.http_writes``:
held while the body still arrives (a client that sends its whole body before reading
deadlocked a batch), and within ``RUMMY_WRITE_TIMEOUT_S`` after (a client that does
not read is dropped).  Many slow clients still take the threads in turn, each for a
timeout at most; in front of the service, a buffering proxy (``deploy/nginx.conf``)
holds them instead and hands gunicorn whole requests only.

Lingering.  The threaded worker hands every kept-alive connection back to its main
thread after each request, which polls it and hands it to a thread again when the next
request arrives, all in the worker process that serves the connection.  A client sending
one request after another (a card room uploading its logs) usually sends the next
within a few milliseconds, so the thread that answered waits that long for it, and
serves it at once: 0.2-0.35 ms less CPU per upload in the serving process, measured
with 32 uploading clients.  The wait is short and only taken while another thread is
free: a connection that keeps a thread busy never keeps a request of another client
waiting for one.  ``RUMMY_KEEPALIVE_LINGER_MS=0`` turns it off (plain gunicorn
behaviour).

Requests.  The worker's connections make the requests of ``service/http_requests.py``:
an answer that starts before its request's body was read whole closes the connection
(nginx reused it for another client's upload, which then failed with 502), a malformed
chunked body is a 400 for the app, not a 500, and a request the worker cannot read
(request line or header fields over their limits, a malformed head, a transfer coding
other than chunked) is answered with a problem, as the app would, not an HTML page.

Both rest on gunicorn's threaded worker as it is in the versions pyproject.toml allows:
its connection (``TConn``, whose socket ``handle_request`` swaps for the answer's) and
``accept``, ``handle``, ``handle_request``, ``handle_error`` and ``handle_quit`` (made
safe against a second quit signal arriving inside the first, which hung a worker on
Ctrl-C), the socket reader of its HTTP/1 parser (``SocketUnreader``) and its body
readers (``service.http_writes.body_arriving``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import socket
import threading
import time
from typing import Any

import orjson
from gunicorn.http.parser import RequestParser
from gunicorn.http.unreader import SocketUnreader
from gunicorn.workers.gthread import TConn, ThreadWorker
from werkzeug.exceptions import RequestTimeout

from .http_requests import problem_answer, request_error, serve_requests
from .http_writes import AnswerSocket, AnswerTimeout, body_arriving, write_timeout

DEFAULT_LINGER_MS = 10.0
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 30.0
DEFAULT_BODY_MIN_RATE = 8192.0  # bytes/s
MAX_BODY_MIN_RATE = 1 << 30
MAX_TIMEOUT_S = 3600.0
PROBLEM_MEDIA_TYPE = "application/problem+json"


def linger_seconds() -> float:
    """The wait for a connection's next request, from RUMMY_KEEPALIVE_LINGER_MS."""
    text = os.environ.get("RUMMY_KEEPALIVE_LINGER_MS", "").strip()
    try:
        value = float(text) if text else DEFAULT_LINGER_MS
    except ValueError:
        raise ValueError(f"RUMMY_KEEPALIVE_LINGER_MS must be a number of milliseconds, "
                         f"not {text!r}") from None
    if not 0 <= value <= 1000:
        raise ValueError("RUMMY_KEEPALIVE_LINGER_MS must be a number from 0 to 1000")
    return value / 1000


def _seconds(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {text!r}") from None
    if not 0 < value <= MAX_TIMEOUT_S:
        raise ValueError(f"{name} must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds")
    return value


def read_timeouts() -> tuple[float, float]:
    """The header and body timeouts in seconds, from RUMMY_HEADER_TIMEOUT_S and
    RUMMY_BODY_TIMEOUT_S."""
    return (_seconds("RUMMY_HEADER_TIMEOUT_S", DEFAULT_HEADER_TIMEOUT_S),
            _seconds("RUMMY_BODY_TIMEOUT_S", DEFAULT_BODY_TIMEOUT_S))


def body_min_rate() -> float:
    """The slowest pace of a body in bytes per second, from RUMMY_BODY_MIN_RATE (0:
    no minimum)."""
    text = os.environ.get("RUMMY_BODY_MIN_RATE", "").strip()
    try:
        value = float(text) if text else DEFAULT_BODY_MIN_RATE
    except ValueError:
        raise ValueError(f"RUMMY_BODY_MIN_RATE must be a number of bytes per second, "
                         f"not {text!r}") from None
    if not 0 <= value <= MAX_BODY_MIN_RATE:
        raise ValueError(f"RUMMY_BODY_MIN_RATE must be a number of bytes per second from "
                         f"0 to {MAX_BODY_MIN_RATE}")
    return value


class BodyPace:
    """How long a request's body may keep its thread waiting for it: each wait at most
    the body timeout, and all its waits together at most the body timeout plus one
    second per ``min_rate`` bytes received (no total with a rate of 0).  Only the time
    spent waiting for the client counts, not the time the app takes between two reads
    (a batch verifying a chunk).  A body sending a byte a little more often than the
    body timeout is cut after about the body timeout, where it kept its thread for ever;
    a large batch on a slow link takes as long as it needs, as long as it keeps up the
    rate."""

    def __init__(self, timeout: float, min_rate: float) -> None:
        self.timeout, self.min_rate = timeout, min_rate
        self.start()

    def start(self) -> None:
        self.seconds = 0.0  # waited so far
        self.bytes = 0  # received so far
        self.paced = False  # whether the last wait was cut short by the rate

    def wait(self) -> float:
        """How long the next read may wait."""
        if self.min_rate <= 0:
            return self.timeout
        left = self.timeout + self.bytes / self.min_rate - self.seconds
        self.paced = left < self.timeout
        return min(self.timeout, left)

    def waited(self, seconds: float) -> None:
        self.seconds += seconds

    def received(self, size: int) -> None:
        self.bytes += size

    def too_slow(self) -> bool:
        """Whether the last wait timed out for the rate, not for a pause."""
        return self.paced

    def reason(self) -> str:
        return (f"the request's body arrived slower than {self.min_rate:g} bytes/s: "
                f"{self.bytes} bytes in the {self.seconds:.1f} s waited for it")


class RequestReadTimeout(RequestTimeout):
    """The client took too long to send its request.  A werkzeug HTTPException, so a
    body read that times out in the app is answered 408 like any other problem."""


HEAD, BODY = "head", "body"


class TimedReader(SocketUnreader):
    """gunicorn's socket reader, reading within the request's timeouts: in the head
    phase until the head's deadline, in the body phase for at most the body timeout
    per read and within the body's pace (``BodyPace``); outside both (a body drained after the answer, by gunicorn's own
    deadline) as gunicorn's reader does."""

    def __init__(self, sock: socket.socket, header_timeout: float,
                 body_timeout: float, body_min_rate: float = 0) -> None:
        super().__init__(sock)
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.pace = BodyPace(body_timeout, body_min_rate)
        self.phase: str | None = HEAD
        self.deadline: float | None = None
        self.request: Any = None
        self.timed_out: str | None = None  # why, once a read timed out
        self._poll = select.poll()  # not select(): a descriptor may be past its 1024
        self._poll.register(sock, select.POLLIN)

    def expect_head(self) -> None:
        """The next bytes are a new request's head; its deadline starts at its first read
        (the head of a request already buffered needs none)."""
        self.phase, self.deadline, self.request = HEAD, None, None

    def expect_body(self, request: Any) -> None:
        self.phase, self.request = BODY, request
        self.pace.start()

    def stop_timing(self) -> None:
        self.phase, self.request = None, None

    def chunk(self, size_hint: int | None = None) -> bytes:
        if self.phase is None:
            return super().chunk(size_hint)
        if self.phase == HEAD:
            if self.deadline is None:
                self.deadline = time.monotonic() + self.header_timeout
            wait = self.deadline - time.monotonic()
            if wait <= 0 or not self._readable(wait):
                raise self._timeout()
            return super().chunk(size_hint)
        return self._body_chunk(size_hint)

    def _body_chunk(self, size_hint: int | None) -> bytes:
        """Bytes of the body, waiting for them within the body timeout and the pace."""
        wait = self.pace.wait()
        started = time.monotonic()
        readable = wait > 0 and self._readable(wait)
        self.pace.waited(time.monotonic() - started)
        if not readable:
            raise self._timeout()
        data = super().chunk(size_hint)
        self.pace.received(len(data))
        return data

    def _readable(self, wait: float) -> bool:
        pending = getattr(self.sock, "pending", None)  # TLS: bytes decrypted already
        if pending is not None and pending():
            return True
        return bool(self._poll.poll(wait * 1000))

    def _timeout(self) -> RequestReadTimeout:
        if self.phase == HEAD:
            reason = f"the request's head did not arrive within {self.header_timeout:g} s"
        elif self.pace.too_slow():
            reason = self.pace.reason()
        else:
            reason = f"no byte of the request's body arrived for {self.body_timeout:g} s"
        self.timed_out = reason
        if self.request is not None:
            self.request.force_close()  # the answer says Connection: close
        return RequestReadTimeout(reason)


class TimedConnection(TConn):
    """gunicorn's connection whose HTTP/1 parser reads through a TimedReader."""

    def __init__(self, cfg: Any, sock: socket.socket, client: Any, server: Any,
                 timeouts: tuple[float, float, float]) -> None:
        super().__init__(cfg, sock, client, server)
        self.timeouts = timeouts

    def init(self) -> None:
        fresh = not self.initialized
        super().init()
        reader = getattr(self.parser, "unreader", None)
        if fresh and not self.is_http2 and type(reader) is SocketUnreader:
            timed = TimedReader(reader.sock, *self.timeouts)
            timed.buf = reader.buf  # bytes read ahead (by an HTTP/2 preface check)
            self.parser.unreader = timed
        if fresh and type(self.parser) is RequestParser:
            serve_requests(self.parser)


def timed_reader(conn: Any) -> TimedReader | None:
    reader = getattr(getattr(conn, "parser", None), "unreader", None)
    return reader if isinstance(reader, TimedReader) else None


def timeout_answer(detail: str) -> bytes:
    """The 408 the worker sends when a request's head timed out: a problem like every
    other error of the API (the app answers a stalled body itself)."""
    from .api.problems import REQUEST_TIMEOUT, problem_body  # loaded by the app already

    body = orjson.dumps(problem_body(408, REQUEST_TIMEOUT, detail))
    head = (f"HTTP/1.1 408 Request Timeout\r\nContent-Type: {PROBLEM_MEDIA_TYPE}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    return head.encode("latin-1") + body


def hang_up(sock: socket.socket) -> None:
    """End a timed-out connection from the thread that served it: the answer is
    followed by the end of the stream, and nothing more is read.  gunicorn's main
    thread then closes it at once; it would otherwise linger up to 2 s for the client
    to hang up first, which a stalled client never does, and meanwhile accept nothing."""
    with contextlib.suppress(OSError):  # the client is gone already
        sock.shutdown(socket.SHUT_RDWR)


class LingeringThreadWorker(ThreadWorker):
    """gunicorn's ``gthread`` worker reading each request within its timeouts, whose
    threads serve a kept-alive connection's next request themselves when it arrives
    within the linger (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.linger = linger_seconds()
        self.timeouts = (*read_timeouts(), body_min_rate())
        self.write_timeout = write_timeout()
        self._busy = 0
        self._busy_lock = threading.Lock()

    def handle_quit(self, sig: int, frame: Any) -> None:
        """Quit once, whatever the number of quit signals.  Ctrl-C sends SIGINT to the
        worker and to its master, which sends it SIGQUIT at once: the second handler
        can run inside the first, while it holds the lock of the thread pool's
        shutdown, and would then wait on that lock for ever, until the master kills
        the worker at the end of its graceful timeout."""
        if getattr(self, "_quitting", False):
            return
        self._quitting = True
        super().handle_quit(sig, frame)

    def accept(self, listener: socket.socket) -> None:
        """gunicorn's ``accept``, the connection being a TimedConnection."""
        try:
            client_sock, client_addr = listener.accept()
            self.nr_conns += 1
            client_sock.setblocking(True)
            conn = TimedConnection(self.cfg, client_sock, client_addr,
                                   listener.getsockname(), self.timeouts)
            self.enqueue_req(conn)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise

    def handle(self, conn: Any) -> Any:
        with self._busy_lock:
            self._busy += 1
        try:
            keep = self._serve(conn)
            while keep is True and self._next_request_arrives(conn):
                keep = self._serve(conn)
            return keep
        finally:
            with self._busy_lock:
                self._busy -= 1

    def _serve(self, conn: Any) -> Any:
        """One request of the connection (gunicorn's ``handle``), read in time."""
        reader = timed_reader(conn)  # none yet before the first request
        if reader is not None:
            reader.expect_head()
        keep = super().handle(conn)
        reader = timed_reader(conn)
        if reader is not None and reader.timed_out:
            self.log.info("Request timeout from ip=%s: %s", _ip(conn.client),
                          reader.timed_out)
            hang_up(conn.sock)
            return False
        return keep

    def handle_request(self, req: Any, conn: Any) -> bool:
        reader = timed_reader(conn)
        if reader is None:
            return self._answer(req, conn)
        reader.expect_body(req)
        try:
            return self._answer(req, conn)
        finally:
            reader.stop_timing()

    def _answer(self, req: Any, conn: Any) -> bool:
        """gunicorn's ``handle_request``, its answer written through an AnswerSocket
        (``service.http_writes``): held while the body arrives, within the write timeout
        after.  A client over the timeout is dropped."""
        if type(conn.sock) is not socket.socket:  # TLS: gunicorn's own writes
            return super().handle_request(req, conn)
        answer = AnswerSocket(conn.sock, lambda: body_arriving(req), self.write_timeout)
        conn.sock = answer
        try:
            keep = super().handle_request(req, conn)
            answer.finish()
            return keep
        except AnswerTimeout as timeout:
            self.log.info("Write timeout to ip=%s: %s", _ip(conn.client), timeout)
            hang_up(answer.sock)
            raise
        finally:
            conn.sock = answer.sock
            answer.close_spool()
            if answer.most_held:
                self.log.debug("Answer to ip=%s held up to %d bytes while its body arrived",
                               _ip(conn.client), answer.most_held)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if not isinstance(exc, RequestReadTimeout):
            self._answer_unread(req, client, addr, exc)
            return
        with contextlib.suppress(OSError):  # gone, or not reading: nothing to tell
            client.setblocking(False)  # never wait on a client that does not read
            client.sendall(timeout_answer(exc.description or ""))

    def _answer_unread(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """gunicorn's ``handle_error`` (its log lines, its statuses), answering a problem
        instead of an HTML page: a request the worker could not read, or an error of the
        server's own outside the app (500)."""
        from .api.problems import INTERNAL_ERROR

        error = request_error(exc, self.cfg)
        if error is None:
            target = " ".join(str(part) for part in (getattr(req, "method", None),
                                                     getattr(req, "uri", None)) if part)
            self.log.exception("Error handling request %s", target or "(no URI read)")
            error = 500, INTERNAL_ERROR, "an unexpected error occurred; it has been logged"
        else:
            self.log.warning("Invalid request from ip=%s: %s", _ip(addr), exc)
        with contextlib.suppress(OSError):  # gone: nothing to tell
            client.sendall(problem_answer(*error))

    def _next_request_arrives(self, conn: Any) -> bool:
        """Whether the connection's next request is here, or arrives within the linger
        while another thread is free to take other clients' requests."""
        if not self.alive or self.linger <= 0 or getattr(conn, "is_http2", False):
            return False  # HTTP/2 (not enabled here) multiplexes: gunicorn's own path
        if conn.parser.unreader.buf.getvalue():
            return True  # read ahead already
        if self._busy >= self.cfg.threads:
            return False
        try:
            ready, _, _ = select.select([conn.sock], [], [], self.linger)
        except (OSError, ValueError):
            return False
        return bool(ready)


def _ip(client: Any) -> str:
    return client[0] if isinstance(client, tuple) and client else str(client)

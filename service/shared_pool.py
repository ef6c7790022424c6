"""One pool of worker processes shared by every process a server forks, with one queue.

Served by gunicorn, each HTTP worker could have a pool of its own, but then each gets
only its share of the cores, and a client's kept-alive connection stays with one worker:
a lone client uploading a season in batches was verified on one core of two.  So the
gunicorn master starts one pool for all of its workers (``serve_shared``):

    worker ──┐ a connection per call          ┌─► pool process ─┐
    worker ──┼──────────────► dispatcher ─────┼─► pool process ─┼─► store process
             └ (jobs in)      one FIFO queue  └─► ...           ┘

The dispatcher is a process of its own (spawned, like the pool's processes: no DuckDB
handle or lock of the master is inherited).  It puts the jobs of every connection on one
queue, in the order they came; the first pool process free takes the oldest.  So a lone
client's jobs use every process, several clients take turns, and no more jobs run at
once than there are processes.  The answers go back on the connection each job came
on, as they are done.

A call is one connection: the jobs in, their answers out, then the connection is closed.
A caller that hangs up (its request ended, its process killed, even mid-message) only
ends its own connection; its jobs not started yet are dropped from the queue.

Failures.  A pool process that ends (killed, out of memory) loses only the job it was
running: that job is answered ``("lost", why)``, and another process takes its place.
The dispatcher ending loses the jobs of every open connection (their callers see the
connection end); the owner starts another on the same socket and key, and the next
calls connect to it.  A caller that cannot connect at all is told so (``PoolClient.call``
returns None) and may do the work itself.

The pool's processes run ``function`` (``"module:name"``) on each job's arguments after
``initializer(*initargs)``.  They and the dispatcher ignore SIGINT and SIGTERM, as the
store process does: a terminal's Ctrl-C or a ``kill`` of the process group reaches every
process, and the owner stops the pool once its callers are gone.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import queue
import secrets
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from .pool import sigint_held
from .store.remote import DIR_PREFIX, remove_stale_folders
from .supervised import Served, Supervised, answer_connections

__all__ = ["Call", "PoolClient", "PoolServer", "close_shared", "serve_shared", "shared_where"]

START_TIMEOUT = 60.0  # seconds for the dispatcher to listen
HANGUP_CHECK = 0.1  # seconds between two looks at whether a waiting caller hung up
IDLE_CHECK = 1.0  # seconds between two looks at whether an idle pool process still runs
LOST = "lost"  # the answer of a job whose pool process ended while running it


def _resolve(reference: str) -> Callable[..., Any]:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


# --------------------------------------------------------------------------- the processes

def _run_jobs(conn: Connection, function: str, initializer: str | None,
              initargs: tuple) -> None:
    """A pool process: a job in, its answer out, until the dispatcher hangs up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        _resolve(initializer)(*initargs)
    run = _resolve(function)
    while True:
        try:
            args = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        try:
            answer: tuple = ("ok", run(*args))
        except Exception as error:  # noqa: BLE001 - the caller's to report
            answer = ("error", f"{type(error).__name__}: {error}")
        try:
            conn.send(answer)
        except (EOFError, OSError):
            os._exit(0)


@dataclass(frozen=True, slots=True)
class _Spec:
    """What every pool process runs."""

    processes: int
    function: str
    initializer: str | None = None
    initargs: tuple = ()


class _Caller:
    """One connection, as the dispatcher sees it: whether its caller is gone, and its
    answers, which the connection's own thread sends, so that a caller slow to read
    holds up nobody else."""

    def __init__(self) -> None:
        self.gone = False
        self.answers: queue.SimpleQueue[tuple[int, tuple]] = queue.SimpleQueue()

    def answer(self, index: int, answer: tuple) -> None:
        if not self.gone:
            self.answers.put((index, answer))


@dataclass(slots=True)
class _Job:
    caller: _Caller
    index: int
    args: tuple


def _serve_connection(conn: Connection, jobs: queue.SimpleQueue) -> None:
    """Take one call's jobs (a list of argument tuples), queue them, and send their
    answers as they come; the caller hanging up drops its jobs not started.  A message
    that is no such list is hung up on, with nothing queued."""
    caller = _Caller()
    try:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        except Exception:  # noqa: BLE001 - bytes that do not unpickle: hung up on
            return
        if not isinstance(batch, list) or not all(isinstance(a, tuple) for a in batch):
            return  # not a call: hung up on, nothing queued
        for index, args in enumerate(batch):
            jobs.put(_Job(caller, index, args))
        for _ in batch:
            while True:
                try:
                    answer = caller.answers.get(timeout=HANGUP_CHECK)
                    break
                except queue.Empty:
                    if conn.poll():  # a caller sends nothing more: this is its hang-up
                        return
            conn.send(answer)
    except (EOFError, OSError):
        pass
    finally:
        caller.gone = True
        with suppress(OSError):
            conn.close()


class _Runner:
    """One pool process, fed jobs from the queue by a thread of the dispatcher, and
    started again should it end."""

    def __init__(self, spec: _Spec, closing: threading.Event) -> None:
        self.spec = spec
        self.closing = closing  # set once the dispatcher stops: no process started then
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None

    def start(self) -> None:
        if self.closing.is_set():
            return
        context = multiprocessing.get_context("spawn")
        self.conn, child_end = context.Pipe()
        self.process = context.Process(
            target=_run_jobs, name="rummy-pool", daemon=True,
            args=(child_end, self.spec.function, self.spec.initializer, self.spec.initargs))
        with sigint_held():
            self.process.start()
        child_end.close()  # so that its end reads EOF here once the process is gone

    def run(self, job: _Job) -> tuple:
        """The job's answer, or ``(LOST, why)`` when the process ended while running
        it; a process found ended before the job was sent is started again first."""
        assert self.conn is not None and self.process is not None
        if not self.process.is_alive():
            self.restart()
        try:
            self.conn.send(job.args)
            return self.conn.recv()
        except (EOFError, OSError):
            self.process.join(5)
            return (LOST, f"the pool process ended (exit code {self.process.exitcode}) "
                          "while running this job")

    def restart(self) -> None:
        assert self.conn is not None and self.process is not None
        with suppress(OSError):
            self.conn.close()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.start()

    def feed(self, jobs: queue.SimpleQueue) -> None:
        self.start()
        while True:
            try:
                job = jobs.get(timeout=IDLE_CHECK)
            except queue.Empty:
                assert self.process is not None
                if not self.process.is_alive():  # ended while idle: replaced now
                    self.restart()
                continue
            if job.caller.gone:
                continue  # its caller hung up: nobody waits for it
            answer = self.run(job)
            job.caller.answer(job.index, answer)
            if answer[0] == LOST:
                self.restart()


def _dispatch(address: str, key: bytes, control: Connection, spec: _Spec) -> None:
    """The dispatcher process: start the pool's processes, answer every connection in
    a thread of its own, and end when the owner closes the control pipe (or dies,
    which closes it too).  It ignores SIGINT and SIGTERM: its owner ends it, after the
    callers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    jobs: queue.SimpleQueue = queue.SimpleQueue()
    closing = threading.Event()
    runners = [_Runner(spec, closing) for _ in range(spec.processes)]
    for number, runner in enumerate(runners):
        threading.Thread(target=runner.feed, args=(jobs,), name=f"feed-{number}",
                         daemon=True).start()
    with suppress(FileNotFoundError):
        os.unlink(address)  # left by the dispatcher this one replaces
    listener = Listener(address, family="AF_UNIX", authkey=key)
    threading.Thread(target=answer_connections,
                     args=(listener, lambda conn: _serve_connection(conn, jobs)),
                     daemon=True).start()
    control.send(("ready", os.getpid()))
    with suppress(EOFError, OSError):
        control.recv()  # a close request, or EOFError when the owner is gone
    closing.set()
    for runner in runners:  # each ends on reading EOF, once its job is done
        if runner.conn is not None:
            with suppress(OSError):
                runner.conn.close()
    deadline = time.monotonic() + 30
    for runner in runners:
        if runner.process is not None:
            runner.process.join(max(0.0, deadline - time.monotonic()))
            if runner.process.is_alive():
                runner.process.kill()
    os._exit(0)  # the connection threads are daemons blocked on their sockets


# --------------------------------------------------------------------------- the owner

class PoolServer(Supervised):
    """The dispatcher and its pool (see the module), started by this process and
    started again, on the same socket and key, should the dispatcher end on its own
    (``on_lost`` is called first).  The pool's processes start with it."""

    what = "the verifying pool's dispatcher"

    def __init__(self, processes: int, function: str, initializer: str | None = None,
                 initargs: tuple = ()) -> None:
        if processes < 1:
            raise ValueError("a pool has at least one process")
        self.spec = _Spec(processes, function, initializer, tuple(initargs))
        remove_stale_folders()
        self._dir = tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-pool")
        self.address = os.path.join(self._dir, "pool.sock")
        self.key = secrets.token_bytes(32)
        self.start_timeout = START_TIMEOUT
        self.restart = True
        self.daemon = False
        self._supervise("pool-watch")

    @property
    def where(self) -> tuple[str, bytes]:
        return self.address, self.key

    def _child(self, control: Connection) -> tuple[Callable[..., None], str, tuple]:
        return _dispatch, "rummy-pool-dispatcher", (self.address, self.key, control,
                                                    self.spec)


# --------------------------------------------------------------------------- the callers

class Call:
    """Jobs sent in one call; ``answers`` waits for them all."""

    def __init__(self, conn: Connection, count: int) -> None:
        self._conn = conn
        self._count = count

    def answers(self) -> list[tuple]:
        """Each job's answer, in the order of the jobs: ``("ok", value)``,
        ``("error", message)`` when the function raised, or ``("lost", why)`` when its
        process or the dispatcher ended before it answered."""
        got: dict[int, tuple] = {}
        try:
            while len(got) < self._count:
                index, answer = self._conn.recv()
                got[index] = answer
        except (EOFError, OSError):
            pass
        finally:
            self._conn.close()
        lost = (LOST, "the verifying pool's dispatcher ended before answering")
        return [got.get(index, lost) for index in range(self._count)]


class PoolClient:
    """Calls to a shared pool by its address and key (``PoolServer.where``), from any
    thread of any process."""

    def __init__(self, address: str, key: bytes) -> None:
        self.address = address
        self.key = key

    def call(self, jobs: list[tuple]) -> Call | None:
        """Send the jobs (each a tuple of the function's arguments); None when the pool
        cannot be reached (the dispatcher being started again, or gone)."""
        try:
            conn = Client(self.address, family="AF_UNIX", authkey=self.key)
        except (OSError, EOFError, multiprocessing.AuthenticationError):
            return None
        try:
            conn.send(jobs)
        except (OSError, EOFError):
            conn.close()
            return None
        return Call(conn, len(jobs))


# --------------------------------------------------------------------------- shared

_SHARED = Served()  # in the gunicorn master, and inherited by its workers


def serve_shared(processes: int, function: str, initializer: str | None = None,
                 initargs: tuple = ()) -> PoolServer:
    """Start the pool for the processes this one forks (the gunicorn master, before its
    workers)."""
    return _SHARED.serve(lambda: PoolServer(processes, function, initializer, initargs))


def shared_where() -> tuple[str, bytes, int] | None:
    """In a forked child: the address, key and size of the pool its parent serves."""
    pool = _SHARED.inherited()
    if not isinstance(pool, PoolServer):
        return None
    return pool.address, pool.key, pool.spec.processes


def shared_pid() -> int | None:
    """The dispatcher's process id, in the process that serves it."""
    pool = _SHARED.owned()
    return pool.pid if pool is not None else None


def close_shared() -> None:
    """Stop the shared pool (the gunicorn master, once its workers are gone)."""
    _SHARED.close()

"""A process that this one spawns and owns through a control pipe, and starts again
should it end on its own: the store process (``service.store.remote``) and the
verifying pool's dispatcher (``service.shared_pool``).

The child is spawned (a fresh interpreter, never a fork: no DuckDB handle, lock or
thread of the owner is inherited) with SIGINT blocked while it starts (``sigint_held``),
sends one message on the control pipe once it is ready (``("ready", …)``, or why it
cannot start), and ends when the owner closes the pipe or sends on it, or dies, which
closes it too.  A forked child of the owner lets go of its copy of the pipe
(``forget_after_fork``), so that the process still ends with its owner.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import shutil
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from multiprocessing.connection import Connection, Listener, wait
from typing import Any, TypeVar

from .pool import sigint_held

RESTART_PAUSE = 1.0  # seconds between two attempts to start a lost process again


def answer_connections(listener: Listener, answer: Callable[[Connection], None]) -> None:
    """In the child: accept connections for ever, each answered in a thread of its own
    by ``answer(conn)``; one that fails the key exchange, or goes away during it, is
    skipped."""
    while True:
        try:
            conn = listener.accept()
        except (OSError, EOFError, multiprocessing.AuthenticationError):
            continue
        threading.Thread(target=answer, args=(conn,), daemon=True).start()


class Supervised:
    """The owner's side.  A subclass sets ``_dir`` (a private folder, removed at close),
    ``start_timeout``, ``restart`` (start the process again should it end on its own,
    after ``on_lost``) and ``daemon`` (end it with this process at its exit: never when
    the owner forks, since a forked child's exit would end it too), defines ``_child``,
    then calls ``_supervise``."""

    failure: type[Exception] = RuntimeError  # a start that failed; a restart tries again
    what = "the process"  # as the errors name it
    _dir: str
    start_timeout: float
    restart: bool
    daemon: bool

    def _child(self, control: Connection) -> tuple[Callable[..., None], str, tuple]:
        """The child's function, process name and arguments, given its end of the pipe."""
        raise NotImplementedError

    def _ready(self, status: str, detail: Any) -> None:
        """The child's first message: raise when it could not start."""
        if status != "ready":
            raise self.failure(detail)

    def _supervise(self, watcher: str) -> None:
        """Start the process, and a thread that watches it."""
        self.on_lost: Callable[[], None] | None = None
        self.on_restarted: Callable[[], None] | None = None  # another one started
        self.restarts = 0
        self._owner = os.getpid()
        self._closed = False
        try:
            self._launch()
        except BaseException:
            shutil.rmtree(self._dir, ignore_errors=True)
            raise
        threading.Thread(target=self._watch, name=watcher, daemon=True).start()

    @property
    def pid(self) -> int | None:
        """The process's id (a new one after a restart)."""
        return self._process.pid

    def _launch(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._control, child_end = context.Pipe()
        target, name, args = self._child(child_end)
        self._process = context.Process(target=target, name=name, daemon=self.daemon,
                                        args=args)
        with sigint_held():
            self._process.start()
        child_end.close()
        if not self._control.poll(self.start_timeout):
            self._end_process(wait=0)
            raise self.failure(f"{self.what} did not start within {self.start_timeout:g} s")
        try:
            status, detail = self._control.recv()
        except EOFError:
            status, detail = "failed", f"{self.what} ended at start-up"
        try:
            self._ready(status, detail)
        except BaseException:
            self._end_process()
            raise

    def _watch(self) -> None:
        """Call ``on_lost`` if the process ends without being closed (killed, or out of
        memory); with ``restart``, start another, again until one starts, then call
        ``on_restarted``."""
        while True:
            wait([self._process.sentinel])
            if self._closed:
                return
            if self.on_lost is not None:
                self.on_lost()
            if not self.restart:
                return
            with suppress(OSError):
                self._control.close()
            while not self._closed:
                try:
                    self._launch()
                    self.restarts += 1
                    if self.on_restarted is not None:
                        self.on_restarted()
                    break
                except self.failure:
                    time.sleep(RESTART_PAUSE)  # e.g. the dead one's file lock not yet freed
            if self._closed:
                self._end_process()
                return

    def forget_after_fork(self) -> None:
        """In a forked child (a gunicorn worker): close the child's copy of the control
        pipe, so that the process still ends when its owner does."""
        self._closed = True
        with suppress(OSError):
            self._control.close()
        # Not this child's child: multiprocessing would join it at this process's exit.
        multiprocessing.process._children.discard(self._process)  # type: ignore[attr-defined]

    def close(self) -> None:
        """Ask the process to end (it finishes what it does first) and wait for it."""
        if self._closed:
            return
        self._closed = True
        with suppress(OSError):
            self._control.send(("close", None))
        self._end_process()
        shutil.rmtree(self._dir, ignore_errors=True)

    def _end_process(self, wait: float = 60) -> None:
        self._process.join(wait)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._control.close()


S = TypeVar("S", bound=Supervised)


class Served:
    """The one process of a kind that a server starts for the processes it forks (the
    gunicorn master, before its workers): owned by the process that serves it, and
    inherited by its forked children, which let go of its pipe."""

    def __init__(self) -> None:
        self.process: Supervised | None = None

    def serve(self, start: Callable[[], S]) -> S:
        """Start the process (``start()``), closed at this process's exit."""
        if self.process is not None:
            raise RuntimeError(f"{self.process.what} is served already")
        process = self.process = start()
        os.register_at_fork(after_in_child=self._after_fork)
        atexit.register(self.close)  # before multiprocessing's own exit handler joins it
        return process

    def _after_fork(self) -> None:
        if (process := self.inherited()) is not None:
            process.forget_after_fork()

    def owned(self) -> Supervised | None:
        """The process, in the process that serves it."""
        process = self.process
        return process if process is not None and process._owner == os.getpid() else None

    def inherited(self) -> Supervised | None:
        """The process, in a forked child of the process that serves it."""
        process = self.process
        return process if process is not None and process._owner != os.getpid() else None

    def close(self) -> None:
        """Close the process (its owner, once the children are gone)."""
        if (process := self.owned()) is not None:
            process.close()
        self.process = None

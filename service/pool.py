"""The processes that do the CPU work of many games at once: verifying a batch's lines
(``service.api.verifier``) and generating synthetic games (``service.loader``).

One kind of pool for both, with the same guarantees:

- **Fresh interpreters** (spawn), never a fork: no DuckDB handle, lock or thread of the
  parent is ever inherited.
- **Ctrl-C is the parent's business.**  A terminal's Ctrl-C reaches the whole process
  group; a pool process ignores it (and has SIGINT blocked while it starts, see
  :func:`sigint_held`), and its parent shuts it down.
- **Order never depends on timing**: :meth:`Pool.ordered` gives the results in the order
  of the jobs, with a bounded number of jobs in flight.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

__all__ = ["Pool", "sigint_held"]


@contextmanager
def sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread while it starts processes.  A process started
    meanwhile inherits the mask, so a terminal's Ctrl-C, which reaches the whole
    process group, never interrupts it, even while it is still importing; its parent
    ends it.  (Only this thread's mask: the parent itself still takes the signal.)"""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _start(initializer: Callable[..., None] | None, initargs: tuple) -> None:
    """A pool process starts: SIGINT ignored from now on, then the caller's set-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)


class Pool:
    """``processes`` spawned worker processes, each set up once by ``initializer``
    (a module-level function, called with ``initargs``)."""

    def __init__(self, processes: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple = ()):
        if processes < 1:
            raise ValueError("a pool has at least one process")
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start, initargs=(initializer, initargs))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run ``fn(*args)`` in a pool process (a submit may start one)."""
        if self._executor is None:
            raise RuntimeError("the pool is closed")
        with sigint_held():
            return self._executor.submit(fn, *args)

    def ordered(self, fn: Callable[..., Any], jobs: Iterable[tuple],
                ahead: int) -> Iterator[Any]:
        """``fn(*job)`` for each job, yielded in the order of the jobs, with at most
        ``ahead`` of them submitted and not yet yielded.  A job's exception is raised
        here, in its turn; so is ``BrokenProcessPool`` when a process died."""
        waiting: deque[Future] = deque()
        try:
            for job in jobs:
                waiting.append(self.submit(fn, *job))
                if len(waiting) >= ahead:
                    yield waiting.popleft().result()
            while waiting:
                yield waiting.popleft().result()
        finally:
            for future in waiting:
                future.cancel()

    def close(self) -> None:
        """Stop the processes, dropping the jobs not started; waits for the others."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

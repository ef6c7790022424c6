"""Cores for verification, shared by the verifying pools of every HTTP worker.

Each worker has its pool, and a client's kept-alive connection stays with the worker
that accepted it: pools sized to their share of the cores left one bulk client with
that share only, and a few clients split unevenly over the workers with one pool
busy while another idled.  So every worker's pool may use every core, and these slots,
one per core for the whole service, say how many jobs run at once: a pool process
takes a slot before it judges a part of a batch and gives it back when done, so that
together the pools never run more jobs than there are cores (more made every other
request wait), and a part waits for whichever slot frees first, from any worker.

A slot is a file lock (``flock``) on a file of a folder the gunicorn master makes:
any process that knows the folder takes slots, and the kernel frees a slot whose
holder dies, so a killed pool process never leaves one taken.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

POLL = 0.002  # seconds between two looks for a free slot while every one is taken


def slot_files(folder: str | Path, count: int) -> list[Path]:
    """The files of ``count`` slots in ``folder``."""
    return [Path(folder) / f"slot-{k}.lock" for k in range(count)]


def make_slots(folder: str | Path, count: int) -> tuple[str, int]:
    """Make the files of ``count`` slots in ``folder`` (the master: it takes none, so
    it keeps none open, and the workers it forks inherit nothing); what a process needs
    to open them (``Slots(*made)``)."""
    if count < 1:
        raise ValueError("there is at least one slot")
    for path in slot_files(folder, count):
        path.touch(mode=0o600, exist_ok=True)
    return str(folder), count


class Slots:
    """``count`` slots in ``folder`` (their files made there when missing), as one
    process sees them: it opens each file once, and takes a slot by locking it."""

    def __init__(self, folder: str | Path, count: int):
        if count < 1:
            raise ValueError("there is at least one slot")
        self.folder = Path(folder)
        self.count = count
        self._fds = [os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                     for path in slot_files(folder, count)]
        self._mine: set[int] = set()  # the slots this process holds
        self._lock = threading.Lock()
        self._next = 0

    @contextmanager
    def held(self) -> Iterator[int]:
        """A slot for the time of the block (its number), waited for while every one
        is taken."""
        number = self.take()
        try:
            yield number
        finally:
            self.give_back(number)

    def take(self) -> int:
        """Take a free slot, waiting until one is; its number."""
        while True:
            number = self.take_free()
            if number is not None:
                return number
            time.sleep(POLL)

    def take_free(self) -> int | None:
        """Take a slot if one is free now; its number, or None."""
        with self._lock:
            start, self._next = self._next, (self._next + 1) % self.count
            for k in range(self.count):
                number = (start + k) % self.count
                if number in self._mine:
                    continue  # a lock is the process's: locking it again would succeed
                try:
                    fcntl.flock(self._fds[number], fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                self._mine.add(number)
                return number
        return None

    def give_back(self, number: int) -> None:
        with self._lock:
            if number in self._mine:
                fcntl.flock(self._fds[number], fcntl.LOCK_UN)
                self._mine.discard(number)

    def close(self) -> None:
        """Give back every slot held, and close the files."""
        with self._lock:
            for fd in self._fds:
                os.close(fd)  # closing a file drops its lock
            self._fds = []
            self._mine.clear()

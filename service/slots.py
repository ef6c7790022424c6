"""Cores for verification, shared by the verifying pools of every HTTP worker.

Each worker has its pool, and a client's kept-alive connection stays with the worker
that accepted it: pools sized to their share of the cores left one bulk client with
that share only, and a few clients split unevenly over the workers with one pool
busy while another idled.  So every worker's pool may use every core, and these slots,
one per core for the whole service, say how many jobs run at once: a job takes a
slot before it goes to a pool and gives it back when done, so that together the pools
never run more jobs than there are cores (more made every other request wait).

A slot is a file lock (``flock``) on a file of a folder the gunicorn master makes:
any process that knows the folder takes slots, and the kernel frees a slot whose
holder dies, so a killed worker never leaves one taken.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

POLL = (0.001, 0.02)  # seconds between two looks for a free slot: first, and at most


class Slot:
    """One slot taken; ``release`` gives it back (once; again does nothing)."""

    def __init__(self, fd: int):
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the file drops its lock

    __del__ = release  # a slot forgotten is given back, not held until the process ends


class Slots:
    """``count`` slots in ``folder`` (made there when missing)."""

    def __init__(self, folder: str | Path, count: int):
        if count < 1:
            raise ValueError("there is at least one slot")
        self.folder = Path(folder)
        self.count = count
        self._paths = [self.folder / f"slot-{k}.lock" for k in range(count)]
        for path in self._paths:
            path.touch(exist_ok=True)
        self._next = 0

    def take(self, wanted: int) -> list[Slot]:
        """At least one slot and at most ``wanted``, waiting until one is free; the
        others are taken only if free now."""
        pause = POLL[0]
        while True:
            taken = self.take_free(wanted)
            if taken:
                return taken
            time.sleep(pause)
            pause = min(POLL[1], pause * 2)

    def take_free(self, wanted: int) -> list[Slot]:
        """The slots free now, at most ``wanted`` (none when all are taken)."""
        taken: list[Slot] = []
        start = self._next
        self._next = (self._next + 1) % self.count  # spread the first look
        for k in range(self.count):
            if len(taken) >= wanted:
                break
            fd = os.open(self._paths[(start + k) % self.count], os.O_RDWR | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            taken.append(Slot(fd))
        return taken

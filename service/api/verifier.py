"""Verifying uploaded lines, in a pool of processes when there are cores to spare.

The service runs one process (one DuckDB writer), so its threads share one interpreter
lock; verification is pure CPU work and would take turns with HTTP and the writer.  A
batch's lines are therefore verified in ``RUMMY_VERIFY_PROCESSES`` worker processes
(default: the cores but one; 0 verifies in the request thread), which hand back the
finished rows for the one writer.  The pool uses fresh interpreters (spawn), never a
fork of the serving process, so no DuckDB handle or lock is inherited.
"""

from __future__ import annotations

import multiprocessing
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..engine import LogValidationError
from ..store import GameRecord
from .intake import check_log
from .problems import INTERNAL_ERROR, PAYLOAD_TOO_LARGE, VALIDATION_ERROR, problem_body


@dataclass(slots=True)
class Entry:
    """One input line, judged: its record and verdict to store, or its error (and, for an
    unexpected failure, the traceback to log on the server)."""

    line: int
    record: GameRecord | None = None
    status: str | None = None
    error: dict[str, Any] | None = None
    log: str | None = None


def judge(line: int, text: bytes | None, limit: int, uploader: str | None) -> Entry:
    if text is None:
        return Entry(line, error=problem_body(413, PAYLOAD_TOO_LARGE,
                                              f"the line is larger than {limit} bytes"))
    try:
        checked = check_log(text, limit)
        return Entry(line, checked.record(uploader), checked.report.status)
    except LogValidationError as error:
        return Entry(line, error=problem_body(422, VALIDATION_ERROR, "the line is not a valid "
                                              "rummy-log/1 game", error.errors))
    except Exception:
        return Entry(line, error=problem_body(500, INTERNAL_ERROR, "an unexpected error "
                                              "occurred on this line; it has been logged"),
                     log=traceback.format_exc())


def judge_all(items: list[tuple[int, bytes | None]], limit: int,
              uploader: str | None) -> list[Entry]:
    return [judge(line, text, limit, uploader) for line, text in items]


class Verifier:
    """Judges lines in order, spread over the pool's processes when there is a pool."""

    def __init__(self, processes: int):
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        if processes > 0:
            self._pool = ProcessPoolExecutor(
                max_workers=processes, mp_context=multiprocessing.get_context("spawn"))

    def judge(self, items: list[tuple[int, bytes | None]], limit: int,
              uploader: str | None) -> list[Entry]:
        if self._pool is None or len(items) < 2:
            return judge_all(items, limit, uploader)
        size = -(-len(items) // self.processes)
        parts = [items[i:i + size] for i in range(0, len(items), size)]
        futures = [self._pool.submit(judge_all, part, limit, uploader) for part in parts]
        return [entry for future in futures for entry in future.result()]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

"""Verifying uploaded lines in a pool of processes.

The service runs one process (one DuckDB writer), so its threads share one interpreter
lock; verification is pure CPU work and would take turns with HTTP and the writer.  A
batch's lines are therefore verified in ``RUMMY_VERIFY_PROCESSES`` worker processes
(default: one per core; 0 verifies in the request thread), which build the Arrow rows
and stage them in the store process themselves, without waiting for the commit: the
request commits the staged rows of its parts with their tickets, in its lines' order
(so that a batch's games are numbered as its lines are, whichever process finished
first), and the process judges the next part meanwhile (handing rows over so, measured
over six alternating pairs: 2,637 against 2,430 four-player Rummy deals/s, medians).  Without a store process the rows come back for the one writer.
One process per core rather than one fewer: while a batch is verified the serving
process mostly waits for the pool (measured: 2,100-2,500 four-player Rummy deals/s with
two processes on two cores, 1,500-1,600 with one).  The pool uses fresh interpreters
(spawn), never a fork of the serving process, so no DuckDB handle or lock is inherited:
the pool is ``service.pool``'s, which the synthetic loader uses too.

Served by gunicorn, the workers share one pool that the master starts
(``SharedVerifier``, ``service.shared_pool``): its processes take the parts of every
worker from one queue, in order, so a lone client's batch uses every core.
"""

from __future__ import annotations

import gc
import os
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from ..engine import LogValidationError, load_json
from ..engine.words import plural
from ..pool import Pool
from ..shared_pool import LOST, PoolClient
from ..store import Answer, GameRecord, GameRows, StoreError, game_rows
from ..store.remote import StoreClient
from .games_schemas import REASON_RULE, director_reason
from .intake import check_document, check_log
from .problems import (
    INTERNAL_ERROR,
    PAYLOAD_TOO_LARGE,
    VALIDATION_ERROR,
    VERIFIER_UNAVAILABLE,
    problem_body,
    validation_problem,
)


@dataclass(slots=True)
class Entry:
    """One input line, judged: the id and verdict of its game (whose rows travel in the
    chunk's ``GameRows``), or its error (and, for an unexpected failure, the traceback
    to log on the server).  ``bad``: the line is no valid game (malformed, or over the
    size limit)."""

    line: int
    id: str | None = None
    status: str | None = None
    error: dict[str, Any] | None = None
    log: str | None = None
    bad: bool = False
    source_id: str | None = None  # the log's own id, to name the game by in the answer
    tournament: dict[str, Any] | None = None  # the log's {id, round, table}, if any
    verification: str | None = None  # moves, results or mixed (``engine.report``)
    # A line of the envelope {"replaces", "reason", "log"}: the game to withdraw, why,
    # and the new game's record, which the request stores with the withdrawal in one
    # transaction (it is never among the chunk's rows).
    replaces: str | None = None
    reason: str | None = None
    record: GameRecord | None = None
    relocate: bool = False  # the correction may name another variant or place


ENVELOPE = frozenset(("replaces", "reason", "log", "relocate"))
MAX_GAME_ID = 64  # characters of a game id to replace, as the single upload's 'replaces'


def _envelope(text: bytes, limit: int) -> dict[str, Any] | None:
    """A line that is no valid log, decoded when it is an envelope: an object with
    "replaces", a key no log has (a log's keys are closed).  Only a line holding that
    text, or an escape that may spell it, is decoded again."""
    if b"replaces" not in text and b"\\u" not in text:
        return None
    try:
        document = load_json(text, limit)
    except LogValidationError:
        return None
    return document if isinstance(document, dict) and "replaces" in document else None


def _enveloped(line: int, envelope: dict[str, Any], uploader: str | None,
               uploaded_at: datetime | None) -> tuple[Entry, GameRecord | None]:
    """An envelope judged: its game to replace, its reason and its log, every field's
    errors together (the log's under ``log.``)."""
    errors: dict[str, list[str]] = {}
    for key in sorted(set(envelope) - ENVELOPE):
        errors[key] = ["Unknown field."]
    old, reason, log = envelope.get("replaces"), envelope.get("reason"), envelope.get("log")
    if not isinstance(old, str) or not 1 <= len(old) <= MAX_GAME_ID:
        errors["replaces"] = [f"the id of the game to replace: a string of 1 to "
                              f"{MAX_GAME_ID} characters"]
    reason = director_reason(reason)
    if reason is None:
        errors["reason"] = [f"why the game is replaced: {REASON_RULE}"]
    relocate = envelope.get("relocate", False)
    if not isinstance(relocate, bool):
        errors["relocate"] = ["true when the correction may name another variant, "
                              "tournament, round or table: a boolean"]
    checked = None
    if not isinstance(log, dict):
        errors["log"] = ["the corrected rummy-log/1 game, a JSON object"]
    else:
        try:
            checked = check_document(log, orjson.dumps(log))
        except LogValidationError as error:
            errors.update({f"log.{path}" if path else "log": messages
                           for path, messages in error.errors.items()})
    if errors or checked is None:
        detail, shown = validation_problem("the line is not a valid replacement "
                                           "{\"replaces\", \"reason\", \"log\"}", errors)
        return Entry(line, error=problem_body(422, VALIDATION_ERROR, detail, shown),
                     bad=True), None
    record = checked.record(uploader, uploaded_at)
    return Entry(line, record.id, checked.report.status, source_id=checked.source_id,
                 tournament=checked.tournament, verification=checked.report.verification,
                 replaces=old, reason=reason, record=record,
                 relocate=relocate is True), None


def judge(line: int, text: bytes | None, limit: int, uploader: str | None,
          uploaded_at: datetime | None = None) -> tuple[Entry, GameRecord | None]:
    if text is None:
        return Entry(line, error=problem_body(413, PAYLOAD_TOO_LARGE,
                                              f"the line is larger than {plural(limit, 'byte')}"),
                     bad=True), None
    try:
        try:
            checked = check_log(text, limit)
        except LogValidationError:
            envelope = _envelope(text, limit)
            if envelope is None:
                raise
            return _enveloped(line, envelope, uploader, uploaded_at)
        record = checked.record(uploader, uploaded_at)
        return Entry(line, record.id, checked.report.status, source_id=checked.source_id,
                     tournament=checked.tournament,
                     verification=checked.report.verification), record
    except LogValidationError as error:
        detail, errors = validation_problem("the line is not a valid rummy-log/1 game",
                                            error.errors)
        return Entry(line, error=problem_body(422, VALIDATION_ERROR, detail, errors),
                     bad=True), None
    except Exception:
        return Entry(line, error=problem_body(500, INTERNAL_ERROR, "an unexpected error "
                                              "occurred on this line; it has been logged"),
                     log=traceback.format_exc()), None


def judge_all(items: list[tuple[int, bytes | None]], limit: int, uploader: str | None,
              uploaded_at: datetime | None = None) -> tuple[list[Entry], GameRows]:
    """Every line judged, and the rows of its good games in line order (an envelope's
    game is not among them: its entry carries its record)."""
    judged = [judge(line, text, limit, uploader, uploaded_at) for line, text in items]
    rows = game_rows([record for _, record in judged if record is not None])
    return [entry for entry, _ in judged], rows


@dataclass(slots=True)
class Part:
    """Consecutive lines of a chunk, judged by one process: the rows of their good games
    still to store, or, when that process staged them in the store process itself, the
    ticket they are committed with; then the answers (or why there are none)."""

    entries: list[Entry]
    rows: GameRows | None = None
    ticket: str | None = None
    answers: list[Answer] | None = None
    failure: str | None = None
    replaced: dict[int, dict[str, Any]] | None = None  # the result of each envelope line


_STORE: StoreClient | None = None  # in a pool process: the store process, if any


def connect_to_store(where: tuple[str, bytes] | None) -> None:
    """A pool process starts: it connects to the store process, if there is one, and
    ends with the process that started it (``_end_with_parent``)."""
    global _STORE
    _STORE = StoreClient(*where) if where is not None else None
    _end_with_parent(os.getppid())


PARENT_CHECK = 1.0  # seconds between two looks at whether the pool's parent still runs


def _end_with_parent(parent: int) -> None:
    """Exit once ``parent`` is gone.  A worker killed outright (gunicorn's timeout, out
    of memory) never shuts its pool down, and the pool's processes, waiting on a queue
    they themselves hold open, would otherwise live on, each with a connection to the
    store process, one pool more for every worker replaced."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def judge_part(items: list[tuple[int, bytes | None]], limit: int,
               uploader: str | None, direct: bool = True,
               uploaded_at: datetime | None = None) -> Part:
    """In a pool process: judge the lines, and stage their good games straight in the
    store process when this process can reach it and ``direct`` allows it (the rows
    never travel through the HTTP worker), without waiting for the commit: the process
    judges the next part meanwhile, and the request commits the staged rows with the
    ticket, in line order.
    Without ``direct`` the rows come back: the request may store only some of them (a
    batch that stops at a malformed line stores nothing after it).

    The cyclic garbage collector is paused while judging: a chunk allocates hundreds of
    thousands of small objects and no cycles, and the collections it would trigger cost
    more than the verification itself on large chunks.  (Only here: in the serving
    process the pause would hold for every thread.)"""
    gc.disable()
    try:
        entries, rows = judge_all(items, limit, uploader, uploaded_at)
    finally:
        gc.enable()
    if _STORE is None or not direct or any(entry.record is not None for entry in entries):
        return Part(entries, rows=rows)  # a replacement is stored by the request, in order
    if not len(rows):
        return Part(entries, answers=[])
    try:
        return Part(entries, ticket=_STORE.stage(rows))
    except StoreError as error:
        return Part(entries, failure=str(error))


Lines = list[tuple[int, bytes | None]]  # (line number, text; None: over the size limit)


def _split(items: Lines, parts: int) -> list[Lines]:
    """The lines in at most ``parts`` runs of consecutive lines, as even as can be."""
    size = -(-len(items) // parts)
    return [items[i:i + size] for i in range(0, len(items), size)]


def _judged_here(items: list[tuple[int, bytes | None]], limit: int, uploader: str | None,
                 uploaded_at: datetime | None) -> Callable[[], list[Part]]:
    entries, rows = judge_all(items, limit, uploader, uploaded_at)
    parts = [Part(entries, rows=rows)]
    return lambda: parts


class Verifier:
    """Judges lines in order, spread over the pool's processes when there is a pool.
    ``store_at``: the address and key of the store process, which the pool's processes
    then write to themselves."""

    def __init__(self, processes: int, store_at: tuple[str, bytes] | None = None):
        self.processes = processes
        self._pool = Pool(processes, connect_to_store, (store_at,)) if processes > 0 else None

    def submit(self, items: list[tuple[int, bytes | None]], limit: int,
               uploader: str | None, direct: bool = True,
               uploaded_at: datetime | None = None) -> Callable[[], list[Part]]:
        """Send the lines to be judged; the function returned waits for them, in order,
        as one part per process used.  Without a pool they are judged here, now.
        ``direct``: the pool's processes may stage the good games themselves (see
        ``judge_part``).  ``uploaded_at``: the upload time of every game (one for a
        whole request; now when not given)."""
        if self._pool is None or len(items) < 2:
            return _judged_here(items, limit, uploader, uploaded_at)
        futures = [self._pool.submit(judge_part, chunk, limit, uploader, direct, uploaded_at)
                   for chunk in _split(items, self.processes)]
        return lambda: [future.result() for future in futures]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


class SharedVerifier:
    """Judges lines in the one pool the gunicorn master serves for all of its workers
    (``service.shared_pool``): a chunk's lines go in as many parts as the pool has
    processes, onto the queue every worker's parts share, so that a lone client's batch
    uses every process.  Should the pool be out of reach (its dispatcher being started
    again), the lines are judged in the request thread."""

    def __init__(self, address: str, key: bytes, processes: int):
        self.processes = processes
        self._client = PoolClient(address, key)

    def submit(self, items: list[tuple[int, bytes | None]], limit: int,
               uploader: str | None, direct: bool = True,
               uploaded_at: datetime | None = None) -> Callable[[], list[Part]]:
        """As ``Verifier.submit``.  A part whose process ended while judging it comes
        back with a 503 for each of its lines (none of its games is stored: its rows
        are only staged once the whole part is judged)."""
        if len(items) < 2:
            return _judged_here(items, limit, uploader, uploaded_at)
        chunks = _split(items, self.processes)
        call = self._client.call([(chunk, limit, uploader, direct, uploaded_at)
                                  for chunk in chunks])
        if call is None:
            return _judged_here(items, limit, uploader, uploaded_at)
        return lambda: [_part_of(answer, chunk)
                        for answer, chunk in zip(call.answers(), chunks, strict=True)]

    def close(self) -> None:
        """Nothing to stop: the pool is the master's."""


def _part_of(answer: tuple, chunk: list[tuple[int, bytes | None]]) -> Part:
    """A shared pool's answer as a part: the judged part, or an error for each line."""
    status, value = answer
    if status == "ok":
        return value
    if status == LOST:
        error = problem_body(503, VERIFIER_UNAVAILABLE, "the line could not be verified: "
                             f"{value}; send it again")
        return Part([Entry(line, error=error) for line, _ in chunk])
    error = problem_body(500, INTERNAL_ERROR, "an unexpected error occurred on this line; "
                         "it has been logged")
    entries = [Entry(line, error=error) for line, _ in chunk]
    entries[0].log = value  # logged once for the part
    return Part(entries)

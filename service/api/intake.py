"""Taking logs in: media types, bounded body reads, and verification into a record.

Shared by the single upload and the NDJSON batch so both judge a log the same way.
A body is never read past its limit: a declared Content-Length over the limit is refused
before reading, and a body without one (chunked) is read only up to the limit plus one
byte.  A gzip body (``coding``) is inflated as it is read, and its limit is that of the
inflated bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

from flask import request

from ..engine import load_json, parse_game, verify
from ..engine.model import Game
from ..engine.report import Report
from ..engine.words import plural
from ..store import GameRecord, build_record, game_id
from ..store.stats import tournament_of
from .coding import Gunzip, content_coding, request_body
from .problems import PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, Problem

JSON_TYPES = ("application/json",)
NDJSON_TYPES = ("application/x-ndjson", "application/ndjson")
BLOCK = 1 << 16  # bytes read from the request stream at a time

class BodyTooLarge(Problem):
    """413: the body (or a line of it) is over its size limit."""

    def __init__(self, limit: int, what: str = "the body") -> None:
        super().__init__(413, PAYLOAD_TOO_LARGE, f"{what} is larger than {plural(limit, 'byte')}")
        self.limit = limit


def require_media_type(allowed: tuple[str, ...]) -> None:
    """A 415 problem unless the request's Content-Type is one of ``allowed``."""
    if request.mimetype not in allowed:
        sent = request.mimetype or "no Content-Type"
        raise Problem(415, UNSUPPORTED_MEDIA_TYPE,
                      f"{sent} is not accepted here; send {' or '.join(allowed)}",
                      headers={"Accept-Post": ", ".join(allowed)})


def read_body(limit: int) -> bytes:
    """The whole request body, at most ``limit`` bytes (inflated), else BodyTooLarge."""
    coding = content_coding()
    if request.content_length is not None and request.content_length > limit:
        raise BodyTooLarge(limit)
    request.max_content_length = limit + 1
    stream = request_body(coding)
    chunks: list[bytes] = []
    size = 0
    while True:
        block = stream.read(min(BLOCK, limit + 1 - size))
        if not block:
            return b"".join(chunks)
        size += len(block)
        if size > limit:
            raise BodyTooLarge(limit)
        chunks.append(block)


def iter_lines(stream: IO[bytes] | Gunzip, line_limit: int,
               total_limit: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number from 1, line without its newline) for each line of ``stream``;
    None for a line over ``line_limit`` (skipped without being kept in memory).
    Raises BodyTooLarge when more than ``total_limit`` bytes arrive; the lines before
    have been yielded by then."""
    number, total, skipping = 0, 0, False
    buffer = bytearray()
    while True:
        block = stream.read(BLOCK)
        if not block:
            break
        total += len(block)
        if total > total_limit:
            raise BodyTooLarge(total_limit)
        start = 0
        while True:
            end = block.find(b"\n", start)
            if not skipping:
                buffer += block[start:end if end >= 0 else len(block)]
                if len(buffer) > line_limit:
                    skipping = True
                    buffer.clear()
            if end < 0:
                break
            number += 1
            yield number, None if skipping else bytes(buffer)
            buffer.clear()
            skipping = False
            start = end + 1
    if buffer or skipping:
        yield number + 1, None if skipping else bytes(buffer)


@dataclass(slots=True)
class Checked:
    """One verified log, ready to store."""

    document: dict[str, Any]
    raw: bytes
    game: Game
    report: Report
    id: str  # game_id(document): the same for the same log however formatted

    @property
    def source_id(self) -> str | None:
        """The log's own id, if it has one."""
        return self.document.get("id")

    @property
    def tournament(self) -> dict[str, Any] | None:
        """The log's tournament as every answer names it: {id, round, table}, or None."""
        given = self.document.get("tournament") or {}
        return tournament_of(given.get("id"), given.get("round"), given.get("table"))

    def record(self, uploader: str | None, uploaded_at: datetime | None = None) -> GameRecord:
        """Its rows; ``uploaded_at`` defaults to now (a batch gives one time to all)."""
        return build_record(self.document, self.raw, self.game, self.report, uploader,
                            uploaded_at, gid=self.id)


def check_log(raw: bytes, limit: int) -> Checked:
    """Decode, validate and verify one log; the engine's LogValidationError when it is
    malformed.
    Illegal, mismatched and incomplete games are verdicts, not errors."""
    return check_document(load_json(raw, limit), raw)


def check_document(document: Any, raw: bytes) -> Checked:
    """Validate and verify a decoded log whose stored text is ``raw``; the engine's
    LogValidationError when it is malformed."""
    game = parse_game(document)
    return Checked(document, raw, game, verify(game), game_id(document))

"""POST /games/batch: many logs as NDJSON in, one NDJSON result per line out, streamed.

The body is read a block at a time and judged in chunks (``RUMMY_BATCH_CHUNK`` games
or 8 MiB): a chunk is verified, committed, and only then are its result lines sent, so
every line acknowledged as stored is committed.  The next chunk is read and verified
meanwhile, and no more: memory stays bounded whatever the batch size.  A body that ends
early, over the batch limit (413) or stalled past the read timeout (408), ends the
answer with an error line for the line it stopped in, after the answers of every line
before it.

A bad line gets an error line and the others go on, up to a point: the batch stops at
its ``RUMMY_BATCH_MAX_BAD_RUN``-th malformed line in a row (500: the body is not NDJSON
games) or its ``RUMMY_BATCH_MAX_BAD_LINES``-th in all (1,000), with one last error line;
no line after that one is stored or answered, and the rest of the body is not read.
With each error line kept small (at most ten field errors, cut paths and messages: see
``problems.validation_problem``) the answer stays within about the size of the body
plus a few megabytes, where a body of tiny bad lines was answered with 130 times its
size.

The result lines go out as the client takes them: a client that sends its whole body
before it reads (http.client, requests) finds them all waiting once it reads, held by
the worker meanwhile (``service.http_writes``), where the thread blocked writing them
and the client sending the body, for ever.

Lines are judged ahead of their answers, so a chunk whose lines in flight (its own and
the chunk before, not answered yet) could reach a stop is judged without letting the
pool's processes stage its games: the request stores those before the stop itself.  The
rows then travel through the serving process, which cost it 0.37 ms of CPU a
four-player Rummy game against 0.13 ms (medians of six runs): the default run of 500
is above the 400 lines of two default chunks, so that the pool stages the games of a
batch itself until some 100 malformed lines in a row or 600 in all are answered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Response, current_app, g, request, stream_with_context
from flask_smorest import Blueprint
from marshmallow import Schema, fields
from marshmallow.validate import OneOf
from werkzeug.exceptions import HTTPException

from ..engine.words import plural
from ..store import Answer, joined
from .auth import write_access
from .coding import RATIO_FLOOR, Gunzip, content_coding, request_body
from .config import Settings, current_store, current_verifier, settings
from .games import (
    REUPLOADED,
    deletion_fields,
    game_url,
    replacement_moved,
    replacement_refused,
)
from .games_schemas import LEVEL_DOC, LEVELS, TournamentSchema, utc_text
from .intake import NDJSON_TYPES, BodyTooLarge, iter_lines, require_media_type
from .problems import (
    BATCH_STOPPED,
    DATABASE_UNAVAILABLE,
    GAME_DELETED,
    INTERNAL_ERROR,
    PAYLOAD_TOO_LARGE,
    VALIDATION_ERROR,
    Problem,
    kind_of_status,
    problem_body,
)
from .spec import PREFIX, problem_responses
from .verifier import Entry, Part

blp = Blueprint("batch", __name__, url_prefix=f"{PREFIX}/games",
                description="Upload many logs at once as NDJSON")

EMPTY_BATCH = "the batch holds no game: its body is empty or only blank lines"
CHUNK_BYTES = 8 << 20  # a chunk is committed once its lines reach this many bytes
MEDIA_TYPE = NDJSON_TYPES[0]
DESCRIPTION = (
    "One result line per non-blank input line, in order, each sent once its game is "
    "committed: the game's id and verdict, or the line's problem. A malformed line gets an "
    "error line (at most ten field errors, long paths and messages cut) and the others go "
    "on, but the batch stops at its 500th malformed line in a row "
    "(`RUMMY_BATCH_MAX_BAD_RUN`) or its 1,000th in all (`RUMMY_BATCH_MAX_BAD_LINES`): a "
    "last error line of type `/problems/batch-stopped` gives the line after it, and no "
    "line from there on is stored or answered, nor the rest of the body read. A body over "
    "the batch limit is refused before reading when its length is declared; a chunked "
    "body that grows past it ends with an error line of type `/problems/payload-too-large`. "
    "The body may be sent with `Content-Encoding: gzip`: the limit is then that of the "
    "inflated bytes, which may be at most 200 times the gzip bytes (413 beyond). A line "
    "whose verifying process died (killed, out of memory) is answered with "
    "`/problems/verifier-unavailable` (503): send it again. A client may send the whole "
    "body before it reads the answer (as Python's http.client and requests do): the "
    "lines it does not take meanwhile wait for it, and come once it reads. "
    "A line may instead be a correction, the envelope "
    "`{\"replaces\": \"<id>\", \"reason\": \"...\", \"log\": {...}}`: its log is "
    "stored and game `<id>` withdrawn in one transaction (who: the key's label, when, "
    "why), as `POST /games?replaces=` does; its result line adds `replaced`, the "
    "withdrawal. A correction that cannot be done changes nothing and answers an error "
    "line: 422 for an envelope without its reason or with a log that is not valid (the "
    "log's fields under `log.`), 404 for a game to replace that is unknown, 409 for one "
    "withdrawn before (`game-deleted`), for the same log as that game's "
    "(`replaces-itself`) or for the log of a deleted game. The games of a batch are "
    "stored in line order, replacements included: a line may correct a game stored by a "
    "line before it."
)


class LineErrorSchema(Schema):
    type = fields.String(required=True, metadata={"example": "/problems/validation-error"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))


class ReplacedSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The game withdrawn"})
    deleted_at = fields.String(required=True, metadata={"example": "2024-05-12T18:00:00Z"})
    deleted_by = fields.String(allow_none=True, metadata={
        "description": "The label of the write key used, null when writes are open"})
    reason = fields.String(required=True)
    links = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


class LineResultSchema(Schema):
    """One line of the response: the game's id and verdict, or the line's error."""

    line = fields.Integer(required=True, metadata={"description": "Input line, from 1"})
    id = fields.String()
    status = fields.String()
    verification = fields.String(validate=OneOf(LEVELS), metadata={"description": LEVEL_DOC})
    created = fields.Boolean()
    source_id = fields.String(allow_none=True, metadata={
        "description": "The log's own id (null when it has none), to tell the games apart"})
    tournament = fields.Nested(TournamentSchema, allow_none=True, metadata={
        "description": "The log's tournament {id, round, table}, null when it has none"})
    error = fields.Nested(LineErrorSchema)
    replaced = fields.Nested(ReplacedSchema, metadata={
        "description": "A correction line's: the game withdrawn in its place"})


@dataclass(slots=True)
class _Guard:
    """The malformed lines of a batch, counted as its lines are answered, and where it
    stops: at the ``max_run``-th malformed line in a row, or the ``max_total``-th."""

    max_run: int
    max_total: int
    run: int = 0  # malformed lines in a row at the end of the lines counted
    total: int = 0
    stop: bytes | None = None  # the last result line, once the batch stops

    def safe(self, lines: int) -> bool:
        """Whether the next ``lines`` lines cannot stop the batch, whatever they hold."""
        return self.run + lines < self.max_run and self.total + lines < self.max_total

    def count(self, entries: list[Entry]) -> int:
        """Count the next lines in order: how many of them are answered (all of them,
        or those up to the one that stops the batch)."""
        for kept, entry in enumerate(entries, start=1):
            if not entry.bad:
                self.run = 0
                continue
            self.run += 1
            self.total += 1
            if self.run >= self.max_run:
                why = f"{plural(self.run, 'malformed line')} in a row"
            elif self.total >= self.max_total:
                why = f"{plural(self.total, 'malformed line')} in all"
            else:
                continue
            detail = f"the batch stopped at line {entry.line}: {why}; lines from here on " \
                     "were not stored, and the rest of the body was not read"
            self.stop = orjson.dumps({"line": entry.line + 1, "error": problem_body(
                422, BATCH_STOPPED, detail)}) + b"\n"
            return kept
        return len(entries)


def _before_stop(parts: list[Part], guard: _Guard) -> list[Part]:
    """The parts, cut after the line that stops the batch: the rows of the games after
    it are dropped (such parts were judged without being stored: see ``_Guard.safe``)."""
    for number, part in enumerate(parts):
        kept = guard.count(part.entries)
        if guard.stop is None:
            continue
        part.entries = part.entries[:kept]
        if part.rows is not None:
            part.rows = part.rows.head(sum(entry.id is not None and entry.record is None
                                           for entry in part.entries))
        return parts[:number + 1]
    return parts


def _commit(parts: list[Part], guard: _Guard, uploader: str | None) -> bytes:
    """Store the chunk's good games not stored yet and answer each of its lines, in
    order: a line is answered as stored only once its game is committed.  Lines after
    the one that stops the batch are neither stored nor answered."""
    parts = _before_stop(parts, guard)
    if any(entry.record is not None for part in parts for entry in part.entries):
        _commit_in_order(parts, uploader)
    else:
        _store_pending([part for part in parts if part.rows is not None])
        _commit_staged([part for part in parts if part.ticket is not None])
    for part in parts:
        _check_answers(part)
    deleted = _deleted_among(parts)
    out = []
    for part in parts:
        answers = iter(part.answers or ())
        failure = _unavailable() if part.failure is not None else None
        replaced = part.replaced or {}
        for entry in part.entries:
            if entry.id is None:
                result: dict[str, Any] = {"line": entry.line, "error": entry.error or failure}
            elif entry.record is not None:  # an envelope: its own transaction's answer
                result = replaced.get(entry.line) or {"line": entry.line,
                                                      "error": failure or _unavailable()}
            elif (answer := next(answers, None)) is None:
                result = {"line": entry.line, "error": failure or _unavailable()}
            else:
                game_id, created = answer
                if created is None:
                    result = {"line": entry.line, "error": _not_stored()}
                elif not created and game_id in deleted:
                    result = {"line": entry.line, "error": deleted[game_id]}
                else:
                    result = _stored(entry, game_id, created)
            out.append(orjson.dumps(result))
    answer = b"\n".join(out) + b"\n" if out else b""
    return answer + (guard.stop or b"")


def _stored(entry: Entry, game_id: str, created: bool) -> dict[str, Any]:
    """The result line of a line whose game is stored."""
    return {"line": entry.line, "id": game_id, "status": entry.status,
            "verification": entry.verification, "created": created,
            "source_id": entry.source_id, "tournament": entry.tournament}


def _commit_in_order(parts: list[Part], uploader: str | None) -> None:
    """A chunk holding replacements: every game committed in line order, so that each
    is numbered (``seq``) as its line is.  The games staged by the pool are committed
    a run of parts at a time, the rows handed back a run of lines at a time, and each
    replacement on its own, in one transaction with the withdrawal of its game."""
    staged: list[Part] = []
    for part in parts:
        if part.ticket is not None:
            staged.append(part)
            continue
        _commit_staged(staged)
        staged = []
        if part.rows is None:
            continue  # nothing to store (its lines are errors, or its process failed)
        if any(entry.record is not None for entry in part.entries):
            _commit_replacing(part, uploader)
        else:
            _store_pending([part])
    _commit_staged(staged)


def _commit_replacing(part: Part, uploader: str | None) -> None:
    """Commit a part's plain games and its replacements, in line order.  Should a commit
    fail, the lines from there on answer 503 (nothing of them stored); the lines
    committed before keep their answers."""
    assert part.rows is not None
    answers: list[Answer] = []
    part.replaced = {}
    start = run = 0  # the part's plain games stored so far, and those waiting

    def flush() -> bool:
        nonlocal start, run
        if run:
            try:
                answers.extend(current_store().submit(part.rows.between(start, start + run)))
            except Exception as error:
                current_app.logger.exception("batch lines of %d games could not be stored",
                                             run)
                part.failure = str(error)
                return False
            start, run = start + run, 0
        return True

    for entry in part.entries:
        if entry.id is None:
            continue
        if entry.record is None:
            run += 1
            continue
        if not flush():
            break
        result = _replace_line(entry, uploader)
        part.replaced[entry.line] = result
        if "error" in result and result["error"]["status"] >= 500:
            part.failure = result["error"]["detail"]
            break
    else:
        flush()
    part.answers = answers


def _replace_line(entry: Entry, uploader: str | None) -> dict[str, Any]:
    """Store an envelope line's game and withdraw the game it replaces, in one
    transaction (``Store.replace_game``): its result line, stored or why nothing
    changed."""
    assert entry.record is not None and entry.replaces is not None
    try:
        moved = None if entry.relocate else replacement_moved(entry.record, entry.replaces)
        if moved is not None:
            return {"line": entry.line, "error": problem_body(
                409, moved.kind, moved.description or "", None, **moved.extra)}
        done = current_store().replace_game(entry.record, entry.replaces, uploader,
                                            entry.reason, datetime.now(UTC))
    except Exception:
        current_app.logger.exception("batch line %d: game %s could not replace %s",
                                     entry.line, entry.id, entry.replaces)
        return {"line": entry.line, "error": _unavailable()}
    refusal = replacement_refused(done, entry.replaces)
    if refusal is not None:
        return {"line": entry.line, "error": problem_body(
            refusal.code or 409, refusal.kind, refusal.description or "", refusal.errors,
            **refusal.extra)}
    deletion = done.deletion or {}
    return {**_stored(entry, done.id, done.created), "replaced": {
        "id": entry.replaces, "deleted_at": utc_text(deletion["deleted_at"]),
        "deleted_by": deletion["deleted_by"], "reason": deletion["reason"],
        "links": {"self": game_url(entry.replaces)}}}


def _deleted_among(parts: list[Part]) -> dict[str, dict[str, Any]]:
    """The 409 problems of the lines whose log is that of a deleted game (stored
    before, so answered as not new): as for a single upload, it stays deleted."""
    again = [gid for part in parts for gid, created in (part.answers or ()) if created is False]
    if not again:
        return {}
    out = {}
    for gid, deletion in current_store().deletions_of(again).items():
        detail, extra = deletion_fields(deletion, REUPLOADED)
        out[gid] = problem_body(409, GAME_DELETED, detail, **extra)
    return out


def _store_pending(pending: list[Part]) -> None:
    """Commit the rows the pool handed back (no store process to write to, or a chunk
    that could stop the batch), and give each part its answers, or its failure."""
    if not pending:
        return
    try:
        answers = current_store().submit(joined([part.rows for part in pending]))
    except Exception as error:
        current_app.logger.exception("batch chunk of %d games could not be stored",
                                     sum(len(part.rows) for part in pending))
        for part in pending:
            part.failure = str(error)
        return
    start = 0
    for part in pending:
        part.answers = answers[start:start + len(part.rows)]
        start += len(part.rows)


def _commit_staged(staged: list[Part]) -> None:
    """Commit the rows the pool's processes staged in the store process, in line order
    (one call: they are numbered as the lines are), and give each part its answers, or
    the failure of them all (the store process that staged them has ended: nothing of
    them is stored)."""
    if not staged:
        return
    try:
        answers = current_store().commit_staged([part.ticket for part in staged])
    except Exception as error:
        current_app.logger.error("batch chunk of %d lines could not be stored: %s",
                                 sum(len(part.entries) for part in staged), error)
        for part in staged:
            part.failure = str(error)
        return
    for part, answered in zip(staged, answers, strict=True):
        part.answers = answered


def _check_answers(part: Part) -> None:
    """A part's answers must be those of its own lines: as many as its good lines, each
    naming that line's game (an id is a function of the log).  Otherwise none of its
    lines is acknowledged: an answer of another request's games would be taken for
    this one's (a client deleting "its" game would delete another's)."""
    if part.failure is not None or part.answers is None:
        return
    expected = [entry.id for entry in part.entries
                if entry.id is not None and entry.record is None]  # a replacement: its own
    answered = [game_id for game_id, _ in part.answers]
    if answered != expected:
        current_app.logger.error("batch part of %d lines: the store answered for other "
                                 "games; its lines are not acknowledged", len(part.entries))
        part.failure = "the store answered for other games"
        part.answers = None


def _not_stored() -> dict[str, Any]:
    """A game the store could not write while it wrote the others (logged there)."""
    return problem_body(500, INTERNAL_ERROR, "the game could not be stored; it has been "
                        "logged, and the other lines were stored")


def _unavailable() -> dict[str, Any]:
    return problem_body(503, DATABASE_UNAVAILABLE, "the game could not be stored")


def _sent(items: list[tuple[int, bytes | None]], config: Settings, uploader: str | None,
          direct: bool, uploaded_at: datetime) -> Callable[[], list[Part]]:
    """The chunk's lines sent to the verifier; the function returned waits for them."""
    if not items:
        return list  # the last chunk of a batch is often empty: nothing to judge or store
    return current_verifier().submit(items, config.max_game_bytes, uploader, direct,
                                     uploaded_at)


def _answered(judging: Callable[[], list[Part]], guard: _Guard,
              uploader: str | None) -> bytes:
    """The result lines of a chunk sent to the verifier, once its games are committed."""
    parts = judging()
    for part in parts:
        if part.failure is not None:
            current_app.logger.error("batch part of %d lines could not be stored: %s",
                                     len(part.entries), part.failure)
        for entry in part.entries:
            if entry.log:
                current_app.logger.error("batch line %d could not be verified:\n%s",
                                         entry.line, entry.log)
    return _commit(parts, guard, uploader)


class _Cut(Exception):
    """The body ended early (over the batch limit, or stalled): lines from ``line`` on
    were not read; ``error`` is the problem of the line it stopped in."""

    def __init__(self, line: int, error: dict[str, Any]) -> None:
        super().__init__(line, error)
        self.line, self.error = line, error


def _chunks(lines: Iterable[tuple[int, bytes | None]],
            config: Settings) -> Iterator[list[tuple[int, bytes | None]]]:
    """The non-blank lines in chunks of ``RUMMY_BATCH_CHUNK`` lines or 8 MiB; the last
    one may be empty.  Should the body end early (over the batch limit, stalled, or its
    gzip data broken), the lines read in full before come out as a last chunk, then
    _Cut."""
    chunk: list[tuple[int, bytes | None]] = []
    size = number = 0
    try:
        for number, text in lines:
            if text is not None:
                text = text.removesuffix(b"\r")
                if not text.strip():
                    continue
            chunk.append((number, text))
            size += len(text or b"")
            if len(chunk) >= config.batch_chunk or size >= CHUNK_BYTES:
                yield chunk
                chunk, size = [], 0
    except BodyTooLarge as error:
        yield chunk
        detail = (f"the batch is larger than {plural(error.limit, 'byte')}; lines from here "
                  "on were not read")
        raise _Cut(number + 1, problem_body(413, PAYLOAD_TOO_LARGE, detail)) from None
    except HTTPException as error:  # stalled (408), gzip data broken or too inflated (ours),
        yield chunk  # or werkzeug's own cap on the bytes received (413)
        status = error.code or 400
        kind = error.kind if isinstance(error, Problem) else kind_of_status(status)
        detail = f"{error.description}; lines from here on were not read"
        raise _Cut(number + 1, problem_body(status, kind, detail)) from None
    yield chunk


def _results(lines: Iterable[tuple[int, bytes | None]], config: Settings,
             uploader: str | None) -> Iterator[bytes]:
    """The result lines, chunk by chunk, in order.  A chunk is answered once the next
    one has been read and sent to the verifier, so the pool verifies that one while
    this one is committed (a lone uploader of a large batch would otherwise leave the
    pool idle during every commit).  At most two chunks are in flight; the pool stages
    a chunk's games itself only when the lines in flight cannot stop the batch.

    Every game of the request gets the same upload time (the ratings order games by
    their time, then by upload order: a batch's games without ``played_at`` are rated
    in line order, however its lines were spread over the pool)."""
    guard = _Guard(config.batch_max_bad_run, config.batch_max_bad_lines)
    uploaded_at = datetime.now(UTC)
    waiting: Callable[[], list[Part]] | None = None
    in_flight = 0  # lines of the chunk waiting
    answered = False  # any line at all: a batch of blank lines is said to hold no game
    read = 0

    def counted(items: Iterable[tuple[int, bytes | None]]) -> Iterator[tuple[int, bytes | None]]:
        nonlocal read
        for item in items:
            read = item[0]
            yield item

    try:
        for chunk in _chunks(counted(lines), config):
            answered = answered or bool(chunk)
            judging = _sent(chunk, config, uploader, guard.safe(in_flight + len(chunk)),
                            uploaded_at)
            if waiting is not None:
                yield _answered(waiting, guard, uploader)
                if guard.stop is not None:
                    return  # the chunk just sent is dropped: none of its games is stored
            waiting, in_flight = judging, len(chunk)
    except _Cut as cut:
        if waiting is not None:
            yield _answered(waiting, guard, uploader)
            if guard.stop is not None:
                return
        yield orjson.dumps({"line": cut.line, "error": cut.error}) + b"\n"
        return
    if waiting is not None:
        yield _answered(waiting, guard, uploader)
    if not answered:
        yield orjson.dumps({"line": max(read, 1), "error": problem_body(
            422, VALIDATION_ERROR, EMPTY_BATCH)}) + b"\n"


@blp.route("/batch", methods=["POST"])
@write_access
@blp.response(200, LineResultSchema, content_type=MEDIA_TYPE,
              description="NDJSON, one result per non-blank input line, in order",
              example={"line": 1, "id": "5d69bdc52cdd76ed28a89e91", "status": "valid",
                       "verification": "moves", "created": True, "source_id": "r5-t3",
                       "tournament": {"id": "spring-cup", "round": 5, "table": "3"}})
@problem_responses(blp, 400, 401, 403, 413, 415)
@blp.doc(summary="Verify and store many logs (NDJSON, one game a line)",
         description=DESCRIPTION, requestBody={
    "required": True, "description": "One rummy-log/1 game per line; blank lines skipped",
    "content": {MEDIA_TYPE: {"schema": {"type": "string"}}}})
def upload_batch() -> Response:
    """A body over the batch limit is refused before reading when its length is
    declared; a chunked body that grows past it ends with an error line, and so does a
    body that stalls."""
    require_media_type(NDJSON_TYPES)
    coding = content_coding()
    config = settings()
    if request.content_length is not None and request.content_length > config.max_batch_bytes:
        raise BodyTooLarge(config.max_batch_bytes, "the batch")
    request.max_content_length = config.max_batch_bytes + 1
    stream = request_body(coding)
    if isinstance(stream, Gunzip) and stream.prime(RATIO_FLOOR + 1) > config.max_batch_bytes:
        raise BodyTooLarge(config.max_batch_bytes, "the batch")  # a bomb: before any line
    lines = iter_lines(stream, config.max_game_bytes, config.max_batch_bytes)
    body = stream_with_context(_results(lines, config, g.uploader))
    return Response(body, mimetype=MEDIA_TYPE)

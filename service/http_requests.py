"""The HTTP/1 requests the shipped gunicorn worker (service/http_worker.py) serves, and
its answers to those the app never sees.

An answer that starts before its request's body was read whole closes the connection
(``Connection: close``).  The app refuses some uploads without reading their body: a
declared size over the limit (413), a media type or content coding it does not take
(415), a path or method it does not serve.  gunicorn answered those ``Connection:
keep-alive``, then read at most 64 KiB of the body left unread, and, with more left,
closed the connection.  nginx, having been told keep-alive, reused that connection for
its next request, often another client's upload, which met a closed connection and,
being a POST, was not sent again: 502 (4 to 6 pairs of 10 in a row, and 3 % of a
client's uploads while another's were refused).  The body's end is where the next
request would start: unless it was reached, the connection ends with the answer.  Every
answer starting before it does, a streamed batch answer included, says so.

A chunked body whose framing is malformed (a chunk size that is not hexadecimal, a
chunk not ended by CRLF, an overlong chunk line or extension, a bad trailer) is a 400
``application/problem+json`` for the app: the reader raises werkzeug's ``BadRequest``
(``MalformedBody``), not gunicorn's parse errors, which the app took for its own bugs
(500).  A chunk line ended by a bare LF is refused as soon as it is read, where gunicorn
waited for a CRLF that never came until the body timed out.

A request the worker cannot read (a request line over ``limit_request_line``, more header
fields than ``limit_request_fields`` or one over ``limit_request_field_size``, a
malformed head, a transfer coding other than chunked) never reaches the app: the worker
answers it as the app would, an ``application/problem+json`` of a stable type
(``request_error``), where gunicorn answered an HTML page.
"""

from __future__ import annotations

import ssl
from typing import Any

import orjson
from gunicorn.http import errors
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.http.message import Request
from werkzeug.exceptions import BadRequest

PROBLEM_MEDIA_TYPE = "application/problem+json"


class MalformedBody(BadRequest):
    """The request's chunked body is malformed: 400, and the connection is closed (where
    the next request would start is unknown)."""


class BareLineFeed(errors.InvalidChunkSize):
    """A line of a chunked body's framing ended by LF alone."""

    def __init__(self) -> None:
        super().__init__(b"a line ended by a bare LF")


def _body_detail(error: Exception) -> str:
    if isinstance(error, BareLineFeed):
        what = "a chunk line ends with a bare LF, not CRLF"
    elif isinstance(error, errors.InvalidChunkSize) and b"line over" in error.data:
        what = "a chunk line (size and extensions) is too long"
    elif isinstance(error, errors.InvalidChunkSize):
        what = "a chunk size is not a hexadecimal number"
    elif isinstance(error, errors.ChunkMissingTerminator):
        what = "a chunk does not end with CRLF"
    elif isinstance(error, errors.InvalidChunkExtension):
        what = "a chunk extension is malformed"
    elif isinstance(error, errors.LimitRequestHeaders):
        what = "its trailer section is too large"
    else:
        what = "its trailer section is malformed"
    return f"the chunked body cannot be read: {what}"


class StrictChunkedReader(ChunkedReader):
    """gunicorn's reader of a chunked body, whose framing errors are ``MalformedBody``
    (a werkzeug HTTP error, answered 400 by the app), raised again on every later read:
    the body never seems to end after one."""

    def __init__(self, req: Any, unreader: Any) -> None:
        super().__init__(req, unreader)
        self.error: MalformedBody | None = None

    def read(self, size: int) -> bytes:
        if self.error is not None:
            raise self.error
        try:
            return super().read(size)
        except errors.ParseException as error:
            self.error = MalformedBody(_body_detail(error))
            raise self.error from None

    def read_into(self, unreader: Any, buf: bytearray) -> None:
        """Read more of a chunk line (or of the trailers), none of whose lines so far
        may end with a bare LF: RFC 9112 ends them with CRLF, and a client ending them
        with LF alone would otherwise wait for its answer until the body timed out."""
        if buf.count(b"\n") != buf.count(b"\r\n"):
            raise BareLineFeed
        super().read_into(unreader, buf)


def read_whole(body: Body | None) -> bool:
    """Whether the app read the request body to its end (a request without a body has
    an empty one, read at once)."""
    if body is None:
        return True
    if body.failed or body.buf.tell():
        return False
    reader = body.reader
    if isinstance(reader, LengthReader):
        return reader.length == 0
    if isinstance(reader, ChunkedReader):
        return reader.parser is None and not reader.buf.tell()
    return False  # read until the connection ends: never a request's


class ServedRequest(Request):
    """gunicorn's HTTP/1 request, its chunked body read by a StrictChunkedReader, whose
    answer closes the connection when it starts before the body was read whole."""

    def set_body_reader(self) -> None:
        super().set_body_reader()
        if type(self.body.reader) is ChunkedReader:
            self.body.reader = StrictChunkedReader(self, self.unreader)

    def should_close(self) -> bool:
        """Whether the connection ends with this request's answer.  gunicorn asks first
        as it writes the answer's head (its ``Connection``): a body not read whole by
        then closes the connection, whatever is read of it later."""
        if not self.must_close and not read_whole(self.body):
            self.must_close = True
        return super().should_close()


def serve_requests(parser: Any) -> None:
    """Have gunicorn's HTTP/1 parser make ServedRequests."""
    parser.mesg_class = ServedRequest


_HEAD = "the request's head cannot be read: "
_BAD_HEADS: tuple[tuple[type[Exception], str], ...] = (
    (errors.InvalidRequestLine, "its request line is malformed"),
    (errors.InvalidRequestMethod, "its method is not a valid token"),
    (errors.InvalidHTTPVersion, "its HTTP version is not supported"),
    (errors.ObsoleteFolding, "a header field is folded over several lines"),
    (errors.InvalidHeaderName, "a header field's name is not a valid token"),
    (errors.InvalidHeader, "a header field is malformed, or contradicts another"),
    (errors.InvalidProxyLine, "its PROXY line is malformed"),
    (errors.InvalidProxyHeader, "its PROXY header is malformed"),
    (errors.InvalidSchemeHeaders, "its headers contradict each other on the scheme"),
    (errors.InvalidH2CPreface, "its HTTP/2 preface is malformed"),
)


def request_error(error: BaseException, cfg: Any) -> tuple[int, str, str] | None:
    """(status, problem type, detail) of a request the worker could not read, as
    gunicorn's statuses have them; None for an error of the server's own (500)."""
    from .api import problems  # loaded by the app already

    if isinstance(error, (errors.InvalidResponseHeader, errors.InvalidResponseHeaderName,
                          errors.ConfigurationProblem)):
        return None  # the app's or the configuration's fault, not the client's
    if isinstance(error, errors.LimitRequestLine):
        return (414, problems.URI_TOO_LONG,
                f"the request line is longer than {cfg.limit_request_line} bytes")
    if isinstance(error, errors.LimitRequestHeaders):
        return (431, problems.HEADER_FIELDS_TOO_LARGE,
                f"the request has more than {cfg.limit_request_fields} header fields, or "
                f"one longer than {cfg.limit_request_field_size} bytes")
    if isinstance(error, errors.UnsupportedTransferCoding):
        return (501, problems.NOT_IMPLEMENTED, "a Transfer-Encoding other than chunked "
                "is not supported; send the body chunked or with a Content-Length")
    if isinstance(error, errors.ExpectationFailed):
        return (417, problems.EXPECTATION_FAILED,
                "the only expectation met is Expect: 100-continue")
    if isinstance(error, errors.ForbiddenProxyRequest):
        return 403, problems.FORBIDDEN, "this address may not send PROXY lines"
    if isinstance(error, ssl.SSLError):
        return 403, problems.FORBIDDEN, "the TLS connection failed"
    for kind, what in _BAD_HEADS:
        if isinstance(error, kind):
            return 400, problems.BAD_REQUEST, _HEAD + what
    if isinstance(error, MalformedBody):  # read outside the app
        return 400, problems.BAD_REQUEST, error.description or ""
    if isinstance(error, errors.ParseException):
        return 400, problems.BAD_REQUEST, _HEAD.rstrip(": ")
    return None


def problem_answer(status: int, kind: str, detail: str) -> bytes:
    """A whole HTTP/1.1 answer with a problem, closing the connection: the worker's own,
    for a request the app did not answer."""
    from .api.problems import problem_body  # loaded by the app already

    problem = problem_body(status, kind, detail)
    body = orjson.dumps(problem)
    head = (f"HTTP/1.1 {status} {problem['title']}\r\nContent-Type: {PROBLEM_MEDIA_TYPE}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    return head.encode("latin-1") + body

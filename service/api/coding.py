"""The Content-Encoding of an uploaded body: none (identity), or gzip inflated as read.

A gzip body is inflated a block at a time, never more than its reader asks for, so the
size limits of a log and of a batch apply to the inflated bytes and no more of them are
ever held.  Past its first ``RATIO_FLOOR`` inflated bytes it must also stay within
``MAX_RATIO`` times the gzip bytes it came from (rummy logs inflate 8 to 15 times; a
gzip bomb about a thousand): beyond, 413.  Concatenated gzip members are one body, as
gzip has them.  A body that is not gzip, or ends inside it, is a 400; any other coding
a 415 naming the one accepted.
"""

from __future__ import annotations

import zlib
from typing import IO

from flask import request

from .problems import BAD_REQUEST, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, Problem

IDENTITY, GZIP = "identity", "gzip"
BLOCK = 1 << 16  # gzip bytes read from the request at a time
MAX_RATIO = 200  # inflated bytes per gzip byte
RATIO_FLOOR = 1 << 20  # inflated bytes before the ratio applies
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # a gzip header and trailer, no other wrapping


def content_coding() -> str:
    """The coding of the request body, ``identity`` or ``gzip``; a 415 problem for any
    other (a list of codings may name ``identity`` besides)."""
    header = request.headers.get("Content-Encoding", "")
    codings = [part.strip().lower() for part in header.split(",")]
    codings = [coding for coding in codings if coding and coding != IDENTITY]
    if not codings:
        return IDENTITY
    if codings in (["gzip"], ["x-gzip"]):
        return GZIP
    shown = header if len(header) <= 40 else header[:40] + "..."
    raise Problem(415, UNSUPPORTED_MEDIA_TYPE, f"Content-Encoding {shown!r} is not "
                  "accepted here; send gzip, or no Content-Encoding",
                  headers={"Accept-Encoding": GZIP})


class Gunzip:
    """A gzip stream read inflated: ``read(size)`` answers at most ``size`` bytes, and
    ``b""`` only at the end of the last gzip member."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._inflater = zlib.decompressobj(_GZIP_WBITS)
        self._input = b""  # gzip bytes read and not inflated yet
        self._gzip_bytes = 0  # gzip bytes read
        self._inflated = 0  # bytes answered or primed
        self._head = b""  # primed bytes not answered yet

    def prime(self, size: int) -> int:
        """Inflate the first ``size`` bytes now, so that their problems are answered
        before a streamed answer starts; the number of bytes inflated."""
        blocks: list[bytes] = []
        total = 0
        while total < size:
            block = self.read(min(BLOCK, size - total))
            if not block:
                break
            blocks.append(block)
            total += len(block)
        self._head = b"".join(blocks)
        return total

    def read(self, size: int = BLOCK) -> bytes:
        if self._head:
            block, self._head = self._head[:size], self._head[size:]
            return block
        while size > 0:
            try:  # with no input left, zlib may still hold output past the last size
                block = self._inflater.decompress(self._input, size)
            except zlib.error:
                raise _bad("the body is not valid gzip data") from None
            # At a member's end its leftover is in unused_data (and, in CPython 3.11,
            # also in unconsumed_tail: decompressing that again would double it).
            self._input = b"" if self._inflater.eof else self._inflater.unconsumed_tail
            self._inflated += len(block)
            self._check_ratio()
            if block:
                return block
            if not self._more():
                break
        return b""

    def _more(self) -> bool:
        """Input for the inflater: the rest of a member, or the next member; False at
        the end of the body after a whole member."""
        if self._inflater.eof:
            data = self._inflater.unused_data or self._read_raw()
            if not data:
                return False
            self._inflater = zlib.decompressobj(_GZIP_WBITS)
        else:
            data = self._read_raw()
            if not data:
                raise _bad("the body ends inside its gzip data")
        self._input = data
        return True

    def _read_raw(self) -> bytes:
        data = self._raw.read(BLOCK)
        self._gzip_bytes += len(data)
        return data

    def _check_ratio(self) -> None:
        if self._inflated <= RATIO_FLOOR:
            return
        pending = len(self._input)
        if self._inflater.eof:
            pending += len(self._inflater.unused_data)
        if self._inflated > MAX_RATIO * (self._gzip_bytes - pending):
            raise Problem(413, PAYLOAD_TOO_LARGE, f"the body inflates to more than "
                          f"{MAX_RATIO} times its gzip size")


def _bad(detail: str) -> Problem:
    return Problem(400, BAD_REQUEST, detail)


def request_body(coding: str) -> IO[bytes] | Gunzip:
    """The request body in ``coding`` (from ``content_coding``), inflated as it is read
    when gzipped.  Set the request's ``max_content_length`` first: werkzeug caps the
    stream when it is first taken."""
    return Gunzip(request.stream) if coding == GZIP else request.stream

"""The inputs of an audit, cut into shards, and the games of one shard.

An input is an NDJSON file (one game a line; ``.ndjson`` or ``.jsonl``, plain or
gzipped, told by its first bytes), a JSON file (one game), a Parquet file with a
``log`` column (one game a row, binary or text), or a folder, searched recursively
for those (other files, Parquet files without a log column among them, are left
alone).  A file named on the command line with
another suffix is read as ``verify`` reads it: one game when it holds one JSON value,
else one game a line.

Shards are cut on the machine that starts the audit, which reads every input once:
``shard_size`` games (non-blank lines, rows, or JSON files of one folder) each, the
last of a file fewer.  A shard is named by its file (or folder) and its position, and
carries a digest of exactly the bytes it covers, so a re-run knows whether a shard it
finished still has the same input.  Workers read their shard themselves, by path: on a
cluster every worker must see the inputs at the same paths (a shared file system).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

NDJSON, JSON, PARQUET = "ndjson", "json", "parquet"
NDJSON_SUFFIXES = (".ndjson", ".jsonl")
LOG_COLUMN = "log"
GZIP_MAGIC = b"\x1f\x8b"
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


class InputError(ValueError):
    """An input that cannot be audited (missing, unreadable, or a Parquet file
    without a log column)."""


@dataclass(frozen=True, slots=True)
class Shard:
    """``games`` games of one input.  NDJSON: the lines from byte ``start`` to ``stop``
    of the (inflated) text, the first being line ``first_line``; Parquet: rows
    ``start`` to ``stop`` (from 0); JSON: the files of ``paths``, one game each.
    ``labels`` are the paths as the user gave them, for the sources of errors."""

    id: str
    kind: str
    paths: tuple[str, ...]
    labels: tuple[str, ...]
    start: int
    stop: int
    first_line: int
    games: int
    digest: str


def _digest() -> hashlib.blake2b:
    return hashlib.blake2b(digest_size=16)


def _shard_id(label: str, where: str, index: int) -> str:
    """``<name>-<hash of the absolute path>-<index>``: readable and unique."""
    name = _SLUG.sub("_", Path(label).name)[:40] or "input"
    place = hashlib.blake2b(where.encode(), digest_size=5).hexdigest()
    return f"{name}-{place}-{index:05d}"


def _open(path: str):
    """The file's text as a binary stream, inflated when it is gzipped."""
    handle = open(path, "rb")  # noqa: SIM115 - returned to the caller
    if handle.peek(2)[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=handle, mode="rb")
    return handle


def _kind_of(path: Path, named: bool) -> str | None:
    """The kind of a file by its name (the ``.gz`` of a gzipped one left off); a file
    named on the command line with another suffix is sniffed; None: not an input."""
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(NDJSON_SUFFIXES):
        return NDJSON
    if name.endswith(".parquet"):
        return PARQUET
    if name.endswith(".json"):
        return JSON
    if not named:
        return None
    with _open(str(path)) as handle:
        data = handle.read()
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        if data.count(b"\n") > 1 and data.lstrip().startswith(b"{"):
            return NDJSON
    return JSON


def cut(inputs: list[str], shard_size: int, skip: str | Path | None = None) -> list[Shard]:
    """Every shard of ``inputs``, in order; a folder's walk leaves out ``skip`` (the
    results folder: its Parquet has a log column, and would be audited again).  A file
    reached twice (named twice, or named and in a folder named) is cut once: its shards
    are the same ones, by id."""
    if shard_size < 1:
        raise ValueError("the shard size is at least 1")
    left_out = Path(skip).resolve() if skip is not None else None
    shards: dict[str, Shard] = {}
    for given in inputs:
        path = Path(given)
        if path.is_dir():
            found = _folder(path, shard_size, left_out)
        elif path.is_file():
            kind = _kind_of(path, named=True)
            if kind == JSON:
                found = _json_files([(given, path)], given, shard_size)
            else:
                found = _file(given, path, kind, shard_size)
        else:
            raise InputError(f"{given}: no such file or folder")
        for shard in found:
            shards.setdefault(shard.id, shard)
    return list(shards.values())


def _folder(root: Path, shard_size: int, skip: Path | None) -> Iterator[Shard]:
    """The shards of a folder's files, in path order; its JSON files are grouped by
    the folder holding them."""
    for folder, subfolders, names in os.walk(root):
        if skip is not None and Path(folder).resolve() == skip:
            subfolders.clear()
            continue
        subfolders.sort()
        singles = []
        for name in sorted(names):
            path = Path(folder, name)
            kind = _kind_of(path, named=False)
            if kind == JSON:
                singles.append((str(path), path))
            elif kind == PARQUET and not _has_log(path):
                continue  # a folder's other Parquet files are left alone
            elif kind is not None:
                yield from _file(str(path), path, kind, shard_size)
        yield from _json_files(singles, folder, shard_size)


def _json_files(files: list[tuple[str, Path]], where: str,
                shard_size: int) -> Iterator[Shard]:
    for index, first in enumerate(range(0, len(files), shard_size)):
        group = files[first:first + shard_size]
        digest = _digest()
        for _, path in group:
            digest.update(path.name.encode() + b"\0")
            digest.update(_read(path) + b"\0")
        yield Shard(_shard_id(where, str(Path(where).resolve()), index), JSON,
                    tuple(str(p.resolve()) for _, p in group),
                    tuple(label for label, _ in group), 0, len(group), 0, len(group),
                    digest.hexdigest())


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from error


def _file(label: str, path: Path, kind: str, shard_size: int) -> Iterator[Shard]:
    try:
        if kind == PARQUET:
            yield from _parquet(label, path, shard_size)
        else:
            yield from _ndjson(label, path, shard_size)
    except OSError as error:
        raise InputError(f"{label}: cannot read: {error.strerror or error}") from error


BLOCK = 1 << 23  # bytes read at a time while cutting an NDJSON file
_SPACE = frozenset(b" \t\n\r\x0b\x0c")  # what ``bytes.strip`` strips


def _ndjson(label: str, path: Path, shard_size: int) -> Iterator[Shard]:
    """Shards of whole lines: each holds ``shard_size`` non-blank lines, and the blank
    lines before the next one.  Read in blocks, with the lines found in each block and
    the digest fed whole runs of it: line by line, the reading, the copies and the
    calls cost the command as much as hashing the bytes, in the time the workers wait
    for their first shard."""
    where = str(path.resolve())
    index = start = 0
    line = first_line = 1
    games = 0
    digest = _digest()

    def shard(stop: int) -> Shard:
        return Shard(_shard_id(label, where, index), NDJSON, (where,), (label,), start, stop,
                     first_line, games, digest.hexdigest())

    with _open(where) as handle:
        offset = 0  # where the block starts in the (inflated) text
        rest = b""
        while True:
            block = handle.read(BLOCK)
            data = rest + block if rest else block
            # the whole lines of the block; the last one, unfinished, waits for the
            # next block (at the end of the file it is the last line)
            end = len(data) if not block else data.rfind(b"\n") + 1
            view = memoryview(data)
            fed = at = 0
            while at < end:
                newline = data.find(b"\n", at, end)
                after = end if newline < 0 else newline + 1
                if data[at] not in _SPACE or data[at:after].strip():  # not blank
                    if games == shard_size:
                        digest.update(view[fed:at])
                        yield shard(offset + at)
                        index, start, first_line, games = index + 1, offset + at, line, 0
                        digest, fed = _digest(), at
                    games += 1
                line += 1
                at = after
            digest.update(view[fed:end])
            view.release()
            if not block:
                break
            offset += end
            rest = data[end:]
    if games:
        yield shard(offset + end)


def _has_log(path: Path) -> bool:
    try:
        return LOG_COLUMN in pq.read_schema(path).names
    except (OSError, pa.ArrowException):
        return False


def _log_column(parquet: pq.ParquetFile, label: str) -> None:
    if LOG_COLUMN not in parquet.schema_arrow.names:
        raise InputError(f"{label}: a Parquet input needs a {LOG_COLUMN!r} column")


def _parquet(label: str, path: Path, shard_size: int) -> Iterator[Shard]:
    where = str(path.resolve())
    parquet = pq.ParquetFile(where)
    _log_column(parquet, label)
    index = start = games = 0
    digest = _digest()
    for batch in parquet.iter_batches(batch_size=shard_size, columns=[LOG_COLUMN]):
        for value in batch.column(0).to_pylist():
            if games == shard_size:
                yield Shard(_shard_id(label, where, index), PARQUET, (where,), (label,), start,
                            start + games, start + 1, games, digest.hexdigest())
                index, start, games, digest = index + 1, start + games, 0, _digest()
            digest.update(_as_bytes(value) + b"\0")
            games += 1
    if games:
        yield Shard(_shard_id(label, where, index), PARQUET, (where,), (label,), start,
                    start + games, start + 1, games, digest.hexdigest())


def _as_bytes(value: bytes | str | None) -> bytes:
    if value is None:
        return b""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value


Item = tuple[str, int | None, bytes]  # file as given, line or row (from 1), the log's text


def items(shard: Shard) -> Iterator[Item]:
    """The games of a shard, each with where it comes from."""
    if shard.kind == JSON:
        for path, label in zip(shard.paths, shard.labels, strict=True):
            yield label, None, Path(path).read_bytes()
    elif shard.kind == NDJSON:
        yield from _ndjson_items(shard)
    else:
        yield from _parquet_items(shard)


def _ndjson_items(shard: Shard) -> Iterator[Item]:
    (label,) = shard.labels
    with _open(shard.paths[0]) as handle:
        handle.seek(shard.start)  # a gzipped file inflates up to there
        data = handle.read(shard.stop - shard.start)
    for number, text in enumerate(data.split(b"\n"), start=shard.first_line):
        if text.strip():
            yield label, number, text


def _parquet_items(shard: Shard) -> Iterator[Item]:
    """The rows of the shard, reading only the row groups that hold them."""
    (label,) = shard.labels
    parquet = pq.ParquetFile(shard.paths[0])
    _log_column(parquet, label)
    first = 0
    groups = []
    for g in range(parquet.metadata.num_row_groups):
        rows = parquet.metadata.row_group(g).num_rows
        if first < shard.stop and first + rows > shard.start:
            groups.append(g)
            if len(groups) == 1:
                skip = shard.start - first
        first += rows
    if not groups:
        return
    column = parquet.read_row_groups(groups, columns=[LOG_COLUMN]).column(0)
    values = column.slice(skip, shard.stop - shard.start).to_pylist()
    for row, value in enumerate(values, start=shard.start + 1):
        yield label, row, _as_bytes(value)

"""Cutting NDJSON inputs into shards: the block-wise cut gives the shards a plain
line-by-line reading gives (the same bytes, lines, counts and digests), whatever the
blank lines, the line endings, a last line without a newline, gzip, or a line that
straddles two blocks; and every shard's games read back are the file's games."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.audit import sources
from service.audit.sources import cut, items


def line_by_line(data: bytes, shard_size: int) -> list[tuple[int, int, int, int, str]]:
    """(start, stop, first line, games, digest) of each shard, reading line by line:
    ``shard_size`` non-blank lines a shard, with the blank lines before the next one."""
    shards, start, first, games, offset = [], 0, 1, 0, 0
    digest = hashlib.blake2b(digest_size=16)
    texts = [line + b"\n" for line in data.split(b"\n")]
    texts[-1] = texts[-1][:-1]  # after the last newline: the last line, or nothing
    for number, text in enumerate(filter(None, texts), start=1):
        if games == shard_size and text.strip():
            shards.append((start, offset, first, games, digest.hexdigest()))
            start, first, games, digest = offset, number, 0, hashlib.blake2b(digest_size=16)
        digest.update(text)
        offset += len(text)
        games += bool(text.strip())
    if games:
        shards.append((start, offset, first, games, digest.hexdigest()))
    return shards


LINES = st.lists(st.one_of(
    st.just(b""), st.just(b"   "), st.just(b"\t \x0c"), st.just(b" {\"a\": 1}"),
    st.binary(min_size=1, max_size=40).map(lambda b: b"{" + b.replace(b"\n", b"").replace(
        b"\r", b"") + b"}"),
    st.just(b"{\"log\": 2}\r")), max_size=30)


@given(lines=LINES, shard_size=st.integers(1, 5), block=st.integers(1, 64),
       newline_at_end=st.booleans())
def test_the_block_wise_cut_is_the_line_by_line_one(tmp_path_factory, lines, shard_size,
                                                    block, newline_at_end):
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    path = tmp_path_factory.mktemp("cut") / "games.ndjson"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sources, "BLOCK", block)
        shards = cut([str(path)], shard_size)
    assert [(s.start, s.stop, s.first_line, s.games, s.digest) for s in shards] \
        == line_by_line(data, shard_size)
    read = [text for shard in shards for _, _, text in items(shard)]
    assert read == [line for line in data.split(b"\n") if line.strip()]


def test_a_gzipped_file_is_cut_as_its_text(tmp_path: Path):
    lines = [b'{"game": %d}' % k if k % 4 else b"  " for k in range(40)]
    text = b"\n".join(lines) + b"\n"
    plain, packed = tmp_path / "a.ndjson", tmp_path / "b.ndjson.gz"
    plain.write_bytes(text)
    packed.write_bytes(gzip.compress(text))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sources, "BLOCK", 50)
        shards = {p: cut([str(p)], 7) for p in (plain, packed)}
    assert [(s.start, s.stop, s.first_line, s.games, s.digest) for s in shards[packed]] \
        == [(s.start, s.stop, s.first_line, s.games, s.digest) for s in shards[plain]] \
        == line_by_line(text, 7)
    assert [(n, t) for s in shards[packed] for _, n, t in items(s)] \
        == [(n, t) for n, t in enumerate(lines, 1) if t.strip()]

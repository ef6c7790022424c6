"""The ``moves`` table of a game, kept compact: its columns are built once per move
object, and turned into rows or an Arrow table only where they are written.

A four-player Rummy game has some 440 moves, and most of them are draws and discards
the engine shares between every game of the process (``model.move_of``).  So a record
keeps, per move, one shared tuple of the columns the move object decides (its seat,
action, source, card, cards, meld), and per deal its number of moves; the rest of a
row (game id, deal and move numbers, player name) follows from the position.  Building
one tuple of nine columns per move and having Arrow convert them, value by value, cost
more than verifying the game's moves in the first place.  ``moves_table`` instead
converts each distinct move once and lets Arrow repeat it (``take``); ``move_rows``
gives the same rows as plain tuples (the store's appenders, single uploads), so both
come from this one definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from ..engine.cards import CARD_NAMES
from ..engine.model import Move
from .rows import columns

# A move's columns by the move's id.  The move objects are held while their ids are
# cached (``_HELD``): a live object's id cannot be another live object's, so a hit is
# always the move itself.
_COLUMNS: dict[int, tuple] = {}
_HELD: list[Move] = []
_KEPT = 1 << 16
_cached = _COLUMNS.get
_NAME = CARD_NAMES.__getitem__  # a card's code (``cards.card_name``)

_MOVES = pa.schema(columns("moves"))
# The columns a move object decides: the seat, then the table's columns from ``action``.
_OWN = pa.struct([("seat", pa.int64()), *columns("moves")[4:]])


class Compact(Protocol):
    """What ``moves_table`` and ``move_rows`` read of a record (``GameRecord``)."""

    id: str
    players: Sequence[str]  # the names by seat
    move_counts: list[int]  # moves per deal
    move_columns: list[tuple]  # per move, in order: seat, action, source, card, cards, meld


def _columns(move: Move) -> tuple:
    """What the move decides: seat, action, source, card, cards (meld cards; declared
    melds separated by ' | '; a reshuffle's new stock), meld."""
    cards = None
    if move.cards is not None:
        cards = " ".join(map(_NAME, move.cards))
    elif move.melds is not None:
        cards = " | ".join(" ".join(map(_NAME, meld)) for meld in move.melds)
    elif move.stock is not None:
        cards = " ".join(map(_NAME, move.stock))
    return (move.player, move.action, move.source,
            None if move.card is None else _NAME(move.card), cards, move.meld)


def deal_columns(moves: Sequence[Move]) -> list[tuple]:
    """The columns of each of a deal's moves (one shared tuple per move object)."""
    found = list(map(_cached, map(id, moves)))
    if None not in found:
        return found
    if len(_COLUMNS) + len(moves) > _KEPT:  # the tuples found stay right: they are values
        _COLUMNS.clear()
        _HELD.clear()
    for k, move in enumerate(moves):
        if found[k] is None:
            own = _cached(id(move))
            if own is None:
                own = _COLUMNS[id(move)] = _columns(move)
                _HELD.append(move)
            found[k] = own
    return found


def move_rows(record: Compact) -> list[tuple]:
    """The record's rows of ``moves`` as tuples, in the table's column order."""
    gid, names, own = record.id, record.players, record.move_columns
    rows: list[tuple] = []
    start = 0
    for d, count in enumerate(record.move_counts):
        rows += [(gid, d, m, names[c[0]], *c[1:])
                 for m, c in enumerate(own[start:start + count])]
        start += count
    return rows


def _runs(ends: pa.Array, values: pa.Array) -> pa.Array:
    """Each value repeated up to its run's end (a row number, exclusive).  Built from
    buffers: ``RunEndEncodedArray.from_arrays`` tries to import dateutil on every call,
    which costs more than the rest of the table when it is not installed."""
    kind = pa.run_end_encoded(pa.int64(), values.type)
    return pc.run_end_decode(pa.Array.from_buffers(kind, ends[-1].as_py(), [None],
                                                   children=[ends, values]))


_COUNT: list[pa.Array] = [pa.array(range(1 << 14), pa.int64())]


def _count(n: int) -> pa.Array:
    """0, 1, ... n - 1 (a slice of one array kept for the process)."""
    if len(_COUNT[0]) < n:
        _COUNT[0] = pa.array(range(max(n, 2 * len(_COUNT[0]))), pa.int64())
    return _COUNT[0].slice(0, n)


def moves_table(records: Sequence[Compact]) -> pa.Table:
    """The rows of ``moves`` of every record, in order, as one Arrow table: each
    distinct move converted once, its columns repeated by index.  Python works per
    deal and per distinct move; what is done per move runs in C (the ids, and Arrow's
    dictionary encoding and ``take``)."""
    own = list(chain.from_iterable(r.move_columns for r in records))
    if not own:
        return _MOVES.empty_table()
    # The distinct tuples (by id: the records hold them, so ids are not reused), each
    # row's index among them, and the position of each one's first row.
    ids = pa.array(list(map(id, own)), pa.int64())
    keys = ids.dictionary_encode()
    code = keys.indices
    firsts = pc.index_in(keys.dictionary, value_set=ids).to_pylist()
    palette = pa.array([own[k] for k in firsts], type=_OWN)
    # Per deal with moves: where its rows end, its number, its game's id, and the index
    # in ``names`` of its game's seat 0 (a move's player is at that plus its seat).
    ends: Any = []
    deal_nos, gids, first, names = [], [], [], []
    row = 0
    for r in records:
        for d, count in enumerate(r.move_counts):
            if count:
                row += count
                ends.append(row)
                deal_nos.append(d)
                gids.append(r.id)
                first.append(len(names))
        names.extend(r.players)
    starts = pa.array([0, *ends[:-1]], pa.int64())
    ends = pa.array(ends, pa.int64())
    seat = pc.add(palette.field("seat").take(code), _runs(ends, pa.array(first, pa.int64())))
    arrays: list[Any] = [_runs(ends, pa.array(gids, pa.string())),
                         _runs(ends, pa.array(deal_nos, pa.int64())),
                         pc.subtract(_count(row), _runs(ends, starts)),
                         pa.array(names, pa.string()).take(seat)]
    arrays += [palette.field(name).take(code) for name in _MOVES.names[4:]]
    return pa.Table.from_arrays(arrays, schema=_MOVES)

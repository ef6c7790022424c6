"""The ``moves`` table of a game, kept compact until it is written.

A four-player Rummy game has some 430 moves, and most of them are draws and discards
the parser shares between every game of the process.  A record keeps the engine's own
move objects (immutable, one tuple per deal); ``columns_of`` converts a move object to
the columns it decides (its seat, action, source, card, cards, meld), once for a shared
one, and the rest of a row (game id, deal and move numbers, player name) follows from
the position.  Building one tuple of nine columns per move and having Arrow convert
them value by value cost more than a third of verifying the game.  ``moves_table``
instead converts each distinct move object once and lets Arrow repeat it (``take``);
``move_rows`` gives the same rows as plain tuples (the store's appenders, single
uploads), so both come from this one definition.

A record pickled (a single upload on its way to the store's process) carries its
moves' columns instead: plain values pickle as cheaply as rows, where a move object
cost microseconds to pickle and to rebuild.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from ..engine.cards import CARD_NAMES
from ..engine.model import DISCARD, DRAW, Move
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
    deal_moves: list[Sequence[Move | tuple]]  # each deal's moves, or their columns


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


def columns_of(moves: Sequence[Move | tuple]) -> list[tuple]:
    """The columns of each move (a shared tuple for a draw or a discard); a tuple is
    its columns already.  Only draws and discards are cached: the parser shares them
    between games, and builds every other move anew (a meld, a knock), whose id would
    not be seen again."""
    found = list(map(_cached, map(id, moves)))
    if None not in found:
        return found
    return [_convert(move) if own is None else own
            for own, move in zip(found, moves, strict=True)]


def _convert(move: Move | tuple) -> tuple:
    """The columns of a move not cached (cached if a draw or a discard)."""
    if type(move) is tuple:  # its columns already (a record that came by pickle)
        return move
    own = _columns(move)
    if move.action is DRAW or move.action is DISCARD:
        if len(_COLUMNS) >= _KEPT:  # the tuples given before stay right: they are values
            _COLUMNS.clear()
            _HELD.clear()
        _COLUMNS[id(move)] = own
        _HELD.append(move)
    return own


def move_rows(record: Compact) -> list[tuple]:
    """The record's rows of ``moves`` as tuples, in the table's column order."""
    gid, names = record.id, record.players
    return [(gid, d, m, names[c[0]], *c[1:])
            for d, moves in enumerate(record.deal_moves)
            for m, c in enumerate(columns_of(moves))]


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
    distinct move object converted once, its columns repeated by index.  Python works
    per deal and per distinct move; what is done per move runs in C (the ids, Arrow's
    dictionary encoding and ``take``)."""
    # Per deal with moves: where its rows end, its number, its game's id, and the index
    # in ``names`` of its game's seat 0 (a move's player is at that plus its seat).
    ends: Any = []
    deal_nos, gids, first, names, own = [], [], [], [], []
    row = 0
    for r in records:
        for d, moves in enumerate(r.deal_moves):
            if moves:
                row += len(moves)
                ends.append(row)
                deal_nos.append(d)
                gids.append(r.id)
                first.append(len(names))
                own += moves
        names.extend(r.players)
    if not row:
        return _MOVES.empty_table()
    # The distinct moves (by id: the records hold them, so no id is another's), each
    # row's index among them, and the first row of each.
    ids = pa.array(list(map(id, own)), pa.int64())
    keys = ids.dictionary_encode()
    code = keys.indices
    firsts = pc.index_in(keys.dictionary, value_set=ids).to_pylist()
    palette = pa.array(columns_of([own[k] for k in firsts]), type=_OWN)
    starts = pa.array([0, *ends[:-1]], pa.int64())
    ends = pa.array(ends, pa.int64())
    seat = pc.add(palette.field("seat").take(code), _runs(ends, pa.array(first, pa.int64())))
    arrays: list[Any] = [_runs(ends, pa.array(gids, pa.string())),
                         _runs(ends, pa.array(deal_nos, pa.int64())),
                         pc.subtract(_count(row), _runs(ends, starts)),
                         pa.array(names, pa.string()).take(seat)]
    arrays += [palette.field(name).take(code) for name in _MOVES.names[4:]]
    return pa.Table.from_arrays(arrays, schema=_MOVES)

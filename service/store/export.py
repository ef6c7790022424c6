"""Exports of stored games: the raw logs (NDJSON) and the per-deal results (Parquet).

Both take the /games filters (:class:`GameFilter`, the same WHERE clauses as the game
list) and both keep memory bounded whatever the number of games:

* the logs are read newest first in pages of :data:`PAGE_SIZE` games, each page a
  query of its own continuing below the last ``seq`` seen (keyset), so no cursor stays
  open while the client reads and games stored meanwhile (higher ``seq``) never appear
  in the middle of the walk;
* the deal results are written by DuckDB itself (``COPY ... TO ... (FORMAT parquet)``)
  into a private temporary directory, then read back a block at a time and deleted.

Both are one snapshot (the rule of ``StoreReads``): the Parquet file is one statement;
the pages of logs are several, yet they hold the games of the first page's snapshot
exactly, as games are only ever added, numbered in the order they are committed (a
commit's ``seq`` is above every ``seq`` committed before it), and the walk keeps below
the first page's numbers.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .db import GameFilter, Reader, as_stored, filter_sql, keyset_sql

PAGE_SIZE = 100  # logs per query: at most this many uploaded logs are held at once
BLOCK_SIZE = 256 << 10  # bytes per chunk when streaming the Parquet file

# One row per deal per player who took part in it, newest game first, then by deal and
# seat.  The filters apply to the games (the subquery), as on GET /games.
_DEAL_COLUMNS = """
    dp.game_id, dp.deal_no, g.variant, dp.player, gp.seat, gp.team,
    dp.points, dp.conceded, dp.hand_value, dp.won, dp.outcome, dp.is_first, dp.is_knocker,
    dp.scored,
    d.illegal AS deal_illegal, d.dealer, d.winner AS deal_winner, d.turns,
    g.status, g.finished, g.game_time, g.played_at, g.uploaded_at,
    g.tournament_id, g.tournament_round, g.tournament_table
"""
DEAL_RESULT_COLUMNS: tuple[str, ...] = tuple(
    part.strip().split()[-1].split(".")[-1] for part in _DEAL_COLUMNS.split(","))


def iter_logs(store: Reader, where: GameFilter) -> Iterator[bytes]:
    """The matching games' logs exactly as uploaded, newest first, one query per page
    of :data:`PAGE_SIZE` (read when each page is fetched, so tests can lower it)."""
    before: int | None = None
    where = as_stored(store, where)
    while True:
        size = PAGE_SIZE
        sql, page_params = keyset_sql("seq, log", where, size, before)
        with store.cursor() as cur:
            rows = cur.execute(sql, page_params).fetchall()
        for _, log in rows:
            yield bytes(log)
        if len(rows) < size:
            return
        before = rows[-1][0]


class TempExport:
    """A file written into a private temporary directory, streamed once then deleted.

    :meth:`blocks` deletes the directory when the stream ends or is closed (a client
    that hangs up); :meth:`remove` does it for a response that is never streamed.  Both
    may run: the second does nothing.
    """

    def __init__(self, directory: Path, path: Path, rows: int):
        self.directory = directory
        self.path = path
        self.rows = rows
        self.size = path.stat().st_size

    def blocks(self, block_size: int = BLOCK_SIZE) -> Iterator[bytes]:
        try:
            with self.path.open("rb") as handle:
                while block := handle.read(block_size):
                    yield block
        finally:
            self.remove()

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def deal_results_parquet(store: Reader, where: GameFilter) -> TempExport:
    """The per-deal results of the matching games written as one Parquet file by
    DuckDB's COPY; the caller streams it with :meth:`TempExport.blocks`."""
    clauses, params = filter_sql(as_stored(store, where))
    games = ("SELECT id, seq, variant, status, finished, game_time, played_at, uploaded_at, "
             "tournament_id, tournament_round, tournament_table FROM games")
    if clauses:
        games += " WHERE " + " AND ".join(clauses)
    query = (f"SELECT {_DEAL_COLUMNS} FROM ({games}) g "
             "JOIN deal_players dp ON dp.game_id = g.id "
             "JOIN deals d ON d.game_id = dp.game_id AND d.deal_no = dp.deal_no "
             "LEFT JOIN game_players gp ON gp.game_id = dp.game_id AND gp.player = dp.player "
             "ORDER BY g.seq DESC, dp.deal_no, gp.seat")
    directory = Path(tempfile.mkdtemp(prefix="rummy-export-"))
    path = directory / "deals.parquet"
    try:
        with store.cursor() as cur:
            row = cur.execute(f"COPY ({query}) TO ? (FORMAT parquet, COMPRESSION zstd)",
                              [*params, os.fspath(path)]).fetchone()
        return TempExport(directory, path, int(row[0]) if row else 0)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise

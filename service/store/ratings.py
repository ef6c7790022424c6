"""The ratings tables, kept in step with the stored games (docs/RATINGS.md).

The store rates new games in the transaction that stores them, so a game and its
ratings are committed together or not at all.  ``rating_history`` holds every
player's rating after each rated game; the current ratings are the view ``ratings``
(each player's last row).  ``Keeper`` holds each pool's current ratings in memory
(read from the view once) and the order key of its last rated game.  New games that come after it extend the pool: they are rated on the ratings in
memory and appended.  A game that comes before it (an earlier ``played_at`` stored
later), or the deletion of a rated game, replays the pool from that game's place: the
ratings as they stood just before it are read back from ``rating_history``, the
history from there on is dropped, and every counted game from there on is rated
again, in order; a restored game replays its pool from its place the same way.  Both give exactly what a recompute from scratch gives (tested);
benchmarks/ratings.py measures both.

The SQL of the ratings lives here; the model is ``service.ratings``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from ..ratings import (
    Ledger,
    RatedGame,
    Rating,
    Update,
    counts,
    initial_rating,
    order_key,
    rate_game,
)
from ..ratings.model import DESCRIPTION
from .rows import GamePlayerRow, GameRow, columns

_STRUCTS = {"rating_history": pa.struct(columns("rating_history"))}
LIVE_GAMES = "g.id NOT IN (SELECT game_id FROM deletions)"
Key = tuple[datetime, int]

# Every counted game of a pool, with its seats in order: what rating needs of it.
_GAMES_SQL = f"""
SELECT g.id, g.variant, g.game_time, g.seq, g.lower_wins, g.winner,
       list(gp.player ORDER BY gp.seat) AS players, list(gp.team ORDER BY gp.seat) AS teams,
       list(gp.points ORDER BY gp.seat) AS totals
FROM games g JOIN game_players gp ON gp.game_id = g.id
WHERE g.finished AND g.status IN ('valid', 'mismatch') AND {LIVE_GAMES}{{where}}
GROUP BY g.id, g.variant, g.game_time, g.seq, g.lower_wins, g.winner
ORDER BY g.variant, date_trunc('second', g.game_time), g.seq"""
# A game's place in its pool (``order_key``): its time to the second, then its upload order.
_AT = "date_trunc('second', game_time)"
_AFTER = f" AND ({_AT} > ? OR ({_AT} = ? AND seq >= ?))"
_BEFORE = f" AND ({_AT} < ? OR ({_AT} = ? AND seq < ?))"


def _rated(row: Sequence[Any]) -> RatedGame:
    gid, variant, at, seq, lower_wins, winner, players, teams, totals = row
    return RatedGame(gid, variant, at, seq, lower_wins, winner, tuple(players), tuple(teams),
                     tuple(totals))


def _games_sql(variant: str | None, since: Key | None, until_seq: int | None = None,
               after_seq: int | None = None) -> tuple[str, list[Any]]:
    where, params = "", []
    if variant is not None:
        where += " AND g.variant = ?"
        params.append(variant)
    if since is not None:
        where += _AFTER.replace("game_time", "g.game_time").replace("seq", "g.seq")
        params += [since[0], since[0], since[1]]
    if until_seq is not None:
        where += " AND g.seq <= ?"
        params.append(until_seq)
    if after_seq is not None:
        where += " AND g.seq > ?"
        params.append(after_seq)
    return _GAMES_SQL.format(where=where), params


def counted_games(cur: Any, variant: str | None = None, since: Key | None = None,
                  until_seq: int | None = None) -> list[RatedGame]:
    """The counted games (not deleted), by pool then in order; of one pool, from the
    place ``since`` on (included); only those stored up to ``until_seq`` when given
    (the later ones wait for the catch-up)."""
    return [_rated(row) for row in
            cur.execute(*_games_sql(variant, since, until_seq)).fetchall()]


def unrated_games(cur: Any) -> list[RatedGame]:
    """The counted games stored after the last rated one (by ``seq``): what the rating
    catch-up had not rated when its process ended (``rating_catchup``)."""
    last = cur.execute("SELECT coalesce(max(seq), 0) FROM rating_history").fetchone()[0]
    games = [_rated(row) for row in
             cur.execute(*_games_sql(None, None, after_seq=last)).fetchall()]
    return sorted(games, key=lambda game: game.seq)


def counted_batches(cur: Any, size: int = 10_000) -> Iterator[list[RatedGame]]:
    """Every counted game as ``counted_games``, read at once as one Arrow table (compact:
    a few bytes a seat) and handed out ``size`` games at a time, so that the cursor is
    free for other statements meanwhile."""
    sql, params = _games_sql(None, None)
    relation = cur.sql(sql, params=params)
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    table = fetch()
    for batch in table.to_batches(size):
        yield [_rated(row) for row in zip(*batch.to_pydict().values(), strict=True)]


# --------------------------------------------------------------------------- new games

_G = {name: i for i, name in enumerate(GameRow._fields)}  # records are plain tuples
_P = {name: i for i, name in enumerate(GamePlayerRow._fields)}


def from_records(records: Sequence[Any], seq: int) -> list[RatedGame]:
    """The counted games among records (``GameRecord``) numbered from ``seq + 1``."""
    out = []
    for k, record in enumerate(records, 1):
        g = record.games
        if not counts(g[_G["status"]], g[_G["finished"]]):
            continue
        seats = sorted(record.game_players, key=lambda row: row[_P["seat"]])
        out.append(RatedGame(
            g[_G["id"]], g[_G["variant"]], g[_G["game_time"]], seq + k, g[_G["lower_wins"]],
            g[_G["winner"]], tuple(r[_P["player"]] for r in seats),
            tuple(r[_P["team"]] for r in seats), tuple(r[_P["points"]] for r in seats)))
    return out


GAME_COLUMNS = ["id", "variant", "status", "finished", "game_time", "lower_wins", "winner"]
SEAT_COLUMNS = ["seat", "player", "team", "points"]


def from_arrow(tables: dict[str, pa.Table], counts_of: dict[str, list[int]],
               seq: int) -> list[RatedGame]:
    """The counted games among rows built as Arrow tables (``GameRows``), numbered
    from ``seq + 1``."""
    games = tables["games"].select(GAME_COLUMNS).to_pydict()
    seats = tables["game_players"].select(SEAT_COLUMNS).to_pydict()
    out = []
    start = 0
    for k, n in enumerate(counts_of["game_players"]):
        lo, start = start, start + n
        if not counts(games["status"][k], games["finished"][k]):
            continue
        order = sorted(range(lo, lo + n), key=seats["seat"].__getitem__)
        out.append(RatedGame(games["id"][k], games["variant"][k], games["game_time"][k],
                             seq + k + 1, games["lower_wins"][k], games["winner"][k],
                             tuple(seats["player"][i] for i in order),
                             tuple(seats["team"][i] for i in order),
                             tuple(seats["points"][i] for i in order)))
    return out


# --------------------------------------------------------------------------- rows

def _history_rows(updates: Iterable[Update]) -> list[tuple]:
    return [(u.game.variant, u.game.id, u.game.at, u.game.seq, u.player, u.rank,
             u.before.mu, u.before.sigma, u.after.mu, u.after.sigma, u.after.games)
            for u in updates]


def _insert(cur: Any, table: str, rows: list[tuple]) -> None:
    if rows:
        cur.from_arrow(pa.Table.from_struct_array(pa.array(rows, type=_STRUCTS[table]))
                       ).insert_into(table)


# --------------------------------------------------------------------------- the keeper

TAIL = 4096  # a pool's last rated games kept in memory, for replays without reading back


@dataclass(frozen=True, slots=True)
class Rated:
    """A game of a pool's tail, with its players' ratings just before it (None: none)."""

    game: RatedGame
    before: dict[str, Rating | None]


@dataclass
class Pending:
    """What a transaction changed, applied to the keeper's memory once it commits:
    per pool, the new ratings of the players it touched, the ratings it removed, the
    new last key, and its tail (the entries kept, then the new ones)."""

    ratings: dict[str, dict[str, Rating]] = field(default_factory=dict)
    removed: dict[str, set[str]] = field(default_factory=dict)
    last: dict[str, Key | None] = field(default_factory=dict)
    tails: dict[str, tuple[int, list[Rated]]] = field(default_factory=dict)


def _rate_in_order(games: Iterable[RatedGame], state: ChainMap,
                   entries: list[Rated]) -> list[tuple]:
    """Rate games in order on ``state``: their history rows; each game recorded in
    ``entries`` with its players' ratings before it."""
    rows: list[tuple] = []
    for game in games:
        entries.append(Rated(game, {p: state.get(p) for p in game.players}))
        rows += _history_rows(rate_game(game, state))
    return rows


class Keeper:
    """Each pool's ratings in memory, as committed, for the store's one writer."""

    def __init__(self) -> None:
        self._ledgers: dict[str, Ledger] | None = None
        # Per pool, its last rated games in order: every game after the first one is
        # there.  Empty after a start or a recompute, it fills as games are rated.
        self._tails: dict[str, list[Rated]] = {}
        self.replays = 0  # replays read back from the tables (counted for benchmarks)

    def _loaded(self, cur: Any) -> dict[str, Ledger]:
        if self._ledgers is None:
            ledgers: dict[str, Ledger] = {}
            for variant, player, mu, sigma, games, last_played in cur.execute(
                    "SELECT variant, player, mu, sigma, games, last_played FROM ratings"
                    ).fetchall():
                ledger = ledgers.setdefault(variant, Ledger())
                ledger.ratings[player] = Rating(mu, sigma, games, last_played)
            for variant, at, seq in cur.execute(
                    f"SELECT variant, {_AT}, seq FROM rating_history QUALIFY row_number() "
                    f"OVER (PARTITION BY variant ORDER BY {_AT} DESC, seq DESC) = 1"
                    ).fetchall():
                ledgers.setdefault(variant, Ledger()).last = (at, seq)
            self._ledgers = ledgers
        return self._ledgers

    def forget(self) -> None:
        """Drop the memory (read again from the tables at the next write)."""
        self._ledgers = None
        self._tails = {}

    def commit(self, pending: Pending | None) -> None:
        """Apply what a committed transaction changed."""
        if pending is None or self._ledgers is None:
            return
        for variant, changed in pending.ratings.items():
            self._ledgers.setdefault(variant, Ledger()).ratings.update(changed)
        for variant, players in pending.removed.items():
            for player in players:
                self._ledgers[variant].ratings.pop(player, None)
        for variant, last in pending.last.items():
            self._ledgers.setdefault(variant, Ledger()).last = last
        for variant, (kept, entries) in pending.tails.items():
            tail = self._tails.get(variant, [])[:kept] + entries
            self._tails[variant] = tail[-TAIL:]

    # -- writes, inside the caller's transaction ----------------------------------------

    def add(self, cur: Any, games: list[RatedGame],
            append: Callable[[list[tuple]], None] | None = None,
            flush: Callable[[], None] | None = None,
            until_seq: int | None = None) -> Pending:
        """Rate new games, stored already or inserted by this transaction.  History rows
        of games that extend their pool go to ``append`` (the writer's appender, flushed
        with the games' rows) when given; before a replay, which reads the games back,
        ``flush`` writes the rows buffered so far.  A replay reads back the games stored
        up to ``until_seq`` only, when given (the last of ``games``: the ones after it
        are not rated yet)."""
        pending = Pending()
        if not games:
            return pending
        ledgers = self._loaded(cur)
        by_pool: dict[str, list[RatedGame]] = {}
        for game in games:
            by_pool.setdefault(game.variant, []).append(game)
        history: list[tuple] = []
        for variant, pool in by_pool.items():
            pool.sort(key=order_key)
            ledger = ledgers.get(variant) or Ledger()
            tail = self._tails.get(variant, [])
            changed: dict[str, Rating] = {}
            entries: list[Rated] = []
            if ledger.extends(pool[0]):
                history += _rate_in_order(pool, ChainMap(changed, ledger.ratings), entries)
                pending.tails[variant] = (len(tail), entries)
            elif (tail and order_key(tail[0].game) < order_key(pool[0])
                  and order_key(tail[-1].game) > order_key(pool[0])):
                # Late, but after the first game of the tail: replayed from memory.
                since = order_key(pool[0])
                cut = bisect_right([order_key(r.game) for r in tail], since)
                for rated in tail[cut:]:
                    for player, before in rated.before.items():
                        changed.setdefault(player, before or initial_rating())
                again = [rated.game for rated in tail[cut:]]
                cur.execute("DELETE FROM rating_history WHERE variant = ? AND seq >= ? "
                            "AND game_id IN (SELECT unnest(?))",
                            [variant, min(g.seq for g in again), [g.id for g in again]])
                history += _rate_in_order(sorted(again + pool, key=order_key),
                                          ChainMap(changed, ledger.ratings), entries)
                pending.tails[variant] = (cut, entries)
            else:  # before the tail, or a tail that does not reach the pool's last game
                if flush is not None:
                    flush()
                self._replay(cur, variant, order_key(pool[0]), pending, until_seq)
                continue
            pending.ratings[variant] = changed
            pending.last[variant] = max(ledger.last or order_key(pool[-1]),
                                        order_key(pool[-1]))
        if append is None:
            _insert(cur, "rating_history", history)
        else:
            append(history)
        return pending

    def remove(self, cur: Any, gid: str, until_seq: int | None = None) -> Pending:
        """Undo a deleted game (its deletion recorded already in this transaction): its
        pool replayed from its place, when it was rated; over the games stored up to
        ``until_seq`` only, when given (games inserted by the same transaction after it
        are rated as new games, by the catch-up)."""
        pending = Pending()
        self._loaded(cur)
        row = cur.execute(f"SELECT variant, {_AT}, seq FROM rating_history "
                          "WHERE game_id = ? LIMIT 1", [gid]).fetchone()
        if row is not None:
            self._replay(cur, row[0], (row[1], row[2]), pending, until_seq)
        return pending

    def restore(self, cur: Any, gid: str) -> Pending:
        """Rate a restored game again (its deletion removed already in this transaction):
        its pool replayed from its place when it counts, so that the ratings are the
        ones it would have had, never withdrawn (as ``remove`` replays for a deletion).
        The games stored are all rated (the caller caught up first), so no bound."""
        pending = Pending()
        self._loaded(cur)
        row = cur.execute(f"SELECT variant, {_AT}, seq FROM games WHERE id = ? AND finished "
                          "AND status IN ('valid', 'mismatch')", [gid]).fetchone()
        if row is not None:
            self._replay(cur, row[0], (row[1], row[2]), pending)
        return pending

    def _replay(self, cur: Any, variant: str, since: Key, pending: Pending,
                until_seq: int | None = None) -> None:
        """Rate the pool's counted games again from ``since`` on (stored up to
        ``until_seq``, when given)."""
        params = [variant, since[0], since[0], since[1]]
        before = {player: Rating(mu, sigma, games, at) for player, mu, sigma, games, at in
                  cur.execute(
                      "SELECT player, mu, sigma, games, game_time FROM rating_history "
                      f"WHERE variant = ?{_BEFORE} QUALIFY row_number() OVER (PARTITION BY "
                      f"player ORDER BY {_AT} DESC, seq DESC) = 1", params).fetchall()}
        dropped = {player for (player,) in cur.execute(
            f"DELETE FROM rating_history WHERE variant = ?{_AFTER} RETURNING player",
            params).fetchall()}
        self.replays += 1
        games = counted_games(cur, variant, since, until_seq)
        changed: dict[str, Rating] = {}
        entries: list[Rated] = []
        history = _rate_in_order(games, ChainMap(changed, dict(before)), entries)
        _insert(cur, "rating_history", history)
        pending.tails[variant] = (0, entries)  # every game after ``since``: a tail
        reverted = dropped - set(changed)
        pending.ratings[variant] = changed | {p: before[p] for p in reverted if p in before}
        pending.removed[variant] = {p for p in reverted if p not in before}
        if games:
            pending.last[variant] = order_key(games[-1])
        else:
            row = cur.execute(f"SELECT {_AT}, seq FROM rating_history WHERE variant = ? "
                              f"ORDER BY {_AT} DESC, seq DESC LIMIT 1", [variant]).fetchone()
            pending.last[variant] = None if row is None else (row[0], row[1])


def recompute(cur: Any, progress: Callable[[int], None] | None = None,
              total: Callable[[int], None] | None = None) -> int:
    """Rate every counted game again from scratch, in the caller's transaction: the
    ratings tables emptied and filled again, the model recorded.  ``total`` is told
    how many games there are, ``progress`` how many more were rated.  The number of
    games rated."""
    n = cur.execute(f"SELECT count(*) FROM games g WHERE g.finished AND g.status IN "
                    f"('valid', 'mismatch') AND {LIVE_GAMES}").fetchone()[0]
    if total is not None:
        total(n)
    cur.execute("DELETE FROM rating_history")
    ledgers: dict[str, Ledger] = {}
    history: list[tuple] = []
    rated = 0
    for batch in counted_batches(cur):
        for game in batch:
            ledger = ledgers.setdefault(game.variant, Ledger())
            history += _history_rows(rate_game(game, ledger.ratings))
            rated += 1
            if progress is not None and rated % 1000 == 0:
                progress(1000)
        if len(history) >= 50_000:
            _insert(cur, "rating_history", history)
            history = []
    if progress is not None and rated % 1000:
        progress(rated % 1000)
    _insert(cur, "rating_history", history)
    cur.execute("DELETE FROM rating_model")
    cur.execute("INSERT INTO rating_model VALUES (?, ?)", [DESCRIPTION, datetime.now(UTC)])
    return rated


def up_to_date(cur: Any) -> bool:
    """Whether the stored ratings follow the current model (else: recompute)."""
    row = cur.execute("SELECT description FROM rating_model LIMIT 1").fetchone()
    return row is not None and row[0] == DESCRIPTION


def mark_stale(cur: Any) -> None:
    """Record that the ratings no longer follow the games (a load without ratings):
    the next store opened with ratings recomputes them."""
    cur.execute("DELETE FROM rating_model")

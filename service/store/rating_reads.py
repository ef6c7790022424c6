"""Reads of the ratings tables: the rating leaderboard, a player's history, the current
ratings of some players.  docs/RATINGS.md defines them; the tables are kept by
``ratings``, deleted games already taken out.  User values reach DuckDB only as
parameters."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..ratings import Provisional, Rating
from .db import Reader
from .snapshots import Walk, page_rows

_AT = "date_trunc('second', game_time)"  # the order of rating (service.ratings.ledger)
BOARD_COLUMNS = ("variant", "player", "mu", "sigma", "ordinal", "games", "last_game",
                 "last_played")
HISTORY_COLUMNS = ("variant", "game_id", "game_time", "seq", "rank", "mu_before",
                   "sigma_before", "mu", "sigma", "games")


def caught_up(store: Reader) -> None:
    """Rate what the store's catch-up has not rated yet, so that a read of the ratings
    is never behind the games (a store without ratings, or a lake, has nothing to)."""
    catch_up = getattr(store, "catch_up_ratings", None)
    if catch_up is not None:
        catch_up()


def rating_board(store: Reader, variant: str | None, min_games: int,
                 provisional: bool | None, rule: Provisional, limit: int,
                 after: tuple[float, str, str] | None = None,
                 walk: Walk | None = None) -> list[dict[str, Any]]:
    """Ratings by ordinal, highest first, ties by variant then player; ``after`` is the
    (ordinal, variant, player) of the last row of the previous page.  ``provisional``
    keeps only provisional ratings (True) or only settled ones (False).  The ordinals
    move as games are stored: with ``walk`` the pages read its snapshot
    (``snapshots``), ``limit`` being one more than a page."""
    clauses, params = ["games >= ?"], [min_games]
    if variant is not None:
        clauses.append("variant = ?")
        params.append(variant)
    flag = "(sigma > ? OR games < ?)"
    if provisional is not None:
        clauses.append(flag if provisional else f"NOT {flag}")
        params += [rule.max_sigma, rule.min_games]
    if after is not None:
        clauses.append("(ordinal < ? OR (ordinal = ? AND (variant > ? OR "
                       "(variant = ? AND player > ?))))")
        params += [after[0], after[0], after[1], after[1], after[2]]
    caught_up(store)
    sql = (f"SELECT {', '.join(BOARD_COLUMNS)} FROM ratings WHERE {' AND '.join(clauses)} "
           "ORDER BY ordinal DESC, variant, player LIMIT ?")
    out = page_rows(store, sql, [*params, limit], walk, limit - 1)
    for entry in out:
        entry["provisional"] = rule(entry["sigma"], entry["games"])
    return out


def rating_history(store: Reader, player: str, variant: str | None, limit: int,
                   after: tuple[datetime, int] | None = None) -> list[dict[str, Any]]:
    """The player's rating before and after each rated game in the order the games were
    rated in (their time to the second, then upload order), continuing after the
    (time to the second, seq) ``after``."""
    clauses, params = ["player = ?"], [player]
    if variant is not None:
        clauses.append("variant = ?")
        params.append(variant)
    if after is not None:
        clauses.append(f"({_AT} > ? OR ({_AT} = ? AND seq > ?))")
        params += [after[0], after[0], after[1]]
    caught_up(store)
    sql = (f"SELECT {', '.join(HISTORY_COLUMNS)} FROM rating_history "
           f"WHERE {' AND '.join(clauses)} ORDER BY {_AT}, seq LIMIT ?")
    with store.cursor() as cur:
        rows = cur.execute(sql, [*params, limit]).fetchall()
    return [dict(zip(HISTORY_COLUMNS, row, strict=True)) for row in rows]


def rated_player(store: Reader, player: str, variant: str | None) -> bool:
    """Whether the player has a rating (in ``variant``, or in any)."""
    caught_up(store)
    sql, params = "SELECT count(*) FROM ratings WHERE player = ?", [player]
    if variant is not None:
        sql += " AND variant = ?"
        params.append(variant)
    with store.cursor() as cur:
        return cur.execute(sql, params).fetchone()[0] > 0


def current_ratings(store: Reader, variant: str, players: list[str]) -> dict[str, Rating]:
    """The current ratings of those of ``players`` rated in ``variant``."""
    caught_up(store)
    with store.cursor() as cur:
        rows = cur.execute("SELECT player, mu, sigma, games, last_played FROM ratings "
                           "WHERE variant = ? AND player IN (SELECT unnest(?))",
                           [variant, players]).fetchall()
    return {p: Rating(mu, sigma, games, at) for p, mu, sigma, games, at in rows}

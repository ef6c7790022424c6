"""The tournament desk's reads: a game's rulings with their history, and the games
withdrawn from a tournament (deleted, or replaced by a corrected log), the restorations
of a game.  The writes are the store's (``Store.set_ruling``, ``withdraw_ruling``,
``replace_game``, ``restore_game``)."""

from __future__ import annotations

from typing import Any

import orjson

from .db import Reader

_HISTORY = ("n", "ruling", "against", "reason", "by", "at", "withdrawn_at",
            "withdrawn_by", "withdrawn_reason")


def ruling_history(store: Reader, gid: str) -> list[dict[str, Any]]:
    """Every ruling recorded on ``gid``, oldest first: the last is in force unless
    withdrawn; each earlier one was superseded by the next (or withdrawn)."""
    with store.cursor() as cur:
        rows = cur.execute(
            "SELECT n, ruling, against, reason, ruled_by, ruled_at, withdrawn_at, "
            "withdrawn_by, withdrawn_reason FROM rulings WHERE game_id = ? ORDER BY n",
            [gid]).fetchall()
    return [dict(zip(_HISTORY, row, strict=True)) for row in rows]


def current_ruling(history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ruling in force of a history (``ruling_history``), or None."""
    if history and history[-1]["withdrawn_at"] is None:
        last = history[-1]
        return {key: last[key] for key in ("ruling", "against", "reason", "by", "at")}
    return None


_RESTORED = ("n", "restored_at", "restored_by", "reason", "deleted_at", "deleted_by",
             "deleted_reason", "replaced_by")


def restoration_history(store: Reader, gid: str) -> list[dict[str, Any]]:
    """Every restoration of ``gid``, oldest first: who restored it, when and why, and the
    withdrawal each undid (``deleted_at``, ``deleted_by``, ``deleted_reason``, and
    ``replaced_by`` when a correction had replaced it)."""
    with store.cursor() as cur:
        rows = cur.execute(
            "SELECT n, restored_at, restored_by, reason, deleted_at, deleted_by, "
            "deleted_reason, replaced_by FROM restorations WHERE game_id = ? ORDER BY n",
            [gid]).fetchall()
    return [dict(zip(_RESTORED, row, strict=True)) for row in rows]


_WITHDRAWN_SQL = """
SELECT g.id, g.tournament_round AS round, g.tournament_table AS "table", g.variant,
       g.status, g.players, d.deleted_at, d.deleted_by, d.reason, r.replaced_by
FROM games g
JOIN deletions d ON d.game_id = g.id
LEFT JOIN replacements r ON r.game_id = g.id
WHERE g.tournament_id = ?
ORDER BY d.deleted_at, g.seq
"""


def withdrawn_games(store: Reader, tournament_id: str) -> list[dict[str, Any]] | None:
    """The games of a tournament withdrawn (deleted or replaced), in the order they
    were withdrawn, with who withdrew them, when, why and the game that replaced them;
    None when no game, live or withdrawn, ever named the tournament."""
    known, withdrawn = store.read_many([
        ("SELECT count(*) AS n FROM games WHERE tournament_id = ?", [tournament_id]),
        (_WITHDRAWN_SQL, [tournament_id])])
    if not known.rows[0][0]:
        return None
    return withdrawn.dicts()


_RESTORED_SQL = """
SELECT g.id, g.tournament_round AS round, g.tournament_table AS "table", g.variant,
       g.status, r.n, r.restored_at, r.restored_by, r.reason, r.deleted_at, r.deleted_by,
       r.deleted_reason, r.replaced_by
FROM games g
JOIN restorations r ON r.game_id = g.id
WHERE g.tournament_id = ?
ORDER BY r.restored_at, g.seq, r.n
"""


def restored_games(store: Reader, tournament_id: str) -> list[dict[str, Any]]:
    """Every restoration of the tournament's games, in the order they were made: the
    game (id, round, table, variant, status) with ``restoration_history``'s fields."""
    [restored] = store.read_many([(_RESTORED_SQL, [tournament_id])])
    return restored.dicts()


def withdrawn_by_round(rows: list[dict[str, Any]], after_round: int | None
                       ) -> list[dict[str, Any]]:
    """The withdrawn games a view of the rounds up to ``after_round`` shows: those of
    those rounds, and those naming no round (all of them without ``after_round``)."""
    if after_round is None:
        return rows
    return [row for row in rows if row["round"] is None or row["round"] <= after_round]


def tournament_settings(store: Reader, tournament_id: str) -> dict[str, Any] | None:
    """A tournament's stored settings (``settings``: the JSON text, ``updated_at``,
    ``updated_by``), or None when none were set."""
    with store.cursor() as cur:
        row = cur.execute("SELECT settings, updated_at, updated_by FROM tournament_settings "
                          "WHERE tournament_id = ?", [tournament_id]).fetchone()
    return None if row is None else dict(zip(("settings", "updated_at", "updated_by"), row,
                                             strict=True))


def tournament_public(store: Reader, tournament_id: str) -> bool:
    """Whether the tournament's settings make it public (``"public": true``): readable
    without a read key.  One row by its key; no settings, or a document that does not
    say so, is not public."""
    with store.cursor() as cur:
        row = cur.execute("SELECT settings FROM tournament_settings WHERE tournament_id = ?",
                          [tournament_id]).fetchone()
    if row is None:
        return False
    try:
        document = orjson.loads(row[0])
    except orjson.JSONDecodeError:
        return False
    return isinstance(document, dict) and document.get("public") is True


def tournament_known(store: Reader, tournament_id: str) -> bool:
    """Whether a game (live or withdrawn) or settings ever named the tournament."""
    with store.cursor() as cur:
        return cur.execute(
            "SELECT EXISTS (SELECT 1 FROM games WHERE tournament_id = ?) OR EXISTS "
            "(SELECT 1 FROM tournament_settings WHERE tournament_id = ?)",
            [tournament_id, tournament_id]).fetchone()[0]

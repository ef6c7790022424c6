"""A tournament's schedule: which players sit at each table of each round (the optional
``schedule`` of its settings), and the two open matters it makes (docs/TOURNAMENTS.md,
"The schedule").  Plain Python over plain data, apart from ``game_off_schedule``, which
reads one tournament's settings.

* **schedule_mismatch**: a live game naming a scheduled round and table whose players,
  as a set, are not the ones scheduled there.  Names are compared exactly as stored,
  as the standings tell players apart: "José" at a table scheduled for "jose" is
  another player, whose points would go to another row of the standings.  The game
  counts for nothing until a ruling settles it (``counting``).
* **missing_table**: a scheduled table that no live game names, once its round is
  over, unless the schedule marks it ``not_played`` (with the reason).  A round is over
  once a live game of a later round is stored, or once the tournament's last day
  (``dates.end``) is before today's date in UTC.

Without a schedule there is neither matter, and every answer is as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import orjson

from .counting import MISSING_TABLE, SCHEDULE_MISMATCH, GameFacts
from .db import Reader


@dataclass(frozen=True)
class Slot:
    """One scheduled table: its round, its table, its players in the order given, and
    why it was not played (None: it was to be played)."""

    round: int
    table: str
    players: tuple[str, ...]
    not_played: str | None = None


def slots_of(settings: dict[str, Any] | None,
             after_round: int | None = None) -> list[Slot]:
    """The scheduled tables of stored settings (none without a schedule), in round
    order (the order given within a round); ``after_round``: those of rounds up to it."""
    entries = (settings or {}).get("schedule") or []
    slots = [Slot(int(entry["round"]), str(entry["table"]), tuple(entry["players"]),
                  entry.get("not_played")) for entry in entries]
    if after_round is not None:
        slots = [slot for slot in slots if slot.round <= after_round]
    return sorted(slots, key=lambda slot: slot.round)


def ended(settings: dict[str, Any] | None, today: date) -> bool:
    """Whether the tournament's last day (its settings' ``dates.end``) is before
    ``today``; False without dates."""
    dates = (settings or {}).get("dates")
    if not isinstance(dates, dict) or not isinstance(dates.get("end"), str):
        return False
    return date.fromisoformat(dates["end"]) < today


def _players(game: GameFacts) -> list[str]:
    return [seat.player for seat in game.seats]


def off_schedule(games: Sequence[GameFacts], slots: Sequence[Slot]) -> list[GameFacts]:
    """The games naming a scheduled round and table whose players, as a set, are not
    the scheduled ones; in the order given."""
    at = {(slot.round, slot.table): set(slot.players) for slot in slots}
    return [game for game in games
            if (game.round, game.table) in at
            and set(_players(game)) != at[(game.round, game.table)]]


def matters(games: Sequence[GameFacts], slots: Sequence[Slot],
            is_ended: bool) -> list[dict[str, Any]]:
    """The schedule's open matters: each game off its schedule without a ruling, in the
    order of the games; then each scheduled table of a round that is over with no live
    game and not marked not played, in round order.  Shaped as ``counting.matters``."""
    if not slots:
        return []
    out: list[dict[str, Any]] = []
    at = {(slot.round, slot.table): slot for slot in slots}
    for game in off_schedule(games, slots):
        if game.ruling is not None:
            continue
        slot = at[(game.round, game.table)]
        out.append({"kind": SCHEDULE_MISMATCH, "games": [game.id], "round": game.round,
                    "table": game.table,
                    "detail": f"game {game.id} (round {game.round}, table {game.table}): "
                              f"played by {', '.join(_players(game))}, scheduled for "
                              f"{', '.join(slot.players)}: it counts for nothing until "
                              "ruled"})
    named = {(game.round, game.table) for game in games}
    latest = max((game.round for game in games if game.round is not None), default=None)
    for slot in slots:
        if slot.not_played is not None or (slot.round, slot.table) in named:
            continue
        if is_ended:
            why = "the tournament's last day has passed"
        elif latest is not None and latest > slot.round:
            why = f"a game of round {latest} is stored"
        else:
            continue  # its round is not over
        out.append({"kind": MISSING_TABLE, "games": [], "round": slot.round,
                    "table": slot.table,
                    "detail": f"round {slot.round}, table {slot.table} (scheduled for "
                              f"{', '.join(slot.players)}): no game is stored, and the "
                              f"round is over ({why}): store its game, or mark it not "
                              "played in the schedule"})
    return out


def game_off_schedule(store: Reader, game: dict[str, Any]) -> bool:
    """Whether a stored game (``Store.get_game``'s row) names a round and table its
    tournament's schedule holds, with other players."""
    if game.get("tournament_id") is None or game.get("tournament_round") is None:
        return False
    with store.cursor() as cur:
        row = cur.execute("SELECT settings FROM tournament_settings WHERE tournament_id = ?",
                          [game["tournament_id"]]).fetchone()
    if row is None:
        return False
    for slot in slots_of(orjson.loads(row[0])):
        if (slot.round, slot.table) == (game["tournament_round"], game["tournament_table"]):
            return set(slot.players) != set(game["players"])
    return False

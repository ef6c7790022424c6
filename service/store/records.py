"""Turn a verified game into the rows of each table (plain tuples, no SQL here).

The game's id is a hash of its canonical JSON (keys sorted, no white space), so the
same log uploaded twice, however formatted, is the same game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

import orjson

from ..engine.limits import instant
from ..engine.model import Game, Move
from ..engine.report import Report
from .moves import columns_of, move_rows

ID_LENGTH = 24  # hex characters of the SHA-256 kept as the id


def game_id(document: Any) -> str:
    canonical = orjson.dumps(document, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()[:ID_LENGTH]


def parse_time(text: str | None) -> datetime | None:
    """The time of a log's ``played_at`` (the parser accepted it: in range)."""
    return instant(text) if text else None


@dataclass
class GameRecord:
    """One game's rows, ready for the tables of the same names (``moves`` kept compact,
    see ``moves``)."""

    id: str
    games: tuple
    players: tuple[str, ...] = ()  # the names by seat, which the moves' columns hold
    game_players: list[tuple] = field(default_factory=list)
    deals: list[tuple] = field(default_factory=list)
    deal_players: list[tuple] = field(default_factory=list)
    # Per deal, the engine's moves (or their columns, in a record that came by pickle).
    deal_moves: list[Sequence[Move | tuple]] = field(default_factory=list)
    violations: list[tuple] = field(default_factory=list)

    @property
    def moves(self) -> list[tuple]:
        """The rows of ``moves`` as tuples."""
        return move_rows(self)

    def __reduce__(self) -> tuple:
        """Pickled with each move as its columns (``moves.columns_of``), not the engine's
        object."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["deal_moves"] = [columns_of(moves) for moves in self.deal_moves]
        return (GameRecord, tuple(values.values()))


def build_record(document: dict[str, Any], raw: bytes, game: Game, report: Report,
                 uploader: str | None = None, uploaded_at: datetime | None = None,
                 gid: str | None = None) -> GameRecord:
    """All rows of one verified game.  ``seq`` (column 2 of ``games``) is set to 0 here
    and assigned by the store when the game is written."""
    gid = gid or game_id(document)
    uploaded_at = uploaded_at or datetime.now(UTC)
    names = game.players
    tournament = document.get("tournament") or {}
    played_at = parse_time(document.get("played_at"))
    at = played_at or uploaded_at
    variant = game.rules.variant
    status = report.status
    totals = report.totals
    finished = status in ("valid", "mismatch")  # illegal games count for no standing
    tid = tournament.get("id")
    n_moves = sum(len(d.moves) for d in game.deals)
    games = (gid, 0, uploaded_at, uploader, document.get("id"), variant, status, len(names),
             len(game.deals), n_moves, list(names), tid, tournament.get("round"),
             tournament.get("table"), played_at, at, report.leader, totals["margin"],
             finished, orjson.dumps(game.rules.as_dict()).decode(),
             orjson.dumps(document["meta"]).decode() if "meta" in document else None,
             orjson.dumps(report.to_dict()).decode(), raw, report.lower_wins)
    record = GameRecord(gid, games, names)

    # The engine's word on sides, the winner and shutouts: partners share a side.
    partnership = bool(game.teams)
    sides = report.sides
    claimed_totals = (game.claimed or {}).get("totals") or {}
    deals_of = dict.fromkeys(names, 0)
    for result in report.deals:
        for p in result.players:
            deals_of[p] += 1
    winner = totals["winner"]
    for seat, name in enumerate(names):
        side = sides.get(name, name)
        won = finished and winner is not None and winner == side
        lost = finished and winner is not None and not won
        record.game_players.append((
            gid, seat, name, side if partnership else None, variant, status, tid, at,
            totals["points"].get(name, 0), claimed_totals.get(name), won, lost, finished,
            report.shutouts if won else 0, deals_of[name]))

    for d, (deal, result) in enumerate(zip(game.deals, report.deals, strict=True)):
        scored = result.outcome is not None
        record.deals.append((
            gid, d, variant, len(result.players), names[deal.dealer], result.first,
            result.knocker, result.outcome, result.winner, result.turns, len(deal.moves),
            result.illegal, scored))
        deal_total = sum(result.points.values())
        for p in result.players:
            points = result.points.get(p, 0)
            record.deal_players.append((
                gid, d, p, variant, status, tid, at, result.outcome, points, deal_total - points,
                result.hand_values.get(p, 0), result.winner == p, result.first == p,
                result.knocker == p, scored))
        record.deal_moves.append(deal.moves)
    for v in report.violations:
        record.violations.append((gid, v.deal, v.move, v.player, v.code, v.message, variant,
                                  tid, at))
    return record

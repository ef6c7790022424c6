"""Which games are rated, and the places their sides took.

A game counts when the engine verified its result: it is finished and its status
is ``valid``, or ``mismatch`` (the log claims other scores, and the engine's are the
ones used).  Illegal and incomplete games have no result and are not rated.

Sides: every player on their own (two to six players, three-player gin included),
except partnership gin, where each team of two is one side.  Places come from the
verified game totals: the higher total ranks first, except under ``penalty``
scoring where the lower does; equal totals share a place (1, 2, 2, 4).  A
partnership game is ranked by its verified winner (the engine's team totals, which
hold the team bonuses): the winning team first, both first when there is none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

COUNTED = frozenset({"valid", "mismatch"})


def counts(status: str, finished: bool) -> bool:
    """Whether a stored game is rated: finished, and valid or mismatched."""
    return finished and status in COUNTED


@dataclass(frozen=True, slots=True)
class RatedGame:
    """What rating needs of a counted game: its pool (the variant), its time
    (``played_at``, else its upload time), its upload order, and per seat the player,
    their team (partnership gin, else None) and their verified total."""

    id: str
    variant: str
    at: datetime
    seq: int
    lower_wins: bool
    winner: str | None
    players: tuple[str, ...]
    teams: tuple[str | None, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Side:
    """The players who share one place, and the figure that ranks them (higher is
    better, whatever the scoring)."""

    players: tuple[str, ...]
    score: float


def sides(game: RatedGame) -> list[Side]:
    """The game's sides, in seat order of their first player."""
    if any(team is not None for team in game.teams):
        members: dict[str, list[str]] = {}
        for player, team in zip(game.players, game.teams, strict=True):
            members.setdefault(team or player, []).append(player)
        return [Side(tuple(players), 1.0 if team == game.winner else 0.0)
                for team, players in members.items()]
    sign = -1 if game.lower_wins else 1
    return [Side((player,), float(sign * total))
            for player, total in zip(game.players, game.totals, strict=True)]


def ranks(scores: list[float]) -> list[int]:
    """Competition ranks of ``scores`` (higher first): 1 for the best, equal scores
    share a rank, and the next rank skips as many places (1, 2, 2, 4)."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]

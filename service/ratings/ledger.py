"""Games rated in order over a state of ratings.

Order: a pool's games are rated by their time (``played_at``, else the upload time) to
the second, then by upload order (``seq``, a batch's line order): games of the same
second are rated in the order they were stored.  The result of a sequence of
games depends on that order only, so ratings recomputed from scratch over the same
stored games always come out the same.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime

from .model import Rating, drifted_sigma, initial_rating, rate_sides
from .results import RatedGame, ranks, sides


def order_key(game: RatedGame) -> tuple[datetime, int]:
    """Where a game stands in its pool's order: its time to the second, then its upload
    order.  (To the second: uploads of the same moment, whose upload times and commits
    may cross by milliseconds, are rated in the order they were stored, without the
    replay a late game needs.)"""
    return game.at.replace(microsecond=0), game.seq


@dataclass(frozen=True, slots=True)
class Update:
    """One player's rating before (drift applied) and after one rated game, with the
    place their side took."""

    game: RatedGame
    player: str
    rank: int
    before: Rating
    after: Rating


def rate_game(game: RatedGame, ratings: MutableMapping[str, Rating]) -> list[Update]:
    """Rate one game: every side's players updated by Plackett-Luce from the places of
    the sides, ``ratings`` (player -> rating, a player absent starts at the prior)
    updated in place; the updates in seat order."""
    game_sides = sides(game)
    places = ranks([side.score for side in game_sides])
    before: dict[str, Rating] = {}
    for side in game_sides:
        for player in side.players:
            current = ratings.get(player) or initial_rating()
            before[player] = Rating(current.mu, drifted_sigma(current, game.at), current.games,
                                    current.last_played)
    rated = rate_sides([[(before[p].mu, before[p].sigma) for p in side.players]
                        for side in game_sides], places)
    updates: dict[str, Update] = {}
    for side, place, team in zip(game_sides, places, rated, strict=True):
        for player, (mu, sigma) in zip(side.players, team, strict=True):
            after = Rating(mu, sigma, before[player].games + 1, game.at)
            ratings[player] = after
            updates[player] = Update(game, player, place, before[player], after)
    return [updates[player] for player in game.players]


@dataclass
class Ledger:
    """The ratings of one pool, and the games rated so far in it (the last one's order
    key): games rated after the last one extend it, one rated before needs a replay
    from its place (the caller's: see service/store/ratings.py)."""

    ratings: dict[str, Rating] = field(default_factory=dict)
    last: tuple[datetime, int] | None = None

    def extends(self, game: RatedGame) -> bool:
        """Whether ``game`` comes after every game rated so far."""
        return self.last is None or order_key(game) > self.last

    def rate(self, games: Iterable[RatedGame]) -> list[Update]:
        """Rate games in their order (they must all come after the last one)."""
        out: list[Update] = []
        for game in sorted(games, key=order_key):
            if not self.extends(game):
                raise ValueError(f"game {game.id} comes before the last game rated")
            out.extend(rate_game(game, self.ratings))
            self.last = order_key(game)
        return out

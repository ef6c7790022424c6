"""What each game of a tournament counts for in the verified standings: the one place
that decides it (the tournament audit, its CSV and its pages all read it from here).

Plain Python over plain data, no SQL: ``audit`` reads the rows and hands them over.
The rules (docs/TOURNAMENTS.md):

* **Nothing counts twice.** While two or more live games claim the same round and table
  of a tournament, none of them counts, whatever their verdicts and rulings: the table
  is an open matter (``duplicate_table``) until the wrong game is withdrawn.
* **Without a ruling** a valid game counts by its recomputed result; a ``mismatch`` game
  too, but it is an open matter (``score_mismatch``) until ruled; an illegal game counts
  for nothing and is an open matter (``illegal_game``); an unfinished game counts for
  nothing and is an open matter (``unfinished_game``).
* **Off its schedule** (only when the settings hold a ``schedule``, ``service.store.
  schedule``): a game whose players are not the ones scheduled at its round and table
  counts for nothing until ruled (``schedule_mismatch``); the ruling settles it and says
  what it counts for, and ``stands`` is allowed for it whatever its verdict.
* **A ruling** settles its game's matter and says what the game counts for (``RULINGS``);
  it never changes the stored log or the engine's verdict.  Which rulings a verdict
  allows is ``ALLOWED``.

"The deals finished before the irregularity" (``forfeit``, ``to_violation``): the scored
deals before the deal of an illegal game's first violation (none when that violation
belongs to no deal); for a game without a violation, every scored deal.  Their points
are the recomputed deal points, without the game's bonuses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

VOID, FORFEIT, TO_VIOLATION, STANDS, RECOMPUTED = (
    "void", "forfeit", "to_violation", "stands", "recomputed")
RULINGS = {
    VOID: "the game counts as not played",
    FORFEIT: "the player ruled against loses and every other player (not a partner) is "
             "credited a win; each player is credited the points of the deals finished "
             "before the irregularity",
    TO_VIOLATION: "the deals finished before the first violation count with their "
                  "recomputed points; the rest of the game is void; the best total of "
                  "those deals wins",
    STANDS: "the result the log claims is accepted: its claimed totals (a player without "
            "a claimed total keeps the recomputed one); the best total wins",
    RECOMPUTED: "the engine's recomputed result is accepted: the wrong claims are "
                "acknowledged",
}
# Which rulings each verdict allows (a ruling not listed answers 409 ruling-not-allowed).
ALLOWED: dict[str, tuple[str, ...]] = {
    "valid": (VOID, FORFEIT),
    "mismatch": (VOID, FORFEIT, STANDS, RECOMPUTED),
    "illegal": (VOID, FORFEIT, TO_VIOLATION, STANDS),
    "incomplete": (VOID, FORFEIT, STANDS),
}
# Rulings whose credited points are those of the deals before the irregularity.
EARLY = (FORFEIT, TO_VIOLATION)

DUPLICATE_TABLE = "duplicate_table"
ILLEGAL_GAME = "illegal_game"
UNFINISHED_GAME = "unfinished_game"
SCORE_MISMATCH = "score_mismatch"
SCHEDULE_MISMATCH = "schedule_mismatch"  # only with a schedule (service.store.schedule)
MISSING_TABLE = "missing_table"
MATTER_KINDS = (DUPLICATE_TABLE, ILLEGAL_GAME, UNFINISHED_GAME, SCORE_MISMATCH,
                SCHEDULE_MISMATCH, MISSING_TABLE)


def allowed(status: str, off_schedule: bool = False) -> tuple[str, ...]:
    """The rulings a verdict allows; a game off its schedule may also be ruled
    ``stands`` (its result accepted as played), in the order of ``RULINGS``."""
    rulings = ALLOWED.get(status, ())
    if off_schedule and rulings and STANDS not in rulings:
        rulings = tuple(name for name in RULINGS if name in rulings or name == STANDS)
    return rulings


@dataclass
class Seat:
    """A player of a game: recomputed total (bonuses included), whether the engine
    says they won, the claimed total (None: no claim), the team (None: alone), the
    points of the deals finished before the irregularity."""

    player: str
    points: int
    won: bool
    claimed: int | None = None
    team: str | None = None
    early: int = 0


@dataclass
class GameFacts:
    """What counting needs of one live game."""

    id: str
    status: str
    finished: bool
    round: int | None
    table: str | None
    lower_wins: bool
    seats: list[Seat]
    ruling: str | None = None
    against: str | None = None


@dataclass
class Count:
    """What a game counts for: nothing (``counted`` False), or the points credited to
    each player and the players credited a win; ``basis`` says why, in words."""

    counted: bool
    basis: str
    points: dict[str, int] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)


def duplicate_groups(games: Iterable[GameFacts]) -> list[list[GameFacts]]:
    """The games claiming the same round and table, two or more, in the order given.
    Only games naming both a round and a table claim one."""
    slots: dict[tuple[int, str], list[GameFacts]] = {}
    for game in games:
        if game.round is not None and game.table is not None:
            slots.setdefault((game.round, game.table), []).append(game)
    return [group for group in slots.values() if len(group) > 1]


def best(points: dict[str, int], lower_wins: bool) -> list[str]:
    """The players with the best total, in seat order; nobody when every player has it
    (a draw) or there is no player."""
    if not points:
        return []
    top = min(points.values()) if lower_wins else max(points.values())
    winners = [player for player, value in points.items() if value == top]
    return [] if len(winners) == len(points) else winners


def count_game(game: GameFacts, duplicated: bool = False,
               off_schedule: bool = False) -> Count:
    """What ``game`` counts for (``duplicated``: another live game claims its table;
    ``off_schedule``: its players are not the ones its table was scheduled for)."""
    if duplicated:
        return Count(False, "another game claims the same round and table")
    ruling = game.ruling
    if off_schedule and ruling is None:
        return Count(False, "not the players scheduled at its table, no ruling yet")
    if ruling == VOID:
        return Count(False, "ruled void")
    if ruling == FORFEIT:
        points = {seat.player: seat.early for seat in game.seats}
        teams = {seat.player: seat.team or seat.player for seat in game.seats}
        offender = teams.get(game.against or "", game.against)
        winners = [seat.player for seat in game.seats if teams[seat.player] != offender]
        return Count(True, f"forfeit against {game.against}: the deals finished before "
                           "the irregularity", points, winners)
    if ruling == TO_VIOLATION:
        points = {seat.player: seat.early for seat in game.seats}
        return Count(True, "ruled to the first violation: the deals before it",
                     points, best(points, game.lower_wins))
    if ruling == STANDS:
        points = {seat.player: seat.claimed if seat.claimed is not None else seat.points
                  for seat in game.seats}
        return Count(True, "ruled: the claimed result stands", points,
                     best(points, game.lower_wins))
    points = {seat.player: seat.points for seat in game.seats}
    winners = [seat.player for seat in game.seats if seat.won]
    if ruling == RECOMPUTED:
        return Count(True, "ruled: the recomputed result", points, winners)
    if game.status == "illegal":
        return Count(False, "illegal, no ruling yet")
    if not game.finished:
        return Count(False, "unfinished, no ruling yet")
    if game.status == "mismatch":
        return Count(True, "the recomputed result, until ruled", points, winners)
    return Count(True, "the recomputed result", points, winners)


def count_games(games: Sequence[GameFacts],
                off_schedule: frozenset[str] = frozenset()) -> dict[str, Count]:
    """What every game counts for, by id: duplicate tables held out, rulings applied;
    ``off_schedule``: the ids of the games whose players are not the scheduled ones."""
    duplicated = {game.id for group in duplicate_groups(games) for game in group}
    return {game.id: count_game(game, game.id in duplicated, game.id in off_schedule)
            for game in games}


def matters(games: Sequence[GameFacts]) -> list[dict[str, Any]]:
    """The open matters, in the order of the games: each re-entered table, then each
    game whose verdict needs a ruling and has none.  ``kind``, ``games`` (ids),
    ``round``, ``table``, ``detail``."""
    out: list[dict[str, Any]] = []
    for group in duplicate_groups(games):
        first = group[0]
        out.append({"kind": DUPLICATE_TABLE, "games": [game.id for game in group],
                    "round": first.round, "table": first.table,
                    "detail": f"{len(group)} games claim round {first.round}, table "
                              f"{first.table}: none counts until all but one are "
                              "withdrawn"})
    for game in games:
        if game.ruling is not None:
            continue
        if game.status == "illegal":
            kind, detail = ILLEGAL_GAME, "illegal: it counts for nothing until ruled"
        elif not game.finished:
            kind, detail = UNFINISHED_GAME, "unfinished: it counts for nothing until ruled"
        elif game.status == "mismatch":
            kind, detail = SCORE_MISMATCH, ("its claims differ from the recomputed scores: "
                                            "it counts by the recomputed result until ruled")
        else:
            continue
        out.append({"kind": kind, "games": [game.id], "round": game.round,
                    "table": game.table, "detail": f"game {game.id}{_where(game)}: {detail}"})
    return out


def _where(game: GameFacts) -> str:
    parts = []
    if game.round is not None:
        parts.append(f"round {game.round}")
    if game.table is not None:
        parts.append(f"table {game.table}")
    return f" ({', '.join(parts)})" if parts else ""


def _ranks(values: dict[str, int | None], lower_wins: bool) -> dict[str, int | None]:
    """Competition ranks ("1224") of the players with a value; None without one."""
    known = sorted((v if lower_wins else -v) for v in values.values() if v is not None)
    first: dict[int, int] = {}
    for position, key in enumerate(known, 1):
        first.setdefault(key, position)
    return {player: None if v is None else first[v if lower_wins else -v]
            for player, v in values.items()}


POINTS, WINS, MATCH_POINTS = "points", "wins", "match_points"
RANKINGS = (POINTS, WINS, MATCH_POINTS)
HEAD_TO_HEAD, POINTS_DIFFERENCE = "head_to_head", "points_difference"
TIE_BREAKS = (HEAD_TO_HEAD, POINTS, WINS, POINTS_DIFFERENCE)


@dataclass(frozen=True)
class Ranking:
    """How a tournament ranks its players (its settings; the default is today's: total
    points, ties shared).  ``match_points``: points for a win, a draw (a counted game
    nobody is credited a win in) and a loss."""

    kind: str = POINTS
    win: int = 2
    draw: int = 1
    loss: int = 0
    tie_breaks: tuple[str, ...] = ()

    @property
    def is_default(self) -> bool:
        return self == Ranking()


@dataclass
class _Result:
    """One counted game of one player: points credited, whether credited a win, the
    opponents and their points, whether anybody won."""

    points: int
    won: bool
    opponents: dict[str, int]
    decided: bool


def standings(games: Sequence[tuple[str, GameFacts]], counts: dict[str, Count],
              ranking: Ranking = Ranking()) -> list[dict[str, Any]]:
    """One table per (variant, direction), ordered by variant then direction (higher
    totals first before lower): every player of a live game, with the verified total
    of the counted games (None without one), counted games, credited wins; ranked by
    ``ranking`` (docs/TOURNAMENTS.md, "Ranking").  Beside it the claimed standings,
    over the same counted games (``claimed``): each player's claimed total and rank by
    the same ranking, None for a player no counted game claims a total for.
    ``games``: (variant, facts) pairs."""
    tables: dict[tuple[str, bool], dict[str, Any]] = {}
    for variant, game in games:
        key = (variant, game.lower_wins)
        table = tables.setdefault(key, {"games": 0, "players": {}, "results": {},
                                        "said": {}, "said_results": {}})
        count = counts[game.id]
        table["games"] += count.counted
        said, claimers, said_winners = claimed(game, count)
        for seat in game.seats:
            row = table["players"].setdefault(seat.player, {
                "points": None, "games": 0, "won": 0, "claimed_games": 0})
            said_row = table["said"].setdefault(seat.player, {
                "points": None, "games": 0, "won": 0})
            results = table["results"].setdefault(seat.player, [])
            said_results = table["said_results"].setdefault(seat.player, [])
            if not count.counted:
                continue
            for into, points, winners, out in (
                    (row, count.points, count.winners, results),
                    (said_row, said, said_winners, said_results)):
                into["points"] = (into["points"] or 0) + points[seat.player]
                into["games"] += 1
                into["won"] += seat.player in winners
                out.append(_Result(points[seat.player], seat.player in winners,
                                   {other: value for other, value in points.items()
                                    if other != seat.player}, bool(winners)))
            row["claimed_games"] += seat.player in claimers
    out = []
    for (variant, lower_wins), table in sorted(tables.items()):
        rows, said_rows = table["players"], table["said"]
        if ranking.kind == MATCH_POINTS:
            for figures, results in ((rows, table["results"]),
                                     (said_rows, table["said_results"])):
                for player, row in figures.items():
                    row["match_points"] = None if not row["games"] else sum(
                        ranking.win if r.won else ranking.loss if r.decided
                        else ranking.draw for r in results[player])
        rank = _ranked(rows, table["results"], ranking, lower_wins)
        said_rank = _ranked(said_rows, table["said_results"], ranking, lower_wins)
        players = []
        for player, row in rows.items():
            entry = {"player": player, "rank": rank[player], "points": row["points"],
                     "games": row["games"], "won": row["won"]}
            if ranking.kind == MATCH_POINTS:
                entry["match_points"] = row["match_points"]
            claims = row["claimed_games"]
            players.append({**entry, "claimed_rank": said_rank[player] if claims else None,
                            "claimed_points": said_rows[player]["points"] if claims else None,
                            "claimed_games": claims})
        players.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0,
                                    r["claimed_rank"] is None, r["claimed_rank"] or 0,
                                    r["player"]))
        out.append({"variant": variant, "lower_wins": lower_wins, "games": table["games"],
                    "players": players})
    return out


def claimed(game: GameFacts, count: Count) -> tuple[dict[str, int], set[str], list[str]]:
    """What the log claims a counted game credits: each player's claimed total (one
    without a claim: the credited points), the players holding a claim, and the best
    claimed total's players.  A ruled game's matter is settled: what the ruling credits
    stands on both sides, and nobody holds a claim.  Nothing for a game not counted."""
    if not count.counted:
        return {}, set(), []
    claimers = {seat.player for seat in game.seats if seat.claimed is not None}
    if game.ruling is not None or not claimers:
        return count.points, set(), count.winners
    said = {seat.player: seat.claimed if seat.claimed is not None
            else count.points[seat.player] for seat in game.seats}
    if said == count.points:
        return said, claimers, count.winners
    return said, claimers, best(said, game.lower_wins)


def _ranked(rows: dict[str, dict[str, Any]], results: dict[str, list[_Result]],
            ranking: Ranking, lower_wins: bool) -> dict[str, int | None]:
    """Competition ranks by the ranking's figure, ties broken by its tie-breaks in
    order (each among the players still tied); a player without a counted game has
    none."""
    sign = 1 if lower_wins else -1  # sort keys: smaller first

    def figure(name: str, player: str, group: set[str]) -> Fraction:
        row = rows[player]
        if name == POINTS:
            return Fraction(sign * row["points"])
        if name == WINS:
            return Fraction(-row["won"])
        if name == MATCH_POINTS:
            return Fraction(-row["match_points"])
        if name == HEAD_TO_HEAD:  # wins in games against the other tied players
            return Fraction(-sum(1 for r in results[player]
                                 if r.won and group & set(r.opponents)))
        # points difference: own points less the opponents' average, summed over games
        return sign * sum((Fraction(r.points) - Fraction(sum(r.opponents.values()),
                                                         len(r.opponents))
                           for r in results[player] if r.opponents), Fraction(0))

    ranked = [player for player, row in rows.items() if row["games"]]
    groups: list[list[str]] = [ranked]
    for name in (ranking.kind, *ranking.tie_breaks):
        split: list[list[str]] = []
        for group in groups:
            if len(group) < 2:
                split.append(group)
                continue
            members = set(group)
            keys = {player: figure(name, player, members) for player in group}
            for value in sorted(set(keys.values())):
                split.append([player for player in group if keys[player] == value])
        groups = split
    out: dict[str, int | None] = dict.fromkeys(rows)
    ahead = 0
    for group in groups:
        for player in group:
            out[player] = ahead + 1
        ahead += len(group)
    return out


def ranking_of(settings: dict[str, Any]) -> Ranking:
    """The ranking a tournament's settings ask for (defaults for what they leave out)."""
    points = settings.get("match_points") or {}
    return Ranking(settings.get("ranking") or POINTS, points.get("win", 2),
                   points.get("draw", 1), points.get("loss", 0),
                   tuple(settings.get("tie_breaks") or ()))

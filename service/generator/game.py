"""A whole generated game: seats, deals one after another, claims, the end."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from ..engine.limits import MAX_PLAYER_LENGTH, TIME_RANGE, instant
from ..engine.logformat import FORMAT, parse_game
from ..engine.replay import verify
from ..engine.rules import PRESETS, Rules, resolve_rules
from ..engine.scoring import scoreboard
from ..engine.words import plural
from .deal import MOVE_CAP, DealTooLong
from .gin_bot import SKILLS, GinDeal
from .rummy_bot import RummyDeal

PLAYER_NAMES = ("ana", "ben", "cleo", "dan", "eva", "finn")
DEAL_RETRIES = 20  # fresh shuffles tried for a deal that would not end
MAX_UNITS = 400  # deals (gin partnerships: rounds) before giving up on the end condition
CHECK = os.environ.get("RUMMY_GENERATE_CHECK", "") not in ("", "0")
Json = dict[str, Any]
Seed = int | tuple[int, ...]


def generate_game(variant: str, seed: Seed, players: int | None = None,
                  rules: dict | None = None, with_deck: bool = False,
                  names: Sequence[str] | None = None, tournament: dict | None = None,
                  played_at: str | None = None, collude: tuple[str, str] | None = None,
                  skills: dict[str, str] | None = None) -> Json:
    """One complete, legal game as a JSON-ready dict, the same for the same arguments.

    ``seed`` is an int or a tuple of ints.  ``players`` defaults to a seeded choice within
    the preset's range.  ``rules`` are option overrides, written to the log unchanged;
    when the resolved rules have no end (``rummy-pagat``, ``rummy-block``, ``greek``) and
    the caller set neither ``target`` nor ``deals``, the log gets ``deals`` (1-4) or a
    ``target`` added, or (one game in four) sets no end and logs 1-4 deals, which then are
    the whole game; an explicit null ``target``/``deals`` always gets the latter.  With
    ``with_deck`` each deal records its ``deck``, otherwise ``hands`` and ``upcard``.
    A deal passing MOVE_CAP moves is dealt again; ValueError when the options never let
    a deal or the game end.

    ``names`` is a pool of player ids: the seated players are drawn from it (seeded by
    ``seed`` apart from the play, so the cards and moves are those of the game without a
    pool; distinct names, seat order as drawn; in four-player gin seats 0 and 2 are one
    team); default ``PLAYER_NAMES`` in order.  ``tournament`` (``id``, ``round``,
    ``table``) and ``played_at`` (an RFC 3339 date-time) are copied into the log.

    ``collude`` plants a colluding pair, ``(feeder, partner)`` by player id: in every
    deal both of them play, the feeder plays for the partner: it discards what the
    partner takes, and soft-plays (gin: never knocks or goes gin; Rummy family: does not
    go out while the partner holds more than three cards; the package's docstring has
    the rules); without
    it, or when either is not seated, every player is honest and the game is the same
    as without the argument.

    ``skills`` gives gin players a skill by player id (``gin_bot.SKILLS``: ``random``,
    ``greedy``, ``careful``); a player not named plays ``greedy``, and without it the
    game is the same as before skills existed.
    """
    _check_context(tournament, played_at)
    if collude is not None and (len(collude) != 2 or collude[0] == collude[1]):
        raise ValueError("collude is a pair of two player ids: (feeder, partner)")
    rng = _rng(seed)
    seated = None
    if names is not None:
        seated = _draw_names(names, seed, variant, players, rng)
    writer = GameWriter(variant, rng, players, rules, with_deck, seated)
    if collude is not None and collude[0] in writer.names and collude[1] in writer.names:
        writer.collusion = (writer.names.index(collude[0]), writer.names.index(collude[1]))
    if skills:
        if not writer.rules.is_gin:
            raise ValueError("skills are for gin players")
        unknown = set(skills.values()) - set(SKILLS)
        if unknown:
            raise ValueError(f"a skill is one of {', '.join(SKILLS)}, not {sorted(unknown)}")
        writer.skills = {writer.names.index(n): k for n, k in skills.items()
                         if n in writer.names}
    log = writer.run()
    return _with_context(log, tournament, played_at)


def generate_games(variant: str, games: int, seed: int = 0, players: int | None = None,
                   rules: dict | None = None, with_deck: bool = False,
                   names: Sequence[str] | None = None, tournament: dict | None = None,
                   played_at: str | None = None,
                   collude: tuple[str, str] | None = None,
                   skills: dict[str, str] | None = None) -> Iterator[Json]:
    """``games`` games; game ``i`` is ``generate_game(variant, (seed, i), ...)``."""
    for i in range(games):
        yield generate_game(variant, (seed, i), players, rules, with_deck, names, tournament,
                            played_at, collude, skills)


def corpus(variant: str, games: int, seed: int) -> list[bytes]:
    """Generated games as JSON documents (``orjson.dumps``), for benchmarks."""
    return [orjson.dumps(g) for g in generate_games(variant, games, seed=seed)]


def _rng(seed: Seed) -> random.Random:
    """A generator seeded by an int or a tuple of ints (as text: stable across runs)."""
    if isinstance(seed, tuple):
        return random.Random(":".join(str(int(part)) for part in seed))
    return random.Random(seed)


def _draw_names(pool: Sequence[str], seed: Seed, variant: str, players: int | None,
                rng: random.Random) -> tuple[str, ...]:
    """The seated players drawn from ``pool`` with a generator of their own (the game's
    ``rng`` is only peeked at, through a copy, for a seeded player count)."""
    if isinstance(pool, str):
        raise ValueError("names is a sequence of player ids, not one string")
    distinct = list(dict.fromkeys(pool))
    for name in distinct:
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_PLAYER_LENGTH:
            raise ValueError(f"a player id is a string of 1 to {MAX_PLAYER_LENGTH} "
                             f"characters, not {name!r}")
    preset = PRESETS.get(variant)
    if preset is None:
        raise ValueError(f"unknown variant {variant!r}; one of {', '.join(PRESETS)}")
    if players is None:  # the same draw GameWriter makes first, on a copy
        peek = random.Random()
        peek.setstate(rng.getstate())
        players = peek.randint(preset.min_players, preset.max_players)
    if len(distinct) < players:
        raise ValueError(f"{plural(players, 'player')} cannot be drawn from "
                         f"{plural(len(distinct), 'distinct name')}")
    parts = seed if isinstance(seed, tuple) else (seed,)
    drawer = random.Random("names:" + ":".join(str(int(part)) for part in parts))
    return tuple(drawer.sample(distinct, players))


def _check_context(tournament: dict | None, played_at: str | None) -> None:
    if tournament is not None and (not isinstance(tournament, dict)
                                   or not tournament.keys() <= {"id", "round", "table"}):
        raise ValueError("tournament is an object of id, round and table")
    if played_at is not None and (not isinstance(played_at, str) or instant(played_at) is None):
        raise ValueError(f"played_at must be an RFC 3339 date-time in the {TIME_RANGE}, "
                         f"not {played_at!r}")


def _with_context(log: Json, tournament: dict | None, played_at: str | None) -> Json:
    """The log with ``tournament`` and ``played_at`` added before its deals."""
    if tournament is None and played_at is None:
        return log
    out: Json = {}
    for key, value in log.items():
        if key == "deals":
            if tournament is not None:
                out["tournament"] = dict(tournament)
            if played_at is not None:
                out["played_at"] = played_at
        out[key] = value
    return out


class GameWriter:
    """Plays one game deal by deal until its end condition and writes its log."""

    def __init__(self, variant: str, rng: random.Random, players: int | None,
                 overrides: dict | None, with_deck: bool,
                 seated: tuple[str, ...] | None = None):
        preset = PRESETS.get(variant)
        if preset is None:
            raise ValueError(f"unknown variant {variant!r}; one of {', '.join(PRESETS)}")
        if players is None:
            players = rng.randint(preset.min_players, preset.max_players)
        if not preset.min_players <= players <= preset.max_players:
            raise ValueError(f"{variant} is played by {preset.min_players} to "
                             f"{preset.max_players} players, not {players}")
        self.rng = rng
        self.variant = variant
        self.with_deck = with_deck
        self.names = seated if seated is not None else PLAYER_NAMES[:players]
        if len(self.names) != players:
            raise ValueError(f"{plural(len(self.names), 'name')} for {plural(players, 'player')}")
        self.overrides = dict(overrides or {})
        rules, errors = resolve_rules(variant, self.overrides, players)
        if rules is None:
            raise ValueError(f"invalid rules for {variant}: {errors}")
        self.fixed_deals: int | None = None  # no end condition: the number of deals to log
        if rules.target is None and rules.deals is None:
            if "target" in self.overrides or "deals" in self.overrides:
                self.fixed_deals = rng.randint(1, 4)  # the caller asked for no end
            else:
                roll = rng.random()
                if roll < 0.45:
                    self.overrides["deals"] = rng.randint(1, 4)
                elif roll < 0.75:
                    self.overrides["target"] = rng.choice((50, 100, 150))
                else:
                    self.fixed_deals = rng.randint(1, 4)
                rules, errors = resolve_rules(variant, self.overrides, players)
                assert rules is not None, errors
        self.rules: Rules = rules
        self.teams: list[list[int]] | None = None
        if rules.is_gin and players == 4:
            self.teams = [[0, 2], [1, 3]]
        if self.teams:
            sides = ["+".join(self.names[s] for s in team) for team in self.teams]
            side_of = {s: i for i, team in enumerate(self.teams) for s in team}
        else:
            sides = list(self.names)
            side_of = {s: s for s in range(players)}
        self.sides = sides
        self.board = scoreboard(rules, sides, side_of)
        self.player_points = dict.fromkeys(range(players), 0)
        self.deals: list[Json] = []
        self.outcomes: list[str] = []
        self.collusion: tuple[int, int] | None = None  # (feeder, partner) seats
        self.skills: dict[int, str] = {}  # gin: seat -> skill (gin_bot.SKILLS)
        self.memo: dict[int, tuple[int, tuple[int, ...]]] = {}  # hand -> best arrangement
        self.dw_memo: dict[int, int] = {}  # hand holding a rank 3+ times -> deadwood

    # -- the deals ---------------------------------------------------------------------

    def run(self) -> Json:
        n = len(self.names)
        dealer = self.rng.randrange(n)
        pair: tuple[int, ...] = tuple(range(n))
        if self.rules.is_gin and n == 3:
            pair = tuple(sorted(self.rng.sample(range(3), 2)))
            dealer = self.rng.choice(pair)
        units = 0
        while True:
            if self.teams:
                a, b = self.teams
                if units % 2 == 0:
                    pairs = [(a[0], b[0]), (a[1], b[1])]
                else:
                    pairs = [(a[0], b[1]), (a[1], b[0])]
                self.rng.shuffle(pairs)
                for p in pairs:
                    seats = tuple(sorted(p))
                    dealer = _next_in(dealer, seats, 4)
                    self._play_deal(seats, dealer)
            elif self.rules.is_gin and n == 3:
                winner = self._play_deal(pair, dealer)
                if winner is not None:
                    sitter = next(s for s in range(3) if s not in pair)
                    pair = tuple(sorted((winner, sitter)))
                dealer = _next_in(dealer, pair, 3)
            else:
                self._play_deal(tuple(range(n)), dealer)
                dealer = (dealer + 1) % n
            self.board.end_unit()
            units += 1
            if self.fixed_deals is not None:
                if units >= self.fixed_deals:
                    break
            elif self.board.over():
                break
            if units >= MAX_UNITS:
                raise ValueError(f"{self.variant} with rules {self.overrides} did not reach "
                                 f"its end in {MAX_UNITS} deals")
        return self._finish()

    def _play_deal(self, seats: tuple[int, ...], dealer: int) -> int | None:
        """Play one deal to its end (dealt again when it drags on); its winner."""
        for _ in range(DEAL_RETRIES):
            deck = list(range(52))
            self.rng.shuffle(deck)
            writer_class = GinDeal if self.rules.is_gin else RummyDeal
            writer = writer_class(self, seats, dealer, deck)
            try:
                writer.play()
            except DealTooLong:
                continue
            outcome, winner, points = writer.score()
            self.board.add_deal(points, winner)
            for seat, value in points.items():
                self.player_points[seat] += value
            names = self.names
            writer.log["claimed"] = {  # as the replay reports it: seats in order
                "points": {names[s]: points[s] for s in seats},
                "winner": names[winner] if winner is not None else None,
                "outcome": str(outcome)}
            self.deals.append(writer.log)
            self.outcomes.append(outcome)
            return winner
        raise ValueError(f"{self.variant} with rules {self.overrides}: no deal ended within "
                         f"{MOVE_CAP} moves in {DEAL_RETRIES} shuffles")

    # -- claims ------------------------------------------------------------------------

    def _finish(self) -> Json:
        """The log with every claim set to the value the engine's tables computed (the
        replay runs the same tables and scoring, so it recomputes the same)."""
        names = self.names
        log: Json = {"format": FORMAT, "variant": self.variant, "players": list(names)}
        if self.overrides:
            log["rules"] = self.overrides
        if self.teams:
            log["teams"] = [[names[s] for s in team] for team in self.teams]
        log["deals"] = self.deals
        side_totals, winner, _ = self.board.final(True)
        totals = dict(zip(self.sides, side_totals, strict=True))
        if self.teams:
            totals = {**{names[s]: v for s, v in self.player_points.items()}, **totals}
        log["claimed"] = {"totals": totals,
                          "winner": self.sides[winner] if winner is not None else None}
        if CHECK:
            check_claims(log, self.outcomes)
        return log


def check_claims(log: Json, outcomes: list[str] | None = None) -> None:
    """Replay a generated log: AssertionError unless it verifies ``valid`` with every
    claim equal to the replay's value (and each deal's outcome the generator's)."""
    report = verify(parse_game(log))
    if report.status != "valid":
        raise AssertionError(f"generated game is {report.status}: "
                             f"{[v.to_dict() for v in report.violations][:3]}")
    for d, (deal, result) in enumerate(zip(log["deals"], report.deals, strict=True)):
        if outcomes is not None and result.outcome != outcomes[d]:
            raise AssertionError(f"the replay scores deal {d} {result.outcome}, "
                                 f"the generator {outcomes[d]}")
        expected = {"points": dict(result.points), "winner": result.winner,
                    "outcome": result.outcome}
        if orjson.dumps(deal["claimed"]) != orjson.dumps(expected):
            raise AssertionError(f"deal {d} claims {deal['claimed']}, replayed {expected}")
    totals = report.totals
    expected = {"totals": {**totals["points"], **totals.get("teams", {})},
                "winner": totals["winner"]}
    if orjson.dumps(log["claimed"]) != orjson.dumps(expected):
        raise AssertionError(f"the game claims {log['claimed']}, replayed {expected}")


def _next_in(dealer: int, pair: tuple[int, ...], n: int) -> int:
    """The first player of ``pair`` clockwise after ``dealer``."""
    for step in range(1, n + 1):
        seat = (dealer + step) % n
        if seat in pair:
            return seat
    raise AssertionError("empty pair")

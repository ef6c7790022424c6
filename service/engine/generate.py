"""Seeded generator of complete, legal ``rummy-log/1`` games played by simple bots.

Every deal is really played: a shuffled 52-card deck is dealt as RULES.md says (the
player to the dealer's left gets ``deck[0]``, one card at a time clockwise, then the
upcard; the rest is the stock, ``deck[n * size + 1]`` drawn first) and every move goes
through the engine's own tables, which must accept it.  The claims are the replay's own
recomputed values, so a generated game verifies ``valid``.  Same arguments, same game.

Bots (simple but sensible):

* Rummy family: take the discard when it makes or extends a meld in hand or fits a table
  meld, else the stock; lay the best melds (``melds_per_turn``), lay off what fits
  (``layoff_requires_own_meld``; under ``discard_to_go_out`` never empty the hand but by
  a discard), discard the highest card outside melds (never the card just taken unless
  ``discard_taken_card``).  Some players hold their melds back to go rummy.  Facing an
  empty stock that cannot be rebuilt, a player who declines the discard records ``end``.
* Gin: take the discard when it lowers the best deadwood; knock at the limit (some
  players keep playing for gin), gin at 0; the defender lays off what lowers their
  deadwood and sometimes shows melds; the upcard pass and the stock floor as the options
  say (at the floor: take the discard only to knock at once, else ``pass``).

Speed: the claims come from the generator's own engine tables and scoreboard (the same
code the replay runs), so a game is not replayed here; set ``RUMMY_GENERATE_CHECK=1``
(or ``generate.CHECK = True``) to replay every generated game and compare each claim.
The bots memoize hand arrangements per game and keep, per table meld, the mask of the
cards that may be laid off on it.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from itertools import product
from typing import Any

import orjson

from .cards import CARD_NAMES, SUIT_MASK, card_name, cards_of, point_table
from .gin import UPCARD, GinTable
from .limits import TIME_RANGE
from .melds import GROUP, best_arrangement, candidate_melds, layoff_fits, meld_kind
from .model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    END,
    GIN,
    KNOCK,
    LAYOFF,
    MELD,
    PASS,
    RESHUFFLE,
    SHOW,
    STOCK,
    Deal,
    Move,
)
from .parse import MAX_PLAYER_LENGTH, instant, parse_game
from .replay import verify
from .rules import GIN as GIN_FAMILY
from .rules import OPTIONS, PRESETS, Rules, resolve_rules
from .rummy import BLOCKED, RummyTable
from .rummy import RUMMY as WENT_RUMMY
from .scoring import Scoreboard, rummy_blocked_points, rummy_out_points
from .words import plural

__all__ = ["FORMAT", "PLAYER_NAMES", "corpus", "generate_game", "generate_games",
           "random_rules"]

FORMAT = "rummy-log/1"
PLAYER_NAMES = ("ana", "ben", "cleo", "dan", "eva", "finn")
MOVE_CAP = 600  # moves per deal before a Rummy-family deal is dealt again
AGGRESSIVE_AFTER = 200  # moves after which nobody holds melds back any more
DEAL_RETRIES = 20  # fresh shuffles tried for a deal that would not end
MAX_UNITS = 400  # deals (gin partnerships: rounds) before giving up on the end condition
KEEP_LAST = "reshuffle_keep_last_discard"
_COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the four aces; shifted by a rank, its column
MEMO_LIMIT = 1 << 17  # arrangements memoized per game before the memo is cleared
# Replay every generated game and check its claims (tests, debugging); off: no replay.
CHECK = os.environ.get("RUMMY_GENERATE_CHECK", "") not in ("", "0")

Seed = int | tuple[int, ...]
Json = dict[str, Any]


class DealTooLong(Exception):
    """A deal passed MOVE_CAP moves: it is dealt again with a fresh shuffle."""


# --------------------------------------------------------------------------- public API

def generate_game(variant: str, seed: Seed, players: int | None = None,
                  rules: dict | None = None, with_deck: bool = False,
                  names: Sequence[str] | None = None, tournament: dict | None = None,
                  played_at: str | None = None) -> Json:
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
    """
    _check_context(tournament, played_at)
    rng = _rng(seed)
    seated = None
    if names is not None:
        seated = _draw_names(names, seed, variant, players, rng)
    log = _GameWriter(variant, rng, players, rules, with_deck, seated).run()
    return _with_context(log, tournament, played_at)


def generate_games(variant: str, games: int, seed: int = 0, players: int | None = None,
                   rules: dict | None = None, with_deck: bool = False,
                   names: Sequence[str] | None = None, tournament: dict | None = None,
                   played_at: str | None = None) -> Iterator[Json]:
    """``games`` games; game ``i`` is ``generate_game(variant, (seed, i), ...)``."""
    for i in range(games):
        yield generate_game(variant, (seed, i), players, rules, with_deck, names, tournament,
                            played_at)


def corpus(variant: str, games: int, seed: int) -> list[bytes]:
    """Generated games as JSON documents (``orjson.dumps``), for benchmarks."""
    return [orjson.dumps(g) for g in generate_games(variant, games, seed=seed)]


def random_rules(variant: str, rng: random.Random, players: int | None = None) -> dict:
    """A random, valid override dict for the variant's family.

    Each option of the family (RULES.md, Options) is set with probability 1/2, to any
    value of its range (every choice, both booleans, null where allowed; integers within
    bounds that keep a game short).  ``hand_size`` leaves a stock for ``players`` (default:
    the preset's most players); a Rummy-family hand of 1 or 2 cards, which can never go
    out, gets a finite ``max_stock_reuses`` and ``deals`` so that its game still ends.
    """
    preset = PRESETS[variant]
    family = preset.family
    seated = 2 if family == GIN_FAMILY else (players or preset.max_players)
    out: dict[str, Any] = {}
    for name, spec in OPTIONS.items():
        if spec.family not in ("both", family) or rng.random() < 0.5:
            continue
        out[name] = _random_value(name, spec.choices, rng, seated, family)
    if family != GIN_FAMILY:
        if out.get("hand_size", 6) <= 2:  # never out: blocked deals of a card or two
            out["max_stock_reuses"] = rng.randint(0, 2)
            out["deals"] = rng.randint(1, 3)  # their tiny scores might never reach a target
    else:
        stock = 52 - 2 * out.get("hand_size", 10) - 1
        if out.get("stock_floor", 2) > stock - 3:
            out["stock_floor"] = rng.randint(0, max(0, min(8, stock - 3)))
    return out


def _random_value(name: str, choices: tuple, rng: random.Random, seated: int,
                  family: str) -> Any:
    """A value of one option (see ``random_rules``)."""
    if choices:
        return rng.choice(choices)
    if name in ("discard_taken_card", "layoff_requires_own_meld", "discard_to_go_out",
                "oklahoma", "undercut_on_tie", "upcard_pass"):
        return rng.random() < 0.5
    if name == "ace_points":
        return rng.choice((0, 1, 11, 15, rng.randint(0, 20)))
    if name == "hand_size":
        biggest = 51 // seated
        if family == GIN_FAMILY:
            biggest = min(biggest, 20)  # keep a stock above the floor
        if rng.random() < 0.6:
            return rng.randint(max(1, min(biggest, 6)), min(biggest, 10))
        return rng.randint(1, biggest)
    if name == "target":
        return None if rng.random() < 0.2 else rng.randint(1, 200)
    if name == "deals":
        return None if rng.random() < 0.3 else rng.randint(1, 4)
    if name == "max_stock_reuses":
        return None if rng.random() < 0.4 else rng.randint(0, 3)
    if name == "knock_limit":
        return rng.randint(0, 10)
    if name == "big_gin_bonus":
        return None if rng.random() < 0.4 else rng.randint(0, 50)
    if name == "stock_floor":
        return rng.randint(0, 8)
    if name in ("gin_bonus", "undercut_bonus"):
        return rng.randint(0, 50)
    if name in ("box_bonus", "shutout_bonus", "game_bonus"):
        return rng.randint(0, 150)
    raise ValueError(f"no random value for option {name!r}")


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
    if players is None:  # the same draw _GameWriter makes first, on a copy
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


# --------------------------------------------------------------------------- the game

class _GameWriter:
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
        self.board = Scoreboard(rules, sides, side_of)
        self.player_points = dict.fromkeys(range(players), 0)
        self.deals: list[Json] = []
        self.outcomes: list[str] = []
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
            writer_class = _GinDeal if self.rules.is_gin else _RummyDeal
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
                "outcome": outcome}
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


def _union(masks: tuple[int, ...] | list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


# --------------------------------------------------------------------------- one deal

class _DealWriter:
    """One deal: deals the deck, drives the engine's table, logs every move."""

    table: RummyTable | GinTable

    def __init__(self, game: _GameWriter, seats: tuple[int, ...], dealer: int,
                 deck: list[int]):
        self.game = game
        self.rules = game.rules
        self.rng = game.rng
        self.names = game.names
        self.seats = seats
        self.with_deck = game.with_deck
        self.points = point_table(self.rules.ace_points)
        self.ace = self.rules.ace
        self.memo = game.memo
        self.dw_memo = game.dw_memo
        self.loose = _loose_points(self.ace, self.points)
        self.cover = _run_cover(self.ace)
        self.fits_now: int | None = None
        n = len(seats)
        size = self.rules.hand_size
        start = (seats.index(dealer) + 1) % n
        order = seats[start:] + seats[:start]
        hands: dict[int, list[int]] = {s: [] for s in seats}
        for k in range(n * size):
            hands[order[k % n]].append(deck[k])
        upcard = deck[n * size]
        self.stock = list(reversed(deck[n * size + 1:]))  # the real stock, top last
        self.known = self.with_deck  # whether the engine knows the stock's order
        listed = seats if self.rules.is_gin and len(game.names) > 2 else None
        self.log: Json = {"dealer": self.names[dealer]}
        if listed:
            self.log["players"] = [self.names[s] for s in listed]
        if self.with_deck:
            self.log["deck"] = [card_name(c) for c in deck]
            model = Deal(dealer=dealer, moves=(), players=listed, deck=tuple(deck))
        else:
            self.log["hands"] = {self.names[s]: [card_name(c) for c in sorted(hands[s])]
                                 for s in seats}
            self.log["upcard"] = card_name(upcard)
            model = Deal(dealer=dealer, moves=(), players=listed,
                         hands={s: tuple(sorted(hands[s])) for s in seats}, upcard=upcard)
        self.moves: list[Json] = []
        self.log["moves"] = self.moves
        self.table = self.make_table(model)
        problem = self.table.deal_cards(model)
        if problem is not None:
            raise AssertionError(f"the engine refused the deal: {problem}")

    def make_table(self, model: Deal) -> RummyTable | GinTable:
        raise NotImplementedError

    def play(self) -> None:
        raise NotImplementedError

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        raise NotImplementedError

    # -- moves -------------------------------------------------------------------------

    def do(self, move: Move, entry: Json) -> None:
        """Play a move on the engine's table, which must accept it, and log it."""
        problem = self.table.play(move)
        if problem is not None:
            raise AssertionError(f"the engine refused move {len(self.moves)} {entry} of deal "
                                 f"{len(self.game.deals)}: {problem[0]}: {problem[1]}")
        if move.action == MELD or move.action == LAYOFF:
            self.fits_now = None
        self.moves.append(entry)
        if len(self.moves) > MOVE_CAP:
            raise DealTooLong

    def entry(self, seat: int, action: str, **fields: Any) -> Json:
        return {"p": self.names[seat], "a": action, **fields}

    def draw_discard(self, seat: int) -> int:
        top = self.table.pile[-1]
        entry = self.entry(seat, DRAW, **{"from": DISCARD_PILE})
        if self.rng.random() < 0.3:
            entry["card"] = card_name(top)
        named = top if "card" in entry else None
        self.do(_move(seat, DRAW, DISCARD_PILE, named), entry)
        return top

    def draw_stock(self, seat: int) -> int:
        """Draw the real top of the stock; name it where the engine cannot know it (and
        always without a deck), sometimes where it can."""
        card = self.stock.pop()
        table = self.table
        if self.known and table.stock_order:
            assert table.stock_order[-1] == card, "the generator lost the stock order"
        entry = {"p": self.names[seat], "a": DRAW, "from": STOCK}
        if not self.with_deck or not self.known or self.rng.random() < 0.3:
            entry["card"] = CARD_NAMES[card]
            self.do(_move(seat, DRAW, STOCK, card), entry)
        else:
            self.do(_move(seat, DRAW, STOCK), entry)
        return card

    def best(self, mask: int) -> tuple[int, tuple[int, ...]]:
        """The hand's least deadwood and its melds (memoized for the game)."""
        found = self.memo.get(mask)
        if found is None:
            memo = self.memo
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            s0 = mask & SUIT_MASK
            s1 = mask >> 13 & SUIT_MASK
            s2 = mask >> 26 & SUIT_MASK
            s3 = mask >> 39
            cover = self.cover
            if (s0 & s1 & (s2 | s3) or s2 & s3 & (s0 | s1)
                    or cover[s0] | cover[s1] | cover[s2] | cover[s3]):
                found = best_arrangement(mask, self.ace, self.points)
            else:  # no group and no run: every card is deadwood
                loose = self.loose
                found = (loose[s0] + loose[s1] + loose[s2] + loose[s3], ())
            memo[mask] = found
        return found

    def table_fits(self) -> int:
        """``fits`` of the melds on the table (kept until a meld or layoff changes them)."""
        found = self.fits_now
        if found is None:
            found = self.fits_now = self.fits(self.table.melds)
        return found

    def deadwood(self, mask: int) -> int:
        """``best(mask)[0]``: the least, over the groups worth laying
        (``group_choices``), of the points left outside the best runs of each suit
        (per-suit tables; memoized for the game)."""
        s0 = mask & SUIT_MASK
        s1 = mask >> 13 & SUIT_MASK
        s2 = mask >> 26 & SUIT_MASK
        s3 = mask >> 39
        loose = self.loose
        triples = s0 & s1 & (s2 | s3) | s2 & s3 & (s0 | s1)
        if not triples:
            return loose[s0] + loose[s1] + loose[s2] + loose[s3]
        found = self.dw_memo.get(mask)
        if found is not None:
            return found
        choices, _ = self.group_choices(mask, triples, s0, s1, s2, s3)
        best = None
        for combo in product(*choices):
            rest = mask
            for group in combo:
                rest &= ~group
            value = (loose[rest & SUIT_MASK] + loose[rest >> 13 & SUIT_MASK]
                     + loose[rest >> 26 & SUIT_MASK] + loose[rest >> 39])
            if best is None or value < best:
                best = value
        assert best is not None
        if len(self.dw_memo) >= MEMO_LIMIT:
            self.dw_memo.clear()
        self.dw_memo[mask] = best
        return best

    def group_choices(self, mask: int, triples: int, s0: int, s1: int, s2: int,
                      s3: int) -> tuple[list[list[int]], int]:
        """For each rank held three or four times, the groups worth trying (as
        ``best_arrangement`` reasons: a group no run could use is always laid; else all of
        it or none, or for four cards three of them without one a run could use), and
        the cards of those ranks."""
        cover = self.cover
        runs = cover[s0] | cover[s1] << 13 | cover[s2] << 26 | cover[s3] << 39
        choices: list[list[int]] = []
        grouped = 0
        while triples:
            low = triples & -triples
            triples ^= low
            column = mask & _COLUMN << low.bit_length() - 1
            grouped |= column
            if not column & runs:
                choices.append([column])
                continue
            options = [column, 0]
            if column.bit_count() == 4:
                options.extend(column ^ 1 << card for card in cards_of(column & runs))
            choices.append(options)
        return choices, grouped

    def fits(self, melds: list[list]) -> int:
        """The cards that may be laid off on at least one of ``melds``."""
        ace = self.ace
        out = 0
        for mask, kind in melds:
            out |= _fit_mask(mask, kind, ace)
        return out

    def fitting_meld(self, melds: list[list], card: int) -> int | None:
        """The first of ``melds`` that ``card`` may be laid off on."""
        ace = self.ace
        for i, (mask, kind) in enumerate(melds):
            if _fit_mask(mask, kind, ace) >> card & 1:
                return i
        return None


# --------------------------------------------------------------------------- rummy

class _RummyDeal(_DealWriter):
    """A Rummy-family deal: draw, meld, lay off, discard until out or blocked."""

    table: RummyTable

    def make_table(self, model: Deal) -> RummyTable:
        return RummyTable(self.rules, self.names, model, self.seats)

    def play(self) -> None:
        rng = self.rng
        self.limit = self.rules.melds_per_turn or 99
        # Some players hold their melds back for a while, hoping to go rummy.
        self.hold_turns = {s: rng.randint(3, 12) if rng.random() < 0.3 else 0
                           for s in self.seats}
        self.turns = dict.fromkeys(self.seats, 0)
        self.blocked_takes = 0
        while not self.table.ended:
            self.turn()

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        table = self.table
        values = {s: table.hand_value(s) for s in table.seats}
        if table.outcome == BLOCKED:
            points, winner = rummy_blocked_points(self.rules, table.seats, values)
            return BLOCKED, winner, points
        assert table.outcome is not None and table.winner is not None
        points = rummy_out_points(self.rules, table.seats, table.winner, values,
                                  table.outcome == WENT_RUMMY)
        return table.outcome, table.winner, points

    # -- stock reuse -------------------------------------------------------------------

    def reuse(self, seat: int) -> None:
        """The stock is rebuilt now from the discards: shuffle them (turn_over: flip the
        pile), and sometimes record it as an explicit ``reshuffle``."""
        table = self.table
        cards = list(table.reusable() or ())
        assert cards
        turn_over = self.rules.stock_exhausted == "turn_over"
        order = list(cards)  # drawn first .. drawn last
        if not turn_over:
            self.rng.shuffle(order)
        self.stock = list(reversed(order))
        self.known = turn_over
        if self.rng.random() < 0.4:
            give = self.rng.random() < 0.5
            entry = self.entry(seat, RESHUFFLE)
            if give:
                entry["stock"] = [card_name(c) for c in order]
                self.known = True
            self.do(Move(seat, RESHUFFLE, stock=tuple(order) if give else None), entry)

    # -- a turn ------------------------------------------------------------------------

    def turn(self) -> None:
        table = self.table
        rules = self.rules
        seat = table.to_move
        keep_last = rules.stock_exhausted == KEEP_LAST
        stock_left = table.stock_count > 0
        if keep_last and table.reuse_pending and table.reusable():
            self.reuse(seat)  # right after the discard that emptied the stock
            stock_left = True
        top = table.pile[-1] if table.pile else None
        want = top is not None and self.wants(seat, top)
        rebuild_on_draw = not stock_left and not keep_last and bool(table.reusable())
        if not stock_left and not rebuild_on_draw:
            # The stock is empty for good: take a useful discard a few times, else end.
            if want and self.blocked_takes < 2 * len(self.seats):
                self.blocked_takes += 1
                self.draw_discard(seat)
            else:
                self.do(Move(seat, END, reason="stock_exhausted"),
                        self.entry(seat, END, reason="stock_exhausted"))
                return
        elif want:
            self.draw_discard(seat)
        else:
            if rebuild_on_draw:
                self.reuse(seat)
            self.draw_stock(seat)
        self.turns[seat] += 1
        self.meld_and_lay_off(seat)
        if not table.ended:
            self.discard(seat)

    def wants(self, seat: int, card: int) -> bool:
        """The card makes or extends a meld with the hand, or fits a table meld that the
        player may lay off on."""
        table = self.table
        hand = table.hands[seat]
        rank = card % 13
        if (hand & _COLUMN << rank).bit_count() >= 2:
            return True  # a group of three or four
        shift = card - rank
        if self.cover[(hand | 1 << card) >> shift & SUIT_MASK] >> rank & 1:
            return True  # a run of the suit
        if not table.melds:
            return False
        may_lay_off = (not self.rules.layoff_requires_own_meld or seat in table.melded
                       or bool(self.best(hand)[1]))
        return may_lay_off and bool(self.table_fits() >> card & 1)

    def playable(self, rest: int) -> bool:
        """A hand the turn may leave after a meld or layoff: empty only when going out
        needs no discard, else holding a card that may be discarded."""
        if rest == 0:
            return not self.rules.discard_to_go_out
        taken = self.table.taken
        return self.rules.discard_taken_card or taken is None or rest != 1 << taken

    def plan(self, seat: int) -> tuple[list[tuple], int]:
        """The melds and layoffs to play now, and the hand they leave."""
        table = self.table
        hand = table.hands[seat]
        melds: list[list] | None = None  # the table's melds as this plan changes them
        has_melded = seat in table.melded
        actions: list[tuple] = []
        for _ in range(self.limit):
            _, arrangement = self.best(hand)
            if not arrangement:
                break
            options = sorted(arrangement, key=lambda m: (-_points(m, self.points), m))
            chosen = next((m for m in options if self.playable(hand & ~m)), None)
            if chosen is None:
                break
            actions.append((MELD, chosen))
            hand &= ~chosen
            if melds is None:
                melds = [[mask, kind] for mask, kind in table.melds]
            melds.append([chosen, meld_kind(chosen, self.ace)])
            has_melded = True
            if hand == 0:
                return actions, hand
        if self.rules.layoff_requires_own_meld and not has_melded:
            return actions, hand
        changed = True
        points = self.points
        while changed and hand:
            changed = False
            # Only these cards can be laid off at all.
            fitting = hand & (self.table_fits() if melds is None else self.fits(melds))
            if not fitting:
                break
            base = self.deadwood(hand)
            for card in sorted(cards_of(fitting), key=lambda c: (-points[c], c)):
                bit = 1 << card
                rest = hand & ~bit
                if not self.playable(rest) or (rest and self.deadwood(rest) > base):
                    continue
                if melds is None:
                    melds = [[mask, kind] for mask, kind in table.melds]
                target = self.fitting_meld(melds, card)
                if target is None:
                    continue
                actions.append((LAYOFF, card, target))
                melds[target][0] |= bit
                hand = rest
                changed = True
                break
        return actions, hand

    def meld_and_lay_off(self, seat: int) -> None:
        table = self.table
        actions, rest = self.plan(seat)
        if not actions:
            return
        taken = table.taken
        going_out = rest == 0 or (rest.bit_count() == 1 and (
            self.rules.discard_taken_card or taken is None or rest != 1 << taken))
        if self.holding(seat) and not going_out:
            return
        for action in actions:
            if action[0] == MELD:
                cards = cards_of(action[1])
                self.rng.shuffle(cards)  # runs are sets: any order is fine
                self.do(Move(seat, MELD, cards=tuple(cards)),
                        self.entry(seat, MELD, cards=[card_name(c) for c in cards]))
            else:
                _, card, target = action
                self.do(_move(seat, LAYOFF, card=card, meld=target),
                        self.entry(seat, LAYOFF, card=card_name(card), meld=target))
            if table.ended:
                return

    def holding(self, seat: int) -> bool:
        """Still holding melds back: within the player's patience, the deal young, and
        no opponent close to going out."""
        table = self.table
        if self.turns[seat] > self.hold_turns[seat] or len(self.moves) > AGGRESSIVE_AFTER:
            return False
        if seat in table.played_before:
            return False
        return all(table.hands[s].bit_count() > 3 for s in self.seats if s != seat)

    def discard(self, seat: int) -> None:
        """The highest card outside the hand's melds, preferring loose cards (in a deal
        that drags on, often a random card outside melds instead)."""
        table = self.table
        hand = table.hands[seat]
        taken = table.taken
        in_melds = _union(self.best(hand)[1])
        allowed = hand
        if taken is not None and not self.rules.discard_taken_card:
            allowed &= ~(1 << taken)
        assert allowed, "no card may be discarded"
        # The greatest (outside melds, fits no table meld, not connected, points, card):
        # narrowed one criterion at a time.
        pick = allowed & ~in_melds or allowed
        pick = pick & ~self.table_fits() or pick
        pick = _lonely(pick, hand) or pick
        points = self.points
        card = best_points = -1
        while pick:  # the most points, then the highest card (cards come in ascending order)
            low = pick & -pick
            pick ^= low
            candidate = low.bit_length() - 1
            if points[candidate] >= best_points:
                card, best_points = candidate, points[candidate]
        if len(self.moves) > AGGRESSIVE_AFTER and self.rng.random() < 0.5:
            # A stalemate (everyone keeps low cards and throws back what they draw) is
            # broken by letting kept cards go round.
            options = cards_of(allowed)
            loose = [c for c in options if not in_melds >> c & 1]
            lonely = [c for c in loose if not hand & _NEAR[c]]
            card = self.rng.choice(lonely or loose or options)
        self.do(_move(seat, DISCARD, card=card),
                {"p": self.names[seat], "a": DISCARD, "card": CARD_NAMES[card]})


_MOVES: dict[tuple, Move] = {}


def _move(seat: int, action: str, source: str | None = None, card: int | None = None,
          meld: int | None = None) -> Move:
    """``Move(seat, action, source=..., card=..., meld=...)``, one shared instance each
    (moves are immutable; building one costs more than the lookup)."""
    key = (seat, action, source, card, meld)
    found = _MOVES.get(key)
    if found is None:
        if len(_MOVES) >= 1 << 16:
            _MOVES.clear()
        found = _MOVES[key] = Move(seat, action, source=source, card=card, meld=meld)
    return found


def _lonely(mask: int, hand: int) -> int:
    """The cards of ``mask`` connected to no other card of ``hand``."""
    out = 0
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        if not hand & _NEAR[low.bit_length() - 1]:
            out |= low
    return out


def _points(mask: int, points: tuple[int, ...]) -> int:
    return sum(points[c] for c in cards_of(mask))


def _near(card: int) -> int:
    """The other cards of the same rank, or of the same suit within two ranks."""
    rank, suit = card % 13, card // 13
    out = 0
    for other in range(52):
        if other != card and (other % 13 == rank
                              or (other // 13 == suit and abs(other % 13 - rank) <= 2)):
            out |= 1 << other
    return out


# A card is connected to a hand that holds any card of its mask.
_NEAR = tuple(_near(card) for card in range(52))

_LOOSE: dict[tuple[str, tuple[int, ...]], list[int]] = {}


def _loose_points(ace: str, points: tuple[int, ...]) -> list[int]:
    """For each 13-bit rank slice of one suit, the points of its cards outside its best
    runs: the deadwood of a hand whose suits are these slices, when no rank is held three
    or four times (then no group can be made, and the suits are independent).  Card
    points depend on the rank only, so one table serves every suit."""
    key = (ace, points)
    table = _LOOSE.get(key)
    if table is None:
        if points[:13] * 4 != points:
            raise ValueError("card points must depend on the rank only")
        table = [best_arrangement(ranks, ace, points)[0] for ranks in range(SUIT_MASK + 1)]
        if len(_LOOSE) >= 64:
            _LOOSE.clear()
        _LOOSE[key] = table
    return table


_COVERS: dict[str, list[int]] = {}


def _run_cover(ace: str) -> list[int]:
    """For each 13-bit rank slice of one suit, the ranks that some run of the slice
    contains (the union of its candidate melds: one suit has no groups)."""
    table = _COVERS.get(ace)
    if table is None:
        table = _COVERS[ace] = [_union(candidate_melds(ranks, ace))
                                for ranks in range(SUIT_MASK + 1)]
    return table


_FITS: dict[tuple[int, str, str], int] = {}
_FITS_LIMIT = 1 << 16


def _fit_mask(mask: int, kind: str, ace: str) -> int:
    """The cards that ``layoff_fits`` the meld: only a card of a group's rank, or of a
    run's suit next to one of its ranks (the ace next to the king), can, so those few
    are asked."""
    key = (mask, kind, ace)
    found = _FITS.get(key)
    if found is not None:
        return found
    out = 0
    if mask:
        low = (mask & -mask).bit_length() - 1
        if kind == GROUP:
            candidates = _COLUMN << low % 13 & ~mask
        else:
            shift = low - low % 13
            ranks = mask >> shift & SUIT_MASK
            near = (ranks << 1 | ranks >> 1 | ranks >> 12 | (ranks & 1) << 12) & SUIT_MASK
            candidates = (near & ~ranks) << shift
        for card in cards_of(candidates):
            if layoff_fits(mask, kind, card, ace):
                out |= 1 << card
    if len(_FITS) >= _FITS_LIMIT:
        _FITS.clear()
    _FITS[key] = out
    return out


# --------------------------------------------------------------------------- gin

class _GinDeal(_DealWriter):
    """A gin deal: draw and discard until a knock, gin, or a pass at the floor."""

    table: GinTable

    def make_table(self, model: Deal) -> GinTable:
        return GinTable(self.rules, self.names, model, self.seats)

    def play(self) -> None:
        self.last_discard: tuple[int, int, tuple[int, int]] | None = None
        # Some players keep playing for gin instead of knocking at once.
        self.hunter = {s: self.rng.random() < 0.25 for s in self.seats}
        table = self.table
        while not table.ended and table.knocker is None:
            self.turn()
        if table.knocker is not None:
            self.defend()

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        return self.table.score()

    def best_discard(self, hand: int, taken: int | None) -> tuple[int, int]:
        """The least deadwood after a discard, and that discard (the highest card among
        equals); the card taken from the pile stays unless the rules allow otherwise."""
        keep = taken if taken is not None and not self.rules.discard_taken_card else -1
        last = self.last_discard
        if last is not None and last[0] == hand and last[1] == keep:
            return last[2]
        points = self.points
        loose = self.loose
        s0 = hand & SUIT_MASK
        s1 = hand >> 13 & SUIT_MASK
        s2 = hand >> 26 & SUIT_MASK
        s3 = hand >> 39
        triples = s0 & s1 & (s2 | s3) | s2 & s3 & (s0 | s1)
        if not triples:  # no group, before or after: one suit's loose points change
            return self._best_loose_discard(hand, keep, s0, s1, s2, s3)
        # Discarding a card of a rank held fewer than three times leaves the ranks held
        # three or four times, so the group choices (runs only shrink: a group no run
        # could use stays so): for each choice only the discarded card's suit changes
        # its loose points.  (Cards of those ranks are asked of ``deadwood``.)
        choices, grouped = self.group_choices(hand, triples, s0, s1, s2, s3)
        rests = []
        for combo in product(*choices):
            rest = hand
            for group in combo:
                rest &= ~group
            slices = (rest & SUIT_MASK, rest >> 13 & SUIT_MASK, rest >> 26 & SUIT_MASK,
                      rest >> 39)
            base = [loose[x] for x in slices]
            total = base[0] + base[1] + base[2] + base[3]
            rests.append((slices, [total - b for b in base]))
        # The least (deadwood, -points, -card): cards come in ascending order, so among
        # equal deadwood and points the later card wins.
        best_dw = best_points = best_card = -1
        for suit in range(4):
            shift = 13 * suit
            ranks = hand >> shift & SUIT_MASK
            while ranks:
                low = ranks & -ranks
                ranks ^= low
                card = shift + low.bit_length() - 1
                if card == keep:
                    continue
                if grouped >> card & 1:
                    dw = self.deadwood(hand & ~(1 << card))
                else:
                    dw = -1
                    for slices, others in rests:
                        value = others[suit] + loose[slices[suit] & ~low]
                        if dw < 0 or value < dw:
                            dw = value
                value = points[card]
                if best_card < 0 or dw < best_dw or (dw == best_dw and value >= best_points):
                    best_dw, best_points, best_card = dw, value, card
        return self._remembered(hand, keep, best_dw, best_card)

    def _remembered(self, hand: int, keep: int, best_dw: int,
                    best_card: int) -> tuple[int, int]:
        """The best discard found, kept for the same question asked again."""
        assert best_card >= 0
        result = best_dw, best_card
        self.last_discard = (hand, keep, result)
        return result

    def _best_loose_discard(self, hand: int, keep: int, s0: int, s1: int, s2: int,
                            s3: int) -> tuple[int, int]:
        """``best_discard`` of a hand holding no rank three times."""
        loose = self.loose
        points = self.points
        slices = (s0, s1, s2, s3)
        total = loose[s0] + loose[s1] + loose[s2] + loose[s3]
        best_dw = best_points = best_card = -1
        for suit in range(4):
            ranks = slices[suit]
            if not ranks:
                continue
            others = total - loose[ranks]
            shift = 13 * suit
            rest = ranks
            while rest:
                low = rest & -rest
                rest ^= low
                card = shift + low.bit_length() - 1
                if card == keep:
                    continue
                dw = others + loose[ranks ^ low]
                value = points[card]
                if best_card < 0 or dw < best_dw or (dw == best_dw and value >= best_points):
                    best_dw, best_points, best_card = dw, value, card
        return self._remembered(hand, keep, best_dw, best_card)

    def takes(self, seat: int, card: int, must_knock: bool) -> bool:
        """Take the discard when it lowers the best deadwood (at the floor: only when it
        lets the player knock at once)."""
        table = self.table
        hand = table.hands[seat]
        after, _ = self.best_discard(hand | 1 << card, card)
        if must_knock:
            return after <= table.knock_limit
        return after < self.deadwood(hand)

    def turn(self) -> None:
        table = self.table
        seat = table.to_move
        top = table.pile[-1] if table.pile else None
        if table.phase == UPCARD and table.refusals < 2:
            if top is not None and self.takes(seat, top, table.at_floor):
                self.draw_discard(seat)
            else:
                self.do(_move(seat, PASS), self.entry(seat, PASS))
                return
        elif table.at_floor:
            if (table.phase != UPCARD and top is not None
                    and self.takes(seat, top, must_knock=True)):
                self.draw_discard(seat)
            else:
                self.do(_move(seat, PASS), self.entry(seat, PASS))  # a void deal
                return
        elif table.phase != UPCARD and top is not None and self.takes(seat, top, False):
            self.draw_discard(seat)
        else:
            self.draw_stock(seat)
        self.after_draw(seat)

    def after_draw(self, seat: int) -> None:
        table = self.table
        rules = self.rules
        hand = table.hands[seat]
        if rules.big_gin_bonus is not None and self.deadwood(hand) == 0:
            self.end_turn(seat, GIN, None, hand)
            return
        dw, card = self.best_discard(hand, table.taken)
        rest = hand & ~(1 << card)
        if dw == 0:
            self.end_turn(seat, KNOCK if self.rng.random() < 0.15 else GIN, card, rest)
        elif dw <= table.knock_limit and (
                table.at_floor or not self.hunter[seat]
                or table.stock_count <= rules.stock_floor + 4):
            self.end_turn(seat, KNOCK, card, rest)
        else:
            assert not table.at_floor, "took the discard at the floor without knocking"
            self.do(_move(seat, DISCARD, card=card),
                    self.entry(seat, DISCARD, card=card_name(card)))

    def end_turn(self, seat: int, action: str, card: int | None, rest: int) -> None:
        """Knock or gin, declaring the best melds or leaving them to the engine."""
        entry = self.entry(seat, action)
        if card is not None:
            entry["card"] = card_name(card)
        melds = None
        if self.rng.random() < 0.6:
            melds = tuple(tuple(cards_of(m)) for m in self.best(rest)[1])
            entry["melds"] = [[card_name(c) for c in m] for m in melds]
        self.do(Move(seat, action, card=card, melds=melds), entry)

    def defend(self) -> None:
        """The defender's layoffs onto declared melds (not after gin) and maybe a show,
        before or after them."""
        table = self.table
        seat = table.defender
        show = self.rng.random() < 0.5
        show_first = show and self.rng.random() < 0.3
        if show_first:
            self.show(seat)
        if not table.is_gin and table.declared:
            self.lay_off(seat)
        if show and not show_first:
            self.show(seat)

    def lay_off(self, seat: int) -> None:
        """Lay off, one card at a time, whatever fits and lowers the deadwood (a run
        grows as cards are added to it)."""
        table = self.table
        changed = True
        while changed:
            changed = False
            shown = _union(table.shown or ())
            free = table.hands[seat] & ~table.laid_off & ~shown
            base = None if shown or table.shown is not None else self.deadwood(free)
            for card in sorted(cards_of(free), key=lambda c: (-self.points[c], c)):
                bit = 1 << card
                if base is not None and self.deadwood(free & ~bit) >= base:
                    continue
                target = self.fitting_meld(table.knock_melds, card)
                if target is None:
                    continue
                self.do(_move(seat, LAYOFF, card=card, meld=target),
                        self.entry(seat, LAYOFF, card=card_name(card), meld=target))
                changed = True
                break

    def show(self, seat: int) -> None:
        table = self.table
        free = table.hands[seat] & ~table.laid_off
        entry = self.entry(seat, SHOW)
        melds = None
        if self.rng.random() < 0.8:
            melds = tuple(tuple(cards_of(m)) for m in self.best(free)[1])
            entry["melds"] = [[card_name(c) for c in m] for m in melds]
        self.do(Move(seat, SHOW, melds=melds), entry)


"""Exact luck: of every stock draw, of every dealt hand, and the luck-adjusted result.

Positive luck is good luck, and ``docs/ANALYSIS.md`` (Luck) has the definitions.

**Gin** (``gin_luck``): in deal points, a control variate of the chance events.  Each
dealt pair of hands, upcard and stock draw gets, for each of the two players, the
evaluator's expected deal points after it less their exact mean over every way it
could have fallen (the stock's real cards, as the auditor knows them); the luck of a
deal is half the difference of the two hands' terms, whose mean is exactly zero since
the hands could as well have been swapped.  The luck-adjusted points (deal points less
luck) have the deal points' expectation and, measured, far less variance.

**Rummy family**: in card points (the points the rules give the cards, the ace's as
``ace_points`` says); in short:

* a hand's **value** is its least deadwood (Rummy family: a card that fits a meld on
  the table counts for nothing), and a draw's **value after** is the value of the best
  hand kept after the draw and the best discard (``values``);
* the cards **unseen by the drawer** are those the drawer cannot place outside the
  stock: every card but the drawer's hand, the discard pile, the melds on the table and
  the cards other players took from the discard pile and still hold; after the discard
  pile was made into a new stock only the cards of that new stock can be there; and
  where everyone knows the stock's order (``turn_over``), only its top;
* a stock draw's **improvement** is the value before the draw minus the value after;
  its **expected improvement** is the mean of the improvement over every unseen card;
  its **luck** is the improvement minus the expected improvement;
* a dealt hand's **start luck** is the mean value of a dealt hand (``deal_start``)
  minus its value;
* a player's **luck** in a deal is their start luck plus the luck of their stock draws,
  and their **luck-adjusted points** are their deal points minus their luck (plus it
  under ``penalty`` scoring, where points count against the player).

Draws from the discard pile are not luck: the card was in sight.  An illegal deal is
analysed up to its first illegal move.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import report as R
from ..engine.cards import FULL_DECK, card_name
from ..engine.gin import GinTable
from ..engine.melds import layoff_cards
from ..engine.model import DRAW, STOCK, Game
from ..engine.replay import verify
from ..engine.report import Report
from ..engine.rules import StockPolicy
from ..engine.rummy import RummyTable
from ..engine.table import Table
from .deal_start import mean_dealt_value
from .gin_luck import gin_deal_luck
from .gin_value import gin_values
from .values import draw_figures, hand_value, suit_tables

_NOT_ANALYSED = (R.GAME_OVER, R.WRONG_SEATING)  # the deal is not played at all


@dataclass(frozen=True, slots=True)
class DrawLuck:
    """One stock draw: ``before`` and ``after`` are the drawer's values, ``unseen`` the
    number of cards it could have been (gin: the stock's cards, as the auditor knows
    them; Rummy family: the cards unseen by the drawer).

    Gin (``points_luck`` set): the luck is in deal points, the evaluator's ``value`` of
    the drawer's position after the draw less its ``mean`` over the stock's cards, and
    the other player (``opponent``) gets a luck of their own (``gin_luck``); Rummy
    family: the luck is in card points, the improvement less the expected one."""

    deal: int
    move: int
    player: str
    card: int
    unseen: int
    before: int
    after: int
    expected: float  # the mean improvement over the cards it could have been
    points_luck: float | None = None
    value: float | None = None
    mean: float | None = None
    opponent: str | None = None
    opponent_luck: float | None = None

    @property
    def improvement(self) -> int:
        return self.before - self.after

    @property
    def luck(self) -> float:
        if self.points_luck is not None:
            return self.points_luck
        return self.improvement - self.expected

    def to_dict(self) -> dict[str, Any]:
        out = {"deal": self.deal, "move": self.move, "player": self.player,
               "card": card_name(self.card), "unseen": self.unseen, "before": self.before,
               "after": self.after, "improvement": self.improvement,
               "expected": round(self.expected, 4), "luck": round(self.luck, 4)}
        if self.points_luck is not None:
            out.update(value=round(self.value or 0.0, 4), mean=round(self.mean or 0.0, 4),
                       opponent=self.opponent, opponent_luck=round(self.opponent_luck or 0.0, 4))
        return out


@dataclass(frozen=True, slots=True)
class StartLuck:
    """A dealt hand: its value against the mean value of a dealt hand (Rummy family, card
    points); gin: its deadwood, and its luck in deal points, that of the deal (``dealt``,
    ``gin_luck``) and that of the upcard (``upcard``)."""

    player: str
    value: int
    mean: float
    dealt: float | None = None
    upcard: float | None = None

    @property
    def luck(self) -> float:
        if self.dealt is not None:
            return self.dealt + (self.upcard or 0.0)
        return self.mean - self.value

    def to_dict(self) -> dict[str, Any]:
        if self.dealt is not None:
            return {"player": self.player, "value": self.value, "dealt": round(self.dealt, 4),
                    "upcard": round(self.upcard or 0.0, 4), "luck": round(self.luck, 4)}
        return {"player": self.player, "value": self.value, "mean": round(self.mean, 4),
                "luck": round(self.luck, 4)}


@dataclass(frozen=True, slots=True)
class DealLuck:
    """One deal's luck.  ``points`` and ``adjusted`` are None when the deal was not
    scored (illegal, unfinished); ``stopped`` is the move of the first violation (None:
    the whole deal was analysed; -1: none of it, the deal as a whole was refused)."""

    deal: int
    start: tuple[StartLuck, ...]
    draws: tuple[DrawLuck, ...]
    luck: dict[str, float]
    points: dict[str, int] | None
    adjusted: dict[str, float] | None
    stopped: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "start": [s.to_dict() for s in self.start],
                "draws": [d.to_dict() for d in self.draws], "luck": _rounded(self.luck),
                "points": self.points,
                "adjusted": None if self.adjusted is None else _rounded(self.adjusted),
                "stopped": self.stopped}


@dataclass(frozen=True, slots=True)
class GameLuck:
    """Per player over the game's scored deals: how many they played (``scored``), their
    ``luck``, deal ``points`` (the bonuses added at a game's end not included) and
    ``adjusted`` points; ``deals`` every deal."""

    deals: tuple[DealLuck, ...]
    scored: dict[str, int]
    luck: dict[str, float]
    points: dict[str, int]
    adjusted: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"deals": [d.to_dict() for d in self.deals], "scored": self.scored,
                "luck": _rounded(self.luck), "points": self.points,
                "adjusted": _rounded(self.adjusted)}


@dataclass(slots=True)
class LuckTally:
    """A player's luck over some scored deals: how many, the luck points, the
    luck-adjusted points."""

    deals: int = 0
    luck: float = 0.0
    adjusted: float = 0.0


def luck_by_opponent(luck: GameLuck, next_players: Mapping[int, Mapping[str, str]]
                     ) -> dict[tuple[str, str], LuckTally]:
    """The game's luck per (player, next player of the deal): each scored deal's luck
    and luck-adjusted points of a player counted with the player who played after them
    in that deal (gin: the deal's opponent), as the move analysis counts its tallies
    (``next_players``: ``Analysis.next_players``).  The sums over a player's keys are
    ``GameLuck``'s ``scored``, ``luck`` and ``adjusted``; a deal with no next players
    (refused as a whole) has no luck to count."""
    out: dict[tuple[str, str], LuckTally] = {}
    for deal in luck.deals:
        if deal.adjusted is None or deal.deal not in next_players:
            continue
        after = next_players[deal.deal]
        for player, adjusted in deal.adjusted.items():
            if player not in after:
                continue
            tally = out.setdefault((player, after[player]), LuckTally())
            tally.deals += 1
            tally.luck += deal.luck.get(player, 0.0)
            tally.adjusted += adjusted
    return out


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in values.items()}


DRAWER, STOCK_VIEW = "drawer", "stock"


def analyse_luck(game: Game, report: Report | None = None, view: str = DRAWER) -> GameLuck:
    """The luck of every deal of a parsed game (``report``: its verification, made here
    when not given).

    Gin deals are in deal points (``gin_luck``), each draw weighed against the stock's
    cards whatever ``view`` says.  In the Rummy family ``view`` says which cards a
    stock draw is weighed against: ``drawer``, the cards
    unseen by the drawer (the luck of the docs); ``stock``, the cards that were in the
    stock then, as the auditor knows them (the shuffle's own luck, whose expectation is
    exactly zero at every draw; the drawer's is not quite, since the other players keep
    better cards than the stock holds)."""
    if view not in (DRAWER, STOCK_VIEW):
        raise ValueError(f"view is {DRAWER!r} or {STOCK_VIEW!r}, not {view!r}")
    if report is None:
        report = verify(game)
    refused = {v.deal for v in report.violations if v.code in _NOT_ANALYSED}
    sign = -1 if report.lower_wins else 1
    deals = []
    names = game.players
    scored_deals = dict.fromkeys(names, 0)
    luck = dict.fromkeys(names, 0.0)
    points = dict.fromkeys(names, 0)
    adjusted = dict.fromkeys(names, 0.0)
    for d in range(len(game.deals)):
        result = report.deals[d] if d < len(report.deals) else None
        scored = result is not None and result.outcome is not None
        if d in refused or game.deals[d].result is not None:  # or no play recorded
            deals.append(DealLuck(d, (), (), {}, None, None, -1))
            continue
        if game.rules.is_gin:
            start, draws, stopped = _gin_deal(game, d)
        else:
            start, draws, stopped = _deal_luck(game, d, view)
        deal_luck = {s.player: s.luck for s in start}
        for draw in draws:
            deal_luck[draw.player] += draw.luck
            if draw.opponent is not None:
                deal_luck[draw.opponent] += draw.opponent_luck or 0.0
        deal_points = dict(result.points) if scored else None
        deal_adjusted = None
        if deal_points is not None:
            deal_adjusted = {p: v - sign * deal_luck.get(p, 0.0) for p, v in deal_points.items()}
            for p, v in deal_points.items():
                scored_deals[p] += 1
                luck[p] += deal_luck.get(p, 0.0)
                points[p] += v
                adjusted[p] += deal_adjusted[p]
        deals.append(DealLuck(d, start, tuple(draws), deal_luck, deal_points, deal_adjusted,
                              stopped))
    return GameLuck(tuple(deals), scored_deals, luck, points, adjusted)


def _gin_deal(game: Game, d: int) -> tuple[tuple[StartLuck, ...], list[DrawLuck], int | None]:
    """A gin deal's luck in deal points (``gin_luck``): the deal and the upcard in each
    player's start luck, every stock draw's for the drawer and the other player."""
    found = gin_deal_luck(game, d, gin_values())
    if found.stopped == -1:
        return (), [], -1
    names = game.players
    first, second = found.first, found.second
    upcard = {first: 0.0, second: 0.0}
    draws = []
    for event in found.chances:
        if event.move < 0:
            upcard[event.mover] += event.mover_luck
            upcard[event.other] += event.other_luck
            continue
        draws.append(DrawLuck(d, event.move, names[event.mover], event.card, event.cards,
                              event.before, event.after, event.before - event.expected_after,
                              event.mover_luck, event.value, event.mean, names[event.other],
                              event.other_luck))
    start = (StartLuck(names[first], found.dealt[first], 0.0, found.deal_luck, upcard[first]),
             StartLuck(names[second], found.dealt[second], 0.0, -found.deal_luck,
                       upcard[second]))
    return start, draws, found.stopped


def _deal_luck(game: Game, d: int, view: str) -> tuple[tuple[StartLuck, ...], list[DrawLuck], int | None]:
    deal = game.deals[d]
    names = game.players
    rules = game.rules
    seats = tuple(sorted(deal.players)) if deal.players else tuple(range(len(names)))
    table: Table = (GinTable if rules.is_gin else RummyTable)(rules, names, deal, seats)
    if table.deal_cards(deal):
        return (), [], -1
    tables = suit_tables(str(rules.ace), table.points)
    mean = mean_dealt_value(str(rules.ace), rules.ace_points, rules.hand_size)
    start = tuple(StartLuck(names[s], hand_value(table.hands[s], 0, tables), mean)
                  for s in table.order)
    known = _DrawerView(table, view == STOCK_VIEW)
    draws = []
    for m, move in enumerate(deal.moves):
        if move.action == DRAW and move.source == STOCK and move.player == table.to_move \
                and not table.drew:
            seen = known.before_stock_draw(move.player)
            hand = table.hands[move.player]
            if table.play(move):
                return start, draws, m
            card = (table.hands[move.player] & ~hand).bit_length() - 1
            draws.append(known.draw(d, m, names[move.player], hand, card, seen, tables))
            continue
        taken = table.pile[-1] if move.action == DRAW and table.pile else None
        if table.play(move):
            return start, draws, m
        known.after_move(move, taken)
    return start, draws, None


class _DrawerView:
    """What the players of one deal know of where the cards are."""

    def __init__(self, table: Table, auditor: bool = False):
        self.table = table
        self.auditor = auditor  # weigh each draw against the stock's real cards
        self.possible = FULL_DECK  # the cards the stock can hold, as everyone knows
        self.public_order = False  # everyone knows the stock's order
        self.taken = 0  # cards taken from the discard pile and not drawn from the stock since
        self.reuses = 0

    def _rebuilt(self, stock: int, reuses: int) -> None:
        self.possible = stock
        self.public_order = self.table.rules.stock_exhausted == StockPolicy.TURN_OVER
        self.taken &= ~stock
        self.reuses = reuses

    def after_move(self, move, taken: int | None) -> None:
        table = self.table
        if isinstance(table, RummyTable) and table.reuses > self.reuses:
            self._rebuilt(table.stock_set, table.reuses)  # a recorded reshuffle
        if move.action == DRAW and taken is not None and table.taken == taken:
            self.taken |= 1 << taken

    def before_stock_draw(self, player: int) -> tuple[int, int]:
        """The cards unseen by the drawer and the cards that fit a table meld, as the
        draw finds the table (a pending or due rebuild of the stock done)."""
        table = self.table
        found: Table = table
        if isinstance(table, RummyTable):
            if table.reuse_pending or not table.stock_count:
                found = table.copy()
                found.settle_pending()
                if (not found.stock_count and found.reusable()
                        and table.rules.stock_exhausted != StockPolicy.KEEP_LAST_DISCARD):
                    found.rebuild(None)
            if found.reuses > self.reuses:
                self._rebuilt(found.stock_set, found.reuses)
        layable = 0
        if isinstance(found, RummyTable):
            ace = str(found.rules.ace)
            for mask, kind in found.melds:
                layable |= layoff_cards(mask, kind, ace)
        if self.auditor:
            return found.stock_set, layable
        # Every card lies in a hand, the stock, the discard pile or a table meld: the
        # drawer sees their own hand, the pile, the melds and the cards seen taken.
        hidden = found.stock_set
        for seat in found.seats:
            if seat != player:
                hidden |= found.hands[seat] & ~self.taken
        return self.possible & hidden, layable

    def draw(self, d: int, m: int, player: str, hand: int, card: int, seen: tuple[int, int],
             tables) -> DrawLuck:
        unseen, layable = seen
        bit = 1 << card
        self.taken &= ~bit
        if self.public_order and not self.auditor:
            unseen = bit
        unseen |= bit  # always so by construction; kept so that the mean includes it
        before, total, after = draw_figures(hand, unseen, card, layable, tables)
        count = unseen.bit_count()
        expected = before - total / count
        return DrawLuck(d, m, player, card, count, before, after, expected)

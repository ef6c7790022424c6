"""The exact facts of each decision of a game (docs/ANALYSIS.md, "Decisions").

A *decision* is a player's turn once they have drawn (it ends with a discard, a knock, gin
or going out), and in gin also the defender's answer to a knock that declared melds.
Each fact names the deal, the move the player actually made, the player, its kind, the
better move (``alternative``, in the log's move format, one of the engine's
``legal_moves()`` after move ``position``) and its ``cost`` in points.

Whether a fact is there is judged on what the player could see (their hand, the discard
pile, the melds on the table, the stock count) and the rules.  Costs measured in deal
points use the auditor's knowledge of the other hands (a gin's worth is the gin bonus
plus the defender's deadwood), and so do the knock-into-undercut certainty and fed cards.

Kinds, at most one of the first three per decision (in that order, and in the Rummy
family ``missed_rummy``, ``missed_out``, ``discard_error`` likewise):

* ``missed_gin``: gin was legal after the draw (with a discard, or big gin), and the
  player did something else;
* ``missed_knock``: a knock was legal and the player discarded and played on, unless
  the defender's hand was certain to undercut it (then playing on was right);
* ``discard_error``: the discard (or the knock's discard) left more deadwood (Rummy:
  hand value, the points no meld of the hand holds) than the best legal discard;
* ``knock_into_undercut``: a knock that the defender's hand, with its best layoffs,
  was certain to undercut;
* ``missed_layoff``: gin, the defender ended with less deadwood within reach by laying
  off more; Rummy, a card kept in hand could have been laid off, lowering the hand value;
* ``missed_out`` / ``missed_rummy``: the player could have gone out this turn (rummy:
  having played no card in an earlier turn) and did not;
* ``fed_card``: a discard that the next player took and used (a meld of their hand after
  the turn, a meld or layoff on the table, or going out).

A game stopped by a violation is analysed up to it: the illegal move and what follows in
its deal are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..engine.cards import cards_of, mask_points
from ..engine.gin import AFTER_KNOCK, PLAY, GinTable, _declared
from ..engine.melds import (
    candidate_melds,
    deadwood,
    discard_deadwoods,
    joins_meld,
    layoff_cards,
    least_deadwood,
    meld_kind,
)
from ..engine.model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    GIN,
    KNOCK,
    LAYOFF,
    MELD,
    RESHUFFLE,
    Game,
    Move,
)
from ..engine.replay import verify
from ..engine.report import Report
from ..engine.rules import Scoring
from ..engine.rummy import RummyTable
from ..engine.scoring import gin_points, rummy_out_points
from ..engine.table import Table
from .moves import move_json

MISSED_GIN, MISSED_KNOCK, KNOCK_INTO_UNDERCUT = "missed_gin", "missed_knock", "knock_into_undercut"
DISCARD_ERROR, MISSED_LAYOFF = "discard_error", "missed_layoff"
MISSED_OUT, MISSED_RUMMY, FED_CARD = "missed_out", "missed_rummy", "fed_card"
KINDS = (MISSED_GIN, MISSED_KNOCK, KNOCK_INTO_UNDERCUT, DISCARD_ERROR, MISSED_LAYOFF,
         MISSED_OUT, MISSED_RUMMY, FED_CARD)
# Errors of the player's own judgement: a decision with none of them is accurate.  A fed
# card is not among them: whether the next player can use a card is hidden from the
# player.
ERRORS = tuple(k for k in KINDS if k != FED_CARD)
# Playing softly against the next player: the chances to end the deal let go.
SOFT = (MISSED_GIN, MISSED_KNOCK, MISSED_OUT, MISSED_RUMMY)
UNDERCUT = "undercut"


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact of one decision.  ``position`` is the move after which ``alternative``
    is legal (``table_after(game, deal, position)``; -1: as dealt); ``detail`` holds the
    kind's own figures (docs/ANALYSIS.md)."""

    deal: int
    move: int
    player: str
    kind: str
    alternative: dict[str, Any] | None
    cost: int
    position: int
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "move": self.move, "player": self.player,
                "kind": self.kind, "alternative": self.alternative, "cost": self.cost,
                "position": self.position, **({"detail": self.detail} if self.detail else {})}


@dataclass(slots=True)
class Tally:
    """What one player did facing one next player (gin: the opponent of the deal)."""

    decisions: int = 0
    accurate: int = 0  # decisions without an error
    kinds: dict[str, int] = field(default_factory=dict)
    discard_error_points: int = 0
    fed_given: int = 0
    fed_received: int = 0
    soft: int = 0  # missed gins, knocks, outs and rummies
    points: int = 0  # the player's deal points in the deals they faced that player
    opponent_points: int = 0  # that player's deal points in those deals
    deals: int = 0

    def add(self, other: Tally) -> None:
        self.decisions += other.decisions
        self.accurate += other.accurate
        for kind, n in other.kinds.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + n
        self.discard_error_points += other.discard_error_points
        self.fed_given += other.fed_given
        self.fed_received += other.fed_received
        self.soft += other.soft
        self.points += other.points
        self.opponent_points += other.opponent_points
        self.deals += other.deals


@dataclass(slots=True)
class Analysis:
    """Every fact of a game, and each player's tallies by next player."""

    facts: list[Fact]
    tallies: dict[tuple[str, str], Tally]
    stopped: list[dict[str, Any]]  # where a violation stopped the analysis of a deal
    # Per deal analysed, each player's next player (gin: the deal's opponent): the
    # opponent of the tally a deal's figures count in.
    next_players: dict[int, dict[str, str]] = field(default_factory=dict)
    # deals recorded by their result (a score sheet): no play recorded, nothing analysed
    by_result: list[int] = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per player: decisions, errors by kind (count and per 100 decisions), average
        discard error, accuracy, fed cards given and received."""
        players: dict[str, Tally] = {}
        for (player, _), tally in self.tallies.items():
            players.setdefault(player, Tally()).add(tally)
        return {player: summarise(tally) for player, tally in players.items()}

    def to_dict(self) -> dict[str, Any]:
        out = {"facts": [f.to_dict() for f in self.facts], "summary": self.summary(),
               "stopped": self.stopped}
        if self.by_result:
            out["by_result"] = self.by_result
        return out


def ratio(part: int, whole: int, places: int) -> float | None:
    """``part / whole`` to ``places`` decimals, rounded half away from zero on the exact
    quotient (as docs/STATISTICS.md rounds); None when ``whole`` is 0."""
    if not whole:
        return None
    scale = 10 ** places
    units = (abs(part) * scale * 2 + whole) // (2 * whole)
    return (-units if part < 0 else units) / scale


def summarise(tally: Tally) -> dict[str, Any]:
    """The figures of a tally, as the API and the command line give them."""
    n = tally.decisions
    return {
        "decisions": n,
        "errors": {kind: tally.kinds.get(kind, 0) for kind in KINDS},
        "per_100": {kind: ratio(100 * tally.kinds.get(kind, 0), n, 2) for kind in KINDS},
        "average_discard_error": ratio(tally.discard_error_points, n, 3),
        "accuracy": ratio(100 * tally.accurate, n, 2),
        "fed_given": tally.fed_given,
        "fed_received": tally.fed_received,
    }


def analyse(game: Game, report: Report | None = None) -> Analysis:
    """The facts of every decision of ``game`` (``report``: its verification, computed
    when not given, for the deals' final points)."""
    report = report if report is not None else verify(game)
    facts: list[Fact] = []
    tallies: dict[tuple[str, str], Tally] = {}
    stopped: list[dict[str, Any]] = []
    next_players: dict[int, dict[str, str]] = {}
    by_result = []
    for d in range(len(game.deals)):
        if game.deals[d].result is not None:
            by_result.append(d)  # its play is not recorded: nothing to analyse
            continue
        result = report.deals[d] if d < len(report.deals) else None
        deal = _DealAnalysis(game, d, result, facts, tallies, stopped)
        deal.run()
        if deal.next_of:
            next_players[d] = {deal.names[s]: deal.names[n] for s, n in deal.next_of.items()}
    facts.sort(key=lambda f: (f.deal, f.move, KINDS.index(f.kind)))
    return Analysis(facts, tallies, stopped, next_players, by_result)


# --- one deal ----------------------------------------------------------------------------

@dataclass(slots=True)
class _Turn:
    player: int
    draw: int  # index of the draw
    source: str
    taken: int | None  # the card taken from the discard pile
    before: int  # the hand before the draw
    end: int | None = None  # index of the move that ended the turn
    after: int = 0  # the hand after the turn
    laid: int = 0  # cards laid on the table this turn (Rummy)
    out: bool = False  # went out, knocked or went gin


@dataclass(slots=True)
class _Discard:
    move: int
    player: int
    card: int
    deadwoods: list[tuple[int, int]]  # the legal discards and the deadwood each leaves
    position: int


class _DealAnalysis:
    def __init__(self, game: Game, d: int, result: Any, facts: list[Fact],
                 tallies: dict[tuple[str, str], Tally], stopped: list[dict[str, Any]]):
        self.game, self.d, self.result = game, d, result
        self.facts, self.tallies, self.stopped = facts, tallies, stopped
        self.names = game.players
        self.rules = game.rules
        deal = game.deals[d]
        self.deal = deal
        self.seats = tuple(sorted(deal.players)) if deal.players else tuple(
            range(len(game.players)))
        self.turns: list[_Turn] = []
        self.discards: list[_Discard] = []
        self.next_of: dict[int, int] = {}
        self.ace = self.rules.ace

    # -- bookkeeping ----------------------------------------------------------------------

    def fact(self, kind: str, move: int, player: int, alternative: Move | None, cost: int,
             position: int, **detail: Any) -> Fact:
        return Fact(self.d, move, self.names[player], kind,
                    None if alternative is None else move_json(alternative, self.names),
                    cost, position, detail)

    def tally(self, player: int) -> Tally:
        key = (self.names[player], self.names[self.next_of[player]])
        tally = self.tallies.get(key)
        if tally is None:
            tally = self.tallies[key] = Tally()
        return tally

    def decided(self, player: int, found: Iterable[Fact]) -> None:
        """Count one decision of ``player`` with its facts."""
        found = list(found)
        tally = self.tally(player)
        tally.decisions += 1
        errors = [f for f in found if f.kind in ERRORS]
        if not errors:
            tally.accurate += 1
        for f in found:
            tally.kinds[f.kind] = tally.kinds.get(f.kind, 0) + 1
            if f.kind == DISCARD_ERROR:
                tally.discard_error_points += f.cost
            if f.kind in SOFT:
                tally.soft += 1
        self.facts.extend(found)

    def deal_points(self, player: int) -> int | None:
        result = self.result
        if result is None or result.outcome is None:
            return None
        return result.points.get(self.names[player], 0)

    # -- the replay -------------------------------------------------------------------------

    def run(self) -> None:
        deal = self.deal
        cls = GinTable if self.rules.is_gin else RummyTable
        table: Table = cls(self.rules, self.names, deal, self.seats)
        if table.deal_cards(deal):
            return
        order = table.order
        self.next_of = {s: order[(i + 1) % len(order)] for i, s in enumerate(order)}
        for s in self.seats:
            self.tally(s).deals += 1
        self.points = table.points
        gin = isinstance(table, GinTable)
        turn: _Turn | None = None
        out_line: tuple[list[Move] | None, bool] | None = None
        knock_at: int | None = None
        defender_last: int | None = None
        for m, move in enumerate(deal.moves):
            found: list[Fact] = []
            ends_turn = False
            p = move.player
            if gin and table.phase == PLAY and table.drew and p == table.to_move \
                    and move.action in (DISCARD, KNOCK, GIN):
                found = self.judge_gin(table, move, m)
                ends_turn = True
            elif not gin and table.drew and p == table.to_move and move.action == DISCARD:
                found = self.judge_rummy_discard(table, move, m, out_line)
                ends_turn = True
            drawing = move.action == DRAW and p == table.to_move and not table.drew
            before = table.hands.get(p, 0)
            if drawing and gin and table.phase == AFTER_KNOCK:
                drawing = False
            problem = table.play(move)
            if problem:
                self.stopped.append({"deal": self.d, "move": m, "code": problem[0]})
                return
            if drawing and table.drew:
                turn = _Turn(p, m, move.source, table.taken if move.source == DISCARD_PILE
                             else None, before)
                self.turns.append(turn)
                if not gin:
                    out_line = (self.out_line(table, p), p not in table.played_before)
            if gin and table.phase == AFTER_KNOCK:
                if knock_at is None:
                    knock_at = m
                elif p == table.defender:
                    defender_last = m
            if not gin and move.action in (MELD, LAYOFF) and turn is not None:
                turn.laid |= (1 << move.card) if move.action == LAYOFF else _mask(move.cards)
                if table.ended:  # went out by a meld or a layoff
                    ends_turn = True
            if ends_turn:
                if not gin and table.ended and table.winner == p:
                    found = [f for f in found if f.kind not in (MISSED_OUT, MISSED_RUMMY)]
                self.decided(p, found)
                if turn is not None and turn.player == p:
                    turn.end = m
                    turn.after = table.hands[p]
                    turn.out = table.ended if not gin else table.knocker == p
                turn = None
                out_line = None
        if gin and knock_at is not None:
            assert isinstance(table, GinTable)
            self.judge_defence(table, knock_at, defender_last)
        self.record_points()
        self.fed_cards()

    def record_points(self) -> None:
        result = self.result
        if result is None or result.outcome is None:
            return
        for s in self.seats:
            nxt = self.next_of[s]
            tally = self.tally(s)
            tally.points += result.points.get(self.names[s], 0)
            tally.opponent_points += result.points.get(self.names[nxt], 0)

    # -- gin ------------------------------------------------------------------------------

    def judge_gin(self, table: GinTable, move: Move, m: int) -> list[Fact]:
        """The facts of a gin turn after the draw (the table before ``move``)."""
        p = move.player
        hand = table.hands[p]
        allowed = table.discardable(p)
        allowed_mask = _mask(allowed)
        dws = [(c, dw) for c, dw in discard_deadwoods(hand, self.ace, self.points)
               if allowed_mask >> c & 1]
        if not dws:
            return []
        best_card, best_dw = min(dws, key=lambda cd: (cd[1], cd[0]))
        by_card = dict(dws)
        limit = table.knock_limit
        is_gin = move.action == GIN or (move.action == KNOCK
                                        and move.card is not None
                                        and by_card.get(move.card) == 0
                                        and _counted(table, move) == 0)
        position = m - 1
        self.discards_seen(table, move, m, dws)
        facts: list[Fact] = []
        big_gin = (self.rules.big_gin_bonus is not None
                   and least_deadwood(hand, self.ace, self.points) == 0)
        if (best_dw == 0 or big_gin) and not is_gin:
            if best_dw == 0:
                alt = Move(p, GIN, card=best_card,
                           melds=_declared(table.best(hand & ~(1 << best_card))[1]))
            else:
                alt = Move(p, GIN, melds=_declared(table.best(hand)[1]))
            worth = self.ending_worth(table, alt)
            facts.append(self.fact(MISSED_GIN, m, p, alt, worth, position,
                                   deal_points=self.deal_points(p)))
        elif (move.action == DISCARD and 0 < best_dw <= limit and not table.at_floor
              and (knock := self.winning_knock(table, p, best_card))[1] > 0):
            alt, worth = knock
            facts.append(self.fact(MISSED_KNOCK, m, p, alt, worth, position,
                                   deadwood=best_dw, deal_points=self.deal_points(p)))
        elif move.card is not None and move.card in by_card and by_card[move.card] > best_dw:
            left = by_card[move.card]
            if move.action == DISCARD:
                alt = Move(p, DISCARD, card=best_card)
            else:
                alt = Move(p, GIN if best_dw == 0 else KNOCK, card=best_card,
                           melds=_declared(table.best(hand & ~(1 << best_card))[1]))
            facts.append(self.fact(DISCARD_ERROR, m, p, alt, left - best_dw, position,
                                   card=_name(move.card), left=left, best=best_dw))
        if move.action == KNOCK:
            undercut = self.knock_undercut(table, move, m, dws)
            if undercut is not None:
                facts.append(undercut)
        return facts

    def winning_knock(self, table: GinTable, p: int, card: int) -> tuple[Move, int]:
        """The knock discarding ``card`` and what it would score: a knock the defender's
        hand was certain to undercut (worth nothing or less) is no missed knock, since
        playing on was right, by the certainty ``knock_into_undercut`` uses.  Of the
        declarations leaving the least deadwood, the one that scores most (the
        defender's hand finding the fewest layoffs on it); among equals the engine's."""
        kept = table.hands[p] & ~(1 << card)
        engine = table.best(kept)[1]
        best = None
        for melds in (engine, *least_declarations(kept, self.ace, self.points)):
            alt = Move(p, KNOCK, card=card, melds=_declared(melds))
            worth = self.ending_worth(table, alt)
            if best is None or worth > best[1]:
                best = (alt, worth)
        assert best is not None
        return best

    def ending_worth(self, table: GinTable, ending: Move) -> int:
        """What a knock or gin played now would score for the knocker, net of what the
        defender scores, the defender laying off and arranging at best."""
        after = table.copy()
        if after.play(ending) is not None:  # cannot happen for a listed move
            raise AssertionError(f"{ending} is not legal here")
        return self.knock_net(after)[0]

    def knock_net(self, after: GinTable) -> tuple[int, str, int, list[Move]]:
        """The knocker's net points after the knock on ``after`` with the defender's best
        answer, the outcome, the defender's deadwood, and the layoffs of that answer."""
        knocker, defender = after.knocker, after.defender
        dw, line = best_defence(after)
        outcome, _, points = gin_points(self.rules, knocker, defender, after.knocker_deadwood,
                                        dw, after.is_gin, after.big_gin, after.doubled)
        return points[knocker] - points[defender], outcome, dw, line

    def knock_undercut(self, table: GinTable, move: Move, m: int,
                       dws: list[tuple[int, int]]) -> Fact | None:
        after = table.copy()
        if after.play(move) is not None or after.is_gin:
            return None
        net, outcome, dw, _ = self.knock_net(after)
        if outcome != UNDERCUT:
            return None
        alt = None
        if not table.at_floor:
            card = min(dws, key=lambda cd: (cd[1], cd[0]))[0]
            alt = Move(move.player, DISCARD, card=card)
        return self.fact(KNOCK_INTO_UNDERCUT, m, move.player, alt, -net, m - 1,
                         knocker_deadwood=after.knocker_deadwood, defender_deadwood=dw)

    def judge_defence(self, table: GinTable, knock_at: int, last: int | None) -> None:
        """The defender's answer to a knock that declared melds, judged where their moves
        end: a missed layoff when laying off more would have lowered their deadwood."""
        if table.is_gin or not table.declared:
            return
        defender = table.defender
        found: list[Fact] = []
        actual = table.hand_value(defender)
        best, line = best_defence(table)
        if best < actual:
            net_actual = _defender_net(self.rules, table, actual)
            net_best = _defender_net(self.rules, table, best)
            position = last if last is not None else knock_at
            found.append(self.fact(MISSED_LAYOFF, position, defender, line[0],
                                   net_best - net_actual, position, deadwood=actual,
                                   best=best, line=[move_json(x, self.names) for x in line]))
        self.decided(defender, found)

    # -- Rummy ----------------------------------------------------------------------------

    def judge_rummy_discard(self, table: RummyTable, move: Move, m: int,
                            out_line: tuple[list[Move] | None, bool] | None) -> list[Fact]:
        p = move.player
        hand = table.hands[p]
        allowed_mask = _mask(table.discardable(p))
        dws = [(c, dw) for c, dw in discard_deadwoods(hand, self.ace, self.points)
               if allowed_mask >> c & 1]
        if not dws or move.card not in dict(dws):
            return []
        self.discards_seen(table, move, m, dws)
        facts: list[Fact] = []
        by_card = dict(dws)
        best_card, best_dw = min(dws, key=lambda cd: (cd[1], cd[0]))
        if out_line is not None and out_line[0] is not None:
            line, rummy = out_line
            turn = self.turns[-1]
            kind = MISSED_RUMMY if rummy else MISSED_OUT
            facts.append(self.fact(kind, m, p, line[0], self.out_worth(table, p, rummy),
                                   turn.draw, line=[move_json(x, self.names) for x in line],
                                   deal_points=self.deal_points(p)))
            return facts
        left = by_card[move.card]
        if left > best_dw:
            facts.append(self.fact(DISCARD_ERROR, m, p, Move(p, DISCARD, card=best_card),
                                   left - best_dw, m - 1, card=_name(move.card), left=left,
                                   best=best_dw))
        layoff = self.missed_layoff(table, p, move.card)
        if layoff is not None:
            alt, gain = layoff
            facts.append(self.fact(MISSED_LAYOFF, m, p, alt, gain, m - 1))
        return facts

    def missed_layoff(self, table: RummyTable, p: int, discard: int) -> tuple[Move, int] | None:
        """A card kept after the discard that could have been laid off now, lowering the
        hand value the most (None when no layoff lowers it)."""
        kept = table.hands[p] & ~(1 << discard)
        base = least_deadwood(kept, self.ace, self.points)
        best: tuple[Move, int] | None = None
        if self.rules.layoff_requires_own_meld and p not in table.melded:
            return None
        for i, (mask, kind) in enumerate(table.melds):
            for card in cards_of(kept & layoff_cards(mask, kind, self.ace)):
                gain = base - least_deadwood(kept & ~(1 << card), self.ace, self.points)
                if gain > 0 and (best is None or gain > best[1]):
                    best = (Move(p, LAYOFF, card=card, meld=i), gain)
        return best

    def out_worth(self, table: RummyTable, p: int, rummy: bool) -> int:
        """What going out now would be worth to the player: their deal points (under
        penalty scoring, the penalties it gives the others, less the player's own)."""
        values = {s: (0 if s == p else mask_points(table.hands[s], self.points))
                  for s in self.seats}
        points = rummy_out_points(self.rules, self.seats, p, values, rummy)
        if self.rules.scoring == Scoring.PENALTY:
            return sum(v for s, v in points.items() if s != p) - points[p]
        return points[p]

    def out_line(self, table: RummyTable, p: int) -> list[Move] | None:
        """A way to go out this turn from the table after the draw, or None."""
        return going_out(table, p)

    # -- fed cards ------------------------------------------------------------------------

    def discards_seen(self, table: Table, move: Move, m: int,
                      dws: list[tuple[int, int]]) -> None:
        if move.card is not None and move.action in (DISCARD,):
            self.discards.append(_Discard(m, move.player, move.card, dws, m - 1))

    def fed_cards(self) -> None:
        """A discard the next player took and used."""
        by_draw = {turn.draw: turn for turn in self.turns}
        moves = self.deal.moves
        for disc in self.discards:
            k = disc.move + 1
            while k < len(moves) and moves[k].action == RESHUFFLE:
                k += 1
            turn = by_draw.get(k)
            if turn is None or turn.taken != disc.card or turn.end is None \
                    or turn.player != self.next_of[disc.player]:
                continue
            card = disc.card
            used = bool(turn.out or turn.laid >> card & 1)
            if not used and turn.after >> card & 1:
                with_card = least_deadwood(turn.after, self.ace, self.points)
                without = least_deadwood(turn.after & ~(1 << card), self.ace, self.points)
                used = without > with_card - self.points[card]
            if not used:
                continue
            before = least_deadwood(turn.before, self.ace, self.points)
            after = 0 if (turn.out and not self.rules.is_gin) else least_deadwood(
                turn.after, self.ace, self.points)
            alt = self.safe_discard(disc, turn.before)
            fact = self.fact(FED_CARD, disc.move, disc.player, alt, max(0, before - after),
                             disc.position, receiver=self.names[turn.player],
                             card=_name(card))
            self.facts.append(fact)
            self.tally(disc.player).kinds[FED_CARD] = \
                self.tally(disc.player).kinds.get(FED_CARD, 0) + 1
            self.tally(disc.player).fed_given += 1
            self.tally(turn.player).fed_received += 1

    def safe_discard(self, disc: _Discard, receiver_hand: int) -> Move | None:
        """The legal discard leaving the least deadwood among those no meld of the next
        player's hand could take in."""
        best: tuple[int, int] | None = None
        for card, dw in disc.deadwoods:
            if card == disc.card:
                continue
            if joins_meld(receiver_hand, card, self.ace):
                continue
            if best is None or (dw, card) < best:
                best = (dw, card)
        return None if best is None else Move(disc.player, DISCARD, card=best[1])


# --- searches ----------------------------------------------------------------------------

def least_declarations(hand: int, ace: str, points) -> list[tuple[int, ...]]:
    """Every set of disjoint melds of ``hand`` that leaves its least deadwood (a run
    or group may be declared several ways: 4H-7H and three sevens, or 4H-6H and four)."""
    candidates = candidate_melds(hand, ace)
    least = least_deadwood(hand, ace, points)
    out: list[tuple[int, ...]] = []

    def extend(start: int, covered: int, chosen: tuple[int, ...]) -> None:
        if mask_points(hand & ~covered, points) == least:
            out.append(chosen)
            return  # a meld more would take a card of no deadwood: not less
        for i in range(start, len(candidates)):
            meld = candidates[i]
            if not meld & covered:
                extend(i + 1, covered | meld, (*chosen, meld))

    extend(0, 0, ())
    return out


def best_defence(table: GinTable) -> tuple[int, list[Move]]:
    """The least deadwood the defender can reach from this table after a knock by laying
    off more cards (each layoff as the engine allows it), and the layoffs that reach it.
    The deadwood is counted as the engine counts it: on a show, the shown melds; else
    the best arrangement of the cards kept."""
    defender = table.defender
    ace = table.rules.ace
    points = table.points
    hand = table.hands[defender]
    laid0 = table.laid_off
    shown = table.shown
    shown_mask = 0
    for meld in shown or ():
        shown_mask |= meld

    def value(laid: int) -> int:
        rest = hand & ~laid
        if shown is not None:
            return deadwood(rest, shown, points)
        return least_deadwood(rest, ace, points)

    start = value(laid0)
    if table.is_gin or not table.declared:
        return start, []
    melds0 = tuple((mask, kind) for mask, kind in table.knock_melds)
    seen: dict[tuple[int, tuple], tuple[int, list[tuple[int, int]]]] = {}

    def search(laid: int, melds: tuple) -> tuple[int, list[tuple[int, int]]]:
        key = (laid, melds)
        if key in seen:
            return seen[key]
        best = (value(laid), [])
        free = hand & ~laid & ~shown_mask
        for i, (mask, kind) in enumerate(melds):
            for card in cards_of(free & layoff_cards(mask, kind, ace)):
                grown = melds[:i] + ((mask | 1 << card, kind),) + melds[i + 1:]
                dw, line = search(laid | 1 << card, grown)
                if dw < best[0]:
                    best = (dw, [(card, i), *line])
        seen[key] = best
        return best

    free0 = hand & ~laid0 & ~shown_mask
    if not any(free0 & layoff_cards(mask, kind, ace) for mask, kind in melds0):
        return start, []
    dw, line = search(laid0, melds0)
    return dw, [Move(defender, LAYOFF, card=c, meld=i) for c, i in line]


def _defender_net(rules, table: GinTable, defender_deadwood: int) -> int:
    knocker, defender = table.knocker, table.defender
    _, _, points = gin_points(rules, knocker, defender, table.knocker_deadwood,
                              defender_deadwood, table.is_gin, table.big_gin, table.doubled)
    return points[defender] - points[knocker]


def going_out(table: RummyTable, p: int) -> list[Move] | None:
    """A sequence of melds, layoffs and a last discard that empties the hand of ``p``
    this turn from the table after their draw, legal under the options; None when there
    is none.  Melds first, then layoffs (a layoff never makes a meld possible that was not,
    and a meld laid first can take layoffs), then the discard or nothing."""
    rules = table.rules
    ace = rules.ace
    hand = table.hands[p]
    limit = rules.melds_per_turn
    melds_left = 99 if limit is None else max(0, limit - table.melds_now)
    to_discard = rules.discard_to_go_out
    needs_own = rules.layoff_requires_own_meld
    own = p in table.melded
    taken = None if rules.discard_taken_card else table.taken
    table_melds = tuple((mask, kind) for mask, kind in table.melds)

    live = 0
    for meld in candidate_melds(hand, ace):
        live |= meld
    for mask, kind in table_melds:
        live |= hand & _reach(mask, kind)
    dead = hand & ~live
    if dead.bit_count() > 1 or (taken is not None and dead == 1 << taken):
        return None  # two cards that nothing takes, or one that may not be discarded

    failed: set[tuple] = set()

    def finish(rest: int) -> list[Move] | None:
        if rest == 0:
            return []
        if rest.bit_count() == 1:
            card = rest.bit_length() - 1
            if card != taken:
                return [Move(p, DISCARD, card=card)]
        return None

    def layoffs(rest: int, melds: tuple, own_now: bool) -> list[Move] | None:
        done = finish(rest)
        if done is not None and not (to_discard and not done):
            return done
        if needs_own and not own_now:
            return None
        key = (rest, melds)
        if key in failed:
            return None
        for i, (mask, kind) in enumerate(melds):
            for card in cards_of(rest & layoff_cards(mask, kind, ace)):
                if to_discard and rest == 1 << card:
                    continue
                grown = melds[:i] + ((mask | 1 << card, kind),) + melds[i + 1:]
                line = layoffs(rest & ~(1 << card), grown, own_now)
                if line is not None:
                    return [Move(p, LAYOFF, card=card, meld=i), *line]
        failed.add(key)
        return None

    def melding(rest: int, melds: tuple, left: int, own_now: bool, floor: int
                ) -> list[Move] | None:
        line = layoffs(rest, melds, own_now)
        if line is not None:
            return line
        if not left:
            return None
        for meld in candidate_melds(rest, ace):
            if meld <= floor or (to_discard and meld == rest):
                continue
            kind = meld_kind(meld, ace)
            line = melding(rest & ~meld, (*melds, (meld, kind)), left - 1, True, meld)
            if line is not None:
                return [Move(p, MELD, cards=tuple(cards_of(meld))), *line]
        return None

    if table_melds or melds_left:
        line = melding(hand, table_melds, melds_left, own, 0)
    else:
        line = finish(hand)
    if line is None or (to_discard and (not line or line[-1].action != DISCARD)):
        return None
    return line


def _reach(mask: int, kind: str) -> int:
    """The cards that could ever join a meld: its rank (group) or its suit (run)."""
    low = (mask & -mask).bit_length() - 1
    if kind == "group":
        return (1 | 1 << 13 | 1 << 26 | 1 << 39) << (low % 13)
    return 0x1FFF << (low - low % 13)


def _counted(table: GinTable, move: Move) -> int:
    hand = table.hands[move.player] & ~(1 << move.card)
    if move.melds is None:
        return least_deadwood(hand, table.rules.ace, table.points)
    return deadwood(hand, [_mask(meld) for meld in move.melds], table.points)


def _mask(cards: Iterable[int] | None) -> int:
    out = 0
    for c in cards or ():
        out |= 1 << c
    return out


def _name(card: int) -> str:
    from ..engine.cards import card_name
    return card_name(card)


__all__ = ["Analysis", "Fact", "Tally", "KINDS", "ERRORS", "SOFT", "analyse", "summarise",
           "best_defence", "going_out"]

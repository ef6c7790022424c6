"""Decision loss in expected deal points: how much each gin discard gave away, as its
player could see the game (docs/ANALYSIS.md, "Decision loss").

A **decision** here is a two-player gin turn once the player has drawn and holds eleven
cards: it ends with a discard, a knock or gin, each of which throws one card.  The legal
throws are the cards of the hand except a card just taken from the pile (unless the
rules let it go back).  Each throw keeps ten cards ``H``, valued from the **player's
view**:

    value(H) = -PER_DRAWN * m(H)

``m(H)`` being the mean, over every card the player has **not seen**, of the value of
``H`` after drawing that card and the best discard (``values.draw_figures``: the least
deadwood kept).  The cards seen are the player's eleven, the discard pile as it lies,
and the cards the opponent took from the pile and still holds; the rest (the stock and
the opponent's other cards) is what the next stock draw could bring, each as likely.

``PER_DRAWN`` is the deal points a point of ``m`` is worth: the least-squares slope of
a deal's net points (first player less second) on the difference of the two dealt
hands' ``m`` (over the 42 cards each does not hold), fitted on the evaluator's own data
(``tools/gin_value_table.py``'s games; ``benchmarks/decisions.py --fit`` recomputes
it).  The evaluator's hand term (``GinValues.dealt``, the deal's luck) is not used as
it stands: it is fitted to take the noise of the deal away, not to rank the hands a
player may keep, and its deadwood weight is positive (deadwood and ``m`` move together
in dealt hands, and for a given ``m`` more deadwood goes with more outs), so as a
decision value it would prefer keeping a king to keeping a two; ``m`` alone has no
such artefact.

A **knock** or **gin** ends the deal at once: no draw follows, so its throw is judged
by the deadwood it keeps instead, a point of it a deal point (what the knock scores,
when it is not undercut, moves one for one with the knocker's deadwood; the best throw
of a knock may be gin, whose bonus the ``missed_gin`` fact counts exactly).

The **loss** of a decision is ``value(best) - value(played)``: 0 for the throw the
evaluator prefers, never below 0, and in expected deal points (doubled in a deal that
Oklahoma's spade doubles).  A player's
**accuracy** over a set of decisions is the mean of ``100 * 2 ** (-loss / HALF_LOSS)``
over them: 100 for a decision the evaluator agrees with, 50 for one that gives away
``HALF_LOSS`` deal points (as lichess averages a per-move accuracy that falls
exponentially with the win-probability the move lost).

A **draw** (analysis version 9) is the choice, in a turn of play, between the top of
the discard pile and the stock (judged where both are open: not on the first upcard's
offer, nor at the stock floor, where the pile may only be taken to knock).  Each is
valued by the same measure one step nearer: the value of a ten-card hand is the
deadwood expected after the player's next draw and best discard, and a draw *is* that
next draw, so

    value(pile) = -PER_DRAWN * (least deadwood of the hand with the pile's card, less a
                                legal throw)
    value(stock) = -PER_DRAWN * m(hand)

``m`` over the cards the player has not seen, as above (the pile's card is seen).  The
loss is the better value less the one played, as for a throw.

A turn whose player may knock, away from the stock's floor, is also a **choice** to
knock or play on (analysis version 11): a second decision of the same move, with the
measure ``KNOCK_OR_PLAY_ON``, valued by play-outs over worlds of the cards the player
has not seen (``gin_knock``; the table holds no honest value for playing on, being
fitted on players who mostly knock at once).

The first upcard's **offer** under ``upcard_pass`` (taken or passed, by the first
player and then by the dealer) is a choice judged the same way (``gin_offer``), with
the measure ``UPCARD_OFFER``.

Not judged here: what the discard offers the opponent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..engine.cards import FULL_DECK, card_name, cards_of, unconnected
from ..engine.gin import PLAY, UPCARD, GinTable
from ..engine.model import DISCARD, DISCARD_PILE, DRAW, GIN, KNOCK, PASS, STOCK, Game
from .facts import ratio
from .gin_knock import KnockChoice, knock_choice
from .gin_offer import OfferChoice, offer_choice
from .values import (
    INF,
    SuitTables,
    deadwood_of,
    draw_figures,
    kept_deadwood,
    slices,
    suit_tables,
)

PER_DRAWN = 0.326  # deal points per point of mean value after one draw (fitted, above)
HALF_LOSS = 2.0  # deal points: a decision losing this many is 50% accurate
MARGIN = 0.25  # deal points: a loss up to this is "within the margin" of the best
BEST, WITHIN_MARGIN, WORSE = "best", "within_margin", "worse"
# What a decision is judged on: a throw by the mean value after the next draw, a knock's
# throw by its deadwood, a draw by the (expected) deadwood after it.
AFTER_DRAW, DEADWOOD, THIS_DRAW = "after_draw", "deadwood", "this_draw"
KNOCK_OR_PLAY_ON = "knock_or_play_on"  # a choice valued by play-outs (``gin_knock``)
UPCARD_OFFER = "upcard_offer"  # the first upcard taken or passed (``gin_offer``)
PILE, STOCK_SOURCE = "pile", "stock"  # a draw's sources
_THROWS = (DISCARD, KNOCK, GIN)


@dataclass(frozen=True, slots=True)
class Decision:
    """One judged decision: the card thrown and the evaluator's best (the card thrown
    when it is one of the best, else the lowest card among equals); what each keeps by
    the ``measure`` the decision is judged on (``after_draw``: the mean value after one
    draw over ``unseen`` cards; ``deadwood``: a knock's or gin's deadwood;
    ``this_draw``: a draw's deadwood after it, over ``unseen`` cards for the stock), and
    the loss in deal points.  A draw's ``card`` is the pile's card offered, its
    ``source`` the one played and ``best_source`` the evaluator's (``best`` is -1)."""

    deal: int
    move: int
    player: str
    action: str
    card: int
    best: int
    measure: str
    played_value: float
    best_value: float
    unseen: int
    throws: int  # the legal throws (a draw: its two sources)
    loss: float
    source: str | None = None  # a draw's
    best_source: str | None = None
    choice: str | None = None  # a knock-or-play-on choice's (``gin_knock``)
    best_choice: str | None = None
    error: float | None = None  # the standard error of the choices' difference

    def to_dict(self) -> dict[str, Any]:
        out = {"deal": self.deal, "move": self.move, "player": self.player,
               "action": self.action, "card": card_name(self.card),
               "best": card_name(self.best) if self.best >= 0 else None,
               "measure": self.measure,
               "played_value": round(self.played_value, 4),
               "best_value": round(self.best_value, 4), "unseen": self.unseen,
               "throws": self.throws, "loss": round(self.loss, 4)}
        if self.source is not None:
            out["source"], out["best_source"] = self.source, self.best_source
        if self.choice is not None:
            out["choice"], out["best_choice"] = self.choice, self.best_choice
            out["error"] = round(self.error or 0.0, 4)
        return out


def verdict(loss: float) -> str:
    """``best`` for a loss of 0, ``within_margin`` up to ``MARGIN``, else ``worse``."""
    if loss <= 1e-9:
        return BEST
    return WITHIN_MARGIN if loss <= MARGIN + 1e-9 else WORSE


def accuracy_of(loss: float) -> float:
    """A decision's accuracy in percent (see the module)."""
    return 100.0 * 2.0 ** (-loss / HALF_LOSS)


def _near(card: int) -> int:
    """The other cards of ``card``'s rank, and the cards of its suit up to two ranks
    away, counted round the corner (so whatever the ace mode)."""
    rank, suit = card % 13, card // 13
    out = 0
    for s in range(4):
        if s != suit:
            out |= 1 << (13 * s + rank)
    for step in (-2, -1, 1, 2):
        out |= 1 << (13 * suit + (rank + step) % 13)
    return out


NEAR = tuple(_near(card) for card in range(52))


def isolated(hand: int) -> int:
    """The cards of ``hand`` that no other card of it is near (``NEAR``): such a card
    cannot be in a meld of the hand with one card more, so after one draw it is kept
    as deadwood or discarded."""
    return unconnected(hand, hand, NEAR)


def throw_sums(hand: int, throws: int, unseen: int, tables: SuitTables,
               keep: int = 0) -> dict[int, int]:
    """For the cards ``c`` of the mask ``throws``: the sum over the cards of ``unseen``
    of the value of ``hand - c`` after drawing that card and the best discard.

    Of the isolated cards of ``hand`` (``isolated``) only the one of most points (the
    lowest card among equals) and those of ``keep`` are weighed: with ``R`` the rest of
    the hand, throwing ``x`` keeps ``R + y`` and throwing ``y`` keeps ``R + x``, and an
    isolated card is worth its points whatever is drawn (kept as deadwood or thrown),
    so the value after each draw does not fall as the isolated card kept has more
    points: throwing the isolated card of most points is at least as good."""
    lonely = isolated(hand) & throws
    if lonely:
        points = tables.points
        top = max(cards_of(lonely), key=lambda c: (points[c], -c))
        throws &= ~lonely | 1 << top | keep
    fast = gin_throw_sums(hand, throws, unseen, tables)
    if fast is not None:
        return fast
    out = {}
    rest = throws
    while rest:
        low = rest & -rest
        rest ^= low
        out[low.bit_length() - 1] = draw_figures(hand & ~low, unseen, -1, 0, tables)[1]
    return out


# Per suit tables (kept here, so that an id is not reused): slice, unseen ranks of its
# suit and best drop of the other suits -> ``_suit_sum``.
_SUMS: dict[int, tuple[SuitTables, dict[int, int]]] = {}
_SUMS_MAX = 1 << 15  # entries before a table is emptied: a few MB; most hits are within a hand
_OFFSET = 1 << 12  # above any card's points: a drop is never below -_OFFSET


def _suit_sum(part: int, ranks: int, other: int, dead: tuple[int, ...],
              drop: tuple[int, ...]) -> int:
    """``sum(dead[part | b] + min(drop[part | b], other))`` over the rank bits ``b`` of
    ``ranks``: what a suit's drawn cards add when no group changes."""
    got = 0
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        grown = part | low
        lost = drop[grown]
        got += dead[grown] + (lost if lost < other else other)
    return got


def gin_throw_sums(hand: int, throws: int, unseen: int, tables: SuitTables
                   ) -> dict[int, int] | None:
    """``draw_figures(hand - c, unseen, -1, 0, tables)[1]`` for each card ``c`` of
    ``throws``, by suits, for a ``hand`` of three cards or more (gin: nothing laid off);
    None for a smaller hand.

    For a kept hand ``K = hand - c``, a group choice ``g`` of it and a drawn card ``b``
    that makes no new group, the value after the best discard with ``g`` laid is
    ``sum(dead[R_q], q != s) + dead[R_s | b] + min(drop[R_s | b], min(drop[R_q], q !=
    s))``, ``R = K - g``, ``s`` being ``b``'s suit and ``R_q`` a suit's slice; the
    value is the least over the choices.  For a ``K`` that holds no rank three times
    (most throws) the only choice is none, and a drawn card of a rank ``K`` holds twice
    may also make a group of three, leaving ``K`` less that pair to discard from
    (``_without_pair``), the same for both such cards; the suits the throw leaves
    alone keep their slices, so a suit's sum is remembered (by its slice, unseen ranks
    and the best drop of the other suits) for the other throws and hands.  A ``K`` with
    groups to choose is left to ``draw_figures``, whose shortcuts serve it better."""
    if hand.bit_count() < 3:
        return None
    h = slices(hand)
    dead, drop = tables.dead, tables.drop
    kept = _SUMS.get(id(tables))
    if kept is None:
        kept = _SUMS[id(tables)] = (tables, {})
    memo = kept[1]
    if len(memo) >= _SUMS_MAX:
        memo.clear()
    u = slices(unseen)
    out = {}
    rest = throws
    while rest:
        low = rest & -rest
        rest ^= low
        card = low.bit_length() - 1
        t = card // 13
        k = list(h)
        k[t] ^= low >> 13 * t
        k0, k1, k2, k3 = k
        pairs = k0 & (k1 | k2 | k3) | k1 & (k2 | k3) | k2 & k3
        triples = (k0 & k1 & (k2 | k3)) | (k2 & k3 & (k0 | k1))
        if triples:
            out[card] = draw_figures(hand & ~low, unseen, -1, 0, tables)[1]
            continue
        deads = (dead[k0], dead[k1], dead[k2], dead[k3])
        drops = [drop[k0], drop[k1], drop[k2], drop[k3]]
        total = deads[0] + deads[1] + deads[2] + deads[3]
        least = min(drops)
        at = drops.index(least)
        drops[at] = INF
        second = min(drops)  # the best drop of another suit than ``at``
        got = 0
        grouped: dict[int, int] = {}
        for s in range(4):
            ranks = u[s]
            if not ranks:
                continue
            part = k[s]
            other = second if s == at else least
            base = total - deads[s]
            paired = ranks & pairs
            single = ranks ^ paired
            if single:
                key = part | single << 13 | (other + _OFFSET) << 26
                found = memo.get(key)
                if found is None:
                    found = memo[key] = _suit_sum(part, single, other, dead, drop)
                got += single.bit_count() * base + found
            while paired:
                bit = paired & -paired
                paired ^= bit
                grown = part | bit
                lost = drop[grown]
                value = base + dead[grown] + (lost if lost < other else other)
                with_group = grouped.get(bit)
                if with_group is None:
                    with_group = grouped[bit] = _without_pair(k, bit, dead, drop)
                got += value if value < with_group else with_group
        out[card] = got
    return out


def _without_pair(k: list[int], bit: int, dead: tuple[int, ...], drop: tuple[int, ...]
                  ) -> int:
    """The value of a hand of slices ``k`` with a drawn card making a group of three with
    the two cards of the rank ``bit`` it holds: the three laid, the best discard from
    the rest."""
    parts = [p & ~bit for p in k]
    if not any(parts):
        return INF  # the discard breaks the group: the value without it holds that case
    return (dead[parts[0]] + dead[parts[1]] + dead[parts[2]] + dead[parts[3]]
            + min(drop[parts[0]], drop[parts[1]], drop[parts[2]], drop[parts[3]]))


def judge(hand: int, throws: int, unseen: int, card: int, tables: SuitTables
          ) -> tuple[int, float, float, float]:
    """The evaluator's best throw (``card`` when it is one of the best, else the lowest
    card among equals), the mean values after one draw of the played and the best, and
    the loss of throwing ``card``."""
    count = unseen.bit_count()
    if not count:
        return card, 0.0, 0.0, 0.0  # no card left to draw: every throw is as good
    sums = throw_sums(hand, throws, unseen, tables, 1 << card)
    best = min(sums, key=lambda c: (sums[c], c))
    played, least = sums[card], sums[best]
    if played == least:
        best = card  # the played throw is one of the best
    return best, played / count, least / count, PER_DRAWN * (played - least) / count


def judge_knock(hand: int, throws: int, card: int, tables: SuitTables
                ) -> tuple[int, int, int, int]:
    """A knock's or gin's throw: the best throw by the deadwood it keeps (``card`` when
    it is one of the best, else the lowest card among equals), the deadwood kept by the
    played and by the best, and their difference."""
    kept = kept_deadwood(hand, throws, tables)
    best = min(kept, key=lambda c: (kept[c], c))
    if kept[card] == kept[best]:
        best = card
    return best, kept[card], kept[best], kept[card] - kept[best]


def judge_draw(hand: int, offered: int, throws: int, unseen: int, source: str,
               tables: SuitTables) -> tuple[str, float, float, float]:
    """A draw (see the module): the evaluator's best source (the one played when they
    are as good), the played and best figures (deadwood after the draw; expected, for
    the stock) and the loss of the source played.  ``throws``: the cards that may be
    thrown once ``offered`` is taken."""
    held = hand | 1 << offered
    pile = min(deadwood_of(held & ~(1 << c), tables) for c in cards_of(throws))
    stock = draw_figures(hand, unseen, -1, 0, tables)[1] / unseen.bit_count()
    values = {PILE: float(pile), STOCK_SOURCE: stock}
    played = values[source]
    best = min(values, key=lambda k: (values[k], k != source))
    return best, played, values[best], PER_DRAWN * (played - values[best])


@dataclass(frozen=True, slots=True)
class Position:
    """A decision's position as its player sees it: the cards held (eleven for a throw,
    ten for a draw), the legal throws (a mask; a draw: those once the pile's card is
    taken), the cards the player has not seen, the throw played (a draw: the pile's
    card, and the source played), and whether the deal is doubled."""

    deal: int
    move: int
    seat: int
    action: str
    card: int
    hand: int
    throws: int
    unseen: int
    doubled: bool
    source: str | None = None
    # A throw's: whether a knock-or-play-on choice is open (away from the stock's
    # floor), the knock limit, the stock's cards, the cards the other is known to hold.
    open_knock: bool = False
    limit: int = 0
    stock_count: int = 0
    shown: int = 0
    offer: int = -1  # the first upcard's offer: 0 to the first player, 1 to the dealer


def positions(game: Game) -> Iterator[tuple[Position, SuitTables]]:
    """The position of every decision of a two-player gin game (none for other
    variants), each deal up to its first illegal move, with the suit tables of its
    rules."""
    rules = game.rules
    if not rules.is_gin:
        return
    for d, deal in enumerate(game.deals):
        if deal.result is not None:
            continue
        seats = tuple(sorted(deal.players)) if deal.players else tuple(
            range(len(game.players)))
        if len(seats) != 2:
            continue
        table = GinTable(rules, game.players, deal, seats)
        if table.deal_cards(deal):
            continue
        tables = suit_tables(str(rules.ace), table.points)
        took = dict.fromkeys(seats, 0)  # cards each took from the pile, in sight
        for m, move in enumerate(deal.moves):
            p = move.player
            if table.phase == UPCARD and table.refusals < 2 and p == table.to_move \
                    and table.pile and (move.action == PASS or (
                        move.action == DRAW and move.source == DISCARD_PILE)):
                hand = table.hands[p]
                at = Position(d, m, p, move.action.value, table.pile[-1], hand, 0,
                              _unseen(hand, table.pile, 0), table.doubled, None, False,
                              table.knock_limit, table.stock_count, 0, table.refusals)
                if table.play(move):
                    break
                if move.action == DRAW and table.taken is not None:
                    took[p] |= 1 << table.taken
                yield at, tables
                continue
            if table.phase == PLAY and not table.drew and p == table.to_move \
                    and move.action == DRAW and not table.at_floor and table.pile \
                    and table.stock_count:
                hand = table.hands[p]
                offered = table.pile[-1]
                throws = hand | (1 << offered if rules.discard_taken_card else 0)
                other = seats[1] if p == seats[0] else seats[0]
                unseen = _unseen(hand, table.pile, took[other] & table.hands[other])
                source = STOCK_SOURCE if move.source == STOCK else PILE
                at = Position(d, m, p, DRAW.value, offered, hand, throws, unseen,
                              table.doubled, source)
                if table.play(move):
                    break
                if source == PILE and table.taken is not None:
                    took[p] |= 1 << table.taken
                yield at, tables
                continue
            if table.phase == PLAY and table.drew and p == table.to_move \
                    and move.action in _THROWS and move.card is not None:
                hand = table.hands[p]
                throws = hand
                if table.taken is not None and not rules.discard_taken_card:
                    throws &= ~(1 << table.taken)
                if throws >> move.card & 1:
                    other = seats[1] if p == seats[0] else seats[0]
                    shown = took[other] & table.hands[other]
                    unseen = _unseen(hand, table.pile, shown)
                    at = Position(d, m, p, move.action.value, move.card, hand, throws,
                                  unseen, table.doubled, None, not table.at_floor,
                                  table.knock_limit, table.stock_count, shown)
                    if table.play(move):
                        break  # an illegal move is not judged, nor what follows it
                    yield at, tables
                    continue
            taking = move.action == DRAW and move.source == DISCARD_PILE
            if table.play(move):
                break
            if taking and table.taken is not None:
                took[p] |= 1 << table.taken


def _unseen(hand: int, pile: list[int], shown: int) -> int:
    """The cards a player holding ``hand`` has not seen: not the pile's, nor those the
    other took from it and still holds (``shown``)."""
    seen = hand | shown
    for c in pile:
        seen |= 1 << c
    return FULL_DECK & ~seen


def decide(at: Position, tables: SuitTables) -> tuple[int, str, float, float, float]:
    """The best throw, the measure, the played and best figures, and the loss (deal
    points) of one position (a draw: ``judge_draw``, its best throw -1)."""
    if at.action == DRAW.value:
        raise ValueError("a draw is judged by judge_draw")
    if at.action == DISCARD.value:
        best, played, least, loss = judge(at.hand, at.throws, at.unseen, at.card, tables)
        measure = AFTER_DRAW
    else:
        best, played, least, loss = judge_knock(at.hand, at.throws, at.card, tables)
        measure = DEADWOOD
    return best, measure, played, least, (2 if at.doubled else 1) * loss


def game_decisions(game: Game) -> list[Decision]:
    """Every judged decision of a two-player gin game (none for other variants), each
    deal up to its first illegal move."""
    out = []
    rules = game.rules
    for at, tables in positions(game):
        player = game.players[at.seat]
        if at.offer >= 0:
            offer = offer_choice(at.hand, at.card, at.action == DRAW.value, at.offer == 1,
                                 at.unseen, at.stock_count, at.limit, rules, tables)
            out.append(_choice_decision(at, player, UPCARD_OFFER, offer))
            continue
        if at.source is not None:
            best_source, played, least, loss = judge_draw(
                at.hand, at.card, at.throws, at.unseen, at.source, tables)
            out.append(Decision(at.deal, at.move, player, at.action, at.card, -1,
                                THIS_DRAW, played, least, at.unseen.bit_count(), 2,
                                (2 if at.doubled else 1) * loss, at.source, best_source))
            continue
        best, measure, played, least, loss = decide(at, tables)
        out.append(Decision(at.deal, at.move, player, at.action, at.card,
                            best, measure, played, least,
                            at.unseen.bit_count() if measure == AFTER_DRAW else 0,
                            at.throws.bit_count(), loss))
        if at.open_knock and at.action != GIN.value:
            choice = knock_choice(at.hand, at.throws, at.action == KNOCK.value, at.unseen,
                                  at.shown, at.stock_count, at.limit, rules, tables)
            if choice is not None:
                out.append(_choice_decision(at, player, KNOCK_OR_PLAY_ON, choice))
    return out


def _choice_decision(at: Position, player: str, measure: str,
                     judged: KnockChoice | OfferChoice) -> Decision:
    """The decision of a choice valued by play-outs (a knock's or an upcard offer's):
    two options, no best throw, the loss doubled as the deal is."""
    return Decision(at.deal, at.move, player, at.action, at.card, -1, measure,
                    judged.value(judged.played), judged.value(judged.best),
                    at.unseen.bit_count(), 2, (2 if at.doubled else 1) * judged.loss,
                    choice=judged.played, best_choice=judged.best, error=judged.error)


def figures(decisions: list[Decision], players: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Per player: decisions judged, their total and average loss (deal points), the
    accuracy (mean of each decision's), and how many the evaluator judged best."""
    out: dict[str, dict[str, Any]] = {}
    for player in players:
        mine = [x for x in decisions if x.player == player]
        n = len(mine)
        total = sum(x.loss for x in mine)
        out[player] = {
            "decisions": n,
            "loss": round(total, 4),
            "average_loss": round(total / n, 4) if n else None,
            "accuracy": round(sum(accuracy_of(x.loss) for x in mine) / n, 2) if n else None,
            "best": sum(1 for x in mine if verdict(x.loss) == BEST),
        }
    return out


E6 = 1_000_000  # a stored loss is in units of 0.000001 deal point, an accuracy of 0.000001%


def stored_sums(decisions: list[Decision]) -> dict[str, tuple[int, int, int]]:
    """Per player with a judged decision: how many, the sum of their losses (units of
    0.000001 deal point) and of their accuracies (units of 0.000001 percent), each
    decision's rounded to those units first, so that sums over any set of games are
    exact (``stored_figures``)."""
    out: dict[str, tuple[int, int, int]] = {}
    for x in decisions:
        n, loss, accuracy = out.get(x.player, (0, 0, 0))
        out[x.player] = (n + 1, loss + round(x.loss * E6), accuracy
                         + round(accuracy_of(x.loss) * E6))
    return out


def stored_figures(judged: int, loss_e6: int, accuracy_e6: int) -> dict[str, Any]:
    """The decisions judged, the average loss per decision (deal points, 4 decimals) and
    the accuracy (percent, 2 decimals) of stored sums (``stored_sums``); the two
    figures None over no decision."""
    return {"decisions": judged, "average_loss": ratio(loss_e6, judged * E6, 4),
            "accuracy": ratio(accuracy_e6, judged * E6, 2)}


def decisions_json(game: Game, decisions: list[Decision] | None = None) -> dict[str, Any]:
    """The ``decisions`` key of a game's analysis: per player figures (none when no
    decision was judged: not a two-player gin game), every decision with its loss and
    best throw, and the constants they use."""
    found = game_decisions(game) if decisions is None else decisions
    return {"players": figures(found, game.players) if found else {},
            "decisions": [x.to_dict() for x in found],
            "per_drawn": PER_DRAWN, "half_loss": HALF_LOSS, "margin": MARGIN}


# The facts the evaluator also judges: a discard error by the throw's decision, a
# missed knock and a knock into an undercut by the knock-or-play-on choice of that turn.
_JUDGED_BY_CHOICE = {"discard_error": False, "missed_knock": True,
                     "knock_into_undercut": True}


def judges(decisions: list[Decision]) -> dict[tuple[int, int, bool], Decision]:
    """The decisions by deal, move and whether they are a knock-or-play-on choice (a
    turn's throw and its choice share the move), for ``judge_of``."""
    return {(x.deal, x.move, x.choice is not None): x for x in decisions}


def judge_of(found: dict[tuple[int, int, bool], Decision], kind: str, deal: int,
             move: int) -> Decision | None:
    """The decision judging a fact of ``kind`` at ``deal`` and ``move``, if any."""
    choice = _JUDGED_BY_CHOICE.get(kind)
    return None if choice is None else found.get((deal, move, choice))


def mark_facts(facts: list[dict[str, Any]], decisions: list[Decision]) -> None:
    """Give each ``discard_error``, ``missed_knock`` and ``knock_into_undercut`` fact (a
    dict) the evaluator's verdict on the same decision (the throw for the first, the
    knock-or-play-on choice for the others): ``evaluator`` (``best``,
    ``within_margin`` or ``worse``) and ``evaluator_loss`` (deal points).  The fact
    itself and its cost stay as they are."""
    found = judges(decisions)
    for fact in facts:
        judged = judge_of(found, fact.get("kind", ""), fact["deal"], fact["move"])
        if judged is None:
            continue
        fact["evaluator"] = verdict(judged.loss)
        fact["evaluator_loss"] = round(judged.loss, 4)

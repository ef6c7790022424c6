"""Gin luck in deal points: a control variate of the chance events (AIVAT's correction).

Each chance event of a gin deal gets a luck, for each of the two players, of

    luck = v(the event as it fell) - the mean of v over every way it could have fallen,

``v`` being the evaluator's value of that player's position just after the event
(``gin_value``: a blend of the position's features, weighed for the least variance),
and "every way" the cards the auditor knows could have come: the cards really in the
stock (a deck's order is not used for them; a log with hands and named draws gives the
same set, every card no one has seen yet).  Every card is equally likely to
be the next, so the mean of the luck over them is exactly zero, whatever ``v`` is; the
adjusted points (deal points - luck) therefore have the deal points' expectation.

The chance events:

* **the deal**: the two hands.  The mean over every deal cannot be enumerated, so the
  deal's luck is chosen to have an exact zero mean another way: ``(t(A) - t(B)) / 2``
  for the first player and its negative for the other, ``t`` being the evaluator's term
  of a dealt hand (``GinValues.dealt`` of ``hand_features``), a function of the hand
  and of the cards neither hand holds (``rest``).  The two hands are random sets of the
  same size and swapping them leaves ``rest`` as it was, so a deal and its swap are
  equally likely: their lucks cancel.  A log that records its deck adds the deck's
  duplicate, weighed (``gin_duplicate``: a plain play-out of the deck less one of its
  mirror, which cancels with the mirror's own); a log without its deck adds the hands'
  swap instead, weighed (``gin_duplicate.swap``: the hands played out against each
  other over fixed orders of the stock's cards, less the same with the hands changed
  over, which cancels with the swapped deal's own).
* **the upcard**: one of the cards neither hand holds (enumerated); ``v`` as if the
  first player drew it (its best value after keeping it or not), against the dealer's
  deadwood, with the knock limit and doubling the card sets under Oklahoma.
* **each stock draw**: one of the stock's cards (enumerated); ``v`` of the drawer after
  it against the other's deadwood.

A deal's start luck is the deal's and the upcard's.  Draws from the pile are no luck.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..engine.cards import ACE, FULL_DECK, SPADES, cards_of, rank_of, suit_of
from ..engine.gin import GinTable
from ..engine.melds import discard_deadwoods
from ..engine.model import DRAW, STOCK, Game
from .gin_duplicate import duplicate, swap
from .gin_value import OTHER_AFTER_CAP, GinValues
from .values import SuitTables, deadwood_of, suit_tables, values_after


@dataclass(frozen=True, slots=True)
class Chance:
    """One chance event's figures: the player to act after it and the other, the
    drawn card (the upcard), the cards it could have been, the mover's deadwood before
    and after it (best discard), and each player's luck in deal points."""

    move: int  # -1: the upcard
    mover: int
    other: int
    card: int
    cards: int
    before: int
    after: int
    expected_after: float  # the mean value after over the cards it could have been
    value: float  # the evaluator's value of the mover's position after it
    mean: float  # its mean over the cards
    mover_luck: float
    other_luck: float
    deltas: tuple[float, ...]  # per feature (``gin_value.FEATURES``): as it fell less the mean


@dataclass(frozen=True, slots=True)
class GinDealLuck:
    first: int  # the player after the dealer
    second: int
    dealt: dict[int, int]  # the dealt deadwood per seat
    drawn: dict[int, float]  # per seat: the dealt hand's mean value after one draw
    hands: dict[int, tuple[float, ...]]  # per seat: the dealt hand's features
    deal_luck: float  # the first player's luck of the deal (the second's: its negative)
    deck: float | None  # a recorded deck's duplicate (``gin_duplicate``), else None
    swap: float | None  # without a deck: the hands' swap (``gin_duplicate``)
    chances: list[Chance]
    stopped: int | None  # the move of the first illegal move; -1: the deal refused


_SAME = [[limit] * 52 for limit in range(53)]  # a knock limit for every card
_SINGLE, _DOUBLED = [False] * 52, [True] * 52
Record = Callable[[int, int, int, int, int, int, int, bool], None]


def limit_of(table: GinTable, upcard: int) -> int:
    """The knock limit once ``upcard`` is the first upcard (``GinTable.knock_limit``)."""
    if not table.rules.oklahoma:
        return table.rules.knock_limit
    rank = rank_of(upcard)
    return 0 if rank == ACE else min(10, rank + 1)


def gin_deal_luck(game: Game, d: int, values: GinValues | None,
                  record: Record | None = None) -> GinDealLuck:
    """The chance events of gin deal ``d``.  With ``values`` None, no luck is computed:
    ``record(move, mover, other, after, opponent, left, limit, doubled)`` is called at
    each event instead (for fitting the evaluator)."""
    deal = game.deals[d]
    rules = game.rules
    seats = tuple(sorted(deal.players)) if deal.players else tuple(range(len(game.players)))
    table = GinTable(rules, game.players, deal, seats)
    if table.deal_cards(deal):
        return GinDealLuck(-1, -1, {}, {}, {}, 0.0, None, None, [], -1)
    tables = suit_tables(str(rules.ace), table.points)
    first, second = table.order
    dealt = {s: deadwood_of(table.hands[s], tables) for s in (first, second)}
    rest = FULL_DECK & ~table.hands[first] & ~table.hands[second]
    hands = {s: hand_features(table.hands[s], tables, rest) for s in (first, second)}
    drawn = {s: hands[s][1] for s in (first, second)}
    deal_luck = 0.0 if values is None else dealt_luck(values, hands[first], hands[second])
    deck = swapped = None
    if deal.deck is not None and values is not None:
        deck = duplicate(deal.deck, rules, tables)
        deal_luck += values.deck_weight * deck
    elif values is not None:
        swapped = swap(table.hands[first], table.hands[second], table.upcard,
                       table.stock_set, rules, tables)
        deal_luck += values.swap_weight * swapped
    floor = rules.stock_floor
    chances: list[Chance] = []
    upcard = table.upcard
    candidates = table.stock_set | 1 << upcard
    event = _event(values, record, tables, table, -1, first, second, table.hands[first],
                   upcard, candidates, dealt[second], table.stock_count - floor,
                   table.hands[second])
    if event is not None:
        chances.append(event)
    opponent_dw: dict[int, int] = {}  # hand -> deadwood
    for m, move in enumerate(deal.moves):
        if move.action == DRAW and move.source == STOCK and move.player == table.to_move \
                and not table.drew and not table.at_floor:
            seat = move.player
            other = second if seat == first else first
            hand = table.hands[seat]
            stock = table.stock_set
            left = table.stock_count - 1 - floor
            opponent = table.hands[other]
            dw = opponent_dw.get(opponent)
            if dw is None:
                dw = opponent_dw[opponent] = deadwood_of(opponent, tables)
            if table.play(move):
                return GinDealLuck(first, second, dealt, drawn, hands, deal_luck, deck,
                                   swapped, chances, m)
            card = (table.hands[seat] & ~hand).bit_length() - 1
            event = _event(values, record, tables, table, m, seat, other, hand, card,
                           stock | 1 << card, dw, left, opponent)
            if event is not None:
                chances.append(event)
            continue
        if table.play(move):
            return GinDealLuck(first, second, dealt, drawn, hands, deal_luck, deck,
                               swapped, chances, m)
    return GinDealLuck(first, second, dealt, drawn, hands, deal_luck, deck, swapped,
                       chances, None)


def dealt_luck(values: GinValues, first: tuple[float, ...], second: tuple[float, ...]
               ) -> float:
    """The first player's luck of the deal, from each hand's features
    (``hand_features``): half the difference of the two hands' terms (the second's: its
    negative)."""
    return (values.dealt(first) - values.dealt(second)) / 2


def hand_features(hand: int, tables: SuitTables, rest: int | None = None
                  ) -> tuple[float, ...]:
    """A dealt hand's features (``gin_value.HAND_FEATURES``): its deadwood, what one
    draw makes of it over every card it does not hold, and the same over ``rest``, the
    cards neither dealt hand holds (without ``rest``, only the first six).  A function of
    the hand and ``rest``, which swapping the two hands leaves as it is, so that the
    deal's luck has an exact zero mean."""
    dw = deadwood_of(hand, tables)
    own = (float(dw), *_draw_shares(values_after(hand, FULL_DECK & ~hand, 0, tables), dw))
    if rest is None:
        return own
    return own + _draw_shares(values_after(hand, rest, 0, tables), dw)


def _draw_shares(afters: list[int], dw: int) -> tuple[float, ...]:
    """Over the values after of a hand of deadwood ``dw``: their mean, the shares within
    10, at 0 and below ``dw``, and the mean square per 100."""
    knock = gin = better = total = square = 0
    for after in afters:
        total += after
        square += after * after
        if after <= 10:
            knock += 1
            if after == 0:
                gin += 1
        if after < dw:
            better += 1
    n = len(afters)
    return (total / n, knock / n, gin / n, better / n, square / n / 100)


def _feeds(held: int, opponent_hand: int, limit: int, table: GinTable) -> dict[int, bool]:
    """For each card of ``held``: whether the other player, at the stock's floor, could
    take it from the pile and knock at once (discarding another card, unless the rules
    let the taken card go back)."""
    rules = table.rules
    back = rules.discard_taken_card
    out = {}
    for c in cards_of(held):
        out[c] = any(dw <= limit for y, dw in discard_deadwoods(
            opponent_hand | 1 << c, rules.ace, table.points) if back or y != c)
    return out


def _event(values: GinValues | None, record: Record | None, tables: SuitTables,
           table: GinTable, move: int, mover: int, other: int, hand: int, card: int,
           cards: int, opponent: int, left: int, opponent_hand: int) -> Chance | None:
    """The figures of one chance event: ``card`` fell of the mask ``cards``."""
    oklahoma = table.rules.oklahoma
    if move < 0 and oklahoma:  # the upcard sets the limit and the doubling
        limits = [limit_of(table, c) for c in range(52)]
        doubled = [suit_of(c) == SPADES for c in range(52)]
    else:
        limits = _SAME[table.knock_limit]
        doubled = _DOUBLED if table.doubled else _SINGLE
    if values is None:
        assert record is not None
        after = values_after(hand, 1 << card, 0, tables)[0]
        record(move, mover, other, after, opponent, left, limits[card], doubled[card])
        return None
    afters = values_after(hand, cards, 0, tables)
    theirs = values_after(opponent_hand, cards, 0, tables)  # the other's, with each card
    before = deadwood_of(hand, tables)
    count = len(afters)
    s0 = s1 = s2 = s3 = s4 = s5 = 0.0  # the sums of the features over the cards
    chances = 0.0  # the cards that would bring the other player within the limit
    fell: tuple[float, ...] = ()
    rest = cards
    position = values.position
    seen: dict[tuple[int, int], tuple[float, float]] = {}
    gin_bonus = table.rules.gin_bonus
    feeds: dict[int, bool] | None = None  # at the floor: whether a discard lets the other knock
    if left <= 0:
        feeds = _feeds(hand | cards, opponent_hand, limits[card], table)
        hand_safe = any(not feeds[c] for c in cards_of(hand))
    for after, other_after in zip(afters, theirs, strict=True):
        c = (rest & -rest).bit_length() - 1
        rest &= rest - 1
        limit = limits[c]
        if after == 0:  # gin: the bonus and the other's deadwood, no layoff
            v, w = float(gin_bonus + opponent), 0.0
        elif feeds is not None and (after > limit or opponent <= after) \
                and (hand_safe or not feeds[c]):
            # The last draw: no knock worth making, and a discard the other cannot
            # knock with (at the floor they may take it only to knock): a void deal.
            v, w = 0.0, 0.0
        else:
            key = (after, limit)
            got = seen.get(key)
            if got is None:
                got = seen[key] = position(after, opponent, left, limit)
            v, w = got
        knocks = 1.0 if other_after <= limit else 0.0
        chances += knocks
        capped = float(other_after if other_after < OTHER_AFTER_CAP else OTHER_AFTER_CAP)
        if doubled[c]:
            v, w, knocks, capped = 2 * v, 2 * w, 2 * knocks, 2 * capped
        s0 += v
        s1 += w
        s2 += knocks
        s4 += capped
        # A card thrown at once (the value after is the deadwood before: no cost) is
        # offered to the other by the pile; a card kept is not.
        thrown = after == before
        if thrown:
            s3 += knocks
            s5 += capped
        if c == card:
            fell = (v, w, knocks, knocks, capped, capped) if thrown else \
                (v, w, knocks, 0.0, capped, 0.0)
    # Each feature again, times the other's chance at this event (``gin_value.FEATURES``):
    # a figure of the event, the same whichever card came.
    chance = chances / count
    sums = (s0, s1, s2, s3, s4, s5)
    sums += tuple(chance * x for x in sums)
    fell += tuple(chance * x for x in fell)
    mine = afters[(cards & ((1 << card) - 1)).bit_count()]
    deltas = tuple(x - total / count for x, total in zip(fell, sums, strict=True))
    mw, ow = values.mover_weights, values.other_weights
    value = sum(a * x for a, x in zip(mw, fell, strict=True))
    mean = sum(a * x for a, x in zip(mw, sums, strict=True)) / count
    other_value = sum(a * x for a, x in zip(ow, fell, strict=True))
    other_mean = sum(a * x for a, x in zip(ow, sums, strict=True)) / count
    return Chance(move, mover, other, card, count, before, mine, sum(afters) / count, value,
                  mean, value - mean, other_value - other_mean, deltas)

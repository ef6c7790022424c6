"""Knock or play on: the choice of a gin player who may knock, valued from their view.

A player who has drawn may **knock** when a legal throw leaves deadwood within the knock
limit (above 0: a throw leaving none is gin, the ``missed_gin`` fact's).  Away from the
stock's floor they may instead discard and **play on**, hoping for gin or a lower knock
and risking the other's knock or gin first.  Both choices are valued in expected deal
points as the player sees the game, by playing out ``WORLDS`` **worlds**: the other
player holds the cards they are known to hold (taken from the pile and still held) and
as many more of the cards the player has not seen as their hand lacks; the rest of the
unseen cards are the stock, in a random order.  The worlds come from a generator seeded
by the position alone, so a position is always valued alike; both choices are valued on
the same worlds, so their difference is not blurred by two samples.

* **knock**: the throw that keeps the least deadwood (the lowest card among equals), the
  melds as the engine arranges the cards kept, the other laying off on them at best
  (``after_layoffs``): the knock's, or the undercut's, net points.
* **play on**: the same throw to the pile, then both play on the duplicate's way
  (``gin_duplicate.play_from``: take the discard when it lowers the deadwood, else
  draw; throw what keeps the least; knock or go gin as soon as they may; the stock's
  floor ends the deal void), every knock scored as above, with the defender's layoffs.

The value of each choice is a mean of play-outs, not an exact expectation, so the
difference of the two has a standard error (of the per-world differences).  The other
choice is **clearly better** when its value passes the played one's by more than
``CLEAR`` standard errors: the loss is then the difference, else 0 (the worlds cannot
tell the two apart, and a loss counted on every close call would be the sampling's
noise, always above 0).  A choice is played out on ``FIRST_LOOK`` worlds first: when
the played choice is ahead there by more than ``CLEAR`` standard errors it is settled
(no loss: more worlds would not turn it round but once in a great many); else on
``WORLDS`` in all, so that every loss counted is measured on all of them.  The play-on line is a plain player's, and the other's cards
are drawn as if at random (their play so far says something about them that is not
used): the loss says which choice a plain continuation favours on the cards the player
could not see, and by about how much.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

from ..engine.melds import best_arrangement, layoff_cards, meld_kind
from ..engine.rules import Rules
from .gin_duplicate import knock_points, play_from
from .values import SuitTables, deadwood_of, kept_deadwood

WORLDS = 64  # play-outs a choice is valued over
FIRST_LOOK = 16  # worlds after which a choice the played one clearly leads is settled
CLEAR = 2.0  # standard errors by which the other choice must be better to count a loss
KNOCK, PLAY_ON = "knock", "play_on"


@dataclass(frozen=True, slots=True)
class KnockChoice:
    """A judged choice: the one played and the better one (``knock`` or ``play_on``:
    the played one unless the other is clearly better), each one's value in deal
    points (single, not doubled), the throw both are valued with, the worlds, the
    standard error of the values' difference, and the loss of the choice played."""

    played: str
    best: str
    knock: float
    play_on: float
    throw: int
    worlds: int
    error: float
    loss: float

    def value(self, choice: str) -> float:
        return self.knock if choice == KNOCK else self.play_on


def after_layoffs(hand: int, melds: tuple[int, ...], tables: SuitTables) -> int:
    """The least deadwood of ``hand`` (a mask) after laying off, at best, cards of it on
    ``melds`` (masks, each growing as cards are laid off on it)."""
    return _after(hand, _on_table(melds, tables.ace), tables)


Table = tuple[tuple[tuple[int, str], ...], int]  # the melds with their kinds, what fits


def _on_table(melds: tuple[int, ...], ace: str) -> Table:
    """The melds with their kinds, and every card that could be laid off on one."""
    on = tuple((m, meld_kind(m, ace)) for m in melds)
    fits = 0
    for mask, kind in on:
        fits |= layoff_cards(mask, kind, ace)
    return on, fits


def _after(hand: int, table: Table, tables: SuitTables, deadwood: int = -1) -> int:
    """``after_layoffs`` on the melds of ``table`` (``_on_table``); ``deadwood`` the
    hand's own least deadwood when known."""
    start, fits = table
    able = hand & fits
    if deadwood < 0:
        deadwood = deadwood_of(hand, tables)
    if not able:
        return deadwood
    ace = tables.ace
    if not able & able - 1:  # one card fits: laid off or kept, unless laying it opens more
        rest = hand ^ able
        if not any(rest & layoff_cards(mask | able, kind, ace) for mask, kind in start
                   if able & layoff_cards(mask, kind, ace)):
            return min(deadwood, deadwood_of(rest, tables))
    return _layoff_search(hand, start, tables)


def _layoff_search(hand: int, start: tuple[tuple[int, str], ...], tables: SuitTables
                   ) -> int:
    """``after_layoffs`` by trying every card that fits, one at a time, as the melds
    grow (each set of cards laid and melds reached is weighed once)."""
    ace = tables.ace
    seen: dict[tuple[int, tuple], int] = {}

    def search(laid: int, on: tuple) -> int:
        key = (laid, on)
        found = seen.get(key)
        if found is not None:
            return found
        best = deadwood_of(hand & ~laid, tables)
        free = hand & ~laid
        for i, (mask, kind) in enumerate(on):
            fits = free & layoff_cards(mask, kind, ace)
            while fits:
                bit = fits & -fits
                fits ^= bit
                grown = on[:i] + ((mask | bit, kind),) + on[i + 1:]
                best = min(best, search(laid | bit, grown))
        seen[key] = best
        return best

    return search(0, start)


def knock_score(rules: Rules, tables: SuitTables, knocker: int, knocker_deadwood: int,
                defender: int, defender_deadwood: int) -> int:
    """The knocker's net points (single): gin (no layoff), else a knock against the
    defender's deadwood after their best layoffs on the knocker's melds
    (``defender_deadwood``: their least deadwood before any layoff)."""
    return KnockScorer(rules, tables)(knocker, knocker_deadwood, defender, defender_deadwood)


class KnockScorer:
    """``knock_score`` under one deal's rules, each knocker's melds arranged once (the
    play-outs of one choice end in the same few knocking hands again and again)."""

    def __init__(self, rules: Rules, tables: SuitTables) -> None:
        self.rules = rules
        self.tables = tables
        self._melds: dict[int, Table] = {}

    def melds(self, knocker: int) -> Table:
        """The melds the engine arranges the knocker's hand in (``_on_table``)."""
        table = self._melds.get(knocker)
        if table is None:
            tables = self.tables
            table = self._melds[knocker] = _on_table(
                best_arrangement(knocker, tables.ace, tables.points)[1], tables.ace)
        return table

    def __call__(self, knocker: int, knocker_deadwood: int, defender: int,
                 defender_deadwood: int) -> int:
        if knocker_deadwood == 0:
            return self.rules.gin_bonus + defender_deadwood
        return knock_points(knocker_deadwood, _after(defender, self.melds(knocker),
                                                     self.tables, defender_deadwood),
                            self.rules)


def world_stream(unseen: int, shown: int, hand_size: int, stock_count: int, key: int
                 ) -> Iterator[tuple[int, list[int]]]:
    """Worlds without end (the other's hand as a mask, the stock from its top) of the
    cards ``unseen``, the other holding ``shown`` and as many more as ``hand_size``
    asks; seeded by ``key`` (a Fisher-Yates shuffle on ``random.random``, whose stream
    a seed fixes), so the first worlds of a longer run are those of a shorter one."""
    rng = random.Random(key)
    free = unseen & ~shown  # the shown cards are the other's in every world
    cards = [c for c in range(52) if free >> c & 1]
    need = max(0, hand_size - shown.bit_count())
    draw = rng.random
    places = range(len(cards) - 1, 0, -1)
    while True:
        for i in places:
            j = int(draw() * (i + 1))
            cards[i], cards[j] = cards[j], cards[i]
        other = shown
        for c in cards[:need]:
            other |= 1 << c
        yield other, cards[need:need + stock_count]


def worlds(unseen: int, shown: int, hand_size: int, stock_count: int, key: int,
           count: int = WORLDS) -> list[tuple[int, list[int]]]:
    """The first ``count`` worlds of ``world_stream``."""
    return list(islice(world_stream(unseen, shown, hand_size, stock_count, key), count))


def _difference(firsts: list[int], seconds: list[int]) -> tuple[float, float]:
    """The mean of the per-world differences (the first choice's points less the
    second's) and its standard error."""
    n = len(firsts)
    diffs = [a - b for a, b in zip(firsts, seconds, strict=True)]
    mean = sum(diffs) / n
    return mean, (sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) ** 0.5


def knock_choice(hand: int, throws: int, knocked: bool, unseen: int, shown: int,
                 stock_count: int, limit: int, rules: Rules, tables: SuitTables
                 ) -> KnockChoice | None:
    """The knock-or-play-on choice of a player holding ``hand`` (a mask, after the
    draw) who may throw the cards of ``throws``, and ``knocked`` or played on; None when
    no knock is open (no throw within the limit, or gin)."""
    # A throw takes off at most its own points: no knock is open far above the limit.
    if deadwood_of(hand, tables) > limit + max(tables.points):
        return None
    kept = kept_deadwood(hand, throws, tables)
    if not kept:
        return None
    throw = min(kept, key=lambda c: (kept[c], c))
    least = kept[throw]
    if not 0 < least <= limit:
        return None
    mine = hand & ~(1 << throw)
    score = KnockScorer(rules, tables)
    stream = world_stream(unseen, shown, rules.hand_size, stock_count, hand << 52 | unseen)

    def values(other: int, stock: list[int]) -> tuple[int, int]:
        theirs = deadwood_of(other, tables)
        return (score(mine, least, other, theirs),
                -play_from(other, mine, throw, stock, limit, 1, rules, tables, score,
                           known=(theirs, least)))

    knock, play_on, error, n, knock_best, loss = compare(stream, values, knocked)
    played = KNOCK if knocked else PLAY_ON
    return KnockChoice(played, KNOCK if knock_best else PLAY_ON, knock, play_on, throw, n,
                       error, loss)


Values = Callable[[int, list[int]], tuple[int, int]]  # a world -> the two choices' points


def compare(stream: Iterator[tuple[int, list[int]]], values: Values, played_first: bool,
            total: int = WORLDS) -> tuple[float, float, float, int, bool, float]:
    """Two choices valued on ``total`` worlds of ``stream`` (``values``: the points of
    the first and of the second in a world), the first look settling a choice the
    played one clearly leads: each one's mean, the standard error of their difference, the
    worlds played, whether the first is the better, and the loss of the played one
    (the difference when the other passes it by more than ``CLEAR`` errors, else 0)."""
    firsts: list[int] = []
    seconds: list[int] = []

    def play(count: int) -> tuple[float, float]:
        for other, stock in islice(stream, count):
            first, second = values(other, stock)
            firsts.append(first)
            seconds.append(second)
        return _difference(firsts, seconds)

    mean, error = play(FIRST_LOOK)
    if (mean if played_first else -mean) <= CLEAR * error:  # the played one not clearly ahead
        mean, error = play(total - FIRST_LOOK)
    n = len(firsts)
    ahead = mean if played_first else -mean  # the played choice's lead
    if ahead >= 0 or -ahead <= CLEAR * error:
        best_first, loss = played_first, 0.0
    else:
        best_first, loss = not played_first, -ahead
    return sum(firsts) / n, sum(seconds) / n, error, n, best_first, loss

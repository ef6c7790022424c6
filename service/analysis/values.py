"""What a hand is worth to its holder, and what each card it might draw would make of it.

The **value** of a hand is the points its holder would be left with (lower is better):

* gin: the least deadwood of the hand (``melds.least_deadwood``);
* Rummy family: the same, except that a card which fits a meld on the table as it
  stands (``melds.layoff_fits``) may be laid off and then counts for nothing.  A card
  that fits only once another card has been laid off (a chain) is not counted as laid
  off, and ``melds_per_turn`` and ``layoff_requires_own_meld`` are not applied: the value
  is what the cards are worth, not what this one turn may lay.

The **value after a draw** of a hand ``B`` and a card ``c`` is the value of the best
hand the player can keep after the draw's obligatory discard: the least, over every card
``d`` of ``B + c`` (the drawn card too), of the value of ``B + c - d``; a hand laid off
completely is worth 0.  Discarding the drawn card keeps ``B``, so a draw never makes the
value worse: ``after(B, c) <= value(B)``.

Within one suit the cards of a hand are a 13-bit slice of ranks (see ``melds``); with
the groups chosen, the least deadwood is the sum, over the four suits, of the least
deadwood of each suit's slice in runs only.  Those per-slice values, and the best change
from removing one card of a slice, are tables of 8192 entries per ace mode and point
table, so that weighing every card a player might draw costs a few lookups per card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..engine.cards import SUIT_MASK
from ..engine.melds import candidate_melds, least_deadwood

INF = 1 << 30
COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the four aces; shifted by a rank, its column
_SLICES = 1 << 13


@dataclass(frozen=True, slots=True)
class SuitTables:
    """Per 13-bit slice of one suit: ``dead``, the least deadwood of the slice in runs;
    ``drop``, the least ``dead[slice - b] - dead[slice]`` over its cards ``b`` (INF for
    the empty slice); ``thrown``, the rank of a card ``b`` with that least change, the
    one worth more points on a tie, then the higher rank (-1 for the empty slice).
    ``place`` gives each card's place in that same order of preference over the whole
    deck (more points first, then the higher card number), ``ranked`` the card at each
    place."""

    ace: str
    points: tuple[int, ...]
    dead: tuple[int, ...]
    drop: tuple[int, ...]
    thrown: tuple[int, ...]
    reach: tuple[int, ...]  # the ranks r not in the slice that a run of slice + r holds
    cover: tuple[int, ...]  # the ranks of the slice that some run of it holds
    classes: tuple[tuple[int, int], ...]  # (points, the cards worth them)
    place: tuple[int, ...]
    ranked: tuple[int, ...]


@lru_cache(maxsize=16)  # a game uses one; each holds a few 8192-entry tables
def suit_tables(ace: str, points: tuple[int, ...]) -> SuitTables:
    """The tables of an ace mode and a point table (``cards.point_table``: a card's points
    depend on its rank only, so one suit's tables serve all four)."""
    if any(points[r] != points[r + 13 * s] for s in range(4) for r in range(13)):
        raise ValueError("card points must depend on the rank alone")
    dead = [least_deadwood(ranks, ace, points) for ranks in range(_SLICES)]
    drop = [INF] * _SLICES
    thrown = [-1] * _SLICES
    preferred = sorted(range(13), key=lambda r: (-points[r], -r))  # on a tie, first
    for ranks in range(1, _SLICES):
        here = dead[ranks]
        best, best_rank = INF, -1
        for r in preferred:
            if ranks >> r & 1:
                change = dead[ranks ^ 1 << r] - here
                if change < best:
                    best, best_rank = change, r
        drop[ranks] = best
        thrown[ranks] = best_rank
    cover = [0] * _SLICES  # the ranks of a slice that some run of it holds
    for ranks in range(1, _SLICES):
        for meld in candidate_melds(ranks, ace):
            cover[ranks] |= meld
    reach = []
    for ranks in range(_SLICES):
        out = 0
        for r in range(13):
            bit = 1 << r
            if not ranks & bit and cover[ranks | bit] & bit:
                out |= bit
        reach.append(out)
    classes: dict[int, int] = {}
    for card, value in enumerate(points):
        classes[value] = classes.get(value, 0) | 1 << card
    ranked = sorted(range(len(points)), key=lambda c: (-points[c], -c))
    place = [0] * len(points)
    for k, card in enumerate(ranked):
        place[card] = k
    return SuitTables(ace, tuple(points), tuple(dead), tuple(drop), tuple(thrown),
                      tuple(reach), tuple(cover), tuple(sorted(classes.items())), tuple(place),
                      tuple(ranked))


def slices(mask: int) -> tuple[int, int, int, int]:
    return (mask & SUIT_MASK, mask >> 13 & SUIT_MASK, mask >> 26 & SUIT_MASK, mask >> 39)


def group_choices(mask: int) -> list[int]:
    """Every choice of groups of the hand, as the union of the chosen groups' cards: for
    each rank held three or four times, no group, the whole column, or (of four) any
    three.  The empty choice comes first."""
    s0, s1, s2, s3 = mask & SUIT_MASK, mask >> 13 & SUIT_MASK, mask >> 26 & SUIT_MASK, mask >> 39
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))  # ranks held 3 or 4 times
    if not triples:
        return _NO_GROUPS
    out = [0]
    while triples:
        low = triples & -triples
        triples ^= low
        column = mask & COLUMN * low
        choice = [column]
        if column.bit_count() == 4:
            rest = column
            while rest:
                bit = rest & -rest
                rest ^= bit
                choice.append(column ^ bit)
        out += [union | group for union in out for group in choice]
    return out


_NO_GROUPS = [0]


def split_groups(mask: int, tables: SuitTables) -> tuple[int, list[int]]:
    """The groups of the hand in two: ``laid``, the cards of the ranks held three or four
    times none of whose cards a run of the hand could hold (laying the whole column is
    then always at least as good as any other choice: its cards have no other use), and
    every choice of groups among the other such ranks (``group_choices`` of those)."""
    s0, s1, s2, s3 = mask & SUIT_MASK, mask >> 13 & SUIT_MASK, mask >> 26 & SUIT_MASK, mask >> 39
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))  # ranks held 3 or 4 times
    if not triples:
        return 0, _NO_GROUPS
    cover = tables.cover
    runs = cover[s0] | cover[s1] | cover[s2] | cover[s3]  # ranks with a card some run holds
    free = triples & ~runs
    if not free:
        return 0, group_choices(mask)
    laid = mask & COLUMN * free  # the columns of those ranks (no carry: 13 bits apart)
    return laid, group_choices(mask & ~laid)


def deadwood_of(mask: int, tables: SuitTables) -> int:
    """The least deadwood of the hand (``melds.least_deadwood``)."""
    dead = tables.dead
    laid, choices = split_groups(mask, tables)
    mask &= ~laid
    best = INF
    for groups in choices:
        s0, s1, s2, s3 = slices(mask & ~groups)
        value = dead[s0] + dead[s1] + dead[s2] + dead[s3]
        if value < best:
            best = value
    return best


def kept_deadwood(hand: int, throws: int, tables: SuitTables) -> dict[int, int]:
    """Each throw of ``throws`` (a mask of cards of ``hand``) and the least deadwood of
    the cards it keeps."""
    kept = {}
    rest = throws
    while rest:
        low = rest & -rest
        rest ^= low
        kept[low.bit_length() - 1] = deadwood_of(hand & ~low, tables)
    return kept


def after_discard(mask: int, tables: SuitTables) -> int:
    """The least deadwood of the hand less one card, over every card of it; 0 for a hand
    of one card (and for the empty hand)."""
    if mask & (mask - 1) == 0:
        return 0
    dead, drop = tables.dead, tables.drop
    best = INF
    for groups in group_choices(mask):
        rest = mask & ~groups
        if not rest:
            continue  # the discard breaks a group: another choice holds that case
        s0, s1, s2, s3 = slices(rest)
        value = (dead[s0] + dead[s1] + dead[s2] + dead[s3]
                 + min(drop[s0], drop[s1], drop[s2], drop[s3]))
        if value < best:
            best = value
    return best


def _subsets(mask: int) -> list[int]:
    out = [0]
    while mask:
        bit = mask & -mask
        mask ^= bit
        out += [s | bit for s in out]
    return out


def hand_value(hand: int, layable: int, tables: SuitTables) -> int:
    """The value of a hand (see the module): the least deadwood over every set of its
    cards that fit a table meld laid off."""
    return min(deadwood_of(hand & ~laid, tables) for laid in _subsets(hand & layable))


def value_after(hand: int, card: int, layable: int, tables: SuitTables) -> int:
    """The value after drawing ``card`` into ``hand`` and the best discard."""
    held = hand | 1 << card
    best = INF
    for laid in _subsets(held & layable):
        value = after_discard(held & ~laid, tables)
        if value < best:
            best = value
    return best


def values_after(hand: int, cards: int, layable: int, tables: SuitTables) -> list[int]:
    """``value_after(hand, c, layable, tables)`` for each card ``c`` of the mask ``cards``
    (none of them in ``hand``), in ascending card order.

    For a card of a rank the hand holds at most once the group choices are the hand's
    own, and only the card's suit changes: for each choice, ``dead`` of the three other
    suits is known, and the discard is either the best removal of another suit or the
    best removal of the card's suit with the card in it.  A card that could be laid off
    adds the choice of laying it off, which leaves the hand to discard from."""
    dead, drop = tables.dead, tables.drop
    per_suit: tuple[list, list, list, list] = ([], [], [], [])  # (rest, slice, best other drop)
    laid_off = INF  # the value once a drawn card is laid off at once
    for laid in _subsets(hand & layable):
        kept = hand & ~laid
        without = after_discard(kept, tables)
        if without < laid_off:
            laid_off = without
        for groups in group_choices(kept):
            parts = slices(kept & ~groups)
            drops = [drop[p] for p in parts]
            total = dead[parts[0]] + dead[parts[1]] + dead[parts[2]] + dead[parts[3]]
            for u in range(4):
                other = min(drops[t] for t in range(4) if t != u)
                per_suit[u].append((total - dead[parts[u]], parts[u], other))
    h0, h1, h2, h3 = slices(hand)
    pairs = h0 & (h1 | h2 | h3) | h1 & (h2 | h3) | h2 & h3  # ranks held twice or more
    out = []
    for suit in range(4):
        entries = per_suit[suit]
        shift = 13 * suit
        ranks = cards >> shift & SUIT_MASK
        while ranks:
            low = ranks & -ranks
            ranks ^= low
            if low & pairs:  # the card makes or grows a group: the choices change
                out.append(value_after(hand, shift + low.bit_length() - 1, layable, tables))
                continue
            best = laid_off if layable >> shift & low else INF
            for rest, part, other in entries:
                grown = part | low
                lost = drop[grown]
                value = rest + dead[grown] + (lost if lost < other else other)
                if value < best:
                    best = value
            out.append(best)
    return out


def sum_after(hand: int, cards: int, layable: int, tables: SuitTables) -> int:
    """``sum(values_after(hand, cards, layable, tables))`` (see ``draw_figures``)."""
    return draw_figures(hand, cards, -1, layable, tables)[1]


def draw_figures(hand: int, cards: int, card: int, layable: int,
                 tables: SuitTables) -> tuple[int, int, int]:
    """The figures of one draw: ``hand_value(hand)``, the sum of ``value_after`` over
    the cards of the mask ``cards``, and ``value_after`` of ``card`` (one of them; -1
    for none), computed together.

    A card of a rank the hand holds at most once, that no run of its suit would hold and
    that fits no table meld, stays deadwood whatever is discarded: for each group choice
    of the hand its value is ``total + min(0, p + m)``, with ``total`` the choice's
    deadwood, ``p`` the card's points and ``m`` the best change from one discard of the
    hand.  Such cards are counted by their points, a bit count per point value.  A card
    that makes a group of a rank held twice is worth the better of its suit's value
    without that group and the value with it, which is the same for both such cards."""
    dead, drop, reach = tables.dead, tables.drop, tables.reach
    per_suit: tuple[list, list, list, list] = ([], [], [], [])
    finals = []  # (total, best change of one discard) per set laid off and group choice
    taken = []  # (groups, slices, total, least, second, suit of least) per such choice
    laid_off = INF  # the value once a drawn card that fits a table meld is laid off
    for laid in _subsets(hand & layable):
        if laid == hand:
            laid_off = 0
        for groups in group_choices(hand & ~laid):
            parts = slices(hand & ~laid & ~groups)
            drops = [drop[p] for p in parts]
            total = dead[parts[0]] + dead[parts[1]] + dead[parts[2]] + dead[parts[3]]
            least = min(drops)
            at = drops.index(least)
            drops[at] = INF
            second = min(drops)  # the best change from a discard of another suit than ``at``
            finals.append((total, least))
            if total + least < laid_off:
                laid_off = total + least
            taken.append((groups, parts, total, least, second, at))
            for u in range(4):
                per_suit[u].append((total - dead[parts[u]], parts[u],
                                    second if u == at else least))
    choices = group_choices(hand)
    before = min(total for total, _ in finals)
    h = slices(hand)
    h0, h1, h2, h3 = h
    pairs = h0 & (h1 | h2 | h3) | h1 & (h2 | h3) | h2 & h3
    triples = (h0 & h1 & (h2 | h3)) | (h2 & h3 & (h0 | h1))
    doubles = pairs & ~triples
    weighed = 0  # the cards weighed one by one, their group choices too many for a shortcut
    if hand & layable:  # a pair's card may be laid off: its group is not sure
        weighed, doubles = pairs, 0
    grouped: dict[int, int] = {}  # rank held twice -> the value with its new group
    total_sum = 0
    own = -1
    card_bit = 1 << card if card >= 0 else 0
    far = 0
    for suit in range(4):
        entries = per_suit[suit]
        shift = 13 * suit
        ranks = cards >> shift & SUIT_MASK
        close = pairs | reach[h[suit]] | layable >> shift & SUIT_MASK
        far |= (ranks & ~close) << shift
        near = ranks & close
        while near:
            low = near & -near
            near ^= low
            if low & (weighed | pairs) and layable >> shift & low or low & weighed:
                best = value_after(hand, shift + low.bit_length() - 1, layable, tables)
            else:
                best = laid_off if layable >> shift & low else INF
                if low & triples:
                    best = _fourth(hand & COLUMN * low, low, taken, tables)
                elif low & doubles:
                    best = grouped.get(low)
                    if best is None:
                        best = grouped[low] = _with_group(hand, choices, COLUMN * low, tables)
                for rest, part, other in entries:
                    grown = part | low
                    lost = drop[grown]
                    value = rest + dead[grown] + (lost if lost < other else other)
                    if value < best:
                        best = value
            total_sum += best
            if low << shift == card_bit:
                own = best
    if far:
        if len(finals) > 1:  # a choice no better on either count than another is no use
            finals = [f for f in finals if not any(
                g != f and g[0] <= f[0] and g[0] + g[1] <= f[0] + f[1]
                and (g[0], g[1]) < (f[0], f[1]) for g in finals)]
        single = finals[0] if len(finals) == 1 else None
        for value, mask in tables.classes:
            n = (far & mask).bit_count()
            if not n:
                continue
            if single is not None:
                total, least = single
                each = total if value + least > 0 else total + value + least
            else:
                each = min(total + (0 if value + m > 0 else value + m) for total, m in finals)
            total_sum += n * each
            if far & mask & card_bit:
                own = each
    return before, total_sum, own


def _fourth(column: int, rank_bit: int, taken: list[tuple], tables: SuitTables) -> int:
    """The value after drawing the fourth card of a rank the hand holds three times
    (``column``), with the drawn card in a group: the four laid, or three of them with
    the drawn card, the one left out going back to its suit.  (The drawn card outside
    any group is the per-suit count.)"""
    dead, drop = tables.dead, tables.drop
    best = INF
    for groups, parts, total, least, second, at in taken:
        if groups & column != column:
            continue
        if total + least < best:  # all four laid: the discard from the rest
            best = total + least
        rest = column
        while rest:
            bit = rest & -rest
            rest ^= bit
            u = (bit.bit_length() - 1) // 13
            part = parts[u]
            grown = part | rank_bit
            other = second if u == at else least
            lost = drop[grown]
            value = total - dead[part] + dead[grown] + (lost if lost < other else other)
            if value < best:
                best = value
    return best


def _with_group(hand: int, choices: list[int], column: int, tables: SuitTables) -> int:
    """The value after drawing the third card of a rank the hand holds twice and laying
    the three as a group: the drawn card is in the group, so the discard is from the
    rest, whatever its suit."""
    dead, drop = tables.dead, tables.drop
    best = INF
    for groups in choices:
        rest = hand & ~groups & ~column
        if not rest:
            continue  # the discard breaks a group: another choice holds that case
        s0, s1, s2, s3 = slices(rest)
        value = (dead[s0] + dead[s1] + dead[s2] + dead[s3]
                 + min(drop[s0], drop[s1], drop[s2], drop[s3]))
        if value < best:
            best = value
    return best


def layable_cards(melds: Sequence[tuple[int, str]], fit_mask) -> int:
    """The cards that fit at least one of the table's melds, by ``fit_mask(mask, kind)``."""
    out = 0
    for mask, kind in melds:
        out |= fit_mask(mask, kind)
    return out

"""Melds (groups and runs), layoffs, and the arrangement of a hand with least deadwood.

A group is 3 or 4 cards of one rank.  A run is 3 or more cards of one suit whose ranks
form one window of consecutive ranks; which windows count depends on the ace mode:

* ``low``: windows within A..K (A-2-3, never Q-K-A);
* ``high_or_low``: windows within A..K or within 2..A (Q-K-A too, never K-A-2);
* ``around_the_corner``: any circular window (K-A-2 and Q-K-A-2-3 too).

A full 13-card suit is a run in every mode (the window A..K).  Runs are sets: the order in
which a log lists their cards is irrelevant.  A meld never changes kind by layoffs.

Within a suit the hand is a 13-bit slice of rank bits (suit ``s`` is bits ``13*s`` to
``13*s + 12`` of a card mask); most work below is table lookups on such slices.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations, product
from typing import Any

from .cards import FULL_DECK, SUIT_MASK, mask_points
from .rules import ACE_MODES

GROUP, RUN = "group", "run"

_LOW, _HIGH_OR_LOW, _AROUND = 0, 1, 2
_MODE_OF = {name: index for index, name in enumerate(ACE_MODES)}
_SLICES = 1 << 13
_COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the four cards of the ace; shift by rank
_SHIFTS = (0, 13, 26, 39)


def _mode(ace: str) -> int:
    try:
        return _MODE_OF[ace]
    except KeyError:
        raise ValueError(f"unknown ace mode {ace!r}") from None


# --- rank slices -------------------------------------------------------------------------
# The "high line" re-indexes a slice as ranks 2..K then the ace: bit i is rank i + 1 and
# bit 12 the ace, so that windows within 2..A are plain bit windows.

def _to_high(ranks: int) -> int:
    return (ranks >> 1) | ((ranks & 1) << 12)


def _from_high(line: int) -> int:
    return ((line << 1) & SUIT_MASK) | (line >> 12)


def _linear_cover(ranks: int) -> int:
    """The bits of ``ranks`` lying in a block of 3 or more consecutive bits."""
    starts = ranks & ranks >> 1 & ranks >> 2
    return starts | starts << 1 | starts << 2


def _circular_cover(ranks: int) -> int:
    """Like ``_linear_cover`` but the king is followed by the ace."""
    cover = _linear_cover(ranks | ranks << 13)
    return (cover | cover >> 13) & SUIT_MASK


def _blocks(bits: int) -> list[int]:
    """The maximal blocks of consecutive set bits, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        block = bits & ~(bits + low)
        out.append(block)
        bits ^= block
    return out


def _rotate(ranks: int, by: int) -> int:
    """Rotate a slice towards lower ranks by ``by`` (the ace wraps to the king)."""
    return ((ranks >> by) | (ranks << (13 - by))) & SUIT_MASK


def _circular_blocks(ranks: int) -> list[int]:
    """The maximal circular blocks of a slice (the whole suit is one block)."""
    if ranks == SUIT_MASK:
        return [ranks]
    gap = (~ranks & (ranks + 1)).bit_length() - 1  # lowest absent rank
    by = (gap + 1) % 13  # after rotating, the gap is the king: no block wraps
    return [_rotate(block, (13 - by) % 13) for block in _blocks(_rotate(ranks, by))]


def _windows(mode: int) -> tuple[int, ...]:
    """Every rank window (3 to 13 ranks) that is a run under ``mode``, ascending."""
    out: set[int] = set()
    for length in range(3, 14):
        block = (1 << length) - 1
        for start in range(14 - length):
            out.add(block << start)
            if mode == _HIGH_OR_LOW:
                out.add(_from_high(block << start))
        if mode == _AROUND:
            out.update(_rotate(block, start) for start in range(13))
    return tuple(sorted(out))


_WINDOWS = tuple(_windows(mode) for mode in range(3))
_RUN_SLICES = tuple(frozenset(windows) for windows in _WINDOWS)

_COVER_LOW = [_linear_cover(ranks) for ranks in range(_SLICES)]
_COVER_HIGH = [_from_high(_linear_cover(_to_high(ranks))) for ranks in range(_SLICES)]
_COVER_AROUND = [_circular_cover(ranks) for ranks in range(_SLICES)]
# The cards of a slice that some run of the slice contains, per mode.
_USABLE = (
    _COVER_LOW,
    [low | high for low, high in zip(_COVER_LOW, _COVER_HIGH, strict=True)],
    _COVER_AROUND,
)


# --- single melds ------------------------------------------------------------------------

def meld_kind(mask: int, ace: str) -> str | None:
    """GROUP for 3 or 4 cards of one rank, RUN for 3+ cards of one suit in one window of
    consecutive ranks under the ace mode, None for anything else."""
    mode = _mode(ace)
    if mask <= 0 or mask & ~FULL_DECK or mask.bit_count() < 3:
        return None
    first = (mask & -mask).bit_length() - 1
    shift = first - first % 13
    ranks = mask >> shift & SUIT_MASK
    if ranks << shift == mask:
        return RUN if ranks in _RUN_SLICES[mode] else None
    if mask & ~(_COLUMN << first % 13):
        return None
    return GROUP  # 3 or 4 cards of one rank: the deck has only 4 suits


def is_valid_meld(mask: int, ace: str) -> bool:
    """A group or a run under the ace mode."""
    return meld_kind(mask, ace) is not None


def layoff_fits(meld_mask: int, kind: str, card: int, ace: str) -> bool:
    """Whether ``card`` may be added to a meld of that kind.

    A group takes only a missing suit of its rank; a run takes a card of its suit next to
    either end such that the result is still a run under the ace mode.  A card already in
    the meld, or a meld that is not a valid meld of ``kind``, never fits.
    """
    if kind not in (GROUP, RUN):
        raise ValueError(f"unknown meld kind {kind!r}")
    if not 0 <= card < 52:
        return False
    bit = 1 << card
    if meld_mask & bit or meld_kind(meld_mask, ace) != kind:
        return False
    return meld_kind(meld_mask | bit, ace) == kind


_LAYOFFS: dict[tuple[int, str, str], int] = {}
_LAYOFFS_LIMIT = 1 << 16


def layoff_cards(meld_mask: int, kind: str, ace: str) -> int:
    """Every card that may be laid off on the meld (as ``layoff_fits`` says), as a mask.

    Only a missing card of a group's rank, or a card of a run's suit next to one of its
    ranks (the ace next to the king as well as the two), can fit, so only those few are
    asked.  Remembered: the melds on a table change slowly."""
    key = (meld_mask, kind, ace)
    found = _LAYOFFS.get(key)
    if found is not None:
        return found
    out = 0
    if meld_mask > 0:
        low = (meld_mask & -meld_mask).bit_length() - 1
        if kind == GROUP:
            candidates = _COLUMN << low % 13 & ~meld_mask & FULL_DECK
        else:
            shift = low - low % 13
            ranks = meld_mask >> shift & SUIT_MASK
            near = (ranks << 1 | ranks >> 1 | ranks >> 12 | (ranks & 1) << 12) & SUIT_MASK
            candidates = (near & ~ranks) << shift
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            if layoff_fits(meld_mask, kind, bit.bit_length() - 1, ace):
                out |= bit
    if len(_LAYOFFS) >= _LAYOFFS_LIMIT:
        _LAYOFFS.clear()
    _LAYOFFS[key] = out
    return out


def joins_meld(hand_mask: int, card: int, ace: str) -> bool:
    """Whether ``card`` added to the hand lies in some meld of it (a group of its rank or
    a run of its suit under the ace mode): the test behind ``candidate_melds`` for one
    card."""
    rank, shift = card % 13, card - card % 13
    hand = hand_mask | 1 << card
    if (hand & _COLUMN << rank).bit_count() >= 3:
        return True
    return bool(_USABLE[_mode(ace)][hand >> shift & SUIT_MASK] >> rank & 1)


@cache
def _slice_windows(mode: int, usable: int) -> tuple[int, ...]:
    return tuple(w for w in _WINDOWS[mode] if w & usable == w)


def candidate_melds(hand_mask: int, ace: str) -> list[int]:
    """Every valid meld made of cards of the hand, ascending by mask.

    Groups of 4 and each of their 3-card subsets; runs of every length, so every sub-window
    of a longer run too.
    """
    mode = _mode(ace)
    usable = _USABLE[mode]
    out = []
    for shift in _SHIFTS:
        ranks = usable[hand_mask >> shift & SUIT_MASK]
        if ranks:
            out.extend(w << shift for w in _slice_windows(mode, ranks))
    for rank in range(13):
        column = hand_mask & _COLUMN << rank
        size = column.bit_count()
        if size == 4:
            out.append(column)
            cards = [rank + shift for shift in _SHIFTS]
            out.extend((1 << a) | (1 << b) | (1 << c) for a, b, c in combinations(cards, 3))
        elif size == 3:
            out.append(column)
    out.sort()
    return out


def deadwood(hand_mask: int, melds: Iterable[int], points: Sequence[int]) -> int:
    """Points of the cards of the hand that are in none of the melds."""
    rest = hand_mask
    for meld in melds:
        rest &= ~meld
    return mask_points(rest, points)


def melds_disjoint(melds: Iterable[int]) -> bool:
    """No card is in two of the melds."""
    seen = 0
    for meld in melds:
        if seen & meld:
            return False
        seen |= meld
    return True


# --- best arrangement --------------------------------------------------------------------
#
# Groups of different ranks never share a card, and two groups of one rank always do, so an
# arrangement picks for each rank at most one group.  Once the groups are chosen, the runs
# of each suit are independent: the most points a suit's slice can put in disjoint runs is
# the points of the cards lying in maximal blocks of 3+ consecutive ranks (any such block
# is itself a run, and no run reaches outside one).  Under high_or_low the ace belongs to
# the A..K line or to the 2..A line, never both: the best of the two lines.  So the search
# only enumerates the group choices of the ranks held 3 or 4 times whose cards some run
# could use; every other such rank simply keeps its full group.


class _Tables:
    """Per ace mode and point table: slice values and the runs chosen for each slice."""

    __slots__ = ("mode", "sums", "values", "use_high", "runs")

    def __init__(self, mode: int, points: Sequence[int]) -> None:
        self.mode = mode
        per_suit: dict[tuple[int, ...], tuple[list[int], list[int], list[bool] | None]] = {}
        sums, values, use_high = [], [], []
        for shift in _SHIFTS:
            suit_points = tuple(points[shift:shift + 13])
            if suit_points not in per_suit:
                per_suit[suit_points] = _suit_tables(mode, suit_points)
            s, v, h = per_suit[suit_points]
            sums.append(s)
            values.append(v)
            use_high.append(h)
        self.sums = tuple(sums)
        self.values = tuple(values)
        self.use_high = tuple(use_high)
        self.runs: tuple[dict[int, tuple[int, ...]], ...] = ({}, {}, {}, {})

    def slice_runs(self, suit: int, ranks: int) -> tuple[int, ...]:
        """The runs (as card masks) of a best run cover of the slice of ``suit``."""
        memo = self.runs[suit]
        found = memo.get(ranks)
        if found is None:
            if self.mode == _LOW:
                blocks = _blocks(_COVER_LOW[ranks])
            elif self.mode == _AROUND:
                blocks = _circular_blocks(_COVER_AROUND[ranks])
            elif self.use_high[suit][ranks]:  # type: ignore[index]
                blocks = [_from_high(b) for b in _blocks(_linear_cover(_to_high(ranks)))]
            else:
                blocks = _blocks(_COVER_LOW[ranks])
            shift = _SHIFTS[suit]
            found = tuple(block << shift for block in blocks)
            memo[ranks] = found
        return found


def _suit_tables(
    mode: int, suit_points: tuple[int, ...]
) -> tuple[list[int], list[int], list[bool] | None]:
    sums = [0] * _SLICES
    for ranks in range(1, _SLICES):
        low = ranks & -ranks
        sums[ranks] = sums[ranks ^ low] + suit_points[low.bit_length() - 1]
    if mode == _LOW:
        return sums, [sums[c] for c in _COVER_LOW], None
    if mode == _AROUND:
        return sums, [sums[c] for c in _COVER_AROUND], None
    use_high = [(sums[h], h.bit_count()) > (sums[lo], lo.bit_count())
                for lo, h in zip(_COVER_LOW, _COVER_HIGH, strict=True)]
    values = [sums[h] if hi else sums[lo]
              for lo, h, hi in zip(_COVER_LOW, _COVER_HIGH, use_high, strict=True)]
    return sums, values, use_high


_BY_ID: dict[tuple[int, str], tuple[Sequence[int], _Tables]] = {}
_BY_VALUE: dict[tuple[str, tuple[int, ...]], _Tables] = {}


def _tables(ace: str, points: Sequence[int]) -> _Tables:
    entry = _BY_ID.get((id(points), ace))
    if entry is not None and entry[0] is points:
        return entry[1]
    mode = _mode(ace)
    if len(points) != 52:
        raise ValueError("a point table has 52 entries")
    key = (ace, tuple(points))
    tables = _BY_VALUE.get(key)
    if tables is None:
        if any(p < 0 for p in key[1]):
            raise ValueError("card points must not be negative")
        if len(_BY_VALUE) >= 16:  # a game uses one or two tables; keep memory bounded
            _BY_VALUE.clear()
        tables = _BY_VALUE[key] = _Tables(mode, key[1])
    if len(_BY_ID) >= 64:
        _BY_ID.clear()
    _BY_ID[(id(points), ace)] = (points, tables)  # holding points keeps its id unique
    return tables


def best_arrangement(
    hand_mask: int, ace: str, points: Sequence[int]
) -> tuple[int, tuple[int, ...]]:
    """The least deadwood of the hand over all sets of disjoint melds, with such melds.

    ``points`` is the per-card point table (``cards.point_table``), never negative.  The
    melds come as card masks in ascending order; among equally good arrangements the same
    one is always returned, with a run taking a whole block of consecutive cards.
    """
    if hand_mask < 0 or hand_mask & ~FULL_DECK:
        raise ValueError("a hand is a mask of cards 0..51")
    tables = _tables(ace, points)
    s0 = hand_mask & SUIT_MASK
    s1 = hand_mask >> 13 & SUIT_MASK
    s2 = hand_mask >> 26 & SUIT_MASK
    s3 = hand_mask >> 39
    sum0, sum1, sum2, sum3 = tables.sums
    v0, v1, v2, v3 = tables.values
    total = sum0[s0] + sum1[s1] + sum2[s2] + sum3[s3]
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))  # ranks held 3 or 4 times

    if not triples:
        rest = hand_mask
        melded = v0[s0] + v1[s1] + v2[s2] + v3[s3]
        groups: list[int] = []
    else:
        melded, best_groups = _best_groups(hand_mask, triples, tables, points)
        rest = hand_mask & ~best_groups
        groups = []
        while best_groups:
            low = best_groups & -best_groups
            group = best_groups & _COLUMN << (low.bit_length() - 1) % 13
            groups.append(group)
            best_groups ^= group
        s0 = rest & SUIT_MASK
        s1 = rest >> 13 & SUIT_MASK
        s2 = rest >> 26 & SUIT_MASK
        s3 = rest >> 39

    melds = groups
    usable = _USABLE[tables.mode]
    for suit, ranks in enumerate((s0, s1, s2, s3)):
        if usable[ranks]:
            melds.extend(tables.slice_runs(suit, ranks))
    melds.sort()
    return total - melded, tuple(melds)




# --- deadwood alone ------------------------------------------------------------------------
#
# What a player weighs at every turn: the least deadwood of a hand, and of the hand less
# each card it may discard.  The same search as ``best_arrangement`` without building the
# melds; the discards share one enumeration of the group choices.

def _group_choices(hand_mask: int, triples: int, tables: _Tables, points: Sequence[int]
                   ) -> tuple[int, int, list[list[tuple[int, int]]]]:
    """The groups of the ranks held 3 or 4 times: those no run could use (always laid,
    with their points), and for the others the choices worth trying (all, none, or for
    four cards three without one that a run could use)."""
    usable = _USABLE[tables.mode]
    run_cards = (usable[hand_mask & SUIT_MASK] | usable[hand_mask >> 13 & SUIT_MASK] << 13
                 | usable[hand_mask >> 26 & SUIT_MASK] << 26 | usable[hand_mask >> 39] << 39)
    fixed = fixed_points = 0
    choices: list[list[tuple[int, int]]] = []
    while triples:
        low = triples & -triples
        triples ^= low
        column = hand_mask & _COLUMN << low.bit_length() - 1
        column_points = mask_points(column, points)
        if not column & run_cards:
            fixed |= column
            fixed_points += column_points
            continue
        options = [(column, column_points), (0, 0)]
        if column.bit_count() == 4:
            flexible = column & run_cards
            while flexible:
                bit = flexible & -flexible
                flexible ^= bit
                options.append((column ^ bit, column_points - points[bit.bit_length() - 1]))
        choices.append(options)
    return fixed, fixed_points, choices


def _best_groups(hand_mask: int, triples: int, tables: _Tables,
                 points: Sequence[int]) -> tuple[int, int]:
    """The most points the groups and the runs beside them can meld, and the cards of
    the groups laid for it (the first such choice, in a fixed order)."""
    v0, v1, v2, v3 = tables.values
    fixed, fixed_points, choices = _group_choices(hand_mask, triples, tables, points)
    best_melded = -1
    best_groups = 0
    for combo in product(*choices):
        removed = fixed
        melded = fixed_points
        for group, group_points in combo:
            removed |= group
            melded += group_points
        rest = hand_mask & ~removed
        melded += (v0[rest & SUIT_MASK] + v1[rest >> 13 & SUIT_MASK]
                   + v2[rest >> 26 & SUIT_MASK] + v3[rest >> 39])
        if melded > best_melded:
            best_melded = melded
            best_groups = removed
    return best_melded, best_groups


def least_deadwood(hand_mask: int, ace: str, points: Sequence[int]) -> int:
    """``best_arrangement(hand_mask, ace, points)[0]``: the least deadwood of the hand."""
    tables = _tables(ace, points)
    s0 = hand_mask & SUIT_MASK
    s1 = hand_mask >> 13 & SUIT_MASK
    s2 = hand_mask >> 26 & SUIT_MASK
    s3 = hand_mask >> 39
    sum0, sum1, sum2, sum3 = tables.sums
    v0, v1, v2, v3 = tables.values
    total = sum0[s0] + sum1[s1] + sum2[s2] + sum3[s3]
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not triples:
        return total - (v0[s0] + v1[s1] + v2[s2] + v3[s3])
    return total - _best_groups(hand_mask, triples, tables, points)[0]


# The last question and its answer, as one tuple: threads share it, and replacing one
# reference is atomic where updating two would not be.
_last_discards: tuple[Any, tuple[tuple[int, int], ...]] = (None, ())


def discard_deadwoods(hand_mask: int, ace: str,
                      points: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """For each card of the hand, in ascending order, ``(card, least deadwood of the hand
    without it)``.

    The last answer is remembered: the table listing a player's moves and the player
    weighing them ask about the same hand one after the other."""
    global _last_discards
    key = (hand_mask, ace, points)
    last_key, answer = _last_discards
    if last_key == key:
        return answer
    answer = tuple(_discard_deadwoods(hand_mask, ace, points))
    _last_discards = (key, answer)
    return answer


def _discard_deadwoods(hand_mask: int, ace: str, points: Sequence[int]) -> list[tuple[int, int]]:
    """``discard_deadwoods``, worked out.

    Discarding a card of a rank held fewer than three times leaves the group choices of
    the hand as they were (runs only lose cards, so a group no run could use stays so):
    for each choice only the discarded card's suit changes, one table lookup.  The cards
    of ranks held three or four times are weighed one by one."""
    tables = _tables(ace, points)
    slices = (hand_mask & SUIT_MASK, hand_mask >> 13 & SUIT_MASK, hand_mask >> 26 & SUIT_MASK,
              hand_mask >> 39)
    sums, values = tables.sums, tables.values
    s0, s1, s2, s3 = slices
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    rests: list[tuple[tuple[int, ...], list[int]]] = []
    grouped = 0
    if triples:
        fixed, _, choices = _group_choices(hand_mask, triples, tables, points)
        grouped = fixed
        for options in choices:
            grouped |= options[0][0]
        for combo in product(*choices):
            removed = fixed
            for group, _ in combo:
                removed |= group
            rest = hand_mask & ~removed
            parts = (rest & SUIT_MASK, rest >> 13 & SUIT_MASK, rest >> 26 & SUIT_MASK,
                     rest >> 39)
            dead = [sums[k][parts[k]] - values[k][parts[k]] for k in range(4)]
            total = sum(dead)
            rests.append((parts, [total - d for d in dead]))
    else:
        dead = [sums[k][slices[k]] - values[k][slices[k]] for k in range(4)]
        total = sum(dead)
        rests.append((slices, [total - d for d in dead]))
    out = []
    for suit in range(4):
        shift = 13 * suit
        ranks = slices[suit]
        table_sums, table_values = sums[suit], values[suit]
        while ranks:
            low = ranks & -ranks
            ranks ^= low
            card = shift + low.bit_length() - 1
            if grouped >> card & 1:
                out.append((card, least_deadwood(hand_mask & ~(1 << card), ace, points)))
                continue
            least = -1
            for parts, others in rests:
                part = parts[suit] & ~low
                value = others[suit] + table_sums[part] - table_values[part]
                if least < 0 or value < least:
                    least = value
            out.append((card, least))
    return out

"""A deal recorded by its result (a line of a score sheet) instead of its moves.

The play is not recorded, so it is not judged; everything a sheet can show is: that the
end it records is one the rules allow at that moment (a knock within the limit, Oklahoma's
upcard setting it; gin with no deadwood; big gin only where allowed; a player who went
out holding nothing), that the cards and melds it gives (when it gives them) are real
melds, no card twice, and count to the hand values it gives; then the deal is scored
exactly as a deal played out to the same figures, and the replay checks the points,
the running totals and the game's end as for any deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import report as R
from .cards import cards_of as _cards
from .cards import mask_of, mask_points, names, point_table
from .gin import doubled, knock_limit
from .melds import meld_kind
from .model import Deal, End, Outcome
from .rules import Rules
from .scoring import gin_points, rummy_blocked_points, rummy_out_points
from .words import plural

Problem = tuple[str, str] | None


@dataclass
class SheetDeal:
    """What a deal's result comes to: the deal's score, or the rule it breaks.

    ``values`` are the hand values that count (counted from the cards where the sheet
    gives them); ``mismatches`` are (player, message) for each hand value the sheet gives
    that its own cards do not count to."""

    problem: Problem = None
    outcome: str | None = None
    winner: int | None = None
    points: dict[int, int] = field(default_factory=dict)
    values: dict[int, int] = field(default_factory=dict)
    mismatches: list[tuple[int, str]] = field(default_factory=list)


def judge_result(rules: Rules, deal: Deal, seats: tuple[int, ...],
                 player_names: tuple[str, ...]) -> SheetDeal:
    """Check the result of ``deal`` (``deal.result`` is set) and score it."""
    result = deal.result
    assert result is not None
    out = SheetDeal()
    if result.end == End.VOID:
        out.outcome = Outcome.VOID
        out.points = dict.fromkeys(seats, 0)
        out.values = dict.fromkeys(seats, 0)
        return out
    out.problem = _cards_problem(rules, deal, seats, player_names)
    if out.problem:
        out.values = {s: (result.hand_values or {}).get(s, 0) for s in seats}
        return out
    out.values = _counted_values(rules, deal, seats, player_names, out.mismatches)
    if rules.is_gin:
        _score_gin(rules, deal, seats, player_names, out)
    else:
        _score_rummy(rules, deal, seats, player_names, out)
    return out


def _cards_problem(rules: Rules, deal: Deal, seats: tuple[int, ...],
                   player_names: tuple[str, ...]) -> Problem:
    """The melds are melds, no card is given twice, and a hand given whole (gin: the
    knocker's melds and deadwood) has the cards it must."""
    result = deal.result
    assert result is not None
    seen = 0
    for seat in seats:
        name = player_names[seat]
        for meld in (result.melds or {}).get(seat, ()):
            mask = mask_of(meld)
            if len(meld) != mask.bit_count() or meld_kind(mask, rules.ace) is None:
                return (R.INVALID_MELD, f"{name}'s meld {names(meld)} is neither a group nor "
                        "a run")
            if seen & mask:
                return (R.DUPLICATE_CARD, f"{names(_cards(seen & mask))} given twice in the "
                        "deal's result")
            seen |= mask
        cards = (result.cards or {}).get(seat, ())
        mask = mask_of(cards)
        if len(cards) != mask.bit_count() or seen & mask:
            twice = seen & mask if seen & mask else _repeated(cards)
            return (R.DUPLICATE_CARD, f"{names(_cards(twice))} given twice in the deal's "
                    "result")
        seen |= mask
    if rules.is_gin and result.by is not None and result.melds and result.cards \
            and result.by in result.melds and result.by in result.cards:
        held = sum(len(m) for m in result.melds[result.by]) + len(result.cards[result.by])
        want = rules.hand_size + (1 if result.end == End.BIG_GIN else 0)
        if held != want:
            return (R.WRONG_HAND_SIZE, f"{player_names[result.by]}'s melds and deadwood "
                    f"hold {plural(held, 'card')}; after the "
                    f"{'big gin' if want > rules.hand_size else 'discard'} the hand has {want}")
    return None


def _repeated(cards: tuple[int, ...]) -> int:
    seen = twice = 0
    for card in cards:
        if seen >> card & 1:
            twice |= 1 << card
        seen |= 1 << card
    return twice


def _counted_values(rules: Rules, deal: Deal, seats: tuple[int, ...],
                    player_names: tuple[str, ...],
                    mismatches: list[tuple[int, str]]) -> dict[int, int]:
    """Each player's hand value: what their cards count where the sheet gives them (a
    figure that differs is a mismatch), else the figure given; 0 for one who went out
    and is given none."""
    result = deal.result
    assert result is not None
    given = result.hand_values or {}
    points = point_table(rules.ace_points)
    values = {}
    for seat in seats:
        cards = (result.cards or {}).get(seat)
        if cards is None:
            values[seat] = given.get(seat, 0)
            continue
        counted = mask_points(mask_of(cards), points)
        values[seat] = counted
        if seat in given and given[seat] != counted:
            what = "deadwood" if rules.is_gin else "hand value"
            mismatches.append((seat, f"{player_names[seat]}'s {what} is given as "
                               f"{given[seat]}; the cards given ({names(cards)}) count "
                               f"{counted}"))
    return values


def _score_gin(rules: Rules, deal: Deal, seats: tuple[int, ...],
               player_names: tuple[str, ...], out: SheetDeal) -> None:
    result = deal.result
    assert result is not None and result.by is not None
    knocker = result.by
    defender = seats[0] if seats[1] == knocker else seats[1]
    name = player_names[knocker]
    k = out.values[knocker]
    big = result.end == End.BIG_GIN
    if big and rules.big_gin_bonus is None:
        out.problem = (R.ACTION_NOT_ALLOWED, f"{name} went big gin; big gin is not allowed "
                       "in this game")
        return
    if result.end != End.KNOCK and k > 0:
        out.problem = (R.GIN_WITH_DEADWOOD, f"{name} went gin with {k} deadwood")
        return
    limit = knock_limit(rules, deal.upcard)
    if k > limit:
        out.problem = (R.KNOCK_OVER_LIMIT, f"{name} knocked with {k} deadwood; the limit is "
                       f"{limit}")
        return
    out.outcome, out.winner, out.points = gin_points(
        rules, knocker, defender, k, out.values[defender], k == 0, big,
        doubled(rules, deal.upcard))


def _score_rummy(rules: Rules, deal: Deal, seats: tuple[int, ...],
                 player_names: tuple[str, ...], out: SheetDeal) -> None:
    result = deal.result
    assert result is not None
    if result.end == End.BLOCKED:
        out.points, out.winner = rummy_blocked_points(rules, seats, out.values)
        out.outcome = Outcome.BLOCKED
        return
    winner = result.by
    assert winner is not None
    if out.values[winner]:
        out.problem = (R.IMPOSSIBLE_RESULT, f"{player_names[winner]} went out, so holds no "
                       f"card; the result gives a hand value of {out.values[winner]}")
        return
    rummy = result.end == End.RUMMY
    out.outcome = Outcome.RUMMY if rummy else Outcome.OUT
    out.winner = winner
    out.points = rummy_out_points(rules, seats, winner, out.values, rummy)

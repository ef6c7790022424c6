"""A player's share of their luck: how many deal points a point of luck has been worth to
them, and their luck-adjusted points per deal with it.

The luck of a chance event has an expectation of exactly zero, so ``points - b * luck``
keeps the points' expectation for any ``b`` fixed before the luck is known, and its
variance is least at ``b = Cov(points, luck) / Var(luck)`` (the control variate's
coefficient).  The evaluator values a position at what the players it was fitted on make
of it; a player who converts little of a good position (a beginner, or one whose
opponents decide most deals) has a ``b`` well below 1, and subtracting all the luck
(``b = 1``) then adds noise instead of taking it away.

So each player's ``b`` is measured on their own games, **cross-fitted**: their games are
split in two halves by the game's id (``fold_of``), each half's luck is weighed with the
``b`` measured on the other half, so the ``b`` applied to a game never depends on that
game's luck and the adjusted points stay unbiased.  Each half's ``b`` is

    b = (sum over games of (P - m * n) * L  +  PRIOR_SHARE * PRIOR_WEIGHT)
        / (sum over games of L * L  +  PRIOR_WEIGHT)

(``P``, ``L``, ``n``: a game's points, luck and scored deals; ``m``: the half's points per
deal), held within 0 and 1: a least-squares slope through the games, shrunk toward
``PRIOR_SHARE`` as if ``PRIOR_WEIGHT`` of squared luck had been seen at that slope (a
half with no game takes ``PRIOR_SHARE``).  Everything is computed on the stored integers
(units of 0.0001 point) with one rounding, to 0.0001 of a share, so the store's SQL and
this module agree to the last digit and no figure depends on the order rows are summed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

E4 = 10_000  # stored luck and points are in units of 0.0001 point
PRIOR_SHARE_E4 = 7_000  # 0.70: about what the generator's competent players convert
PRIOR_WEIGHT = 1_000  # squared deal points: some ten deals' worth of luck
PRIOR_WEIGHT_E8 = PRIOR_WEIGHT * E4 * E4


def fold_of(game_id: str) -> int:
    """The half of a player's games a game is in: the parity of its id's last character
    (ids are hexadecimal digests, so the halves are about even and fixed for ever)."""
    return ord(game_id[-1]) % 2


@dataclass(slots=True)
class FoldSums:
    """One half of a player's games: scored deals, points and luck (units of 0.0001
    point), and the sums of points x luck, luck x luck and deals x luck over its games."""

    deals: int = 0
    points: int = 0
    luck: int = 0
    points_luck: int = 0
    luck_luck: int = 0
    deals_luck: int = 0

    def add(self, deals: int, points: int, luck: int) -> None:
        self.deals += deals
        self.points += points
        self.luck += luck
        self.points_luck += points * luck
        self.luck_luck += luck * luck
        self.deals_luck += deals * luck


def share_e4(half: FoldSums) -> int:
    """The share of luck measured on ``half``, in units of 0.0001, within 0 and 10,000."""
    if half.deals == 0:
        return PRIOR_SHARE_E4
    # (points_luck - points * deals_luck / deals + prior) / (luck_luck + weight), the
    # numerator and denominator multiplied by deals to stay in integers
    numerator = ((half.points_luck * half.deals - half.points * half.deals_luck) * E4
                 + PRIOR_SHARE_E4 * PRIOR_WEIGHT_E8 * half.deals)
    denominator = (half.luck_luck + PRIOR_WEIGHT_E8) * half.deals
    if numerator <= 0:
        return 0
    return min(E4, (2 * numerator + denominator) // (2 * denominator))


@dataclass(frozen=True, slots=True)
class Adjusted:
    """A player's cross-fitted figures: scored deals, luck and adjusted points (units of
    0.0001 point, the adjusted points times 10,000 again: ``adjusted_e8``), and the share
    of luck measured on all their games (``share_e4``, for reading only)."""

    deals: int
    luck: int
    adjusted_e8: int
    share_e4: int


def adjusted(games: Iterable[tuple[str, int, int, int]]) -> Adjusted:
    """The cross-fitted figures of a player from their games: (game id, scored deals,
    points, luck), points and luck in units of 0.0001 point.  A game's adjusted points
    are its points less its luck times the share of the other half."""
    halves = (FoldSums(), FoldSums())
    whole = FoldSums()
    for game_id, deals, points, luck in games:
        halves[fold_of(game_id)].add(deals, points, luck)
        whole.add(deals, points, luck)
    shares = (share_e4(halves[1]), share_e4(halves[0]))
    total = sum(h.points * E4 - s * h.luck for h, s in zip(halves, shares, strict=True))
    return Adjusted(whole.deals, whole.luck, total, share_e4(whole))

"""The first upcard's offer: take it or pass, valued from the player's view.

With ``upcard_pass``, the first player may take the upcard or pass; after a pass the
dealer may take it or pass; once both have passed, the first player draws from the
stock and the upcard stays on the pile.  Each offer is a choice between **take** and
**pass**, valued in expected deal points as ``gin_knock`` values a knock: on the same
worlds of the cards the player has not seen (the other's hand, then the stock in a
random order, seeded by the position), both choices on each, with the same first look
and the same rule for a loss (the other choice clearly better, by ``CLEAR`` standard
errors), on ``OFFER_WORLDS`` worlds at most.

* **take**: the player takes the upcard and both play on the duplicate's plain way
  (``gin_duplicate.play_from``: throw what keeps the least deadwood, not the card
  taken; knock or go gin as soon as they may; every knock scored with the defender's
  best layoffs).
* **pass**, by the first player: the dealer takes the upcard when it lowers their
  deadwood (the plain way's rule), and play goes on from there; else both have passed
  and the first player draws from the stock.
* **pass**, by the dealer: the first player draws from the stock.

The dealer's answer to a pass is the plain rule's, not a best one, and the other's
cards are drawn as if at random: the loss says which choice a plain continuation
favours on the cards the player could not see.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.rules import Rules
from .gin_duplicate import FROM_STOCK, TAKE_PILE, best_throw, play_from
from .gin_knock import KnockScorer, compare, world_stream
from .values import SuitTables, deadwood_of

TAKE, PASS = "take", "pass"
# Worlds an offer is valued over at most: its play-outs are whole deals, some five
# times a knock's, so half as many as a knock's choice.
OFFER_WORLDS = 32


@dataclass(frozen=True, slots=True)
class OfferChoice:
    """A judged offer: the choice played and the better one (``take`` or ``pass``: the
    played one unless the other is clearly better), each one's value in deal points
    (single, not doubled), the worlds, the standard error of the values' difference,
    and the loss of the choice played."""

    played: str
    best: str
    take: float
    pass_: float
    worlds: int
    error: float
    loss: float

    def value(self, choice: str) -> float:
        return self.take if choice == TAKE else self.pass_


def offer_choice(hand: int, upcard: int, took: bool, dealer: bool, unseen: int,
                 stock_count: int, limit: int, rules: Rules, tables: SuitTables
                 ) -> OfferChoice:
    """The offer of ``upcard`` to a player holding ``hand`` (a mask), who ``took`` it
    or passed; ``dealer``: the offer is the dealer's, the first player having passed."""
    score = KnockScorer(rules, tables)
    mine = deadwood_of(hand, tables)

    def values(other: int, stock: list[int]) -> tuple[int, int]:
        theirs = deadwood_of(other, tables)
        take = play_from(hand, other, upcard, stock, limit, 1, rules, tables, score,
                         TAKE_PILE, (mine, theirs))
        if dealer or best_throw(other | 1 << upcard, upcard, tables)[1] >= theirs:
            refused = -play_from(other, hand, upcard, stock, limit, 1, rules, tables,
                                 score, FROM_STOCK, (theirs, mine)) if dealer else \
                play_from(hand, other, upcard, stock, limit, 1, rules, tables, score,
                          FROM_STOCK, (mine, theirs))
        else:  # the dealer takes it
            refused = -play_from(other, hand, upcard, stock, limit, 1, rules, tables,
                                 score, TAKE_PILE, (theirs, mine))
        return take, refused

    stream = world_stream(unseen, 0, rules.hand_size, stock_count,
                          (hand << 52 | unseen) << 1 | dealer)
    take, refused, error, n, take_best, loss = compare(stream, values, took, OFFER_WORLDS)
    return OfferChoice(TAKE if took else PASS, TAKE if take_best else PASS, take, refused,
                       n, error, loss)

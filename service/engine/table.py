"""What the two families share: dealing, the stock, the discard pile, turn order.

A ``Table`` holds one deal in progress.  Each family subclasses it and handles the
actions its rules allow; ``play`` returns None for a legal move, or the violation
``(code, message)`` of the first check that fails, in the order RULES.md gives:
the action is allowed at all, the turn, the phase, the cards, then the rule.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Callable, Sequence
from typing import Self

from . import report as R
from .cards import FULL_DECK, card_name, mask_points, names, point_table
from .cards import cards_of as _cards
from .cards import mask_of as _mask
from .melds import layoff_cards
from .model import DISCARD, DISCARD_PILE, DRAW, LAYOFF, STOCK, Action, Deal, Move, move_of
from .rules import Rules
from .words import plural

Problem = tuple[str, str] | None


class Table:
    """One deal: hands as bitmasks by seat, the stock, the discard pile, whose turn."""

    def __init__(self, rules: Rules, player_names: tuple[str, ...], deal: Deal,
                 seats: tuple[int, ...]):
        self.rules = rules
        self.player_names = player_names
        self.points = point_table(rules.ace_points)
        self.dealer = deal.dealer
        # Play order: the player to the dealer's left first, then clockwise.
        start = (seats.index(deal.dealer) + 1) % len(seats) if deal.dealer in seats else 0
        self.order: tuple[int, ...] = seats[start:] + seats[:start]
        self.seats = seats
        self.hands: dict[int, int] = dict.fromkeys(seats, 0)
        self.stock_order: list[int] | None = None  # top of the stock last, when known
        self.stock_set = 0  # the cards that can be in the stock
        self.stock_count = 0
        self.pile: list[int] = []  # discard pile, top last
        self.turn = 0  # index into order
        self.drew = False
        self.taken: int | None = None  # card taken from the discard pile this turn
        self.draws = 0
        self.ended = False
        self.outcome: str | None = None
        self.winner: int | None = None
        self.upcard: int | None = None
        self.warnings: list[tuple[str, str]] = []  # (code, message) of legal but odd moves
        self.handlers: dict[str, Callable[[Move], Problem]] = {}

    def copy(self) -> Self:
        """An independent table in the same position: moves played on either leave the
        other as it was (for trying moves: ``legal_moves``, analysis)."""
        other = _copy.copy(self)
        other.hands = dict(self.hands)
        other.stock_order = None if self.stock_order is None else list(self.stock_order)
        other.pile = list(self.pile)
        other.warnings = []
        other.handlers = {action: getattr(other, handler.__name__)
                          for action, handler in self.handlers.items()}
        return other

    def legal_moves(self, only: Action | None = None) -> list[Move]:
        """Every move the rules allow now, in the log's own move type: playing any of
        them is legal, and a move of another kind, card, pile or player is refused
        with its violation code.  Empty once the deal is over.  With ``only``, just the
        moves of that action, in the same order (and without the cost of the others).

        One spelling per move: a drawn card is always named (where the stock's order
        is known, the same draw without the card is the same move); a meld's cards and
        a declaration's melds are listed in ascending card order, and a knock, gin or
        show declares the best arrangement (another declaration of the same hand is
        legal too, at the declarer's own cost).  Each family lists its own
        (``RummyTable``, ``GinTable``)."""
        raise NotImplementedError

    # -- moves every family lists -----------------------------------------------------

    def stock_draws(self, player: int) -> list[Move]:
        """Drawing from the stock as it is now: the top when its order is known, else
        any card that can still be in it (the log names the card it was)."""
        if not self.stock_count:
            return []
        if self.stock_order is not None:
            return [move_of(player, DRAW, STOCK, self.stock_order[-1])]
        return [move_of(player, DRAW, STOCK, c) for c in _cards(self.stock_set)]

    def discard_draws(self, player: int) -> list[Move]:
        """Taking the top of the discard pile, when there is one."""
        if not self.pile:
            return []
        return [move_of(player, DRAW, DISCARD_PILE, self.pile[-1])]

    def discardable(self, player: int) -> list[int]:
        """The cards of the hand that may be discarded (the card taken from the discard
        pile this turn only where the rules allow it)."""
        hand = self.hands[player]
        if self.taken is not None and not self.rules.discard_taken_card:
            hand &= ~(1 << self.taken)
        return _cards(hand)

    def discards(self, player: int) -> list[Move]:
        return [move_of(player, DISCARD, card=c) for c in self.discardable(player)]

    def layoffs(self, player: int, cards: int, melds: Sequence[tuple[int, str]]) -> list[Move]:
        """Laying off each of ``cards`` (a mask) on each of ``melds`` (mask, kind) that
        it fits, by card then by meld number."""
        ace = self.rules.ace
        fits = [layoff_cards(mask, kind, ace) & cards for mask, kind in melds]
        reach = 0
        for fit in fits:
            reach |= fit
        return [move_of(player, LAYOFF, card=card, meld=i)
                for card in _cards(reach) for i, fit in enumerate(fits) if fit >> card & 1]

    # -- names and messages ---------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.player_names[seat]

    @property
    def to_move(self) -> int:
        return self.order[self.turn]

    def next_turn(self) -> None:
        self.turn = (self.turn + 1) % len(self.order)
        self.drew = False
        self.taken = None

    # -- dealing --------------------------------------------------------------------

    def deal_cards(self, deal: Deal) -> Problem:
        """Check and lay out the deal: hands, upcard, stock.  A problem here is of the
        deal as a whole (DUPLICATE_CARD, WRONG_HAND_SIZE, DEAL_MISMATCH)."""
        size = self.rules.hand_size
        n = len(self.order)
        if deal.deck is not None:
            problem = _duplicates(deal.deck, "the deck")
            if problem:
                return problem
            dealt = {s: 0 for s in self.order}
            for k in range(n * size):
                dealt[self.order[k % n]] |= 1 << deal.deck[k]
            upcard = deal.deck[n * size]
            stock = list(reversed(deal.deck[n * size + 1:]))
        if deal.hands is not None:
            for seat in self.order:
                cards = deal.hands[seat]
                if len(cards) != size:
                    self.hands = {s: _mask(deal.hands[s]) for s in self.order}
                    return (R.WRONG_HAND_SIZE, f"{self.name(seat)} was dealt "
                            f"{plural(len(cards), 'card')}; the hand size is {size}")
            given = [c for s in self.order for c in deal.hands[s]]
            if deal.upcard is not None:
                given.append(deal.upcard)
            self.hands = {s: _mask(deal.hands[s]) for s in self.order}
            problem = _duplicates(given, "the hands and upcard")
            if problem:
                return problem
            if deal.deck is not None:
                for seat in self.order:
                    if self.hands[seat] != dealt[seat]:
                        return (R.DEAL_MISMATCH, f"{self.name(seat)}'s hand is not the "
                                f"cards the deck deals them: {names(_cards(dealt[seat]))}")
                if deal.upcard is not None and deal.upcard != upcard:
                    return (R.DEAL_MISMATCH, f"the upcard {card_name(deal.upcard)} is not "
                            f"the deck's {card_name(upcard)}")
        if deal.deck is not None:
            self.hands = dealt
            self.stock_order = stock
            self.stock_set = _mask(stock)
            self.stock_count = len(stock)
        else:
            upcard = deal.upcard
            seen = 1 << upcard
            for mask in self.hands.values():
                seen |= mask
            self.stock_set = FULL_DECK & ~seen
            self.stock_count = 52 - n * size - 1
        self.pile = [upcard]
        self.upcard = upcard
        return None

    # -- hand values ----------------------------------------------------------------

    def hand_value(self, seat: int) -> int:
        """Card points left in a hand (gin tables count deadwood instead)."""
        return mask_points(self.hands[seat], self.points)

    def hand_values(self) -> dict[str, int]:
        return {self.name(s): self.hand_value(s) for s in self.seats}

    # -- moves ----------------------------------------------------------------------

    def play(self, move: Move) -> Problem:
        handler = self.handlers.get(move.action)
        if handler is None:
            return (R.ACTION_NOT_ALLOWED, f"{move.action!r} is not an action of "
                    f"{self.rules.variant}")
        if self.ended:
            return (R.MOVE_AFTER_DEAL_END, f"{self.name(move.player)} played "
                    f"{move.action} after the deal ended")
        return handler(move)

    def check_turn(self, move: Move) -> Problem:
        if move.player != self.to_move:
            return (R.NOT_YOUR_TURN, f"{self.name(move.player)} played {move.action}, "
                    f"but it is {self.name(self.to_move)}'s turn")
        return None

    def check_drawn(self, move: Move) -> Problem:
        if not self.drew:
            return (R.MUST_DRAW_FIRST, f"{self.name(move.player)} played {move.action} "
                    "before drawing")
        return None

    def check_holds(self, seat: int, mask: int) -> Problem:
        missing = mask & ~self.hands[seat]
        if missing:
            return (R.CARD_NOT_IN_HAND, f"{self.name(seat)} does not hold "
                    f"{names(_cards(missing))}")
        return None

    def take_discard(self, move: Move) -> Problem:
        """Take the top of the discard pile; a named card must be that top."""
        if not self.pile:
            return (R.EMPTY_DISCARD_PILE, f"{self.name(move.player)} drew from an empty "
                    "discard pile")
        top = self.pile[-1]
        if move.card is not None and move.card != top:
            return (R.WRONG_DISCARD_TOP, f"{self.name(move.player)} drew "
                    f"{card_name(move.card)} from the discard pile, whose top is "
                    f"{card_name(top)}")
        self.pile.pop()
        self.hands[move.player] |= 1 << top
        self.taken = top
        self.drew = True
        self.draws += 1
        return None

    def take_stock(self, move: Move) -> Problem:
        """Draw the top of a non-empty stock.  Where its order is unknown the move must
        name the card, and the card must be one that can still be in the stock."""
        player = move.player
        if self.stock_order is not None:
            top = self.stock_order[-1]
            if move.card is not None and move.card != top:
                return (R.STOCK_CARD_MISMATCH, f"{self.name(player)} drew "
                        f"{card_name(move.card)} from the stock, whose top is "
                        f"{card_name(top)}")
            self.stock_order.pop()
        else:
            if move.card is None:
                return (R.STOCK_CARD_REQUIRED, f"{self.name(player)} drew from the stock "
                        "without naming the card, and its order is not known")
            top = move.card
            if not self.stock_set >> top & 1:
                return (R.STOCK_CARD_MISMATCH, f"{self.name(player)} drew {card_name(top)} "
                        "from the stock, but that card is already in play or drawn")
        self.stock_set &= ~(1 << top)
        self.stock_count -= 1
        self.hands[player] |= 1 << top
        self.taken = None
        self.drew = True
        self.draws += 1
        return None

    def discard_card(self, player: int, card: int) -> None:
        self.hands[player] &= ~(1 << card)
        self.pile.append(card)

    def check_taken_discard(self, move: Move) -> Problem:
        if move.card == self.taken and not self.rules.discard_taken_card:
            return (R.DISCARD_OF_TAKEN_CARD, f"{self.name(move.player)} discarded "
                    f"{card_name(move.card)}, the card taken from the discard pile this turn")
        return None


def _duplicates(cards, where: str) -> Problem:
    seen = 0
    for c in cards:
        if seen >> c & 1:
            return (R.DUPLICATE_CARD, f"{card_name(c)} is dealt twice in {where}")
        seen |= 1 << c
    return None

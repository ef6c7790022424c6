"""The Rummy family's turn: draw, meld and lay off as the options allow, discard.

Presets ``rummy``, ``rummy-pagat``, ``rummy-block`` and ``greek``.  Melds lie on the
table, numbered in the order they are laid; anyone may lay off on any of them.
"""

from __future__ import annotations

from . import report as R
from .cards import card_name, names
from .cards import cards_of as _cards
from .cards import mask_of as _mask
from .melds import candidate_melds, layoff_fits, meld_kind
from .model import (
    DISCARD,
    DRAW,
    END,
    LAYOFF,
    MELD,
    RESHUFFLE,
    STOCK,
    Action,
    Deal,
    Move,
    Outcome,
    move_of,
)
from .rules import Rules, StockPolicy
from .table import Problem, Table
from .words import plural

OUT, RUMMY, BLOCKED = Outcome.OUT, Outcome.RUMMY, Outcome.BLOCKED
KEEP_LAST, KEEP_TOP = StockPolicy.KEEP_LAST_DISCARD, StockPolicy.KEEP_TOP


class RummyTable(Table):
    def __init__(self, rules: Rules, player_names: tuple[str, ...], deal: Deal,
                 seats: tuple[int, ...]):
        super().__init__(rules, player_names, deal, seats)
        self.melds: list[list] = []  # [mask, kind] in the order laid
        self.melded: set[int] = set()  # seats that laid a meld this deal
        self.played_before: set[int] = set()  # melded or laid off in an earlier turn
        self.played_now = False
        self.melds_now = 0
        self.reuses = 0
        self.reuse_pending = False  # reshuffle_keep_last_discard: rebuild before next move
        self.handlers = {DRAW: self.draw, MELD: self.meld, LAYOFF: self.layoff,
                         DISCARD: self.discard, RESHUFFLE: self.reshuffle, END: self.end}

    def copy(self) -> RummyTable:
        other = super().copy()
        other.melds = [list(meld) for meld in self.melds]
        other.melded = set(self.melded)
        other.played_before = set(self.played_before)
        return other

    # -- stock reuse ----------------------------------------------------------------

    def reusable(self) -> list[int] | None:
        """The discards a reuse would take into the stock now, or None when no reuse
        is possible (``end_deal``, the reuse limit reached, nothing to rebuild from)."""
        rules = self.rules
        if rules.stock_exhausted == StockPolicy.END_DEAL:
            return None
        if rules.max_stock_reuses is not None and self.reuses >= rules.max_stock_reuses:
            return None
        keep_top = rules.stock_exhausted in (KEEP_TOP, KEEP_LAST)
        cards = self.pile[:-1] if keep_top else self.pile
        return cards or None

    def rebuild(self, order: tuple[int, ...] | None) -> None:
        """Form the new stock from the discards.  ``turn_over`` flips the pile as one
        block, so the oldest discard becomes the top; a shuffle leaves the order unknown
        unless the log gives it (``order[0]`` drawn first)."""
        policy = self.rules.stock_exhausted
        keep_top = policy in (KEEP_TOP, KEEP_LAST)
        cards = self.pile[:-1] if keep_top else self.pile
        self.pile = self.pile[-1:] if keep_top else []
        self.stock_set = _mask(cards)
        self.stock_count = len(cards)
        if policy == StockPolicy.TURN_OVER:
            self.stock_order = list(reversed(cards))
        elif order is not None:
            self.stock_order = list(reversed(order))
        else:
            self.stock_order = None
        self.reuses += 1
        self.reuse_pending = False

    def settle_pending(self) -> None:
        if self.reuse_pending:
            self.reuse_pending = False
            if self.reusable():
                self.rebuild(None)

    def reuse_due(self) -> bool:
        """A reuse may happen now: the stock is empty and the pile can rebuild it; for
        the keep-last-discard policy only right after the discard that emptied it."""
        if self.rules.stock_exhausted == KEEP_LAST:
            return self.reuse_pending and self.reusable() is not None
        return (self.stock_count == 0 and not self.drew and self.reusable() is not None)

    # -- legal moves ----------------------------------------------------------------

    def legal_moves(self, only: Action | None = None) -> list[Move]:
        """The moves of the turn (see ``Table.legal_moves``):

        * before drawing: the stock (rebuilt from the discards first when it is empty
          and the policy reuses them), the discard pile, a recorded reshuffle when a
          reuse is due (by any seated player), and ``end`` when the stock is empty for good (a blocked deal);
        * after drawing: every meld of the hand (while ``melds_per_turn`` allows one),
          every layoff of a card onto a meld on the table that it extends (after the
          player's own first meld under ``layoff_requires_own_meld``), every discard;
          under ``discard_to_go_out`` no meld or layoff of the last cards.
        """
        if self.ended:
            return []
        player = self.to_move
        if self.drew:
            return [*(self._melds_now(player) if only in (None, MELD) else ()),
                    *(self._layoffs_now(player) if only in (None, LAYOFF) else ()),
                    *(self.discards(player) if only in (None, DISCARD) else ())]
        if only is not None:
            return [move for move in self.legal_moves() if move.action == only]
        moves = []
        if self.reuse_due():  # recorded by any seated player, the one to move first
            turn = self.turn
            moves = [move_of(seat, RESHUFFLE) for seat in self.order[turn:] + self.order[:turn]]
        settled = self  # as a draw or an end finds it: a pending reuse done
        if self.reuse_pending or not self.stock_count:  # only then may it change
            settled = self.copy()
            settled.settle_pending()
        moves.extend(settled.discard_draws(player))
        if not settled.stock_count and not settled.reusable():
            moves.append(move_of(player, END))
        if not settled.stock_count and settled.reusable() \
                and self.rules.stock_exhausted != KEEP_LAST:
            settled.rebuild(None)  # a draw from the empty stock rebuilds it first
        moves.extend(settled.stock_draws(player))
        return moves

    def _melds_now(self, player: int) -> list[Move]:
        limit = self.rules.melds_per_turn
        if limit is not None and self.melds_now >= limit:
            return []
        hand = self.hands[player]
        last = hand if self.rules.discard_to_go_out else None
        return [Move(player, MELD, cards=tuple(_cards(mask)))
                for mask in candidate_melds(hand, self.rules.ace) if mask != last]

    def _layoffs_now(self, player: int) -> list[Move]:
        if self.rules.layoff_requires_own_meld and player not in self.melded:
            return []
        hand = self.hands[player]
        if self.rules.discard_to_go_out and hand.bit_count() == 1:
            return []
        return self.layoffs(player, hand, self.melds)

    # -- moves ----------------------------------------------------------------------

    def play(self, move: Move) -> Problem:
        """Draws and discards that are plainly legal are applied here in a few steps;
        every other move, and any draw or discard that fails a check, goes through its
        handler, which repeats the checks in RULES.md order and names the violation."""
        player = move.player
        if self.ended or self.reuse_pending or player != self.order[self.turn]:
            return super().play(move)
        action = move.action
        if action == DRAW:
            if self.drew:
                return super().play(move)
            return self._fast_draw(move, player)
        if action == DISCARD and self.drew:
            return self._fast_discard(move, player)
        if action == MELD:
            return self.meld(move)
        if action == LAYOFF:
            return self.layoff(move)
        return super().play(move)

    def _fast_draw(self, move: Move, player: int) -> Problem:
        card = move.card
        if move.source == STOCK:
            if not self.stock_count:
                return self.draw(move)
            order = self.stock_order
            if order is not None:
                top = order[-1]
                if card is not None and card != top:
                    return self.draw(move)
                order.pop()
            else:
                top = card
                if top is None or not self.stock_set >> top & 1:
                    return self.draw(move)
            self.stock_set &= ~(1 << top)
            self.stock_count -= 1
            self.taken = None
        else:
            pile = self.pile
            if not pile or (card is not None and card != pile[-1]):
                return self.draw(move)
            top = pile.pop()
            self.taken = top
        self.hands[player] |= 1 << top
        self.drew = True
        self.draws += 1
        return None

    def _fast_discard(self, move: Move, player: int) -> Problem:
        card = move.card
        hand = self.hands[player]
        if not hand >> card & 1 or (card == self.taken and not self.rules.discard_taken_card):
            return self.discard(move)
        hand ^= 1 << card
        self.hands[player] = hand
        self.pile.append(card)
        if not hand:
            self._went_out(player)
            return None
        if self.played_now:
            self.played_before.add(player)
            self.played_now = False
        self.melds_now = 0
        if not self.stock_count and self.rules.stock_exhausted == KEEP_LAST:
            self.reuse_pending = True
        self.turn = (self.turn + 1) % len(self.order)
        self.drew = False
        self.taken = None
        return None

    # -- actions --------------------------------------------------------------------

    def reshuffle(self, move: Move) -> Problem:
        if not self.reuse_due():
            self.settle_pending()
            return (R.RESHUFFLE_NOT_ALLOWED, f"{self.name(move.player)} recorded a reshuffle, "
                    "but no reuse of the discard pile is due now")
        cards = self.reusable() or []
        if move.stock is not None:
            if sorted(move.stock) != sorted(cards):
                return (R.RESHUFFLE_MISMATCH, "the reshuffled stock "
                        f"{names(move.stock)} is not the discards being reused "
                        f"{names(sorted(cards))}")
            if self.rules.stock_exhausted == StockPolicy.TURN_OVER and list(move.stock) != cards:
                return (R.RESHUFFLE_MISMATCH, "the turned-over stock must be the pile flipped "
                        f"as one block: {names(cards)}, oldest discard on top")
        self.rebuild(move.stock)
        return None

    def draw(self, move: Move) -> Problem:
        self.settle_pending()
        problem = self.check_turn(move)
        if problem:
            return problem
        if self.drew:
            return (R.ALREADY_DREW, f"{self.name(move.player)} drew a second time this turn")
        if move.source != STOCK:
            return self.take_discard(move)
        if self.stock_count == 0:
            if self.rules.stock_exhausted == KEEP_LAST or not self.reusable():
                return (R.EMPTY_STOCK, f"{self.name(move.player)} drew from the empty stock, "
                        "which cannot be rebuilt")
            self.rebuild(None)
        return self.take_stock(move)

    def _before_play(self, move: Move, mask: int) -> Problem:
        self.settle_pending()
        return (self.check_turn(move) or self.check_drawn(move)
                or self.check_holds(move.player, mask))

    def meld(self, move: Move) -> Problem:
        mask = _mask(move.cards or ())
        problem = self._before_play(move, mask)
        if problem:
            return problem
        player = move.player
        kind = meld_kind(mask, self.rules.ace) if len(move.cards) == mask.bit_count() else None
        if kind is None:
            return (R.INVALID_MELD, f"{names(move.cards)} is neither a group nor a run "
                    f"(ace {self.rules.ace.replace('_', ' ')})")
        limit = self.rules.melds_per_turn
        if limit is not None and self.melds_now >= limit:
            return (R.TOO_MANY_MELDS, f"{self.name(player)} laid a second meld this turn; "
                    f"the rules allow {limit} per turn")
        if self.rules.discard_to_go_out and self.hands[player] == mask:
            return (R.MUST_DISCARD_TO_GO_OUT, f"{self.name(player)} melded their last cards; "
                    "going out needs a final discard")
        self.hands[player] &= ~mask
        self.melds.append([mask, kind])
        self.melded.add(player)
        self.melds_now += 1
        self.played_now = True
        self._went_out(player)
        return None

    def layoff(self, move: Move) -> Problem:
        card = move.card
        problem = self._before_play(move, 1 << card)
        if problem:
            return problem
        player = move.player
        if move.meld >= len(self.melds):
            on_table = len(self.melds)
            return (R.NO_SUCH_MELD, f"{self.name(player)} laid {card_name(card)} off on meld "
                    f"{move.meld}; {plural(on_table, 'meld')} "
                    f"{'is' if on_table == 1 else 'are'} on the table")
        if self.rules.layoff_requires_own_meld and player not in self.melded:
            return (R.LAYOFF_BEFORE_OWN_MELD, f"{self.name(player)} laid off "
                    f"{card_name(card)} before laying a meld of their own")
        target = self.melds[move.meld]
        if not layoff_fits(target[0], target[1], card, self.rules.ace):
            return (R.LAYOFF_DOES_NOT_FIT, f"{card_name(card)} does not extend meld "
                    f"{move.meld} ({names(_cards(target[0]))})")
        if self.rules.discard_to_go_out and self.hands[player] == 1 << card:
            return (R.MUST_DISCARD_TO_GO_OUT, f"{self.name(player)} laid off their last card; "
                    "going out needs a final discard")
        self.hands[player] &= ~(1 << card)
        target[0] |= 1 << card
        self.played_now = True
        self._went_out(player)
        return None

    def discard(self, move: Move) -> Problem:
        problem = self._before_play(move, 1 << move.card)
        if problem:
            return problem
        problem = self.check_taken_discard(move)
        if problem:
            return problem
        player = move.player
        self.discard_card(player, move.card)
        if self._went_out(player):
            return None
        if self.played_now:
            self.played_before.add(player)
        self.played_now = False
        self.melds_now = 0
        if self.stock_count == 0 and self.rules.stock_exhausted == KEEP_LAST:
            self.reuse_pending = True
        self.next_turn()
        return None

    def end(self, move: Move) -> Problem:
        self.settle_pending()
        problem = self.check_turn(move)
        if problem:
            return problem
        if self.drew or self.stock_count or self.reusable():
            why = ("after drawing" if self.drew else "while the stock has cards"
                   if self.stock_count else "while the discard pile can rebuild the stock")
            return (R.END_NOT_ALLOWED, f"{self.name(move.player)} ended the deal {why}; "
                    "a deal ends so only when the stock is empty and cannot be rebuilt")
        self.ended = True
        self.outcome = BLOCKED
        return None

    def _went_out(self, player: int) -> bool:
        """Going out ends the deal at once; going rummy is going out having melded or
        laid off nothing in an earlier turn of the deal."""
        if self.hands[player]:
            return False
        self.ended = True
        self.winner = player
        self.outcome = RUMMY if player not in self.played_before else OUT
        return True

"""Gin Rummy (001): draw and discard, melds kept in hand, knock or gin to end.

After a knock or gin only the defender acts: layoffs onto the knocker's declared melds
(not after gin) and at most one ``show`` of their own melds.  The deal is scored when
its moves end.
"""

from __future__ import annotations

from enum import StrEnum

from . import report as R
from .cards import ACE, SPADES, card_name, names, rank_of, suit_of
from .cards import cards_of as _cards
from .cards import mask_of as _mask
from .melds import best_arrangement, deadwood, discard_deadwoods, layoff_fits, meld_kind
from .model import (
    DISCARD,
    DRAW,
    GIN,
    KNOCK,
    LAYOFF,
    PASS,
    SHOW,
    STOCK,
    Action,
    Deal,
    Move,
    Outcome,
    move_of,
)
from .rules import Rules
from .scoring import gin_points
from .table import Problem, Table
from .words import plural


class GinPhase(StrEnum):
    """Where a gin deal stands."""

    UPCARD = "upcard"  # the first upcard offered (``upcard_pass``)
    PLAY = "play"  # draw and discard
    AFTER_KNOCK = "after_knock"  # the defender lays off and shows


VOID = Outcome.VOID
UPCARD, PLAY, AFTER_KNOCK = GinPhase.UPCARD, GinPhase.PLAY, GinPhase.AFTER_KNOCK


def knock_limit(rules: Rules, upcard: int | None) -> int:
    """Oklahoma: the first upcard's value sets the limit, an ace means gin only."""
    if not rules.oklahoma or upcard is None:
        return rules.knock_limit
    rank = rank_of(upcard)
    if rank == ACE:
        return 0
    return min(10, rank + 1)


def doubled(rules: Rules, upcard: int | None) -> bool:
    """Oklahoma: a spade as the first upcard doubles the deal."""
    return rules.oklahoma and upcard is not None and suit_of(upcard) == SPADES


class GinTable(Table):
    def __init__(self, rules: Rules, player_names: tuple[str, ...], deal: Deal,
                 seats: tuple[int, ...]):
        super().__init__(rules, player_names, deal, seats)
        self.phase = UPCARD if rules.upcard_pass else PLAY
        self.refusals = 0
        self.at_floor = False  # this turn began with the stock at the floor
        self.knocker: int | None = None
        self.knock_melds: list[list] = []  # [mask, kind] as declared
        self.declared = False
        self.is_gin = False
        self.big_gin = False
        self.knocker_deadwood = 0
        self.laid_off = 0  # cards the defender laid off
        self.shown: tuple[int, ...] | None = None  # the defender's shown melds
        self.handlers = {DRAW: self.draw, PASS: self.pass_, DISCARD: self.discard,
                         KNOCK: self.knock, GIN: self.gin, LAYOFF: self.layoff,
                         SHOW: self.show}

    def copy(self) -> GinTable:
        other = super().copy()
        other.knock_melds = [list(meld) for meld in self.knock_melds]
        return other

    def deal_cards(self, deal: Deal) -> Problem:
        problem = super().deal_cards(deal)
        self.at_floor = self.stock_count <= self.rules.stock_floor
        return problem

    # -- the oklahoma upcard ----------------------------------------------------------

    @property
    def knock_limit(self) -> int:
        return knock_limit(self.rules, self.upcard)

    @property
    def doubled(self) -> bool:
        return doubled(self.rules, self.upcard)

    @property
    def defender(self) -> int:
        return self.order[0] if self.knocker == self.order[1] else self.order[1]

    # -- hand values ------------------------------------------------------------------

    def best(self, mask: int) -> tuple[int, tuple[int, ...]]:
        return best_arrangement(mask, self.rules.ace, self.points)

    def hand_value(self, seat: int) -> int:
        """Deadwood: the knocker's as counted, the defender's after layoffs and show,
        anyone else's on the best arrangement."""
        if self.knocker is not None:
            if seat == self.knocker:
                return self.knocker_deadwood
            rest = self.hands[seat] & ~self.laid_off
            if self.shown is not None:
                return deadwood(rest, self.shown, self.points)
            return self.best(rest)[0]
        return self.best(self.hands[seat])[0]

    # -- turns ------------------------------------------------------------------------

    def next_turn(self) -> None:
        super().next_turn()
        self.at_floor = self.stock_count <= self.rules.stock_floor

    def _after_knock(self, move: Move) -> Problem:
        if self.phase != AFTER_KNOCK:
            return None
        if move.action == SHOW and move.player == self.knocker:
            return (R.ACTION_NOT_ALLOWED, f"{self.name(move.player)} knocked; only the "
                    "defender shows melds")
        if move.player != self.defender or move.action not in (LAYOFF, SHOW):
            return (R.MOVE_AFTER_DEAL_END, f"{self.name(move.player)} played {move.action} "
                    "after the knock; only the defender's layoffs and show may follow")
        return None

    def pass_(self, move: Move) -> Problem:
        problem = self._after_knock(move) or self.check_turn(move)
        if problem:
            return problem
        if self.phase == UPCARD and self.refusals < 2:
            self.refusals += 1
            self.next_turn()
            if self.refusals == 2:
                self.turn = 0
            return None
        if self.at_floor and not self.drew:
            self.ended = True
            self.outcome = VOID
            return None
        return (R.ACTION_NOT_ALLOWED, f"{self.name(move.player)} passed; a pass is allowed "
                "only on the first upcard or at the stock floor")

    def draw(self, move: Move) -> Problem:
        problem = self._after_knock(move) or self.check_turn(move)
        if problem:
            return problem
        if self.drew:
            return (R.ALREADY_DREW, f"{self.name(move.player)} drew a second time this turn")
        if self.phase == UPCARD:
            if move.source == STOCK and self.refusals < 2:
                return (R.UPCARD_NOT_REFUSED, f"{self.name(move.player)} drew from the stock "
                        "before both players refused the upcard")
            if move.source != STOCK and self.refusals == 2:
                return (R.ACTION_NOT_ALLOWED, f"{self.name(move.player)} took the upcard "
                        "both players refused")
            self.phase = PLAY
        if move.source != STOCK:
            return self.take_discard(move)
        if self.at_floor:
            return (R.STOCK_FLOOR, f"{self.name(move.player)} drew from the stock at the "
                    f"floor of {plural(self.rules.stock_floor, 'card')}")
        return self.take_stock(move)

    def _floor_problem(self, move: Move) -> Problem:
        if self.at_floor:
            return (R.STOCK_FLOOR, f"{self.name(move.player)} took the discard at the stock "
                    "floor and did not knock or go gin at once")
        return None

    def discard(self, move: Move) -> Problem:
        problem = (self._after_knock(move) or self.check_turn(move) or self.check_drawn(move)
                   or self.check_holds(move.player, 1 << move.card)
                   or self._floor_problem(move) or self.check_taken_discard(move))
        if problem:
            return problem
        self.discard_card(move.player, move.card)
        self.next_turn()
        return None

    def _declare(self, move: Move, hand: int) -> tuple[Problem, list[list] | None, int]:
        """Check declared melds (own cards, valid, disjoint) and count the deadwood;
        without ``melds`` the best arrangement counts."""
        if move.melds is None:
            dw, melds = self.best(hand)
            return None, [[m, meld_kind(m, self.rules.ace)] for m in melds], dw
        masks = [_mask(m) for m in move.melds]
        union = 0
        for cards, mask in zip(move.melds, masks, strict=True):
            if mask & ~hand:
                return (R.CARD_NOT_IN_HAND, f"{self.name(move.player)} declared "
                        f"{names(_cards(mask & ~hand))} in a meld without holding them"), None, 0
            kind = meld_kind(mask, self.rules.ace) if len(cards) == mask.bit_count() else None
            if kind is None:
                return (R.INVALID_MELD, f"{names(cards)} is neither a group nor a run"), None, 0
            if union & mask:
                return (R.INVALID_MELD, f"declared melds overlap on "
                        f"{names(_cards(union & mask))}"), None, 0
            union |= mask
        dw = deadwood(hand, masks, self.points)
        best = self.best(hand)[0]
        if dw > best:
            self.warnings.append((R.SUBOPTIMAL_DECLARATION,
                                  f"{self.name(move.player)} declared melds leaving {dw} "
                                  f"deadwood; the best arrangement leaves {best}"))
        return None, [[m, meld_kind(m, self.rules.ace)] for m in masks], dw

    def knock(self, move: Move) -> Problem:
        return self._end_turn(move, gin=False)

    def gin(self, move: Move) -> Problem:
        return self._end_turn(move, gin=True)

    def _end_turn(self, move: Move, gin: bool) -> Problem:
        player = move.player
        card = move.card
        discard_mask = 0 if card is None else 1 << card
        problem = (self._after_knock(move) or self.check_turn(move) or self.check_drawn(move)
                   or self.check_holds(player, discard_mask))
        if problem:
            return problem
        if card is None and self.rules.big_gin_bonus is None:
            return (R.ACTION_NOT_ALLOWED, f"{self.name(player)} went gin without discarding; "
                    "big gin is not allowed in this game")
        if card is not None:
            problem = self.check_taken_discard(move)
            if problem:
                return problem
        hand = self.hands[player] & ~discard_mask
        problem, melds, dw = self._declare(move, hand)
        if problem:
            return problem
        if gin and dw > 0:
            return (R.GIN_WITH_DEADWOOD, f"{self.name(player)} went gin with {dw} deadwood")
        if dw > self.knock_limit:
            return (R.KNOCK_OVER_LIMIT, f"{self.name(player)} knocked with {dw} deadwood; "
                    f"the limit is {self.knock_limit}")
        if card is not None:
            self.discard_card(player, card)
        self.knocker = player
        self.knock_melds = melds
        self.declared = move.melds is not None
        self.knocker_deadwood = dw
        self.is_gin = dw == 0
        self.big_gin = card is None
        self.phase = AFTER_KNOCK
        return None

    def layoff(self, move: Move) -> Problem:
        if self.phase != AFTER_KNOCK:
            return (R.ACTION_NOT_ALLOWED, f"{self.name(move.player)} laid off before anyone "
                    "knocked; in gin layoffs only follow a knock")
        problem = self._after_knock(move)
        if problem:
            return problem
        card = move.card
        player = move.player
        free = self.hands[player] & ~self.laid_off & ~self._shown_mask()
        if not free >> card & 1:
            return (R.CARD_NOT_IN_HAND, f"{self.name(player)} does not hold {card_name(card)} "
                    "to lay off")
        if self.is_gin:
            return (R.LAYOFF_ON_GIN, f"{self.name(player)} laid off {card_name(card)} after "
                    "gin; no layoffs on gin")
        if not self.declared:
            return (R.MELDS_NOT_DECLARED, f"{self.name(player)} laid off {card_name(card)}, "
                    "but the knock declared no melds")
        if move.meld >= len(self.knock_melds):
            return (R.NO_SUCH_MELD, f"{self.name(player)} laid {card_name(card)} off on meld "
                    f"{move.meld}; the knock declared {len(self.knock_melds)}")
        target = self.knock_melds[move.meld]
        if not layoff_fits(target[0], target[1], card, self.rules.ace):
            return (R.LAYOFF_DOES_NOT_FIT, f"{card_name(card)} does not extend the knocker's "
                    f"meld {move.meld} ({names(_cards(target[0]))})")
        target[0] |= 1 << card
        self.laid_off |= 1 << card
        return None

    def show(self, move: Move) -> Problem:
        if self.phase != AFTER_KNOCK:
            return (R.ACTION_NOT_ALLOWED, f"{self.name(move.player)} showed melds before "
                    "anyone knocked")
        problem = self._after_knock(move)
        if problem:
            return problem
        if self.shown is not None:
            return (R.ACTION_NOT_ALLOWED, f"{self.name(move.player)} showed melds twice")
        free = self.hands[move.player] & ~self.laid_off
        problem, melds, _ = self._declare(move, free)
        if problem:
            return problem
        self.shown = tuple(m[0] for m in melds)
        return None

    def _shown_mask(self) -> int:
        mask = 0
        for m in self.shown or ():
            mask |= m
        return mask

    # -- legal moves --------------------------------------------------------------------

    def legal_moves(self, only: Action | None = None) -> list[Move]:
        """The moves of the phase (see ``Table.legal_moves``):

        * first upcard (``upcard_pass``): take it or pass; after two refusals the first
          player draws from the stock, the refused upcard staying where it is;
        * before drawing: the stock (not at its floor), the discard pile, and at the
          floor a pass, which voids the deal;
        * after drawing: a discard (never at the floor), a knock with each discard that
          leaves deadwood within the limit, gin where it leaves none (a knock without
          deadwood is gin, listed as gin), big gin without a discard where allowed;
        * after a knock: the defender's layoffs onto the declared melds (none after gin
          or an undeclared knock) and one show of their own melds.
        """
        if self.ended:
            return []
        if only is not None and (only not in (DISCARD, KNOCK, GIN) or not self.drew
                                 or self.phase == AFTER_KNOCK):
            return [move for move in self.legal_moves() if move.action == only]
        if self.phase == AFTER_KNOCK:
            return self._defender_moves()
        player = self.to_move
        if not self.drew:
            if self.phase == UPCARD and self.refusals < 2:
                return [*self.discard_draws(player), move_of(player, PASS)]
            # The upcard both players refused is not taken later.
            moves = [] if self.phase == UPCARD else self.discard_draws(player)
            if self.at_floor:
                moves.append(move_of(player, PASS))
            else:
                moves.extend(self.stock_draws(player))
            return moves
        moves = [] if self.at_floor or only not in (None, DISCARD) else self.discards(player)
        if only == DISCARD:
            return moves
        hand = self.hands[player]
        allowed = set(self.discardable(player))
        limit = self.knock_limit
        for card, dw in discard_deadwoods(hand, self.rules.ace, self.points):
            if dw <= limit and card in allowed:
                melds = self.best(hand & ~(1 << card))[1]
                action = GIN if dw == 0 else KNOCK
                if only in (None, action):
                    moves.append(Move(player, action, card=card, melds=_declared(melds)))
        if self.rules.big_gin_bonus is not None and only in (None, GIN):
            dw, melds = self.best(hand)
            if dw == 0:
                moves.append(Move(player, GIN, melds=_declared(melds)))
        return moves

    def _defender_moves(self) -> list[Move]:
        defender = self.defender
        free = self.hands[defender] & ~self.laid_off
        moves = []
        if not self.is_gin and self.declared:
            moves = self.layoffs(defender, free & ~self._shown_mask(), self.knock_melds)
        if self.shown is None:
            moves.append(Move(defender, SHOW, melds=_declared(self.best(free)[1])))
        return moves

    # -- scoring ----------------------------------------------------------------------

    def score(self, values: dict[int, int] | None = None
              ) -> tuple[str, int | None, dict[int, int]]:
        """Outcome, winner and points once the log's deal has ended; ``values`` may give
        the hand values already counted."""
        if self.outcome == VOID:
            return VOID, None, dict.fromkeys(self.order, 0)
        assert self.knocker is not None
        defender = self.defender
        counted = values[defender] if values is not None else self.hand_value(defender)
        return gin_points(self.rules, self.knocker, defender, self.knocker_deadwood,
                          counted, self.is_gin, self.big_gin, self.doubled)


def _declared(melds: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Melds as a move declares them: each meld's cards in ascending order."""
    return tuple(tuple(_cards(mask)) for mask in melds)

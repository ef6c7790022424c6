"""The gin bot: take the discard when it lowers the deadwood, knock at the limit, lay
off and show as defender."""

from __future__ import annotations

from ..engine.cards import card_name, cards_of
from ..engine.gin import UPCARD, GinTable
from ..engine.melds import (
    discard_deadwoods,
)
from ..engine.model import (
    DISCARD,
    GIN,
    KNOCK,
    LAYOFF,
    PASS,
    SHOW,
    Deal,
    Move,
    move_of,
)
from .deal import DealWriter, union


class GinDeal(DealWriter):
    """A gin deal: draw and discard until a knock, gin, or a pass at the floor."""

    table: GinTable

    def make_table(self, model: Deal) -> GinTable:
        return GinTable(self.rules, self.names, model, self.seats)

    def play(self) -> None:
        self.last_discard: tuple[int, int, tuple[int, int]] | None = None
        # Some players keep playing for gin instead of knocking at once.
        self.hunter = {s: self.rng.random() < 0.25 for s in self.seats}
        table = self.table
        while not table.ended and table.knocker is None:
            self.turn()
        if table.knocker is not None:
            self.defend()

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        return self.table.score()

    def best_discard(self, hand: int, taken: int | None) -> tuple[int, int]:
        """The least deadwood after a discard, and that discard (among equals the most
        points, then the highest card); the card taken from the pile stays unless the
        rules allow otherwise (``melds.discard_deadwoods``)."""
        keep = taken if taken is not None and not self.rules.discard_taken_card else -1
        last = self.last_discard
        if last is not None and last[0] == hand and last[1] == keep:
            return last[2]
        points = self.points
        best_dw = best_points = best_card = -1
        for card, dw in discard_deadwoods(hand, self.ace, points):
            if card == keep:
                continue
            value = points[card]
            if best_card < 0 or dw < best_dw or (dw == best_dw and value >= best_points):
                best_dw, best_points, best_card = dw, value, card
        assert best_card >= 0
        result = best_dw, best_card
        self.last_discard = (hand, keep, result)
        return result

    def takes(self, seat: int, card: int, must_knock: bool) -> bool:
        """Take the discard when it lowers the best deadwood (at the floor: only when it
        lets the player knock at once)."""
        table = self.table
        hand = table.hands[seat]
        after, _ = self.best_discard(hand | 1 << card, card)
        if must_knock:
            return after <= table.knock_limit
        return after < self.deadwood(hand)

    def turn(self) -> None:
        table = self.table
        seat = table.to_move
        top = table.pile[-1] if table.pile else None
        if table.phase == UPCARD and table.refusals < 2:
            if top is not None and self.takes(seat, top, table.at_floor):
                self.draw_discard(seat)
            else:
                self.do(move_of(seat, PASS), self.entry(seat, PASS))
                return
        elif table.at_floor:
            if (table.phase != UPCARD and top is not None
                    and self.takes(seat, top, must_knock=True)):
                self.draw_discard(seat)
            else:
                self.do(move_of(seat, PASS), self.entry(seat, PASS))  # a void deal
                return
        elif table.phase != UPCARD and top is not None and self.takes(seat, top, False):
            self.draw_discard(seat)
        else:
            self.draw_stock(seat)
        self.after_draw(seat)

    def after_draw(self, seat: int) -> None:
        table = self.table
        rules = self.rules
        hand = table.hands[seat]
        if rules.big_gin_bonus is not None and self.deadwood(hand) == 0:
            self.end_turn(seat, GIN, None, hand)
            return
        dw, card = self.best_discard(hand, table.taken)
        rest = hand & ~(1 << card)
        if dw == 0:
            self.end_turn(seat, KNOCK if self.rng.random() < 0.15 else GIN, card, rest)
        elif dw <= table.knock_limit and (
                table.at_floor or not self.hunter[seat]
                or table.stock_count <= rules.stock_floor + 4):
            self.end_turn(seat, KNOCK, card, rest)
        else:
            assert not table.at_floor, "took the discard at the floor without knocking"
            self.do(move_of(seat, DISCARD, card=card),
                    self.entry(seat, DISCARD, card=card_name(card)))

    def end_turn(self, seat: int, action: str, card: int | None, rest: int) -> None:
        """Knock or gin, declaring the best melds or leaving them to the engine."""
        entry = self.entry(seat, action)
        if card is not None:
            entry["card"] = card_name(card)
        melds = None
        if self.rng.random() < 0.6:
            melds = tuple(tuple(cards_of(m)) for m in self.best(rest)[1])
            entry["melds"] = [[card_name(c) for c in m] for m in melds]
        self.do(Move(seat, action, card=card, melds=melds), entry)

    def defend(self) -> None:
        """The defender's layoffs onto declared melds (not after gin) and maybe a show,
        before or after them."""
        table = self.table
        seat = table.defender
        show = self.rng.random() < 0.5
        show_first = show and self.rng.random() < 0.3
        if show_first:
            self.show(seat)
        if not table.is_gin and table.declared:
            self.lay_off(seat)
        if show and not show_first:
            self.show(seat)

    def lay_off(self, seat: int) -> None:
        """Lay off, one card at a time, whatever fits and lowers the deadwood (a run
        grows as cards are added to it)."""
        table = self.table
        changed = True
        while changed:
            changed = False
            shown = union(table.shown or ())
            free = table.hands[seat] & ~table.laid_off & ~shown
            base = None if shown or table.shown is not None else self.deadwood(free)
            for card in sorted(cards_of(free), key=lambda c: (-self.points[c], c)):
                bit = 1 << card
                if base is not None and self.deadwood(free & ~bit) >= base:
                    continue
                target = self.fitting_meld(table.knock_melds, card)
                if target is None:
                    continue
                self.do(move_of(seat, LAYOFF, card=card, meld=target),
                        self.entry(seat, LAYOFF, card=card_name(card), meld=target))
                changed = True
                break

    def show(self, seat: int) -> None:
        table = self.table
        free = table.hands[seat] & ~table.laid_off
        entry = self.entry(seat, SHOW)
        melds = None
        if self.rng.random() < 0.8:
            melds = tuple(tuple(cards_of(m)) for m in self.best(free)[1])
            entry["melds"] = [[card_name(c) for c in m] for m in melds]
        self.do(Move(seat, SHOW, melds=melds), entry)

"""The Rummy-family bot: take what melds, lay the best melds, lay off, discard high."""

from __future__ import annotations

from ..engine.cards import CARD_NAMES, SUIT_MASK, card_name, cards_of
from ..engine.melds import (
    meld_kind,
)
from ..engine.model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    END,
    LAYOFF,
    MELD,
    RESHUFFLE,
    Deal,
    Move,
    move_of,
)
from ..engine.rules import StockPolicy
from ..engine.rummy import BLOCKED, RummyTable
from ..engine.rummy import RUMMY as WENT_RUMMY
from ..engine.scoring import rummy_blocked_points, rummy_out_points
from .deal import COLUMN, NEAR, DealWriter, chosen, points_of, unconnected, union

AGGRESSIVE_AFTER = 200  # moves after which nobody holds melds back any more
SOFT_WHILE_PARTNER_HOLDS = 3  # the feeder does not go out while its partner holds more
KEEP_LAST = StockPolicy.KEEP_LAST_DISCARD


class RummyDeal(DealWriter):
    """A Rummy-family deal: draw, meld, lay off, discard until out or blocked."""

    table: RummyTable

    def make_table(self, model: Deal) -> RummyTable:
        return RummyTable(self.rules, self.names, model, self.seats)

    def play(self) -> None:
        rng = self.rng
        self.limit = self.rules.melds_per_turn or 99
        # Some players hold their melds back for a while, hoping to go rummy.
        self.hold_turns = {s: rng.randint(3, 12) if rng.random() < 0.3 else 0
                           for s in self.seats}
        self.turns = dict.fromkeys(self.seats, 0)
        self.blocked_takes = 0
        while not self.table.ended:
            self.turn()

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        table = self.table
        values = {s: table.hand_value(s) for s in table.seats}
        if table.outcome == BLOCKED:
            points, winner = rummy_blocked_points(self.rules, table.seats, values)
            return BLOCKED, winner, points
        assert table.outcome is not None and table.winner is not None
        points = rummy_out_points(self.rules, table.seats, table.winner, values,
                                  table.outcome == WENT_RUMMY)
        return table.outcome, table.winner, points

    # -- stock reuse -------------------------------------------------------------------

    def reuse(self, seat: int) -> None:
        """The stock is rebuilt now from the discards: shuffle them (turn_over: flip the
        pile), and sometimes record it as an explicit ``reshuffle``."""
        table = self.table
        cards = list(table.reusable() or ())
        assert cards
        turn_over = self.rules.stock_exhausted == StockPolicy.TURN_OVER
        order = list(cards)  # drawn first .. drawn last
        if not turn_over:
            self.rng.shuffle(order)
        self.stock = list(reversed(order))
        self.known = turn_over
        if self.rng.random() < 0.4:
            give = self.rng.random() < 0.5
            entry = self.entry(seat, RESHUFFLE)
            if give:
                entry["stock"] = [card_name(c) for c in order]
                self.known = True
            self.do(Move(seat, RESHUFFLE, stock=tuple(order) if give else None), entry)

    # -- a turn ------------------------------------------------------------------------

    def turn(self) -> None:
        table = self.table
        seat = table.to_move
        moves = table.legal_moves()
        keep_last = self.rules.stock_exhausted == KEEP_LAST
        actions = {move.action for move in moves}
        may_reuse = RESHUFFLE in actions  # listed for every seat when a reuse is due
        if keep_last and may_reuse:
            self.reuse(seat)  # right after the discard that emptied the stock
            moves = table.legal_moves()
            actions = {move.action for move in moves}
        top = table.pile[-1] if table.pile else None
        take = move_of(seat, DRAW, DISCARD_PILE, top) if top is not None else None
        want = take in moves and self.wants(seat, top)
        if END in actions:
            # The stock is empty for good: take a useful discard a few times, else end.
            if want and self.blocked_takes < 2 * len(self.seats):
                self.blocked_takes += 1
                self.draw_discard(seat)
            else:
                self.do(Move(seat, END, reason="stock_exhausted"),
                        self.entry(seat, END, reason="stock_exhausted"))
                return
        elif want:
            self.draw_discard(seat)
        else:
            if not keep_last and may_reuse:
                self.reuse(seat)  # the empty stock is rebuilt as it is drawn from
                moves = table.legal_moves()
            self.draw_stock(seat, moves)
        self.turns[seat] += 1
        self.meld_and_lay_off(seat)
        if not table.ended:
            self.discard(seat)

    def wants(self, seat: int, card: int) -> bool:
        """The card makes or extends a meld with the hand, or fits a table meld that the
        player may lay off on."""
        table = self.table
        hand = table.hands[seat]
        rank = card % 13
        if (hand & COLUMN << rank).bit_count() >= 2:
            return True  # a group of three or four
        shift = card - rank
        if self.cover[(hand | 1 << card) >> shift & SUIT_MASK] >> rank & 1:
            return True  # a run of the suit
        if not table.melds:
            return False
        may_lay_off = (not self.rules.layoff_requires_own_meld or seat in table.melded
                       or bool(self.best(hand)[1]))
        return may_lay_off and bool(self.table_fits() >> card & 1)

    def playable(self, rest: int) -> bool:
        """A hand the turn may leave after a meld or layoff: empty only when going out
        needs no discard, else holding a card that may be discarded."""
        if rest == 0:
            return not self.rules.discard_to_go_out
        taken = self.table.taken
        return self.rules.discard_taken_card or taken is None or rest != 1 << taken

    def plan(self, seat: int) -> tuple[list[tuple], int]:
        """The melds and layoffs to play now, and the hand they leave."""
        table = self.table
        hand = table.hands[seat]
        melds: list[list] | None = None  # the table's melds as this plan changes them
        has_melded = seat in table.melded
        actions: list[tuple] = []
        for _ in range(self.limit):
            _, arrangement = self.best(hand)
            if not arrangement:
                break
            options = sorted(arrangement, key=lambda m: (-points_of(m, self.points), m))
            chosen = next((m for m in options if self.playable(hand & ~m)), None)
            if chosen is None:
                break
            actions.append((MELD, chosen))
            hand &= ~chosen
            if melds is None:
                melds = [[mask, kind] for mask, kind in table.melds]
            melds.append([chosen, meld_kind(chosen, self.ace)])
            has_melded = True
            if hand == 0:
                return actions, hand
        if self.rules.layoff_requires_own_meld and not has_melded:
            return actions, hand
        changed = True
        points = self.points
        while changed and hand:
            changed = False
            # Only these cards can be laid off at all.
            fitting = hand & (self.table_fits() if melds is None else self.fits(melds))
            if not fitting:
                break
            base = self.deadwood(hand)
            for card in sorted(cards_of(fitting), key=lambda c: (-points[c], c)):
                bit = 1 << card
                rest = hand & ~bit
                if not self.playable(rest) or (rest and self.deadwood(rest) > base):
                    continue
                if melds is None:
                    melds = [[mask, kind] for mask, kind in table.melds]
                target = self.fitting_meld(melds, card)
                if target is None:
                    continue
                actions.append((LAYOFF, card, target))
                melds[target][0] |= bit
                hand = rest
                changed = True
                break
        return actions, hand

    def meld_and_lay_off(self, seat: int) -> None:
        table = self.table
        actions, rest = self.plan(seat)
        if not actions:
            return
        taken = table.taken
        going_out = rest == 0 or (rest.bit_count() == 1 and (
            self.rules.discard_taken_card or taken is None or rest != 1 << taken))
        if self.holding(seat) and not going_out:
            return
        if going_out and self.soft(seat):
            return
        for action in actions:
            if action[0] == MELD:
                cards = cards_of(action[1])
                chosen(table.legal_moves(MELD), Move(seat, MELD, cards=tuple(cards)))
                self.rng.shuffle(cards)  # runs are sets: any order is fine
                self.do(Move(seat, MELD, cards=tuple(cards)),
                        self.entry(seat, MELD, cards=[card_name(c) for c in cards]))
            else:
                _, card, target = action
                chosen(table.legal_moves(LAYOFF), move_of(seat, LAYOFF, card=card, meld=target))
                self.do(move_of(seat, LAYOFF, card=card, meld=target),
                        self.entry(seat, LAYOFF, card=card_name(card), meld=target))
            if table.ended:
                return

    def soft(self, seat: int) -> bool:
        """The feeder's soft play: it does not go out (or go rummy) while its partner
        holds more than three cards, so that the partner is not caught with a full hand;
        it keeps its cards and discards instead.  Not in a deal that drags on."""
        if self.feeds is None or seat != self.feeds[0] or len(self.moves) > AGGRESSIVE_AFTER:
            return False
        return self.table.hands[self.feeds[1]].bit_count() > SOFT_WHILE_PARTNER_HOLDS

    def holding(self, seat: int) -> bool:
        """Still holding melds back: within the player's patience, the deal young, and
        no opponent close to going out."""
        table = self.table
        if self.turns[seat] > self.hold_turns[seat] or len(self.moves) > AGGRESSIVE_AFTER:
            return False
        if seat in table.played_before:
            return False
        return all(table.hands[s].bit_count() > 3 for s in self.seats if s != seat)

    def discard(self, seat: int) -> None:
        """The highest card outside the hand's melds, preferring loose cards (in a deal
        that drags on, often a random card outside melds instead)."""
        table = self.table
        hand = table.hands[seat]
        in_melds = union(self.best(hand)[1])
        allowed = 0
        for move in table.legal_moves(DISCARD):
            allowed |= 1 << move.card
        assert allowed, "the engine lists no discard"
        if self.feeds is not None and seat == self.feeds[0]:
            fed = self.fed_card(allowed)
            if fed is not None:
                self.do(move_of(seat, DISCARD, card=fed),
                        self.entry(seat, DISCARD, card=CARD_NAMES[fed]))
                return
        # The greatest (outside melds, fits no table meld, not connected, points, card):
        # narrowed one criterion at a time.
        pick = allowed & ~in_melds or allowed
        pick = pick & ~self.table_fits() or pick
        pick = unconnected(pick, hand) or pick
        points = self.points
        card = best_points = -1
        while pick:  # the most points, then the highest card (cards come in ascending order)
            low = pick & -pick
            pick ^= low
            candidate = low.bit_length() - 1
            if points[candidate] >= best_points:
                card, best_points = candidate, points[candidate]
        if len(self.moves) > AGGRESSIVE_AFTER and self.rng.random() < 0.5:
            # A stalemate (everyone keeps low cards and throws back what they draw) is
            # broken by letting kept cards go round.
            options = cards_of(allowed)
            loose = [c for c in options if not in_melds >> c & 1]
            lonely = [c for c in loose if not hand & NEAR[c]]
            card = self.rng.choice(lonely or loose or options)
        self.do(move_of(seat, DISCARD, card=card),
                self.entry(seat, DISCARD, card=CARD_NAMES[card]))

    def fed_card(self, allowed: int) -> int | None:
        """The feeder's discard: of the cards it may discard, one the partner wants (it
        makes or extends a meld of the partner's hand or fits a table meld), the most
        points first, then the highest card; None when the partner wants none."""
        partner = self.feeds[1]
        points = self.points
        wanted = [c for c in cards_of(allowed) if self.wants(partner, c)]
        return max(wanted, key=lambda c: (points[c], c)) if wanted else None

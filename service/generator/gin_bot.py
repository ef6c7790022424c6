"""The gin bot: take the discard when it lowers the deadwood, knock at the limit, lay
off and show as defender.

Players may be given a **skill** (``SKILLS``), for measurements between players of
known strength (``benchmarks/luck_variance.py``); without one a player plays ``greedy``,
the bot above, and the game is the same as before skills existed:

* ``random``: draws from the pile or the stock at random, discards a random legal card,
  and knocks (or goes gin) whenever the best discard allows it;
* ``greedy``: the bot above: the discard that leaves the least deadwood;
* ``careful``: takes the discard as ``greedy`` does and knocks as soon as it may, but
  discards the card whose hand kept has the least deadwood expected after its next stock
  draw (every card it has not seen counted: its outs), with a penalty for a card near
  one the opponent took from the pile (likely to feed them).
"""

from __future__ import annotations

from ..engine.cards import FULL_DECK, card_name, cards_of
from ..engine.gin import GinTable
from ..engine.melds import (
    discard_deadwoods,
)
from ..engine.model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    GIN,
    KNOCK,
    LAYOFF,
    PASS,
    SHOW,
    Deal,
    Move,
    move_of,
)
from .deal import NEAR, DealWriter, chosen, declared, listed, union

RANDOM, GREEDY, CAREFUL = "random", "greedy", "careful"
SKILLS = (RANDOM, GREEDY, CAREFUL)
FEED_PENALTY = 4.0  # careful: expected deadwood points a discard near a card the opponent took costs


def discarded(moves: list[Move]) -> int:
    """The cards that the listed moves discard (plainly, knocking or going gin)."""
    out = 0
    for move in moves:
        if move.card is not None and move.action in (DISCARD, KNOCK, GIN):
            out |= 1 << move.card
    return out


class GinDeal(DealWriter):
    """A gin deal: draw and discard until a knock, gin, or a pass at the floor."""

    table: GinTable

    def make_table(self, model: Deal) -> GinTable:
        return GinTable(self.rules, self.names, model, self.seats)

    def play(self) -> None:
        self.last_discard: tuple[int, int, tuple[int, int]] | None = None
        skills = self.game.skills
        self.skill = {s: skills.get(s, GREEDY) for s in self.seats}
        self.took = dict.fromkeys(self.seats, 0)  # cards each took from the pile
        # Some players keep playing for gin instead of knocking at once.
        self.hunter = {s: self.rng.random() < 0.25 for s in self.seats}
        table = self.table
        while not table.ended and table.knocker is None:
            self.turn()
        if table.knocker is not None:
            self.defend()

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        return self.table.score()

    def best_discard(self, hand: int, offered: int) -> tuple[int, int]:
        """Among the cards of ``offered`` (a mask), the least deadwood a discard leaves,
        and that discard (among equals the most points, then the highest card)."""
        last = self.last_discard
        if last is not None and last[0] == hand and last[1] == offered:
            return last[2]
        points = self.points
        best_dw = best_points = best_card = -1
        for card, dw in discard_deadwoods(hand, self.ace, points):
            if not offered >> card & 1:
                continue
            value = points[card]
            if best_card < 0 or dw < best_dw or (dw == best_dw and value >= best_points):
                best_dw, best_points, best_card = dw, value, card
        assert best_card >= 0, "the engine lists no discard"
        result = best_dw, best_card
        self.last_discard = (hand, offered, result)
        return result

    def takes(self, seat: int, card: int, must_knock: bool) -> bool:
        """Take the discard when it lowers the best deadwood (at the floor: only when it
        lets the player knock at once)."""
        table = self.table
        hand = table.hands[seat]
        after, _ = self.after_taking(hand | 1 << card, card)
        if must_knock:
            return after <= table.knock_limit
        return after < self.deadwood(hand)

    def after_taking(self, hand: int, taken: int) -> tuple[int, int]:
        """The least deadwood after discarding from ``hand`` once ``taken`` is drawn
        from the pile (which stays unless the rules allow otherwise), and that discard:
        a look ahead, before the engine lists the moves of that position."""
        keep = 0 if self.rules.discard_taken_card else 1 << taken
        return self.best_discard(hand, hand & ~keep)

    def turn(self) -> None:
        table = self.table
        seat = table.to_move
        if table.at_floor and self.feeds is not None and seat == self.feeds[0]:
            self.do(move_of(seat, PASS), self.entry(seat, PASS))  # taking would mean knocking
            return
        moves = table.legal_moves()
        take = listed(moves, DRAW, source=DISCARD_PILE)
        if take is not None and self.skill[seat] == RANDOM and not table.at_floor:
            wants = self.rng.random() < 0.5
        else:
            wants = take is not None and self.takes(seat, take.card, must_knock=table.at_floor)
        if wants:
            self.took[seat] |= 1 << self.draw_discard(seat)
        elif listed(moves, PASS) is not None:
            # The upcard refused, or nothing worth a knock at the floor: a void deal.
            self.do(move_of(seat, PASS), self.entry(seat, PASS))
            return
        else:
            self.draw_stock(seat, moves)
        self.after_draw(seat)

    def after_draw(self, seat: int) -> None:
        table = self.table
        rules = self.rules
        hand = table.hands[seat]
        moves = table.legal_moves()
        if self.feeds is not None and seat == self.feeds[0]:
            card = self.fed_card(seat, moves)  # the feeder never knocks against the partner
            chosen(moves, move_of(seat, DISCARD, card=card))
            self.do(move_of(seat, DISCARD, card=card),
                    self.entry(seat, DISCARD, card=card_name(card)))
            return
        if listed(moves, GIN, card=None) is not None:  # big gin
            self.end_turn(seat, GIN, None, hand)
            return
        skill = self.skill[seat]
        dw, card = self.best_discard(hand, discarded(moves))
        if skill != GREEDY and dw > table.knock_limit:
            card = self.random_discard(moves) if skill == RANDOM else \
                self.careful_discard(seat, discarded(moves))
            chosen(moves, move_of(seat, DISCARD, card=card))
            self.do(move_of(seat, DISCARD, card=card),
                    self.entry(seat, DISCARD, card=card_name(card)))
            return
        rest = hand & ~(1 << card)
        if dw == 0:
            # The listed gin, written as a knock without deadwood at times.
            chosen(moves, Move(seat, GIN, card=card, melds=declared(self.best(rest)[1])))
            self.end_turn(seat, KNOCK if self.rng.random() < 0.15 else GIN, card, rest)
        elif dw <= table.knock_limit and (
                table.at_floor or not self.hunter[seat] or skill != GREEDY
                or table.stock_count <= rules.stock_floor + 4):
            chosen(moves, Move(seat, KNOCK, card=card, melds=declared(self.best(rest)[1])))
            self.end_turn(seat, KNOCK, card, rest)
        else:
            chosen(moves, move_of(seat, DISCARD, card=card))
            self.do(move_of(seat, DISCARD, card=card),
                    self.entry(seat, DISCARD, card=card_name(card)))

    def random_discard(self, moves: list[Move]) -> int:
        """A legal discard drawn at random."""
        return self.rng.choice(sorted(cards_of(discarded(
            [m for m in moves if m.action == DISCARD]))))

    def careful_discard(self, seat: int, offered: int) -> int:
        """The discard (of ``offered``) whose kept hand has the least deadwood expected
        after the next stock draw, over every card the player has not seen, plus
        ``FEED_PENALTY`` for a card of the rank of, or within two ranks in the suit of,
        a card the opponent took from the pile and still holds (ties: the higher card)."""
        from ..analysis.values import draw_figures, suit_tables

        table = self.table
        hand = table.hands[seat]
        tables = suit_tables(str(self.ace), self.points)
        pile = union([1 << c for c in table.pile])
        opponent = next(s for s in self.seats if s != seat)
        wanted = self.took[opponent] & table.hands[opponent]
        unseen = FULL_DECK & ~hand & ~pile & ~wanted
        count = max(1, unseen.bit_count())
        best, best_score = -1, 0.0
        for card in cards_of(offered):
            kept = hand & ~(1 << card)
            _, total, _ = draw_figures(kept, unseen, -1, 0, tables)
            score = total / count
            if wanted & NEAR[card]:
                score += FEED_PENALTY
            if best < 0 or score < best_score or (score == best_score and card > best):
                best, best_score = card, score
        return best

    def fed_card(self, seat: int, moves: list[Move]) -> int:
        """The feeder's discard, of the listed ones: the card that lowers the partner's
        deadwood most (the partner, honest, takes such a card), the feeder's own best
        discard when none does."""
        hand = self.table.hands[seat]
        partner = self.table.hands[self.feeds[1]]
        offered = 0
        for move in moves:
            if move.action == DISCARD:
                offered |= 1 << move.card
        now = self.deadwood(partner)
        best, best_gain = None, 0
        for card in cards_of(offered):
            gain = now - self.after_taking(partner | 1 << card, card)[0]
            if gain > best_gain:
                best, best_gain = card, gain
        if best is None:
            best = self.best_discard(hand, offered)[1]
        return best

    def end_turn(self, seat: int, action: str, card: int | None, rest: int) -> None:
        """Knock or gin, declaring the best melds or leaving them to the engine."""
        entry = self.entry(seat, action)
        if card is not None:
            entry["card"] = card_name(card)
        melds = None
        if self.rng.random() < 0.6:
            melds = declared(self.best(rest)[1])
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
        """Lay off, one card at a time, whatever the engine lists that lowers the
        deadwood (a run grows as cards are added to it), on the first meld it fits."""
        table = self.table
        while True:
            moves = table.legal_moves(LAYOFF)
            shown = union(table.shown or ())
            free = table.hands[seat] & ~table.laid_off & ~shown
            base = None if shown or table.shown is not None else self.deadwood(free)
            offered = 0
            for move in moves:
                offered |= 1 << move.card
            for card in sorted(cards_of(offered), key=lambda c: (-self.points[c], c)):
                bit = 1 << card
                if base is not None and self.deadwood(free & ~bit) >= base:
                    continue
                target = next(m.meld for m in moves if m.card == card)  # the first it fits
                self.do(move_of(seat, LAYOFF, card=card, meld=target),
                        self.entry(seat, LAYOFF, card=card_name(card), meld=target))
                break
            else:
                return

    def show(self, seat: int) -> None:
        """Show the hand's melds (the listed show declares the best arrangement; the log
        sometimes leaves it to the engine)."""
        table = self.table
        listed_show = table.legal_moves(SHOW)
        assert len(listed_show) == 1, "the engine lists no show"
        shown = listed_show[0].melds
        entry = self.entry(seat, SHOW)
        melds = None
        if self.rng.random() < 0.8:
            melds = shown
            entry["melds"] = [[card_name(c) for c in m] for m in melds or ()]
        self.do(Move(seat, SHOW, melds=melds), entry)

"""One generated deal: the cards dealt, the engine's table, every move logged; what the
bots of both families share.

The bots choose among the engine's legal moves (``Table.legal_moves``): at each decision
they ask the table what may be played and pick one of those moves by their policy.  The
log may spell the chosen move another way that means the same (a drawn card left unnamed
where the stock's order is known, a declaration's melds left to the engine, a meld's
cards in any order, a gin written as a knock without deadwood), so that generated logs
exercise every spelling the format allows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import cards
from ..engine.cards import CARD_NAMES, SUIT_MASK, card_name, cards_of, point_table
from ..engine.gin import GinTable
from ..engine.melds import (
    best_arrangement,
    candidate_melds,
    layoff_cards,
    least_deadwood,
)
from ..engine.model import (
    DISCARD_PILE,
    DRAW,
    LAYOFF,
    MELD,
    STOCK,
    Action,
    Deal,
    Move,
    move_of,
)
from ..engine.rummy import RummyTable

if TYPE_CHECKING:
    from .game import GameWriter

MOVE_CAP = 600  # moves per deal before a Rummy-family deal is dealt again
MEMO_LIMIT = 1 << 17  # arrangements memoized per game before the memo is cleared
COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the four aces; shifted by a rank, its column
Json = dict[str, Any]


class DealTooLong(Exception):
    """A deal passed MOVE_CAP moves: it is dealt again with a fresh shuffle."""


def union(masks: tuple[int, ...] | list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


class DealWriter:
    """One deal: deals the deck, drives the engine's table, logs every move."""

    table: RummyTable | GinTable

    def __init__(self, game: GameWriter, seats: tuple[int, ...], dealer: int,
                 deck: list[int]):
        self.game = game
        self.rules = game.rules
        self.rng = game.rng
        self.names = game.names
        self.seats = seats
        self.with_deck = game.with_deck
        self.points = point_table(self.rules.ace_points)
        self.ace = self.rules.ace
        self.memo = game.memo
        self.dw_memo = game.dw_memo
        self.cover = run_cover(self.ace)
        self.fits_now: int | None = None
        # (feeder, partner) when a colluding pair plays this deal (see ``feeder``).
        pair = game.collusion
        self.feeds = pair if pair is not None and pair[0] in seats and pair[1] in seats \
            else None
        n = len(seats)
        size = self.rules.hand_size
        start = (seats.index(dealer) + 1) % n
        order = seats[start:] + seats[:start]
        hands: dict[int, list[int]] = {s: [] for s in seats}
        for k in range(n * size):
            hands[order[k % n]].append(deck[k])
        upcard = deck[n * size]
        self.stock = list(reversed(deck[n * size + 1:]))  # the real stock, top last
        self.known = self.with_deck  # whether the engine knows the stock's order
        listed = seats if self.rules.is_gin and len(game.names) > 2 else None
        self.log: Json = {"dealer": self.names[dealer]}
        if listed:
            self.log["players"] = [self.names[s] for s in listed]
        if self.with_deck:
            self.log["deck"] = [card_name(c) for c in deck]
            model = Deal(dealer=dealer, moves=(), players=listed, deck=tuple(deck))
        else:
            self.log["hands"] = {self.names[s]: [card_name(c) for c in sorted(hands[s])]
                                 for s in seats}
            self.log["upcard"] = card_name(upcard)
            model = Deal(dealer=dealer, moves=(), players=listed,
                         hands={s: tuple(sorted(hands[s])) for s in seats}, upcard=upcard)
        self.moves: list[Json] = []
        self.log["moves"] = self.moves
        self.table = self.make_table(model)
        problem = self.table.deal_cards(model)
        if problem is not None:
            raise AssertionError(f"the engine refused the deal: {problem}")

    def make_table(self, model: Deal) -> RummyTable | GinTable:
        raise NotImplementedError

    def play(self) -> None:
        raise NotImplementedError

    def score(self) -> tuple[str, int | None, dict[int, int]]:
        raise NotImplementedError

    # -- moves -------------------------------------------------------------------------

    def do(self, move: Move, entry: Json) -> None:
        """Play a move on the engine's table, which must accept it, and log it."""
        problem = self.table.play(move)
        if problem is not None:
            raise AssertionError(f"the engine refused move {len(self.moves)} {entry} of deal "
                                 f"{len(self.game.deals)}: {problem[0]}: {problem[1]}")
        if move.action == MELD or move.action == LAYOFF:
            self.fits_now = None
        self.moves.append(entry)
        if len(self.moves) > MOVE_CAP:
            raise DealTooLong

    def entry(self, seat: int, action: Action, **fields: Any) -> Json:
        """A move as the log writes it: plain JSON strings, never the engine's names."""
        return {"p": self.names[seat], "a": action.value, **fields}

    def draw_discard(self, seat: int) -> int:
        """Take the top of the discard pile (the draw listed), naming it sometimes."""
        top = self.table.pile[-1]
        entry = self.entry(seat, DRAW, **{"from": DISCARD_PILE.value})
        if self.rng.random() < 0.3:
            entry["card"] = card_name(top)
        named = top if "card" in entry else None
        self.do(move_of(seat, DRAW, DISCARD_PILE, named), entry)
        return top

    def draw_stock(self, seat: int, moves: list[Move]) -> int:
        """Draw the real top of the stock, one of the stock draws listed in ``moves``;
        name it where the engine cannot know it (and always without a deck), sometimes
        where it can."""
        card = self.stock.pop()
        chosen(moves, move_of(seat, DRAW, STOCK, card))
        table = self.table
        if self.known and table.stock_order:
            assert table.stock_order[-1] == card, "the generator lost the stock order"
        entry = self.entry(seat, DRAW, **{"from": STOCK.value})
        if not self.with_deck or not self.known or self.rng.random() < 0.3:
            entry["card"] = CARD_NAMES[card]
            self.do(move_of(seat, DRAW, STOCK, card), entry)
        else:
            self.do(move_of(seat, DRAW, STOCK), entry)
        return card

    def best(self, mask: int) -> tuple[int, tuple[int, ...]]:
        """The hand's least deadwood and its melds (``melds.best_arrangement``, memoized
        for the game)."""
        found = self.memo.get(mask)
        if found is None:
            memo = self.memo
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            found = memo[mask] = best_arrangement(mask, self.ace, self.points)
        return found

    def table_fits(self) -> int:
        """``fits`` of the melds on the table (kept until a meld or layoff changes them)."""
        found = self.fits_now
        if found is None:
            found = self.fits_now = self.fits(self.table.melds)
        return found

    def deadwood(self, mask: int) -> int:
        """``best(mask)[0]`` without the melds (``melds.least_deadwood``, memoized)."""
        found = self.dw_memo.get(mask)
        if found is None:
            if len(self.dw_memo) >= MEMO_LIMIT:
                self.dw_memo.clear()
            found = self.dw_memo[mask] = least_deadwood(mask, self.ace, self.points)
        return found

    def fits(self, melds: list[list]) -> int:
        """The cards that may be laid off on at least one of ``melds``."""
        ace = self.ace
        out = 0
        for mask, kind in melds:
            out |= layoff_cards(mask, kind, ace)
        return out

    def fitting_meld(self, melds: list[list], card: int) -> int | None:
        """The first of ``melds`` that ``card`` may be laid off on."""
        ace = self.ace
        for i, (mask, kind) in enumerate(melds):
            if layoff_cards(mask, kind, ace) >> card & 1:
                return i
        return None


def listed(moves: list[Move], action: Action, **fields: Any) -> Move | None:
    """The first of ``moves`` doing ``action`` with those field values, or None."""
    for move in moves:
        if move.action == action and all(getattr(move, k) == v for k, v in fields.items()):
            return move
    return None


def chosen(moves: list[Move], move: Move) -> Move:
    """The move a bot's policy chose, which must be one of ``moves``, the legal moves
    listed (an AssertionError otherwise: the bot and the engine disagree)."""
    if move not in moves:
        raise AssertionError(f"the bot chose {move}, which the engine does not list among "
                             f"{len(moves)} legal moves")
    return move


def declared(melds: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Melds (masks) as a move declares them: each meld's cards in ascending order."""
    return tuple(tuple(cards_of(m)) for m in melds)


def unconnected(mask: int, hand: int) -> int:
    """The cards of ``mask`` connected to no other card of ``hand``."""
    return cards.unconnected(mask, hand, NEAR)


def points_of(mask: int, points: tuple[int, ...]) -> int:
    return sum(points[c] for c in cards_of(mask))


def near(card: int) -> int:
    """The other cards of the same rank, or of the same suit within two ranks."""
    rank, suit = card % 13, card // 13
    out = 0
    for other in range(52):
        if other != card and (other % 13 == rank
                              or (other // 13 == suit and abs(other % 13 - rank) <= 2)):
            out |= 1 << other
    return out


# A card is connected to a hand that holds any card of its mask.
NEAR = tuple(near(card) for card in range(52))

_COVERS: dict[str, list[int]] = {}


def run_cover(ace: str) -> list[int]:
    """For each 13-bit rank slice of one suit, the ranks that some run of the slice
    contains (the union of its candidate melds: one suit has no groups)."""
    table = _COVERS.get(ace)
    if table is None:
        table = _COVERS[ace] = [union(candidate_melds(ranks, ace))
                                for ranks in range(SUIT_MASK + 1)]
    return table

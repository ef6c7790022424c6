"""``Table.legal_moves()``: hand-written positions for each rule, and generated games of
every preset and option set, in which every listed move is legal, the logged move is
listed, and every other move of a wide set of candidates is refused with a code."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import report as R
from service.engine.cards import cards_of, parse_card
from service.engine.gin import AFTER_KNOCK, GinTable
from service.engine.logformat import parse_game
from service.engine.melds import candidate_melds
from service.engine.model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    END,
    GIN,
    KNOCK,
    LAYOFF,
    MELD,
    PASS,
    RESHUFFLE,
    SHOW,
    STOCK,
    Action,
    Game,
    Move,
)
from service.engine.rules import PRESETS
from service.engine.rummy import RummyTable
from service.engine.table import Table
from service.generator import generate_game, random_rules
from tests.engine.test_gin import KNOCK as KNOCK_MOVES
from tests.engine.test_gin import gin_game
from tests.engine.test_rummy import basic

CODES = {value for name, value in vars(R).items() if name.isupper() and isinstance(value, str)}


def tables(game: Game) -> Iterator[tuple[Table, Move | None]]:
    """Every position of every deal of a legal game: the table before each move, with
    the move the log played there (None after the last)."""
    for deal in game.deals:
        seats = tuple(sorted(deal.players)) if deal.players else tuple(range(len(game.players)))
        table = (GinTable if game.rules.is_gin else RummyTable)(game.rules, game.players, deal,
                                                                seats)
        assert table.deal_cards(deal) is None
        for move in deal.moves:
            yield table.copy(), move
            assert table.play(move) is None, move
        yield table.copy(), None


def played(table: Table, move: Move):
    """What playing the move on a copy of the table answers: None when legal."""
    return table.copy().play(move)


def card(code: str) -> int:
    value = parse_card(code)
    assert value is not None
    return value


def cards(*codes: str) -> tuple[int, ...]:
    return tuple(sorted(card(c) for c in codes))


def same_choice(listed: Move, logged: Move) -> bool:
    """The same move, but for another spelling: a drawn card left unnamed, another
    declaration, a knock without deadwood (which is gin)."""
    action = GIN if logged.action == KNOCK and listed.action == GIN else logged.action
    return (listed.player, listed.action, listed.source, listed.cards, listed.meld) == \
        (logged.player, action, logged.source, logged.cards and tuple(sorted(logged.cards)),
         logged.meld) \
        and (listed.card == logged.card or (logged.action == DRAW and logged.card is None))


def candidates(table: Table) -> list[Move]:
    """A wide set of moves of every seat: each draw naming each card, each discard,
    meld and layoff of held cards (and some of cards not held), the ends of a deal."""
    out: list[Move] = []
    held = 0
    for seat in table.seats:
        held |= table.hands[seat]
    some_cards = sorted(set(cards_of(held)) | {0, 25, 51})
    for seat in table.seats:
        hand = table.hands[seat]
        out.extend(Move(seat, DRAW, source=STOCK, card=c) for c in range(52))
        out.extend(Move(seat, DRAW, source=DISCARD_PILE, card=c) for c in some_cards)
        out.extend(Move(seat, action) for action in (PASS, RESHUFFLE, END))
        out.extend(Move(seat, DISCARD, card=c) for c in some_cards)
        ace = table.rules.ace
        melds = candidate_melds(hand, ace) + candidate_melds(held, ace)[:5]
        out.extend(Move(seat, MELD, cards=tuple(cards_of(m))) for m in melds)
        on_table = getattr(table, "melds", None) or getattr(table, "knock_melds", [])
        out.extend(Move(seat, LAYOFF, card=c, meld=i) for c in some_cards
                   for i in range(len(on_table) + 1))
        if isinstance(table, GinTable):
            for c in cards_of(hand):
                dw, best = table.best(hand & ~(1 << c))
                declared = tuple(tuple(cards_of(m)) for m in best)
                out.append(Move(seat, GIN if dw == 0 else KNOCK, card=c, melds=declared))
            dw, best = table.best(hand)
            out.append(Move(seat, GIN, melds=tuple(tuple(cards_of(m)) for m in best)))
            free = hand & ~table.laid_off
            out.append(Move(seat, SHOW, melds=tuple(tuple(cards_of(m))
                                                    for m in table.best(free)[1])))
    return out


def check_position(table: Table, logged: Move | None, exhaustive: bool) -> None:
    listed = table.legal_moves()
    assert len(set(listed)) == len(listed), "a move is listed twice"
    for move in listed:
        assert played(table, move) is None, (move, played(table, move))
    if logged is not None:
        assert any(same_choice(move, logged) for move in listed), (logged, listed)
    for action in Action:  # the moves of one action: the same, in the same order
        assert table.legal_moves(action) == [m for m in listed if m.action == action], action
    if not exhaustive:
        return
    chosen = set(listed)
    for move in candidates(table):
        problem = played(table, move)
        if move in chosen:
            assert problem is None
        else:
            assert problem is not None, f"{move} is legal but not listed"
            assert problem[0] in CODES and problem[1], problem


VARIANTS = sorted(PRESETS)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("with_deck", [False, True], ids=["hands", "deck"])
@settings(max_examples=12)
@given(seed=st.integers(0, 2**32 - 1), options=st.booleans())
def test_generated_positions(variant, with_deck, seed, options):
    """Every position of a generated game lists the logged move among its legal moves,
    and every listed move is legal; a few positions are checked against every
    candidate move."""
    rng = random.Random(seed)
    rules = random_rules(variant, rng) if options else None
    players = rng.randint(PRESETS[variant].min_players, PRESETS[variant].max_players)
    try:
        log = generate_game(variant, seed, players=players, rules=rules, with_deck=with_deck)
    except ValueError:  # options under which no deal or game can end
        return
    game = parse_game(log)
    positions = list(tables(game))
    exhaustive = set(rng.sample(range(len(positions)), min(6, len(positions))))
    for k, (table, logged) in enumerate(positions):
        check_position(table, logged, k in exhaustive)


# --------------------------------------------------------------------------- positions

def start(log: dict) -> Table:
    """The table of the log's first deal as dealt."""
    table, _ = next(tables(parse_game(log)))
    return table


def after(log: dict, count: int) -> Table:
    """The table of the first deal after its first ``count`` moves."""
    for k, (table, _) in enumerate(tables(parse_game(log))):
        if k == count:
            return table
    raise AssertionError("the deal is shorter")


def kinds(moves: list[Move]) -> set[tuple[str, str | None]]:
    return {(m.action, m.source) for m in moves}


def test_gin_before_drawing_takes_either_pile():
    table = start(gin_game([]))
    moves = table.legal_moves()
    assert kinds(moves) == {(DRAW, DISCARD_PILE), (DRAW, STOCK)}
    assert [m.card for m in moves if m.source == DISCARD_PILE] == [card("TD")]
    # The stock's order is unknown: any card not seen may be drawn, and is named.
    stock = [m.card for m in moves if m.source == STOCK]
    assert len(stock) == 52 - 21 and all(c is not None for c in stock)
    assert {m.player for m in moves} == {0}


def test_gin_after_drawing_discards_and_knocks():
    table = after(gin_game(KNOCK_MOVES), 1)  # ana drew AH
    moves = table.legal_moves()
    assert len([m for m in moves if m.action == DISCARD]) == 11
    knocks = {m.card: m.melds for m in moves if m.action == KNOCK}
    # 2C-3C-4C, the 5s and the 9s melded: discarding KS leaves AH (1), discarding AH
    # leaves KS (10), both within the limit of 10; nothing else is a knock or gin.
    melds = (cards("2C", "3C", "4C"), cards("5D", "5H", "5S"), cards("9H", "9D", "9S"))
    assert knocks == {card("KS"): melds, card("AH"): melds}
    assert not [m for m in moves if m.action == GIN]
    limited = after(gin_game(KNOCK_MOVES, rules={"knock_limit": 5}), 1)
    assert [m.card for m in limited.legal_moves() if m.action == KNOCK] == [card("KS")]


def test_gin_after_a_knock_the_defender_lays_off_and_shows():
    log = gin_game(KNOCK_MOVES)
    table = after(log, 2)
    assert isinstance(table, GinTable) and table.phase == AFTER_KNOCK
    moves = table.legal_moves()
    assert {m.player for m in moves} == {1}
    assert {m.action for m in moves} == {LAYOFF, SHOW}
    # ben's 5C fits ana's run 2C-3C-4C (meld 0).
    assert Move(1, LAYOFF, card=card("5C"), meld=0) in moves
    shown = table.copy()
    assert shown.play(next(m for m in moves if m.action == SHOW)) is None
    assert all(m.action == LAYOFF for m in shown.legal_moves())


def test_gin_upcard_is_taken_or_passed_then_the_stock():
    table = start(gin_game([], rules={"upcard_pass": True}))
    assert kinds(table.legal_moves()) == {(DRAW, DISCARD_PILE), (PASS, None)}
    assert table.play(Move(0, PASS)) is None
    assert {m.player for m in table.legal_moves()} == {1}
    assert table.play(Move(1, PASS)) is None
    moves = table.legal_moves()
    assert kinds(moves) == {(DRAW, STOCK)} and {m.player for m in moves} == {0}


def test_gin_at_the_stock_floor_passes_or_takes_the_discard_to_knock():
    table = start(gin_game([], rules={"stock_floor": 31}))  # 31 cards: at the floor now
    assert kinds(table.legal_moves()) == {(DRAW, DISCARD_PILE), (PASS, None)}
    table.play(table.legal_moves()[0])
    assert all(m.action in (KNOCK, GIN) for m in table.legal_moves())


def test_big_gin_only_where_allowed():
    # Ana draws 5C: 2C-3C-4C, 5C-5D-5H-5S, 9C-9D-9H-9S hold all eleven cards.
    ana, ben = "2C 3C 4C 5D 5H 5S 9H 9D 9S 9C", "6C 7C 8C TC AD 2D 3D JH JS QH"
    for bonus, listed in ((None, False), (31, True)):
        log = gin_game(["ana ds 5C"], ana=ana, ben=ben, rules={"big_gin_bonus": bonus})
        moves = after(log, 1).legal_moves()
        big = [m for m in moves if m.action == GIN and m.card is None]
        assert bool(big) is listed
        # Gin with a discard is always there: 9C, or the 5C of a group of four.
        assert {m.card for m in moves if m.action == GIN and m.card is not None} \
            >= {card("9C"), card("5C")}


def test_rummy_turn_melds_layoffs_and_discards():
    table = after(basic(), 1)
    moves = table.legal_moves()
    assert {m.action for m in moves} == {MELD, DISCARD}
    assert len([m for m in moves if m.action == DISCARD]) == 11
    taken = after(basic(["ana dd 7D"]), 1)  # the card taken may not be discarded
    assert card("7D") not in {m.card for m in taken.legal_moves() if m.action == DISCARD}


def test_rummy_one_meld_per_turn_where_the_rules_say_so():
    every = {cards("AH", "2H", "3H"), cards("2H", "3H", "4H"), cards("AH", "2H", "3H", "4H"),
             cards("9C", "9D", "9S")}
    for limit, second in (("unlimited", True), (1, False)):
        table = after(basic(rules={"melds_per_turn": limit}), 1)  # ana drew 4H
        assert {m.cards for m in table.legal_moves() if m.action == MELD} == every
        assert table.play(Move(0, MELD, cards=cards("9C", "9D", "9S"))) is None
        melds = {m.cards for m in table.legal_moves() if m.action == MELD}
        assert melds == (every - {cards("9C", "9D", "9S")} if second else set())


def test_rummy_layoffs_onto_any_meld_on_the_table():
    table = after(basic(), 8)  # ana drew 6C; ben's run 2C-3C-4C is meld 2
    layoffs = {(m.card, m.meld) for m in table.legal_moves() if m.action == LAYOFF}
    assert layoffs == {(card("5C"), 2)}
    own = after(basic(rules={"layoff_requires_own_meld": True}), 5)  # ben, before melding
    assert own.to_move == 1
    assert not [m for m in own.legal_moves() if m.action == LAYOFF]


def test_rummy_before_drawing_draws_only():
    table = after(basic(), 4)  # ben to draw
    assert kinds(table.legal_moves()) == {(DRAW, STOCK), (DRAW, DISCARD_PILE)}
    assert {m.player for m in table.legal_moves()} == {1}


def test_blocked_rummy_deal_may_end():
    """Generated block Rummy games whose stock runs out: the logged end is listed, and
    the table before it offers nothing else but the discard pile."""
    ends = []
    for seed in range(60):
        game = parse_game(generate_game("rummy-block", seed, players=2))
        ends.extend(table for table, logged in tables(game)
                    if logged is not None and logged.action == END)
        if len(ends) >= 3:
            break
    assert ends, "no generated block Rummy deal ran out of stock"
    for table in ends:
        moves = table.legal_moves()
        assert Move(table.to_move, END) in moves
        assert kinds(moves) <= {(END, None), (DRAW, DISCARD_PILE)}


def test_a_finished_deal_has_no_legal_move():
    *_, (table, logged) = tables(parse_game(basic()))  # ana went out
    assert logged is None and table.ended and table.legal_moves() == []
    voided = start(gin_game([], rules={"stock_floor": 31}))
    assert voided.play(Move(0, PASS)) is None
    assert voided.legal_moves() == []

"""The Rummy table's shortcut for plain draws and discards changes nothing.

``RummyTable.play`` applies the common legal draws and discards in a few steps and hands
everything else to the per-action handlers.  These tests replay generated games, intact
and broken in one place, on two tables side by side, one through the shortcut and one
through the handlers alone, and require the same verdict and the same table after every
move.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import orjson
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service.engine.cards import CARD_NAMES
from service.engine.logformat import LogValidationError, parse_game
from service.engine.model import Game
from service.engine.rummy import RummyTable
from service.engine.table import Table
from service.generator import generate_game, random_rules

RUMMY_FAMILY = ("rummy", "rummy-pagat", "rummy-block", "greek")
PLAYERS = {"rummy": (2, 3, 4, 5, 6), "rummy-pagat": (2, 3, 4, 5, 6),
           "rummy-block": (2, 3, 4, 5, 6), "greek": (2, 3, 4)}
MUTATIONS = settings(max_examples=300, derandomize=True, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@cache
def pool() -> tuple[dict[str, Any], ...]:
    """Rummy-family games with random option sets (every stock policy among them)."""
    rng = random.Random(77)
    games = []
    for i in range(24):
        variant = RUMMY_FAMILY[i % len(RUMMY_FAMILY)]
        players = rng.choice(PLAYERS[variant])
        rules = random_rules(variant, rng, players)
        rules.setdefault("deals", 2)
        games.append(generate_game(variant, 500 + i, players, rules, rng.random() < 0.5))
    for policy in ("reshuffle_all", "reshuffle_keep_top", "reshuffle_keep_last_discard",
                   "turn_over", "end_deal"):
        games.append(generate_game("rummy-block", 700, 4,
                                   {"stock_exhausted": policy, "deals": 2}, False))
    return tuple(games)


def snapshot(table: RummyTable) -> dict[str, Any]:
    state = {k: v for k, v in vars(table).items() if k != "handlers"}
    state["melds"] = [tuple(m) for m in table.melds]
    state["stock_order"] = list(table.stock_order) if table.stock_order is not None else None
    return state


def assert_same_replay(game: Game) -> None:
    for deal in game.deals:
        seats = tuple(range(len(game.players)))
        fast = RummyTable(game.rules, game.players, deal, seats)
        slow = RummyTable(game.rules, game.players, deal, seats)
        if fast.deal_cards(deal) or slow.deal_cards(deal):
            continue
        for move in deal.moves:
            verdict = fast.play(move)
            assert verdict == Table.play(slow, move), move
            assert snapshot(fast) == snapshot(slow), move
            if verdict:
                break


def mutate(data: st.DataObject, log: dict[str, Any]) -> None:
    deal = data.draw(st.sampled_from(log["deals"]))
    moves = deal["moves"]
    m = data.draw(st.integers(0, len(moves) - 1))
    kind = data.draw(st.sampled_from(("card", "echo", "retake", "drop", "duplicate", "swap", "player",
                                      "source")))
    move = moves[m]
    recent = [mv["card"] for mv in moves[max(0, m - 3):m] if "card" in mv]
    if (kind == "retake" and 0 < m < len(moves) - 1 and move["a"] == "draw"
            and moves[m - 1]["a"] == moves[m + 1]["a"] == "discard"):
        # Take the card just discarded and throw it back at once.
        move.update({"from": "discard", "card": moves[m - 1]["card"]})
        moves[m + 1]["card"] = moves[m - 1]["card"]
    elif kind == "echo" and recent and "card" in move:
        # A card just played: say, discard the card just taken from the discard pile.
        move["card"] = data.draw(st.sampled_from(recent))
    elif kind == "card" and "card" in move:
        shift = data.draw(st.integers(1, 51))
        move["card"] = CARD_NAMES[(CARD_NAMES.index(move["card"]) + shift) % 52]
    elif kind == "drop":
        del moves[m]
    elif kind == "duplicate":
        moves.insert(m, orjson.loads(orjson.dumps(move)))
    elif kind == "swap" and m + 1 < len(moves):
        moves[m], moves[m + 1] = moves[m + 1], moves[m]
    elif kind == "player":
        move["p"] = data.draw(st.sampled_from([p for p in log["players"] if p != move["p"]]))
    elif kind == "source" and move["a"] == "draw":
        move["from"] = "discard" if move["from"] == "stock" else "stock"


def test_generated_games_replay_the_same_both_ways() -> None:
    for log in pool():
        assert_same_replay(parse_game(log))


@MUTATIONS
@given(data=st.data())
def test_broken_games_replay_the_same_both_ways(data: st.DataObject) -> None:
    log = orjson.loads(orjson.dumps(data.draw(st.sampled_from(pool()))))
    mutate(data, log)
    try:
        game = parse_game(log)
    except LogValidationError:
        assume(False)
    assert_same_replay(game)

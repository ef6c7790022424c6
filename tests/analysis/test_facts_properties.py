"""Properties of the facts on generated games of every preset and option set: every
alternative is one of the engine's legal moves where the fact says, and really achieves
the figure claimed; the analysis never fails, on illegal games either (it stops at the
violation)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.analysis.facts import (
    DISCARD_ERROR,
    FED_CARD,
    MISSED_GIN,
    MISSED_KNOCK,
    MISSED_LAYOFF,
    MISSED_OUT,
    MISSED_RUMMY,
    analyse,
)
from service.analysis.moves import move_json
from service.engine import parse_game, verify
from service.engine.gin import GinTable
from service.engine.melds import least_deadwood
from service.engine.rules import PRESETS
from service.engine.state import table_after
from service.generator import generate_game, random_rules

VARIANTS = sorted(PRESETS)


def generated(variant: str, seed: int, options: bool):
    rules = random_rules(variant, random.Random(seed)) if options else None
    try:
        log = generate_game(variant, (7, seed), rules=rules, with_deck=seed % 2 == 0)
    except (ValueError, RuntimeError):  # options that let no game end
        return None
    return log


def play_line(table, line, names):
    """Play moves given in the log's format on the table: each must be listed there."""
    for entry in line:
        listed = {repr(move_json(m, names)): m for m in table.legal_moves()}
        assert repr(entry) in listed, (entry, list(listed))
        assert table.play(listed[repr(entry)]) is None


def check_fact(game, fact) -> None:
    names = game.players
    table, stopped = table_after(game, fact.deal, fact.position)
    assert stopped is None
    listed = {repr(move_json(m, names)): m for m in table.legal_moves()}
    if fact.alternative is None:
        assert fact.kind in ("knock_into_undercut", FED_CARD)
        return
    assert repr(fact.alternative) in listed, (fact, list(listed))
    alt = listed[repr(fact.alternative)]
    seat = names.index(fact.player)
    rules = game.rules
    if fact.kind == DISCARD_ERROR:
        after = table.copy()
        assert after.play(alt) is None
        hand = table.hands[seat] & ~(1 << alt.card)
        assert least_deadwood(hand, rules.ace, table.points) == fact.detail["best"]
        assert fact.detail["left"] - fact.detail["best"] == fact.cost > 0
    elif fact.kind in (MISSED_GIN, MISSED_KNOCK):
        after = table.copy()
        assert after.play(alt) is None
        assert isinstance(after, GinTable) and after.knocker == seat
        assert after.is_gin == (fact.kind == MISSED_GIN)
        if fact.kind == MISSED_GIN:
            defender = after.defender
            bonus = rules.gin_bonus if alt.card is not None else rules.big_gin_bonus
            worth = bonus + least_deadwood(after.hands[defender], rules.ace, after.points)
            assert fact.cost == worth * (2 if after.doubled else 1)
        else:
            assert after.knocker_deadwood == fact.detail["deadwood"] <= after.knock_limit
    elif fact.kind in (MISSED_OUT, MISSED_RUMMY):
        after = table.copy()
        play_line(after, fact.detail["line"], names)
        assert after.ended and after.winner == seat
        assert (after.outcome == "rummy") == (fact.kind == MISSED_RUMMY)
    elif fact.kind == MISSED_LAYOFF and isinstance(table, GinTable):
        after = table.copy()
        play_line(after, fact.detail["line"], names)
        assert after.hand_value(seat) == fact.detail["best"] < fact.detail["deadwood"]
    elif fact.kind == MISSED_LAYOFF:
        after = table.copy()
        assert after.play(alt) is None
        assert fact.cost > 0


def check_game(log) -> None:
    game = parse_game(log)
    report = verify(game)
    analysis = analyse(game, report)
    for fact in analysis.facts:
        check_fact(game, fact)
        if fact.kind == FED_CARD:
            moves = game.deals[fact.deal].moves
            taker = next(m for m in moves[fact.move + 1:] if m.action != "reshuffle")
            assert (game.players[taker.player], taker.source) == (fact.detail["receiver"],
                                                                   "discard")
    by_kind = {}
    for fact in analysis.facts:
        by_kind.setdefault((fact.deal, fact.move, fact.player), set()).add(fact.kind)
    for found in by_kind.values():  # at most one of the exclusive kinds per decision
        assert len(found & {MISSED_GIN, MISSED_KNOCK, DISCARD_ERROR}) <= 1
        assert len(found & {MISSED_OUT, MISSED_RUMMY, DISCARD_ERROR}) <= 1
    for player, figures in analysis.summary().items():
        assert figures["decisions"] >= sum(figures["errors"][k] for k in figures["errors"]
                                           if k in (MISSED_GIN, MISSED_KNOCK, DISCARD_ERROR))
        assert player in game.players


@pytest.mark.parametrize("variant", VARIANTS)
def test_generated_games_of_every_preset(variant):
    for seed in range(4):
        log = generated(variant, seed, options=False)
        check_game(log)


@settings(max_examples=25)
@given(st.sampled_from(VARIANTS), st.integers(0, 10_000))
def test_generated_games_of_every_option_set(variant, seed):
    log = generated(variant, seed, options=True)
    if log is not None:
        check_game(log)


@settings(max_examples=25)
@given(st.sampled_from(VARIANTS), st.integers(0, 10_000), st.integers(0, 10_000))
def test_illegal_games_are_analysed_up_to_the_violation(variant, seed, where):
    log = generated(variant, seed, options=seed % 2 == 1)
    if log is None:
        return
    rng = random.Random(where)
    d = rng.randrange(len(log["deals"]))
    moves = log["deals"][d]["moves"]
    if not moves:
        return
    m = rng.randrange(len(moves))
    other = [p for p in log["players"] if p != moves[m]["p"]]
    spoiled = dict(moves[m])
    if rng.random() < 0.5 and other:
        spoiled["p"] = rng.choice(other)  # the wrong player: NOT_YOUR_TURN and the like
    elif "card" in spoiled:
        spoiled["card"] = rng.choice(["AC", "KS", "7H", "TD", "2S"])
    else:
        spoiled = {"p": spoiled["p"], "a": "discard", "card": "QH"}
    moves[m] = spoiled
    game = parse_game(log)
    report = verify(game)
    analysis = analyse(game, report)
    first = {}
    for v in report.violations:
        if v.move is not None:
            first.setdefault(v.deal, v.move)
    assert {s["deal"]: s["move"] for s in analysis.stopped} == first
    for fact in analysis.facts:
        assert fact.deal not in first or fact.move < first[fact.deal]
        if fact.deal not in first or fact.position < first[fact.deal]:
            check_fact(game, fact)

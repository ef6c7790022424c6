"""The closed sets of names (ace modes, stock policies, scorings, rummy bonuses,
outcomes, gin phases, move actions, piles) are defined once, as enums, and the rules,
moves and reports carry their members."""

from __future__ import annotations

import typing
from enum import StrEnum

import orjson

from service.engine import logformat, melds, model, report, rules
from service.engine.gin import GinPhase, GinTable
from service.engine.logformat import parse_game
from service.engine.model import Action, Outcome, Pile
from service.engine.replay import verify
from service.engine.rules import (
    OPTIONS,
    PRESETS,
    AceMode,
    Family,
    Rules,
    RummyBonus,
    Scoring,
    StockPolicy,
    resolve_rules,
)
from tests.engine.test_gin import KNOCK, gin_game

CHOICES = {"ace": AceMode, "rummy_bonus": RummyBonus, "stock_exhausted": StockPolicy,
           "scoring": Scoring}


def test_each_closed_set_has_one_definition():
    assert melds.ACE_MODES is rules.ACE_MODES == tuple(AceMode)
    assert tuple(Outcome) == model.OUTCOMES == report.OUTCOMES
    assert tuple(Action) == model.ACTIONS
    assert set(logformat.ACTION_FIELDS) == set(Action)
    assert tuple(Pile) == (model.STOCK, model.DISCARD_PILE)
    for name, kind in CHOICES.items():
        assert OPTIONS[name].choices == tuple(kind)


def test_rules_fields_are_typed_by_the_enums():
    hints = typing.get_type_hints(Rules)
    assert hints["family"] is Family
    for name, kind in CHOICES.items():
        assert hints[name] is kind


def test_resolved_rules_hold_enum_members_and_write_plain_names():
    overrides = {"ace": "around_the_corner", "stock_exhausted": "reshuffle_all",
                 "scoring": "settlement", "rummy_bonus": "plus10"}
    for variant, preset in PRESETS.items():
        resolved, problems = resolve_rules(variant, overrides if preset.family == "rummy"
                                           else {"ace": "high_or_low"}, preset.min_players)
        assert not problems and resolved is not None
        assert type(resolved.family) is Family
        for name, kind in CHOICES.items():
            value = getattr(resolved, name)
            assert type(value) is kind, (variant, name, value)
        written = orjson.loads(orjson.dumps(resolved.as_dict()))
        assert written["ace"] == resolved.ace.value and isinstance(written["ace"], str)


def test_moves_and_reports_carry_members():
    game = parse_game(gin_game(KNOCK))
    move = game.deals[0].moves[0]
    assert type(move.action) is Action and type(move.source) is Pile
    result = verify(game).deals[0]
    assert type(result.outcome) is Outcome
    assert orjson.loads(orjson.dumps(verify(game).to_dict()))["deals"][0]["outcome"] == "knock"


def test_gin_phases():
    assert issubclass(GinPhase, StrEnum)
    assert {p.value for p in GinPhase} == {"upcard", "play", "after_knock"}
    game = parse_game(gin_game([], rules={"upcard_pass": True}))
    table = GinTable(game.rules, game.players, game.deals[0], (0, 1))
    assert table.phase is GinPhase.UPCARD

"""Parsing and validation of rummy-log/1 documents (service.engine.logformat) and the JSON Schemas.

The rule under test: a document is accepted exactly when it has the shape of LOG_FORMAT.md;
the fast path and the marshmallow schemas agree on every document and build equal games;
the JSON Schema copy rejects what it can express; garbage only ever raises
LogValidationError.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.engine.cards import CARD_NAMES, parse_card
from service.engine.limits import (
    MAX_CLAIM,
    MAX_DEALS,
    MAX_DEPTH,
    MAX_MELD_INDEX,
    MAX_MOVES,
    MAX_OPTION_POINTS,
    MAX_ROUND,
)
from service.engine.logformat import (
    ACTION_FIELDS,
    FORMAT,
    GameSchema,
    LogValidationError,
    fast_parse_game,
    game_from_json,
    load_json,
    name_errors,
    name_problem,
    parse_game,
    parse_header,
    schema_errors,
)
from service.engine.model import Deal, Game, Move
from service.engine.report import WARNING_CODES
from service.engine.rules import GIN, OPTIONS, PRESETS, RUMMY

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
LOG_SCHEMA = json.loads((SCHEMAS / "rummy-log-1.schema.json").read_text(encoding="utf-8"))
REPORT_SCHEMA = json.loads((SCHEMAS / "report.schema.json").read_text(encoding="utf-8"))
LOG_VALIDATOR = jsonschema.Draft202012Validator(LOG_SCHEMA)
REPORT_VALIDATOR = jsonschema.Draft202012Validator(REPORT_SCHEMA)

VIOLATION_CODES = [  # the closed list at the end of RULES.md
    "DUPLICATE_CARD", "WRONG_HAND_SIZE", "DEAL_MISMATCH", "WRONG_SEATING", "GAME_OVER",
    "DEAL_NOT_FINISHED", "SCORE_MISMATCH", "ACTION_NOT_ALLOWED", "MOVE_AFTER_DEAL_END",
    "NOT_YOUR_TURN", "MUST_DRAW_FIRST", "ALREADY_DREW", "CARD_NOT_IN_HAND",
    "STOCK_CARD_REQUIRED", "STOCK_CARD_MISMATCH", "WRONG_DISCARD_TOP", "EMPTY_STOCK",
    "EMPTY_DISCARD_PILE", "UPCARD_NOT_REFUSED", "STOCK_FLOOR", "INVALID_MELD",
    "TOO_MANY_MELDS", "NO_SUCH_MELD", "LAYOFF_DOES_NOT_FIT", "LAYOFF_BEFORE_OWN_MELD",
    "LAYOFF_ON_GIN", "MELDS_NOT_DECLARED", "MUST_DISCARD_TO_GO_OUT", "DISCARD_OF_TAKEN_CARD",
    "KNOCK_OVER_LIMIT", "GIN_WITH_DEADWOOD", "RESHUFFLE_NOT_ALLOWED", "RESHUFFLE_MISMATCH",
    "END_NOT_ALLOWED", "IMPOSSIBLE_RESULT",
]


def card(code: str) -> int:
    value = parse_card(code)
    assert value is not None
    return value


def shuffled_deck(seed: int) -> list[str]:
    deck = list(CARD_NAMES)
    random.Random(seed).shuffle(deck)
    return deck


# --------------------------------------------------------------------------- example logs

RUMMY_LOG: dict[str, Any] = {
    "format": "rummy-log/1", "variant": "rummy", "players": ["ana", "ben"],
    "deals": [{
        "dealer": "ben",
        "hands": {"ana": ["AH", "2H", "3H", "9C", "9D", "9S", "KC", "4D", "7S", "5C"],
                  "ben": ["2C", "3C", "4C", "JD", "JH", "TS", "8D", "6H", "QS", "5S"]},
        "upcard": "7D",
        "moves": [
            {"p": "ana", "a": "draw", "from": "stock", "card": "4H"},
            {"p": "ana", "a": "meld", "cards": ["AH", "2H", "3H", "4H"]},
            {"p": "ana", "a": "meld", "cards": ["9C", "9D", "9S"]},
            {"p": "ana", "a": "discard", "card": "KC"},
            {"p": "ben", "a": "draw", "from": "discard", "card": "KC"},
            {"p": "ben", "a": "meld", "cards": ["2C", "3C", "4C"]},
            {"p": "ben", "a": "layoff", "card": "5C", "meld": 2},
            {"p": "ben", "a": "discard", "card": "8D"},
        ],
        "claimed": {"points": {"ana": 0, "ben": 0}, "winner": None, "outcome": None}}],
    "claimed": {"totals": {"ana": 0, "ben": 0}},
}

GIN_LOG: dict[str, Any] = {
    "format": "rummy-log/1", "id": "club-2024-0117", "variant": "gin",
    "rules": {"upcard_pass": True, "knock_limit": 10, "target": None},
    "players": ["ana", "ben"],
    "tournament": {"id": "spring-open", "round": 2, "table": "T4"},
    "played_at": "2024-05-01T19:30:00+02:00",
    "deals": [{
        "dealer": "ben", "deck": shuffled_deck(1),
        "moves": [
            {"p": "ana", "a": "pass"},
            {"p": "ben", "a": "pass"},
            {"p": "ana", "a": "draw", "from": "stock"},
            {"p": "ana", "a": "discard", "card": "10d"},
            {"p": "ben", "a": "draw", "from": "discard", "card": "T♦"},
            {"p": "ben", "a": "knock", "card": "kc",
             "melds": [["7D", "8D", "9D"], ["QS", "QH", "QC"]]},
            {"p": "ana", "a": "layoff", "card": "6D", "meld": 0},
            {"p": "ana", "a": "show", "melds": [["2S", "3S", "4S"]]},
        ],
        "claimed": {"points": {"ana": 0, "ben": 12}, "winner": "ben", "outcome": "knock"}}],
    "claimed": {"totals": {"ana": 0, "ben": 12}, "winner": None},
    "meta": {"room": "blue", "software": {"name": "cardtable", "version": [1, 4]}},
}

GIN3_LOG: dict[str, Any] = {
    "format": "rummy-log/1", "variant": "gin", "players": ["ana", "ben", "cy"],
    "deals": [
        {"dealer": "ana", "players": ["ana", "ben"],
         "hands": {"ana": list(CARD_NAMES[0:10]), "ben": list(CARD_NAMES[10:20])}, "upcard": "8D",
         "moves": [{"p": "ben", "a": "draw", "from": "stock", "card": "9D"},
                   {"p": "ben", "a": "gin", "card": "TD"}],
         "claimed": {"points": {"ben": 40}, "winner": "ben", "outcome": "gin"}},
        {"dealer": "cy", "players": ["ben", "cy"],
         "hands": {"cy": list(CARD_NAMES[20:30]), "ben": list(CARD_NAMES[30:40])}, "upcard": "AH",
         "moves": []},
    ],
}

GIN4_LOG: dict[str, Any] = {
    "format": "rummy-log/1", "variant": "gin", "players": ["ana", "ben", "cy", "dee"],
    "teams": [["ana", "cy"], ["ben", "dee"]],
    "deals": [
        {"dealer": "ana", "players": ["ana", "ben"], "deck": shuffled_deck(2),
         "moves": [{"p": "ben", "a": "draw", "from": "stock"},
                   {"p": "ben", "a": "discard", "card": "5C"}]},
        {"dealer": "dee", "players": ["cy", "dee"], "deck": shuffled_deck(3),
         "moves": [{"p": "cy", "a": "draw", "from": "discard"},
                   {"p": "cy", "a": "knock", "card": "2H"}]},
    ],
    "claimed": {"totals": {"ana+cy": 10, "ben+dee": 0}, "winner": "ana+cy"},
}

BLOCK_LOG: dict[str, Any] = {
    "format": "rummy-log/1", "variant": "rummy-block", "players": ["ana", "ben", "cy"],
    "rules": {"max_stock_reuses": 1, "melds_per_turn": "unlimited", "deals": 3},
    "deals": [{
        "dealer": "cy", "players": ["ana", "ben", "cy"], "deck": shuffled_deck(4),
        "hands": {"ana": ["2C"], "ben": [], "cy": ["2C", "2C"]}, "upcard": " 7s ",
        "moves": [{"p": "ana", "a": "reshuffle", "stock": ["7S", "8S"]},
                  {"p": "ana", "a": "reshuffle"},
                  {"p": "ana", "a": "end", "reason": "stock_exhausted"},
                  {"p": "ben", "a": "end"},
                  {"p": "ben", "a": "pass"}]}],
}

EXAMPLES = {"rummy": RUMMY_LOG, "gin": GIN_LOG, "gin3": GIN3_LOG, "gin4": GIN4_LOG,
            "block": BLOCK_LOG}


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_are_valid_for_json_schema_and_parser(name: str) -> None:
    doc = copy.deepcopy(EXAMPLES[name])
    LOG_VALIDATOR.validate(doc)
    game = parse_game(doc)
    assert game == GameSchema().load(doc) == fast_parse_game(doc)
    assert game == game_from_json(orjson.dumps(doc))
    assert doc == EXAMPLES[name]  # parsing never changes the document


def test_rummy_model() -> None:
    game = parse_game(RUMMY_LOG)
    assert game.players == ("ana", "ben")
    assert game.rules.variant == "rummy" and game.rules.target == 150
    assert game.teams is None and game.meta == {}
    assert game.claimed == {"totals": {"ana": 0, "ben": 0}}
    deal = game.deals[0]
    assert deal.dealer == 1 and deal.players is None and deal.deck is None
    assert deal.hands is not None and set(deal.hands) == {0, 1}
    assert deal.hands[0][:3] == (card("AH"), card("2H"), card("3H"))
    assert deal.upcard == card("7D")
    assert deal.claimed == {"points": {"ana": 0, "ben": 0}, "winner": None, "outcome": None}
    assert deal.moves[0] == Move(0, "draw", source="stock", card=card("4H"))
    assert deal.moves[1] == Move(0, "meld", cards=tuple(card(c) for c in ("AH", "2H", "3H", "4H")))
    assert deal.moves[4] == Move(1, "draw", source="discard", card=card("KC"))
    assert deal.moves[6] == Move(1, "layoff", card=card("5C"), meld=2)
    assert all(isinstance(m.cards, tuple) for m in deal.moves if m.action == "meld")


def test_gin_model() -> None:
    game = parse_game(GIN_LOG)
    assert game.rules.is_gin and game.rules.upcard_pass and game.rules.target is None
    deal = game.deals[0]
    assert deal.deck == tuple(card(c) for c in shuffled_deck(1))
    assert deal.hands is None and deal.upcard is None
    moves = deal.moves
    assert moves[0] == Move(0, "pass") and moves[1] == Move(1, "pass")
    assert moves[2] == Move(0, "draw", source="stock")
    assert moves[3] == Move(0, "discard", card=card("TD"))
    assert moves[4] == Move(1, "draw", source="discard", card=card("TD"))
    assert moves[5] == Move(1, "knock", card=card("KC"), melds=(
        (card("7D"), card("8D"), card("9D")), (card("QS"), card("QH"), card("QC"))))
    assert moves[7] == Move(0, "show", melds=((card("2S"), card("3S"), card("4S")),))
    assert game.meta == GIN_LOG["meta"]
    assert parse_header(GIN_LOG) == {
        "id": "club-2024-0117", "tournament": {"id": "spring-open", "round": 2, "table": "T4"},
        "played_at": "2024-05-01T19:30:00+02:00", "variant": "gin"}
    assert parse_header(RUMMY_LOG) == {"id": None, "tournament": None, "played_at": None,
                                       "variant": "rummy"}


def test_three_and_four_player_gin_model() -> None:
    game3 = parse_game(GIN3_LOG)
    assert [d.players for d in game3.deals] == [(0, 1), (1, 2)]
    assert game3.deals[1].dealer == 2
    assert game3.deals[1].hands == {2: tuple(range(20, 30)), 1: tuple(range(30, 40))}
    assert game3.deals[0].moves[1] == Move(1, "gin", card=card("TD"))
    game4 = parse_game(GIN4_LOG)
    assert game4.teams == ((0, 2), (1, 3))
    assert [d.players for d in game4.deals] == [(0, 1), (2, 3)]
    assert game4.claimed == {"totals": {"ana+cy": 10, "ben+dee": 0}, "winner": "ana+cy"}


def test_block_model() -> None:
    game = parse_game(BLOCK_LOG)
    assert game.rules.max_stock_reuses == 1 and game.rules.melds_per_turn is None
    deal = game.deals[0]
    assert deal.players == (0, 1, 2)
    assert deal.hands == {0: (card("2C"),), 1: (), 2: (card("2C"), card("2C"))}
    assert deal.upcard == card("7S")
    assert deal.moves[0] == Move(0, "reshuffle", stock=(card("7S"), card("8S")))
    assert deal.moves[1] == Move(0, "reshuffle")
    assert deal.moves[2] == Move(0, "end", reason="stock_exhausted")
    assert deal.moves[3] == Move(1, "end")


# --------------------------------------------------------------------------- invalid logs

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return apply


def _del(path: str) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        del node[int(last) if isinstance(node, list) else last]
    return apply


def _minimal(variant: str, names: list[str]) -> Mutation:
    """Replace the document by a smallest log of ``variant`` seating ``names``."""
    def apply(doc: dict[str, Any]) -> None:
        deal: dict[str, Any] = {"dealer": names[0], "hands": {n: [] for n in names[:2]},
                                "upcard": "AS", "moves": []}
        if PRESETS[variant].family == GIN:
            deal["players"] = names[:2]
        else:
            deal["hands"] = {n: [] for n in names}
        doc.clear()
        doc.update(format=FORMAT, variant=variant, players=names, deals=[deal])
    return apply


def _all(*mutations: Mutation) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(doc)
    return apply


M0 = "deals.0.moves.0"
# (base example, mutation, the error path(s) it must report and no other, whether the JSON
# Schema can tell).  Each mutation breaks one rule only.
INVALID: dict[str, tuple[str, Mutation, str | set[str], bool]] = {
    "no format": ("gin", _del("format"), "format", True),
    "format v2": ("gin", _set("format", "rummy-log/2"), "format", True),
    "unknown field": ("gin", _set("moevs", []), "moevs", True),
    "id too long": ("gin", _set("id", "x" * 129), "id", True),
    "id a number": ("gin", _set("id", 7), "id", True),
    "null id": ("gin", _set("id", None), "id", True),
    "unknown variant": ("gin", _set("variant", "canasta"), "variant", True),
    "no variant": ("gin", _del("variant"), "variant", True),
    "unknown option": ("gin", _set("rules.knock_limt", 9), "rules.knock_limt", True),
    "option of other family": ("rummy", _set("rules", {"knock_limit": 5}), "rules.knock_limit",
                               True),
    "knock_limit 11": ("gin", _set("rules.knock_limit", 11), "rules.knock_limit", True),
    "knock_limit bool": ("gin", _set("rules.knock_limit", True), "rules.knock_limit", True),
    "rules not object": ("gin", _set("rules", [1]), "rules", True),
    "hand_size past its range": ("rummy", _set("rules", {"hand_size": 26}), "rules.hand_size",
                                 True),
    "hand_size leaves no stock": ("block", lambda d: d.update(
        players=["ana", "ben", "cy"], rules={"hand_size": 20}), "rules.hand_size", False),
    "players not list": ("gin", _set("players", "ana,ben"), "players", True),
    "players repeated": ("rummy", _set("players", ["ana", "ben", "ben"]), "players", True),
    "empty player name": ("rummy", _set("players", ["ana", "ben", ""]), "players.2", True),
    "player name too long": ("rummy", _set("players", ["ana", "ben", "b" * 65]), "players.2",
                             True),
    "player not string": ("rummy", _set("players", ["ana", "ben", 2]), "players.2", True),
    "one player": ("rummy", _minimal("rummy", ["ana"]), "players", True),
    "seven rummy players": ("rummy", _minimal("rummy", list("abcdefg")), "players", True),
    "five gin players": ("gin", _minimal("gin", list("abcde")), "players", True),
    "five greek players": ("rummy", _minimal("greek", list("abcde")), "players", True),
    "four gin players no teams": ("gin4", _all(_del("teams"), _del("claimed")), "teams", True),
    "teams in two-player gin": ("gin", _set("teams", [["ana"], ["ben"]]), "teams", True),
    "teams in rummy": ("rummy", _set("teams", [["ana"], ["ben"]]), "teams", True),
    "three teams": ("gin4", _all(_del("claimed"), _set("teams", [["ana", "cy"], ["ben"],
                                                                 ["dee"]])), "teams", True),
    "team not covering": ("gin4", _all(_del("claimed"), _set("teams", [["ana", "ben"],
                                                                       ["ana", "dee"]])),
                          "teams", False),
    "team of strangers": ("gin4", _all(_del("claimed"), _set("teams", [["ana", "cy"],
                                                                       ["ben", "zoe"]])),
                          "teams", False),
    "tournament unknown key": ("gin", _set("tournament.seat", 3), "tournament.seat", True),
    "tournament round 0": ("gin", _set("tournament.round", 0), "tournament.round", True),
    "tournament id empty": ("gin", _set("tournament.id", ""), "tournament.id", True),
    "played_at prose": ("gin", _set("played_at", "yesterday"), "played_at", True),
    "played_at no zone": ("gin", _set("played_at", "2024-05-01T19:30:00"), "played_at", True),
    "played_at 30 February": ("gin", _set("played_at", "2024-02-30T10:00:00Z"), "played_at",
                              False),
    "no deals": ("gin", _set("deals", []), "deals", True),
    "deals not list": ("gin", _set("deals", {}), "deals", True),
    "deal not object": ("gin", _set("deals.0", []), "deals.0", True),
    "no dealer": ("gin", _del("deals.0.dealer"), "deals.0.dealer", True),
    "dealer a stranger": ("gin", _set("deals.0.dealer", "zoe"), "deals.0.dealer", False),
    "deal unknown field": ("gin", _set("deals.0.moevs", []), "deals.0.moevs", True),
    "no moves": ("gin", _del("deals.0.moves"), "deals.0.moves", True),
    "deck 51 cards": ("gin", lambda d: d["deals"][0]["deck"].pop(), "deals.0.deck", True),
    "deck bad card": ("gin", _set("deals.0.deck.3", "1X"), "deals.0.deck.3", True),
    "no deck no hands": ("rummy", _del("deals.0.hands"), "deals.0.hands", True),
    "no deck no upcard": ("rummy", _del("deals.0.upcard"), "deals.0.upcard", True),
    "hand missing": ("rummy", _del("deals.0.hands.ben"), "deals.0.hands", False),
    "hand of a stranger": ("rummy", _set("deals.0.hands.zoe", []), "deals.0.hands.zoe", False),
    "hand of a sitter": ("gin3", _set("deals.0.hands.cy", []), "deals.0.hands.cy", False),
    "hand bad card": ("rummy", _set("deals.0.hands.ana.0", "ZZ"), "deals.0.hands.ana.0", True),
    "hand not list": ("rummy", _set("deals.0.hands.ana", "AH"), "deals.0.hands.ana", True),
    "upcard bad": ("rummy", _set("deals.0.upcard", "11H"), "deals.0.upcard", True),
    "rummy deal not everyone": ("block", _set("deals.0.players", ["ana", "cy"]),
                                "deals.0.players", False),
    "rummy deal of one": ("rummy", _set("deals.0.players", ["ana"]), "deals.0.players", True),
    "rummy deal player twice": ("rummy", _set("deals.0.players", ["ana", "ana"]),
                                "deals.0.players", True),
    "gin3 deal without players": ("gin3", _del("deals.0.players"), "deals.0.players", True),
    "gin deal three players": ("gin3", _set("deals.0.players", ["ana", "ben", "cy"]),
                               "deals.0.players", True),
    "gin deal same player twice": ("gin3", _all(_set("deals.0.players", ["ana", "ana"]),
                                                _del("deals.0.hands.ben")),
                                   "deals.0.players", True),
    "gin deal stranger": ("gin3", _set("deals.0.players", ["ana", "zoe"]), "deals.0.players.1",
                          False),
    "gin dealer sits out": ("gin3", _set("deals.1.dealer", "ana"), "deals.1.dealer", False),
    "move not object": ("gin", _set(M0, "pass"), M0, True),
    "unknown action": ("gin", _set(f"{M0}.a", "fold"), f"{M0}.a", True),
    "no action": ("gin", _del(f"{M0}.a"), f"{M0}.a", True),
    "no player": ("gin", _del(f"{M0}.p"), f"{M0}.p", True),
    "move by a stranger": ("gin", _set(f"{M0}.p", "zoe"), f"{M0}.p", False),
    "player a number": ("gin", _set(f"{M0}.p", 0), f"{M0}.p", True),
    "draw without pile": ("rummy", _del(f"{M0}.from"), f"{M0}.from", True),
    "draw from the table": ("rummy", _set(f"{M0}.from", "table"), f"{M0}.from", True),
    "draw with cards": ("rummy", _set(f"{M0}.cards", ["4H"]), f"{M0}.cards", True),
    "draw bad card": ("rummy", _set(f"{M0}.card", "4X"), f"{M0}.card", True),
    "discard without card": ("rummy", _del("deals.0.moves.3.card"), "deals.0.moves.3.card",
                             True),
    "discard card number": ("rummy", _set("deals.0.moves.3.card", 13), "deals.0.moves.3.card",
                            True),
    "discard with meld": ("rummy", _set("deals.0.moves.3.meld", 0), "deals.0.moves.3.meld",
                          True),
    "meld no cards": ("rummy", _set("deals.0.moves.1.cards", []), "deals.0.moves.1.cards",
                      True),
    "meld without cards": ("rummy", _del("deals.0.moves.1.cards"), "deals.0.moves.1.cards",
                           True),
    "layoff meld -1": ("rummy", _set("deals.0.moves.6.meld", -1), "deals.0.moves.6.meld", True),
    "layoff meld true": ("rummy", _set("deals.0.moves.6.meld", True), "deals.0.moves.6.meld",
                         True),
    "layoff meld 1.0": ("rummy", _set("deals.0.moves.6.meld", 1.0), "deals.0.moves.6.meld",
                        False),
    "layoff without meld": ("rummy", _del("deals.0.moves.6.meld"), "deals.0.moves.6.meld", True),
    "knock without card": ("gin", _del("deals.0.moves.5.card"), "deals.0.moves.5.card", True),
    "knock melds flat": ("gin", _set("deals.0.moves.5.melds", ["7D", "8D", "9D"]),
                         {f"deals.0.moves.5.melds.{i}" for i in range(3)}, True),
    "show with card": ("gin", _set("deals.0.moves.7.card", "2S"), "deals.0.moves.7.card", True),
    "pass with card": ("gin", _set(f"{M0}.card", "2S"), f"{M0}.card", True),
    "reshuffle stock not list": ("block", _set(f"{M0}.stock", "7S"), f"{M0}.stock", True),
    "end for another reason": ("block", _set("deals.0.moves.2.reason", "bored"),
                               "deals.0.moves.2.reason", True),
    "move unknown field": ("gin", _set(f"{M0}.x", 1), f"{M0}.x", True),
    "too many moves": ("gin", _set("deals.0.moves", [{"p": "ana", "a": "pass"}] * (MAX_MOVES + 1)),
                       "deals.0.moves", True),
    "too many deals": ("gin", lambda d: d.update(deals=d["deals"] * (MAX_DEALS + 1)), "deals",
                       True),
    "deal outcome unknown": ("gin", _set("deals.0.claimed.outcome", "win"),
                             "deals.0.claimed.outcome", True),
    "deal points not int": ("gin", _set("deals.0.claimed.points.ana", "3"),
                            "deals.0.claimed.points.ana", True),
    "deal points stranger": ("gin", _set("deals.0.claimed.points.zoe", 3),
                             "deals.0.claimed.points.zoe", False),
    "deal winner stranger": ("gin", _set("deals.0.claimed.winner", "zoe"),
                             "deals.0.claimed.winner", False),
    "deal claim unknown field": ("gin", _set("deals.0.claimed.loser", "ana"),
                                 "deals.0.claimed.loser", True),
    "totals stranger": ("gin", _set("claimed.totals.zoe", 1), "claimed.totals.zoe", False),
    "team winner in two-player gin": ("gin", _set("claimed.winner", "ana+ben"), "claimed.winner",
                                      False),
    "team name out of order": ("gin4", _set("claimed.winner", "cy+ana"), "claimed.winner", False),
    "totals float": ("gin", _set("claimed.totals.ana", 1.5), "claimed.totals.ana", True),
    "claim unknown field": ("gin", _set("claimed.loser", "ana"), "claimed.loser", True),
    "meta not object": ("gin", _set("meta", "blue room"), "meta", True),
    "year 9999": ("gin", _set("played_at", "9999-12-31T23:59:59-01:00"), "played_at", True),
    "year 1899": ("gin", _set("played_at", "1899-12-31T23:59:59Z"), "played_at", True),
    "leap second": ("gin", _set("played_at", "2016-12-31T23:59:60Z"), "played_at", True),
    "round past its range": ("gin", _set("tournament.round", MAX_ROUND + 1), "tournament.round",
                             True),
    "round of 2^31": ("gin", _set("tournament.round", 2**31), "tournament.round", True),
    "total past 2^53": ("gin", _set("claimed.totals.ana", MAX_CLAIM + 1), "claimed.totals.ana",
                        True),
    "total below -2^53": ("gin", _set("claimed.totals.ana", -MAX_CLAIM - 1),
                          "claimed.totals.ana", True),
    "deal points past 2^53": ("gin", _set("deals.0.claimed.points.ben", 2**63),
                              "deals.0.claimed.points.ben", True),
    "meld index of 3e9": ("gin", _set("deals.0.moves.6.meld", 3_000_000_000),
                          "deals.0.moves.6.meld", True),
    "meld index past 51": ("gin", _set("deals.0.moves.6.meld", MAX_MELD_INDEX + 1),
                           "deals.0.moves.6.meld", True),
    "box bonus of 3e9": ("gin", _set("rules.box_bonus", 3_000_000_000), "rules.box_bonus", True),
    "ace points past the range": ("gin", _set("rules.ace_points", MAX_OPTION_POINTS + 1),
                                  "rules.ace_points", True),
}


@pytest.mark.parametrize("name", INVALID)
def test_invalid_documents_are_rejected(name: str) -> None:
    base, mutate, paths, schema_can_tell = INVALID[name]
    doc = copy.deepcopy(EXAMPLES[base])
    mutate(doc)
    with pytest.raises(LogValidationError) as caught:
        parse_game(doc)
    errors = caught.value.errors
    assert set(errors) == ({paths} if isinstance(paths, str) else paths), errors
    assert all(isinstance(m, str) and m for msgs in errors.values() for m in msgs)
    assert fast_parse_game(doc) is None
    # The JSON Schema rejects what it can express; the rest passes it.
    assert LOG_VALIDATOR.is_valid(doc) is not schema_can_tell


def test_every_problem_is_listed() -> None:
    doc = copy.deepcopy(GIN_LOG)
    doc["rules"]["knock_limit"] = 12
    doc["rules"]["scoring"] = "penalty"
    doc["tournament"]["round"] = "two"
    moves = doc["deals"][0]["moves"]
    moves[3]["card"] = "1X"
    moves[4]["p"] = "zoe"
    moves[5]["cards"] = ["KC"]
    del moves[6]["meld"]
    doc["deals"][0]["claimed"]["outcome"] = "won"
    doc["deals"].append({"dealer": "ben", "moves": []})
    with pytest.raises(LogValidationError) as caught:
        parse_game(doc)
    errors = caught.value.errors
    assert errors["deals.0.moves.3.card"] == ["'1X' is not a card"]
    assert errors["rules.knock_limit"] == ["knock_limit must be an integer from 0 to 10"]
    assert set(errors) == {
        "rules.knock_limit", "rules.scoring", "tournament.round", "deals.0.moves.3.card",
        "deals.0.moves.4.p", "deals.0.moves.5.cards", "deals.0.moves.6.meld",
        "deals.0.claimed.outcome", "deals.1.hands", "deals.1.upcard"}
    assert "deals.0.moves.3.card" in str(caught.value)


def test_errors_on_the_same_path_are_merged() -> None:
    doc = copy.deepcopy(RUMMY_LOG)
    doc["deals"][0]["hands"]["zoe"] = ["1X"]
    errors = schema_errors(doc)
    assert sorted(errors) == ["deals.0.hands.zoe", "deals.0.hands.zoe.0"]
    assert errors["deals.0.hands.zoe"] == ["'zoe' does not play this deal"]


VALID_VARIATIONS: dict[str, tuple[str, Mutation]] = {
    "card notations": ("rummy", _set("deals.0.hands.ana", ["10d", "T♦", "td", " 7S", "q♠",
                                                            "A♡", "10♣"])),
    "duplicate cards": ("gin", lambda d: d["deals"][0]["deck"].__setitem__(0, "AS")),
    "hands of any size": ("rummy", _set("deals.0.hands", {"ana": [], "ben": ["AS"] * 30})),
    "deck beside hands": ("gin", lambda d: d["deals"][0].update(
        hands={"ana": ["AS"], "ben": ["2S"]}, upcard="3S")),
    "empty moves": ("gin", _set("deals.0.moves", [])),
    "rummy deal lists everyone": ("rummy", _set("deals.0.players", ["ben", "ana"])),
    "two-player gin deal lists both": ("gin", _set("deals.0.players", ["ben", "ana"])),
    "null target": ("rummy", _set("rules", {"target": None, "deals": 2})),
    "empty id": ("gin", _set("id", "")),
    "free-form meta": ("gin", _set("meta", {"a": [[[[{"b": None}]]]], "moevs": 1.5})),
    "claims by team members": ("gin4", _set("claimed.totals", {"ana": 5, "ana+cy": 5})),
    "fractional seconds": ("gin", _set("played_at", "2024-12-31t23:59:59.25z")),
    "first and last years": ("gin", _set("played_at", "1900-01-01T00:00:00+23:59")),
    "last year": ("gin", _set("played_at", "9998-12-31T23:59:59.999999999-23:59")),
    "largest claims": ("gin", _set("claimed.totals", {"ana": MAX_CLAIM, "ben": -MAX_CLAIM})),
    "last round": ("gin", _set("tournament.round", MAX_ROUND)),
    "any seated mover": ("gin3", _set("deals.0.moves.0.p", "cy")),
    "draw without card": ("rummy", _del(f"{M0}.card")),
    "action of the other family": ("rummy", _set(f"{M0}", {"p": "ana", "a": "knock",
                                                           "card": "AH"})),
}


@pytest.mark.parametrize("name", VALID_VARIATIONS)
def test_valid_variations_are_accepted(name: str) -> None:
    base, mutate = VALID_VARIATIONS[name]
    doc = copy.deepcopy(EXAMPLES[base])
    mutate(doc)
    LOG_VALIDATOR.validate(doc)
    assert fast_parse_game(doc) is not None
    assert parse_game(doc) == GameSchema().load(doc)


def test_limits_are_inclusive() -> None:
    doc = copy.deepcopy(GIN_LOG)
    doc["deals"][0]["moves"] = [{"p": "ana", "a": "pass"}] * MAX_MOVES
    doc["id"] = "x" * 128
    doc["players"] = ["a" * 64, "ben"]
    for key in ("deals", "claimed"):
        doc.pop(key)
    doc["deals"] = [{"dealer": "ben", "hands": {"ben": [], "a" * 64: []}, "upcard": "AS",
                     "moves": [{"p": "ben", "a": "pass"}] * MAX_MOVES}] * 2
    assert len(parse_game(doc).deals[0].moves) == MAX_MOVES
    doc["deals"] = [doc["deals"][0] | {"moves": []}] * MAX_DEALS
    assert len(parse_game(doc).deals) == MAX_DEALS


# --------------------------------------------------------------------------- garbage

def test_load_json_rejects_garbage_as_whole_document() -> None:
    text = orjson.dumps(GIN_LOG)
    cases: list[Any] = [
        text[:-1], text[: len(text) // 2], b"", b"   ", b"{", b"nul", b"NaN", b"[1,]",
        b"\xff\xfe{}", b'{"a": "\xff"}', "\ud800", b'{"a":1}{"b":2}', b"\xef\xbb\xbf{}",
        b"[" * 100_000 + b"]" * 100_000, b"[" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b'"' + b"x" * (10 << 20) + b'"', "x" * (10 << 20),
        12, None, [text],
    ]
    for data in cases:
        with pytest.raises(LogValidationError) as caught:
            load_json(data)
        assert list(caught.value.errors) == [""]
        assert len(str(caught.value)) < 300
        with pytest.raises(LogValidationError):
            game_from_json(data)


def test_depth_limit() -> None:
    def nested(depth: int) -> bytes:  # `depth` arrays and objects inside each other
        inner = b"[" * (depth - 1) + b'"]]}{"' + b"]" * (depth - 1)
        return b'{"k":' + inner + b"}"

    assert load_json(nested(MAX_DEPTH))["k"] is not None
    with pytest.raises(LogValidationError, match="deeper"):
        load_json(nested(MAX_DEPTH + 1))
    escaped = b'{"k": ["\\\\", "\\"[[[[", "\\\\\\"{{{{{{"], "\\\\[": [[]]}'
    assert load_json(escaped)["\\["] == [[]]
    brackets_in_strings = orjson.dumps({"k": ["[" * 50, "{" * 50, "]]" * 50]})
    assert load_json(brackets_in_strings)["k"][0] == "[" * 50
    doc = copy.deepcopy(GIN_LOG)
    doc["meta"] = {"x": [[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]}  # depth 20 with the document
    assert game_from_json(orjson.dumps(doc)).meta == doc["meta"]
    doc["meta"] = {"x": [doc["meta"]["x"]]}
    with pytest.raises(LogValidationError):
        game_from_json(orjson.dumps(doc))


def test_size_limit() -> None:
    text = orjson.dumps(GIN_LOG)
    assert game_from_json(text, max_bytes=len(text)) == parse_game(GIN_LOG)
    with pytest.raises(LogValidationError, match="larger"):
        game_from_json(text, max_bytes=len(text) - 1)
    with pytest.raises(LogValidationError, match="larger"):
        game_from_json(text.decode() + " ", max_bytes=len(text))
    with pytest.raises(LogValidationError, match="larger"):  # é is two bytes
        load_json('"' + "é" * 10 + '"', max_bytes=15)


REPEATED = ["this key appears more than once in its object"]


def test_a_repeated_key_anywhere_is_an_error_at_its_path() -> None:
    text = orjson.dumps(GIN_LOG)
    assert load_json(text) == GIN_LOG
    top = text.replace(b'"variant":', b'"variant":"rummy","variant":', 1)
    assert orjson.loads(top)["variant"] == GIN_LOG["variant"]  # orjson keeps the last
    with pytest.raises(LogValidationError) as caught:
        load_json(top)
    assert caught.value.errors == {"variant": REPEATED}
    doc = copy.deepcopy(GIN_LOG)
    doc["deals"][0]["moves"][1] = {"p": "ana", "a": "discard", "card": "KS"}
    doc["meta"] = {"room": {"table": 3}}
    text = orjson.dumps(doc).replace(b'"card":"KS"', b'"card":"QS","card":"KS"')
    text = text.replace(b'"table":3', b'"table":3,"table":3')
    with pytest.raises(LogValidationError) as caught:
        game_from_json(text)
    assert caught.value.errors == {"deals.0.moves.1.card": REPEATED,
                                   "meta.room.table": REPEATED}
    assert load_json(text, repeated_keys=True)["meta"] == doc["meta"]  # stored logs


def test_colons_in_strings_and_escaped_colons_are_no_repeated_keys() -> None:
    doc = copy.deepcopy(GIN_LOG) | {"played_at": "2024-05-01T21:30:00+02:00",
                                    "meta": {"a:b": "::", ":": ":x", "x": "\":"}}
    for text in (orjson.dumps(doc), json.dumps(doc, indent=1).encode(),
                 json.dumps(doc).replace(":", "\\u003a").replace('"\\u003a ', '": ')
                 .encode()):
        assert load_json(text) == doc, text
    # An escaped colon in the text hides no repeated key: one colon fewer in the text
    # than in the value would otherwise make up for the repeated pair's colon.
    text = b'{"x\\u003a":1,"a":1,"a":2}'
    with pytest.raises(LogValidationError) as caught:
        load_json(text)
    assert caught.value.errors == {"a": REPEATED}


def _json_text(value: Any, rng: random.Random) -> str:
    """``value`` as JSON text, pairs given as lists of (key, value) so that a key may
    repeat, with random spacing and random escapes."""
    space = rng.choice(["", " ", "\n  "])
    if isinstance(value, tuple):  # an object: its pairs
        pairs = [f"{_json_text(key, rng)}{space}:{space}{_json_text(item, rng)}"
                 for key, item in value]
        return "{" + ",".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + f",{space}".join(_json_text(item, rng) for item in value) + "]"
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


def _repeats(value: Any, path: str = "") -> set[str]:
    found: set[str] = set()
    if isinstance(value, tuple):
        keys = [key for key, _ in value]
        found |= {f"{path}.{key}" if path else key for key in keys if keys.count(key) > 1}
        for key, item in dict(value).items():  # inside the last value of a key only
            found |= _repeats(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found |= _repeats(item, f"{path}.{i}" if path else str(i))
    return found


_KEYS = st.sampled_from(["a", "b", ":", "a:b", "\u003a", "é", "x\"y"])
_PAIRED = st.recursive(
    st.none() | st.integers(-5, 5) | st.sampled_from(["", ":", "12:30", "a\\:b", "é:"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(st.tuples(_KEYS, inner), max_size=4).map(tuple),
    max_leaves=12)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(st.tuples(_KEYS, _PAIRED), max_size=4).map(tuple), st.randoms())
def test_repeated_keys_are_found_exactly(pairs: tuple, rng: random.Random) -> None:
    """Whatever the spacing, escapes and colons in strings: an error exactly when some
    object repeats a key, at the path of each repeated key, else the value decoded."""
    text = _json_text(pairs, rng).encode()
    expected = _repeats(pairs)
    if expected:
        with pytest.raises(LogValidationError) as caught:
            load_json(text)
        assert set(caught.value.errors) == expected
    else:
        assert load_json(text) == orjson.loads(text)


@pytest.mark.parametrize("top", [[], "gin", 1, 1.5, None, True, [GIN_LOG]])
def test_top_level_must_be_an_object(top: Any) -> None:
    with pytest.raises(LogValidationError) as caught:
        parse_game(top)
    assert list(caught.value.errors) == [""]
    with pytest.raises(LogValidationError):
        game_from_json(orjson.dumps(top))


def test_huge_and_deep_values_in_python_objects() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    huge = "x" * (10 << 20)
    for path in ("id", "variant", "players", "players.0", "rules.knock_limit", "rules.ace",
                 "deals", "deals.0", "deals.0.deck", "deals.0.moves.0", "deals.0.moves.0.p",
                 "deals.0.moves.0.a", "deals.0.moves.3.card", "deals.0.claimed",
                 "claimed.totals", "tournament", "teams"):
        for value in (deep, huge):
            doc = copy.deepcopy(GIN_LOG)
            _set(path, value)(doc)
            with pytest.raises(LogValidationError) as caught:
                parse_game(doc)
            assert len(str(caught.value)) < 1000
            assert all(len(m) < 300 for msgs in caught.value.errors.values() for m in msgs)
    doc = copy.deepcopy(GIN_LOG)
    doc["meta"] = {"deep": deep, "huge": huge}
    assert parse_game(doc).meta["huge"] is huge


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "ana", "ben", "gin", "rummy", FORMAT, "7D", "draw", "stock"])
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["format", "variant", "players", "deals", "dealer", "moves", "p", "a",
                         "hands", "upcard", "card", "x"]), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=100, derandomize=True, deadline=None)
@given(JSON_VALUES)
def test_wrong_types_everywhere(value: Any) -> None:
    try:
        game = parse_game(value)
    except LogValidationError as exc:
        assert exc.errors and all(isinstance(k, str) for k in exc.errors)
    else:
        assert isinstance(game, Game)


# --------------------------------------------------------------------------- equivalence

NAMES = ["ana", "ben", "cy", "dee", "eve", "fay"]
CODES = list(CARD_NAMES) + ["10d", "t♦", "as", "Q♠", "2♧", " 9H"]
VALID_OVERRIDES: dict[str, list[tuple[str, Any]]] = {
    "both": [("ace", "high_or_low"), ("ace_points", 11), ("discard_taken_card", True),
             ("target", None), ("target", 50), ("deals", 2), ("hand_size", 7)],
    RUMMY: [("melds_per_turn", 1), ("melds_per_turn", "unlimited"), ("scoring", "penalty"),
            ("stock_exhausted", "end_deal"), ("max_stock_reuses", None),
            ("discard_to_go_out", True), ("rummy_bonus", "none")],
    GIN: [("knock_limit", 0), ("upcard_pass", True), ("oklahoma", False), ("stock_floor", 0),
          ("big_gin_bonus", 50)],
}
POOL: list[Any] = [
    None, True, False, 0, 1, -1, 2, 52, 1.0, 2.5, "", "zoe", "ana", "ben", "cy", "dee", "7D",
    "10d", "1X", "T♦", "draw", "pass", "discard", "meld", "knock", "show", "end", "stock",
    "stock_exhausted", "out", "gin", "rummy", "greek", FORMAT, "rummy-log/2",
    "2024-05-01T19:30:00Z", "ana+cy", "ana+ben", [], {}, ["7D"], [["7D", "8D"]], ["ana", "ben"],
    {"ana": 1}, {"p": "ana", "a": "pass"}, "x" * 70]
KEY_POOL = ["p", "a", "from", "card", "cards", "meld", "melds", "stock", "reason", "dealer",
            "players", "deck", "hands", "upcard", "moves", "claimed", "points", "winner",
            "outcome", "totals", "id", "round", "table", "teams", "rules", "meta", "x",
            "knock_limit", "ana", "zoe"]


def _move(action: str, required: dict[str, Any] | None = None,
          optional: dict[str, Any] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """A move whose `p` is a seat number, named once the players are known."""
    return st.fixed_dictionaries({"p": st.integers(0, 3), "a": st.just(action),
                                  **(required or {})}, optional=optional or {})


CODE = st.sampled_from(CODES)
MELDS = st.lists(st.lists(CODE, min_size=1, max_size=3), max_size=2)
MOVES = st.lists(st.one_of(
    _move("draw", {"from": st.sampled_from(["stock", "discard"])}, {"card": CODE}),
    _move("pass"),
    _move("meld", {"cards": st.lists(CODE, min_size=1, max_size=3)}),
    _move("layoff", {"card": CODE, "meld": st.integers(0, 3)}),
    _move("discard", {"card": CODE}),
    _move("knock", {"card": CODE}, {"melds": MELDS}),
    _move("gin", None, {"card": CODE, "melds": MELDS}),
    _move("show", None, {"melds": MELDS}),
    _move("reshuffle", None, {"stock": st.lists(CODE, max_size=3)}),
    _move("end", None, {"reason": st.just("stock_exhausted")}),
), max_size=5)
SEATS = st.permutations(range(6))
META = st.dictionaries(st.text(max_size=3), JSON_VALUES, max_size=2)
TOURNAMENT = st.fixed_dictionaries({}, optional={
    "id": st.just("open"), "round": st.integers(1, 9), "table": st.just("")})
PLAYED_AT = st.sampled_from(["2024-05-01T19:30:00Z", "2023-02-28T00:00:00.5-05:30"])
HAND = st.lists(CODE, max_size=4)
POINTS = st.lists(st.tuples(st.integers(0, 5), st.integers(-5, 200)), max_size=4)
WINNER = st.none() | st.integers(0, 5)
OUTCOME = st.none() | st.sampled_from(["out", "gin", "knock", "blocked"])


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """Valid logs of every variant, small, with every optional field now and then."""
    variant = draw(st.sampled_from(sorted(PRESETS)))
    preset = PRESETS[variant]
    n = draw(st.integers(preset.min_players, min(preset.max_players, 4)))
    players = [NAMES[i] for i in draw(SEATS)[:n]]
    gin = preset.family == GIN
    doc: dict[str, Any] = {"format": FORMAT, "variant": variant, "players": players}
    if gin and n == 4:
        doc["teams"] = [[players[0], players[2]], [players[1], players[3]]]
    if draw(st.booleans()):
        choices = VALID_OVERRIDES["both"] + VALID_OVERRIDES[preset.family]
        doc["rules"] = dict(draw(st.lists(st.sampled_from(choices), max_size=3)))
    if draw(st.booleans()):
        doc["id"] = draw(st.text(max_size=8).filter(lambda text: name_problem(text) is None))
    if draw(st.booleans()):
        doc["tournament"] = draw(TOURNAMENT)
    if draw(st.booleans()):
        doc["played_at"] = draw(PLAYED_AT)
    if draw(st.booleans()):
        doc["meta"] = draw(META)
    names = players + (["+".join(t) for t in doc["teams"]] if "teams" in doc else [])
    if draw(st.booleans()):
        doc["claimed"] = {"totals": {names[i % len(names)]: v for i, v in draw(POINTS)}}
        if draw(st.booleans()):
            winner = draw(WINNER)
            doc["claimed"]["winner"] = None if winner is None else names[winner % len(names)]
    deals = []
    for _ in range(draw(st.integers(1, 2))):
        deal: dict[str, Any] = {}
        seated = players
        if gin and (n >= 3 or draw(st.booleans())):
            seated = [players[i] for i in draw(SEATS) if i < n][:2]
            deal["players"] = seated
        elif not gin and draw(st.booleans()):
            deal["players"] = [players[i] for i in draw(SEATS) if i < n]
        deal["dealer"] = seated[draw(st.integers(0, len(seated) - 1))]
        with_deck = draw(st.booleans())
        if with_deck:
            deal["deck"] = list(CARD_NAMES)
            random.Random(draw(st.integers(0, 3))).shuffle(deal["deck"])
        if not with_deck or draw(st.booleans()):
            deal["hands"] = {name: draw(HAND) for name in seated}
            deal["upcard"] = draw(CODE)
        deal["moves"] = draw(MOVES)
        for move in deal["moves"]:
            move["p"] = players[move["p"] % n]
        if draw(st.booleans()):
            claimed = {"points": {players[i % n]: v for i, v in draw(POINTS)}}
            winner = draw(WINNER)
            claimed["winner"] = None if winner is None else players[winner % n]
            claimed["outcome"] = draw(OUTCOME)
            for key in ("points", "winner", "outcome"):
                if draw(st.booleans()):
                    del claimed[key]
            deal["claimed"] = claimed
        deals.append(deal)
    doc["deals"] = deals
    return doc


def _locations(doc: Any) -> dict[str, list[tuple[Any, Any]]]:
    """Every (container, key or index) of the document grouped by its kind of place.

    The kind is the path with list indexes and the names of free-form keys (hands,
    points, totals, meta) as ``*``; a list shows its first four items only.
    """
    out: dict[str, list[tuple[Any, Any]]] = {}
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        node, kind = stack.pop()
        if isinstance(node, dict):
            free = kind.rsplit(".", 1)[-1] in ("hands", "points", "totals", "meta", "*")
            items = list(node.items())
        else:
            free = True
            items = list(enumerate(node))[:4]
        for key, value in items:
            child = f"{kind}.{'*' if free else key}"
            out.setdefault(child, []).append((node, key))
            if isinstance(value, (dict, list)):
                stack.append((value, child))
    return out


STRINGS = ["", "zoe", "ana+cy", "ana+ben", "7D", "10d", "1X", "draw", "pass", "discard", "meld",
           "knock", "gin", "show", "end", "stock", "stock_exhausted", "bored", "out", "rummy",
           "greek", "rummy-pagat", FORMAT, "rummy-log/2", "2024-05-01T19:30:00Z",
           "2024-02-30T10:00:00Z", "x" * 70]
INTS = [-1, 0, 1, 2, 3, 11, 52, 1.0, True, "1", None]


def mutate(doc: dict[str, Any], data: st.DataObject) -> None:
    """One random change at a random kind of place: drop, replace, rename, insert, repeat.

    Replacements fit what was there (a string by names, cards, actions; a number by
    numbers around the limits) so that cross-field rules get broken, not just types.
    """
    places = _locations(doc)
    kind = data.draw(st.sampled_from(sorted(places)))
    node, key = data.draw(st.sampled_from(places[kind]))
    names = [p for p in doc.get("players", []) if isinstance(p, str)] if isinstance(
        doc.get("players"), list) else []
    current = node[key]
    if isinstance(current, str):
        pool = names + STRINGS
    elif isinstance(current, (int, float)) or current is None:
        pool = INTS + names
    else:
        pool = POOL
    op = data.draw(st.sampled_from(["drop", "replace", "replace", "replace", "rename",
                                    "insert", "repeat"]))
    value = copy.deepcopy(data.draw(st.sampled_from(pool)))
    if op == "drop":
        del node[key]
    elif op == "replace":
        node[key] = value
    elif isinstance(node, dict) and op == "rename":
        node[data.draw(st.sampled_from(KEY_POOL + names))] = node.pop(key)
    elif isinstance(node, dict):
        node[data.draw(st.sampled_from(KEY_POOL + names))] = value
    elif op == "repeat":
        node.append(copy.deepcopy(node[key]))
    else:
        node.insert(key, value)


SCHEMA = GameSchema()


def judge(doc: Any) -> tuple[Game | None, Game | None]:
    fast = fast_parse_game(doc)
    try:
        slow = SCHEMA.load(doc)
    except ValidationError:
        slow = None
    return fast, slow


@settings(max_examples=200, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(documents(), st.data())
def test_fast_path_and_schemas_agree(doc: dict[str, Any], data: st.DataObject) -> None:
    valid_fast, valid_slow = judge(doc)
    assert valid_fast is not None and valid_fast == valid_slow, schema_errors(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(doc, data)
        fast, slow = judge(doc)
        assert (fast is None) == (slow is None), (schema_errors(doc), doc)
        assert fast == slow
        if slow is None or name_errors(doc):
            with pytest.raises(LogValidationError):
                parse_game(doc)
        else:
            assert parse_game(doc) == slow == game_from_json(orjson.dumps(doc))
        if slow is not None:  # a stored log is read back without the rule of names
            assert parse_game(doc, stored=True) == slow


TINY_LOGS: dict[str, dict[str, Any]] = {
    "gin4": {
        "format": FORMAT, "id": "t", "variant": "gin", "rules": {"knock_limit": 5},
        "players": ["ana", "ben", "cy", "dee"], "teams": [["ana", "cy"], ["ben", "dee"]],
        "tournament": {"id": "open", "round": 1, "table": "2"},
        "played_at": "2024-05-01T19:30:00Z",
        "deals": [
            {"dealer": "ana", "players": ["ana", "ben"], "hands": {"ana": ["AS"], "ben": ["2S"]},
             "upcard": "3S",
             "moves": [{"p": "ben", "a": "pass"},
                       {"p": "ben", "a": "draw", "from": "stock", "card": "4S"},
                       {"p": "ben", "a": "discard", "card": "4S"},
                       {"p": "ana", "a": "knock", "card": "AS", "melds": [["2C", "3C", "4C"]]},
                       {"p": "ben", "a": "layoff", "card": "5C", "meld": 0},
                       {"p": "ben", "a": "show", "melds": []},
                       {"p": "cy", "a": "gin"}],
             "claimed": {"points": {"ana": 3}, "winner": "ana", "outcome": "knock"}},
            {"dealer": "dee", "players": ["cy", "dee"], "deck": list(CARD_NAMES), "moves": []}],
        "claimed": {"totals": {"ana+cy": 3, "ben": 0}, "winner": "ana+cy"},
        "meta": {"k": [1]}},
    "rummy3": {
        "format": FORMAT, "variant": "rummy-pagat", "players": ["ana", "ben", "cy"],
        "rules": {"melds_per_turn": "unlimited", "hand_size": 7},
        "deals": [{"dealer": "cy", "players": ["ana", "ben", "cy"],
                   "hands": {"ana": ["AS", "2S"], "ben": [], "cy": ["KD"]}, "upcard": "10h",
                   "moves": [{"p": "ana", "a": "draw", "from": "discard"},
                             {"p": "ana", "a": "meld", "cards": ["AS", "2S", "3S"]},
                             {"p": "ana", "a": "reshuffle", "stock": ["9S"]},
                             {"p": "ana", "a": "end", "reason": "stock_exhausted"}]}]},
    "gin-sheet": {
        "format": FORMAT, "variant": "gin", "players": ["ana", "ben"],
        "rules": {"big_gin_bonus": 31},
        "deals": [
            {"dealer": "ben", "result": {"end": "knock", "by": "ana",
                                         "hand_values": {"ana": 4, "ben": 19},
                                         "melds": {"ana": [["3C", "4C", "5C"]]},
                                         "cards": {"ana": ["AS", "3D"]}},
             "claimed": {"points": {"ana": 15}, "outcome": "knock",
                         "totals": {"ana": 15, "ben": 0}}},
            {"dealer": "ana", "upcard": "7D", "result": {"end": "void"}},
            {"dealer": "ben", "result": {"end": "big_gin", "by": "ben",
                                         "hand_values": {"ana": 9, "ben": 0}}}],
        "claimed": {"totals": {"ana": 15}, "boxes": {"ana": 1, "ben": 1},
                    "bonuses": {"ana": {"box": 20, "game": 0}, "ben": {"shutout": 0}}}},
    "gin-hollywood": {
        "format": FORMAT, "variant": "gin", "players": ["ana", "ben"],
        "rules": {"hollywood": True, "oklahoma": True, "shutout_double": True},
        "deals": [
            {"dealer": "ben", "upcard": "9S",
             "result": {"end": "gin", "by": "ana", "hand_values": {"ana": 0, "ben": 19}},
             "claimed": {"points": {"ana": 88}, "games": [{"ana": 88}, {"ben": 0}]}},
            {"dealer": "ana", "hands": {"ana": ["AS"], "ben": ["2S"]}, "upcard": "3S",
             "moves": []}],
        "claimed": {"totals": {"ana": 88}, "winner": "ana",
                    "games": [{"totals": {"ana": 88}, "boxes": {"ana": 1},
                               "bonuses": {"ana": {"shutout": 0}}}, {"winner": "ana"}]}},
    "rummy-sheet": {
        "format": FORMAT, "variant": "rummy", "players": ["ana", "ben", "cy"],
        "deals": [
            {"dealer": "cy", "result": {"end": "out", "by": "ana",
                                        "hand_values": {"ben": 12, "cy": 5},
                                        "cards": {"cy": ["5H"]}},
             "claimed": {"points": {"ana": 17}, "totals": {"ana": 17}}},
            {"dealer": "ana", "players": ["ana", "ben", "cy"],
             "result": {"end": "blocked", "hand_values": {"ana": 6, "ben": 15, "cy": 7}}}]},
    "gin3": {
        "format": FORMAT, "variant": "gin", "players": ["ana", "ben", "cy"],
        "deals": [{"dealer": "ben", "players": ["ben", "cy"], "hands": {"ben": [], "cy": []},
                   "upcard": "AS", "moves": [{"p": "cy", "a": "draw", "from": "discard"}]}]},
}
RESULT_VALUES = {"end": "void", "by": "ana", "hand_values": {}, "melds": {}, "cards": {}}
MOVE_VALUES = {"from": "stock", "card": "AS", "cards": ["AS"], "meld": 0, "melds": [],
               "stock": [], "reason": "stock_exhausted"}


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in the document (of a list longer than 8: its first two), parents first."""
    out = []
    items = doc.items() if isinstance(doc, dict) else list(enumerate(doc))[:2 if len(doc) > 8
                                                                          else 8]
    for key, value in items:
        out.append((*prefix, key))
        if isinstance(value, (dict, list)):
            out.extend(_paths(value, (*prefix, key)))
    return out


def single_mutations(doc: dict[str, Any]) -> list[tuple[str, Mutation]]:
    """Every one-step change of the kinds a careless or hostile uploader makes."""
    names = [*doc["players"], "zoe", "ana+cy", "ben+dee", "ana+ben"]
    out: list[tuple[str, Mutation]] = []

    def at(path: tuple[Any, ...], change: Callable[[Any, Any], None], what: str) -> None:
        def apply(d: dict[str, Any]) -> None:
            node: Any = d
            for key in path[:-1]:
                node = node[key]
            change(node, path[-1])
        out.append((f"{'.'.join(map(str, path))}: {what}", apply))

    for path in _paths(doc):
        node: Any = doc
        for key in path:
            node = node[key]
        at(path, lambda n, k: n.__delitem__(k), "drop")
        if isinstance(node, str):
            pool: list[Any] = names + ["", "1X", "7d", "pass", "knock", "stock", "discard",
                                       "void", "blocked", "big_gin", "out", "gin",
                                       "stock_exhausted", "x" * 65, "x" * 129,
                                       "2024-02-30T10:00:00Z",
                                       None, 1]
        elif isinstance(node, (bool, int)):
            pool = [-1, 0, 1, 11, 1.0, True, None, "1"]
        elif isinstance(node, list):
            pool = [None, [], {}, "AS"]
            first = node[0] if node else "zoe"
            at(path, lambda n, k, first=first: n[k].append(copy.deepcopy(first)), "repeat")
            at(path, lambda n, k: n[k].append("zoe"), "append zoe")
            at(path, lambda n, k: n[k].insert(0, []), "insert []")
        else:
            pool = [None, [], {}, "AS"]
            at(path, lambda n, k: n[k].__setitem__("x", 1), "unknown key")
            if path[-1] == "result":
                for field, value in RESULT_VALUES.items():
                    if field not in node:
                        at(path, lambda n, k, f=field, v=value: n[k].__setitem__(f, v),
                           f"add {field}")
            if path[-2:-1] == ("deals",) and "result" in node:
                at(path, lambda n, k: n[k].__setitem__("moves", []), "add moves")
                at(path, lambda n, k: n[k].__setitem__("hands", {}), "add hands")
            if path[-2:-1] == ("moves",):
                for field, value in MOVE_VALUES.items():
                    if field not in node:
                        at(path, lambda n, k, f=field, v=value: n[k].__setitem__(f, v),
                           f"add {field}")
            if path[-1] in ("hands", "points", "totals", "hand_values", "boxes") or \
                    path[-2:-1] == ("games",):
                for name in names:
                    if name not in node:
                        value = [] if path[-1] == "hands" else 1
                        at(path, lambda n, k, m=name, v=value: n[k].__setitem__(m, v),
                           f"add {name}")
        for value in pool:
            at(path, lambda n, k, v=value: n.__setitem__(k, copy.deepcopy(v)), repr(value))
    for action in map(str, ACTION_FIELDS):  # every move turned into every action (as JSON)
        for d, deal in enumerate(doc["deals"]):
            for m in range(min(len(deal.get("moves", ())), 7)):
                at(("deals", d, "moves", m, "a"), lambda n, k, a=action: n.__setitem__(k, a),
                   action)
    for variant in PRESETS:
        at(("variant",), lambda n, k, v=variant: n.__setitem__(k, v), variant)
    players = doc["players"]
    at(("teams",), lambda n, k: n.__setitem__(k, [players[:2], players[2:]]), "set teams")
    return out


@pytest.mark.parametrize("name", TINY_LOGS)
def test_fast_path_and_schemas_agree_on_every_single_change(name: str) -> None:
    base = TINY_LOGS[name]
    assert judge(copy.deepcopy(base))[0] is not None
    disagree = []
    outcomes = Counter()
    for what, change in single_mutations(base):
        doc = copy.deepcopy(base)
        change(doc)
        fast, slow = judge(doc)
        outcomes[slow is not None] += 1
        if fast != slow:
            disagree.append((what, schema_errors(doc)))
    assert not disagree, disagree[:5]
    assert outcomes[True] >= 10 and outcomes[False] >= 100, outcomes  # both sides exercised


@settings(max_examples=40, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_logs_pass_the_json_schema(doc: dict[str, Any]) -> None:
    LOG_VALIDATOR.validate(doc)


# --------------------------------------------------------------------------- the JSON Schemas

CARD_PATTERN = re.compile(LOG_SCHEMA["$defs"]["card"]["pattern"])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(alphabet="0123456789AaTtJjQqKkCcDdHhSsXx♣♦♥♠♧♢♡♤ \t", max_size=5))
def test_card_pattern_matches_parse_card(code: str) -> None:
    assert (CARD_PATTERN.search(code) is not None) == (parse_card(code) is not None)


def test_json_schemas_are_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(LOG_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(REPORT_SCHEMA)


def test_log_schema_follows_the_code() -> None:
    props = LOG_SCHEMA["properties"]
    assert props["format"] == {"const": FORMAT}
    assert props["variant"]["enum"] == list(PRESETS)
    assert props["deals"]["maxItems"] == MAX_DEALS
    assert LOG_SCHEMA["$defs"]["deal"]["properties"]["moves"]["maxItems"] == MAX_MOVES
    rules = LOG_SCHEMA["$defs"]["rules"]["properties"]
    assert list(rules) == list(OPTIONS)
    for name, spec in OPTIONS.items():
        option = rules[name]
        if spec.kind == "choice":
            assert option["enum"] == list(spec.choices)
        else:
            kind = "boolean" if spec.kind == "bool" else "integer"
            assert option["type"] == ([kind, "null"] if spec.nullable else kind)
            assert option.get("minimum") == spec.minimum
            assert option.get("maximum") == spec.maximum
    for action, (required, optional) in ACTION_FIELDS.items():
        move = LOG_SCHEMA["$defs"][f"move_{action}"]
        assert move["properties"]["a"] == {"const": action}
        assert set(move["properties"]) == {"p", "a"} | required | optional
        assert set(move["required"]) == {"p", "a"} | required
    for name, preset in PRESETS.items():
        rule = next(r for r in LOG_SCHEMA["allOf"]
                    if r["if"]["properties"].get("variant") == {"const": name}
                    and "players" in r["then"]["properties"])
        players = rule["then"]["properties"]["players"]
        assert (players["minItems"], players["maxItems"]) == (preset.min_players,
                                                              preset.max_players)


EXAMPLE_REPORT: dict[str, Any] = {
    "status": "illegal",
    "violations": [{"deal": 0, "move": 17, "player": "ben", "code": "DISCARD_OF_TAKEN_CARD",
                    "message": "ben discarded 7D, the card taken from the discard pile this "
                               "turn"}],
    "deals": [{"outcome": None, "winner": None, "points": {"ana": 0, "ben": 0},
               "hand_values": {"ana": 31, "ben": 12},
               "claimed": {"points": {"ana": 0, "ben": 25}, "winner": "ben", "outcome": "out"}}],
    "totals": {"points": {"ana": 0, "ben": 0}, "winner": None, "margin": 0,
               "claimed": {"totals": {"ana": 0, "ben": 25}, "winner": "ben"}},
    "warnings": [],
}


def test_report_schema_accepts_reports() -> None:
    REPORT_VALIDATOR.validate(EXAMPLE_REPORT)
    report = copy.deepcopy(EXAMPLE_REPORT)
    report.update(status="valid", violations=[], source="upload-17.ndjson")
    report["deals"][0].update(outcome="gin", winner="ana", claimed=None)
    report["totals"].update(teams={"ana+cy": 10, "ben+dee": 0}, winner="ana+cy", margin=10,
                            claimed=None)
    report["warnings"] = [{"deal": 0, "move": 4, "code": "SUBOPTIMAL_DECLARATION",
                           "message": "ben declared 7D 8D 9D; 7D 8D 9D TD was possible"}]
    report["violations"] = [{"deal": 1, "move": None, "player": None, "code": code,
                             "message": "..."} for code in VIOLATION_CODES]
    report["violations"].append({"deal": None, "move": None, "player": None,  # game claims
                                 "code": "SCORE_MISMATCH", "message": "claimed 25, not 0"})
    REPORT_VALIDATOR.validate(report)
    assert REPORT_SCHEMA["$defs"]["code"]["enum"] == VIOLATION_CODES
    warning_codes = REPORT_SCHEMA["$defs"]["warning"]["properties"]["code"]["enum"]
    assert tuple(warning_codes) == WARNING_CODES
    report["warnings"] = [{"deal": 0, "move": None, "code": code, "message": "..."}
                          for code in WARNING_CODES]
    REPORT_VALIDATOR.validate(report)


@pytest.mark.parametrize("change", [
    lambda r: r.update(status="ok"),
    lambda r: r.pop("warnings"),
    lambda r: r.update(extra=1),
    lambda r: r["violations"][0].update(code="CHEATING"),
    lambda r: r["violations"][0].update(move="17"),
    lambda r: r["violations"][0].update(deal=-1),
    lambda r: r["violations"][0].pop("player"),
    lambda r: r["deals"][0].update(outcome="won"),
    lambda r: r["deals"][0]["points"].update(ana=1.5),
    lambda r: r["totals"].pop("margin"),
    lambda r: r["totals"].update(teams=[]),
    lambda r: r["warnings"].append({"deal": 0, "move": None, "code": "X"}),
    lambda r: r["warnings"].append({"deal": 0, "move": None, "code": "FINE",
                                    "message": "..."}),
    lambda r: r.update(source=None),
])
def test_report_schema_rejects_bad_reports(change: Callable[[dict[str, Any]], Any]) -> None:
    report = copy.deepcopy(EXAMPLE_REPORT)
    change(report)
    assert not REPORT_VALIDATOR.is_valid(report)


def test_error_type() -> None:
    exc = LogValidationError({"": ["bad"], "deals": ["worse"]})
    assert isinstance(exc, ValueError)
    assert exc.errors == {"": ["bad"], "deals": ["worse"]}
    assert "(document): bad" in str(exc) and "deals: worse" in str(exc)


def test_models_are_plain_values() -> None:
    game = parse_game(GIN3_LOG)
    assert isinstance(game.deals, tuple) and all(isinstance(d, Deal) for d in game.deals)
    assert all(isinstance(m, Move) for d in game.deals for m in d.moves)
    assert hash(game.deals[0].moves[0]) == hash(parse_game(GIN3_LOG).deals[0].moves[0])

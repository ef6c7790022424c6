"""Any document the published log schema accepts is either stored and read back by
every read endpoint, or refused as a validation error: never a 5xx, never a stored
game that breaks a read.

The documents are the sample logs with values changed anywhere in them (numbers at
and past every range, times at the edges of the years, odd strings, nulls, other
types), kept when the JSON Schema accepts them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine.cards import CARD_NAMES, parse_card
from service.engine.limits import MAX_CLAIM

from .helpers import API, post_log

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "rummy-log-1.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
SAMPLES = [json.loads(p.read_text()) for p in sorted((ROOT / "sample_logs").glob("*.json"))]

NUMBERS = st.one_of(
    st.sampled_from([0, 1, -1, 2**31, -2**31, 2**53, MAX_CLAIM, -MAX_CLAIM, 2**63 - 1,
                     3_000_000_000, 1_000_000, 1_000_001, 51, 52, 25, 26, 10, 11]),
    st.integers())
TEXTS = st.one_of(
    st.sampled_from(["", " ", "9999-12-31T23:59:59-01:00", "1900-01-01T00:00:00+23:59",
                     "9998-12-31T23:59:59.999999999-23:59", "2016-12-31T23:59:60Z",
                     "2024-02-29t12:00:00z", "1899-12-31T23:59:59Z", "AS", "10h", "♠A",
                     "zoe", "ana", "ben", "ana+ben", "x" * 200, "\u0000",
                     "'; DROP TABLE games; --", "é" * 64, "stock", "discard", "penalty"]),
    st.text(max_size=20))
CARDS = st.sampled_from([*CARD_NAMES, "10h", "♠A", "as"])
ANY = st.one_of(NUMBERS, TEXTS, st.sampled_from([None, True, False, [], {}, 1.5]))


def replacement(value: Any) -> st.SearchStrategy:
    """Mostly a value of the same JSON type (so that the schema may still accept the
    document), sometimes anything."""
    if isinstance(value, bool):
        return st.one_of(st.booleans(), ANY)
    if isinstance(value, int):
        return st.one_of(NUMBERS, NUMBERS, NUMBERS, ANY)
    if isinstance(value, str) and parse_card(value) is not None:
        return st.one_of(CARDS, CARDS, CARDS, CARDS, TEXTS)
    if isinstance(value, str):
        return st.one_of(TEXTS, TEXTS, TEXTS, ANY)
    return ANY


def paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in the document a value stands."""
    out = [prefix] if prefix and not isinstance(node, (dict, list)) else []
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out.extend(paths(value, (*prefix, index)))
    return out


@st.composite
def documents(draw) -> dict[str, Any]:
    doc = copy.deepcopy(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(1, 2))):
        where = draw(st.sampled_from(paths(doc)))
        parent = doc
        for key in where[:-1]:
            parent = parent[key]
        parent[where[-1]] = draw(replacement(parent[where[-1]]))
    return doc


def reads(game_id: str, doc: dict[str, Any]) -> list[str]:
    player = doc["players"][0] if isinstance(doc["players"][0], str) else "ana"
    other = doc["players"][1] if isinstance(doc["players"][1], str) else "ben"
    out = [f"/games/{game_id}", f"/games/{game_id}/log",
           f"/games/{game_id}/deals/0/moves/-1/state", "/games", "/stats/variants",
           "/players?min_games=1", "/tournaments", "/games/export?format=ndjson",
           "/games/export?format=parquet"]
    out += [f"/players/{player}/stats", f"/players/{player}/versus/{other}"]
    tournament = doc.get("tournament")
    if isinstance(tournament, dict) and isinstance(tournament.get("id"), str):
        out += [f"/tournaments/{tournament['id']}",
                f"/tournaments/{tournament['id']}/report.csv"]
    return out


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                  HealthCheck.too_slow])
@given(doc=documents())
def test_a_log_the_schema_accepts_is_stored_and_read_or_refused(shared_client, doc):
    if not VALIDATOR.is_valid(doc):
        return  # the schema refuses it: the server may too (tests/engine/test_parse.py)
    response = post_log(shared_client, doc)
    assert response.status_code in (200, 201, 422), response.data[:500]
    if response.status_code == 422:
        assert response.get_json()["type"] == "/problems/validation-error"
        return
    game_id = response.get_json()["id"]
    for path in reads(game_id, doc):
        answer = shared_client.get(API + path)
        assert answer.status_code in (200, 404), (path, answer.status_code, answer.data[:300])
        if answer.status_code == 404:  # a name the path cannot hold, or a deleted game
            assert not path.startswith(f"/games/{game_id}"), path

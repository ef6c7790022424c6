"""Every file of sample_logs/: it matches the published JSON Schema, the marshmallow
schema agrees, and the engine's verdict is the expected one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from service.engine import parse_game, verify
from service.engine.logformat import schema_errors

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
LOG_SCHEMA = json.loads((ROOT / "schemas" / "rummy-log-1.schema.json").read_text())
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())

# file -> (status, violations as (deal, move, code)); each change is made by
# tools/make_samples.py and explained there.
EXPECTED = {
    "gin-01.json": ("valid", []),
    "gin-02.json": ("valid", []),
    "gin-3p.json": ("valid", []),
    "gin-4p-teams.json": ("valid", []),
    "greek-01.json": ("valid", []),
    "greek-02.json": ("valid", []),
    "rummy-01.json": ("valid", []),
    "rummy-02.json": ("valid", []),
    "rummy-block-01.json": ("valid", []),
    "rummy-block-02.json": ("valid", []),
    "rummy-pagat-01.json": ("valid", []),
    "rummy-pagat-02.json": ("valid", []),
    "illegal-gin-discard-of-taken-card.json": ("illegal", [(1, 3, "DISCARD_OF_TAKEN_CARD")]),
    "illegal-greek-invalid-meld.json": ("illegal", [(0, 1, "INVALID_MELD")]),
    "illegal-rummy-not-your-turn.json": ("illegal", [(1, 5, "NOT_YOUR_TURN")]),
    "incomplete-rummy-block.json": ("incomplete", []),
    "mismatch-gin-deal-points.json": ("mismatch", [(0, None, "SCORE_MISMATCH")]),
    "mismatch-rummy-pagat-claimed-total.json": ("mismatch", [(None, None, "SCORE_MISMATCH")]),
}


def documents():
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix == ".ndjson":
            for n, line in enumerate(path.read_text().splitlines(), start=1):
                if line.strip():
                    yield f"{path.name}:{n}", json.loads(line)
        else:
            yield path.name, json.loads(path.read_text())


ALL = list(documents())


def test_every_sample_has_an_expectation():
    names = {p.name for p in SAMPLES.glob("*.json")}
    assert names == set(EXPECTED)
    assert {p.suffix for p in SAMPLES.iterdir()} <= {".json", ".ndjson"}


def test_two_complete_multi_deal_games_per_preset():
    complete = [json.loads((SAMPLES / n).read_text()) for n, (s, _) in EXPECTED.items()
                if s == "valid"]
    for preset in ("rummy", "rummy-pagat", "rummy-block", "gin", "greek"):
        games = [g for g in complete if g["variant"] == preset and len(g["deals"]) >= 2]
        assert len(games) >= 2, preset


@pytest.mark.parametrize(("name", "document"), ALL, ids=[n for n, _ in ALL])
def test_sample_matches_both_schemas(name, document):
    jsonschema.validate(document, LOG_SCHEMA)
    assert schema_errors(document) == {}


@pytest.mark.parametrize(("name", "document"), ALL, ids=[n for n, _ in ALL])
def test_sample_verdict(name, document):
    report = verify(parse_game(document))
    jsonschema.validate(report.to_dict(), REPORT_SCHEMA)
    status, violations = EXPECTED.get(name, ("valid", []))
    assert report.status == status
    assert [(v.deal, v.move, v.code) for v in report.violations] == violations
    if status == "valid":
        # Every total the log claims was compared with the recomputed one and holds.
        recomputed = {**report.totals["points"], **report.totals.get("teams", {})}
        claimed = document["claimed"]["totals"]
        assert claimed and {k: recomputed[k] for k in claimed} == claimed


def test_the_incomplete_sample_says_where_it_stops_and_why():
    document = json.loads((SAMPLES / "incomplete-rummy-block.json").read_text())
    report = verify(parse_game(document)).to_dict()
    assert report["status"] == "incomplete" and report["totals"]["winner"] is None
    assert report["deals"][-1]["outcome"] is None
    assert report["warnings"] == [{
        "deal": 2, "move": len(document["deals"][2]["moves"]) - 1,
        "code": "LAST_DEAL_NOT_FINISHED",
        "message": "the log ends before the deal does: ben was to draw"}]

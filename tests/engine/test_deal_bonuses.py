"""gin_deal_bonuses: the bonuses of a scored gin deal read from its report, and the
source texts said in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.engine import load_json, parse_game
from service.engine.replay import verify
from service.engine.rules import PRESETS, SOURCES, cited_sources, resolve_rules, source_in_words
from service.engine.scoring import gin_deal_bonuses, gin_points

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
GIN, _ = resolve_rules("gin", None, 2)
OKLAHOMA, _ = resolve_rules("gin", {"oklahoma": True, "big_gin_bonus": 31}, 2)


def _deal(rules, knocker_deadwood, defender_deadwood, gin=False, big_gin=False,
          doubled=False):
    outcome, winner, points = gin_points(rules, 0, 1, knocker_deadwood, defender_deadwood,
                                         gin, big_gin, doubled)
    names = {0: "ana", 1: "ben"}
    return {"outcome": str(outcome), "winner": names.get(winner),
            "points": {names[s]: v for s, v in points.items()},
            "hand_values": {"ana": knocker_deadwood, "ben": defender_deadwood}}


def _kinds(bonuses):
    return [(b["kind"], b["player"], b["points"], b["in_deal"]) for b in bonuses]


def test_each_outcome_has_its_bonus_and_every_won_deal_its_box():
    assert _kinds(gin_deal_bonuses(GIN, _deal(GIN, 0, 14, gin=True))) == [
        ("gin", "ana", 25, True), ("box", "ana", 20, False)]
    assert _kinds(gin_deal_bonuses(GIN, _deal(GIN, 9, 7))) == [
        ("undercut", "ben", 25, True), ("box", "ben", 20, False)]
    assert _kinds(gin_deal_bonuses(GIN, _deal(GIN, 3, 20))) == [("box", "ana", 20, False)]
    assert gin_deal_bonuses(GIN, {"outcome": None, "winner": None, "points": {},
                                  "hand_values": {}}) == []


def test_oklahomas_doubled_deal_doubles_its_bonus_and_big_gin_is_told_apart():
    assert _kinds(gin_deal_bonuses(OKLAHOMA, _deal(OKLAHOMA, 0, 14, gin=True, doubled=True))) \
        == [("gin", "ana", 50, True), ("box", "ana", 20, False)]
    assert _kinds(gin_deal_bonuses(OKLAHOMA, _deal(OKLAHOMA, 0, 14, gin=True, big_gin=True))) \
        == [("big gin", "ana", 31, True), ("box", "ana", 20, False)]
    assert _kinds(gin_deal_bonuses(OKLAHOMA, _deal(OKLAHOMA, 8, 5, doubled=True))) == [
        ("undercut", "ben", 50, True), ("box", "ben", 20, False)]


@pytest.mark.parametrize("stem", ["gin-01", "gin-02", "gin-3p", "mismatch-gin-deal-points"])
def test_the_boxes_are_what_the_totals_add_to_the_deals(stem):
    """A finished two-sided game: each total is the player's deal points, their boxes,
    and the winner's game and shutout bonuses (Scoreboard.final)."""
    raw = (SAMPLES / f"{stem}.json").read_bytes()
    game = parse_game(load_json(raw, len(raw) + 1))
    report = verify(game)
    totals = report.totals["points"]
    for player in game.players:
        deals = sum(d.points.get(player, 0) for d in report.deals)
        boxes = sum(b["points"] for d in report.deals for b in gin_deal_bonuses(
            game.rules, d.to_dict()) if b["kind"] == "box" and b["player"] == player)
        extra = 0
        if player == report.totals["winner"]:
            extra = game.rules.game_bonus + report.shutouts * game.rules.shutout_bonus
        assert totals[player] == deals + boxes + extra, player


def test_a_rummy_game_has_no_gin_bonus():
    rules, _ = resolve_rules("rummy", None, 2)
    assert gin_deal_bonuses(rules, {"outcome": "out", "winner": "ana",
                                    "points": {"ana": 30, "ben": 0},
                                    "hand_values": {"ana": 0, "ben": 30}}) == []


def test_sources_are_said_in_words():
    assert source_in_words(PRESETS["rummy"].source) == "basic Rummy, French rules (seed 002)"
    assert source_in_words("001") == "Gin Rummy, French rules (seed 001)"
    assert [s.number for s in cited_sources("000 (1; house rule unlimited), 002, 003")] == [
        "000", "002", "003"]
    assert source_in_words("common usage").startswith("not in any of the texts")
    assert source_in_words("beyond the seeds (002 names Oklahoma Gin)").startswith(
        "a rule the project added")
    assert {p.source for p in PRESETS.values()} <= set(SOURCES)

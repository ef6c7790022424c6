"""Score sheets made from generated games: the sheet written from a move log's results
verifies to the same points, totals and winner, alone or mixed with the moves; and no
figure of a sheet can be changed unnoticed."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from service.engine import report as R
from service.engine.logformat import parse_game
from service.engine.replay import verify
from service.engine.report import Report
from service.engine.rules import PRESETS
from service.generator import generate_game, random_rules
from service.generator.sheets import sheet_of

PLAYER_COUNTS = {"rummy": (2, 3, 4, 5, 6), "rummy-pagat": (2, 3, 6), "rummy-block": (2, 4),
                 "greek": (2, 3, 4), "gin": (2, 3, 4)}
SOME = settings(max_examples=25, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
MUTATIONS = settings(max_examples=300, derandomize=True, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


def check(log: dict[str, Any]) -> Report:
    return verify(parse_game(log))


def results(report: Report) -> list[tuple]:
    return [(d.outcome, d.winner, d.points) for d in report.deals]


def a_game(variant: str, seed: int) -> tuple[dict[str, Any], Report]:
    """A generated game; a third of the gin games are Hollywood matches."""
    rng = random.Random(seed)
    players = rng.choice(PLAYER_COUNTS[variant])
    rules = random_rules(variant, rng, players) if rng.random() < 0.7 else None
    if variant == "gin" and rng.random() < 1 / 3:
        players = 2
        rules = {**random_rules(variant, rng, 2), "hollywood": True}
        if rules.get("target", 100) is None or rules.get("target", 100) > 100:
            rules["target"] = rng.randint(1, 100)  # three games to play: keep them short
    log = generate_game(variant, seed, players, rules, rng.random() < 0.5)
    report = check(log)
    assert report.status == R.VALID
    return log, report


@pytest.mark.parametrize("variant", list(PRESETS))
@SOME
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_sheet_of_a_game_verifies_to_its_points_totals_and_winner(
        variant: str, seed: int, data: st.DataObject) -> None:
    log, report = a_game(variant, seed)
    sheet = sheet_of(log, report)
    assert all("result" in deal and "moves" not in deal for deal in sheet["deals"])
    event("hollywood" if sheet.get("rules", {}).get("hollywood") else "one game")
    judged = check(orjson.loads(orjson.dumps(sheet)))
    assert judged.status == R.VALID, [v.to_dict() for v in judged.violations][:3]
    assert results(judged) == results(report)
    assert judged.totals == {**report.totals, "claimed": sheet["claimed"]}
    assert judged.verification == R.RESULTS
    # some deals by their moves, the others by their result
    chosen = data.draw(st.sets(st.integers(0, len(log["deals"]) - 1)))
    mixed = check(sheet_of(log, report, chosen))
    assert mixed.status == R.VALID
    assert results(mixed) == results(report)
    assert mixed.totals["points"] == report.totals["points"]
    assert mixed.verification == (R.MOVES if not chosen else
                                  R.RESULTS if len(chosen) == len(log["deals"]) else R.MIXED)


@cache
def pool() -> tuple[tuple[dict[str, Any], Report], ...]:
    """Sheets of generated games, with the reports of the games they were made from."""
    out = []
    for i in range(20):
        variant = list(PRESETS)[i % len(PRESETS)]
        log, report = a_game(variant, 500 + i)
        sheet = sheet_of(log, report)
        assert check(sheet).status == R.VALID
        out.append((sheet, report))
    return tuple(out)


def figures(sheet: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Every place of the sheet that holds a figure: (path to its dict, key)."""
    out: list[tuple[Any, ...]] = []
    for d, deal in enumerate(sheet["deals"]):
        for name in deal["result"].get("hand_values", {}):
            out.append((("deals", d, "result", "hand_values"), name))
        for part in ("points", "totals"):
            for name in deal["claimed"][part]:
                out.append((("deals", d, "claimed", part), name))
        for g, running in enumerate(deal["claimed"].get("games", ())):
            for name in running:
                out.append((("deals", d, "claimed", "games", g), name))
    claimed = sheet["claimed"]
    for g, one in enumerate(claimed.get("games", ())):
        for part in ("totals", "boxes"):
            for name in one[part]:
                out.append((("claimed", "games", g, part), name))
        for name, kinds in one["bonuses"].items():
            for kind in kinds:
                out.append((("claimed", "games", g, "bonuses", name), kind))
    for name in claimed["totals"]:
        out.append((("claimed", "totals"), name))
    for name in claimed.get("boxes", {}):
        out.append((("claimed", "boxes"), name))
    for name, kinds in claimed.get("bonuses", {}).items():
        for kind in kinds:
            out.append((("claimed", "bonuses", name), kind))
    return out


@MUTATIONS
@given(data=st.data())
def test_every_changed_figure_of_a_sheet_is_caught(data: st.DataObject) -> None:
    sheet, original = data.draw(st.sampled_from(pool()))
    sheet = orjson.loads(orjson.dumps(sheet))
    path, key = data.draw(st.sampled_from(figures(sheet)))
    node: Any = sheet
    for part in path:
        node = node[part]
    low = -node[key] if path[-1] in ("hand_values", "boxes") or "bonuses" in path else -50
    delta = data.draw(st.integers(max(low, -50), 50).filter(bool))
    node[key] += delta
    report = check(sheet)
    if path[-1] == "hand_values" and report.status == R.VALID:
        # A hand value that changes no score: players tied for the lowest hand of a
        # blocked deal split what the others hold, rounded down, so one more or fewer
        # point in a higher hand may leave every share as it was.
        assert results(report) == results(original)
        event("equivalent hand value")
        return
    assert report.status != R.VALID
    assert report.violations[0].deal == (path[1] if path[0] == "deals" else None) or \
        report.violations[0].code != R.SCORE_MISMATCH
    event(f"{path[-1]}: {report.violations[0].code}")

"""The gin bots' skills: legal games, the same game without skills, and the order of
strength the luck benchmark relies on."""

from __future__ import annotations

import statistics

import pytest

from service.engine import parse_game, verify
from service.generator import generate_game, generate_games


def net_per_deal(first: str, second: str, games: int, seed: int) -> list[int]:
    out = []
    for log in generate_games("gin", games, seed=seed, players=2,
                              skills={"ana": first, "ben": second}):
        report = verify(parse_game(log))
        assert report.status == "valid"
        out += [d.points["ana"] - d.points["ben"] for d in report.deals]
    return out


def test_greedy_everywhere_is_the_game_without_skills():
    plain = generate_game("gin", 4, players=2)
    assert generate_game("gin", 4, players=2, skills={"ana": "greedy"}) == plain
    assert generate_game("gin", 4, players=2, skills={"ana": "careful"}) != plain


def test_skills_play_legal_games_under_other_options():
    for rules in ({"oklahoma": True}, {"discard_taken_card": True, "upcard_pass": False},
                  {"knock_limit": 0, "big_gin_bonus": 31}):
        for skills in ({"ana": "random", "ben": "careful"}, {"ana": "careful", "ben": "greedy"}):
            log = generate_game("gin", 9, players=2, rules=rules, skills=skills)
            assert verify(parse_game(log)).status == "valid"


def test_the_order_of_strength():
    """A random player loses heavily to either; careful beats greedy (seeded)."""
    assert statistics.fmean(net_per_deal("random", "greedy", 6, 3)) < -20
    assert statistics.fmean(net_per_deal("careful", "random", 6, 3)) > 20
    assert statistics.fmean(net_per_deal("careful", "greedy", 40, 3)) > 0


def test_unknown_skills_and_families_are_refused():
    with pytest.raises(ValueError, match="skill"):
        generate_game("gin", 1, players=2, skills={"ana": "genius"})
    with pytest.raises(ValueError, match="gin"):
        generate_game("rummy", 1, players=2, skills={"ana": "careful"})

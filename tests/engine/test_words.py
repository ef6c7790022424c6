"""Counts in messages: "1 deal", "2 deals", never "1 deals" or "deal(s)"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.engine import parse_game
from service.engine.state import NoSuchPosition, state_after
from service.engine.words import plural
from tests.engine.test_gin import KNOCK, gin_game

SERVICE = Path(__file__).resolve().parents[2] / "service"


def test_plural():
    assert plural(1, "deal") == "1 deal"
    assert [plural(n, "deal") for n in (0, 2)] == ["0 deals", "2 deals"]
    assert plural(1, "more violation") == "1 more violation"
    assert plural(20000, "game", grouped=True) == "20,000 games"
    assert plural(2, "body", "bodies") == "2 bodies"


def test_a_one_deal_game_has_1_deal_not_1_deals():
    game = parse_game(gin_game(KNOCK))
    with pytest.raises(NoSuchPosition, match=r"^the game has 1 deal$"):
        state_after(game, 1, 0)
    with pytest.raises(NoSuchPosition, match=r"^deal 0 has 2 moves$"):
        state_after(game, 0, 5)


def test_no_message_says_a_count_with_a_bracketed_plural():
    """'game(s)' and the like: the code says the count in words instead (plural)."""
    offenders = [f"{path.relative_to(SERVICE)}:{number}"
                 for path in SERVICE.rglob("*.py")
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if re.search(r"[\"'][^\"']*[a-z]\(s\)", line)
                 and path.name != "words.py"]
    assert offenders == []

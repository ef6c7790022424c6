"""Leaderboard pages read one snapshot: a walk over /ratings or /players lists each
player once, and none of those there when it began is missing, while games are stored
between its pages (they move the players' ratings and wins across the pages' cut)."""

from __future__ import annotations

import random
import re
from typing import Any

import orjson
import pytest

from service.api.pagination import Part, decode_key_cursor, encode_key_cursor

from .helpers import API, lines_of, ndjson, post_log, valid

PLAYERS = [f"p{i:02d}" for i in range(40)]


def game(winner: str, loser: str, number: int) -> dict[str, Any]:
    """A valid one-deal gin game ``winner`` wins against ``loser`` (a distinct log, so a
    distinct game, for each ``number``)."""
    text = orjson.dumps(valid(id=f"w{number}")).decode()
    text = re.sub(r"\bben\b", loser, re.sub(r"\bana\b", winner, text))
    return orjson.loads(text)


def seeded(client) -> None:
    """Every player with a game or two: 40 games in one batch."""
    logs = [game(PLAYERS[i], PLAYERS[(i + 1 + i % 3) % len(PLAYERS)], i)
            for i in range(len(PLAYERS))]
    response = client.post(f"{API}/games/batch", data=ndjson(*logs),
                           content_type="application/x-ndjson")
    assert all("id" in line for line in lines_of(response))


def listed(body: dict[str, Any]) -> list[tuple[str, ...]]:
    if "ratings" in body:
        return [(row["variant"], row["player"]) for row in body["ratings"]]
    return [(row["player"],) for row in body["players"]]


def walk_while_storing(client, url: str, rng: random.Random, start: int) -> list[tuple]:
    """Every row of every page, storing games between the pages: each a game of a
    player just listed losing to one not listed yet (so, without a snapshot, the first
    falls behind the cut and is listed again, the second rises before it and is
    missed), and games of random pairs."""
    seen: list[tuple] = []
    number = start
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.data
        body = response.get_json()
        page = listed(body)
        seen += page
        names = {row[-1] for row in seen}
        later = [p for p in PLAYERS if p not in names]
        for row in page[:2]:
            if later:
                number += 1
                assert post_log(client, game(rng.choice(later), row[-1], number)).status_code \
                    == 201
        for _ in range(3):
            a, b = rng.sample(PLAYERS, 2)
            number += 1
            assert post_log(client, game(a, b, number)).status_code == 201
        url = body["next"]
    return seen


@pytest.mark.parametrize(("path", "first"), [
    ("/ratings", lambda body: [(r["variant"], r["player"]) for r in body["ratings"]]),
    ("/players", lambda body: [(r["player"],) for r in body["players"]]),
    ("/players?sort=rating&variant=gin", lambda body: [(r["player"],)
                                                       for r in body["players"]]),
])
def test_a_walk_lists_each_player_once_while_games_are_stored(make_app, path, first):
    app = make_app()
    client = app.test_client()
    seeded(client)
    joiner = "&" if "?" in path else "?"
    everyone = first(client.get(f"{API}{path}{joiner}limit=500").get_json())
    assert len(everyone) == len(PLAYERS)
    for run in range(3):
        seen = walk_while_storing(client, f"{API}{path}{joiner}limit=4",
                                  random.Random(run), 1000 * (run + 1))
        assert len(seen) == len(set(seen)), "a player listed twice"
        assert set(seen) == set(everyone), "a player missing"


def test_the_pages_of_a_walk_show_the_figures_of_its_start(make_app):
    """The ranks and ratings of the later pages are those of the walk's first moment."""
    app = make_app()
    client = app.test_client()
    seeded(client)
    before = client.get(f"{API}/ratings?limit=500").get_json()["ratings"]
    first = client.get(f"{API}/ratings?limit=10").get_json()
    for number in range(20):
        assert post_log(client, game(PLAYERS[-1], PLAYERS[number], 5000 + number)
                        ).status_code == 201
    rows = first["ratings"]
    url = first["next"]
    while url:
        body = client.get(url).get_json()
        rows += body["ratings"]
        url = body["next"]
    assert rows == before
    assert client.get(f"{API}/ratings?limit=500").get_json()["ratings"] != before


def test_a_cursor_whose_snapshot_is_gone_continues_on_the_current_state(make_app):
    """A snapshot expires, or the store process starts again: its cursor goes on after
    its key, on the ratings as they are now."""
    app = make_app(RUMMY_LABEL_SECRET="a-secret-of-the-paging-tests")
    client = app.test_client()
    seeded(client)
    body = client.get(f"{API}/ratings?limit=5").get_json()
    scope = {"variant": None, "min_games": 0, "provisional": None}
    shape = (Part.NUMBER, Part.TEXT, Part.TEXT, Part.COUNT)
    with app.test_request_context():
        at = decode_key_cursor(body["next"].split("cursor=")[1], "ratings", scope, shape)
        assert at.snapshot is not None
        gone = encode_key_cursor("ratings", at.key, scope, "0123456789abcdef01234567")
    rest = []
    url: str | None = f"{API}/ratings?limit=5&cursor={gone}"
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.data
        rest += response.get_json()["ratings"]
        url = response.get_json()["next"]
    everyone = client.get(f"{API}/ratings?limit=500").get_json()["ratings"]
    assert [r["player"] for r in body["ratings"] + rest] == [r["player"] for r in everyone]
    assert [r["rank"] for r in rest] == list(range(6, len(everyone) + 1))

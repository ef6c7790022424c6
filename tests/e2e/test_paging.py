"""The real service (gunicorn, two workers over one store process): a walk over the
rating leaderboard and the statistics leaderboard lists each player once, none of those
there when it began missing, while games are stored between its pages; its pages land
on either worker, and all read the snapshot the store keeps for the walk."""

from __future__ import annotations

import json
import random

import pytest

from tests.api.test_paging_under_writes import PLAYERS, game

from .server import Server


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "rummy.duckdb", env={"RUMMY_WORKERS": "2"}).start()
    yield srv
    srv.stop()


def rows(body: dict) -> list[tuple]:
    if "ratings" in body:
        return [(r["variant"], r["player"]) for r in body["ratings"]]
    return [(r["player"],) for r in body["players"]]


@pytest.mark.parametrize("path", ["/api/v1/ratings", "/api/v1/players"])
def test_a_walk_through_the_real_service_lists_each_player_once(server, path):
    lines = b"".join(json.dumps(game(PLAYERS[i], PLAYERS[(i + 1) % len(PLAYERS)], i)
                                ).encode() + b"\n" for i in range(len(PLAYERS)))
    status, _, _ = server.request("POST", "/api/v1/games/batch", lines,
                                  {"Content-Type": "application/x-ndjson"})
    assert status == 200
    status, everyone = server.get_json(f"{path}?limit=500")
    assert status == 200 and len(rows(everyone)) == len(PLAYERS)
    rng = random.Random(5)
    seen: list[tuple] = []
    url: str | None = f"{path}?limit=3"
    number = 100
    while url:
        status, body = server.get_json(url)
        assert status == 200, body
        seen += rows(body)
        listed = {row[-1] for row in seen}
        later = [p for p in PLAYERS if p not in listed]
        for row in rows(body)[:2]:
            number += 1
            opponent = rng.choice(later) if later else rng.choice(PLAYERS)
            if opponent != row[-1]:
                status, _ = server.post_json("/api/v1/games", game(opponent, row[-1], number))
                assert status == 201
        url = body["next"]
    assert len(seen) == len(set(seen))
    assert set(seen) == set(rows(everyone))

"""GET /players/{p}/months: a player's figures month by month add up to their figures."""

from __future__ import annotations

from pathlib import Path

import orjson

from .helpers import API, assert_problem, post_log

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_logs").glob("*.json"))


def test_the_months_add_up_to_the_players_figures(client):
    for n, path in enumerate(SAMPLES):
        log = orjson.loads(path.read_bytes())
        # local March 31st is April 1st in UTC: months are UTC months
        log["played_at"] = ("2024-03-31T23:30:00-02:00", "2024-04-15T10:00:00Z",
                            "2024-05-02T00:30:00+01:00")[n % 3]
        assert post_log(client, log).status_code == 201
    figures = client.get(f"{API}/players/ana/stats").get_json()["variants"]
    months = client.get(f"{API}/players/ana/months").get_json()
    assert months["player"] == "ana" and set(months["variants"]) == set(figures)
    for variant, rows in months["variants"].items():
        assert [r["month"] for r in rows] == sorted({r["month"] for r in rows})
        assert {r["month"] for r in rows} <= {"2024-04", "2024-05"}
        for key, figure in (("games", "games"), ("won", "won"), ("deals", "deals"),
                            ("points", "points_scored")):
            assert sum(r[key] for r in rows) == figures[variant][figure], (variant, key)
        for r in rows:
            expected = round(r["points"] / r["deals"], 2) if r["deals"] else 0
            assert abs(r["points_per_deal"] - expected) < 0.0051
    april = client.get(f"{API}/players/ana/months?since=2024-04-01&until=2024-05-01")
    assert {r["month"] for rows in april.get_json()["variants"].values() for r in rows} \
        == {"2024-04"}


def test_an_unknown_player_has_no_months(client):
    assert_problem(client.get(f"{API}/players/nobody/months"), 404, "not-found")
    assert_problem(client.get(f"{API}/players/nobody/months?colour=red"), 400,
                   "invalid-parameter")

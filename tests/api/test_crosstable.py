"""Standings people use: a tournament as it stood after each round, and its crosstable.

Both are checked against plain recomputations: the standings after round N against a
store that was given only the games of rounds up to N, the crosstable against the
pairs summed here from the audit's own games as counted (re-entered tables held out,
rulings applied)."""

from __future__ import annotations

from typing import Any

import pytest

from service.generator import generate_game

from .helpers import API, assert_problem
from .test_desk import at, rule, two_deals_illegal, upload

KEY = "write-key-1"
WITH_KEY = {"Authorization": f"Bearer {KEY}"}
PLAYERS = ["ana", "ben", "cy", "dee"]
# round -> the gin pairs at its tables A and B
ROUNDS = {1: (("ana", "ben"), ("cy", "dee")), 2: (("ana", "cy"), ("ben", "dee")),
          3: (("ana", "dee"), ("ben", "cy"))}


def event(tournament: str) -> list[dict[str, Any]]:
    """Three rounds of two gin tables, a Rummy table of three in round 2, and round 3
    table B entered twice (the second with another seed: a re-entered table)."""
    logs = []
    for rnd, tables in ROUNDS.items():
        for k, (a, b) in enumerate(tables):
            log = generate_game("gin", 100 * rnd + k, players=2, names=[a, b],
                                rules={"target": 60})
            logs.append(at(log, tournament, rnd, "AB"[k]))
    logs.append(at(generate_game("rummy", 7, players=3, names=["ana", "ben", "cy"],
                                 rules={"target": 60}), tournament, 2, "C"))
    logs.append(at(generate_game("gin", 999, players=2, names=["ben", "cy"],
                                 rules={"target": 60}), tournament, 3, "B"))
    return logs


def pairs_from_games(games: list[dict[str, Any]], variant: str) -> dict[tuple[str, str], dict]:
    """Each ordered pair's games, wins and points, summed from the counted games."""
    out: dict[tuple[str, str], dict] = {}
    for game in games:
        if not game["counted"] or game["variant"] != variant:
            continue
        for a, points in game["credited"].items():
            for b, other in game["credited"].items():
                if a != b:
                    cell = out.setdefault((a, b), {"games": 0, "won": 0, "lost": 0,
                                                   "points": 0, "opponent_points": 0})
                    cell["games"] += 1
                    cell["won"] += a in game["credited_winners"]
                    cell["lost"] += b in game["credited_winners"]
                    cell["points"] += points
                    cell["opponent_points"] += other
    return out


def test_the_crosstable_is_the_counted_games_pair_by_pair(make_app):
    client = make_app(RUMMY_API_KEYS=f"director:{KEY}").test_client()
    ids = [upload(client, log, headers=WITH_KEY) for log in event("cross")]
    audit = client.get(f"{API}/tournaments/cross").get_json()
    assert audit["links"]["crosstable"] == f"{API}/tournaments/cross/crosstable"
    cross = client.get(audit["links"]["crosstable"]).get_json()
    assert cross["id"] == "cross" and cross["after_round"] is None
    assert cross["final"] is False  # round 3 table B is entered twice
    assert [t["variant"] for t in cross["tables"]] == [t["variant"] for t in audit["standings"]]
    for table, standing in zip(cross["tables"], audit["standings"], strict=True):
        assert table["players"] == [row["player"] for row in standing["players"]]
        want = pairs_from_games(audit["games"], table["variant"])
        got = {(row["player"], cell["opponent"]): cell
               for row in table["rows"] for cell in row["cells"]}
        assert set(got) == set(want)
        for pair, cell in got.items():
            assert {k: cell[k] for k in want[pair]} == want[pair], pair
            assert len(cell["game_ids"]) == cell["games"]
    gin = {(row["player"], c["opponent"]): c for row in cross["tables"][0]["rows"]
           for c in row["cells"]}
    # The re-entered table counts for nothing: ben and cy never met in a counted gin game.
    assert ("ben", "cy") not in gin and ("ana", "ben") in gin
    # Withdrawing the second entry settles the table: ben and cy met once.
    assert client.delete(f"{API}/games/{ids[-1]}", headers=WITH_KEY).status_code == 200
    cross = client.get(f"{API}/tournaments/cross/crosstable").get_json()
    gin = {(row["player"], c["opponent"]): c for row in cross["tables"][0]["rows"]
           for c in row["cells"]}
    assert gin[("ben", "cy")]["games"] == gin[("cy", "ben")]["games"] == 1
    assert gin[("ben", "cy")]["won"] == gin[("cy", "ben")]["lost"]
    assert cross["final"] is True


@pytest.mark.parametrize("after", [1, 2, 3])
def test_the_standings_after_a_round_are_those_of_its_games_alone(make_app, after):
    """After round N: the audit of a store given only the games of rounds up to N (the
    games, their counting, the standings, the open matters), and the crosstable too."""
    logs = event("rounds")
    whole = make_app(RUMMY_API_KEYS=f"director:{KEY}").test_client()
    for log in logs:
        upload(whole, log, headers=WITH_KEY)
    alone = make_app(RUMMY_API_KEYS=f"director:{KEY}").test_client()
    for log in logs:
        if log["tournament"]["round"] <= after:
            upload(alone, log, headers=WITH_KEY)
    got = whole.get(f"{API}/tournaments/rounds?after_round={after}").get_json()
    want = alone.get(f"{API}/tournaments/rounds").get_json()
    assert got["after_round"] == after and want["after_round"] is None
    assert got["rounds"] == [1, 2, 3] and want["rounds"] == list(range(1, after + 1))
    for key in ("summary", "standings", "games", "discrepancies", "final"):
        assert got[key] == want[key], key
    assert [m["kind"] for m in got["open"]] == [m["kind"] for m in want["open"]]
    cross = whole.get(f"{API}/tournaments/rounds/crosstable?after_round={after}").get_json()
    assert cross["tables"] == alone.get(f"{API}/tournaments/rounds/crosstable").get_json()[
        "tables"]
    csv = whole.get(f"{API}/tournaments/rounds/report.csv?after_round={after}")
    assert csv.status_code == 200
    assert csv.data == alone.get(f"{API}/tournaments/rounds/report.csv").data


def test_after_round_before_any_game_and_bad_values(make_app):
    client = make_app(RUMMY_API_KEYS=f"director:{KEY}").test_client()
    gid = upload(client, at(two_deals_illegal(), "early", 2, "A"), headers=WITH_KEY)
    empty = client.get(f"{API}/tournaments/early?after_round=1").get_json()
    assert empty["games"] == [] and empty["standings"] == [] and empty["final"] is True
    assert empty["rounds"] == [2]
    assert client.get(f"{API}/tournaments/early").get_json()["final"] is False
    assert rule(client, gid, "void", headers=WITH_KEY).status_code == 200
    assert client.get(f"{API}/tournaments/early").get_json()["final"] is True
    for bad in ("-1", "x", "1.5", "10000000"):
        assert_problem(client.get(f"{API}/tournaments/early?after_round={bad}"), 400,
                       "invalid-parameter")
        assert_problem(client.get(f"{API}/tournaments/early/crosstable?after_round={bad}"),
                       400, "invalid-parameter")
    assert_problem(client.get(f"{API}/tournaments/nowhere/crosstable"), 404, "not-found")


def test_after_a_round_only_the_withdrawals_of_those_rounds_are_listed(make_app):
    """The CSV and the page after round 2 list a game withdrawn from round 1, not one
    withdrawn from round 3 (which that view does not hold)."""
    client = make_app(RUMMY_API_KEYS=f"director:{KEY}").test_client()
    ids = {}
    for log in event("rounds"):
        ids.setdefault(log["tournament"]["round"], []).append(
            upload(client, log, headers=WITH_KEY))
    for round_ in (1, 3):
        assert client.delete(f"{API}/games/{ids[round_][0]}?reason=r",
                             headers=WITH_KEY).status_code == 200
    text = client.get(f"{API}/tournaments/rounds/report.csv?after_round=2").get_data(
        as_text=True)
    listed = [line for line in text.splitlines() if line.startswith("withdrawn,")]
    assert len(listed) == 1 and ids[1][0] in listed[0]
    whole = client.get(f"{API}/tournaments/rounds/report.csv").get_data(as_text=True)
    assert sum(line.startswith("withdrawn,") for line in whole.splitlines()) == 2
    html = client.get("/tournaments/rounds?after_round=2",
                      headers={"Accept": "text/html"}).get_data(as_text=True)
    assert f'data-game="{ids[1][0]}"' in html and f'data-game="{ids[3][0]}"' not in html

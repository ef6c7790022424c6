"""Property: for any set of games, rulings and withdrawals, the verified standings the
API answers equal a plain recomputation, here, from the games that count.

Each example is a tournament of its own in one shared app.  Its games are made of four
logs whose figures are known by hand (tests/api/test_desk.py): seated ``p`` (first) and
``q``, with the game totals, the deal points before the irregularity and the claims:

* valid: totals p 139, q 0, p wins; deal points 19 and 0; no claim;
* mismatch: the same game claiming p 0, q 139;
* illegal: deal 1 scores p 19, deal 2 holds the first violation; claims p 200, q 10;
* incomplete: nothing scored, totals 0 and 0; no claim.
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from service.store.counting import ALLOWED

from .helpers import API, incomplete, post_log, valid
from .test_desk import at, two_deals_illegal

PLAYERS = ("ana", "ben", "cleo", "dan")
KINDS = ("valid", "mismatch", "illegal", "incomplete")
FIGURES = {  # kind: (totals, deal points before the irregularity, claims, finished)
    "valid": ((139, 0), (19, 0), None, True),
    "mismatch": ((139, 0), (19, 0), (0, 139), True),
    "illegal": ((139, 0), (19, 0), (200, 10), False),
    "incomplete": ((0, 0), (0, 0), None, False),
}
_serial = itertools.count()


def renamed(log: dict[str, Any], p: str, q: str) -> dict[str, Any]:
    """The log with ana seated as ``p`` and ben as ``q``."""
    text = orjson.dumps(log).decode()
    text = text.replace('"ana"', '"\x00p"').replace('"ben"', '"\x00q"')
    return orjson.loads(text.replace('"\x00p"', f'"{p}"').replace('"\x00q"', f'"{q}"'))


def make_log(kind: str, p: str, q: str, tournament: str, round_: int, table: str,
             serial: int) -> dict[str, Any]:
    base = {"valid": valid, "mismatch": valid, "illegal": two_deals_illegal,
            "incomplete": incomplete}[kind](id=f"g{serial}")
    claims = FIGURES[kind][2]
    claimed = None if claims is None else dict(zip(("ana", "ben"), claims, strict=True))
    return renamed(at(base, tournament, round_, table, claimed), p, q)


@st.composite
def entries(draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(KINDS))
    p, q = draw(st.permutations(PLAYERS))[:2]
    ruling = draw(st.none() | st.sampled_from(ALLOWED[kind]))
    return {"kind": kind, "p": p, "q": q, "round": draw(st.integers(1, 3)),
            "table": draw(st.sampled_from("AB")), "ruling": ruling,
            "against": draw(st.sampled_from((p, q))),
            "withdraw": draw(st.sampled_from((None, None, "delete", "replace")))}


def plain_standings(games: list[dict[str, Any]]) -> tuple[dict[str, tuple], bool]:
    """The verified standings recomputed from the games left live, and whether the
    tournament is final: (rank, points, games, won) per player of a live game."""
    live = [game for game in games if game["live"]]
    slots: dict[tuple[int, str], int] = {}
    for game in live:
        key = (game["round"], game["table"])
        slots[key] = slots.get(key, 0) + 1
    points: dict[str, int | None] = {}
    played: dict[str, int] = {}
    won: dict[str, int] = {}
    final = all(n == 1 for n in slots.values())
    for game in live:
        p, q = game["p"], game["q"]
        for player in (p, q):
            points.setdefault(player, None)
            played.setdefault(player, 0)
            won.setdefault(player, 0)
        totals, early, claims, finished = FIGURES[game["kind"]]
        ruling = game["ruling"]
        if ruling is None and game["kind"] != "valid":
            final = False
        if slots[(game["round"], game["table"])] > 1:
            continue
        credit: tuple[int, int] | None = None
        winners: set[str] = set()
        if ruling in ("forfeit", "to_violation"):
            credit = early
            if ruling == "forfeit":
                winners = {p, q} - {game["against"]}
        elif ruling == "stands":
            credit = claims if claims is not None else totals
        elif ruling == "recomputed" or (ruling is None and finished):
            credit = totals
        if credit is None:
            continue
        if ruling != "forfeit" and credit[0] != credit[1]:
            winners = {p} if credit[0] > credit[1] else {q}
        for player, value in zip((p, q), credit, strict=True):
            points[player] = (points[player] or 0) + value
            played[player] += 1
            won[player] += player in winners
    out = {}
    for player, value in points.items():
        rank = None if value is None else \
            1 + sum(1 for other in points.values() if other is not None and other > value)
        out[player] = (rank, value, played[player], won[player])
    return out, final


@given(st.lists(entries(), min_size=1, max_size=6))
def test_verified_standings_equal_a_plain_recomputation(shared_app, plan):
    client = shared_app.test_client()
    tournament = f"prop-{next(_serial)}"
    games = []
    for entry in plan:
        serial = next(_serial)
        response = post_log(client, make_log(entry["kind"], entry["p"], entry["q"], tournament,
                                             entry["round"], entry["table"], serial))
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["status"] == entry["kind"]
        game = {**entry, "id": response.get_json()["id"], "live": True}
        games.append(game)
        if entry["ruling"] is not None:
            body = {"ruling": entry["ruling"], "reason": "drawn"}
            if entry["ruling"] == "forfeit":
                body["against"] = entry["against"]
            assert client.put(f"{API}/games/{game['id']}/ruling", json=body).status_code == 200
        if entry["withdraw"] == "delete":
            assert client.delete(f"{API}/games/{game['id']}").status_code == 200
            game["live"] = False
        elif entry["withdraw"] == "replace":
            serial = next(_serial)
            corrected = make_log("valid", entry["p"], entry["q"], tournament, entry["round"],
                                 entry["table"], serial)
            response = post_log(client, corrected, f"?replaces={game['id']}&reason=corrected")
            assert response.status_code == 201, response.get_json()
            game["live"] = False
            games.append({"kind": "valid", "p": entry["p"], "q": entry["q"],
                          "round": entry["round"], "table": entry["table"], "ruling": None,
                          "against": None, "live": True, "id": response.get_json()["id"]})

    expected, final = plain_standings(games)
    response = client.get(f"{API}/tournaments/{tournament}")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["withdrawn"] == sum(not g["live"] for g in games)
    if not expected:  # every game withdrawn: the tournament still answers, empty
        assert (body["games"], body["standings"], body["final"]) == ([], [], True)
        return
    [table] = body["standings"]
    answered = {r["player"]: (r["rank"], r["points"], r["games"], r["won"])
                for r in table["players"]}
    assert answered == expected
    assert body["final"] is final
    withdrawn = client.get(f"{API}/tournaments/{tournament}/withdrawn").get_json()["withdrawn"]
    assert sorted(g["id"] for g in withdrawn) == sorted(g["id"] for g in games if not g["live"])

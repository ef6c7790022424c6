"""The tournament desk: rulings, games replaced by corrected logs, withdrawn games, and
whether a tournament's standings are final.

Figures worked out by hand from the engine tests' logs (tests/engine/test_gin.py):

* gin KNOCK: ana knocks and scores 19 deal points; her game total is 19 + box 20 +
  shutout 100 = 139, ben's 0, ana wins;
* ``two_deals_illegal``: deal 1 is KNOCK (ana 19), in deal 2 ana discards a card she
  does not hold (the first violation): the deals before it are deal 1 alone;
* ``incomplete``: a draw and nothing more: no deal scored, totals 0 and 0.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.store.counting import ALLOWED, RULINGS
from tests.engine.logs import deal, game
from tests.engine.test_gin import ANA, BEN, KNOCK

from .helpers import (
    API,
    assert_problem,
    illegal,
    incomplete,
    malformed,
    post_log,
    valid,
    valid_rummy,
)

KEY = "write-key-1"
DIRECTOR = "director"
WITH_KEY = {"Authorization": f"Bearer {KEY}"}


def two_deals_illegal(**changes: Any) -> dict[str, Any]:
    return game("gin", ["ana", "ben"], [
        deal("ben", {"ana": ANA, "ben": BEN}, "TD", KNOCK),
        deal("ben", {"ana": ANA, "ben": BEN}, "TD", ["ana ds AH", "ana x 2H"])],
        rules={"target": None}) | changes


def at(log: dict[str, Any], tournament: str, round_: int = 1, table: str = "A",
       claimed: dict[str, int] | None = None) -> dict[str, Any]:
    log = log | {"tournament": {"id": tournament, "round": round_, "table": table}}
    if claimed is not None:
        log["claimed"] = {"totals": claimed}
    return log


# One game per verdict, as the rulings tests enter it (``tournament`` set by the test).
VERDICTS = {
    "valid": lambda t: at(valid(), t),
    # Game totals claimed the other way round: ana 0, ben 139 (recomputed 139 and 0).
    "mismatch": lambda t: at(valid(), t, claimed={"ana": 0, "ben": 139}),
    "illegal": lambda t: at(two_deals_illegal(), t, claimed={"ana": 200, "ben": 10}),
    "incomplete": lambda t: at(incomplete(), t),
}


def upload(client, log: dict[str, Any], status: str | None = None,
           headers: dict[str, str] | None = None) -> str:
    response = post_log(client, log, headers=headers or {})
    assert response.status_code == 201, response.get_json()
    if status is not None:
        assert response.get_json()["status"] == status, response.get_json()["report"]
    return response.get_json()["id"]


def rule(client, gid: str, ruling: str, against: str | None = None,
         reason: str = "the director's decision", headers: dict[str, str] | None = None):
    body: dict[str, Any] = {"ruling": ruling, "reason": reason}
    if against is not None:
        body["against"] = against
    return client.put(f"{API}/games/{gid}/ruling", json=body, headers=headers or {})


def audit(client, tournament: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = client.get(f"{API}/tournaments/{tournament}", headers=headers or {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def row(player, rank, points, games, won):
    return {"player": player, "rank": rank, "points": points, "games": games, "won": won}


def verified(body: dict[str, Any]) -> list[dict[str, Any]]:
    [table] = body["standings"]
    return [{key: r[key] for key in ("player", "rank", "points", "games", "won")}
            for r in table["players"]]


# --------------------------------------------------------------------------- rulings

def test_each_verdict_allows_its_rulings_and_refuses_the_others(client):
    for status, make in VERDICTS.items():
        gid = upload(client, make(f"allowed-{status}"), status)
        in_force = None
        for ruling in RULINGS:
            response = rule(client, gid, ruling, against="ana" if ruling == "forfeit" else None)
            if ruling in ALLOWED[status]:
                assert response.status_code == 200, (status, ruling, response.get_json())
                in_force = ruling
                body = response.get_json()
                assert body["ruling"]["ruling"] == ruling and body["status"] == status
                assert body["allowed"] == list(ALLOWED[status])
            else:
                problem = assert_problem(response, 409, "ruling-not-allowed")
                assert problem["allowed"] == list(ALLOWED[status]), (status, ruling)
            current = client.get(f"{API}/games/{gid}/ruling").get_json()
            assert current["ruling"]["ruling"] == in_force, (status, ruling)
        # A ruling never changes the verdict or the stored game.
        assert client.get(f"{API}/games/{gid}").get_json()["status"] == status


def test_the_allowed_table_is_the_documented_one():
    assert ALLOWED == {
        "valid": ("void", "forfeit"),
        "mismatch": ("void", "forfeit", "stands", "recomputed"),
        "illegal": ("void", "forfeit", "to_violation", "stands"),
        "incomplete": ("void", "forfeit", "stands")}


# (verdict, ruling, against) -> what the game credits, worked out by hand (module doc):
# forfeit and to_violation credit the deal points before the irregularity (no bonuses).
CREDITED = [
    ("valid", None, None, {"ana": 139, "ben": 0}, ["ana"]),
    ("valid", "void", None, None, []),
    ("valid", "forfeit", "ana", {"ana": 19, "ben": 0}, ["ben"]),
    ("valid", "forfeit", "ben", {"ana": 19, "ben": 0}, ["ana"]),
    ("mismatch", None, None, {"ana": 139, "ben": 0}, ["ana"]),
    ("mismatch", "void", None, None, []),
    ("mismatch", "forfeit", "ana", {"ana": 19, "ben": 0}, ["ben"]),
    ("mismatch", "stands", None, {"ana": 0, "ben": 139}, ["ben"]),
    ("mismatch", "recomputed", None, {"ana": 139, "ben": 0}, ["ana"]),
    ("illegal", None, None, None, []),
    ("illegal", "void", None, None, []),
    ("illegal", "forfeit", "ana", {"ana": 19, "ben": 0}, ["ben"]),
    ("illegal", "to_violation", None, {"ana": 19, "ben": 0}, ["ana"]),
    ("illegal", "stands", None, {"ana": 200, "ben": 10}, ["ana"]),
    ("incomplete", None, None, None, []),
    ("incomplete", "void", None, None, []),
    ("incomplete", "forfeit", "ben", {"ana": 0, "ben": 0}, ["ana"]),
    ("incomplete", "stands", None, {"ana": 0, "ben": 0}, []),  # no claim: 0-0, a draw
]


def test_what_each_ruling_makes_a_game_count_for(client):
    for k, (status, ruling, against, credited, winners) in enumerate(CREDITED):
        tournament = f"credit-{k}"
        gid = upload(client, VERDICTS[status](tournament), status)
        if ruling is not None:
            assert rule(client, gid, ruling, against).status_code == 200
        body = audit(client, tournament)
        [entry] = body["games"]
        case = (status, ruling, against)
        assert entry["counted"] is (credited is not None), case
        assert entry["credited"] == (credited or {}), case
        assert entry["credited_winners"] == winners, case
        assert entry["status"] == status  # the verdict stays
        # The standings are those figures: ranks by the higher total.
        by_player = sorted(verified(body), key=lambda r: r["player"])
        if credited is None:
            assert by_player == [row("ana", None, None, 0, 0),
                                 row("ben", None, None, 0, 0)], case
        else:
            expected = [row(p, None, credited[p], 1, int(p in winners)) for p in ("ana", "ben")]
            for r in expected:
                r["rank"] = 1 + sum(1 for o in expected if o["points"] > r["points"])
            assert by_player == expected, case
            assert [r["rank"] for r in verified(body)] == sorted(r["rank"] for r in expected)
        # Every ruled game's matter is settled; an unruled one stays open but a valid game.
        assert body["final"] is (ruling is not None or status == "valid"), case


def test_a_ruling_has_a_history_and_can_be_withdrawn(make_app):
    client = make_app(RUMMY_API_KEYS=f"{DIRECTOR}:{KEY}").test_client()
    gid = upload(client, at(illegal(), "hist"), "illegal", WITH_KEY)
    assert_problem(client.get(f"{API}/games/{gid}/ruling"), 404, "no-ruling")
    assert_problem(client.delete(f"{API}/games/{gid}/ruling", headers=WITH_KEY), 404,
                   "no-ruling")
    first = rule(client, gid, "forfeit", "ana", "discarded a card she did not hold",
                 headers=WITH_KEY)
    assert first.status_code == 200
    body = first.get_json()
    assert body["ruling"]["by"] == DIRECTOR and body["ruling"]["at"].endswith("Z")
    assert body["ruling"]["reason"] == "discarded a card she did not hold"
    assert body["links"] == {"self": f"{API}/games/{gid}/ruling", "game": f"{API}/games/{gid}"}
    second = rule(client, gid, "void", reason="on appeal", headers=WITH_KEY).get_json()
    assert second["ruling"]["ruling"] == "void"
    assert [(h["n"], h["ruling"], h["against"], h["withdrawn_at"]) for h in
            second["history"]] == [(1, "forfeit", "ana", None), (2, "void", None, None)]
    assert audit(client, "hist")["games"][0]["ruling"]["ruling"] == "void"

    gone = client.delete(f"{API}/games/{gid}/ruling?reason=entered+by+mistake",
                         headers=WITH_KEY)
    assert gone.status_code == 200
    body = gone.get_json()
    assert body["ruling"] is None
    last = body["history"][-1]
    assert (last["withdrawn_by"], last["withdrawn_reason"]) == (DIRECTOR, "entered by mistake")
    assert client.get(f"{API}/games/{gid}/ruling").get_json() == body
    after = audit(client, "hist")
    assert after["final"] is False and after["open"][0]["kind"] == "illegal_game"
    assert_problem(client.delete(f"{API}/games/{gid}/ruling", headers=WITH_KEY), 404,
                   "no-ruling")
    # Writes need the write key.
    assert_problem(rule(client, gid, "void"), 401, "unauthorized")
    assert_problem(client.delete(f"{API}/games/{gid}/ruling"), 401, "unauthorized")


@pytest.mark.parametrize(("body", "field"), [
    ({"ruling": "pardon", "reason": "x"}, "ruling"),
    ({"ruling": "void"}, "reason"),
    ({"ruling": "void", "reason": "  "}, "reason"),
    ({"ruling": "forfeit", "reason": "x"}, "against"),
    ({"ruling": "forfeit", "reason": "x", "against": "zoe"}, "against"),
    ({"ruling": "void", "reason": "x", "against": "ana"}, "against"),
    ({"ruling": "void", "reason": "x", "by": "me"}, "by"),
    (["void"], "$"),
])
def test_a_ruling_that_is_not_valid_is_a_422(shared_client, body, field):
    gid = upload_once(shared_client)
    response = shared_client.put(f"{API}/games/{gid}/ruling", json=body)
    problem = assert_problem(response, 422, "validation-error")
    assert list(problem["errors"]) == [field]


def test_a_key_given_twice_is_named(shared_client):
    """A body that repeats a key is refused at that key (not as "not a JSON object"),
    and nothing is ruled."""
    gid = upload_once(shared_client)
    body = b'{"ruling": "void", "reason": "typo", "reason": "the real reason"}'
    response = shared_client.put(f"{API}/games/{gid}/ruling", data=body,
                                 content_type="application/json")
    problem = assert_problem(response, 422, "validation-error")
    assert problem["errors"] == {"reason": ["this key appears more than once in its object"]}
    assert shared_client.get(f"{API}/games/{gid}/ruling").status_code == 404


def upload_once(client) -> str:
    response = post_log(client, at(illegal(), "invalid-rulings"))
    assert response.status_code in (200, 201)
    return response.get_json()["id"]


def test_rulings_of_unknown_and_deleted_games(client):
    assert_problem(rule(client, "nosuchgame", "void"), 404, "not-found")
    assert_problem(client.get(f"{API}/games/nosuchgame/ruling"), 404, "not-found")
    gid = upload(client, at(illegal(), "gone"), "illegal")
    assert client.delete(f"{API}/games/{gid}").status_code == 200
    assert_problem(rule(client, gid, "void"), 410, "game-deleted")
    assert_problem(client.get(f"{API}/games/{gid}/ruling"), 410, "game-deleted")
    assert_problem(client.delete(f"{API}/games/{gid}/ruling"), 410, "game-deleted")


# --------------------------------------------------------------------------- final

def test_final_follows_every_kind_of_open_matter(client):
    def state() -> tuple[bool, list[tuple[str, list[str]]]]:
        body = audit(client, "flow")
        return body["final"], [(m["kind"], m["games"]) for m in body["open"]]

    first = upload(client, at(valid(), "flow", 1, "A"), "valid")
    assert state() == (True, [])
    mismatched = upload(client, at(valid(), "flow", 2, "A", {"ana": 0, "ben": 139}),
                        "mismatch")
    assert state() == (False, [("score_mismatch", [mismatched])])
    assert rule(client, mismatched, "recomputed").status_code == 200
    assert state() == (True, [])
    bad = upload(client, at(illegal(), "flow", 3, "A"), "illegal")
    assert state() == (False, [("illegal_game", [bad])])
    assert rule(client, bad, "void").status_code == 200
    assert state() == (True, [])
    unfinished = upload(client, at(incomplete(), "flow", 4, "A"), "incomplete")
    assert state() == (False, [("unfinished_game", [unfinished])])
    assert rule(client, unfinished, "stands").status_code == 200
    assert state() == (True, [])

    # Round 1 table A entered again, edited: neither copy counts while both are live.
    before = verified(audit(client, "flow"))
    again = upload(client, at(valid(id="edited"), "flow", 1, "A"), "valid")
    assert state() == (False, [("duplicate_table", [first, again])])
    body = audit(client, "flow")
    [matter] = body["open"]
    assert matter["links"] == {"games": [f"{API}/games/{first}", f"{API}/games/{again}"],
                               "withdrawn": f"{API}/tournaments/flow/withdrawn"}
    assert [g["counted"] for g in body["games"][:2]] == [False, False]
    # R1 A was ana's 139-point win, R2 A (recomputed) another, R4 A (stands, no claim) a
    # 0-0 draw, R3 A void: ana 278 in 3 games before, 139 in 2 while R1 A is held out.
    assert before == [row("ana", 1, 278, 3, 2), row("ben", 2, 0, 3, 0)]
    assert verified(body) == [row("ana", 1, 139, 2, 1), row("ben", 2, 0, 2, 0)]
    assert client.delete(f"{API}/games/{again}?reason=entered+twice").status_code == 200
    assert state() == (True, [])
    assert verified(audit(client, "flow")) == before

    # A ruling withdrawn opens its matter again; the list says so too.
    assert client.delete(f"{API}/games/{bad}/ruling").status_code == 200
    assert state() == (False, [("illegal_game", [bad])])
    [listed] = client.get(f"{API}/tournaments").get_json()["tournaments"]
    assert (listed["final"], listed["open"]) == (False, 1)
    matter = audit(client, "flow")["open"][0]
    assert matter["links"]["ruling"] == f"{API}/games/{bad}/ruling"


def test_a_tournament_whose_every_game_was_withdrawn_still_answers(client):
    """No games, no standings, nothing open, and how many games were withdrawn; its
    crosstable, CSV and withdrawn list answer too.  404 stays for an id no game named."""
    first = upload(client, at(valid(), "emptied", 1, "A"), "valid")
    second = upload(client, at(illegal(), "emptied", 1, "B"), "illegal")
    assert audit(client, "emptied")["withdrawn"] == 0
    for gid in (first, second):
        assert client.delete(f"{API}/games/{gid}?reason=wrong+event").status_code == 200
    body = audit(client, "emptied")
    assert (body["games"], body["standings"], body["open"], body["discrepancies"]) == (
        [], [], [], [])
    assert body["summary"]["games"] == 0 and body["withdrawn"] == 2
    assert body["final"] is True and body["rounds"] == []
    assert body["links"]["withdrawn"] == f"{API}/tournaments/emptied/withdrawn"
    withdrawn = client.get(body["links"]["withdrawn"]).get_json()["withdrawn"]
    assert [w["id"] for w in withdrawn] == [first, second]
    assert client.get(f"{API}/tournaments/emptied/crosstable").get_json()["tables"] == []
    csv_text = client.get(f"{API}/tournaments/emptied/report.csv").get_data(as_text=True)
    assert sum(line.startswith("withdrawn,") for line in csv_text.splitlines()) == 2
    assert audit(client, "emptied") == client.get(
        f"{API}/tournaments/emptied?after_round=1").get_json() | {"after_round": None}
    assert_problem(client.get(f"{API}/tournaments/never-named"), 404, "not-found")


# --------------------------------------------------------------------------- replaces

def test_a_corrected_log_replaces_a_game_in_one_step(make_app):
    client = make_app(RUMMY_API_KEYS=f"{DIRECTOR}:{KEY}").test_client()
    old = upload(client, at(valid(), "cup", 1, "A", {"ana": 0, "ben": 139}), "mismatch",
                 WITH_KEY)
    response = post_log(client, at(valid(), "cup", 1, "A", {"ana": 139, "ben": 0}),
                        f"?replaces={old}&reason=claims+entered+the+wrong+way",
                        headers=WITH_KEY)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    new = body["id"]
    assert response.headers["Location"] == f"{API}/games/{new}"
    assert body["status"] == "valid" and body["created"] is True
    replaced = body["replaced"]
    assert (replaced["id"], replaced["deleted_by"], replaced["reason"]) == (
        old, DIRECTOR, "claims entered the wrong way")

    gone = assert_problem(client.get(f"{API}/games/{old}"), 410, "game-deleted")
    assert gone["replaced_by"] == new and gone["deleted_by"] == DIRECTOR
    assert gone["links"]["replaced_by"] == f"{API}/games/{new}"
    assert client.get(f"{API}/games/{new}").status_code == 200
    cup = audit(client, "cup")
    assert [g["id"] for g in cup["games"]] == [new] and cup["final"] is True

    withdrawn = client.get(f"{API}/tournaments/cup/withdrawn").get_json()
    [entry] = withdrawn["withdrawn"]
    assert withdrawn["tournament"] == "cup"
    assert (entry["id"], entry["replaced_by"], entry["deleted_by"], entry["reason"],
            entry["status"], entry["round"], entry["table"]) == (
        old, new, DIRECTOR, "claims entered the wrong way", "mismatch", 1, "A")
    assert entry["links"] == {"self": f"{API}/games/{old}",
                              "replaced_by": f"{API}/games/{new}"}
    assert entry["deleted_at"].endswith("Z")

    # A plain deletion is listed too, without a replacement.
    other = upload(client, at(valid(id="other"), "cup", 2, "A"), "valid", WITH_KEY)
    assert client.delete(f"{API}/games/{other}", headers=WITH_KEY).status_code == 200
    entries = client.get(f"{API}/tournaments/cup/withdrawn").get_json()["withdrawn"]
    assert [(e["id"], e["replaced_by"]) for e in entries] == [(old, new), (other, None)]
    csv_text = client.get(f"{API}/tournaments/cup/report.csv").get_data(as_text=True)
    withdrawn_lines = [line for line in csv_text.splitlines() if line.startswith("withdrawn,")]
    assert len(withdrawn_lines) == 2 and f"replaced by game {new}" in withdrawn_lines[0]

    # Writes need the write key; an unknown tournament has no withdrawn list.
    assert_problem(post_log(client, at(valid(id="x"), "cup"), f"?replaces={new}"), 401,
                   "unauthorized")
    assert_problem(client.get(f"{API}/tournaments/nosuch/withdrawn"), 404, "not-found")


def test_a_replacement_that_cannot_be_done_changes_nothing(client):
    old = upload(client, at(valid(), "cup", 1, "A"), "valid")

    def still_live() -> None:
        assert client.get(f"{API}/games/{old}").status_code == 200
        assert client.get(f"{API}/tournaments/cup/withdrawn").get_json()["withdrawn"] == []

    # A log that is not valid: 422 before anything is stored or withdrawn.
    assert_problem(post_log(client, malformed(), f"?replaces={old}"), 422, "validation-error")
    still_live()
    # The game to replace does not exist: the new log is not stored either.
    corrected = at(valid(id="corrected"), "cup", 1, "A")
    new_id = post_log(client, corrected, "?dry_run=true").get_json()["id"]
    assert_problem(post_log(client, corrected, "?replaces=nosuchgame"), 404, "not-found")
    assert_problem(client.get(f"{API}/games/{new_id}"), 404, "not-found")
    # The same log as the game it replaces.
    assert_problem(post_log(client, at(valid(), "cup", 1, "A"), f"?replaces={old}"), 409,
                   "replaces-itself")
    still_live()
    # The log of a deleted game stays deleted, and the old game stays live.
    dead = upload(client, at(valid(id="dead"), "cup", 2, "A"), "valid")
    assert client.delete(f"{API}/games/{dead}").status_code == 200
    assert_problem(post_log(client, at(valid(id="dead"), "cup", 2, "A"), f"?replaces={old}"),
                   409, "game-deleted")
    assert client.get(f"{API}/games/{old}").status_code == 200
    # A game withdrawn before cannot be replaced: the new log is not stored.
    assert_problem(post_log(client, corrected, f"?replaces={dead}"), 409, "game-deleted")
    assert_problem(client.get(f"{API}/games/{new_id}"), 404, "not-found")

    # A corrected log stored before still replaces the old game (created false).
    stored = upload(client, corrected, "valid")
    response = post_log(client, corrected, f"?replaces={old}")
    assert response.status_code == 200 and response.get_json()["created"] is False
    assert response.get_json()["id"] == stored
    assert_problem(client.get(f"{API}/games/{old}"), 410, "game-deleted")
    assert [g["id"] for g in audit(client, "cup")["games"]] == [stored]


# --------------------------------------------------------------------------- keep

def keep(client, tournament: str, round_: int, table: str, body: Any,
         headers: dict[str, str] | None = None):
    return client.post(f"{API}/tournaments/{tournament}/tables/{round_}/{table}/keep",
                       json=body, headers=headers or {})


def test_keeping_one_copy_of_a_table_withdraws_the_others_at_once(make_app):
    client = make_app(RUMMY_API_KEYS=f"{DIRECTOR}:{KEY}").test_client()
    copies = [upload(client, at(valid(id=f"copy-{k}"), "kept", 1, "A"), "valid", WITH_KEY)
              for k in range(3)]
    other = upload(client, at(valid(id="other"), "kept", 1, "B"), "valid", WITH_KEY)
    assert [m["kind"] for m in audit(client, "kept")["open"]] == ["duplicate_table"]
    assert_problem(keep(client, "kept", 1, "A", {"game": copies[1], "reason": "r"}), 401,
                   "unauthorized")

    response = keep(client, "kept", 1, "A", {"game": copies[1], "reason": "entered three "
                                             "times"}, WITH_KEY)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["tournament"], body["round"], body["table"], body["kept"]) == (
        "kept", 1, "A", copies[1])
    assert [(w["id"], w["deleted_by"], w["reason"]) for w in body["withdrawn"]] == [
        (copies[0], DIRECTOR, "entered three times"),
        (copies[2], DIRECTOR, "entered three times")]
    assert body["withdrawn"][0]["deleted_at"].endswith("Z")
    assert body["links"] == {"kept": f"{API}/games/{copies[1]}",
                             "withdrawn": f"{API}/tournaments/kept/withdrawn",
                             "tournament": f"{API}/tournaments/kept"}
    after = audit(client, "kept")
    assert after["final"] is True
    assert sorted(g["id"] for g in after["games"]) == sorted([copies[1], other])
    for gid in (copies[0], copies[2]):
        assert assert_problem(client.get(f"{API}/games/{gid}"), 410,
                              "game-deleted")["reason"] == "entered three times"
    listed = client.get(f"{API}/tournaments/kept/withdrawn").get_json()["withdrawn"]
    assert [(w["id"], w["replaced_by"]) for w in listed] == [(copies[0], None),
                                                              (copies[2], None)]
    # Kept again: the table's only game, nothing to withdraw.
    again = keep(client, "kept", 1, "A", {"game": copies[1], "reason": "again"}, WITH_KEY)
    assert again.status_code == 200 and again.get_json()["withdrawn"] == []


def test_a_keep_that_cannot_be_done_withdraws_nothing(client):
    first = upload(client, at(valid(), "keep-refused", 2, "7"), "valid")
    second = upload(client, at(valid(id="second"), "keep-refused", 2, "7"), "valid")
    elsewhere = upload(client, at(valid(id="elsewhere"), "keep-refused", 3, "7"), "valid")

    def untouched() -> None:  # only the game the test withdrew itself
        assert [w["id"] for w in client.get(
            f"{API}/tournaments/keep-refused/withdrawn").get_json()["withdrawn"]] == [gone]
        assert [m["games"] for m in audit(client, "keep-refused")["open"]] == [[first, second]]

    # A game of another table, an unknown game, a withdrawn one: 409, the table's games.
    gone = upload(client, at(valid(id="gone"), "keep-refused", 2, "7"), "valid")
    assert client.delete(f"{API}/games/{gone}?reason=x").status_code == 200
    for named in (elsewhere, "nosuchgame", gone):
        problem = assert_problem(keep(client, "keep-refused", 2, "7",
                                      {"game": named, "reason": "r"}), 409, "not-at-table")
        assert problem["games"] == [first, second]
        assert problem["links"]["games"] == [f"{API}/games/{first}", f"{API}/games/{second}"]
    # No live game at that table, or no such tournament: 404.
    for path in (("keep-refused", 9, "7"), ("keep-refused", 2, "8"), ("nosuch", 2, "7")):
        assert_problem(keep(client, *path, {"game": first, "reason": "r"}), 404, "not-found")
    # A body that is not one: 422, naming the field.
    for body, field in (({"game": first}, "reason"), ({"game": first, "reason": " "}, "reason"),
                        ({"reason": "r"}, "game"), ({"game": 7, "reason": "r"}, "game"),
                        ({"game": first, "reason": "r", "by": "me"}, "by"), ([first], "$")):
        problem = assert_problem(keep(client, "keep-refused", 2, "7", body), 422,
                                 "validation-error")
        assert list(problem["errors"]) == [field]
    untouched()
    # A table whose id holds a slash, in a tournament whose id holds one.
    a = upload(client, at(valid(id="s1"), "spring/cup", 1, "3/4"), "valid")
    b = upload(client, at(valid(id="s2"), "spring/cup", 1, "3/4"), "valid")
    response = keep(client, "spring%2Fcup", 1, "3%2F4", {"game": b, "reason": "twice"})
    assert response.status_code == 200, response.get_json()
    assert [w["id"] for w in response.get_json()["withdrawn"]] == [a]


def test_a_correction_naming_another_place_is_refused_unless_the_move_is_asked_for(client):
    """A corrected log for another tournament, round, table or variant than its game is
    a log picked by mistake until the director says the game moves: 409, nothing stored
    or withdrawn; with relocate=true it moves."""
    old = upload(client, at(valid(), "cup", 1, "A"), "valid")
    for elsewhere, differs in (
            (at(valid(id="c1"), "cup", 2, "A"), ["round"]),
            (at(valid(id="c2"), "cup", 1, "B"), ["table"]),
            (at(valid(id="c3"), "plate", 1, "A"), ["tournament"]),
            (valid(id="c4"), ["tournament", "round", "table"])):
        problem = assert_problem(post_log(client, elsewhere, f"?replaces={old}&reason=r"),
                                 409, "replacement-elsewhere")
        assert problem["differs"] == differs
        assert "relocate=true" in problem["detail"]
        assert client.get(f"{API}/games/{old}").status_code == 200
        gone = post_log(client, elsewhere, "?dry_run=true").get_json()["id"]
        assert client.get(f"{API}/games/{gone}").status_code == 404
    rummy = at(valid_rummy(), "cup", 1, "A")
    assert assert_problem(post_log(client, rummy, f"?replaces={old}"), 409,
                          "replacement-elsewhere")["differs"] == ["variant"]
    moved = post_log(client, at(valid(id="c1"), "cup", 2, "A"),
                     f"?replaces={old}&reason=wrong+round+typed&relocate=true")
    assert moved.status_code == 201, moved.get_json()
    assert [g["round"] for g in audit(client, "cup")["games"]] == [2]

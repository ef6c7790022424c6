"""GET /tournaments/{id} and its CSV report, on hand-built tournaments whose every figure
is worked out below from the games' known totals.

The games are the one-deal logs of the engine tests with the players renamed:

* gin KNOCK: the first player (ana) knocks and wins 19 + box 20 + shutout 100 = 139,
  the other scores 0 (tests/engine/test_gin.py);
* gin ``illegal``: the first player discards a card she does not hold (move 1);
* gin ``mismatch``: deal 0 claims 5 points for the first player, recomputed 19;
* gin ``incomplete``: a draw and nothing more;
* rummy ``basic``: the first player goes out, winner_collects 57, the other 0; under
  ``penalty`` scoring the loser scores his own 57 and the winner 0.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import orjson
import pytest

from tests.engine.logs import deal, game
from tests.engine.test_gin import KNOCK
from tests.engine.test_rummy import basic

from .helpers import (
    API,
    assert_problem,
    counts,
    illegal,
    incomplete,
    mismatch,
    post_log,
    valid,
    valid_rummy,
)


def seated(log: dict[str, Any], **names: str) -> dict[str, Any]:
    """The log with players renamed (``ana="cleo"``); swaps are fine."""
    text = orjson.dumps(log).decode()
    for old, new in names.items():
        text = text.replace(f'"{old}"', f'"\x00{new}"')
    return orjson.loads(text.replace("\x00", ""))


def entered(log: dict[str, Any], tournament: str, round_: int, table: str,
            claimed: dict[str, int] | None = None, winner: str | None = None) -> dict:
    """The log as played at a tournament table, with the game totals it claims."""
    log = dict(log, tournament={"id": tournament, "round": round_, "table": table})
    if claimed is not None:
        log["claimed"] = {"totals": claimed}
        if winner is not None:
            log["claimed"]["winner"] = winner
    return log


def upload(client, log: dict[str, Any], status: str) -> str:
    response = post_log(client, log)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == status, body["report"]["violations"]
    return body["id"]


# Tournament "spring".  Gin: ana, ben, cleo, dan; rummy: eva, finn.
#   R1 A  ana-ben    KNOCK       ana 139 ben 0    claims ana 139 ben 0         valid
#   R1 B  cleo-dan   KNOCK       cleo 139 dan 0   claims cleo 139 dan 0        valid
#   R1 C  eva-finn   rummy basic eva 57 finn 0    claims eva 57 finn 0         valid
#   R2 A  ana-cleo   KNOCK       ana 139 cleo 0   claims ana 0 cleo 139, cleo  mismatch
#   R2 B  ben-dan    illegal     (not counted)    claims ben 139 dan 0         illegal
#   R3 A  ana-ben    deal claim  ana 139 ben 0    (no game claim)              mismatch
#   R3 B  cleo-dan   incomplete  (not counted)    (no claim)                   incomplete
@pytest.fixture(scope="module")
def spring(shared_app) -> dict[str, str]:
    """Uploaded once per module into the shared app: the tests using it only read."""
    client = shared_app.test_client()
    games = {
        "r1a": upload(client, entered(valid(), "spring", 1, "A", {"ana": 139, "ben": 0}),
                      "valid"),
        "r1b": upload(client, entered(seated(valid(), ana="cleo", ben="dan"), "spring", 1,
                                      "B", {"cleo": 139, "dan": 0}), "valid"),
        "r1c": upload(client, entered(seated(valid_rummy(), ana="eva", ben="finn"), "spring",
                                      1, "C", {"eva": 57, "finn": 0}), "valid"),
        "r2a": upload(client, entered(seated(valid(), ben="cleo"), "spring", 2, "A",
                                      {"ana": 0, "cleo": 139}, winner="cleo"), "mismatch"),
        "r2b": upload(client, entered(seated(illegal(), ana="ben", ben="dan"), "spring", 2,
                                      "B", {"ben": 139, "dan": 0}), "illegal"),
        "r3a": upload(client, entered(mismatch(), "spring", 3, "A"), "mismatch"),
        "r3b": upload(client, entered(seated(incomplete(), ana="cleo", ben="dan"), "spring",
                                      3, "B"), "incomplete"),
    }
    # Noise: games of another tournament and of none must not count.
    upload(client, entered(seated(valid(), ana="dan", ben="ana"), "autumn", 1, "A",
                           {"dan": 1, "ana": 2}), "mismatch")
    upload(client, seated(valid(), ana="gus"), "valid")
    return games


def standing(player, rank, points, games, won, claimed_rank, claimed_points, claimed_games):
    return {"player": player, "rank": rank, "points": points, "games": games, "won": won,
            "claimed_rank": claimed_rank, "claimed_points": claimed_points,
            "claimed_games": claimed_games}


# Verified (counted: R1 A, R1 B, R2 A, R3 A): ana 139 + 139 + 139 = 417 in 3 games, all
# won; cleo 139 (R1 B) + 0 (R2 A) = 139 in 2, one won; ben 0 + 0 in 2 (R1 A, R3 A); dan 0
# in 1 (R1 B).  Ranks, higher first: ana 1, cleo 2, ben and dan tied 3.
# Claimed, over the same counted games, each player's claimed total where the log claims
# one and the credited points where it does not: ana 139 (R1 A) + 0 (R2 A) + 139 (R3 A,
# no claim) = 278, claims in 2 games; cleo 139 (R1 B) + 139 (R2 A) = 278, 2; ben 0 (R1 A)
# + 0 (R3 A, no claim) = 0, 1; dan 0 (R1 B), 1.  The illegal R2 B counts on neither side
# (it is an open matter of its own).  Ranks: ana and cleo tied 1, ben and dan tied 3.
SPRING_GIN = [standing("ana", 1, 417, 3, 3, 1, 278, 2),
              standing("cleo", 2, 139, 2, 1, 1, 278, 2),
              standing("ben", 3, 0, 2, 0, 3, 0, 1),
              standing("dan", 3, 0, 1, 0, 3, 0, 1)]
SPRING_RUMMY = [standing("eva", 1, 57, 1, 1, 1, 57, 1),
                standing("finn", 2, 0, 1, 0, 2, 0, 1)]


def discrepancy(kind, game, player, claimed=None, verified=None, claimed_rank=None,
                verified_rank=None):
    return (kind, game, player, claimed, verified, claimed_rank, verified_rank)


def as_tuples(items):
    return [(d["kind"], d["game"], d["player"], d["claimed"], d["verified"],
             d["claimed_rank"], d["verified_rank"]) for d in items]


def expected_discrepancies(games):
    return [
        # R2 A: both claimed game totals are wrong, and so is the claimed winner.
        discrepancy("score_mismatch", games["r2a"], "ana", 0, 139),
        discrepancy("score_mismatch", games["r2a"], "cleo", 139, 0),
        discrepancy("score_mismatch", games["r2a"], None),
        # R2 B: ben (renamed from ana) discards a card he does not hold.
        discrepancy("illegal_game", games["r2b"], "ben"),
        # R3 A: deal 0 claims 5 for ana, recomputed 19.
        discrepancy("score_mismatch", games["r3a"], "ana", 5, 19),
        # ana's and cleo's claimed standings differ (R2 A's claims); ben's and dan's
        # agree, and the rummy table too: they are not listed.
        discrepancy("standing_differs", None, "ana", 278, 417, 1, 1),
        discrepancy("standing_differs", None, "cleo", 278, 139, 1, 2),
    ]


def test_standings_games_and_discrepancies(shared_client, spring):
    response = shared_client.get(f"{API}/tournaments/spring")
    assert response.status_code == 200
    body = response.get_json()
    assert body["id"] == "spring"
    assert body["summary"] == {"games": 7, "counted": 5, "valid": 3, "mismatch": 2,
                               "illegal": 1, "incomplete": 1}
    assert body["standings"] == [
        {"variant": "gin", "better": "higher", "games": 4, "players": SPRING_GIN},
        {"variant": "rummy", "better": "higher", "games": 1, "players": SPRING_RUMMY}]
    assert as_tuples(body["discrepancies"]) == expected_discrepancies(spring)
    assert body["links"] == {"self": f"{API}/tournaments/spring",
                             "report": f"{API}/tournaments/spring/report.csv",
                             "withdrawn": f"{API}/tournaments/spring/withdrawn",
                             "settings": f"{API}/tournaments/spring/settings",
                             "crosstable": f"{API}/tournaments/spring/crosstable"}
    assert body["settings"] is None
    # Open: the two mismatches, the illegal game and the unfinished one, none ruled.
    assert body["final"] is False
    assert [(m["kind"], m["games"]) for m in body["open"]] == [
        ("score_mismatch", [spring["r2a"]]), ("illegal_game", [spring["r2b"]]),
        ("score_mismatch", [spring["r3a"]]), ("unfinished_game", [spring["r3b"]])]


def test_games_are_listed_by_round_and_table(shared_client, spring):
    games = shared_client.get(f"{API}/tournaments/spring").get_json()["games"]
    assert [g["id"] for g in games] == [spring[k] for k in
                                        ("r1a", "r1b", "r1c", "r2a", "r2b", "r3a", "r3b")]
    by_key = dict(zip(("r1a", "r1b", "r1c", "r2a", "r2b", "r3a", "r3b"), games, strict=True))
    assert by_key["r1a"] == {
        "id": spring["r1a"], "variant": "gin", "round": 1, "table": "A", "status": "valid",
        "verification": "moves",
        "counted": True, "players": ["ana", "ben"], "winner": "ana",
        "recomputed_leader": None, "played_at": None,
        "points": {"ana": 139, "ben": 0}, "claimed": {"ana": 139, "ben": 0},
        "ruling": None, "credited": {"ana": 139, "ben": 0}, "credited_winners": ["ana"],
        "basis": "the recomputed result",
        "links": {"self": f"{API}/games/{spring['r1a']}",
                  "log": f"{API}/games/{spring['r1a']}/log",
                  "ruling": f"{API}/games/{spring['r1a']}/ruling"}}
    assert (by_key["r2a"]["players"], by_key["r2a"]["winner"]) == (["ana", "cleo"], "ana")
    assert by_key["r2a"]["claimed"] == {"ana": 0, "cleo": 139}
    assert (by_key["r2b"]["status"], by_key["r2b"]["counted"]) == ("illegal", False)
    assert by_key["r2b"]["winner"] is None
    assert by_key["r3a"]["claimed"] == {"ana": None, "ben": None}
    assert (by_key["r3b"]["status"], by_key["r3b"]["counted"]) == ("incomplete", False)
    assert {g["variant"] for g in games} == {"gin", "rummy"}


def test_discrepancy_details_name_what_is_wrong(shared_client, spring):
    items = shared_client.get(f"{API}/tournaments/spring").get_json()["discrepancies"]
    illegal_game = next(d for d in items if d["kind"] == "illegal_game")
    assert "CARD_NOT_IN_HAND" in illegal_game["detail"]
    assert "round 2, table B" in illegal_game["detail"]
    # The detail counts as people do; the fields keep the reports' 0-based indexes.
    assert "deal 1, move 2" in illegal_game["detail"]
    assert (illegal_game["deal"], illegal_game["move"]) == (0, 1)
    assert all(d["variant"] == "gin" for d in items)
    deal_claim = next(d for d in items if d["game"] == spring["r3a"])
    assert "deal 1:" in deal_claim["detail"] and "5" in deal_claim["detail"]
    assert (deal_claim["deal"], deal_claim["move"]) == (0, None)
    game_claim = next(d for d in items if d["game"] == spring["r2a"])
    assert (game_claim["deal"], game_claim["move"]) == (None, None)
    cleo = next(d for d in items if d["player"] == "cleo" and d["kind"] == "standing_differs")
    assert "claimed 278 (rank 1" in cleo["detail"] and "verified 139 (rank 2" in cleo["detail"]


def test_the_list_counts_the_discrepancies_each_audit_lists(shared_client, spring):
    listed = {row["id"]: row for row in
              shared_client.get(f"{API}/tournaments").get_json()["tournaments"]}
    assert listed["spring"]["discrepancies"] == len(expected_discrepancies(spring)) == 7
    for tournament, row in listed.items():
        audit = shared_client.get(row["links"]["self"]).get_json()
        assert row["discrepancies"] == len(audit["discrepancies"]), tournament


def test_penalty_scoring_ranks_the_lowest_total_first_in_a_table_of_its_own(client):
    # Under penalty scoring the loser scores his own 57 and the winner 0:
    #   ana-ben   ana 0 ben 57;  cleo-ana  cleo 0 ana 57   -> cleo 0 (1), ana 57, ben 57 (2)
    # A winner_collects rummy game of the same tournament is another table:
    #   ana-ben   ana 57 ben 0                             -> ana 1, ben 2
    penalty = basic(rules={"scoring": "penalty"})
    upload(client, entered(penalty, "autumn", 1, "A"), "valid")
    upload(client, entered(seated(penalty, ana="cleo", ben="ana"), "autumn", 2, "A"), "valid")
    upload(client, entered(basic(), "autumn", 3, "A"), "valid")
    body = client.get(f"{API}/tournaments/autumn").get_json()
    assert body["standings"] == [
        {"variant": "rummy", "better": "higher", "games": 1, "players": [
            standing("ana", 1, 57, 1, 1, None, None, 0),
            standing("ben", 2, 0, 1, 0, None, None, 0)]},
        {"variant": "rummy", "better": "lower", "games": 2, "players": [
            standing("cleo", 1, 0, 1, 1, None, None, 0),
            standing("ana", 2, 57, 2, 1, None, None, 0),
            standing("ben", 2, 57, 1, 0, None, None, 0)]}]
    assert body["discrepancies"] == []  # nothing claimed, nothing to contradict


def test_a_player_without_a_counted_game_has_no_verified_standing(client):
    # Ben's only game is illegal: it counts for nothing, its claims neither (the illegal
    # game is its own matter, not a standing of two players who have none).
    gid = upload(client, entered(illegal(), "solo", 1, "A", {"ana": 0, "ben": 139}),
                 "illegal")
    body = client.get(f"{API}/tournaments/solo").get_json()
    assert body["standings"][0]["games"] == 0
    assert body["standings"][0]["players"] == [
        standing("ana", None, None, 0, 0, None, None, 0),
        standing("ben", None, None, 0, 0, None, None, 0)]
    assert as_tuples(body["discrepancies"]) == [discrepancy("illegal_game", gid, "ana")]


# --------------------------------------------------------------------------- CSV

def read_csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.data.startswith("\ufeff".encode())
    return list(csv.DictReader(io.StringIO(response.data.decode("utf-8-sig"), newline="")))


def number(cell: str) -> int | None:
    return int(cell) if cell != "" else None


def test_csv_report_has_the_same_figures(shared_client, spring):
    response = shared_client.get(f"{API}/tournaments/spring/report.csv")
    assert response.headers["Content-Disposition"] == \
        "attachment; filename=tournament-spring.csv"
    rows = read_csv(response)
    assert list(rows[0]) == ["section", "variant", "round", "table", "game", "status",
                             "counted", "ruling", "winner", "recomputed_leader", "player",
                             "rank", "points",
                             "claimed_rank", "claimed_points", "games", "won", "kind",
                             "detail", "verification", "match_points", "credited_points",
                             "credited_winners"]
    sections = [row["section"] for row in rows]
    assert sections == ["standings"] * 6 + ["games"] * 14 + ["discrepancies"] * 7 \
        + ["open"] * 4

    standings = [(r["variant"], r["player"], number(r["rank"]), number(r["points"]),
                  number(r["games"]), number(r["won"]), number(r["claimed_rank"]),
                  number(r["claimed_points"])) for r in rows if r["section"] == "standings"]
    assert standings == [
        ("gin", s["player"], s["rank"], s["points"], s["games"], s["won"], s["claimed_rank"],
         s["claimed_points"]) for s in SPRING_GIN] + [
        ("rummy", s["player"], s["rank"], s["points"], s["games"], s["won"],
         s["claimed_rank"], s["claimed_points"]) for s in SPRING_RUMMY]

    games = [(r["game"], r["round"], r["table"], r["status"], r["counted"], r["winner"],
              r["player"], number(r["points"]), number(r["claimed_points"]))
             for r in rows if r["section"] == "games"]
    assert games[:2] == [(spring["r1a"], "1", "A", "valid", "true", "ana", "ana", 139, 139),
                         (spring["r1a"], "1", "A", "valid", "true", "ana", "ben", 0, 0)]
    assert (spring["r2b"], "2", "B", "illegal", "false", "", "ben", 0, 139) in games
    assert (spring["r3a"], "3", "A", "mismatch", "true", "ana", "ana", 139, None) in games
    # What each game credits, as numbers beside the recomputed ones: a sum of a player's
    # credited points over the games rows is their verified total.
    credited = {}
    for r in rows:
        if r["section"] == "games" and r["variant"] == "gin" and r["credited_points"]:
            credited[r["player"]] = credited.get(r["player"], 0) + int(r["credited_points"])
    assert credited == {s["player"]: s["points"] for s in SPRING_GIN}
    r2b = [r for r in rows if r["section"] == "games" and r["game"] == spring["r2b"]]
    assert {(r["credited_points"], r["credited_winners"]) for r in r2b} == {("", "")}
    r1a = [r for r in rows if r["section"] == "games" and r["game"] == spring["r1a"]]
    assert [r["credited_winners"] for r in r1a] == ["ana", "ana"]

    found = [(r["kind"], r["game"] or None, r["player"] or None, number(r["claimed_points"]),
              number(r["points"]), number(r["claimed_rank"]), number(r["rank"]))
             for r in rows if r["section"] == "discrepancies"]
    assert found == expected_discrepancies(spring)
    assert all(r["detail"] for r in rows if r["section"] == "discrepancies")


def test_csv_defuses_formulas_and_names_the_file_safely(client):
    log = entered(seated(valid(), ana="=HYPERLINK(1)", ben="@ben"), 'cup "2024"/x', 1, "A")
    upload(client, log, "valid")
    response = client.get(f"{API}/tournaments/cup%20%222024%22%2Fx/report.csv")
    assert response.headers["Content-Disposition"] == \
        "attachment; filename=tournament-cup_2024_x.csv"
    rows = read_csv(response)
    assert {r["player"] for r in rows} == {"'=HYPERLINK(1)", "'@ben"}
    json_body = client.get(f"{API}/tournaments/cup%20%222024%22%2Fx").get_json()
    assert json_body["standings"][0]["players"][0]["player"] == "=HYPERLINK(1)"


def two_deals_the_second_illegal() -> dict[str, Any]:
    """Ana knocks and scores 19 in deal 0; in deal 1 she discards a card she does not
    hold: illegal, with ana ahead on the points of the scored deal."""
    hands = {"ana": "2C 3C 4C 5D 5H 5S 9H 9D 9S KS", "ben": "5C 6C 7C 8C 9C AD 2D 3D JH JS"}
    return game("gin", ["ana", "ben"], [deal("ben", hands, "TD", KNOCK),
                                        deal("ben", hands, "TD", ["ana ds AH", "ana x 2H"])],
                rules={"target": None})


def test_a_game_that_does_not_count_shows_no_winner(client):
    """Its leader on the scored deals is shown apart, labelled, never as the winner: in
    the tournament's game list, its CSV, the game itself and the game list."""
    gid = upload(client, entered(two_deals_the_second_illegal(), "cup", 1, "A"), "illegal")
    [listed] = client.get(f"{API}/tournaments/cup").get_json()["games"]
    assert (listed["counted"], listed["winner"], listed["recomputed_leader"]) == \
        (False, None, "ana")
    assert listed["points"] == {"ana": 139, "ben": 0}
    rows = [r for r in read_csv(client.get(f"{API}/tournaments/cup/report.csv"))
            if r["section"] == "games"]
    assert [(r["player"], r["winner"], r["recomputed_leader"]) for r in rows] == \
        [("ana", "", "ana"), ("ben", "", "ana")]
    detail = client.get(f"{API}/games/{gid}").get_json()
    assert (detail["winner"], detail["margin"], detail["recomputed_leader"]) == \
        (None, None, "ana")
    [summary] = client.get(f"{API}/games?tournament=cup").get_json()["games"]
    assert (summary["winner"], summary["recomputed_leader"]) == (None, "ana")
    # One naming of the tournament everywhere: {id, round, table}.
    assert summary["tournament"] == detail["tournament"] == {"id": "cup", "round": 1,
                                                             "table": "A"}
    assert "tournament_id" not in summary
    counted = upload(client, entered(valid(), "cup", 1, "B"), "valid")
    detail = client.get(f"{API}/games/{counted}").get_json()
    assert (detail["winner"], detail["margin"], detail["recomputed_leader"]) == \
        ("ana", 139, None)


def test_csv_file_name_keeps_accents_for_clients_that_read_them(client):
    upload(client, entered(valid(), "Copa Málaga/ñ", 1, "A"), "valid")
    response = client.get(f"{API}/tournaments/Copa%20M%C3%A1laga%2F%C3%B1/report.csv")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=tournament-Copa_Malaga_n.csv; "
        "filename*=UTF-8''tournament-Copa_M%C3%A1laga_%C3%B1.csv")


# --------------------------------------------------------------------------- errors

def test_unknown_tournament_is_a_404_problem(shared_client, spring):
    for path in ("nope", "nope/report.csv", "Spring", "spring ", "x" * 300):
        response = shared_client.get(f"{API}/tournaments/{path}")
        problem = assert_problem(response, 404, "not-found")
        assert "tournament" in problem["detail"]


@pytest.mark.parametrize("evil", [
    "spring' OR '1'='1", "spring'--", "%' OR 1=1 --", "spring; DROP TABLE games; --",
    "' UNION SELECT id, log FROM games --", "spring\" OR \"\"=\"", "*", "%", "_pring",
])
def test_injection_like_ids_find_nothing_and_change_nothing(shared_app, shared_client,
                                                             spring, evil):
    before = counts(shared_app)
    for suffix in ("", "/report.csv"):
        response = shared_client.get(f"{API}/tournaments/{evil.replace('%', '%25')}{suffix}")
        assert_problem(response, 404, "not-found")
    assert counts(shared_app) == before
    assert shared_client.get(f"{API}/tournaments/spring").get_json()["summary"]["games"] == 7


def test_an_id_with_quotes_is_found_by_value(client):
    gid = upload(client, entered(valid(), "o'brien; --", 1, "A"), "valid")
    body = client.get(f"{API}/tournaments/o'brien;%20--").get_json()
    assert [g["id"] for g in body["games"]] == [gid]


def test_unknown_query_parameters_are_refused(shared_client, spring):
    for path in ("spring", "spring/report.csv"):
        problem = assert_problem(shared_client.get(f"{API}/tournaments/{path}?round=1"), 400,
                                 "invalid-parameter")
        assert "round" in problem["errors"]


def test_read_keys_guard_the_audit(make_app):
    client = make_app(RUMMY_READ_KEYS="reader").test_client()
    assert_problem(client.get(f"{API}/tournaments/spring"), 401, "unauthorized")
    response = client.get(f"{API}/tournaments/spring/report.csv",
                          headers={"Authorization": "Bearer reader"})
    assert_problem(response, 404, "not-found")


def test_openapi_documents_the_audit(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    audit = spec["paths"][f"{API}/tournaments/{{tournament_id}}"]["get"]
    example = audit["responses"]["200"]["content"]["application/json"]["example"]
    assert example["standings"][0]["players"][0]["player"] == "ana"
    assert {"404", "400"} <= set(audit["responses"])
    report = spec["paths"][f"{API}/tournaments/{{tournament_id}}/report.csv"]["get"]
    assert report["responses"]["200"]["content"]["text/csv"]["example"].startswith("section,")
    assert "Content-Disposition" in report["responses"]["200"]["headers"]


def test_tournaments_are_listed_by_id_a_page_at_a_time(client):
    upload(client, entered(valid() | {"played_at": "2024-03-02T20:00:00Z"}, "b-cup", 1, "A"),
           "valid")
    upload(client, entered(illegal() | {"played_at": "2024-03-01T20:00:00Z"}, "b-cup", 1,
                           "B"), "illegal")
    upload(client, entered(valid_rummy(), "a-cup", 1, "A"), "valid")
    upload(client, valid(id="no tournament"), "valid")
    first = client.get(f"{API}/tournaments?limit=1")
    body = first.get_json()
    assert [t["id"] for t in body["tournaments"]] == ["a-cup"]
    assert body["tournaments"][0]["variants"] == ["rummy"]
    assert first.headers["Link"] == f'<{body["next"]}>; rel="next"'
    second = client.get(body["next"]).get_json()
    assert second["next"] is None
    assert second["tournaments"] == [{
        "id": "b-cup", "games": 2, "counted": 1, "illegal": 1, "mismatch": 0,
        "discrepancies": 1, "open": 1, "final": False, "players": 2,
        "first_game_time": "2024-03-01T20:00:00Z",
        "last_game_time": "2024-03-02T20:00:00Z", "variants": ["gin"],
        "links": {"self": f"{API}/tournaments/b-cup",
                  "report": f"{API}/tournaments/b-cup/report.csv"}}]
    assert_problem(client.get(f"{API}/tournaments?cursor=abc"), 400, "invalid-cursor")


def test_a_tournament_whose_every_game_was_withdrawn_is_still_listed(client):
    """Its audit answers (no games, no standings, the withdrawn counted), so the list
    names it too, with nothing counted and no game time."""
    gone = upload(client, entered(valid(), "z-cup", 1, "A"), "valid")
    kept = upload(client, entered(valid_rummy(), "y-cup", 1, "A"), "valid")
    assert client.delete(f"{API}/games/{gone}?reason=wrong%20event").status_code == 200
    assert client.get(f"{API}/tournaments/z-cup").status_code == 200
    rows = {t["id"]: t for t in client.get(f"{API}/tournaments").get_json()["tournaments"]}
    assert list(rows) == ["y-cup", "z-cup"]
    assert rows["z-cup"] | {"links": None} == {
        "id": "z-cup", "games": 0, "counted": 0, "illegal": 0, "mismatch": 0,
        "discrepancies": 0, "open": 0, "final": True, "players": 0,
        "first_game_time": None, "last_game_time": None, "variants": [], "links": None}
    assert rows["y-cup"]["games"] == 1 and rows["y-cup"]["variants"] == ["rummy"]
    assert kept
    page = client.get("/tournaments")
    assert page.status_code == 200
    row = page.data.decode().split("z-cup</a>")[1].split("</tr>")[0]
    assert "No live game" in row and "Final" not in row

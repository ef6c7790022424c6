"""DELETE /games/{id}: a soft delete kept for the audit trail, and what it hides.

Every test runs with the store in the worker and in a process of its own, and the
write tests with write keys off (writes open) and on.
"""

from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from .helpers import API, assert_problem, post_log, valid

KEY = "write-key-1"
READ_KEY = "read-key-1"
DIRECTOR = "director"  # the write key's name: the label a deletion records


@pytest.fixture(params=["0", "1"], ids=["store here", "store process"])
def store_mode(request) -> str:
    return request.param


@pytest.fixture(params=[False, True], ids=["writes open", "write keys"])
def keyed(request) -> bool:
    return request.param


@pytest.fixture
def api(make_app, store_mode, keyed):
    config = {"RUMMY_STORE_PROCESS": store_mode}
    if keyed:
        config |= {"RUMMY_API_KEYS": f"{DIRECTOR}:{KEY}", "RUMMY_READ_KEYS": READ_KEY}
    client = make_app(**config).test_client()
    headers = {"Authorization": f"Bearer {KEY}"} if keyed else {}
    return client, headers, (DIRECTOR if keyed else None)


def in_tournament(log, round_, table):
    return log | {"tournament": {"id": "cup", "round": round_, "table": table}}


def test_a_deleted_game_is_gone_from_every_read_but_its_deletion(api):
    client, headers, label = api
    kept = post_log(client, in_tournament(valid(id="kept"), 1, "A"), headers=headers)
    gone = post_log(client, in_tournament(valid(id="gone"), 1, "B"), headers=headers)
    kept_id, gone_id = kept.get_json()["id"], gone.get_json()["id"]
    before = client.get(f"{API}/players/ana/stats", headers=headers).get_json()
    assert before["variants"]["gin"]["games"] == 2

    response = client.delete(f"{API}/games/{gone_id}?reason=uploaded+by+mistake",
                             headers=headers)
    assert response.status_code == 200, response.get_json()
    deletion = response.get_json()
    assert deletion["id"] == gone_id and deletion["deleted_by"] == label
    assert deletion["reason"] == "uploaded by mistake"
    assert deletion["deleted_at"].endswith("Z")

    for path in ("", "/log", "/deals/0/moves/0/state"):
        problem = assert_problem(client.get(f"{API}/games/{gone_id}{path}", headers=headers),
                                 410, "game-deleted")
        assert (problem["deleted_at"], problem["deleted_by"], problem["reason"]) == \
            (deletion["deleted_at"], label, "uploaded by mistake")
        assert deletion["deleted_at"] in problem["detail"]
    assert client.get(f"{API}/games/{kept_id}", headers=headers).status_code == 200

    def ids(path):
        return [g["id"] for g in client.get(f"{API}{path}", headers=headers).get_json()["games"]]

    assert ids("/games") == [kept_id]
    assert ids("/games?tournament=cup") == [kept_id]
    assert ids("/tournaments/cup") == [kept_id]
    figures = client.get(f"{API}/players/ana/stats", headers=headers).get_json()["variants"]
    assert (figures["gin"]["games"], figures["gin"]["deals"]) == (1, 1)
    board = client.get(f"{API}/players?sort=games", headers=headers).get_json()["players"]
    assert {row["player"]: row["games"] for row in board} == {"ana": 1, "ben": 1}
    versus = client.get(f"{API}/players/ana/versus/ben", headers=headers).get_json()
    assert versus["games"] == 1 and [g["id"] for g in versus["recent"]] == [kept_id]
    [gin] = client.get(f"{API}/stats/variants", headers=headers).get_json()["variants"]
    assert (gin["games"], gin["deals"]) == (1, 1)
    audit = client.get(f"{API}/tournaments/cup", headers=headers).get_json()
    assert audit["summary"]["games"] == 1 and audit["standings"][0]["games"] == 1
    csv_text = client.get(f"{API}/tournaments/cup/report.csv", headers=headers).get_data(
        as_text=True)
    # The deleted game is only listed as withdrawn, counted nowhere.
    assert kept_id in csv_text
    assert [line.split(",")[0] for line in csv_text.splitlines() if gone_id in line] == \
        ["withdrawn"]
    logs = client.get(f"{API}/games/export", headers=headers).data.splitlines()
    assert len(logs) == 1 and b'"kept"' in logs[0]
    parquet = pq.read_table(io.BytesIO(client.get(f"{API}/games/export?format=parquet",
                                                  headers=headers).data))
    assert set(parquet.column("game_id").to_pylist()) == {kept_id}


def test_deleting_twice_answers_the_first_deletion_and_unknown_is_404(api):
    client, headers, label = api
    gid = post_log(client, valid(id="twice"), headers=headers).get_json()["id"]
    first = client.delete(f"{API}/games/{gid}", headers=headers, json={"reason": "typo"})
    assert first.status_code == 200 and first.get_json()["reason"] == "typo"
    again = client.delete(f"{API}/games/{gid}?reason=other", headers=headers)
    assert (again.status_code, again.get_json()) == (200, first.get_json())
    assert_problem(client.delete(f"{API}/games/{'0' * 24}", headers=headers), 404,
                   "not-found")


def test_the_log_of_a_deleted_game_uploaded_again_is_refused(api):
    client, headers, label = api
    log = valid(id="again")
    gid = post_log(client, log, headers=headers).get_json()["id"]
    assert client.delete(f"{API}/games/{gid}", headers=headers).status_code == 200
    problem = assert_problem(post_log(client, log, headers=headers), 409, "game-deleted")
    assert problem["deleted_by"] == label
    assert client.get(f"{API}/games", headers=headers).get_json()["games"] == []
    # A corrected log is another game, stored as any other.
    assert post_log(client, valid(id="again, corrected"), headers=headers).status_code == 201


def test_a_reason_that_is_not_one_is_refused(api):
    client, headers, _ = api
    gid = post_log(client, valid(id="r"), headers=headers).get_json()["id"]
    assert_problem(client.delete(f"{API}/games/{gid}", headers=headers, json={"why": "x"}),
                   400, "invalid-parameter")
    assert_problem(client.delete(f"{API}/games/{gid}?reason=", headers=headers), 400,
                   "invalid-parameter")
    twice = b'{"reason": "typo", "reason": "uploaded twice"}'
    assert_problem(client.delete(f"{API}/games/{gid}", headers=headers, data=twice,
                                 content_type="application/json"), 400, "invalid-parameter")
    assert client.get(f"{API}/games/{gid}", headers=headers).status_code == 200


def test_deleting_needs_a_write_key(make_app, store_mode):
    client = make_app(RUMMY_STORE_PROCESS=store_mode, RUMMY_API_KEYS=KEY,
                      RUMMY_READ_KEYS=READ_KEY).test_client()
    gid = post_log(client, valid(id="k"), headers={"Authorization": f"Bearer {KEY}"}
                   ).get_json()["id"]
    assert_problem(client.delete(f"{API}/games/{gid}"), 401, "unauthorized")
    assert_problem(client.delete(f"{API}/games/{gid}",
                                 headers={"Authorization": f"Bearer {READ_KEY}"}),
                   403, "forbidden")
    read = {"Authorization": f"Bearer {READ_KEY}"}
    assert client.get(f"{API}/games/{gid}", headers=read).status_code == 200


def test_two_games_claiming_one_table_are_flagged_until_one_is_deleted(api):
    """An edited log of round 1, table A uploaded again is another game: the audit names
    both, in the JSON and the CSV, and stops once the wrong one is deleted."""
    client, headers, _ = api
    first = post_log(client, in_tournament(valid(id="r1a"), 1, "A"), headers=headers)
    edited = post_log(client, in_tournament(valid(id="r1a, edited"), 1, "A"),
                      headers=headers)
    other = post_log(client, in_tournament(valid(id="r1b"), 1, "B"), headers=headers)
    ids = [r.get_json()["id"] for r in (first, edited, other)]
    audit = client.get(f"{API}/tournaments/cup", headers=headers).get_json()
    [flag] = [d for d in audit["discrepancies"] if d["kind"] == "duplicate_table"]
    assert (flag["game"], flag["games"], flag["variant"]) == (ids[0], ids[:2], "gin")
    assert ids[0] in flag["detail"] and ids[1] in flag["detail"]
    assert "round 1, table A" in flag["detail"]
    [listed] = client.get(f"{API}/tournaments", headers=headers).get_json()["tournaments"]
    assert listed["discrepancies"] == len(audit["discrepancies"]) == 1
    csv_text = client.get(f"{API}/tournaments/cup/report.csv", headers=headers).get_data(
        as_text=True)
    [line] = [line for line in csv_text.splitlines()
              if "duplicate_table" in line and line.startswith("discrepancies,")]
    assert f"{ids[0]} {ids[1]}" in line
    assert client.delete(f"{API}/games/{ids[1]}", headers=headers).status_code == 200
    audit = client.get(f"{API}/tournaments/cup", headers=headers).get_json()
    assert [d for d in audit["discrepancies"] if d["kind"] == "duplicate_table"] == []
    assert [g["id"] for g in audit["games"]] == [ids[0], ids[2]]
    [listed] = client.get(f"{API}/tournaments", headers=headers).get_json()["tournaments"]
    assert listed["discrepancies"] == len(audit["discrepancies"]) == 0

"""POST /games/{id}/restore: a withdrawn game counts again, everywhere, as if it had
never been withdrawn, and the withdrawal stays in the audit trail.

Every test runs with the store in the worker and in a process of its own (the module's
``store_process``).
"""

from __future__ import annotations

import csv
import io
from typing import Any
from urllib.parse import quote

import pyarrow.parquet as pq
import pytest

from tests.ratings.helpers import corpus, history_of, ratings_of

from .helpers import API, assert_problem, post_log, store_of, valid
from .test_desk import DIRECTOR, KEY, WITH_KEY, at, audit, upload

READ_KEY = "read-key-1"
READ = {"Authorization": f"Bearer {READ_KEY}"}


@pytest.fixture
def client(make_app):
    """Write keys on: the director's label is recorded."""
    return make_app(RUMMY_API_KEYS=f"{DIRECTOR}:{KEY}").test_client()


def restore(client, gid: str, body: Any = None, headers: dict[str, str] | None = None,
            **kwargs: Any):
    if body is None:
        body = {"reason": "withdrawn by mistake"}
    return client.post(f"{API}/games/{gid}/restore", json=body,
                       headers=WITH_KEY if headers is None else headers, **kwargs)


def withdraw(client, gid: str, reason: str = "entered by mistake") -> dict[str, Any]:
    response = client.delete(f"{API}/games/{gid}", json={"reason": reason}, headers=WITH_KEY)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def reads(client) -> dict[str, Any]:
    """What the game's withdrawal changes: the listings, the tournament's standings and
    crosstable, the statistics, the leaderboard, the exports."""
    def get(path: str) -> Any:
        response = client.get(f"{API}{path}", headers=WITH_KEY)
        assert response.status_code == 200, (path, response.get_json())
        return response.get_json()

    export = client.get(f"{API}/games/export?format=parquet", headers=WITH_KEY)
    assert export.status_code == 200
    cup = get("/tournaments/cup")
    return {"games": sorted(g["id"] for g in get("/games")["games"]),
            "tournament": sorted(g["id"] for g in cup["games"]),
            "standings": cup["standings"], "final": cup["final"],
            "withdrawn": [w["id"] for w in get("/tournaments/cup/withdrawn")["withdrawn"]],
            "crosstable": get("/tournaments/cup/crosstable"),
            "stats": get("/players/ana/stats")["variants"],
            "board": get("/players?sort=games")["players"],
            "export": sorted(pq.read_table(io.BytesIO(export.data)).column("game_id").to_pylist()),
            "csv": [line for line in client.get(
                f"{API}/tournaments/cup/report.csv", headers=WITH_KEY
            ).get_data(as_text=True).splitlines() if not line.startswith("restored,")]}


def restored_lines(client, query: str = "") -> list[dict[str, str]]:
    """The CSV report's rows of the section ``restored``."""
    text = client.get(f"{API}/tournaments/cup/report.csv{query}",
                      headers=WITH_KEY).get_data(as_text=True).lstrip("\ufeff")
    return [row for row in csv.DictReader(io.StringIO(text)) if row["section"] == "restored"]


def test_a_restored_game_counts_again_everywhere(client):
    kept = upload(client, at(valid(id="kept"), "cup", 1, "A"), "valid", WITH_KEY)
    gone = upload(client, at(valid(id="gone"), "cup", 1, "B"), "valid", WITH_KEY)
    before = reads(client)
    assert before["tournament"] == sorted([kept, gone]) and before["stats"]["gin"]["games"] == 2
    deletion = withdraw(client, gone, "uploaded by mistake")
    withdrawn = reads(client)
    assert withdrawn["tournament"] == [kept] and withdrawn["withdrawn"] == [gone]
    assert withdrawn["stats"]["gin"]["games"] == 1

    response = restore(client, gone, {"reason": "  it was table B after all  "})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["id"], body["n"], body["restored_by"], body["reason"]) == (
        gone, 1, DIRECTOR, "it was table B after all")
    assert body["restored_at"].endswith("Z")
    assert (body["deleted_at"], body["deleted_by"], body["deleted_reason"],
            body["replaced_by"]) == (deletion["deleted_at"], DIRECTOR, "uploaded by mistake",
                                     None)
    assert body["warning"] is None and body["at_table"] == []
    assert [r["n"] for r in body["restorations"]] == [1]
    assert body["links"] == {"self": f"{API}/games/{gone}"}

    assert client.get(f"{API}/games/{gone}", headers=WITH_KEY).status_code == 200
    assert reads(client) == before  # nothing left of the withdrawal in what counts
    # The audit trail keeps it: the CSV report's section "restored".
    [line] = restored_lines(client)
    assert (line["game"], line["round"], line["table"], line["kind"], line["status"]) == (
        gone, "1", "B", "restored", "valid")
    assert line["detail"] == (
        f"restored at {body['restored_at']} by {DIRECTOR} (it was table B after all), "
        f"undoing: withdrawn at {deletion['deleted_at']} by {DIRECTOR} "
        "(uploaded by mistake)")
    assert restored_lines(client, "?after_round=1") == [line]


def test_the_ratings_are_those_of_a_store_where_the_game_was_never_withdrawn(make_app):
    logs = corpus(copies=2)
    withdrawn_app, untouched_app = make_app(), make_app()
    ids = []
    for app in (withdrawn_app, untouched_app):
        client = app.test_client()
        ids = [post_log(client, log).get_json()["id"] for log in logs]
    client = withdrawn_app.test_client()
    never = ratings_of(store_of(untouched_app))
    middle = ids[len(ids) // 3]  # played before most games of its pool: a replay
    assert client.delete(f"{API}/games/{middle}?reason=typo").status_code == 200
    assert ratings_of(store_of(withdrawn_app)) != never
    assert client.post(f"{API}/games/{middle}/restore",
                       json={"reason": "no typo"}).status_code == 200

    assert ratings_of(store_of(withdrawn_app)) == never
    assert history_of(store_of(withdrawn_app)) == history_of(store_of(untouched_app))
    # And so are the answers of the ratings endpoints, which read them.
    for path in ("/ratings?variant=gin&limit=500", "/players/ana/ratings?limit=500"):
        assert client.get(f"{API}{path}").get_json() == \
            untouched_app.test_client().get(f"{API}{path}").get_json()
    # The last game of a pool restored: rated at the end again.
    last = ids[-1]
    assert client.delete(f"{API}/games/{last}").status_code == 200
    assert client.post(f"{API}/games/{last}/restore", json={"reason": "r"}).status_code == 200
    assert ratings_of(store_of(withdrawn_app)) == never


def test_restoring_an_unknown_or_live_game_is_refused(client):
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    problem = assert_problem(restore(client, "0" * 24), 404, "not-found")
    assert "0" * 24 in problem["detail"]
    assert_problem(restore(client, "x" * 300), 404, "not-found")
    problem = assert_problem(restore(client, gid), 409, "not-withdrawn")
    assert gid in problem["detail"]
    with store_of(client.application).cursor() as cur:
        assert cur.execute("SELECT count(*) FROM restorations").fetchone()[0] == 0


def test_a_game_whose_correction_is_live_is_restored_only_once_that_one_is_withdrawn(client):
    old = upload(client, at(valid(), "cup", 1, "A", {"ana": 0, "ben": 139}), "mismatch",
                 WITH_KEY)
    response = post_log(client, at(valid(), "cup", 1, "A", {"ana": 139, "ben": 0}),
                        f"?replaces={old}&reason=claims+the+wrong+way", headers=WITH_KEY)
    new = response.get_json()["id"]

    problem = assert_problem(restore(client, old), 409, "replaced")
    assert problem["replaced_by"] == new and new in problem["detail"]
    assert problem["links"]["replaced_by"] == f"{API}/games/{new}"
    assert [g["id"] for g in audit(client, "cup", WITH_KEY)["games"]] == [new]

    withdraw(client, new, "the correction was the mistake")
    response = restore(client, old, {"reason": "the claims were right"})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["replaced_by"], body["deleted_reason"]) == (new, "claims the wrong way")
    assert [g["id"] for g in audit(client, "cup", WITH_KEY)["games"]] == [old]
    # The replacement is undone too: the game no longer names a game that replaced it,
    # and it may be replaced again.
    assert [w["id"] for w in client.get(f"{API}/tournaments/cup/withdrawn",
                                        headers=WITH_KEY).get_json()["withdrawn"]] == [new]
    again = post_log(client, at(valid(id="third"), "cup", 1, "A"),
                     f"?replaces={old}&reason=once+more", headers=WITH_KEY)
    assert again.status_code == 201, again.get_json()


@pytest.mark.parametrize("body, field", [
    ({}, "reason"), ({"reason": ""}, "reason"), ({"reason": "   "}, "reason"),
    ({"reason": "x" * 1001}, "reason"), ({"reason": 3}, "reason"),
    ({"reason": "r", "game": "g"}, "game"), (["reason"], "$"), ("reason", "$"),
    ({"reason": "a\u0000b"}, "reason"), ({"reason": "red\u001b[0m"}, "reason")])
def test_a_body_that_is_not_a_reason_is_a_400(client, body, field):
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    withdraw(client, gid)
    problem = assert_problem(restore(client, gid, body), 400, "invalid-parameter")
    assert field in problem["errors"]
    assert client.get(f"{API}/games/{gid}", headers=WITH_KEY).status_code == 410


def test_bodies_that_are_not_json_and_the_keys(client):
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    withdraw(client, gid)
    url = f"{API}/games/{gid}/restore"
    assert_problem(client.post(url, data=b"{", content_type="application/json",
                               headers=WITH_KEY), 400, "invalid-parameter")
    assert_problem(client.post(url, data=b"", content_type="application/json",
                               headers=WITH_KEY), 400, "invalid-parameter")
    assert_problem(client.post(url, data=b"reason=r", headers=WITH_KEY,
                               content_type="application/x-www-form-urlencoded"),
                   415, "unsupported-media-type")
    assert_problem(restore(client, gid, headers={}), 401, "unauthorized")
    assert_problem(restore(client, gid, headers={"Authorization": "Bearer nope"}), 403,
                   "forbidden")
    assert client.get(f"{API}/games/{gid}", headers=WITH_KEY).status_code == 410


def test_a_read_key_does_not_restore(make_app):
    client = make_app(RUMMY_API_KEYS=f"{DIRECTOR}:{KEY}", RUMMY_READ_KEYS=READ_KEY).test_client()
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    withdraw(client, gid)
    assert_problem(restore(client, gid, headers=READ), 403, "forbidden")


def test_writes_open_restore_without_a_key(make_app):
    client = make_app().test_client()
    gid = post_log(client, at(valid(), "cup")).get_json()["id"]
    assert client.delete(f"{API}/games/{gid}").status_code == 200
    response = client.post(f"{API}/games/{gid}/restore", json={"reason": "r"})
    assert response.status_code == 200 and response.get_json()["restored_by"] is None


def test_a_restore_onto_a_table_held_by_another_game_warns(client):
    first = upload(client, at(valid(id="first"), "cup", 2, "7"), "valid", WITH_KEY)
    second = upload(client, at(valid(id="second"), "cup", 2, "7"), "valid", WITH_KEY)
    other = upload(client, at(valid(id="other"), "cup", 2, "8"), "valid", WITH_KEY)
    kept = client.post(f"{API}/tournaments/cup/tables/2/7/keep", headers=WITH_KEY,
                       json={"game": first, "reason": "entered twice"})
    assert kept.status_code == 200
    assert audit(client, "cup", WITH_KEY)["final"] is True

    response = restore(client, second, {"reason": "the second copy was the right one"})
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["at_table"] == [first] and first in body["warning"]
    assert body["warning"].startswith("1 other live game holds this round and table")
    assert other not in body["at_table"]
    after = audit(client, "cup", WITH_KEY)
    assert after["final"] is False
    assert [(m["kind"], m["games"]) for m in after["open"]] == [
        ("duplicate_table", [first, second])]


@pytest.mark.parametrize("bad", ["a\u0000b", "   ", "a\u2028b", "x\u202ey", "\u2066y\u2069",
                                 "line\u2029two", "\ufeff", "\u200b \u200b", "\u0301",
                                 " " + "x" * 1001])
def test_every_reason_of_the_desk_is_held_to_one_rule(client, bad):
    """A withdrawal (query or body), a replacement, a ruling, a keep and a restore refuse
    the same reasons: a control character, only white space, a line separator or a
    bidirectional control (it would reorder the page around it)."""
    gid = upload(client, at(valid(), "cup", 1, "A"), "valid", WITH_KEY)
    quoted = quote(bad)
    assert_problem(client.delete(f"{API}/games/{gid}?reason={quoted}", headers=WITH_KEY),
                   400, "invalid-parameter")
    assert_problem(client.delete(f"{API}/games/{gid}", json={"reason": bad},
                                 headers=WITH_KEY), 400, "invalid-parameter")
    assert client.get(f"{API}/games/{gid}", headers=WITH_KEY).status_code == 200
    ruling = client.put(f"{API}/games/{gid}/ruling", json={"ruling": "void", "reason": bad},
                        headers=WITH_KEY)
    assert ruling.status_code in (400, 422) and "reason" in ruling.get_json()["errors"]
    replaced = post_log(client, at(valid(id="fixed"), "cup", 1, "A"),
                        f"?replaces={gid}&reason={quoted}", headers=WITH_KEY)
    assert replaced.status_code == 400, replaced.get_json()
    second = upload(client, at(valid(id="copy"), "cup", 1, "A"), "valid", WITH_KEY)
    kept = client.post(f"{API}/tournaments/cup/tables/1/A/keep", headers=WITH_KEY,
                       json={"game": second, "reason": bad})
    assert kept.status_code in (400, 422) and "reason" in kept.get_json()["errors"]
    withdraw(client, second)
    assert "reason" in assert_problem(restore(client, second, {"reason": bad}), 400,
                                      "invalid-parameter")["errors"]
    assert client.get(f"{API}/games/{gid}", headers=WITH_KEY).status_code == 200


def test_a_reason_is_stored_stripped_wherever_it_is_given(client):
    gid = upload(client, at(valid(), "cup", 1, "A"), "valid", WITH_KEY)
    first = client.delete(f"{API}/games/{gid}?reason=%20%20typo%20", headers=WITH_KEY)
    assert first.status_code == 200 and first.get_json()["reason"] == "typo"
    assert restore(client, gid, {"reason": " back "}).get_json()["reason"] == "back"
    body = client.delete(f"{API}/games/{gid}", json={"reason": "\u00a0again "}, headers=WITH_KEY)
    assert body.get_json()["reason"] == "again"


def test_the_audit_trail_keeps_every_withdrawal_and_restoration(client):
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    first = withdraw(client, gid, "first withdrawal")
    assert "restorations" not in assert_problem(
        client.get(f"{API}/games/{gid}", headers=WITH_KEY), 410, "game-deleted")
    assert restore(client, gid, {"reason": "first restoration"}).status_code == 200
    second = withdraw(client, gid, "second withdrawal")
    assert second["reason"] == "second withdrawal"  # a new withdrawal, not the first one

    gone = assert_problem(client.get(f"{API}/games/{gid}", headers=WITH_KEY), 410,
                          "game-deleted")
    assert gone["reason"] == "second withdrawal"
    [earlier] = gone["restorations"]
    assert (earlier["n"], earlier["reason"], earlier["restored_by"], earlier["deleted_at"],
            earlier["deleted_reason"]) == (1, "first restoration", DIRECTOR,
                                           first["deleted_at"], "first withdrawal")
    assert earlier["restored_at"].endswith("Z")

    body = restore(client, gid, {"reason": "second restoration"}).get_json()
    assert [(r["n"], r["reason"], r["deleted_reason"]) for r in body["restorations"]] == [
        (1, "first restoration", "first withdrawal"),
        (2, "second restoration", "second withdrawal")]
    # The live game's history reads back the same, with no restore to make.
    read = client.get(f"{API}/games/{gid}/restorations", headers=WITH_KEY)
    assert read.status_code == 200, read.get_json()
    assert read.get_json() == {"id": gid, "restorations": body["restorations"], "links": {
        "self": f"{API}/games/{gid}/restorations", "game": f"{API}/games/{gid}"}}
    with store_of(client.application).cursor() as cur:
        assert cur.execute("SELECT count(*) FROM deletions").fetchone()[0] == 0
        assert cur.execute("SELECT count(*) FROM restorations").fetchone()[0] == 2


def test_openapi_documents_the_restore(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    operation = spec["paths"]["/api/v1/games/{game_id}/restore"]["post"]
    assert set(operation["responses"]) >= {"200", "400", "401", "403", "404", "409", "415"}
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["reason"] and body["additionalProperties"] is False
    assert operation["security"] == [{"bearerAuth": []}]


def test_a_game_never_withdrawn_has_no_restorations_and_a_withdrawn_one_answers_410(client):
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    body = client.get(f"{API}/games/{gid}/restorations", headers=WITH_KEY).get_json()
    assert body["restorations"] == [] and body["id"] == gid
    withdraw(client, gid, "uploaded twice")
    assert_problem(client.get(f"{API}/games/{gid}/restorations", headers=WITH_KEY), 410,
                   "game-deleted")
    assert_problem(client.get(f"{API}/games/{'0' * 24}/restorations", headers=WITH_KEY),
                   404, "not-found")
    spec = client.get(f"{API}/openapi.json").get_json()
    operation = spec["paths"]["/api/v1/games/{game_id}/restorations"]["get"]
    assert set(operation["responses"]) >= {"200", "404", "410"}


def test_openapi_says_every_member_of_a_restoration_and_of_the_410(client):
    """Every member a restoration always carries is required (null where it may be), and
    the 410 of a withdrawn game documents the restorations and correction it names."""
    spec = client.get(f"{API}/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    [restored] = [schema for name, schema in schemas.items() if name.startswith("Restored")]
    assert set(restored["required"]) == set(restored["properties"])
    gid = upload(client, at(valid(), "cup"), "valid", WITH_KEY)
    withdraw(client, gid, "first")
    entry = restore(client, gid, {"reason": "back"}).get_json()["restorations"][0]
    assert set(entry) == set(restored["properties"])
    withdraw(client, gid, "again")
    gone = client.get(f"{API}/games/{gid}/restorations", headers=WITH_KEY).get_json()
    problem = schemas["Problem"]["properties"]
    assert {"restorations", "replaced_by", "live_correction"} <= set(problem)
    assert set(gone) - {"instance"} <= set(problem), set(gone) - set(problem)
    assert [r["reason"] for r in gone["restorations"]] == ["back"]


@pytest.mark.parametrize("query", ["reason=%FF", "reason=abc%FFdef", "reason=%C0%AF",
                                   "reason=%ED%A0%80", "reason=a&reason=b"])
def test_a_query_reason_that_is_not_one_text_is_refused_and_nothing_changes(client, query):
    """A query's reason that is not valid UTF-8 once percent-decoded (read leniently, its
    escapes would be stored as text) or is given twice is refused, as a body's is."""
    gid = upload(client, at(valid(), "cup", 1, "A"), "valid", WITH_KEY)
    problem = assert_problem(client.delete(f"{API}/games/{gid}?{query}", headers=WITH_KEY),
                             400, "invalid-parameter")
    assert "reason" in problem["errors"]
    replaced = post_log(client, at(valid(id="fixed"), "cup", 1, "A"),
                        f"?replaces={gid}&{query}", headers=WITH_KEY)
    assert replaced.status_code == 400 and "reason" in replaced.get_json()["errors"]
    assert client.put(f"{API}/games/{gid}/ruling", json={"ruling": "void", "reason": "r"},
                      headers=WITH_KEY).status_code == 200
    assert_problem(client.delete(f"{API}/games/{gid}/ruling?{query}", headers=WITH_KEY),
                   400, "invalid-parameter")
    assert client.get(f"{API}/games/{gid}", headers=WITH_KEY).status_code == 200
    assert client.get(f"{API}/games/{gid}/ruling", headers=WITH_KEY).get_json()[
        "ruling"]["reason"] == "r"


def test_a_padded_reason_of_the_longest_length_is_taken_wherever_it_is_given(client):
    longest = "x" * 1000
    gid = upload(client, at(valid(), "cup", 1, "A"), "valid", WITH_KEY)
    gone = client.delete(f"{API}/games/{gid}?reason=%20{longest}%20", headers=WITH_KEY)
    assert gone.status_code == 200 and gone.get_json()["reason"] == longest
    back = restore(client, gid, {"reason": f" {longest} "})
    assert back.status_code == 200 and back.get_json()["reason"] == longest
    fixed = post_log(client, at(valid(id="fixed"), "cup", 1, "A"),
                     f"?replaces={gid}&reason=+{longest}+", headers=WITH_KEY)
    assert fixed.status_code == 201, fixed.get_json()
    [withdrawn] = client.get(f"{API}/tournaments/cup/withdrawn",
                             headers=WITH_KEY).get_json()["withdrawn"]
    assert withdrawn["reason"] == longest

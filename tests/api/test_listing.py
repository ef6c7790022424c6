"""GET /games: filters, keyset pagination, cursors, and hostile parameter values."""

from __future__ import annotations

from urllib.parse import quote

import orjson
import pytest

from .helpers import API, assert_problem, counts, illegal, incomplete, post_log, valid

GAMES = f"{API}/games"


def upload_many(client, n: int, **changes) -> list[str]:
    return [post_log(client, valid(id=f"g{i}", **changes)).get_json()["id"]
            for i in range(n)]


def walk(client, url: str) -> tuple[list[str], int]:
    """Every id through every page, following the Link header; and the page count."""
    ids: list[str] = []
    pages = 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.data
        body = response.get_json()
        pages += 1
        ids += [item["id"] for item in body["games"]]
        link = response.headers.get("Link")
        if body["next"] is None:
            assert link is None
        else:
            assert link == f'<{body["next"]}>; rel="next"'
        url = body["next"]
    return ids, pages


def test_pages_cover_every_game_once_newest_first(client):
    ids = upload_many(client, 11)
    seen, pages = walk(client, f"{GAMES}?limit=3")
    assert seen == list(reversed(ids)) and pages == 4
    seen, pages = walk(client, f"{GAMES}?limit=11")
    assert len(seen) == 11 and pages == 1


def test_games_added_during_the_walk_are_neither_lost_nor_repeated(client):
    ids = upload_many(client, 6)
    first = client.get(f"{GAMES}?limit=4").get_json()
    post_log(client, valid(id="late"))
    rest, _ = walk(client, first["next"])
    assert [item["id"] for item in first["games"]] + rest == list(reversed(ids))


def test_default_and_maximum_page_size(make_app):
    client = make_app(RUMMY_PAGE_SIZE=2, RUMMY_MAX_PAGE_SIZE=4).test_client()
    upload_many(client, 5)
    assert len(client.get(GAMES).get_json()["games"]) == 2
    problem = assert_problem(client.get(f"{GAMES}?limit=5"), 400, "invalid-parameter")
    assert "limit" in problem["errors"]


@pytest.mark.parametrize("query", ["limit=0", "limit=-1", "limit=abc", "limit=501",
                                   "limit=1e3", "stauts=valid", "since=yesterday",
                                   "until=2024-13-01", "since=2024-02-30",
                                   "status=VALID", "variant=poker"])
def test_bad_parameters_are_400_with_the_field_named(shared_client, query):
    problem = assert_problem(shared_client.get(f"{GAMES}?{query}"), 400, "invalid-parameter")
    assert query.split("=")[0] in problem["errors"]


def test_filters(client):
    post_log(client, valid(id="a", players=["ana", "ben"], played_at="2024-05-01T10:00:00Z",
                           tournament={"id": "cup", "round": 1, "table": "A"}))
    post_log(client, valid(id="b", played_at="2024-06-15T10:00:00+02:00"))
    post_log(client, illegal(id="c", played_at="2023-01-01T00:00:00Z"))
    post_log(client, incomplete(id="d"))

    def ids(query: str) -> list[str]:
        response = client.get(f"{GAMES}?{query}")
        assert response.status_code == 200, response.data
        return sorted(item["source_id"] for item in response.get_json()["games"])

    assert ids("") == ["a", "b", "c", "d"]
    assert ids("player=ana") == ["a", "b", "c", "d"] and ids("player=zed") == []
    assert ids("variant=gin") == ["a", "b", "c", "d"] and ids("variant=rummy") == []
    assert ids("status=illegal") == ["c"] and ids("status=incomplete") == ["d"]
    assert ids("tournament=cup") == ["a"]
    assert ids("since=2024-01-01&until=2024-12-31") == ["a", "b"]
    assert ids("since=2024-06-15T08:00:00Z") == ["b", "d"]  # d: its upload time
    assert ids("until=2024-06-15T08:00:00Z") == ["a", "c"]  # until is exclusive
    assert ids("until=2024-05-01") == ["c"]
    assert ids("status=valid&since=2024-05-01&until=2024-05-02") == ["a"]


def test_games_are_found_by_the_logs_own_id_round_and_table(client):
    post_log(client, valid(id="r1-t1", tournament={"id": "cup", "round": 1, "table": "1"}))
    post_log(client, valid(id="r1-t2", tournament={"id": "cup", "round": 1, "table": "2"}))
    post_log(client, valid(id="r2-t1", tournament={"id": "cup", "round": 2, "table": "1"}))
    post_log(client, valid(id="R2-T1", tournament={"id": "open", "round": 2}))

    def ids(query: str) -> list[str]:
        response = client.get(f"{GAMES}?{query}")
        assert response.status_code == 200, response.data
        return sorted(item["source_id"] for item in response.get_json()["games"])

    assert ids("source_id=r1-t2") == ["r1-t2"]
    assert ids("source_id=r2-t1") == ["r2-t1"]  # an id is exact: R2-T1 is another game
    assert ids("source_id=r3") == []
    assert ids("round=2") == ["R2-T1", "r2-t1"] and ids("round=3") == []
    assert ids("table=1") == ["r1-t1", "r2-t1"]
    assert ids("tournament=cup&round=1&table=1") == ["r1-t1"]
    walked, pages = walk(client, f"{GAMES}?round=1&limit=1")
    assert len(walked) == 2 and pages == 2
    for query in ("round=0", "round=x", "round=1.5", "source_id=", "table="):
        problem = assert_problem(client.get(f"{GAMES}?{query}"), 400, "invalid-parameter")
        assert query.split("=")[0] in problem["errors"]


def test_player_and_tournament_filters_ignore_case_and_accents(client):
    for source_id, player, tournament in (("a", "José", "Été Cup"), ("b", "jose", "ete cup"),
                                          ("c", "Zoë", "Open")):
        log = orjson.dumps(valid(id=source_id, tournament={"id": tournament}))
        assert post_log(client, log.replace(b'"ana"', orjson.dumps(player))).status_code == 201

    def ids(query: str) -> list[str]:
        response = client.get(f"{GAMES}?{quote(query, safe='=&')}")
        assert response.status_code == 200, response.data
        return sorted(item["source_id"] for item in response.get_json()["games"])

    # No game holds the name as typed: every name equal to it but for case and accents.
    assert ids("player=JOSE") == ["a", "b"] and ids("player=Jose") == ["a", "b"]
    assert ids("player=zoe") == ["c"] and ids("player=ZOË") == ["c"]
    assert ids("tournament=ETE CUP") == ["a", "b"] and ids("tournament=open") == ["c"]
    # A name stored exactly as typed means that player, that tournament.
    assert ids("player=José") == ["a"] and ids("player=jose") == ["b"]
    assert ids("tournament=Été Cup") == ["a"] and ids("tournament=ete cup") == ["b"]
    assert ids("player=jos") == [] and ids("tournament=cup") == []
    # A deleted game's name is no exact match: the folded match finds the live games.
    deleted = client.get(f"{GAMES}?source_id=b").get_json()["games"][0]["id"]
    assert client.delete(f"{GAMES}/{deleted}").status_code == 200
    assert ids("player=jose") == ["a"] and ids("tournament=ete cup") == ["a"]


def test_a_filtered_walk_stays_filtered(client):
    upload_many(client, 5)
    for i in range(4):
        post_log(client, illegal(id=f"bad{i}"))
    seen, pages = walk(client, f"{GAMES}?status=illegal&limit=3")
    assert len(seen) == 4 and pages == 2
    statuses = {client.get(f"{GAMES}/{gid}").get_json()["status"] for gid in seen}
    assert statuses == {"illegal"}


def test_tampered_or_foreign_cursors_are_400(client):
    upload_many(client, 4)
    cursor = client.get(f"{GAMES}?limit=2").get_json()["next"].rsplit("cursor=", 1)[1]
    assert client.get(f"{GAMES}?limit=2&cursor={cursor}").status_code == 200
    tampered = [cursor[:-1] + ("A" if cursor[-1] != "A" else "B"), cursor[::-1], "x", "",
                "MTIz", "%00", "=" * 8, cursor + "AAAA", "c1:5:abc:def"]
    for bad in tampered:
        assert_problem(client.get(f"{GAMES}?cursor={quote(bad)}"), 400, "invalid-cursor")
    # A cursor belongs to its filters.
    assert_problem(client.get(f"{GAMES}?status=valid&cursor={cursor}"), 400,
                   "invalid-cursor")


HOSTILE = ["'; DROP TABLE games; --", "\" OR 1=1 --", "ana' OR '1'='1", "%00", "\\",
           "); DELETE FROM games; --", "*", "%", "_", "ana\x00", "💥" * 10, "' UNION SELECT "
           "log FROM games --", "$1", "?", "NULL", "true", "[]", "{}", "a" * 5000]


@pytest.mark.parametrize("name", ["player", "variant", "status", "tournament", "source_id",
                                  "round", "table", "since", "until", "limit", "cursor"])
def test_injection_like_values_break_nothing(shared_app, name):
    client = shared_app.test_client()
    upload_many(client, 3)
    before = counts(shared_app)
    for value in HOSTILE:
        response = client.get(f"{GAMES}?{name}={quote(value)}")
        if response.status_code == 200:
            assert response.get_json()["games"] == []
        else:
            assert_problem(response, 400, "invalid-parameter" if name != "cursor"
                           else "invalid-cursor")
    assert counts(shared_app) == before
    assert len(client.get(GAMES).get_json()["games"]) == before["games"]
    assert client.get(f"{API}/healthz").status_code == 200


def test_hostile_game_ids_are_plain_404(shared_app):
    client = shared_app.test_client()
    upload_many(client, 1)
    before = counts(shared_app)
    for value in ["' OR 1=1 --", "x'; DROP TABLE games; --", "%25", "..%2F..%2Fetc"]:
        assert_problem(client.get(f"{GAMES}/{quote(value, safe='%')}"), 404, "not-found")
    assert counts(shared_app) == before


def test_game_links_match_the_routes(make_app):
    """The links are built by hand on the hot paths: they must be what url_for gives,
    under a script root too."""
    from flask import url_for

    from service.api.games import game_url, links

    app = make_app()
    for root in ("", "/audit"):
        with app.test_request_context("/", environ_base={"SCRIPT_NAME": root}):
            gid = "0123456789abcdef01234567"
            assert game_url(gid) == url_for("games.get_game", game_id=gid)
            assert links(gid) == {"self": url_for("games.get_game", game_id=gid),
                                  "log": url_for("games.get_log", game_id=gid)}
            assert game_url("a/b c") == url_for("games.get_game", game_id="a/b c")


PLAYED = [("a", "2024-03-01T10:00:00Z"), ("b", "2024-01-01T10:00:00Z"),
          ("c", None), ("d", "2024-02-01T10:00:00Z"), ("e", "2024-01-01T10:00:00Z"),
          ("f", "2024-04-01T10:00:00+02:00"), ("g", None), ("h", "2024-02-01T09:59:59.5Z")]


def test_games_are_listed_by_the_time_they_were_played_then_uploaded(client):
    """The uploads come in another order than the games were played: the list follows
    the played time (the upload time for a log without one), the later uploaded first
    among games of one time, and its pages follow the same order."""
    ids = {}
    for name, when in PLAYED:
        log = valid(id=name) if when is None else valid(id=name, played_at=when)
        ids[name] = post_log(client, log).get_json()["id"]
    # c and g have no played time: their upload time, after every played time here.
    expected = [ids[n] for n in ("g", "c", "f", "a", "d", "h", "e", "b")]
    assert [g["id"] for g in client.get(f"{GAMES}?limit=50").get_json()["games"]] == expected
    for limit in (1, 2, 3):
        seen, _ = walk(client, f"{GAMES}?limit={limit}")
        assert seen == expected
    page = client.get("/games", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert [page.index(f'/games/{ids[n]}"') for n in ("g", "c", "f", "a", "d", "h", "e", "b")] \
        == sorted(page.index(f'/games/{ids[n]}"') for n in ids)


def test_a_game_played_earlier_and_stored_during_the_walk_is_listed_once_or_not(client):
    for name, when in PLAYED:
        post_log(client, valid(id=name, played_at=when or "2024-05-01T00:00:00Z"))
    first = client.get(f"{GAMES}?limit=3").get_json()
    # One played before the walk's place (listed on a later page), one after it (not).
    early = post_log(client, valid(id="early", played_at="2023-06-01T00:00:00Z")).get_json()
    late = post_log(client, valid(id="late", played_at="2025-01-01T00:00:00Z")).get_json()
    rest, _ = walk(client, first["next"])
    seen = [g["id"] for g in first["games"]] + rest
    assert len(seen) == len(set(seen)) == len(PLAYED) + 1
    assert seen[-1] == early["id"] and late["id"] not in seen

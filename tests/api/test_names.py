"""Names and ids (docs/LOG_FORMAT.md, "Names and ids"): control, invisible and
line-breaking characters and spaces around a name are refused on upload as a
validation error naming the field; the filters take the same names; a log stored
before the rule is still read; and links to a player or tournament carry any name,
every segment percent-encoded."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

import orjson
import pytest

from service.engine import parse_game, verify
from service.store.records import build_record

from .helpers import API, assert_problem, counts, lines_of, ndjson, post_log, store_of, valid

# One name for each refused kind: Cc, Cf, Zl, Zp, and spaces around a name or alone.
REFUSED = {"NUL": "ana\u0000", "tab": "ana\tx", "newline": "an\na", "DEL": "ana\u007f",
           "C1 control": "ana\u0085", "right-to-left override": "\u202eana",
           "zero-width space": "a\u200bna", "zero-width joiner": "an\u200da",
           "byte order mark": "\ufeffana", "soft hyphen": "an\u00ada",
           "line separator": "ana\u2028", "paragraph separator": "a\u2029na",
           "spaces alone": "   ", "a space before": " ana", "a space after": "ana ",
           "a no-break space after": "ana\u00a0", "ideographic spaces alone": "\u3000\u3000"}
# Names the rule keeps: spaces inside, letters of any script, the characters of a URL.
KEPT = ["ana maría", "Málaga", "李 娜", "a/b", "x#y?z&w=1", "50%", "a..b", "...", "🂡 ace"]


def renamed(log: dict[str, Any], old: str, new: str) -> bytes:
    """The log with the player ``old`` called ``new`` everywhere (the log stays valid
    but for the name)."""
    return orjson.dumps(log).replace(orjson.dumps(old), orjson.dumps(new))


def with_fields(field: str, value: str) -> bytes:
    log = valid(tournament={"id": "spring", "round": 1, "table": "A"})
    if field == "players.0":
        return renamed(log, "ana", value)
    if field == "id":
        return orjson.dumps(log | {"id": value})
    key = field.split(".")[1]
    return orjson.dumps(log | {"tournament": log["tournament"] | {key: value}})


def post_batch(client, body: bytes):
    return client.post(f"{API}/games/batch", data=body, content_type="application/x-ndjson")


@pytest.mark.parametrize("field", ["players.0", "id", "tournament.id", "tournament.table"])
@pytest.mark.parametrize("kind", list(REFUSED))
def test_a_name_or_id_breaking_the_rule_is_refused_naming_the_field(shared_app, field, kind):
    client = shared_app.test_client()
    stored = counts(shared_app)["games"]
    body = with_fields(field, REFUSED[kind])
    problem = assert_problem(post_log(client, body), 422, "validation-error")
    assert set(problem["errors"]) == {field}, problem["errors"]
    [line] = lines_of(post_batch(client, ndjson(body)))
    assert line["error"]["type"] == "/problems/validation-error"
    assert set(line["error"]["errors"]) == {field}, line
    assert counts(shared_app)["games"] == stored


@pytest.mark.parametrize("field", ["players.0", "tournament.id"])
@pytest.mark.parametrize("name", [".", ".."])
def test_a_player_or_tournament_named_by_dots_alone_is_refused(shared_client, field, name):
    client = shared_client
    problem = assert_problem(post_log(client, with_fields(field, name)), 422,
                             "validation-error")
    assert set(problem["errors"]) == {field}


def test_names_with_spaces_inside_any_script_and_url_characters_are_kept(client):
    for name in KEPT:
        for field in ("players.0", "id", "tournament.id", "tournament.table"):
            response = post_log(client, with_fields(field, name))
            assert response.status_code == 201, (field, name, response.get_json())
    for name in ("", ):  # an empty id or table is allowed, as before
        for field in ("id", "tournament.table"):
            assert post_log(client, with_fields(field, name)).status_code == 201


def test_the_filters_take_the_names_a_log_takes(client):
    for name in KEPT:
        stored = post_log(client, renamed(valid(tournament={"id": name}), "ana", name))
        assert stored.status_code == 201
        for query in ({"player": name}, {"tournament": name}):
            listed = client.get(f"{API}/games", query_string=query)
            assert [g["id"] for g in listed.get_json()["games"]] == [stored.get_json()["id"]]
        board = client.get(f"{API}/players", query_string={"tournament": name})
        assert name in [row["player"] for row in board.get_json()["players"]]
    for name in REFUSED.values():  # no log holds them now: nothing matches, no error
        for path, query, rows in ((f"{API}/games", "player", "games"),
                                  (f"{API}/games", "tournament", "games"),
                                  (f"{API}/players", "tournament", "players")):
            found = client.get(path, query_string={query: name})
            assert found.status_code == 200 and found.get_json()[rows] == [], (query, name)


def test_a_log_stored_before_the_rule_is_still_read_and_found(app, client):
    document = orjson.loads(with_fields("players.0", " ana"))
    raw = orjson.dumps(document)
    game = parse_game(document, stored=True)
    [(gid, created)] = store_of(app).submit([build_record(document, raw, game, verify(game))])
    assert created
    for path in (f"/games/{gid}", f"/games/{gid}/log", f"/games/{gid}/analysis",
                 f"/games/{gid}/deals/0/positions"):
        assert client.get(API + path).status_code == 200, path
    assert client.get(f"/games/{gid}", headers={"Accept": "text/html"}).status_code == 200
    listed = client.get(f"{API}/games", query_string={"player": " ana"}).get_json()
    assert [g["id"] for g in listed["games"]] == [gid]


ODD_TOURNAMENT = "cup/../2024 #1?final"
ODD_PLAYER = "ana/../ben #2?x"


def follow(client, base: str, link: str, **kwargs: Any):
    """A link followed as a browser follows it: resolved against the page it is on
    (dot segments removed), then requested."""
    return client.get(urljoin(f"http://localhost{base}", link), **kwargs)


def test_links_to_a_tournament_and_a_player_with_any_name_work(client):
    log = renamed(valid(tournament={"id": ODD_TOURNAMENT, "round": 1, "table": "A"}),
                  "ana", ODD_PLAYER)
    stored = post_log(client, log)
    assert stored.status_code == 201, stored.get_json()
    listing = client.get(f"{API}/tournaments").get_json()["tournaments"]
    [row] = [t for t in listing if t["id"] == ODD_TOURNAMENT]
    links = row["links"]
    assert links["self"] == f"{API}/tournaments/cup%2F..%2F2024%20%231%3Ffinal"
    audit = follow(client, f"{API}/tournaments", links["self"])
    assert audit.status_code == 200 and audit.get_json()["id"] == ODD_TOURNAMENT
    audit_links = audit.get_json()["links"]
    assert {name: audit_links[name] for name in links} == links
    # The desk's links of such a tournament work too.
    assert follow(client, links["self"], audit_links["withdrawn"]).get_json()["withdrawn"] == []
    assert follow(client, links["self"], audit_links["settings"]).get_json()["tournament"] \
        == ODD_TOURNAMENT
    report = follow(client, links["self"], links["report"])
    assert report.status_code == 200 and report.mimetype == "text/csv"
    for game in audit.get_json()["games"]:
        assert follow(client, links["self"], game["links"]["self"]).status_code == 200
    # The pages: the tournaments list links to the tournament, which links to its CSV
    # and to its players.
    browser = {"Accept": "text/html"}
    html = client.get("/tournaments", headers=browser).get_data(as_text=True)
    page_link = "/tournaments/cup%2F..%2F2024%20%231%3Ffinal"
    assert f'href="{page_link}"' in html
    page = follow(client, "/tournaments", page_link, headers=browser)
    assert page.status_code == 200 and "cup/../2024 #1?final" in page.get_data(as_text=True)
    html = page.get_data(as_text=True)
    assert f'href="{links["report"]}"' in html
    assert follow(client, page_link, links["report"]).status_code == 200
    player_link = "/players/ana%2F..%2Fben%20%232%3Fx"
    assert f'href="{player_link}"' in html
    player = follow(client, page_link, player_link, headers=browser)
    assert player.status_code == 200 and ODD_PLAYER in player.get_data(as_text=True)
    game_page = client.get(f"/games/{stored.get_json()['id']}", headers=browser)
    game_html = game_page.get_data(as_text=True)
    assert f'href="{page_link}"' in game_html and f'href="{player_link}"' in game_html

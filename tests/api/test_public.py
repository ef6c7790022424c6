"""A public tournament (``"public": true`` in its settings) is read without a key even
when the server requires read keys, on its own answers and pages only: its games, its
players, the other tournaments and the tournaments list still need the key."""

from __future__ import annotations

import pytest

from tests.web.conftest import BROWSER

from .helpers import API, assert_problem, post_log, valid
from .test_desk import at

WRITE = {"Authorization": "Bearer write-key"}
READ = {"Authorization": "Bearer read-key"}

# Every address a public tournament opens, API answers and pages.
OPEN = ("{api}/tournaments/{t}", "{api}/tournaments/{t}/report.csv",
        "{api}/tournaments/{t}/crosstable", "{api}/tournaments/{t}/withdrawn",
        "{api}/tournaments/{t}/settings", "/tournaments/{t}", "/tournaments/{t}/crosstable")


def addresses(tournament: str) -> list[str]:
    return [path.format(api=API, t=tournament) for path in OPEN]


@pytest.fixture
def closed(make_app):
    """A server requiring read keys with two tournaments, 'open' made public."""
    client = make_app(RUMMY_API_KEYS="director:write-key",
                      RUMMY_READ_KEYS="read-key").test_client()
    games = {}
    for tournament in ("open", "shut"):
        response = post_log(client, at(valid(), tournament), headers=WRITE)
        assert response.status_code == 201, response.get_json()
        games[tournament] = response.get_json()["id"]
    set_public(client, "open", True)
    return client, games


def set_public(client, tournament: str, public: bool, headers=WRITE):
    return client.put(f"{API}/tournaments/{tournament}/settings",
                      json={"name": f"The {tournament} cup", "public": public}, headers=headers)


def get(client, path: str, **kwargs):
    headers = {**BROWSER, **kwargs.pop("headers", {})} if not path.startswith(API) \
        else kwargs.pop("headers", {})
    return client.get(path, headers=headers, **kwargs)


def test_a_public_tournament_is_read_without_a_key_on_each_of_its_addresses(closed):
    client, _ = closed
    for path in addresses("open"):
        response = get(client, path)
        assert response.status_code == 200, (path, response.data[:200])
    assert get(client, f"{API}/tournaments/open/settings").get_json()["public"] is True
    assert "The open cup" in get(client, "/tournaments/open").get_data(as_text=True)
    # A wrong key does not shut what is public either.
    assert get(client, f"{API}/tournaments/open", headers={
        "Authorization": "Bearer wrong"}).status_code == 200


def test_everything_else_still_needs_the_key(closed):
    client, games = closed
    for path in addresses("shut"):
        response = get(client, path)
        assert response.status_code == 401, (path, response.status_code)
        assert get(client, path, headers=READ).status_code == 200, path
    for path in (f"{API}/games/{games['open']}", f"/games/{games['open']}",
                 f"/games/{games['open']}/replay", f"{API}/games/{games['open']}/ruling",
                 f"{API}/tournaments", "/tournaments", f"{API}/players/ana/stats", "/players/ana",
                 f"{API}/games", "/games", f"{API}/tournaments/nosuch", "/tournaments/nosuch"):
        assert get(client, path).status_code == 401, path
    assert_problem(client.get(f"{API}/tournaments/shut"), 401, "unauthorized")
    assert_problem(client.get(f"{API}/tournaments/shut", headers={
        "Authorization": "Bearer wrong"}), 403, "forbidden")


def test_public_set_back_to_false_closes_it_again(closed):
    client, _ = closed
    assert set_public(client, "open", False).status_code == 200
    for path in addresses("open"):
        assert get(client, path).status_code == 401, path
        assert get(client, path, headers=READ).status_code == 200, path


def test_making_a_tournament_public_still_needs_the_write_key(closed):
    client, _ = closed
    assert_problem(set_public(client, "shut", True, headers={}), 401, "unauthorized")
    assert_problem(set_public(client, "shut", True, headers=READ), 403, "forbidden")
    assert get(client, f"{API}/tournaments/shut").status_code == 401
    # Nor does a public tournament open its settings to a write without the key.
    assert_problem(set_public(client, "open", False, headers={}), 401, "unauthorized")
    assert get(client, f"{API}/tournaments/open").status_code == 200


def test_public_is_a_boolean(closed):
    client, _ = closed
    response = client.put(f"{API}/tournaments/open/settings", json={"public": "yes"},
                          headers=WRITE)
    problem = assert_problem(response, 422, "validation-error")
    assert "public" in problem["errors"]


def test_the_public_pages_say_that_the_games_need_a_key(closed):
    client, games = closed
    for path in ("/tournaments/open", "/tournaments/open/crosstable"):
        text = get(client, path).get_data(as_text=True)
        assert 'id="public-note"' in text and "need a read key" in text, path
        assert f'href="/key?next={path}"' in text, path
        # A reader holding the key is not told so.
        assert 'id="public-note"' not in get(client, path, headers=READ).get_data(as_text=True)
    # The game it links to answers the page that asks for the key.
    page = get(client, f"/games/{games['open']}")
    assert page.status_code == 401 and 'id="enter-key"' in page.get_data(as_text=True)


def test_the_document_says_which_reads_a_public_tournament_opens(closed):
    """With read keys set, the seven addresses a public tournament opens take no
    credentials as an alternative and say on what condition; every other read needs the
    key, as before."""
    client, _ = closed
    paths = client.get(f"{API}/openapi.json").get_json()["paths"]
    tournament = f"{API}/tournaments/{{tournament_id}}"
    opened = [tournament, f"{tournament}/report.csv", f"{tournament}/crosstable",
              f"{tournament}/withdrawn", f"{tournament}/settings"]
    for path in opened:
        operation = paths[path]["get"]
        assert operation["security"] == [{"bearerAuth": []}, {}], path
        assert operation["x-access"] == "public", path
        assert '"public": true' in operation["description"], path
    assert paths[f"{tournament}/settings"]["put"]["security"] == [{"bearerAuth": []}]
    for path in (f"{API}/tournaments", f"{API}/games", f"{API}/games/{{game_id}}"):
        assert paths[path]["get"]["security"] == [{"bearerAuth": []}], path

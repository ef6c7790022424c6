"""The forms that change state (the read-key form, forgetting the key): they are taken
only from a page of this site, and they send the browser back only to a page of this
site."""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

import pytest

from tests.api.helpers import assert_problem

from .conftest import BROWSER, FROM_HERE

HERE = FROM_HERE["Origin"]  # the test client's site
_NEXT = re.compile(r'<input type="hidden" name="next" value="([^"]*)">')

# ``next`` as it stands in the key page's query (percent-encoded, as in a link).
ELSEWHERE = [
    "/%09/evil.example/",  # a tab: browsers drop it, leaving //evil.example/
    "/%0A/evil.example/", "/%0D%0A/evil.example/",  # newlines
    "%09//evil.example/", "/%20/evil.example/", "/%E3%80%80/evil.example/",  # spaces
    "/%E2%80%AE/evil.example/", "/%00/evil.example/",  # a direction override, NUL
    "/%5C/evil.example/", "%5C%5Cevil.example/", "/%5Cevil.example",  # backslashes
    "//evil.example/", "///evil.example/", "//evil.example:443/games",
    "https://evil.example/", "HTTPS://evil.example/games", "javascript:alert(1)",
    "https:/evil.example", "http:evil.example",  # schemes
    "%2F%2Fevil.example%2F", "/%2F/evil.example/",  # encoded slashes, read once: //
    "/%2509/evil.example/", "%252F%252Fevil.example",  # encoded twice: no path served
    "/games/..//evil.example/", "/./games", "/%2e%2e/games",  # dot segments
    "evil.example/games", "games",  # not a path from the root
    "/no/such/page", "/key/forget",  # no page served to a GET
]
# Targets kept as they are: every page of the site, its query and fragment.
KEPT = ["/games", "/games?variant=gin&status=valid", "/players/ana", "/players",
        "/games/abc/replay#deal=2&move=7", "/tournaments/spring%2F..%2Fcup",
        "/api/v1/games?player=ana", "/variants"]


def _next_of(page: str) -> str:
    [target] = _NEXT.findall(page)
    return html.unescape(target)


@pytest.mark.parametrize("target", ELSEWHERE)
def test_the_key_form_returns_only_to_a_page_of_this_site(keyed, target):
    client = keyed.test_client()
    page = client.get(f"/key?next={target}", headers=BROWSER)
    assert page.status_code == 200
    assert _next_of(page.get_data(as_text=True)) == "/games"
    # The form posted with the target as is (a page of this site made it, or a person).
    for given in (target, unquote(target)):
        answer = client.post("/key", data={"key": "read-key", "next": given},
                             headers=FROM_HERE)
        assert (answer.status_code, answer.headers["Location"]) == (303, "/games"), given


@pytest.mark.parametrize("target", KEPT)
def test_the_key_form_returns_to_a_page_of_this_site(keyed, target):
    client = keyed.test_client()
    page = client.get("/key", query_string={"next": target}, headers=BROWSER)
    assert _next_of(page.get_data(as_text=True)) == target
    answer = client.post("/key", data={"key": "read-key", "next": target}, headers=FROM_HERE)
    assert (answer.status_code, answer.headers["Location"]) == (303, target)


def test_a_target_beyond_ascii_is_kept_percent_encoded(keyed):
    client = keyed.test_client()
    answer = client.post("/key", data={"key": "read-key", "next": "/players/Málaga"},
                         headers=FROM_HERE)
    assert answer.headers["Location"] == "/players/M%C3%A1laga"


FOREIGN = [{}, {"Origin": "https://evil.example"}, {"Origin": "null"},
           {"Origin": "http://localhost.evil.example"}, {"Origin": "http://localhost:8080"},
           {"Referer": "https://evil.example/key"},
           {"Referer": "https://evil.example/?http://localhost/"},
           {"Origin": "https://evil.example", "Referer": f"{HERE}/key"}]


@pytest.mark.parametrize("headers", FOREIGN)
def test_the_key_forms_refuse_a_post_not_sent_from_this_site(keyed, headers):
    client = keyed.test_client()
    client.set_cookie("rummy_read_key", "read-key")
    given = client.post("/key", data={"key": "read-key", "next": "/games"},
                        headers={**BROWSER, **headers})
    assert given.status_code == 403 and given.mimetype == "text/html", headers
    assert given.headers.getlist("Set-Cookie") == []
    forgot = client.post("/key/forget", headers={**BROWSER, **headers})
    assert forgot.status_code == 403 and forgot.headers.getlist("Set-Cookie") == []
    # An API client is told in a problem.
    assert_problem(client.post("/key/forget", headers=headers), 403, "forbidden")
    assert client.get("/games", headers=BROWSER).status_code == 200  # still held


@pytest.mark.parametrize("headers", [{"Origin": HERE}, {"Referer": f"{HERE}/key?next=/games"},
                                     {"Origin": HERE + ":80"}])
def test_the_key_forms_take_a_post_sent_from_this_site(keyed, headers):
    client = keyed.test_client()
    given = client.post("/key", data={"key": "read-key", "next": "/games"},
                        headers={**BROWSER, **headers})
    assert (given.status_code, given.headers["Location"]) == (303, "/games")
    assert client.get("/games", headers=BROWSER).status_code == 200
    forgot = client.post("/key/forget", headers={**BROWSER, **headers})
    assert forgot.status_code == 303 and "rummy_read_key=;" in forgot.headers["Set-Cookie"]
    assert client.get("/games", headers=BROWSER).status_code == 401


def test_a_page_asking_for_a_key_returns_to_itself_with_its_name_encoded(keyed):
    """The path the app sees is decoded (``%2F`` is ``/`` there): the key page's link
    builds the page's URL again, so the return target is the page itself."""
    client = keyed.test_client()
    page = client.get("/tournaments/cup%2F..%2F2024%20%231?x=1", headers=BROWSER)
    assert page.status_code == 401
    link = '/key?next=/tournaments/cup%252F..%252F2024%2520%25231?x%3D1'
    assert f'href="{link}"' in html.unescape(page.get_data(as_text=True))
    form = client.get(link, headers=BROWSER).get_data(as_text=True)
    assert _next_of(form) == "/tournaments/cup%2F..%2F2024%20%231?x=1"
    answer = client.post("/key", data={"key": "read-key", "next": _next_of(form)},
                         headers=FROM_HERE)
    assert answer.headers["Location"] == "/tournaments/cup%2F..%2F2024%20%231?x=1"

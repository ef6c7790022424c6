"""The pages, through Flask's test client: status codes, a page for a browser and a
problem for an API client, the verdict in words, links into the viewer, nothing
loaded from elsewhere, and the same figures as the API."""

from __future__ import annotations

import re
from datetime import date, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.api.helpers import assert_problem

from .conftest import BROWSER, FROM_HERE

SAMPLE_LOG = Path(__file__).resolve().parents[2] / "sample_logs" / "gin-01.json"
PAGES = ["/", "/games", "/games?variant=gin&status=valid", "/players",
         "/players?sort=win_rate&order=asc", "/players/ana", "/tournaments",
         "/tournaments/spring-cup", "/variants", "/sheets/new",
         "/tournaments/spring-cup/crosstable", "/tournaments/spring-cup?after_round=1"]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src", "action") and value:
                self.urls.append(value)
            if name == "id":
                self.ids.add(value)


def _parse(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def _page(client, path: str) -> str:
    response = client.get(path, headers=BROWSER)
    assert response.status_code == 200, (path, response.data[:500])
    assert response.mimetype == "text/html"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    return response.get_data(as_text=True)


@pytest.fixture
def client(site):
    return site[0].test_client()


@pytest.fixture
def ids(site):
    return site[1]


def test_every_page_answers_and_loads_only_from_the_app(client, ids):
    pages = [*PAGES, *(f"/games/{i}" for i in ids.values()),
             *(f"/games/{i}/replay" for i in ids.values())]
    assets = set()
    for path in pages:
        html = _page(client, path)
        assert "http://" not in html and "https://" not in html, path  # no CDN, no host
        for url in _parse(html).urls:
            assert url.startswith(("/", "#")), (path, url)
            if url.startswith("/assets/"):
                assets.add(url)
    assert {"/assets/style.css", "/assets/replay.js", "/assets/upload.js"} <= assets
    for url in assets:
        response = client.get(url)
        assert response.status_code == 200 and len(response.data) > 100, url
    for module in ("replay.js", "upload.js", "versus.js", "leaderboard.js"):
        source = client.get(f"/assets/{module}").get_data(as_text=True)
        assert "http://" not in source.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in source
        for imported in re.findall(r'from "(\./[^"]+)"', source):
            assert client.get(f"/assets/{imported[2:]}").status_code == 200


def test_an_unknown_game_is_a_page_for_a_browser_and_a_problem_for_a_client(client):
    for path in ("/games/no-such-game", "/games/no-such-game/replay"):
        page = client.get(path, headers=BROWSER)
        assert page.status_code == 404 and page.mimetype == "text/html"
        html = page.get_data(as_text=True)
        assert "there is no game" in html and 'href="/games"' in html
        assert_problem(client.get(path), 404, "not-found")
        assert_problem(client.get(path, headers={"Accept": "application/json"}), 404,
                       "not-found")


def test_unknown_paths_unknown_players_and_tournaments(client):
    page = client.get("/no/such/page", headers=BROWSER)
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert_problem(client.get("/no/such/page"), 404, "not-found")
    assert_problem(client.get("/api/v1/nothing", headers=BROWSER), 404, "not-found")
    for path in ("/players/nobody-at-all", "/tournaments/no-such-cup"):
        assert client.get(path, headers=BROWSER).status_code == 404
        assert_problem(client.get(path), 404, "not-found")
    bad = client.get("/games?status=lost", headers=BROWSER)
    assert bad.status_code == 400 and bad.mimetype == "text/html"
    assert "status" in bad.get_data(as_text=True)


def test_the_site_root_is_the_upload_page_for_browsers_only(client):
    html = _page(client, "/")
    assert 'type="file"' in html and 'id="dry-run"' in html and 'id="api-key"' in html
    assert client.get("/").status_code == 302  # API clients: as before
    assert client.get("/", headers={"Accept": "application/json"}).status_code == 302


def test_a_valid_game_says_so_and_names_its_winner(client, ids):
    html = _page(client, f"/games/{ids['gin-01']}")
    assert "Valid game" in html and "Every move is legal and every claim matches" in html
    api = client.get(f"/api/v1/games/{ids['gin-01']}").get_json()
    winner = api["report"]["totals"]["winner"]
    assert f"{winner} wins by {api['report']['totals']['margin']}" in html
    assert f'href="/api/v1/games/{ids["gin-01"]}/log"' in html
    assert f'href="/api/v1/games/{ids["gin-01"]}"' in html


@pytest.mark.parametrize("sample", ["illegal-gin-discard-of-taken-card",
                                    "illegal-rummy-not-your-turn",
                                    "illegal-greek-invalid-meld"])
def test_an_illegal_game_links_each_violation_to_its_move_and_names_no_winner(
        client, ids, sample):
    game_id = ids[sample]
    html = _page(client, f"/games/{game_id}")
    report = client.get(f"/api/v1/games/{game_id}").get_json()["report"]
    assert "Illegal game: it has no result" in html and "No winner is recognised" in html
    assert "wins by" not in html and "none (no result)" in html
    for v in report["violations"]:
        if v["code"] == "SCORE_MISMATCH" or v["deal"] is None:
            continue
        link = (f'/games/{game_id}/replay#deal={v["deal"] + 1}&amp;move='
                f'{v["move"] + 1 if v["move"] is not None else 0}')
        assert link in html, link
        assert v["code"] in html and v["message"].replace("'", "&#39;") in html


def test_a_deal_stopped_by_a_violation_compares_no_claim(client, ids):
    game_id = ids["illegal-gin-discard-of-taken-card"]
    report = client.get(f"/api/v1/games/{game_id}").get_json()["report"]
    [stop] = [v for v in report["violations"] if v["code"] != "SCORE_MISMATCH"][:1]
    claims = report["deals"][stop["deal"]]["claimed"]["points"]
    assert claims, "the sample claims points for the deal it breaks"
    html = _page(client, f"/games/{game_id}")
    row = re.search(rf'<th scope="row">{stop["deal"] + 1}</th>(.*?)</tr>', html, flags=re.S)
    assert '<span class="differs"' not in row.group(1) and "= claimed" not in row.group(1)
    for name, value in claims.items():
        assert f"{name}: — <span class=\"claim\">(claimed {value}, not compared)" in row.group(1)


def test_a_wrong_claim_is_marked_beside_the_recomputed_figure(client, ids):
    game_id = ids["mismatch-gin-deal-points"]
    html = _page(client, f"/games/{game_id}")
    report = client.get(f"/api/v1/games/{game_id}").get_json()["report"]
    deal = report["deals"][0]
    claimed = deal["claimed"]["points"]
    wrong = [p for p, v in claimed.items() if deal["points"][p] != v]
    assert wrong
    for player in wrong:
        assert (f"<strong>{deal['points'][player]}</strong> <span class=\"claim\">≠ claimed "
                f"{claimed[player]}</span>") in html
    assert html.count('<span class="differs" title=') == len(wrong)
    assert "claimed scores are wrong" in html


@pytest.mark.parametrize("sample", ["gin-01", "gin-4p-teams", "rummy-02",
                                    "illegal-rummy-not-your-turn"])
def test_the_game_page_lists_the_apis_analysis_each_fact_linked_to_its_choice(
        client, ids, sample):
    game_id = ids[sample]
    html = _page(client, f"/games/{game_id}")
    analysis = client.get(f"/api/v1/games/{game_id}/analysis").get_json()
    assert analysis["facts"], "the sample should have something to flag"
    shown = re.findall(r'<li data-kind="([^"]+)"><code>.*?href="([^"]+)"', html)
    assert [kind for kind, _ in shown] == [f["kind"] for f in analysis["facts"]]
    # The viewer counts moves from 1: the table after move index p is move=p+1.
    assert [href for _, href in shown] == [
        f"/games/{game_id}/replay#deal={f['deal'] + 1}&amp;move={f['position'] + 1}"
        for f in analysis["facts"]]
    for player, figures in analysis["summary"].items():
        row = re.search(rf'<tr data-player="{player}">(.*?)</tr>', html, flags=re.S)
        assert row and f'<td class="accuracy">{figures["accuracy"]}%</td>' in row.group(1)
    for player, luck in analysis["luck"]["luck"].items():
        row = re.search(rf'<tr data-player="{player}">(.*?)</tr>', html, flags=re.S)
        assert f"{luck:+.1f} over" in row.group(1)
    unit = "deal points" if sample.startswith("gin") else "card points"
    assert f"Luck is in {unit}" in html
    # Two-player gin: each player's decision loss and accuracy, as the API gives them.
    judged = analysis["decisions"]["players"]
    assert bool(judged) == sample.startswith("gin")
    assert ("Decision accuracy" in html) == sample.startswith("gin")
    for player, figures in judged.items():
        row = re.search(rf'<tr data-player="{player}">(.*?)</tr>', html, flags=re.S)
        assert figures["decisions"] > 0
        assert (f'<td class="decision-loss">{figures["average_loss"]:.3f} over '
                f'{figures["decisions"]}</td><td class="decision-accuracy">'
                f'{figures["accuracy"]}%</td>') in row.group(1)
    # The evaluator's verdict after each fact it judges: a throw's, or the choice to
    # knock (a knock into an undercut) or to play on (a missed knock).
    items = re.findall(r'<li data-kind="[^"]+">(.*?)</li>', html, flags=re.S)
    for fact, item in zip(analysis["facts"], items, strict=False):
        if "evaluator" not in fact:
            assert 'class="evaluator"' not in item
            continue
        assert f'data-evaluator="{fact["evaluator"]}"' in item
        if fact["kind"] in ("missed_knock", "knock_into_undercut"):
            chose = "knock" if fact["kind"] == "knock_into_undercut" else "play on"
            assert (f"no clearly better choice than to {chose}" if fact["evaluator"] == "best"
                    else f'{fact["evaluator_loss"]:.2f} expected deal points lost by the '
                    f"choice to {chose}") in item
    if sample == "gin-4p-teams":
        assert any(f["kind"] == "missed_knock" and "evaluator" in f for f in analysis["facts"])


@pytest.mark.parametrize(("sample", "offers"), [("gin-01", False), ("gin-02", True)])
def test_the_decision_hint_names_the_upcard_offers_only_where_they_are_judged(
        client, ids, sample, offers):
    game_id = ids[sample]
    html = _page(client, f"/games/{game_id}")
    judged = client.get(f"/api/v1/games/{game_id}/analysis").get_json()["decisions"]
    measures = {d["measure"] for d in judged["decisions"]}
    assert ("upcard_offer" in measures) == offers
    assert "each choice to knock or play on" in html
    assert ("each first upcard taken or passed" in html) == offers


def test_an_unfinished_game_has_no_winner(client, ids):
    html = _page(client, f"/games/{ids['incomplete-rummy-block']}")
    assert "Unfinished game" in html and "wins by" not in html


def test_the_games_list_filters_and_pages_both_ways(client, ids):
    html = _page(client, "/games?status=illegal")
    illegal = {i for name, i in ids.items() if name.startswith("illegal-")}
    assert {i for i in ids.values() if f"/games/{i}\"" in html} == illegal
    seen: list[str] = []
    path = "/games?limit=4"
    pages = []
    while path:
        html = _page(client, path.replace("&amp;", "&"))
        pages.append(path)
        found = re.findall(r'<td data-label="Game"><a href="/games/([0-9a-f]+)">', html)
        assert 0 < len(found) <= 4
        seen.extend(found)
        nxt = re.search(r'<a rel="next" href="([^"]+)"', html)
        path = nxt.group(1) if nxt else None
    assert sorted(seen) == sorted(ids.values()) and len(set(seen)) == len(seen)
    # back from the last page, one page at a time, to the first
    html = _page(client, pages[-1].replace("&amp;", "&"))
    back = []
    while (prev := re.search(r'<a rel="prev" href="([^"]+)"', html)):
        html = _page(client, prev.group(1).replace("&amp;", "&"))
        back.append(re.findall(r'<td data-label="Game"><a href="/games/([0-9a-f]+)">', html))
    assert [g for page in reversed(back) for g in page] == seen[:sum(map(len, back))]
    assert len(back) == len(pages) - 1


def test_the_games_list_finds_a_table_and_suggests_the_stored_names(client, ids):
    html = _page(client, "/games?tournament=SPRING-CUP&round=2&table=A")
    listed = set(re.findall(r'<td data-label="Game"><a href="/games/([0-9a-f]+)">', html))
    assert listed == {ids["mismatch-gin-deal-points"]}
    for name, value in (("tournament", "SPRING-CUP"), ("round", "2"), ("table", "A")):
        assert re.search(rf'<input name="{name}"[^>]* value="{value}"', html), name
    assert '<input name="source_id" value=""' in html
    # The names typed are suggested from the stored ones, by the page itself.
    players = re.search(r'<datalist id="known-players">(.*?)</datalist>', html).group(1)
    assert {"ana", "ben"} <= set(re.findall(r'<option value="([^"]+)">', players))
    tournaments = re.search(r'<datalist id="known-tournaments">(.*?)</datalist>', html)
    assert re.findall(r'<option value="([^"]+)">', tournaments.group(1)) == ["spring-cup"]
    assert 'list="known-players"' in html and 'list="known-tournaments"' in html
    html = _page(client, "/games?player=ANA&status=illegal&round=1")
    assert re.findall(r'<td data-label="Game"><a href="/games/([0-9a-f]+)">', html) == []
    html = _page(client, "/games?player=ANA&status=illegal")
    assert set(re.findall(r'<td data-label="Game"><a href="/games/([0-9a-f]+)">', html)) \
        == {ids["illegal-gin-discard-of-taken-card"], ids["illegal-rummy-not-your-turn"],
            ids["illegal-greek-invalid-meld"]}
    # The page says which stored spellings a name typed otherwise matched.
    assert 'id="spelled-player"' in html and "listed are the games of ana (the same name" in html
    assert "spelled-tournament" not in html
    html = _page(client, "/games?player=ana&tournament=Spring-Cup")
    assert "spelled-player" not in html
    assert re.search(r'id="spelled-tournament">No tournament is named “Spring-Cup” exactly: '
                     r'listed are the games of spring-cup \(', html)
    html = _page(client, "/games?player=Nobody")
    assert "No player is named “Nobody”, even ignoring case and accents." in html
    page = client.get("/games?round=first", headers=BROWSER)
    assert page.status_code == 400 and "round" in page.get_data(as_text=True)


def test_the_leaderboard_is_the_apis(client):
    # Every sort key of the API but rating (which needs a variant), the move analysis's
    # too: on these unanalysed games they list nobody, as the API does.
    for sort in ("wins", "win_rate", "points_per_deal", "games", "accuracy",
                 "discard_error", "errors", "luck", "luck_adjusted", "decision_loss",
                 "decision_accuracy"):
        api = client.get(f"/api/v1/players?sort={sort}&limit=100").get_json()["players"]
        html = _page(client, f"/players?sort={sort}")
        assert re.findall(r'<tr data-player="([^"]+)">', html) == [r["player"] for r in api]
        assert f'<option value="{sort}" selected>' in html


def test_a_column_where_lower_is_better_is_first_sorted_lowest_first(client):
    html = _page(client, "/players?sort=wins")
    for key in ("discard_error", "errors", "decision_loss"):
        assert f'href="/players?sort={key}&amp;order=asc' in html, key
    assert 'href="/players?sort=accuracy&amp;order=desc' in html
    html = _page(client, "/players?sort=wins&order=asc")  # the sorted column flips
    assert 'href="/players?sort=wins&amp;order=desc' in html


def test_the_leaderboard_keeps_its_dates_and_a_day_picked_as_until_is_included(client):
    """The column headings keep the dates the page was asked with, the form shows them,
    and ``until`` picked as a day includes that day, as on the games page."""
    html = _page(client, "/players?sort=wins&since=2000-01-01&until=2099-12-31")
    heads = re.findall(r'<th scope="col"[^>]*><a href="([^"]+)"', html)
    assert heads and all("since=2000-01-01" in h and "until=2099-12-31" in h for h in heads)
    assert 'name="since" type="date" value="2000-01-01"' in html
    assert 'name="until" type="date" value="2099-12-31"' in html
    games = client.get("/api/v1/games?limit=100").get_json()["games"]
    last = max((g["played_at"] or g["uploaded_at"])[:10] for g in games)
    after = (date.fromisoformat(last) + timedelta(days=1)).isoformat()
    on_the_day = _page(client, f"/players?sort=wins&until={last}")
    api = client.get(f"/api/v1/players?sort=wins&limit=100&until={after}T00:00:00Z"
                     ).get_json()["players"]
    assert api, "the games of the last day count"
    assert re.findall(r'<tr data-player="([^"]+)">', on_the_day) == [r["player"] for r in api]


def test_the_leaderboard_shows_the_figure_it_sorts_by_and_rating_needs_a_variant(client):
    page = client.get("/players?sort=rating", headers=BROWSER)
    assert page.status_code == 400 and page.mimetype == "text/html"
    assert "needs a variant" in page.get_data(as_text=True)
    plain = _page(client, "/players")
    assert 'data-key="rating"' not in plain  # no variant: no column, and not offered
    assert '<option value="rating"' not in plain and '<option value="wins"' in plain
    assert '<option value="rating"' in _page(client, "/players?variant=gin")
    api = client.get("/api/v1/players?sort=rating&variant=gin&limit=100").get_json()["players"]
    html = _page(client, "/players?sort=rating&variant=gin")
    assert api, "the gin samples are rated"
    assert re.findall(r'<tr data-player="([^"]+)">', html) == [r["player"] for r in api]
    assert re.findall(r'<td data-key="rating"[^>]*>([^<]+)</td>', html) == [
        f"{r['rating']:.2f}" for r in api]
    assert 'aria-sort="descending"><a href="/players?sort=rating&amp;order=asc' in html
    for key in ("accuracy", "luck", "luck_adjusted"):
        assert f'<td data-key="{key}" ' in html


def test_the_player_page_charts_the_apis_figures(client):
    api = client.get("/api/v1/players/ana/stats").get_json()["variants"]
    html = _page(client, "/players/ana")
    for variant, figures in api.items():
        bars = dict(re.findall(rf'data-chart="{variant}-games".*?data-label="won" '
                               r'data-value="([^"]+)"()', html, flags=re.S))
        assert list(bars) == [str(figures["won"])]
        assert f'data-variant="{variant}"' in html


def test_the_tournament_page_lists_every_discrepancy(client):
    api = client.get("/api/v1/tournaments/spring-cup").get_json()
    html = _page(client, "/tournaments/spring-cup")
    kinds = re.findall(r'<li class="discrepancy" data-kind="([^"]+)">', html)
    assert kinds == [d["kind"] for d in api["discrepancies"]]
    for d in api["discrepancies"]:
        for game in d["games"]:
            assert f'href="/games/{game}"' in html
        # Every discrepancy placed in a game links to that place in the viewer.
        if d["kind"] == "illegal_game":
            assert (f'href="/games/{d["game"]}/replay#deal={d["deal"] + 1}&amp;'
                    f'move={d["move"] + 1}"') in html
        elif d["kind"] == "score_mismatch" and d["deal"] is not None:
            assert f'href="/games/{d["game"]}/replay#deal={d["deal"] + 1}&amp;move=end"' in html
    assert {d["kind"] for d in api["discrepancies"]} >= {"illegal_game", "score_mismatch"}
    assert any(d["deal"] is not None for d in api["discrepancies"]
               if d["kind"] == "score_mismatch")
    assert 'href="/api/v1/tournaments/spring-cup/report.csv"' in html


def test_the_tournaments_list_counts_each_audits_discrepancies(client):
    listed = client.get("/api/v1/tournaments").get_json()["tournaments"]
    html = _page(client, "/tournaments")
    for row in listed:
        audit = client.get(row["links"]["self"]).get_json()
        assert row["discrepancies"] == len(audit["discrepancies"])
        if row["discrepancies"]:
            assert (f'href="/tournaments/{row["id"]}#disc-title">{row["discrepancies"]}</a>'
                    in html)


def test_the_variants_page_lists_every_preset_and_option(client):
    html = _page(client, "/variants")
    for variant in client.get("/api/v1/variants").get_json()["variants"]:
        assert f'id="{variant["name"]}"' in html
        for option in variant["options"]:
            assert f"<code>{option['name']}</code>" in html


def test_with_read_keys_the_pages_say_a_key_is_needed(tmp_path):
    from service.api import close_app, create_app
    from service.api.config import VARIABLES

    app = create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                      "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_READ_KEYS": "reader:secret-key",
                      "RUMMY_DB": str(tmp_path / "rummy.duckdb")})
    try:
        client = app.test_client()
        page = client.get("/games", headers=BROWSER)
        assert page.status_code == 401 and page.mimetype == "text/html"
        assert "401" in page.get_data(as_text=True)
        assert page.headers["WWW-Authenticate"].startswith("Bearer")
        assert_problem(client.get("/games"), 401, "unauthorized")
        assert client.get("/games", headers={**BROWSER, "Authorization": "Bearer secret-key"}
                          ).status_code == 200
        assert client.get("/", headers=BROWSER).status_code == 200  # the upload page
        assert 'href="/key?next=/games"' in page.get_data(as_text=True)
    finally:
        close_app(app)


def _cookie(response) -> str:
    [cookie] = response.headers.getlist("Set-Cookie")
    return cookie


def test_a_read_key_typed_in_the_key_page_opens_the_pages_and_the_apis_reads(keyed):
    client = keyed.test_client()
    sample = SAMPLE_LOG.read_bytes()
    stored = client.post("/api/v1/games", data=sample, content_type="application/json",
                         headers={"Authorization": "Bearer write-key"})
    game_id = stored.get_json()["id"]
    assert "Key" in _page(client, "/key?next=/games")
    refused = client.post("/key", data={"key": "wrong", "next": "/games"}, headers=FROM_HERE)
    assert refused.status_code == 403 and "does not open the reads" in refused.get_data(
        as_text=True)
    assert refused.headers.getlist("Set-Cookie") == []
    given = client.post("/key", data={"key": "read-key", "next": f"/games/{game_id}"},
                        headers=FROM_HERE)
    assert (given.status_code, given.headers["Location"]) == (303, f"/games/{game_id}")
    cookie = _cookie(given)
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Max-Age" not in cookie
    assert game_id in _page(client, f"/games/{game_id}")
    # The viewer's fetches carry the cookie too: the API's reads take it.
    assert client.get(f"/api/v1/games/{game_id}/deals/0/positions").status_code == 200
    # Writes never do: a page of another site could make the browser send it.
    write = client.post("/api/v1/games", data=sample, content_type="application/json")
    assert_problem(write, 401, "unauthorized")
    forgot = client.post("/key/forget", headers=FROM_HERE)
    assert forgot.status_code == 303 and "rummy_read_key=;" in _cookie(forgot)
    assert client.get("/games", headers=BROWSER).status_code == 401


def test_the_key_page_refuses_other_sites_and_goes_back_only_here(keyed):
    client = keyed.test_client()
    foreign = client.post("/key", data={"key": "read-key"},
                          headers={**BROWSER, "Origin": "https://elsewhere.example"})
    assert foreign.status_code == 403 and foreign.headers.getlist("Set-Cookie") == []
    for target in ("https://elsewhere.example/", "//elsewhere.example/x", "/\\x", ""):
        given = client.post("/key", data={"key": "read-key", "next": target},
                            headers=FROM_HERE)
        assert (given.status_code, given.headers["Location"]) == (303, "/games"), target
    stale = client.get("/games", headers=BROWSER)  # the cookie is read-key: it opens
    assert stale.status_code == 200
    client.set_cookie("rummy_read_key", "rotated-away")
    page = client.get("/games", headers=BROWSER)
    assert page.status_code == 403 and 'href="/key?next=/games"' in page.get_data(
        as_text=True)


_FIGURE = re.compile(r'<figure class="chart-figure" data-chart-figure="([^"]+)">'
                     r'<figcaption id="chart-\1">([^<]+)</figcaption>(.*?)</figure>', re.S)
_BAR = re.compile(r'<g class="bar (positive|negative)" data-label="([^"]+)" '
                  r'data-value="([^"]+)">.*?<rect x="([^"]+)" y="[^"]+" width="([^"]+)"'
                  r'.*?<text class="value"[^>]*>([^<]+)</text></g>', re.S)
_ENDS = {"gin": "gins", "knock won": "knocks_won", "undercut made": "undercuts_made",
         "undercut suffered": "undercuts_suffered", "out": "won_out", "rummy": "won_rummy",
         "blocked": "won_blocked"}


def _charts(html: str) -> dict[str, dict]:
    """Every chart of a page by its id: its caption, its name, its zero line and bars."""
    charts = {}
    for ident, caption, svg in _FIGURE.findall(html):
        zero = float(re.search(r'<line class="zero" x1="([^"]+)"', svg).group(1))
        name = re.search(r'aria-label="([^"]+)"', svg).group(1)
        bars = [{"sign": sign, "label": label, "value": float(value), "x": float(x),
                 "width": float(width), "text": text}
                for sign, label, value, x, width, text in _BAR.findall(svg)]
        charts[ident] = {"caption": caption, "name": name, "zero": zero, "bars": bars}
    return charts


def test_the_player_charts_have_captions_the_apis_figures_and_negatives_drawn_so(client):
    stats = client.get("/api/v1/players/ana/stats").get_json()["variants"]
    months = client.get("/api/v1/players/ana/months").get_json()["variants"]
    charts = _charts(_page(client, "/players/ana"))
    expected = {}
    for variant, row in stats.items():
        ends = [k for k in _ENDS if (k in ("gin", "knock won", "undercut made",
                                           "undercut suffered")) == (variant == "gin")]
        expected |= {
            f"{variant}-games": [("won", row["won"]), ("lost", row["lost"])],
            f"{variant}-ends": [(k, row[_ENDS[k]]) for k in ends],
            f"{variant}-points": [("scored", row["points_scored"]),
                                  ("conceded", row["points_conceded"])],
            f"{variant}-wins-by-month": [(m["month"], m["won"]) for m in months[variant]],
            f"{variant}-points-by-month": [(m["month"], m["points_per_deal"])
                                           for m in months[variant]]}
    assert {ident: [(b["label"], b["value"]) for b in chart["bars"]]
            for ident, chart in charts.items()} == expected
    # How gin deals end counts each deal once: every deal won, and every undercut
    # suffered (a knock undercut was counted as a knock too).
    gin_ends = sum(float(b["value"]) for b in charts["gin-ends"]["bars"])
    assert gin_ends == stats["gin"]["deals_won"] + stats["gin"]["undercuts_suffered"]
    # ana's sample games include negative figures (rummy-block), so the test bites
    assert any(value < 0 for bars in expected.values() for _, value in bars)
    for chart in charts.values():
        assert chart["caption"] == chart["name"] and chart["caption"].strip()
        longest = max((abs(b["value"]) for b in chart["bars"]), default=0)
        widest = max((b["width"] for b in chart["bars"]), default=0)
        for bar in chart["bars"]:
            if bar["value"] < 0:  # left of the zero line, ending on it, sign printed
                assert bar["sign"] == "negative"
                assert bar["x"] + bar["width"] == pytest.approx(chart["zero"], abs=0.11)
                assert bar["text"].startswith("\u2212")
            else:
                assert bar["sign"] == "positive" and bar["x"] == chart["zero"]
                assert not bar["text"].startswith("\u2212")
            if longest:  # lengths in proportion to the values
                assert bar["width"] == pytest.approx(abs(bar["value"]) / longest * widest,
                                                     abs=0.2)


def test_the_head_to_head_form_opens_a_page_with_the_apis_figures(client):
    html = _page(client, "/players/ana")
    assert 'action="/players/ana/versus"' in html and "/api/v1/players/ana/versus" not in html
    for query in ("", "&variant=rummy-block"):
        api = client.get(f"/api/v1/players/ana/versus/ben?{query[1:]}").get_json()
        page = _page(client, f"/players/ana/versus?opponent=ben{query}")
        assert f"{api['games']} games as opponents, {api['finished']} finished" in page
        assert f'data-figure="games">{api["games"]}<' in page
        for who in ("ana", "ben"):
            assert f'data-figure="wins" data-player="{who}">{api["wins"][who]}<' in page
            assert f'data-figure="points" data-player="{who}">{api["points"][who]}<' in page
        assert re.findall(r'<li data-game="([^"]+)">', page) == [g["id"] for g in api["recent"]]
    filtered = _page(client, "/players/ana?variant=gin")
    assert '<input type="hidden" name="variant" value="gin">' in filtered


def test_head_to_head_with_an_unknown_opponent_or_oneself_is_refused_clearly(client):
    page = client.get("/players/ana/versus?opponent=nobody-at-all", headers=BROWSER)
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "no stored game matches player" in page.get_data(as_text=True)
    assert_problem(client.get("/players/ana/versus?opponent=nobody-at-all"), 404, "not-found")
    same = client.get("/players/ana/versus?opponent=ana", headers=BROWSER)
    assert same.status_code == 400 and same.mimetype == "text/html"
    html = same.get_data(as_text=True)
    assert "ana cannot be compared with ana" in html and "won 0" not in html
    assert 'action="/players/ana/versus"' in html  # the form, to choose another
    body = assert_problem(client.get("/players/ana/versus?opponent=ana"), 400,
                          "invalid-parameter")
    assert "choose another opponent" in body["detail"]
    # the API is left as it was: the same player twice has 0 games
    assert client.get("/api/v1/players/ana/versus/ana").get_json()["games"] == 0
    missing = client.get("/players/ana/versus?opponent=", headers=BROWSER)
    assert missing.status_code == 400 and "opponent" in missing.get_data(as_text=True)


def _app(tmp_path, **env):
    from service.api import create_app
    from service.api.config import VARIABLES

    return create_app({**dict.fromkeys(VARIABLES, ""), "RUMMY_STORE_PROCESS": "0",
                       "RUMMY_VERIFY_PROCESSES": "0", "RUMMY_ANALYSIS": "0",
                       "RUMMY_DB": str(tmp_path / "rummy.duckdb"), **env})


def test_the_upload_page_carries_the_servers_limits_and_says_whether_a_key_is_needed(
        tmp_path):
    from service.api import close_app

    app = _app(tmp_path, RUMMY_MAX_GAME_BYTES="5000", RUMMY_MAX_BATCH_BYTES="90000",
               RUMMY_API_KEYS="writer:write-key")
    try:
        html = _page(app.test_client(), "/")
        assert ('data-max-game-bytes="5000" data-max-batch-bytes="90000" '
                'data-key-needed="true"') in html
        assert "this server needs one to check or store a game" in html
        assert "4.9 KiB" in html and "87.9 KiB" in html  # the limits in words
    finally:
        close_app(app)


def test_the_upload_page_of_an_open_server_says_no_key_is_needed(client):
    html = _page(client, "/")
    assert 'data-key-needed="false"' in html and "this server needs none" in html
    assert 'data-max-game-bytes="1048576" data-max-batch-bytes="67108864"' in html


def test_a_page_needing_a_read_key_says_so_in_plain_words_and_offers_only_followable_links(
        keyed):
    client = keyed.test_client()
    page = client.get("/games/abc123/replay", headers=BROWSER)
    assert page.status_code == 401
    html = page.get_data(as_text=True)
    assert "A read key is needed" in html and "Authorization" not in html
    assert "Bearer" not in html and "endpoint" not in html
    assert 'id="enter-key" data-keep-fragment href="/key?next=/games/abc123/replay"' in html
    # every link to stored games goes by the key page, back to where it leads
    links = [u for u in _parse(html).urls if not u.startswith(("/assets/", "#"))]
    for url in links:
        assert not url.startswith(("/games", "/players", "/tournaments")), url
    assert 'href="/key?next=/games"' in html and 'href="/key?next=/players"' in html
    assert 'src="/assets/key.js"' in html  # carries the fragment into the key page
    client.set_cookie("rummy_read_key", "rotated-away")
    wrong = client.get("/games", headers=BROWSER)
    assert wrong.status_code == 403
    assert "does not open the page" in wrong.get_data(as_text=True)
    # with the key, the same links lead to the pages themselves
    client.set_cookie("rummy_read_key", "read-key")
    html = _page(client, "/variants")
    assert 'href="/games"' in html and "/key?next=" not in html
    missing = client.get("/games/abc123", headers=BROWSER)
    assert missing.status_code == 404 and 'href="/games"' in missing.get_data(as_text=True)


def test_the_key_page_returns_to_a_target_with_its_fragment(keyed):
    client = keyed.test_client()
    html = _page(client, "/key?next=/games/abc/replay%23deal%3D2%26move%3D7")
    assert '<input type="hidden" name="next" value="/games/abc/replay#deal=2&amp;move=7">' in html
    assert 'id="key-form"' in html and 'src="/assets/key.js"' in html
    given = client.post("/key", data={"key": "read-key", "next": "/games/abc/replay#deal=2&move=7"},
                        headers=FROM_HERE)
    assert (given.status_code, given.headers["Location"]) == (303,
                                                              "/games/abc/replay#deal=2&move=7")


def test_the_variants_page_needs_no_read_key_and_the_apis_variants_keep_their_policy(keyed):
    client = keyed.test_client()
    html = _page(client, "/variants")
    assert 'id="gin"' in html
    assert_problem(client.get("/api/v1/variants"), 401, "unauthorized")
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["paths"]["/api/v1/variants"]["get"]["x-access"] == "read"


def test_the_variants_page_names_each_source_in_words(client):
    from service.engine.rules import PRESETS, SOURCES

    html = _page(client, "/variants")
    # hand-derived from docs/RULES.md's table of the texts
    assert ('<span class="source" data-source="002">follows basic Rummy, French rules '
            '(seed 002)</span>') in html
    assert "follows Rummy as played online in Greece, Greek rules (seed 003)" in html
    assert "source: 0" not in html
    for preset in PRESETS.values():
        assert (f'data-source="{preset.source}">follows {SOURCES[preset.source]}</span>'
                in html.replace("&#39;", "'"))
    for source in SOURCES.values():
        assert f"<dt><code>{source.number}</code></dt><dd>{source.name}, {source.language} rules</dd>" in html


def test_the_games_list_marks_a_game_without_a_played_time(client, ids):
    html = _page(client, "/games?limit=100")
    api = client.get("/api/v1/games?limit=100").get_json()["games"]
    assert api and all(g["played_at"] is None for g in api)  # the samples give none
    cells = re.findall(r'<td data-label="Played" class="played">(.*?)</td>', html)
    assert cells == [f'<span aria-hidden="true">—</span> <small class="uploaded">uploaded '
                     f'<time datetime="{g["uploaded_at"]}">{g["uploaded_at"][:10]} '
                     f'{g["uploaded_at"][11:16]} UTC</time></small>' for g in api]


def test_the_games_lists_until_date_includes_its_day(tmp_path):
    import json

    from service.api import close_app

    app = _app(tmp_path)
    try:
        client = app.test_client()
        stored = {}
        for stem, played in (("gin-01", "2026-03-01T23:30:00Z"),
                             ("gin-02", "2026-03-02T00:00:00Z"),
                             ("rummy-01", "2026-02-28T12:00:00Z")):
            log = json.loads((SAMPLE_LOG.parent / f"{stem}.json").read_text())
            log["played_at"] = played
            answer = client.post("/api/v1/games", data=json.dumps(log),
                                 content_type="application/json")
            assert answer.status_code == 201, answer.get_json()
            stored[stem] = answer.get_json()["id"]

        def listed(query):
            return set(re.findall(r'<td data-label="Game"><a href="/games/([0-9a-f]+)">',
                                  _page(client, f"/games?{query}")))

        assert listed("until=2026-03-01") == {stored["gin-01"], stored["rummy-01"]}
        assert listed("since=2026-03-01&until=2026-03-01") == {stored["gin-01"]}
        assert listed("until=2026-03-02") == set(stored.values())
        # an instant stays as the API reads it: exclusive
        assert listed("until=2026-03-02T00:00:00Z") == {stored["gin-01"], stored["rummy-01"]}
        api = client.get("/api/v1/games?until=2026-03-01").get_json()["games"]
        assert {g["id"] for g in api} == {stored["rummy-01"]}  # the API: midnight, exclusive
        html = _page(client, "/games?until=2026-03-01")
        assert 'value="2026-03-01" aria-describedby="until-note"' in html
        assert "both included" in html
        assert "2026-03-01T23:30:00Z" in html and "uploaded" not in re.search(
            r'<td data-label="Played" class="played">(.*?)</td>', html).group(1)
    finally:
        close_app(app)


def test_a_gin_game_page_shows_each_deals_bonuses(client, ids):
    from service.engine.rules import resolve_rules

    game_id = ids["gin-02"]
    api = client.get(f"/api/v1/games/{game_id}").get_json()
    html = _page(client, f"/games/{game_id}")
    rules, _ = resolve_rules("gin", api["rules"], 2)
    rows = re.findall(r'<td class="bonuses"><ul class="plain">(.*?)</ul></td>', html, re.S)
    assert len(rows) == len(api["report"]["deals"])
    shown = [re.findall(r'<li data-bonus="([^"]+)" data-player="([^"]+)" data-points="(\d+)">'
                        r'([^<]+)</li>', row) for row in rows]
    # hand-derived from the sample: ben knocks at 10, ana undercuts with 8; then two knocks
    assert [[(kind, who, int(n)) for kind, who, n, _ in deal] for deal in shown] == [
        [("undercut", "ana", rules.undercut_bonus), ("box", "ana", rules.box_bonus)],
        [("box", "ana", rules.box_bonus)], [("box", "ben", rules.box_bonus)]]
    assert shown[0][0][3] == "undercut bonus 25 to ana (in the deal's points)"
    assert shown[0][1][3] == "box 20 to ana (added to the total at the game's end)"
    # the boxes are what the totals add to the deals (no game bonus, no shutout here)
    totals = api["report"]["totals"]["points"]
    for player in ("ana", "ben"):
        deals = sum(d["points"][player] for d in api["report"]["deals"])
        boxes = sum(int(n) for deal in shown for kind, who, n, _ in deal
                    if kind == "box" and who == player)
        assert totals[player] == deals + boxes
    assert '<th scope="col">Bonuses</th>' not in _page(client, f"/games/{ids['rummy-01']}")


def test_the_leaderboard_says_how_many_games_its_analysis_figures_leave_out(client):
    """The accuracy, errors and luck columns are over the games analysed so far: while
    stored games wait for their analysis the page says how many, as the API does."""
    api = client.get("/api/v1/players").get_json()["analysis"]
    assert api["backlog"] > 1 and api["complete"] is False
    html = _page(client, "/players")
    note = re.search(r'<p class="behind" id="analysis-behind" role="status" '
                     r'data-backlog="(\d+)">([^<]*)</p>', html)
    assert note is not None, html
    assert int(note.group(1)) == api["backlog"]
    assert note.group(2).startswith(f"Analysis {api['backlog']:,} games behind: figures may "
                                    "change.")
    assert html.index('id="analysis-behind"') < html.index('id="leaderboard"')


def test_the_leaderboard_of_an_analysed_store_has_no_backlog_note(tmp_path):
    from service.api import close_app

    app = _app(tmp_path)
    try:
        client = app.test_client()
        answers = [client.post("/api/v1/games", data=(SAMPLE_LOG.parent / f"{stem}.json")
                               .read_bytes(), content_type="application/json")
                   for stem in ("gin-01", "gin-02")]
        first, second = (answer.get_json()["id"] for answer in answers)
        assert client.get(f"/api/v1/games/{first}/analysis").status_code == 200
        assert "Analysis 1 game behind: figures may change." in _page(client, "/players")
        assert client.get(f"/api/v1/games/{second}/analysis").status_code == 200
        assert client.get("/api/v1/players").get_json()["analysis"]["complete"] is True
        html = _page(client, "/players")
        assert 'data-key="accuracy"' in html and 'id="analysis-behind"' not in html
    finally:
        close_app(app)


def test_the_player_page_shows_the_apis_play_and_luck_figures(tmp_path):
    """A player's analysis figures (accuracy, errors, luck and the points with the luck
    taken away by their share of it) on their page, equal to the API's; the backlog note
    while games wait for their analysis."""
    from service.generator import generate_games
    from tests.api.helpers import post_log

    client = _app(tmp_path).test_client()
    ids = [post_log(client, log).get_json()["id"]
           for log in generate_games("gin", 6, seed=5, players=2)]
    waiting = _page(client, "/players/ana")
    assert 'id="analysis-behind"' not in waiting and "Play and luck" not in waiting
    for gid in ids[:5]:  # asking for a game's analysis stores it; one left waiting
        assert client.get(f"/api/v1/games/{gid}/analysis").status_code == 200
    api = client.get("/api/v1/players/ana/analysis?variant=gin").get_json()
    figures = api["variants"]["gin"]
    assert figures["luck_share"] is not None and api["analysis"]["backlog"] == 1
    html = _page(client, "/players/ana")
    shown = dict(re.findall(r'<dd data-figure="(\w+)">([^<]+)</dd>',
                            html.split('data-analysis="gin"')[1].split("</dl>")[0]))
    assert shown["decisions"] == str(figures["decisions"])
    assert shown["accuracy"] == f"{figures['accuracy']}%"
    assert shown["luck_per_deal"].startswith(f"{figures['luck_per_deal']:+.2f} deal points over "
                                             f"{figures['luck_deals']} deals")
    assert shown["luck_adjusted_per_deal"] == str(figures["luck_adjusted_per_deal"])
    assert shown["luck_share"] == f"{figures['luck_share']:.2f}"
    # The decision loss stored with the analyses, beside play and luck, explained.
    judged = figures["decision_loss"]
    assert judged["decisions"] > 0
    assert shown["judged_decisions"] == str(judged["decisions"])
    assert shown["average_loss"] == f"{judged['average_loss']:.4f} deal points"
    assert shown["decision_accuracy"] == f"{judged['accuracy']:.2f}%"
    assert 'data-note="decision_loss"' in html and "Decision loss" in html
    assert 'data-link="decision-loss-docs"' in html
    assert 'data-backlog="1"' in html

"""The crosstable page and the standings after a round, against the API's figures."""

from __future__ import annotations

import re

from tests.api.test_crosstable import event

from .conftest import BROWSER
from .test_pages import _app


def test_the_crosstable_page_and_the_rounds_are_the_apis(tmp_path):
    client = _app(tmp_path).test_client()
    for log in event("cup"):
        assert client.post("/api/v1/games", json=log).status_code == 201
    for after in (None, 1, 2):
        query = "" if after is None else f"?after_round={after}"
        api = client.get(f"/api/v1/tournaments/cup/crosstable{query}").get_json()
        page = client.get(f"/tournaments/cup/crosstable{query}", headers=BROWSER)
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert "provisional: 1 matter open" in html if after is None else "provisional" not in html
        for table in api["tables"]:
            grid = html.split(f'data-variant="{table["variant"]}"')[1].split("</table>")[0]
            assert re.findall(r'<tr data-player="([^"]+)">', grid) == table["players"]
            for row in table["rows"]:
                line = grid.split(f'<tr data-player="{row["player"]}">')[1].split("</tr>")[0]
                shown = re.findall(r'data-opponent="([^"]+)" data-won="(\d+)" data-lost="(\d+)"',
                                   line)
                assert shown == [(c["opponent"], str(c["won"]), str(c["lost"]))
                                 for c in row["cells"]]
        standings = client.get(f"/tournaments/cup{query}", headers=BROWSER).get_data(
            as_text=True)
        assert f'href="/tournaments/cup/crosstable{query}"' in standings
        assert ('id="after-round-note"' in standings) is (after is not None)
        if after is not None:
            assert f'<option value="{after}" selected>round {after}</option>' in standings
            assert f'/api/v1/tournaments/cup/report.csv?after_round={after}"' in standings
            points = client.get(f"/api/v1/tournaments/cup{query}").get_json()["standings"]
            for table in points:
                for r in table["players"]:
                    assert f">{r['player']}</a></th>" in standings
    bad = client.get("/tournaments/cup/crosstable?after_round=x", headers=BROWSER)
    assert bad.status_code == 400 and "after_round" in bad.get_data(as_text=True)
    assert client.get("/tournaments/cup?after_round=-2", headers=BROWSER).status_code == 400
    assert client.get("/tournaments/cup?after_round=", headers=BROWSER).status_code == 200
    assert client.get("/tournaments/none/crosstable", headers=BROWSER).status_code == 404

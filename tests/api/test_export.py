"""GET /games/export: the uploaded logs as NDJSON (byte for byte, newest first, paged)
and the per-deal results as Parquet, with the filters of GET /games."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq
import pytest

from service.store import StoreError
from service.store import export as store_export

from .helpers import (
    API,
    assert_problem,
    counts,
    illegal,
    ndjson,
    post_log,
    store_of,
    valid,
    valid_rummy,
)

EXPORT = f"{API}/games/export"


def dated(log: dict[str, Any], when: str, tournament: str | None = None) -> dict[str, Any]:
    log = dict(log, played_at=when)
    if tournament is not None:
        log["tournament"] = {"id": tournament, "round": 1, "table": "A"}
    return log


@pytest.fixture(scope="module")
def uploaded(shared_app) -> list[tuple[str, bytes]]:
    """Five games in upload order, each (id, the exact bytes sent): compact, spaced out,
    pretty-printed over several lines (CRLF), a rummy game and an illegal one.  Uploaded
    once per module into the shared app: the tests using them only read."""
    client = shared_app.test_client()
    bodies = [
        orjson.dumps(dated(valid(id="g1"), "2024-05-01T10:00:00Z", "spring")),
        json.dumps(dated(valid(id="g2"), "2024-05-02T10:00:00Z", "spring"),
                   separators=(" , ", " : ")).encode(),
        json.dumps(dated(valid_rummy(id="g3"), "2024-05-03T10:00:00Z", "spring"),
                   indent=2).replace("\n", "\r\n").encode(),
        orjson.dumps(dated(valid_rummy(id="g4"), "2024-06-01T10:00:00Z")),
        orjson.dumps(dated(illegal(id="g5"), "2024-06-02T10:00:00Z", "autumn")),
    ]
    out = []
    for body in bodies:
        response = post_log(client, body)
        assert response.status_code == 201, response.get_json()
        out.append((response.get_json()["id"], body))
    return out


def one_line(body: bytes) -> bytes:
    """What the export sends for a log: itself, line breaks turned into spaces."""
    return body.replace(b"\r", b" ").replace(b"\n", b" ")


def exported(client, query: str = "") -> list[bytes]:
    response = client.get(f"{EXPORT}?format=ndjson{query}")
    assert response.status_code == 200, response.data
    assert response.mimetype == "application/x-ndjson"
    assert response.headers["Content-Disposition"] == "attachment; filename=games.ndjson"
    assert response.data == b"" or response.data.endswith(b"\n")
    return response.data.splitlines()


def test_ndjson_sends_the_uploaded_bytes_newest_first(shared_client, uploaded):
    lines = exported(shared_client)
    assert lines == [one_line(body) for _, body in reversed(uploaded)]
    # Single-line uploads come back byte for byte, spaces and all.
    assert lines[3] == uploaded[1][1] and lines[4] == uploaded[0][1]
    # The pretty-printed one is the same document on one line.
    assert b"\n" in uploaded[2][1] and orjson.loads(lines[2]) == orjson.loads(uploaded[2][1])
    # Each line is the stored log of its game.
    for game_id, body in uploaded:
        assert shared_client.get(f"{API}/games/{game_id}/log").data == body


def test_ndjson_is_the_default_format(shared_client, uploaded):
    response = shared_client.get(EXPORT)
    assert response.mimetype == "application/x-ndjson"
    assert response.data.splitlines() == exported(shared_client)


@pytest.mark.parametrize(("query", "expected"), [
    ("&variant=rummy", [4, 3]),
    ("&variant=gin", [5, 2, 1]),
    ("&status=illegal", [5]),
    ("&status=valid&tournament=spring", [3, 2, 1]),
    ("&tournament=autumn", [5]),
    ("&player=ana&since=2024-05-02&until=2024-06-01", [3, 2]),
    ("&since=2024-06-01T10:00:00Z", [5, 4]),
    ("&player=nobody", []),
    ("&tournament=spring' OR '1'='1", []),
    ("&tournament=SPRING&player=Ana", [3, 2, 1]),  # no such spelling: case ignored
    ("&source_id=g4", [4]),
    ("&round=1&table=A&variant=gin", [5, 2, 1]),
])
def test_ndjson_applies_the_filters(shared_client, uploaded, query, expected):
    assert exported(shared_client, query) == [one_line(uploaded[n - 1][1]) for n in expected]


def test_ndjson_of_many_games_streams_page_by_page(client, monkeypatch):
    logs = [valid(id=f"game-{i:03d}") for i in range(300)]
    response = client.post(f"{API}/games/batch", data=ndjson(*logs),
                           content_type="application/x-ndjson")
    assert response.status_code == 200
    assert all("id" in orjson.loads(line) for line in response.data.splitlines())

    monkeypatch.setattr(store_export, "PAGE_SIZE", 7)
    store = store_of(client.application)
    queries = 0
    real_cursor = store.cursor

    def counting_cursor():
        nonlocal queries
        queries += 1
        return real_cursor()

    monkeypatch.setattr(store, "cursor", counting_cursor)
    response = client.get(EXPORT, buffered=False)
    assert response.status_code == 200 and response.is_streamed
    assert queries == 1  # only the first page is read before the response starts
    lines = b"".join(response.response).splitlines()
    response.close()
    # 300 games: 42 full pages of 7, then a page of 6 (shorter: the last).
    assert queries == 43
    assert [orjson.loads(line)["id"] for line in lines] == \
        [f"game-{i:03d}" for i in reversed(range(300))]


def test_ndjson_of_an_empty_selection_is_empty(client):
    assert exported(client) == []


# --------------------------------------------------------------------------- Parquet

def parquet_rows(client, query: str = "") -> list[dict[str, Any]]:
    response = client.get(f"{EXPORT}?format=parquet{query}")
    assert response.status_code == 200, response.data
    assert response.mimetype == "application/vnd.apache.parquet"
    assert response.headers["Content-Disposition"] == "attachment; filename=games.parquet"
    assert int(response.headers["Content-Length"]) == len(response.data)
    table = pq.read_table(io.BytesIO(response.data))
    assert tuple(table.column_names) == store_export.DEAL_RESULT_COLUMNS
    return table.to_pylist()


def test_parquet_has_a_row_per_deal_and_player(shared_client, uploaded):
    rows = parquet_rows(shared_client)
    # Five one-deal games of two players: ten rows, newest game first, seat order.
    ids = [game_id for game_id, _ in uploaded]
    assert [(r["game_id"], r["player"]) for r in rows] == [
        (gid, p) for gid in reversed(ids) for p in ("ana", "ben")]
    by = {(r["game_id"], r["player"]): r for r in rows}
    # Gin KNOCK: ana knocks with 1 deadwood against ben's 20 and scores 19.
    ana = by[(ids[0], "ana")]
    assert (ana["variant"], ana["deal_no"], ana["points"], ana["hand_value"], ana["won"],
            ana["outcome"], ana["is_knocker"], ana["scored"], ana["status"]) == \
        ("gin", 0, 19, 1, True, "knock", True, True, "valid")
    ben = by[(ids[0], "ben")]
    assert (ben["points"], ben["conceded"], ben["hand_value"], ben["won"],
            ben["is_knocker"]) == (0, 19, 20, False, False)
    assert (ana["tournament_id"], ana["tournament_round"], ana["tournament_table"]) == \
        ("spring", 1, "A")
    assert ana["game_time"].isoformat() == "2024-05-01T10:00:00+00:00"
    # Rummy basic: ana goes out; ben is left with 57.
    assert (by[(ids[3], "ana")]["points"], by[(ids[3], "ben")]["hand_value"]) == (57, 57)
    assert by[(ids[3], "ana")]["outcome"] == "out"
    # The illegal game's deal is not scored.
    illegal_row = by[(ids[4], "ana")]
    assert (illegal_row["status"], illegal_row["scored"], illegal_row["deal_illegal"],
            illegal_row["outcome"]) == ("illegal", False, True, None)


def test_parquet_applies_the_filters(shared_client, uploaded):
    ids = [game_id for game_id, _ in uploaded]
    rows = parquet_rows(shared_client, "&variant=rummy&tournament=spring")
    assert {r["game_id"] for r in rows} == {ids[2]}
    assert parquet_rows(shared_client, "&player=nobody") == []
    rows = parquet_rows(shared_client, "&tournament=Spring&player=BEN&round=1&source_id=g2")
    assert {r["game_id"] for r in rows} == {ids[1]}


def test_parquet_temporary_files_are_deleted(shared_client, uploaded, tmp_path, monkeypatch):
    made: list[Path] = []
    real = store_export.tempfile.mkdtemp

    def mkdtemp(**kwargs: Any) -> str:
        made.append(Path(real(dir=tmp_path, **kwargs)))
        return str(made[-1])

    monkeypatch.setattr(store_export.tempfile, "mkdtemp", mkdtemp)
    assert len(parquet_rows(shared_client)) == 10
    response = shared_client.get(f"{EXPORT}?format=parquet", buffered=False)
    next(iter(response.response))  # a shared_client that reads a block and hangs up
    response.close()
    assert len(made) == 2 and not any(path.exists() for path in made)


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize(("query", "field"), [
    ("format=csv", "format"),
    ("format=", "format"),
    ("status=finished", "status"),
    ("variant=poker", "variant"),
    ("since=yesterday", "since"),
    ("player=" + "x" * 65, "player"),
    ("limit=10", "limit"),
    ("cursor=abc", "cursor"),
    ("colour=red", "colour"),
])
def test_bad_parameters_are_400_problems(shared_app, shared_client, uploaded, query, field):
    before = counts(shared_app)
    problem = assert_problem(shared_client.get(f"{EXPORT}?{query}"), 400, "invalid-parameter")
    assert field in problem["errors"]
    assert counts(shared_app) == before


def test_a_database_failure_before_the_first_line_is_a_503_problem(client, monkeypatch):
    def broken():
        raise StoreError("database error: connection lost")

    monkeypatch.setattr(store_of(client.application), "cursor", broken)
    for query in ("format=ndjson", "format=parquet"):
        problem = assert_problem(client.get(f"{EXPORT}?{query}"), 503, "database-unavailable")
        assert "connection lost" not in problem["detail"]


def test_read_keys_guard_the_export(make_app):
    client = make_app(RUMMY_READ_KEYS="reader").test_client()
    assert_problem(client.get(EXPORT), 401, "unauthorized")
    response = client.get(f"{EXPORT}?format=parquet", headers={"Authorization": "Bearer reader"})
    assert response.status_code == 200


def test_openapi_documents_both_formats(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    operation = spec["paths"][EXPORT]["get"]
    content = operation["responses"]["200"]["content"]
    assert set(content) == {"application/x-ndjson", "application/vnd.apache.parquet"}
    assert orjson.loads(content["application/x-ndjson"]["example"])["format"] == "rummy-log/1"
    names = {p["name"] for p in operation["parameters"]}
    assert names == {"player", "variant", "status", "verification", "tournament",
                     "source_id", "round", "table", "since", "until", "format"}
    assert "400" in operation["responses"]

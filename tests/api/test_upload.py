"""POST /games, GET /games/{id}, its log and its positions."""

from __future__ import annotations

import io
import json

import orjson
import pytest

from service.api.games_schemas import StateSchema
from service.engine import load_json, parse_game, verify
from service.engine.state import state_after
from service.store import build_record
from tests.engine.test_gin import ANA

from .helpers import (
    API,
    assert_problem,
    counts,
    illegal,
    incomplete,
    malformed,
    mismatch,
    post_chunked,
    post_log,
    store_of,
    valid,
    valid_rummy,
)


class EndlessStream(io.RawIOBase):
    """A request body that never ends: the server must stop reading by itself."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        buffer[:] = b" " * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


def test_upload_stores_then_the_same_log_answers_200(app, client):
    first = post_log(client, valid())
    assert first.status_code == 201
    body = first.get_json()
    assert body["status"] == "valid" and body["created"] is True and body["dry_run"] is False
    assert body["report"]["totals"]["points"] == {"ana": 139, "ben": 0}
    assert first.headers["Location"] == body["links"]["self"] == f"{API}/games/{body['id']}"
    assert body["links"]["log"] == f"{API}/games/{body['id']}/log"
    # Same canonical content, other formatting and key order: the same game.
    pretty = json.dumps(dict(reversed(list(valid().items()))), indent=3).encode()
    again = post_log(client, pretty)
    assert again.status_code == 200
    assert again.get_json()["id"] == body["id"] and again.get_json()["created"] is False
    assert "Location" not in again.headers
    assert counts(app)["games"] == 1


def test_the_upload_answer_names_the_game_by_the_logs_id_round_and_table(client):
    log = valid(id="r2-tA", tournament={"id": "t1", "round": 2, "table": "A"})
    for query in ("?dry_run=true", ""):
        body = post_log(client, log, query).get_json()
        assert (body["source_id"], body["tournament"]) == (
            "r2-tA", {"id": "t1", "round": 2, "table": "A"}), query
    body = post_log(client, valid()).get_json()
    assert (body["source_id"], body["tournament"]) == (None, None)


def test_get_game_and_its_exact_log(client):
    raw = json.dumps(valid(id="mine", tournament={"id": "t1", "round": 2, "table": "A"},
                           played_at="2024-05-01T19:30:00+02:00",
                           meta={"room": "blue"}), indent=2).encode()
    gid = post_log(client, raw).get_json()["id"]
    game = client.get(f"{API}/games/{gid}").get_json()
    assert game["id"] == gid and game["source_id"] == "mine"
    assert game["status"] == "valid" and game["variant"] == "gin"
    assert game["players"] == ["ana", "ben"] and game["winner"] == "ana"
    assert game["tournament"] == {"id": "t1", "round": 2, "table": "A"}
    assert game["played_at"] == "2024-05-01T17:30:00Z"
    assert game["uploaded_at"].endswith("Z") and game["uploader"] is None
    assert game["meta"] == {"room": "blue"} and game["rules"]["knock_limit"] == 10
    assert game["report"]["deals"][0]["outcome"] == "knock"
    assert (game["n_deals"], game["n_moves"]) == (1, 2)
    log = client.get(game["links"]["log"])
    assert log.status_code == 200 and log.mimetype == "application/json"
    assert log.data == raw


@pytest.mark.parametrize(("log", "status", "code"), [
    (illegal(), "illegal", "CARD_NOT_IN_HAND"),
    (mismatch(), "mismatch", "SCORE_MISMATCH"),
    (incomplete(), "incomplete", None),
    (valid_rummy(), "valid", None),
])
def test_every_verdict_is_stored(app, client, log, status, code):
    response = post_log(client, log)
    assert response.status_code == 201
    body = response.get_json()
    assert body["status"] == status
    assert [v["code"] for v in body["report"]["violations"]][:1] == ([code] if code else [])
    assert client.get(body["links"]["self"]).get_json()["status"] == status
    assert counts(app)["games"] == 1


def test_dry_run_stores_nothing(app, client):
    response = post_log(client, illegal(), "?dry_run=true")
    assert response.status_code == 200
    body = response.get_json()
    assert body["dry_run"] is True and body["created"] is False and "links" not in body
    assert body["status"] == "illegal" and "Location" not in response.headers
    assert counts(app) == {"games": 0, "moves": 0, "violations": 0}
    assert_problem(client.get(f"{API}/games/{body['id']}"), 404, "not-found")
    # The id is the one a real upload gets.
    assert post_log(client, illegal()).get_json()["id"] == body["id"]
    assert_problem(post_log(client, valid(), "?dry_run=perhaps"), 400, "invalid-parameter")


def test_malformed_log_is_422_with_field_paths_and_nothing_stored(app, client):
    problem = assert_problem(post_log(client, malformed()), 422, "validation-error")
    assert problem["errors"]["deals.0.moevs"] == ["Unknown field."]
    assert "deals.0.moves" in problem["errors"]
    assert "not a card" in problem["errors"]["deals.0.upcard"][0]
    assert counts(app) == {"games": 0, "moves": 0, "violations": 0}


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b"", b'"rummy"', b"\xff\xfe"])
def test_documents_that_are_no_game_are_422(shared_app, body):
    before = counts(shared_app)
    problem = assert_problem(post_log(shared_app.test_client(), body), 422, "validation-error")
    assert problem["errors"]
    assert counts(shared_app) == before


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-ndjson",
                                          "application/x-www-form-urlencoded"])
def test_other_media_types_are_415(shared_app, content_type):
    before = counts(shared_app)
    response = shared_app.test_client().post(f"{API}/games", data=json.dumps(valid()),
                           headers={"Content-Type": content_type} if content_type else {})
    assert_problem(response, 415, "unsupported-media-type")
    assert counts(shared_app) == before


def test_json_with_a_charset_is_accepted(client):
    response = client.post(f"{API}/games", data=json.dumps(valid()),
                           content_type="application/json; charset=utf-8")
    assert response.status_code == 201


def test_oversize_log_is_413_before_reading(make_app):
    app = make_app(RUMMY_MAX_GAME_BYTES=300)
    client = app.test_client()
    assert_problem(post_log(client, valid()), 413, "payload-too-large")
    # No Content-Length (chunked): the stream is capped, never read to its end.
    stream = EndlessStream()
    response = post_chunked(client, f"{API}/games", stream, "application/json")
    assert_problem(response, 413, "payload-too-large")
    assert stream.read_bytes <= 301 + 65536
    assert counts(app)["games"] == 0


def test_small_log_under_the_limit_passes(make_app):
    client = make_app(RUMMY_MAX_GAME_BYTES=10_000).test_client()
    assert post_log(client, valid()).status_code == 201


def test_unknown_game_is_404(shared_client):
    for path in ("/games/0123456789abcdef01234567", "/games/nope/log",
                 "/games/nope/deals/0/moves/0/state"):
        assert_problem(shared_client.get(API + path), 404, "not-found")


def test_state_after_a_move(client):
    gid = post_log(client, valid()).get_json()["id"]
    dealt = client.get(f"{API}/games/{gid}/deals/0/moves/-1/state")
    assert dealt.status_code == 200
    state = dealt.get_json()
    assert state["move"] == -1 and state["to_move"] == "ana"
    assert sorted(state["hands"]["ana"]) == sorted(ANA.split())
    assert state["discard_top"] == "TD" and state["deal_over"] is False
    drawn = client.get(f"{API}/games/{gid}/deals/0/moves/0/state").get_json()
    assert "AH" in drawn["hands"]["ana"] and len(drawn["hands"]["ana"]) == 11
    over = client.get(f"{API}/games/{gid}/deals/0/moves/1/state").get_json()
    assert over["deal_over"] is True and over["outcome"] == "knock"
    assert over["scores"] == {"ana": 19, "ben": 0}
    # Every key of the engine's state is published by the schema.
    engine_state = state_after(parse_game(valid()), 0, 1)
    assert set(engine_state) == set(StateSchema().fields) == set(over)


@pytest.mark.parametrize("position", ["deals/1/moves/0", "deals/0/moves/2",
                                      "deals/0/moves/-2", "deals/99999/moves/-1"])
def test_positions_the_game_does_not_have_are_404(shared_client, position):
    gid = post_log(shared_client, valid()).get_json()["id"]
    problem = assert_problem(shared_client.get(f"{API}/games/{gid}/{position}/state"), 404,
                             "no-such-position")
    assert "deal" in problem["detail"]


def test_state_of_an_illegal_game_names_the_violation(client):
    gid = post_log(client, illegal()).get_json()["id"]
    state = client.get(f"{API}/games/{gid}/deals/0/moves/1/state").get_json()
    assert state["stopped_by"]["code"] == "CARD_NOT_IN_HAND"


def with_repeated_keys() -> bytes:
    """A valid log whose first move names its card twice, and whose header its variant
    twice: orjson alone would read the last of each."""
    text = orjson.dumps(valid(meta={"room": "blue"}))
    text = text.replace(b'"variant":"gin"', b'"variant":"rummy","variant":"gin"', 1)
    return text.replace(b'"room":"blue"', b'"room":"red","room":"blue"', 1)


def test_a_log_repeating_a_key_is_422_naming_it(app, client):
    problem = assert_problem(post_log(client, with_repeated_keys()), 422, "validation-error")
    assert set(problem["errors"]) == {"variant", "meta.room"}
    assert counts(app)["games"] == 0


def test_a_log_stored_before_the_rule_on_repeated_keys_is_still_replayed(app, client):
    raw = with_repeated_keys()
    document = load_json(raw, repeated_keys=True)
    game = parse_game(document)
    [(gid, created)] = store_of(app).submit([build_record(document, raw, game, verify(game))])
    assert created
    state = client.get(f"{API}/games/{gid}/deals/0/moves/1/state")
    assert state.status_code == 200 and state.get_json()["outcome"] == "knock"
    assert client.get(f"{API}/games/{gid}/log").data == raw


def test_a_422_lists_few_fields_however_many_are_wrong(client):
    log = valid()
    log["deals"][0]["moves"] = [{"p": "ana", "a": "discard", "card": "1X"}] * 2000
    log["k" * 100_000] = 1
    response = post_log(client, log)
    problem = assert_problem(response, 422, "validation-error")
    assert len(response.data) < 3_000
    assert len(problem["errors"]) == 10
    assert problem["detail"] == "the document is not a valid rummy-log/1 game; the first 10 " \
                                "of 2001 invalid fields are listed"

"""POST /games/batch: NDJSON in, one streamed result line per input line out."""

from __future__ import annotations

import io

import orjson
import pytest

from .helpers import (
    API,
    assert_problem,
    counts,
    illegal,
    lines_of,
    malformed,
    mismatch,
    ndjson,
    post_chunked,
    post_log,
    store_of,
    valid,
    valid_rummy,
)

BATCH = f"{API}/games/batch"


def post_batch(client, body: bytes, content_type: str = "application/x-ndjson"):
    return client.post(BATCH, data=body, content_type=content_type)


def test_each_result_names_its_game_by_the_logs_id_round_and_table(client):
    body = ndjson(valid(id="r5-t3", tournament={"id": "cup", "round": 5, "table": "3"}),
                  illegal(tournament={"id": "cup", "round": 5}), valid_rummy())
    results = lines_of(post_batch(client, body))
    assert [(r["source_id"], r["tournament"]) for r in results] == [
        ("r5-t3", {"id": "cup", "round": 5, "table": "3"}),
        (None, {"id": "cup", "round": 5, "table": None}), (None, None)]


def test_good_illegal_and_malformed_lines_mixed(app, client):
    body = ndjson(valid(id="a"), illegal(), malformed(), b"", b"   ", b"{oops",
                  valid(id="a"), mismatch(), b"[1]", valid_rummy())
    response = post_batch(client, body)
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    results = lines_of(response)
    assert [r["line"] for r in results] == [1, 2, 3, 6, 7, 8, 9, 10]  # 4 and 5 are blank
    by_line = {r["line"]: r for r in results}
    assert by_line[1]["status"] == "valid" and by_line[1]["created"] is True
    assert by_line[2]["status"] == "illegal" and by_line[2]["created"] is True
    assert by_line[3]["error"]["type"] == "/problems/validation-error"
    assert by_line[3]["error"]["errors"]["deals.0.moevs"] == ["Unknown field."]
    assert by_line[6]["error"]["type"] == "/problems/validation-error"
    assert by_line[7] == {"line": 7, "id": by_line[1]["id"], "status": "valid", "verification": "moves",
                          "created": False, "source_id": "a", "tournament": None}
    assert by_line[8]["status"] == "mismatch"
    assert "error" in by_line[9]
    assert by_line[10]["status"] == "valid"
    stored = {r["id"] for r in results if "id" in r}
    assert len(stored) == 4 and counts(app)["games"] == 4
    for gid in stored:
        assert client.get(f"{API}/games/{gid}").status_code == 200


def test_each_line_is_stored_byte_for_byte(client):
    line = orjson.dumps(valid(id="crlf"), option=orjson.OPT_INDENT_2).replace(b"\n", b" ")
    results = lines_of(post_batch(client, line + b"\r\n"))
    assert client.get(f"{API}/games/{results[0]['id']}/log").data == line


def test_many_lines_in_small_chunks_are_all_committed(make_app):
    app = make_app(RUMMY_BATCH_CHUNK=3)
    client = app.test_client()
    logs = [valid(id=f"g{i}") for i in range(10)] + [malformed()]
    results = lines_of(post_batch(client, ndjson(*logs)))
    assert [r["line"] for r in results] == list(range(1, 12))
    assert all(r["created"] for r in results[:10]) and "error" in results[10]
    assert counts(app)["games"] == 10


def test_a_line_over_the_game_limit_is_an_error_line(make_app):
    app = make_app(RUMMY_MAX_GAME_BYTES=2000)
    client = app.test_client()
    big = valid(id="big", meta={"pad": "x" * 5000})
    results = lines_of(post_batch(client, ndjson(valid(id="a"), big, valid(id="b"))))
    assert results[1] == {"line": 2, "error": results[1]["error"]}
    assert results[1]["error"]["type"] == "/problems/payload-too-large"
    assert results[0]["created"] and results[2]["created"]
    assert counts(app)["games"] == 2


def test_wrong_media_type_is_415(app, client):
    assert_problem(post_batch(client, ndjson(valid()), "application/json"), 415,
                   "unsupported-media-type")
    assert counts(app)["games"] == 0


def test_batch_over_the_limit_is_413_before_reading(make_app):
    app = make_app(RUMMY_MAX_BATCH_BYTES=1000)
    client = app.test_client()
    body = ndjson(*[valid(id=f"g{i}") for i in range(5)])
    assert len(body) > 1000
    assert_problem(post_batch(client, body), 413, "payload-too-large")
    assert counts(app)["games"] == 0


def test_chunked_batch_growing_past_the_limit_ends_with_an_error_line(make_app):
    app = make_app(RUMMY_MAX_BATCH_BYTES=100_000)
    client = app.test_client()
    line = ndjson(valid(id="x" * 100))
    body = b"".join(ndjson(valid(id=f"g{i}")) for i in range(3)) + line * 400
    response = post_chunked(client, BATCH, io.BytesIO(body), "application/x-ndjson")
    results = lines_of(response)
    assert response.status_code == 200
    assert results[-1]["error"]["type"] == "/problems/payload-too-large"
    assert results[-1]["line"] == len(results)  # the first line not read
    acknowledged = [r for r in results if "id" in r]
    assert acknowledged[:3] == [r for r in results[:3]] and all(r["created"] for r in results[:3])
    assert store_of(app).count("games") == len({r["id"] for r in acknowledged})


def test_lines_verified_in_a_pool_of_processes(make_app, caplog):
    """The same verdicts, in the same order, when a pool of processes verifies."""
    app = make_app(RUMMY_VERIFY_PROCESSES=2, RUMMY_BATCH_CHUNK=4)
    client = app.test_client()
    logs = [valid(id=f"p{i}") for i in range(9)] + [malformed(), illegal(), b"{oops"]
    results = lines_of(post_batch(client, ndjson(*logs)))
    assert [r["line"] for r in results] == list(range(1, 13))
    assert all(r["created"] and r["status"] == "valid" for r in results[:9])
    assert results[9]["error"]["type"] == "/problems/validation-error"
    assert results[10]["status"] == "illegal"
    assert "error" in results[11]
    assert counts(app)["games"] == 10


class OneLineAtATime(io.RawIOBase):
    """A request body arriving a line at a time, counting the lines read so far."""

    def __init__(self, body: bytes):
        self.lines = body.splitlines(keepends=True)
        self.read_so_far = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.read_so_far == len(self.lines):
            return 0
        line = self.lines[self.read_so_far]
        assert len(line) <= len(buffer)
        buffer[:len(line)] = line
        self.read_so_far += 1
        return len(line)


@pytest.mark.parametrize("store_process", ["0", "1"])
def test_the_next_chunk_is_read_and_verified_before_one_is_answered(make_app, store_process):
    """The pool verifies a chunk while the one before is committed: by the time the
    first chunk's lines are answered, the second chunk has been read and sent."""
    app = make_app(RUMMY_VERIFY_PROCESSES="2", RUMMY_BATCH_CHUNK="2",
                   RUMMY_STORE_PROCESS=store_process)
    body = OneLineAtATime(ndjson(*[valid(id=f"n{i}") for i in range(5)], b"{oops"))
    response = post_chunked(app.test_client(), BATCH, body, "application/x-ndjson",
                            buffered=False)
    pieces = iter(response.response)
    first = next(piece for piece in pieces if piece.strip())
    assert [orjson.loads(line)["line"] for line in first.splitlines()] == [1, 2]
    assert body.read_so_far == 4
    results = [orjson.loads(line) for line in (first + b"".join(pieces)).splitlines()]
    response.close()
    assert [r["line"] for r in results] == [1, 2, 3, 4, 5, 6]
    assert all(r["created"] for r in results[:5]) and "error" in results[5]
    assert store_of(app).count("games") == 5


def test_a_line_repeating_a_key_is_an_error_line_naming_it(app, client):
    line = orjson.dumps(valid(id="twice")).replace(b'"id":"twice"', b'"id":"once","id":"twice"')
    results = lines_of(post_batch(client, ndjson(valid(id="a"), line, valid(id="b"))))
    assert results[1]["error"]["type"] == "/problems/validation-error"
    assert results[1]["error"]["errors"] == {
        "id": ["this key appears more than once in its object"]}
    assert results[0]["created"] and results[2]["created"]
    assert counts(app)["games"] == 2


class EndlessGarbage(io.RawIOBase):
    """A chunked body of ``x`` lines that never ends, counting the bytes read."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        size = len(buffer) - len(buffer) % 2
        buffer[:size] = b"x\n" * (size // 2)
        self.read_bytes += size
        return size


def test_a_garbage_body_gets_a_bounded_answer_and_the_good_lines_before_it(app, client):
    """400 KB of `x` lines were answered with 52 MB of error lines; the batch now stops at
    its 500th malformed line in a row, whatever the size of the body."""
    body = ndjson(valid(id="a"), valid(id="b")) + b"x\n" * 200_000
    response = post_batch(client, body)
    results = lines_of(response)
    assert len(response.data) < 150_000
    assert [r["line"] for r in results] == list(range(1, 504))
    assert results[0]["created"] and results[1]["created"]
    assert all(r["error"]["type"] == "/problems/validation-error" for r in results[2:502])
    stop = results[-1]
    assert stop["line"] == 503 and stop["error"]["type"] == "/problems/batch-stopped"
    assert stop["error"]["status"] == 422
    assert "line 502: 500 malformed lines in a row" in stop["error"]["detail"]
    assert counts(app)["games"] == 2
    endless = EndlessGarbage()
    response = post_chunked(client, BATCH, endless, "application/x-ndjson")
    assert lines_of(response)[-1]["error"]["type"] == "/problems/batch-stopped"
    assert len(response.data) < 150_000 and endless.read_bytes < 1 << 20


def test_a_batch_stops_at_its_last_malformed_line_allowed_in_all(make_app):
    """Malformed lines between good ones, never 500 in a row, still end the batch."""
    app = make_app(RUMMY_BATCH_MAX_BAD_LINES=30)
    client = app.test_client()
    body = b"".join(ndjson(b"{}", b"{}", b"x", valid(id=f"g{i}")) for i in range(20))
    results = lines_of(post_batch(client, body))
    assert [r["line"] for r in results] == list(range(1, 41))  # the 30th bad one is 39
    assert "line 39: 30 malformed lines in all" in results[-1]["error"]["detail"]
    assert counts(app)["games"] == 9
    assert sum("created" in r for r in results) == 9


@pytest.mark.parametrize("store_process", ["0", "1"])
def test_no_game_after_the_stop_is_stored_when_the_pool_verifies(make_app, store_process):
    """Lines are verified two chunks at a time by two processes, which store good games
    themselves only while the lines in flight cannot stop the batch: the games after
    the stop were verified but are not stored."""
    app = make_app(RUMMY_VERIFY_PROCESSES="2", RUMMY_BATCH_CHUNK="2",
                   RUMMY_STORE_PROCESS=store_process, RUMMY_BATCH_MAX_BAD_RUN="7")
    good = [valid(id=f"g{i}") for i in range(8)]
    body = ndjson(*good[:4], *[b"x"] * 6, b"{}", good[4], good[5], good[6], b"", good[7])
    results = lines_of(post_batch(app.test_client(), body))
    assert [r["line"] for r in results] == list(range(1, 13))
    assert all(r["created"] for r in results[:4])
    assert results[-1]["error"]["type"] == "/problems/batch-stopped"
    assert "line 11: 7 malformed lines in a row" in results[-1]["error"]["detail"]
    # A pool process's writes are committed in order with the next ones: once a later
    # game is committed, any game of the batch the pool had handed over would be too.
    assert post_batch(app.test_client(), ndjson(valid(id="later"))).status_code == 200
    assert store_of(app).count("games") == 5


def test_an_error_line_lists_few_fields_and_cuts_what_the_line_invented(make_app):
    app = make_app()
    client = app.test_client()
    many = valid(id="many")
    many["deals"][0]["moves"] = [{"p": "ana", "a": "discard", "card": "1X"}] * 2000
    invented = valid(id="invented")
    invented["deals"][0]["k" * 100_000] = 1
    response = post_batch(client, ndjson(many, invented, valid(id="fine")))
    (bad, long, fine) = lines_of(response)
    assert len(response.data) < 4_000 and fine["created"]
    assert len(bad["error"]["errors"]) == 10
    assert "the first 10 of 2000 invalid fields are listed" in bad["error"]["detail"]
    assert long["error"]["errors"] == {"deals.0." + "k" * 112 + "...": ["Unknown field."]}


def test_the_openapi_document_states_when_a_batch_stops(shared_client):
    spec = shared_client.get(f"{API}/openapi.json").get_json()
    description = spec["paths"][f"{API}/games/batch"]["post"]["description"]
    assert "500th malformed line in a row" in description
    assert "1,000th in all" in description and "/problems/batch-stopped" in description


def test_an_empty_batch_says_it_holds_no_game(app, client):
    """An empty body, or one of blank lines, answers one error line saying so (at line
    1, or the last line read).  Nothing is stored."""
    empty = client.post(f"{API}/games/batch", data=b"", content_type="application/x-ndjson")
    assert empty.status_code == 200
    [line] = lines_of(empty)
    assert line["line"] == 1 and line["error"]["status"] == 422
    assert "no game" in line["error"]["detail"]
    blank = client.post(f"{API}/games/batch", data=b"\n \n\r\n",
                        content_type="application/x-ndjson")
    assert blank.status_code == 200
    [line] = lines_of(blank)
    assert line["line"] == 3 and line["error"]["status"] == 422
    assert "no game" in line["error"]["detail"]
    assert counts(app)["games"] == 0


def test_a_batch_line_of_a_deleted_game_is_refused_like_a_single_upload(app, client):
    log = valid(id="withdrawn")
    game_id = post_log(client, log).get_json()["id"]
    assert client.delete(f"{API}/games/{game_id}?reason=entered+twice").status_code == 200
    answer = lines_of(client.post(f"{API}/games/batch", data=ndjson(valid(id="fresh"), log),
                                  content_type="application/x-ndjson"))
    assert answer[0]["created"] is True
    assert answer[1]["error"]["status"] == 409
    assert answer[1]["error"]["type"] == "/problems/game-deleted"
    assert answer[1]["error"]["reason"] == "entered twice"
    assert client.get(f"{API}/games/{game_id}").status_code == 410


def test_answers_naming_other_games_are_never_acknowledged(make_app):
    """A part's answers must name its own lines' games (a game id is a function of the
    log): answers of other games, or too few, fail the part's lines instead of
    acknowledging them."""
    from service.api.batch import _check_answers
    from service.api.verifier import Entry, Part

    app = make_app()
    with app.app_context():
        good = Part([Entry(1, "a"), Entry(2, error={"status": 422}), Entry(3, "b")],
                    answers=[("a", True), ("b", False)])
        _check_answers(good)
        assert good.failure is None and good.answers == [("a", True), ("b", False)]
        for answers in ([("b", True), ("a", True)], [("a", True)], [("x", True), ("y", True)]):
            wrong = Part([Entry(1, "a"), Entry(3, "b")], answers=answers)
            _check_answers(wrong)
            assert wrong.failure is not None and wrong.answers is None


# --------------------------------------------------------------------------- replaces

DIRECTOR, KEY = "director", "write-key-1"
WITH_KEY = {"Authorization": f"Bearer {KEY}"}


def at_table(log: dict, table: str = "A") -> dict:
    return log | {"tournament": {"id": "cup", "round": 1, "table": table}}


def correction(old: str, log: dict, reason: str | None = "claims mistyped") -> dict:
    envelope = {"replaces": old, "log": log}
    if reason is not None:
        envelope["reason"] = reason
    return envelope


def by_seq(app) -> list[str]:
    [rows] = store_of(app).read_many([("SELECT id FROM games ORDER BY seq", [])])
    return [row[0] for row in rows.rows]


def withdrawn(client) -> list[tuple[str, str | None]]:
    return [(w["id"], w["replaced_by"]) for w in
            client.get(f"{API}/tournaments/cup/withdrawn").get_json()["withdrawn"]]


def test_a_batch_line_replaces_a_game_in_one_transaction(make_app):
    app = make_app(RUMMY_API_KEYS=f"{DIRECTOR}:{KEY}")
    client = app.test_client()
    old = post_log(client, at_table(mismatch()), headers=WITH_KEY).get_json()["id"]
    body = ndjson(at_table(valid(id="before"), "B"), correction(old, at_table(valid())),
                  at_table(valid(id="after"), "C"))
    results = lines_of(client.post(BATCH, data=body, content_type="application/x-ndjson",
                                   headers=WITH_KEY))
    assert [r["line"] for r in results] == [1, 2, 3]
    assert all("error" not in r for r in results), results
    line = results[1]
    new = line["id"]
    assert (line["status"], line["created"], line["tournament"]) == (
        "valid", True, {"id": "cup", "round": 1, "table": "A"})
    replaced = line.pop("replaced")
    assert (replaced["id"], replaced["deleted_by"], replaced["reason"]) == (
        old, DIRECTOR, "claims mistyped")
    assert replaced["deleted_at"].endswith("Z")
    assert replaced["links"] == {"self": f"{API}/games/{old}"}
    assert set(line) == set(results[0])  # otherwise the line of a stored game
    assert "replaced" not in results[0] and "replaced" not in results[2]

    gone = assert_problem(client.get(f"{API}/games/{old}", headers=WITH_KEY), 410,
                          "game-deleted")
    assert (gone["replaced_by"], gone["deleted_by"]) == (new, DIRECTOR)
    assert withdrawn(client) == [(old, new)]
    # Numbered in line order, with the request's one upload time.
    assert by_seq(app) == [old, results[0]["id"], new, results[2]["id"]]
    times = {client.get(f"{API}/games/{r['id']}").get_json()["uploaded_at"] for r in results}
    assert len(times) == 1
    # Its log is the envelope's log (compact JSON), which is the game's id.
    assert orjson.loads(client.get(f"{API}/games/{new}/log").data) == at_table(valid())
    assert new == post_log(client, at_table(valid()), "?dry_run=true",
                           headers=WITH_KEY).get_json()["id"]
    # Writes need the write key, envelopes too.
    assert_problem(post_batch(client, ndjson(correction(new, at_table(valid(id="x"))))), 401,
                   "unauthorized")


def test_a_batch_correction_that_cannot_be_done_leaves_the_old_game_live(app, client):
    old = post_log(client, at_table(valid())).get_json()["id"]
    dead = post_log(client, at_table(valid(id="dead"), "B")).get_json()["id"]
    assert client.delete(f"{API}/games/{dead}?reason=twice").status_code == 200
    corrected = at_table(valid(id="corrected"))
    new = post_log(client, corrected, "?dry_run=true").get_json()["id"]
    bad_log = at_table(malformed())
    body = ndjson(correction(old, bad_log),                          # 1: an invalid log
                  correction(old, corrected, reason=None),           # 2: no reason
                  correction(old, corrected, reason="   "),          # 3: a blank reason
                  correction("nosuchgame", corrected),               # 4: unknown game
                  correction(dead, corrected),                       # 5: withdrawn before
                  correction(old, at_table(valid())),                # 6: the same log
                  correction(old, at_table(valid(id="dead"), "B")),  # 7: a deleted game's log
                  correction(old, corrected) | {"by": "me"},         # 8: an unknown field
                  {"replaces": old, "reason": "r", "log": [1]},      # 9: a log that is none
                  correction(7, corrected))                          # 10: an id that is none
    results = lines_of(post_batch(client, body))
    errors = {r["line"]: r["error"] for r in results}
    assert sorted(errors) == list(range(1, 11)), results
    assert errors[1]["status"] == 422
    assert errors[1]["errors"]["log.deals.0.moevs"] == ["Unknown field."]
    for line, field in ((2, "reason"), (3, "reason"), (8, "by"), (9, "log"), (10, "replaces")):
        assert errors[line]["type"] == "/problems/validation-error", line
        assert list(errors[line]["errors"]) == [field], (line, errors[line])
    assert (errors[4]["status"], errors[4]["type"]) == (404, "/problems/not-found")
    assert (errors[5]["status"], errors[5]["type"]) == (409, "/problems/game-deleted")
    assert errors[5]["reason"] == "twice"
    assert (errors[6]["status"], errors[6]["type"]) == (409, "/problems/replaces-itself")
    assert (errors[7]["status"], errors[7]["type"]) == (409, "/problems/game-deleted")
    # Nothing was withdrawn, and the corrected log was not stored.
    assert client.get(f"{API}/games/{old}").status_code == 200
    assert withdrawn(client) == [(dead, None)]
    assert_problem(client.get(f"{API}/games/{new}"), 404, "not-found")
    assert counts(app)["games"] == 2


def test_a_batch_line_may_correct_a_game_stored_by_a_line_before_it(app, client):
    first = at_table(mismatch())
    first_id = post_log(client, first, "?dry_run=true").get_json()["id"]
    results = lines_of(post_batch(client, ndjson(
        first, correction(first_id, at_table(valid())),
        correction(first_id, at_table(valid(id="too-late"))))))
    assert results[0]["id"] == first_id and results[0]["created"] is True
    assert results[1]["replaced"]["id"] == first_id
    assert results[2]["error"]["type"] == "/problems/game-deleted"  # replaced by line 2
    assert withdrawn(client) == [(first_id, results[1]["id"])]
    assert by_seq(app) == [first_id, results[1]["id"]]


def test_corrections_in_a_pool_of_processes_keep_the_line_order(make_app):
    """With a pool (and, as shipped, a store process the pool stages games in), a chunk
    holding a correction is stored in line order all the same: the staged parts, the
    rows handed back and the replacements, each game numbered as its line is."""
    app = make_app(RUMMY_VERIFY_PROCESSES=2, RUMMY_BATCH_CHUNK=4)
    client = app.test_client()
    olds = [post_log(client, at_table(mismatch(id=f"old-{k}"), f"T{k}")).get_json()["id"]
            for k in range(2)]
    logs = [at_table(valid(id=f"p{k}"), f"P{k}") for k in range(9)]
    logs.insert(2, correction(olds[0], at_table(valid(id="old-0"), "T0")))
    logs.insert(7, correction(olds[1], at_table(valid(id="old-1"), "T1")))
    logs.append(correction("nosuchgame", at_table(valid(id="never"))))
    results = lines_of(post_batch(client, ndjson(*logs)))
    assert [r["line"] for r in results] == list(range(1, 13))
    assert [r.get("replaced", {}).get("id") for r in results] == [
        None, None, olds[0], None, None, None, None, olds[1], None, None, None, None]
    assert results[11]["error"]["status"] == 404
    assert all(r["created"] for r in results[:11])
    assert by_seq(app) == olds + [r["id"] for r in results[:11]]
    assert withdrawn(client) == [(olds[0], results[2]["id"]), (olds[1], results[7]["id"])]


def test_an_envelope_whose_key_is_written_with_escapes_is_one_all_the_same(app, client):
    """JSON may spell a key with escapes: "\\u0072eplaces" is "replaces"."""
    old = post_log(client, at_table(mismatch())).get_json()["id"]
    line = orjson.dumps(correction(old, at_table(valid()))).replace(
        b'"replaces"', b'"\\u0072eplaces"')
    [result] = lines_of(post_batch(client, line + b"\n"))
    assert result["replaced"]["id"] == old, result
    assert withdrawn(client) == [(old, result["id"])]


def test_a_batch_correction_for_another_table_needs_relocate(app, client):
    """As the single upload: a correction naming another table is refused on its line
    (409 replacement-elsewhere, the old game live) unless the line says relocate."""
    old = post_log(client, at_table(valid())).get_json()["id"]
    moved = at_table(valid(id="moved"), "B")
    results = lines_of(post_batch(client, ndjson(correction(old, moved),
                                                 correction(old, moved) | {"relocate": 1})))
    assert results[0]["error"]["type"].endswith("/replacement-elsewhere")
    assert results[0]["error"]["differs"] == ["table"]
    assert results[1]["error"]["status"] == 422 and "relocate" in results[1]["error"]["errors"]
    assert withdrawn(client) == []
    [line] = lines_of(post_batch(client, ndjson(correction(old, moved) | {"relocate": True})))
    assert line["replaced"]["id"] == old and withdrawn(client) == [(old, line["id"])]

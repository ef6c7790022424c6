"""The analysis tables: their row types are the migrated tables, the catch-up fills them
with what ``analyse`` finds, and honest generated players stay below the integrity
screen's stated threshold."""

from __future__ import annotations

import time
import typing
from datetime import UTC, datetime

import orjson
import pytest

from service.analysis.decisions import accuracy_of, game_decisions
from service.analysis.facts import KINDS, analyse
from service.analysis.luck import analyse_luck
from service.engine import parse_game, verify
from service.generator import generate_games
from service.store import Store, build_record
from service.store import analysis as analysis_module
from service.store.analysis import (
    BUSY_SHARE,
    QUIET,
    CatchUp,
    analysis_record,
    backlog,
    game_facts,
    integrity_pairs,
    player_analysis,
)
from service.store.rows import ANALYSIS_ROWS, columns, nullable
from service.store.stats import StatsFilter
from tests.test_rows import DUCKDB_TYPES, plain

THRESHOLD = 4  # docs/ANALYSIS.md, "Integrity screen"


def filled(path, collude=None):
    """A store of 100 generated gin games to 50 among four players, two at a table: each
    ordered pair meets in about 17 games; ``collude``: a colluding pair plays in them."""
    store = Store(path)
    logs = list(generate_games("gin", 100, seed=21, players=2, names=["p0", "p1", "p2", "p3"],
                               rules={"target": 50}, collude=collude))
    records = []
    for log in logs:
        game = parse_game(log)
        records.append(build_record(log, orjson.dumps(log), game, verify(game)))
    store.add_games(records)
    return store, logs, records


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = filled(tmp_path_factory.mktemp("analysis") / "db.duckdb")
    yield store
    store[0].close()


@pytest.mark.parametrize("table", ANALYSIS_ROWS)
def test_each_row_type_is_its_table(store, table):
    with store[0].cursor() as cur:
        rows = cur.execute(f"DESCRIBE {table}").fetchall()
    hints = typing.get_type_hints(ANALYSIS_ROWS[table])
    assert [r[0] for r in rows] == list(ANALYSIS_ROWS[table]._fields)
    for name, kind, null, *_ in rows:
        assert kind in DUCKDB_TYPES[plain(hints[name])], (table, name, kind)
        assert (null == "YES") is nullable(table)[name], (table, name, null)
    assert [name for name, _ in columns(table)] == list(ANALYSIS_ROWS[table]._fields)


def test_the_catch_up_stores_what_the_analysis_finds(store):
    db, logs, records = store
    assert backlog(db) == len(logs)
    catchup = CatchUp(db, processes=0)  # in this thread: the worker has its API tests
    catchup.step_all()
    assert backlog(db) == 0 and catchup.counts()["analysed"] == len(logs)
    for log, record in list(zip(logs, records, strict=True))[:5]:
        expected = [f.to_dict() for f in analyse(parse_game(log)).facts]
        assert game_facts(db, record.id) == expected


def test_honest_players_stay_below_the_threshold(store):
    db = store[0]
    pairs = integrity_pairs(db, "gin", 10, 100)
    assert len(pairs) == 12  # every ordered pair of the four
    assert max(pair["score"] for pair in pairs) < THRESHOLD, pairs[0]


def test_a_colluding_pair_is_ranked_first(tmp_path):
    # The generator's colluding pair: p2 discards what p3 takes, and never knocks
    # against p3.  The same seeded games as the honest store above.
    db, _, _ = filled(tmp_path / "db.duckdb", collude=("p2", "p3"))
    try:
        CatchUp(db, processes=0).step_all()
        pairs = integrity_pairs(db, "gin", 10, 100)
    finally:
        db.close()
    first = pairs[0]
    assert (first["player"], first["partner"]) == ("p2", "p3"), pairs[:3]
    assert first["score"] >= THRESHOLD
    assert first["fed"]["rate"] > 1.5 * first["fed"]["rest_rate"]
    assert all(pair["score"] < THRESHOLD for pair in pairs[1:]), pairs[1]


def test_each_player_s_luck_is_stored_with_the_tallies(store):
    # After the catch-up above: per player, the stored luck sums are those of
    # analyse_luck over the player's games (each row's rounded to 0.0001 point).
    db, logs, _ = store
    CatchUp(db, processes=0).step_all()
    want: dict[str, list[float]] = {}
    for log in logs:
        luck = analyse_luck(parse_game(log))
        for player, scored in luck.scored.items():
            got = want.setdefault(player, [0, 0.0, 0.0])
            got[0] += scored
            got[1] += luck.luck[player]
            got[2] += luck.adjusted[player]
    with db.cursor() as cur:
        rows = cur.execute("SELECT player, sum(luck_deals), sum(luck_e4), sum(adjusted_e4), "
                           "count(*) FILTER (WHERE luck_e4 IS NULL) FROM analysis_players "
                           "GROUP BY player ORDER BY player").fetchall()
    assert [r[0] for r in rows] == sorted(want)
    for player, deals, luck_e4, adjusted_e4, missing in rows:
        assert missing == 0
        assert deals == want[player][0]
        assert luck_e4 / 1e4 == pytest.approx(want[player][1], abs=1e-4 * len(logs))
        assert adjusted_e4 / 1e4 == pytest.approx(want[player][2], abs=1e-4 * len(logs))


def test_an_analysis_stored_before_luck_is_redone(store):
    # An analysis of version 1 (before migration 7) has no luck: it is in the backlog,
    # its null luck left out of the player's figures, and the catch-up redoes it.
    db, logs, records = store
    CatchUp(db, processes=0).step_all()
    old = [analysis_record(r.id, parse_game(log), verify(parse_game(log)), None,
                           datetime(2024, 5, 1, tzinfo=UTC)) for log, r in
           list(zip(logs, records, strict=True))[:3]]
    for record in old:
        record.analysis_games = (*record.analysis_games[:2], 1, record.analysis_games[3])
        record.analysis_players = [(*row[:-6], None, None, None, None, None, None)
                                   for row in record.analysis_players]
    db.add_analyses(old)
    assert backlog(db) == 3
    player = old[0].analysis_players[0][1]
    before = player_analysis(db, player, StatsFilter(variant="gin"))["gin"]
    assert CatchUp(db, processes=0).step_all() == 3 and backlog(db) == 0
    after = player_analysis(db, player, StatsFilter(variant="gin"))["gin"]
    assert before["decisions"] == after["decisions"]
    assert before["luck_deals"] < after["luck_deals"]
    with db.cursor() as cur:
        assert cur.execute("SELECT count(*) FROM analysis_players WHERE luck_e4 IS NULL"
                           ).fetchone()[0] == 0


def rummy_filled(path, collude):
    """40 generated two-player Rummy games to 100 among four players (each ordered pair
    meets in 6 to 8 games), the colluding pair playing in them, analysed."""
    db = Store(path)
    records = []
    for log in generate_games("rummy", 40, seed=21, players=2,
                              names=["p0", "p1", "p2", "p3"], rules={"target": 100},
                              collude=collude):
        game = parse_game(log)
        records.append(build_record(log, orjson.dumps(log), game, verify(game)))
    db.add_games(records)
    CatchUp(db, processes=0).step_all()
    return db


def test_a_colluding_rummy_pair_is_ranked_first(tmp_path):
    # The Rummy feeder p2 discards what p3 takes and, while p3 holds more than three
    # cards, does not go out: both its fed cards and its missed outs facing p3 stand out
    # (measured: score 8.9, 28% of its decisions feeding p3 against 14% to the others,
    # 12 missed outs facing p3 and none facing the others; the next pair 1.5).
    db = rummy_filled(tmp_path / "db.duckdb", ("p2", "p3"))
    try:
        pairs = integrity_pairs(db, "rummy", 6, 100)
    finally:
        db.close()
    first = pairs[0]
    assert (first["player"], first["partner"]) == ("p2", "p3"), pairs[:3]
    assert first["score"] >= THRESHOLD
    assert first["fed"]["rate"] > 1.5 * first["fed"]["rest_rate"]
    assert first["soft"]["count"] > 0 and first["soft"]["rate"] > first["soft"]["rest_rate"]
    assert all(pair["score"] < THRESHOLD for pair in pairs[1:]), pairs[1]


def test_the_catch_up_gives_way_while_games_wait_for_the_writer(tmp_path):
    """While ``deep`` games or more wait for the store's writer the catch-up takes no
    step; once they are committed it analyses what waits."""
    def record(log):
        game = parse_game(log)
        return build_record(log, orjson.dumps(log), game, verify(game))

    db = Store(tmp_path / "way.duckdb")
    try:
        logs = list(generate_games("gin", 3, seed=3, players=2))
        db.add_games([record(log) for log in logs[:2]])
        catchup = CatchUp(db, processes=0, deep=1)
        with db._write_lock:  # the writer cannot commit: the next game waits for it
            waiting = db.put([record(logs[2])])
            assert db.queued_games == 1
            assert catchup.tick() is None and catchup.counts()["paused"] == 1
            assert backlog(db) == 2
        waiting.result(30)
        assert db.queued_games == 0
        assert catchup.tick() == 3 and backlog(db) == 0
    finally:
        db.close()


def test_the_catch_up_takes_a_share_of_the_time_while_games_are_written(tmp_path):
    """Right after games are written a step is followed by a rest nine times as long
    (a tenth of the time); with no game written for ``QUIET`` seconds, by none."""
    db = Store(tmp_path / "share.duckdb")
    try:
        catchup = CatchUp(db, processes=0)
        assert catchup.rest_after(0.2) == 0.0  # nothing written since the store opened
        game = next(iter(generate_games("gin", 1, seed=4, players=2)))
        db.submit([build_record(game, orjson.dumps(game), parse_game(game),
                                verify(parse_game(game)))])
        assert catchup.rest_after(0.2) == pytest.approx(0.2 * (1 / BUSY_SHARE - 1))
        db.last_active -= QUIET  # as if the write were QUIET seconds old
        assert catchup.rest_after(0.2) == 0.0
    finally:
        db.close()


def test_reads_through_the_store_process_count_as_use_and_probes_do_not(tmp_path):
    """A client's read answered by the store process makes the catch-up take its share
    of the time; a health probe or a metrics scrape does not."""
    from types import SimpleNamespace

    from service.store.remote import _call

    db = Store(tmp_path / "use.duckdb")
    try:
        catchup = CatchUp(db, processes=0)
        served = SimpleNamespace(store=db)
        _call(served, "check", ())
        _call(served, "counters", ())
        assert catchup.rest_after(0.1) == 0.0
        _call(served, "read", ([("SELECT 1", [])],))
        assert catchup.rest_after(0.1) == pytest.approx(0.1 * (1 / BUSY_SHARE - 1))
    finally:
        db.close()


def test_the_integrity_statement_counts_in_words():
    """One game, one card, no other opponent: said as such (it read "In 1 games ... 1
    cards ... against no other opponent to other players")."""
    from service.store.analysis import statement

    alone = statement("ana", "ben", 1, 4, 1, 0, 0, 1.5)
    assert alone.startswith("In 1 game, ana fed ben 1 card in 4 decisions (25.0%), and "
                            "ana met no other opponent to compare with; score 1.5.")
    many = statement("ana", "ben", 3, 40, 10, 2, 20, 2.0)
    assert many.startswith("In 3 games, ana fed ben 10 cards in 40 decisions (25.0%), "
                           "against 10.0% to other players; score 2.0.")


def test_a_players_summary_line_counts_in_words():
    from service.analysis.text import summary_line

    figures = {"decisions": 1, "accuracy": 0.0, "average_discard_error": 3.0,
               "errors": {"discard_error": 1}, "fed_given": 0, "fed_received": 0}
    line = summary_line("ana", figures | {"errors": {k: 0 for k in KINDS} | {"discard_error": 1}})
    assert line.startswith("ana: 1 decision, accuracy 0.0%") and "1 discard error;" in line
    figures = figures | {"decisions": 15, "errors": {k: 0 for k in KINDS} | {"discard_error": 15}}
    assert "15 discard errors;" in summary_line("ana", figures)


def _stored(path, games: int) -> tuple[Store, list[dict]]:
    db = Store(path)
    logs = list(generate_games("gin", games, seed=41, players=2, rules={"target": 50}))
    records = []
    for log in logs:
        game = parse_game(log)
        records.append(build_record(log, orjson.dumps(log), game, verify(game)))
    db.add_games(records)
    return db, logs


def test_the_idle_catch_up_analyses_on_every_worker_and_the_busy_one_on_one(tmp_path,
                                                                           monkeypatch):
    """Idle (nothing written or read for ``QUIET`` seconds), a step hands ``BATCH`` games
    to each of its worker processes, which analyse them side by side; in use, ``BATCH``
    games to one worker.  Real worker processes, real rows."""
    monkeypatch.setattr(analysis_module, "BATCH", 3)
    db, logs = _stored(tmp_path / "idle.duckdb", 14)
    catchup = CatchUp(db, processes=2)
    try:
        db.last_active -= QUIET  # idle
        assert catchup.step() == 6 and len(catchup._pool) == 2
        assert backlog(db) == 8 and catchup.counts()["analysed"] == 6
        db.last_active = time.monotonic()  # in use
        assert catchup.step() == 3
        assert backlog(db) == 5
        db.last_active -= QUIET
        assert catchup.step_all() == 5 and backlog(db) == 0
        with db.cursor() as cur:
            stored = dict(cur.execute("SELECT g.id, count(f.game_id) FROM games g LEFT JOIN "
                                      "analysis_facts f ON f.game_id = g.id GROUP BY g.id "
                                      "ORDER BY min(g.seq)").fetchall())
        expected = [len(analyse(parse_game(log)).facts) for log in logs]
        assert list(stored.values()) == expected
    finally:
        catchup.close()
        db.close()


def test_a_worker_that_died_is_replaced_and_its_games_analysed_again(tmp_path, monkeypatch):
    """One of two workers killed between steps: the next step fails (logged; the other
    worker's answer read, not left in its pipe), the one after starts a new worker and
    analyses the same games."""
    monkeypatch.setattr(analysis_module, "BATCH", 2)
    db, logs = _stored(tmp_path / "dead.duckdb", 8)
    catchup = CatchUp(db, processes=2)
    try:
        db.last_active -= QUIET
        assert catchup.step() == 4 and backlog(db) == 4
        dead = catchup._pool[0].process
        dead.kill()
        dead.wait(30)
        with pytest.raises((OSError, EOFError)):
            catchup.step()
        assert len(catchup._pool) == 1 and backlog(db) == 4
        assert catchup.step() == 4 and backlog(db) == 0
        assert len(catchup._pool) == 2 and catchup._pool[1].process.pid != dead.pid
        assert catchup.counts()["analysed"] == 8 and catchup.counts()["failed"] == 0
        with db.cursor() as cur:
            assert cur.execute("SELECT count(DISTINCT game_id) FROM analysis_games"
                               ).fetchone()[0] == 8
    finally:
        catchup.close()
        db.close()


def test_the_backlog_counted_a_moment_ago_grows_with_the_games_stored(tmp_path):
    """The backlog is counted at most once a second; games stored meanwhile are added to
    it at once (a page right after an upload said that nothing was waiting)."""
    from tests.test_store import record

    fresh = Store(str(tmp_path / "db.duckdb"))
    try:
        assert fresh.analysis_health()["backlog"] == 0  # counted now, kept for a second
        fresh.add_games([record(id="one"), record(id="two")])
        assert fresh.analysis_health()["backlog"] == 2
    finally:
        fresh.close()


def test_each_player_s_decision_loss_is_stored_exactly(store):
    """After the catch-up: per player, the stored decision loss gives the figures worked
    out by hand from ``game_decisions`` over the player's games (each decision's loss
    and accuracy rounded to 0.000001, summed, then averaged); over one game and over a
    filter of some games too."""
    db, logs, records = store
    CatchUp(db, processes=0).step_all()
    mine: dict[str, list[tuple[str, float]]] = {}
    for log, record in zip(logs, records, strict=True):
        for x in game_decisions(parse_game(log)):
            mine.setdefault(x.player, []).append((record.id, x.loss))

    def by_hand(found: list[float]) -> dict:
        n = len(found)
        loss = sum(round(x * 1_000_000) for x in found)
        accuracy = sum(round(accuracy_of(x) * 1_000_000) for x in found)
        return {"decisions": n, "average_loss": round(loss / n / 1_000_000, 4),
                "accuracy": round(accuracy / n / 1_000_000, 2)}

    assert sorted(mine) == ["p0", "p1", "p2", "p3"]
    for player, found in mine.items():
        got = player_analysis(db, player, StatsFilter(variant="gin"))["gin"]
        assert got["decision_loss"] == by_hand([x for _, x in found])
        assert got["decision_loss"]["decisions"] > 500
        assert 0 < got["decision_loss"]["accuracy"] < 100
    with db.cursor() as cur:
        rows = cur.execute("SELECT game_id, player, judged, loss_e6, accuracy_e6 FROM "
                           "analysis_players WHERE game_id = ?", [records[0].id]).fetchall()
    for gid, player, judged, loss_e6, accuracy_e6 in rows:
        found = [x for g, x in mine[player] if g == gid]
        assert judged == len(found) > 0
        assert loss_e6 == sum(round(x * 1_000_000) for x in found)
        assert accuracy_e6 == sum(round(accuracy_of(x) * 1_000_000) for x in found)


def test_other_families_store_no_decision_loss(tmp_path):
    db = Store(tmp_path / "db.duckdb")
    try:
        logs = list(generate_games("rummy", 2, seed=3, players=3))
        db.add_games([build_record(log, orjson.dumps(log), parse_game(log),
                                   verify(parse_game(log))) for log in logs])
        CatchUp(db, processes=0).step_all()
        with db.cursor() as cur:
            assert cur.execute("SELECT DISTINCT judged, loss_e6, accuracy_e6 FROM "
                               "analysis_players").fetchall() == [(0, 0, 0)]
        player = logs[0]["players"][0]
        name = player if isinstance(player, str) else player["name"]
        assert player_analysis(db, name, StatsFilter())["rummy"]["decision_loss"] is None
    finally:
        db.close()


def test_migration_10_adds_the_decision_loss_and_the_catch_up_fills_it(tmp_path):
    """A store made before migration 10 (its analyses of version 5): opened, it gains
    the three columns, null in the old rows; the old analyses are in the backlog and the
    catch-up redoes them with the decision loss."""
    import duckdb

    from service.store.migrations import BOOKKEEPING, MIGRATIONS
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute(BOOKKEEPING)
    for version, description, sql in MIGRATIONS:
        if version < 10:
            con.execute(sql)
            con.execute("INSERT INTO schema_migrations (version, description) VALUES (?, ?)",
                        [version, description])
    con.close()
    db = Store(path)
    try:
        log = next(iter(generate_games("gin", 1, seed=5, players=2)))
        game = parse_game(log)
        record = build_record(log, orjson.dumps(log), game, verify(game))
        db.add_games([record])
        # The rows of version 5, as the old code stored them: no decision loss.
        old = analysis_record(record.id, game, verify(game), None,
                              datetime(2024, 5, 1, tzinfo=UTC))
        old.analysis_games = (*old.analysis_games[:2], 5, old.analysis_games[3])
        old.analysis_players = [(*row[:-3], None, None, None) for row in old.analysis_players]
        db.add_analyses([old])
        assert db.schema_version >= 10
        with db.cursor() as cur:
            assert cur.execute("SELECT count(*) FROM analysis_players WHERE judged IS NULL"
                               ).fetchone()[0] == 2
        assert backlog(db) == 1
        assert CatchUp(db, processes=0).step_all() == 1 and backlog(db) == 0
        with db.cursor() as cur:
            stored = cur.execute("SELECT sum(judged) FROM analysis_players").fetchone()[0]
        assert stored == len(game_decisions(game)) > 0
    finally:
        db.close()

"""The analysis tables: their row types are the migrated tables, the catch-up fills them
with what ``analyse`` finds, and honest generated players stay below the integrity
screen's stated threshold."""

from __future__ import annotations

import typing

import orjson
import pytest

from service.analysis.facts import analyse
from service.engine import parse_game, verify
from service.generator import generate_games
from service.store import Store, build_record
from service.store.analysis import CatchUp, backlog, game_facts, integrity_pairs
from service.store.rows import ANALYSIS_ROWS, columns, nullable
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

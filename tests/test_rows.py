"""The typed row of each table is its definition: the migrated tables have exactly its
columns, in its order, of its types and nullability; the records built from every
sample log fill it; the engine's report, not the store, says who ranks first."""

from __future__ import annotations

import dataclasses
import pickle
import types
import typing
from datetime import datetime
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa
import pytest

from service.engine import parse_game, verify
from service.store import Store, build_record, game_rows
from service.store.migrations import BOOKKEEPING, MIGRATIONS
from service.store.rows import ROWS, GamePlayerRow, GameRow, columns, nullable
from tests.engine.test_gin import KNOCK, gin_game

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
DUCKDB_TYPES = {str: {"VARCHAR", "JSON"}, int: {"BIGINT", "INTEGER", "SMALLINT"},
                bool: {"BOOLEAN"}, bytes: {"BLOB"}, datetime: {"TIMESTAMP WITH TIME ZONE"},
                list[str]: {"VARCHAR[]"}}


def plain(hint: object) -> object:
    if isinstance(hint, types.UnionType):
        (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return inner
    return hint


@pytest.fixture(scope="module")
def described(tmp_path_factory) -> dict[str, list[tuple]]:
    store = Store(tmp_path_factory.mktemp("rows") / "db.duckdb")
    try:
        with store.cursor() as cur:
            return {table: cur.execute(f"DESCRIBE {table}").fetchall() for table in ROWS}
    finally:
        store.close()


@pytest.mark.parametrize("table", ROWS)
def test_each_row_type_is_its_table(described, table):
    hints = typing.get_type_hints(ROWS[table])
    rows = described[table]
    assert [r[0] for r in rows] == list(ROWS[table]._fields)
    for name, kind, null, *_ in rows:
        assert kind in DUCKDB_TYPES[plain(hints[name])], (table, name, kind)
        assert (null == "YES") is nullable(table)[name], (table, name, null)
    assert [name for name, _ in columns(table)] == list(ROWS[table]._fields)


def sample_records():
    for path in sorted(SAMPLES.glob("*.json")):
        raw = path.read_bytes()
        document = orjson.loads(raw)
        game = parse_game(document)
        yield path.name, build_record(document, raw, game, verify(game))


def test_records_of_every_sample_fill_the_rows():
    for name, record in sample_records():
        for table, row_type in ROWS.items():
            rows = [record.games] if table == "games" else getattr(record, table)
            hints = typing.get_type_hints(row_type)
            for row in rows:
                assert len(row) == len(row_type._fields), (name, table)
                for field, value in zip(row_type._fields, row, strict=True):
                    if value is None:
                        assert nullable(table)[field], (name, table, field)
                    else:
                        kind = plain(hints[field])
                        kind = typing.get_origin(kind) or kind  # list[str]: a list
                        assert isinstance(value, kind), (name, table, field)


def test_sides_lower_wins_and_shutouts_come_from_the_engine():
    for name, record in sample_records():
        game = GameRow(*record.games)
        report = orjson.loads(game.report)
        assert game.lower_wins is (orjson.loads(game.rules).get("scoring") == "penalty"), name
        players = [GamePlayerRow(*row) for row in record.game_players]
        teams = {p.team for p in players}
        assert (teams != {None}) is ("teams" in report["totals"]), name
    teams = dict(sample_records())["gin-4p-teams.json"]
    labels = {GamePlayerRow(*row).team for row in teams.game_players}
    assert len(labels) == 2 and all("+" in label for label in labels)


def test_an_older_file_gets_lower_wins_from_its_rules(tmp_path):
    """Migration 4 on a file of migrations 1-3: penalty-scored games rank low first."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute(BOOKKEEPING)
    for version, description, sql in MIGRATIONS[:3]:
        con.execute(sql)
        con.execute("INSERT INTO schema_migrations (version, description) VALUES (?, ?)",
                    [version, description])
    for gid, rules in (("greek", '{"scoring": "penalty"}'), ("gin", '{"target": 100}')):
        con.execute("INSERT INTO games (id, seq, uploaded_at, variant, status, n_players, "
                    "n_deals, n_moves, players, game_time, finished, rules, report, log) "
                    "VALUES (?, 1, now(), 'x', 'valid', 2, 1, 0, ['a', 'b'], now(), true, ?, "
                    "'{}', 'x'::BLOB)", [gid, rules])
    con.close()
    store = Store(path)
    try:
        with store.cursor() as cur:
            got = dict(cur.execute("SELECT id, lower_wins FROM games").fetchall())
        assert got == {"greek": True, "gin": False}
        assert store.schema_version == MIGRATIONS[-1][0]
    finally:
        store.close()


def test_the_moves_of_a_knock_row_by_row():
    """A record's moves, as tuples (the appenders') and as an Arrow table (game_rows),
    are the log's moves: a draw with its pile and card, a knock with its discard and
    melds."""
    document = gin_game(KNOCK)
    game = parse_game(document)
    record = build_record(document, orjson.dumps(document), game, verify(game))
    expected = [(record.id, 0, 0, "ana", "draw", "stock", "AH", None, None),
                (record.id, 0, 1, "ana", "knock", None, "KS",
                 "2C 3C 4C | 5D 5H 5S | 9H 9D 9S", None)]
    assert record.moves == expected
    table = game_rows([record]).tables["moves"]
    assert [tuple(row.values()) for row in table.to_pylist()] == expected


def test_the_moves_table_holds_the_rows_of_its_records():
    """Every sample, the same log twice (its draws and discards are the same objects),
    and a game whose first deal has no moves: the table built column-wise is the
    records' rows, in order."""
    named = list(sample_records())
    records = [record for _, record in named]
    records.append(dict(sample_records())[named[0][0]])  # the first log, parsed again
    empty_first = dataclasses.replace(records[0], deal_moves=[(), *records[0].deal_moves])
    records.append(empty_first)
    assert empty_first.moves[0][1] == 1  # its moves are numbered from deal 1
    schema = pa.schema(columns("moves"))
    rows = [dict(zip(schema.names, row, strict=True)) for r in records for row in r.moves]
    assert game_rows(records).tables["moves"].equals(pa.Table.from_pylist(rows, schema=schema))
    assert game_rows(records).counts["moves"] == [len(r.moves) for r in records]
    assert game_rows([]).tables["moves"].num_rows == 0


def test_a_pickled_record_carries_plain_columns_and_the_same_rows():
    """A record crossing to another process (a single upload, to the store's) pickles
    its moves as their columns, not the engine's move objects, and gives the same rows,
    alone or with records that were not pickled."""
    records = [record for _, record in sample_records()]
    back = pickle.loads(pickle.dumps(records))
    assert all(type(c) is tuple for r in back for deal in r.deal_moves for c in deal)
    assert [r.moves for r in back] == [r.moves for r in records]
    mixed = game_rows([*back[:3], *records[3:]]).tables
    assert all(mixed[name].equals(table) for name, table in game_rows(records).tables.items())

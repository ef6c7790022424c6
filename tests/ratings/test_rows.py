"""The row types of the ratings tables are their definition, as for the game tables."""

from __future__ import annotations

import typing

import pytest

from service.store import Store
from service.store.rows import RATING_ROWS, nullable

DUCKDB = {str: "VARCHAR", int: {"BIGINT", "INTEGER", "SMALLINT"}, float: "DOUBLE",
          typing.Any: None}


@pytest.mark.parametrize("table", RATING_ROWS)
def test_each_rating_row_type_is_its_table(tmp_path, table):
    store = Store(tmp_path / "db.duckdb")
    try:
        with store.cursor() as cur:
            described = cur.execute(f"DESCRIBE {table}").fetchall()
    finally:
        store.close()
    hints = typing.get_type_hints(RATING_ROWS[table])
    assert [row[0] for row in described] == list(RATING_ROWS[table]._fields)
    for name, kind, null, *_ in described:
        expected = {"datetime": {"TIMESTAMP WITH TIME ZONE"}}.get(hints[name].__name__) \
            or DUCKDB[hints[name]]
        assert kind in (expected if isinstance(expected, set) else {expected}), (name, kind)
        if table != "ratings":  # a view: DuckDB says every column of it may be null
            assert (null == "YES") is nullable(table)[name]

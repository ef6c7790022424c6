"""The snapshots the pages of a leaderboard walk read (service.store.snapshots), on a real
DuckDB file: a kept snapshot sees the database as its first page did, whatever was
committed or checkpointed since; snapshots expire, are bounded in number, and a page
whose snapshot is gone reads a new one."""

from __future__ import annotations

import duckdb
import pytest

from service.store import snapshots
from service.store.snapshots import Snapshots

ALL = "SELECT a FROM t ORDER BY a"


@pytest.fixture
def con(tmp_path):
    con = duckdb.connect(str(tmp_path / "pages.duckdb"))
    con.execute("CREATE TABLE t (a INTEGER)")
    con.execute("INSERT INTO t SELECT range FROM range(10)")
    yield con
    con.close()


def values(rows: list[tuple]) -> list[int]:
    return [row[0] for row in rows]


def test_a_kept_snapshot_sees_its_first_moment(con):
    kept = Snapshots(con.cursor)
    name, columns, rows = kept.page(ALL, [], None, more_than=3)
    assert name is not None and columns == ("a",) and values(rows) == list(range(10))
    con.execute("DELETE FROM t WHERE a < 5")
    con.execute("INSERT INTO t SELECT range + 100 FROM range(5)")
    con.execute("CHECKPOINT")
    again, _, rows = kept.page(ALL, [], name, more_than=3)
    assert again == name and values(rows) == list(range(10))
    # A new walk sees the database as it is now.
    other, _, rows = kept.page(ALL, [], None, more_than=3)
    assert other not in (None, name) and values(rows) == [*range(5, 10), *range(100, 105)]
    kept.close()
    assert len(kept) == 0


def test_a_last_page_keeps_no_snapshot(con):
    kept = Snapshots(con.cursor)
    name, _, rows = kept.page(ALL, [], None, more_than=10)
    assert name is None and len(rows) == 10 and len(kept) == 0


def test_a_gone_snapshot_is_replaced_by_a_new_one(con, monkeypatch):
    kept = Snapshots(con.cursor)
    name, _, _ = kept.page(ALL, [], None, more_than=1)
    con.execute("INSERT INTO t VALUES (50)")
    unknown, _, rows = kept.page(ALL, [], "feedfacefeedfacefeedface", more_than=1)
    assert unknown not in (None, name) and 50 in values(rows)
    monkeypatch.setattr(snapshots, "IDLE", -1.0)  # every snapshot idle for too long
    expired, _, rows = kept.page(ALL, [], name, more_than=1)
    assert expired not in (None, name) and 50 in values(rows)
    assert len(kept) == 1  # the expired ones closed


def test_at_most_so_many_snapshots_the_least_recently_used_closed_first(con, monkeypatch):
    monkeypatch.setattr(snapshots, "MOST", 2)
    kept = Snapshots(con.cursor)
    first = kept.page(ALL, [], None, more_than=1)[0]
    second = kept.page(ALL, [], None, more_than=1)[0]
    assert kept.page(ALL, [], first, more_than=1)[0] == first  # used again: the newest
    third = kept.page(ALL, [], None, more_than=1)[0]
    assert len(kept) == 2
    con.execute("INSERT INTO t VALUES (77)")
    assert kept.page(ALL, [], first, more_than=1)[0] == first
    assert kept.page(ALL, [], third, more_than=1)[0] == third
    replaced, _, rows = kept.page(ALL, [], second, more_than=1)
    assert replaced not in (first, second, third) and 77 in values(rows)
    kept.close()


def test_a_failing_statement_closes_its_snapshot(con):
    kept = Snapshots(con.cursor)
    name, _, _ = kept.page(ALL, [], None, more_than=1)
    with pytest.raises(duckdb.Error):
        kept.page("SELECT nonexistent FROM t", [], name, more_than=1)
    assert len(kept) == 0

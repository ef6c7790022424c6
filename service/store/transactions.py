"""A transaction on a DuckDB cursor, for the store's writes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import duckdb


@contextmanager
def transaction(cur: Any) -> Iterator[Any]:
    """One transaction on ``cur``: committed when the block ends, rolled back (a rollback
    that fails too is ignored: the first error is the one to tell) when it raises."""
    cur.execute("BEGIN TRANSACTION")
    try:
        yield cur
        cur.execute("COMMIT")
    except BaseException:
        with suppress(duckdb.Error):
            cur.execute("ROLLBACK")
        raise

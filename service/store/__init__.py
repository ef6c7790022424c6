"""Storage: the DuckDB file, its migrations, and every SQL statement of the service."""

from .db import (
    Answer,
    GameFilter,
    GameRows,
    Store,
    StoreBusy,
    StoreError,
    StoreLocked,
    game_rows,
    joined,
)
from .records import GameRecord, build_record, game_id

__all__ = ["Answer", "GameFilter", "GameRecord", "GameRows", "Store", "StoreBusy",
           "StoreError", "StoreLocked", "build_record", "game_id", "game_rows", "joined"]

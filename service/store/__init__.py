"""Storage: the DuckDB file, its migrations, and every SQL statement of the service."""

from .db import (
    Answer,
    Cursor,
    GameFilter,
    GameRows,
    Reader,
    Replacement,
    Restoration,
    Store,
    StoreBusy,
    StoreError,
    StoreLocked,
    game_rows,
    joined,
)
from .records import GameRecord, build_record, game_id

__all__ = ["Answer", "Cursor", "GameFilter", "GameRecord", "GameRows", "Reader", "Replacement",
           "Restoration", "Store",
           "StoreBusy", "StoreError", "StoreLocked", "build_record", "game_id", "game_rows",
           "joined"]

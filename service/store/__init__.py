"""Storage: the DuckDB file, its migrations, and every SQL statement of the service."""

from .db import GameFilter, Store, StoreError, StoreLocked
from .records import GameRecord, build_record, game_id

__all__ = ["GameFilter", "GameRecord", "Store", "StoreError", "StoreLocked", "build_record",
           "game_id"]

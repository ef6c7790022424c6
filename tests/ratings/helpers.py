"""Games for the ratings tests: the sample logs, each copied with its own ``played_at``
(a copy is another game: the id is a hash of the log), and the ratings tables read back
in a comparable form."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from service.engine import parse_game, verify
from service.store import GameRecord, Store, build_record

SAMPLES = Path(__file__).resolve().parent.parent.parent / "sample_logs"
COUNTED = ("gin-01", "gin-02", "gin-3p", "gin-4p-teams", "greek-01", "greek-02",
           "mismatch-gin-deal-points", "mismatch-rummy-pagat-claimed-total", "rummy-01",
           "rummy-02", "rummy-block-01", "rummy-block-02", "rummy-pagat-01", "rummy-pagat-02")
NOT_COUNTED = ("illegal-gin-discard-of-taken-card", "illegal-greek-invalid-meld",
               "illegal-rummy-not-your-turn", "incomplete-rummy-block")
START = datetime(2024, 1, 1, tzinfo=UTC)


def sample(name: str) -> dict[str, Any]:
    return orjson.loads((SAMPLES / f"{name}.json").read_bytes())


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).isoformat().replace("+00:00", "Z")


def dated(log: dict[str, Any], hours: float) -> dict[str, Any]:
    return log | {"played_at": at(hours)}


def corpus(copies: int = 2, seed: int = 7) -> list[dict[str, Any]]:
    """Every counted sample ``copies`` times, each copy played at its own hour (distinct
    times, in an order drawn by ``seed``), in time order."""
    logs = [sample(name) for name in COUNTED for _ in range(copies)]
    hours = list(range(len(logs)))
    random.Random(seed).shuffle(hours)
    return sorted((dated(log, 17 * h) for log, h in zip(logs, hours, strict=True)),
                  key=lambda log: log["played_at"])


def record(log: dict[str, Any]) -> GameRecord:
    raw = orjson.dumps(log)
    game = parse_game(log)
    return build_record(log, raw, game, verify(game))


def ratings_of(store: Store) -> list[tuple]:
    """The current ratings, once the store's catch-up rated every game committed."""
    store.catch_up_ratings()
    with store.cursor() as cur:
        return cur.execute("SELECT * FROM ratings ORDER BY variant, player").fetchall()


def history_of(store: Store, with_seq: bool = True) -> list[tuple]:
    """The history, in order; without the upload order (seq) when comparing stores
    filled in different orders."""
    store.catch_up_ratings()
    columns = "*" if with_seq else ("variant, game_id, game_time, player, rank, mu_before, "
                                    "sigma_before, mu, sigma, games")
    with store.cursor() as cur:
        return cur.execute(f"SELECT {columns} FROM rating_history "
                           "ORDER BY variant, game_time, game_id, player").fetchall()


def renamed(log: dict[str, Any], suffix: str) -> dict[str, Any]:
    """The same game between players whose names end in ``suffix`` (new players, for a
    test that needs them on a shared store)."""
    text = orjson.dumps(log).decode()
    for name in log["players"]:
        text = re.sub(rf'(?<=["+]){re.escape(name)}(?=["+])', name + suffix, text)
    return orjson.loads(text)

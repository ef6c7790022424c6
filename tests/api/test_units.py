"""Settings, cursors and problem bodies on their own."""

from __future__ import annotations

import pytest

from service.api.config import Settings
from service.api.pagination import decode_cursor, encode_cursor, fingerprint
from service.api.problems import Problem, flatten_messages


def test_settings_from_the_environment_and_overrides():
    env = {"RUMMY_DB": "elsewhere/x.duckdb", "RUMMY_API_KEYS": " a, b ,,", "RUMMY_PAGE_SIZE": "10",
           "RUMMY_MAX_GAME_BYTES": "2048"}
    settings = Settings.load({"RUMMY_PAGE_SIZE": 20}, environ=env)
    assert settings.db_path == "elsewhere/x.duckdb"
    assert [(k.name, k.key) for k in settings.api_keys] == [(None, "a"), (None, "b")]
    assert settings.page_size == 20 and settings.max_game_bytes == 2048
    assert settings.read_keys == () and settings.max_batch_bytes == 64 << 20
    defaults = Settings.load(environ={})
    assert defaults.db_path == "./data/rummy.duckdb"
    assert (defaults.page_size, defaults.max_page_size) == (50, 500)
    assert defaults.max_game_bytes == 1 << 20
    assert defaults.store_process is True
    assert (defaults.batch_max_bad_run, defaults.batch_max_bad_lines) == (500, 1000)
    # Above the lines of two chunks in flight: the pool stores a clean batch itself.
    assert defaults.batch_max_bad_run > 2 * defaults.batch_chunk
    assert Settings.load(environ={"RUMMY_BATCH_MAX_BAD_RUN": "5"}).batch_max_bad_run == 5
    assert Settings.load(environ={"RUMMY_STORE_PROCESS": "0"}).store_process is False


@pytest.mark.parametrize("env", [{"RUMMY_PAGE_SIZE": "ten"}, {"RUMMY_MAX_GAME_BYTES": "0"},
                                 {"RUMMY_PAGE_SIZE": "600"}, {"RUMMY_API_KEYS": "a b"},
                                 {"RUMMY_STORE_PROCESS": "maybe"},
                                 {"RUMMY_BATCH_MAX_BAD_LINES": "0"}])
def test_bad_settings_stop_the_start(env):
    with pytest.raises(ValueError, match="RUMMY_"):
        Settings.load(environ=env)


def test_cursor_round_trip_and_binding():
    filters = {"player": "ana", "status": None}
    cursor = encode_cursor(42, filters)
    assert "=" not in cursor and decode_cursor(cursor, filters) == 42
    assert decode_cursor(cursor, {"status": None, "player": "ana"}) == 42
    assert fingerprint({"a": 1, "b": None}) == fingerprint({"a": 1})
    with pytest.raises(Problem) as raised:
        decode_cursor(cursor, {"player": "ben"})
    assert raised.value.code == 400 and raised.value.kind == "invalid-cursor"


def test_flatten_messages_drops_locations():
    messages = {"query": {"limit": ["Too big."], "_schema": ["Bad."]},
                "json": {"deals": {"0": {"card": ["No card."]}}}}
    assert flatten_messages(messages) == {"limit": ["Too big."], "": ["Bad."],
                                          "deals.0.card": ["No card."]}

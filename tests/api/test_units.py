"""Settings, cursors and problem bodies on their own."""

from __future__ import annotations

import pytest
from flask import Flask

from service.api.config import EXTENSION, Settings
from service.api.pagination import Part, decode_key_cursor, encode_key_cursor, fingerprint
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


def _signing_app(secret: str) -> Flask:
    app = Flask(__name__)
    app.extensions[EXTENSION] = Settings.load({"RUMMY_LABEL_SECRET": secret}, environ={})
    return app


def test_cursor_round_trip_and_binding():
    filters = {"player": "ana", "status": None}
    with _signing_app("a-secret-of-this-test").app_context():
        cursor = encode_key_cursor("games", [42], filters)
        assert "=" not in cursor
        assert decode_key_cursor(cursor, "games", filters, (Part.COUNT,)).key == [42]
        assert decode_key_cursor(cursor, "games", {"status": None, "player": "ana"},
                                 (Part.COUNT,)).key == [42]
        assert fingerprint("games", {"a": 1, "b": None}) == fingerprint("games", {"a": 1})
        assert fingerprint("games", {"a": 1}) != fingerprint("players", {"a": 1})
        for listing, scope, shape in (("games", {"player": "ben"}, (Part.COUNT,)),
                                      ("players", filters, (Part.COUNT,)),
                                      ("games", filters, (Part.TEXT,)),
                                      ("games", filters, (Part.COUNT, Part.COUNT))):
            with pytest.raises(Problem) as raised:
                decode_key_cursor(cursor, listing, scope, shape)
            assert raised.value.code == 400 and raised.value.kind == "invalid-cursor"
        snapshot = encode_key_cursor("players", [1.5, "ana", 3], {}, "ab12")
        assert decode_key_cursor(snapshot, "players", {}, (Part.NUMBER, Part.TEXT, Part.COUNT)
                                 ).snapshot == "ab12"
    # Signed under another secret, the same cursor is not ours.
    with _signing_app("another-secret-of-this-test").app_context(), \
            pytest.raises(Problem) as raised:
        decode_key_cursor(cursor, "games", filters, (Part.COUNT,))
    assert raised.value.kind == "invalid-cursor"


def test_flatten_messages_drops_locations():
    messages = {"query": {"limit": ["Too big."], "_schema": ["Bad."]},
                "json": {"deals": {"0": {"card": ["No card."]}}}}
    assert flatten_messages(messages) == {"limit": ["Too big."], "": ["Bad."],
                                          "deals.0.card": ["No card."]}

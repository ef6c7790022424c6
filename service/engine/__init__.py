"""The rules engine: parse, replay and verify rummy-log/1 games.  No HTTP, no SQL.

    >>> from service.engine import verify_json
    >>> report = verify_json(open("sample_logs/gin-01.json", "rb").read())
    >>> report.status
    'valid'
"""

from .logformat import LogValidationError, game_from_json, load_json, parse_game
from .model import Deal, Game, Move
from .replay import verify
from .report import Report, Violation
from .rules import OPTIONS, PRESETS, Rules, resolve_rules


def verify_json(data: bytes | str) -> Report:
    """Parse a rummy-log/1 document and verify it; raises LogValidationError when the
    document does not have the log's shape."""
    return verify(game_from_json(data))


__all__ = ["Deal", "Game", "Move", "LogValidationError", "game_from_json", "load_json",
           "parse_game", "verify", "verify_json", "Report", "Violation", "OPTIONS",
           "PRESETS", "Rules", "resolve_rules"]

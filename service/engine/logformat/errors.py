"""How a document that is not a game is reported: every problem by its dotted path."""

from __future__ import annotations

from typing import Any

from .shape import FORMAT


class LogValidationError(ValueError):
    """The document is not a rummy-log/1 game: ``errors`` maps dotted paths to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        shown = "; ".join(f"{path[:100] or '(document)'}: {' '.join(msgs)}"
                          for path, msgs in list(errors.items())[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"invalid {FORMAT} log: {shown}{more}")


def whole(message: str) -> LogValidationError:
    return LogValidationError({"": [message]})


def show(value: Any) -> str:
    """A value as a message quotes it, short and never recursive."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 24 else repr(value[:24] + "...")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) or (isinstance(value, int) and value.bit_length() <= 64):
        return repr(value)
    if isinstance(value, int):
        return "a number too large"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def flatten(messages: Any, prefix: str, out: dict[str, list[str]]) -> None:
    """marshmallow's nested error dict as dotted paths; ``_schema`` is its parent's path."""
    if isinstance(messages, dict):
        for key, value in messages.items():
            path = prefix if key == "_schema" else f"{prefix}.{key}" if prefix else str(key)
            flatten(value, path, out)
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out.setdefault(prefix, []).extend(messages)
    elif isinstance(messages, list):
        for value in messages:
            flatten(value, prefix, out)
    else:
        out.setdefault(prefix, []).append(str(messages))

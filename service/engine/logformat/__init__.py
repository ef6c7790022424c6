"""Read and validate ``rummy-log/1`` documents and build the engine's model.

    >>> from service.engine.logformat import game_from_json
    >>> game = game_from_json(open("sample_logs/gin-01.json", "rb").read())
    >>> game.rules.family
    <Family.GIN: 'gin'>

A document of the wrong shape is a validation error (:class:`LogValidationError`): the
upload is rejected whole and every bad field is listed by its dotted path, e.g.
``deals.0.moves.12.card``; path ``""`` is the document as a whole.

One module per job:

* ``text``: the JSON text (size, nesting depth, keys repeated in an object);
* ``shape``: the format's name and the keys of each object and move action;
* ``fields`` and ``schemas``: the marshmallow schemas, the reference judge of a
  document's shape and the only one that words errors;
* ``names``: the rule of the names and ids (no control or invisible characters, no
  spaces around them), applied to new documents only;
* ``fast``: hand-written checks that build the game directly from valid documents and
  give up at the first problem, so that only invalid documents pay for the schemas;
* ``errors``: :class:`LogValidationError` and the dotted paths.

The ranges of the format's values (sizes, years, counts) are in ``service.engine.limits``,
which the rules share.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from ..limits import MAX_BYTES
from ..model import Game
from .errors import LogValidationError, flatten
from .fast import fast_parse_game
from .names import name_errors, name_problem
from .schemas import GAME_SCHEMA, GameSchema, schema_errors
from .shape import ACTION_FIELDS, FORMAT
from .text import load_json

__all__ = [
    "ACTION_FIELDS", "FORMAT", "GameSchema", "LogValidationError", "fast_parse_game",
    "game_from_json", "load_json", "name_errors", "name_problem", "parse_game",
    "parse_header", "schema_errors",
]


def parse_game(obj: Any, stored: bool = False) -> Game:
    """The game of a decoded rummy-log/1 document; LogValidationError lists every problem.

    ``stored``: the document is a log the service stored, read back; the rule of names
    (``names``) is not applied to it, since a log stored before the rule must still be
    read as it was judged then."""
    refused = {} if stored else name_errors(obj)
    game = fast_parse_game(obj)
    if game is not None and not refused:
        return game
    try:
        game = GAME_SCHEMA.load(obj) if game is None else game
    except ValidationError as exc:
        errors: dict[str, list[str]] = {}
        flatten(exc.messages, "", errors)
        for path, messages in refused.items():
            errors.setdefault(path, []).extend(messages)
        raise LogValidationError(errors) from None
    if refused:
        raise LogValidationError(refused)
    return game


def game_from_json(data: bytes | str, max_bytes: int = MAX_BYTES) -> Game:
    """load_json then parse_game."""
    return parse_game(load_json(data, max_bytes))


def parse_header(obj: Any) -> dict[str, Any]:
    """The uploader's `id`, `tournament`, `played_at` and the `variant` of a parsed log.

    Call it on a document that parse_game accepted; absent fields are None.
    """
    if type(obj) is not dict:
        return {"id": None, "tournament": None, "played_at": None, "variant": None}
    return {key: obj.get(key) for key in ("id", "tournament", "played_at", "variant")}

"""The marshmallow fields of the log's schemas: JSON types judged strictly (a boolean
is no integer, a float no integer), cards read in any notation, player and team names
checked against the game the field is in (the game's context, set while it loads)."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from marshmallow import ValidationError, fields
from marshmallow.validate import Range

from ..cards import Card, parse_card
from ..limits import MAX_PLAYER_LENGTH, TIME_RANGE, instant
from ..rules import GIN as GIN_FAMILY
from ..rules import PRESETS
from ..words import integer_range
from .errors import show
from .shape import team_names


@dataclass(frozen=True, slots=True)
class Context:
    """What the nested schemas need to know about the game around them."""

    players: frozenset[str] | None  # the valid names in `players`; None: no list at all
    n_players: int
    family: str | None  # None: unknown variant
    claim_names: frozenset[str] | None  # players, and in partnership gin the team names
    oklahoma: bool = False  # gin with ``oklahoma``: a deal's result needs its upcard
    hollywood: bool = False  # gin with ``hollywood``: claims may name each of three games


CONTEXT: ContextVar[Context | None] = ContextVar("rummy_log_context", default=None)


def context_of(raw: Mapping[str, Any]) -> Context:
    players = raw.get("players")
    names = (frozenset(p for p in players
                       if type(p) is str and 1 <= len(p) <= MAX_PLAYER_LENGTH)
             if type(players) is list else None)
    n_players = len(players) if type(players) is list else 0
    variant = raw.get("variant")
    preset = PRESETS.get(variant) if type(variant) is str else None
    family = preset.family if preset is not None else None
    claim_names = names
    if names is not None and family == GIN_FAMILY and n_players == 4:
        claim_names = names | frozenset(team_names(raw.get("teams")))
    rules = raw.get("rules")
    oklahoma = (family == GIN_FAMILY and type(rules) is dict
                and rules.get("oklahoma") is True)
    hollywood = (family == GIN_FAMILY and type(rules) is dict
                 and rules.get("hollywood") is True)
    return Context(names, n_players, family, claim_names, oklahoma, hollywood)


class Str(fields.Field):
    """A JSON string."""

    default_error_messages = {"invalid": "Not a valid string."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if type(value) is not str:
            raise self.make_error("invalid")
        return value


class Int(fields.Field):
    """A JSON integer: not a boolean, not a number with a fraction or exponent."""

    default_error_messages = {"invalid": "Not a valid integer."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if type(value) is not int:
            raise self.make_error("invalid")
        return value


class CardField(fields.Field):
    """A card code in any notation of RULES.md, loaded as its int."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        card = parse_card(value)
        if card is None:
            raise ValidationError(f"{show(value)} is not a card")
        return card


class Player(Str):
    """A player of the game: one of the names in its `players`."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = super()._deserialize(value, attr, data, **kwargs)
        ctx = CONTEXT.get()
        if ctx is not None and ctx.players is not None and name not in ctx.players:
            raise ValidationError(f"{show(name)} is not a player of this game")
        return name


class ClaimName(Str):
    """A player, or in partnership gin a team name (players joined by ``+``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = super()._deserialize(value, attr, data, **kwargs)
        ctx = CONTEXT.get()
        if ctx is not None and ctx.claim_names is not None and name not in ctx.claim_names:
            raise ValidationError(f"{show(name)} is not a player or team of this game")
        return name


class List(fields.List):
    """A JSON array (a list), each element loaded by the inner field."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list:
        if type(value) is not list:
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class Object(fields.Nested):
    """A JSON object loaded by a nested schema."""

    default_error_messages = {"type": "Not a valid object."}

    def _deserialize(self, value: Any, attr: str | None, data: Any,
                     partial: Any = None, **kwargs: Any) -> Any:
        if type(value) is not dict:
            raise self.make_error("type")
        return super()._deserialize(value, attr, data, partial=partial, **kwargs)


class Map(fields.Field):
    """A JSON object with free keys: keys and values loaded by the given fields."""

    default_error_messages = {"invalid": "Not a valid object."}

    def __init__(self, values: fields.Field | None = None, keys: fields.Field | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value_field = values
        self.key_field = keys

    def _deserialize(self, value: Any, attr: str | None, data: Any,
                     **kwargs: Any) -> dict[Any, Any]:
        if type(value) is not dict:
            raise self.make_error("invalid")
        if self.value_field is None and self.key_field is None:
            return value
        out: dict[Any, Any] = {}
        errors: dict[Any, Any] = {}
        for key, item in value.items():
            key_errors: list[Any] = []
            if self.key_field is not None:
                try:
                    self.key_field.deserialize(key)
                except ValidationError as exc:
                    key_errors = list(exc.messages)
            try:
                out[key] = (item if self.value_field is None
                            else self.value_field.deserialize(item))
            except ValidationError as exc:
                if isinstance(exc.messages, dict):
                    errors[key] = ({"_schema": key_errors} if key_errors else {}) | exc.messages
                else:
                    errors[key] = key_errors + list(exc.messages)
            else:
                if key_errors:
                    errors[key] = key_errors
        if errors:
            raise ValidationError(errors, valid_data=out)
        return out


def one_of(choices: tuple[str, ...], what: str) -> Any:
    """A validator: the value is one of ``choices``."""
    allowed = ", ".join(choices)

    def check(value: str) -> None:
        if value not in choices:
            raise ValidationError(f"{show(value)} is not {what}; one of {allowed}")

    return check


def rfc3339(value: str) -> None:
    if instant(value) is None:
        raise ValidationError(f"{show(value)} is not an RFC 3339 date-time like "
                              f"2024-05-01T19:30:00Z in the {TIME_RANGE}")


def between(low: int, high: int) -> Range:
    """A validator: an integer from ``low`` to ``high``, said the same way everywhere."""
    return Range(min=low, max=high, error=integer_range(low, high))


def cards_field(**kwargs: Any) -> List:
    return List(CardField(), **kwargs)

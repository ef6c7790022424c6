"""Read and validate ``rummy-log/1`` documents and build the engine's model.

A document of the wrong shape is a validation error (:class:`LogValidationError`): the
upload is rejected whole and every bad field is listed by its dotted path, e.g.
``deals.0.moves.12.card``; path ``""`` is the document as a whole.

Two implementations judge the shape and must agree exactly:

* the marshmallow schemas (:class:`GameSchema` and the schemas it nests), the reference:
  they alone produce error messages;
* a fast path (:func:`fast_parse_game`), hand-written checks over the raw dicts that build
  the model directly.  It answers ``None`` at the first problem of any kind, and
  :func:`parse_game` then runs the schemas to say what is wrong.

Both accept exactly the same JSON values (dict, list, str, int, float, bool, None) and
build equal games; the test suite checks it on random documents.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import orjson
from marshmallow import Schema, ValidationError, fields, post_load, validates_schema
from marshmallow.validate import Equal, Length, Range

from .cards import RANKS, SUITS, Card, parse_card
from .limits import (
    MAX_BYTES,
    MAX_CLAIM,
    MAX_DEALS,
    MAX_DEPTH,
    MAX_ID_LENGTH,
    MAX_MELD_INDEX,
    MAX_MOVES,
    MAX_PLAYER_LENGTH,
    MAX_ROUND,
    TIME_RANGE,
    instant,
)
from .model import (
    ACTIONS,
    DISCARD,
    DISCARD_PILE,
    DRAW,
    END,
    GIN,
    KNOCK,
    LAYOFF,
    MELD,
    OUTCOMES,
    PASS,
    RESHUFFLE,
    SHOW,
    STOCK,
    Action,
    Deal,
    Game,
    Move,
    Pile,
)
from .rules import GIN as GIN_FAMILY
from .rules import PRESETS, RUMMY, Rules, resolve_rules
from .words import integer_range, plural

__all__ = [
    "ACTION_FIELDS", "FORMAT", "MAX_BYTES", "MAX_DEALS", "MAX_DEPTH", "MAX_ID_LENGTH",
    "MAX_MOVES", "MAX_PLAYER_LENGTH", "OUTCOMES", "GameSchema", "LogValidationError",
    "fast_parse_game", "game_from_json", "instant", "load_json", "parse_game",
    "parse_header", "schema_errors",
]

FORMAT = "rummy-log/1"
END_REASONS = ("stock_exhausted",)
SOURCES = (STOCK, DISCARD_PILE)

GAME_KEYS = frozenset(("format", "id", "variant", "rules", "players", "teams", "tournament",
                       "played_at", "deals", "claimed", "meta"))
DEAL_KEYS = frozenset(("dealer", "players", "deck", "hands", "upcard", "moves", "claimed"))
TOURNAMENT_KEYS = frozenset(("id", "round", "table"))
GAME_CLAIM_KEYS = frozenset(("totals", "winner"))
DEAL_CLAIM_KEYS = frozenset(("points", "winner", "outcome"))

# The fields each action takes besides `p` and `a`: (required, optional).
ACTION_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    DRAW: (frozenset(("from",)), frozenset(("card",))),
    PASS: (frozenset(), frozenset()),
    MELD: (frozenset(("cards",)), frozenset()),
    LAYOFF: (frozenset(("card", "meld")), frozenset()),
    DISCARD: (frozenset(("card",)), frozenset()),
    KNOCK: (frozenset(("card",)), frozenset(("melds",))),
    GIN: (frozenset(), frozenset(("card", "melds"))),
    SHOW: (frozenset(), frozenset(("melds",))),
    RESHUFFLE: (frozenset(), frozenset(("stock",))),
    END: (frozenset(), frozenset(("reason",))),
}
MOVE_FIELDS = frozenset(("from", "card", "cards", "meld", "melds", "stock", "reason"))
_MOVE_KEYS = {a: frozenset(("p", "a")) | req | opt for a, (req, opt) in ACTION_FIELDS.items()}
_ACTION_OF = {action.value: action for action in Action}


class LogValidationError(ValueError):
    """The document is not a rummy-log/1 game: ``errors`` maps dotted paths to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        shown = "; ".join(f"{path[:100] or '(document)'}: {' '.join(msgs)}"
                          for path, msgs in list(errors.items())[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(f"invalid {FORMAT} log: {shown}{more}")


def _whole(message: str) -> LogValidationError:
    return LogValidationError({"": [message]})


def _show(value: Any) -> str:
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


# --------------------------------------------------------------------------- JSON text

_KEEP_SHAPE = bytes(b for b in range(256) if b not in b'"[]{}')  # delete all but these
_BRACKETS = bytes.maketrans(b"{}", b"[]")


def _deeper_than(raw: bytes, limit: int) -> bool:
    """Whether valid JSON text nests arrays and objects more than ``limit`` deep.

    Iterative and at C speed: escapes are dropped (``\\\\`` pairs first, then ``\\"``),
    only quotes and brackets kept, the strings (odd pieces between quotes) cut out, and
    each pass removes the innermost bracket pairs: the number of passes is the depth.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    shape = raw.translate(None, _KEEP_SHAPE).replace(b'""', b"")  # keeps every parity
    if b'"' in shape:  # strings holding brackets
        shape = b"".join(shape.split(b'"')[::2])
    shape = shape.translate(_BRACKETS)
    for _ in range(limit):
        if not shape:
            return False
        shape = shape.replace(b"[]", b"")
    return bool(shape)


def _repeated_keys(raw: bytes, value: Any) -> dict[str, list[str]]:
    """The dotted path of every key repeated in its object (orjson keeps the last one
    silently, so the log would say two things and be read as one).

    Cheap test first: every key of the text is followed by a colon, and a colon outside
    strings always follows a key, so when the text holds exactly as many colons as
    orjson's compact serialisation of the decoded value, no pair was dropped: a colon
    inside a string is in both (but one written as the escape ``\\u003a`` only in the
    serialisation, so a text holding that escape takes the exact path).  Otherwise the
    text is decoded again by the standard library with an ``object_pairs_hook`` that
    notes each repeated key.

    Measured on 300 generated logs of 17 KB (six presets; CPU time, best of 30
    alternating runs, in four sessions on a loaded two-core machine): the test adds 45
    to 70 us a log (orjson's serialisation 25-40 us, the two counts 15 us), a quarter to
    a third of orjson's decoding and 1 to 4% of the engine's whole path (decode,
    validate, replay, report: 1.4-1.6 ms); a log that fails it is decoded once more, by
    the standard library."""
    if (b"\\" not in raw or b"\\u003" not in raw) and \
            raw.count(b":") == orjson.dumps(value).count(b":"):
        return {}
    top = json.loads(raw, object_pairs_hook=_Pairs)
    errors: dict[str, list[str]] = {}
    stack: list[tuple[str, Any]] = [("", top)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Pairs):
            for key in node.repeated:
                errors[f"{path}.{key}" if path else key] = [
                    "this key appears more than once in its object"]
            stack.extend((f"{path}.{key}" if path else key, item) for key, item in node.items())
        elif isinstance(node, list):
            stack.extend((f"{path}.{i}" if path else str(i), item) for i, item in enumerate(node))
    return dict(sorted(errors.items()))


class _Pairs(dict):
    """A JSON object as the standard library decodes it, with the keys it repeats."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated: list[str] = []
        if len(self) < len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in self.repeated:
                    self.repeated.append(key)
                seen.add(key)


def load_json(data: bytes | str, max_bytes: int = MAX_BYTES, *,
              repeated_keys: bool = False) -> Any:
    """Decode one JSON document of at most ``max_bytes`` bytes nested at most
    ``MAX_DEPTH``, in which no object repeats a key (each repeated key is an error at its
    path).  ``repeated_keys=True`` keeps the last of them instead, for logs stored
    before the rule."""
    if isinstance(data, str):
        if len(data) > max_bytes:
            raise _whole(f"the document is larger than {plural(max_bytes, 'byte')}")
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:
            raise _whole("the document is not valid UTF-8 text") from None
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
    else:
        raise _whole(f"a JSON document is bytes or text, not {type(data).__name__}")
    if len(raw) > max_bytes:
        raise _whole(f"the document is larger than {plural(max_bytes, 'byte')}")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc):
            raise _whole(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
        raise _whole(f"invalid JSON: {exc}") from None
    if _deeper_than(raw, MAX_DEPTH):
        raise _whole(f"the JSON is nested deeper than {MAX_DEPTH} levels")
    if not repeated_keys:
        repeated = _repeated_keys(raw, value)
        if repeated:
            raise LogValidationError(repeated)
    return value


# --------------------------------------------------------------------------- context

@dataclass(frozen=True, slots=True)
class _Context:
    """What the nested schemas need to know about the game around them."""

    players: frozenset[str] | None  # the valid names in `players`; None: no list at all
    n_players: int
    family: str | None  # None: unknown variant
    claim_names: frozenset[str] | None  # players, and in partnership gin the team names


_CONTEXT: ContextVar[_Context | None] = ContextVar("rummy_log_context", default=None)


def _team_names(teams: Any) -> list[str]:
    """Team names ``a+b`` (players joined by ``+`` in team order) of well-formed teams."""
    if type(teams) is not list:
        return []
    return ["+".join(team) for team in teams
            if type(team) is list and all(type(name) is str for name in team)]


def _context_of(raw: Mapping[str, Any]) -> _Context:
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
        claim_names = names | frozenset(_team_names(raw.get("teams")))
    return _Context(names, n_players, family, claim_names)


# --------------------------------------------------------------------------- fields

class _Str(fields.Field):
    """A JSON string."""

    default_error_messages = {"invalid": "Not a valid string."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if type(value) is not str:
            raise self.make_error("invalid")
        return value


class _Int(fields.Field):
    """A JSON integer: not a boolean, not a number with a fraction or exponent."""

    default_error_messages = {"invalid": "Not a valid integer."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if type(value) is not int:
            raise self.make_error("invalid")
        return value


class _Card(fields.Field):
    """A card code in any notation of RULES.md, loaded as its int."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        card = parse_card(value)
        if card is None:
            raise ValidationError(f"{_show(value)} is not a card")
        return card


class _Player(_Str):
    """A player of the game: one of the names in its `players`."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = super()._deserialize(value, attr, data, **kwargs)
        ctx = _CONTEXT.get()
        if ctx is not None and ctx.players is not None and name not in ctx.players:
            raise ValidationError(f"{_show(name)} is not a player of this game")
        return name


class _ClaimName(_Str):
    """A player, or in partnership gin a team name (players joined by ``+``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = super()._deserialize(value, attr, data, **kwargs)
        ctx = _CONTEXT.get()
        if ctx is not None and ctx.claim_names is not None and name not in ctx.claim_names:
            raise ValidationError(f"{_show(name)} is not a player or team of this game")
        return name


class _List(fields.List):
    """A JSON array (a list), each element loaded by the inner field."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list:
        if type(value) is not list:
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class _Object(fields.Nested):
    """A JSON object loaded by a nested schema."""

    default_error_messages = {"type": "Not a valid object."}

    def _deserialize(self, value: Any, attr: str | None, data: Any,
                     partial: Any = None, **kwargs: Any) -> Any:
        if type(value) is not dict:
            raise self.make_error("type")
        return super()._deserialize(value, attr, data, partial=partial, **kwargs)


class _Map(fields.Field):
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


def _one_of(choices: tuple[str, ...], what: str) -> Any:
    """A validator: the value is one of ``choices``."""
    allowed = ", ".join(choices)

    def check(value: str) -> None:
        if value not in choices:
            raise ValidationError(f"{_show(value)} is not {what}; one of {allowed}")

    return check


def _rfc3339(value: str) -> None:
    if instant(value) is None:
        raise ValidationError(f"{_show(value)} is not an RFC 3339 date-time like "
                              f"2024-05-01T19:30:00Z in the {TIME_RANGE}")


def _between(low: int, high: int) -> Range:
    """A validator: an integer from ``low`` to ``high``, said the same way everywhere."""
    return Range(min=low, max=high, error=integer_range(low, high))


def _cards(**kwargs: Any) -> _List:
    return _List(_Card(), **kwargs)


# --------------------------------------------------------------------------- schemas

class MoveSchema(Schema):
    """A move: `p`, `a` and exactly the fields of its action."""

    p = _Player(required=True)
    a = _Str(required=True, validate=_one_of(ACTIONS, "an action"))
    source = _Str(data_key="from", validate=_one_of(SOURCES, "a pile"))
    card = _Card()
    cards = _cards(validate=Length(min=1, error="a meld has at least one card"))
    meld = _Int(validate=_between(0, MAX_MELD_INDEX))
    melds = _List(_cards())
    stock = _cards()
    reason = _Str(validate=_one_of(END_REASONS, "a reason to end"))

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _fields_of_action(self, data: dict, original_data: Any, **kwargs: Any) -> None:
        """A field of another action is an error, and so is a missing required one."""
        if type(original_data) is not dict:
            return
        action = original_data.get("a")
        spec = ACTION_FIELDS.get(action) if type(action) is str else None
        if spec is None:
            return
        required, optional = spec
        errors: dict[str, list[str]] = {}
        for key in original_data:
            if key in MOVE_FIELDS and key not in required and key not in optional:
                errors[key] = [f"{key!r} is not a field of action {action!r}"]
        for key in sorted(required):
            if key not in original_data:
                errors[key] = ["Missing data for required field."]
        if errors:
            raise ValidationError(errors)


class DealClaimSchema(Schema):
    """A deal's claimed result: points per player, winner, outcome."""

    points = _Map(_Int(validate=_between(-MAX_CLAIM, MAX_CLAIM)), keys=_Player())
    winner = _Player(allow_none=True)
    outcome = _Str(allow_none=True, validate=_one_of(OUTCOMES, "an outcome"))


class DealSchema(Schema):
    """A deal: dealer, who plays, the cards dealt (deck or hands and upcard), the moves."""

    dealer = _Player(required=True)
    players = _List(_Player())
    deck = _cards(validate=Length(equal=52, error="a deck has exactly {equal} cards"))
    hands = _Map(_cards())
    upcard = _Card()
    moves = _List(_Object(MoveSchema), required=True,
                  validate=Length(max=MAX_MOVES, error=f"at most {MAX_MOVES} moves per deal"))
    claimed = _Object(DealClaimSchema)

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _who_plays(self, data: dict, original_data: Any, **kwargs: Any) -> None:
        """Hands and upcard without a deck; the deal's players; hands are theirs."""
        if type(original_data) is not dict:
            return
        errors = _deal_errors(original_data, _CONTEXT.get())
        if errors:
            raise ValidationError(errors)


def _deal_errors(deal: dict, ctx: _Context | None) -> dict[str, Any]:
    """The cross-field rules of one deal (types are the fields' business)."""
    errors: dict[str, Any] = {}
    if "deck" not in deal:
        for key in ("hands", "upcard"):
            if key not in deal:
                errors[key] = ["Missing data for required field."]
    if ctx is None or ctx.players is None:
        return errors
    listed = deal.get("players")
    seated: set[str] | None = set(ctx.players)  # who must have a hand; None: unknown
    if "players" not in deal:
        if ctx.family == GIN_FAMILY and ctx.n_players >= 3:
            errors["players"] = ["Missing data for required field: three- and four-player "
                                 "gin deals name their two players"]
            seated = None
    elif type(listed) is list and all(type(p) is str for p in listed):
        if ctx.family == RUMMY and (len(listed) != ctx.n_players
                                    or set(listed) != ctx.players):
            errors["players"] = ["a Rummy-family deal is played by every player, each once"]
            seated = None
        elif ctx.family == GIN_FAMILY and (len(listed) != 2 or listed[0] == listed[1]):
            errors["players"] = ["a gin deal is played by exactly two distinct players"]
            seated = None
        elif not set(listed) <= ctx.players:
            seated = None  # the unknown names are reported by the field
        else:
            seated = set(listed)
            dealer = deal.get("dealer")
            if type(dealer) is str and dealer in ctx.players and dealer not in seated:
                errors["dealer"] = [f"{_show(dealer)} does not play this deal"]
    else:
        seated = None
    hands = deal.get("hands")
    if seated is not None and type(hands) is dict:
        hand_errors: dict[Any, Any] = {
            name: [f"{_show(name)} does not play this deal"]
            for name in hands if name not in seated}
        missing = [name for name in sorted(seated) if name not in hands]
        if missing:
            hand_errors["_schema"] = ["no hand for " + ", ".join(_show(n) for n in missing)]
        if hand_errors:
            errors["hands"] = hand_errors
    return errors


class TournamentSchema(Schema):
    """Where the game was played: tournament id, round, table."""

    id = _Str(validate=Length(min=1, max=MAX_ID_LENGTH))
    round = _Int(validate=_between(1, MAX_ROUND))
    table = _Str(validate=Length(max=MAX_ID_LENGTH))


class GameClaimSchema(Schema):
    """The game's claimed result: totals per player (or team) and the winner."""

    totals = _Map(_Int(validate=_between(-MAX_CLAIM, MAX_CLAIM)), keys=_ClaimName())
    winner = _ClaimName(allow_none=True)


class GameSchema(Schema):
    """A rummy-log/1 game; loading it returns the :class:`Game`."""

    format = _Str(required=True, validate=Equal(FORMAT, error=f"format must be {FORMAT!r}"))
    id = _Str(validate=Length(max=MAX_ID_LENGTH))
    variant = _Str(required=True, validate=_one_of(tuple(PRESETS), "a variant"))
    rules = _Map()
    players = _List(_Str(validate=Length(min=1, max=MAX_PLAYER_LENGTH)), required=True)
    teams = _List(_List(_Str()))
    tournament = _Object(TournamentSchema)
    played_at = _Str(validate=_rfc3339)
    deals = _List(_Object(DealSchema), required=True, validate=Length(
        min=1, max=MAX_DEALS, error=f"a game has 1 to {MAX_DEALS} deals"))
    claimed = _Object(GameClaimSchema)
    meta = _Map()

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None,
             unknown: Any = None) -> Any:
        """Load one game; the nested schemas see its players and variant."""
        if type(data) is not dict:
            raise ValidationError({"_schema": [f"a {FORMAT} log is a JSON object, "
                                               f"not {_show(data)}"]})
        token = _CONTEXT.set(_context_of(data))
        try:
            return super().load(data, many=many, partial=partial, unknown=unknown)
        finally:
            _CONTEXT.reset(token)

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _game_rules(self, data: dict, original_data: Any, **kwargs: Any) -> None:
        """Player count and uniqueness, teams, and the rule options."""
        if type(original_data) is not dict:
            return
        errors = _game_errors(original_data, _CONTEXT.get() or _context_of(original_data))
        if errors:
            raise ValidationError(errors)

    @post_load
    def _build(self, data: dict, **kwargs: Any) -> Game:
        return _build_from_loaded(data)


def _game_errors(raw: dict, ctx: _Context) -> dict[str, Any]:
    """The cross-field rules of the game as a whole."""
    errors: dict[str, Any] = {}
    players = raw.get("players")
    variant = raw.get("variant")
    preset = PRESETS.get(variant) if type(variant) is str else None
    count_ok = False
    if type(players) is list:
        repeated = [name for name, k in Counter(p for p in players if type(p) is str).items()
                    if k > 1]
        if repeated:
            errors.setdefault("players", []).append(
                "players must be unique: " + ", ".join(_show(p) for p in repeated) + " repeated")
        if preset is not None:
            n = len(players)
            count_ok = preset.min_players <= n <= preset.max_players
            if not count_ok:
                errors.setdefault("players", []).append(
                    f"{variant} is played by {preset.min_players} to {preset.max_players} "
                    f"players, not {n}")
    if preset is not None and type(players) is list:
        partnership = preset.family == GIN_FAMILY and len(players) == 4
        if "teams" in raw and not partnership:
            errors["teams"] = ["teams are only for four-player gin"]
        elif partnership and "teams" not in raw:
            errors["teams"] = ["Missing data for required field: four-player gin is played "
                               "by two teams"]
        elif partnership:
            teams = raw["teams"]
            if type(teams) is list and all(
                    type(t) is list and all(type(p) is str for p in t) for t in teams):
                flat = [p for t in teams for p in t]
                if (len(teams) != 2 or any(len(t) != 2 for t in teams)
                        or len(set(flat)) != 4 or set(flat) != ctx.players):
                    errors["teams"] = ["teams must be two teams of two that seat each of the "
                                       "four players once"]
    rules = raw.get("rules", {})
    if preset is not None and type(rules) is dict:
        n = len(players) if type(players) is list and count_ok else preset.min_players
        _, problems = resolve_rules(variant, rules, n)
        if problems:
            errors["rules"] = {str(name): [msg] for name, msg in problems.items()}
    return errors


def _build_from_loaded(data: dict) -> Game:
    """The game from the schemas' loaded data (names still names, cards already ints)."""
    players = tuple(data["players"])
    seat = {name: i for i, name in enumerate(players)}
    rules, _ = resolve_rules(data["variant"], data.get("rules"), len(players))
    assert rules is not None
    deals = []
    for d in data["deals"]:
        moves = []
        for m in d["moves"]:
            melds = m.get("melds")
            moves.append(Move(
                player=seat[m["p"]], action=Action(m["a"]),
                source=Pile(m["source"]) if "source" in m else None,
                card=m.get("card"),
                cards=tuple(m["cards"]) if "cards" in m else None,
                meld=m.get("meld"),
                melds=tuple(tuple(x) for x in melds) if melds is not None else None,
                stock=tuple(m["stock"]) if "stock" in m else None,
                reason=m.get("reason")))
        deals.append(Deal(
            dealer=seat[d["dealer"]],
            moves=tuple(moves),
            players=tuple(seat[p] for p in d["players"]) if "players" in d else None,
            deck=tuple(d["deck"]) if "deck" in d else None,
            hands=({seat[p]: tuple(h) for p, h in d["hands"].items()}
                   if "hands" in d else None),
            upcard=d.get("upcard"),
            claimed=d.get("claimed")))
    teams = data.get("teams")
    return Game(
        rules=rules, players=players, deals=tuple(deals),
        teams=tuple(tuple(seat[p] for p in t) for t in teams) if teams is not None else None,
        claimed=data.get("claimed"), meta=data.get("meta", {}))


_GAME_SCHEMA = GameSchema()


# --------------------------------------------------------------------------- errors

def _flatten(messages: Any, prefix: str, out: dict[str, list[str]]) -> None:
    """marshmallow's nested error dict as dotted paths; ``_schema`` is its parent's path."""
    if isinstance(messages, dict):
        for key, value in messages.items():
            path = prefix if key == "_schema" else f"{prefix}.{key}" if prefix else str(key)
            _flatten(value, path, out)
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out.setdefault(prefix, []).extend(messages)
    elif isinstance(messages, list):
        for value in messages:
            _flatten(value, prefix, out)
    else:
        out.setdefault(prefix, []).append(str(messages))


def schema_errors(obj: Any) -> dict[str, list[str]]:
    """Every problem the schemas find in ``obj`` by dotted path; empty when it is valid."""
    try:
        _GAME_SCHEMA.load(obj)
    except ValidationError as exc:
        out: dict[str, list[str]] = {}
        _flatten(exc.messages, "", out)
        return out
    return {}


# --------------------------------------------------------------------------- fast path

class _Reject(Exception):
    """The fast path found a problem: the schemas will say which."""


def _card_table() -> dict[str, Card]:
    """Every common spelling of every card, read by parse_card itself."""
    table: dict[str, Card] = {}
    symbols = {"C": "♣♧", "D": "♦♢", "H": "♥♡", "S": "♠♤"}
    for rank in RANKS:
        for rank_text in {rank, rank.lower(), *(("10",) if rank == "T" else ())}:
            for suit in SUITS:
                for suit_text in (suit, suit.lower(), *symbols[suit]):
                    code = rank_text + suit_text
                    card = parse_card(code)
                    if card is not None:
                        table[code] = card
    return table


_CARDS = _card_table()
_MOVE_CACHE: dict[tuple, Move] = {}
_MOVE_CACHE_SIZE = 8192
_RULES_CACHE: dict[tuple, Rules] = {}
_RULES_CACHE_SIZE = 1024
_SCALARS = (int, str, bool, type(None))


def _card(value: Any) -> Card:
    card = _CARDS.get(value) if type(value) is str else None
    if card is None:
        card = parse_card(value)
        if card is None:
            raise _Reject
    return card


def _card_list(value: Any) -> tuple[Card, ...]:
    if type(value) is not list:
        raise _Reject
    get = _CARDS.get
    try:
        out = tuple(map(get, value))
    except TypeError:  # an unhashable element: no card
        raise _Reject from None
    if None in out:
        out = tuple(_card(v) for v in value)
    return out


def _melds(value: Any) -> tuple[tuple[Card, ...], ...]:
    if type(value) is not list:
        raise _Reject
    return tuple(_card_list(m) for m in value)


def _rules(variant: str, overrides: dict[str, Any] | None, n_players: int) -> Rules:
    """resolve_rules, remembered for scalar overrides (keyed by type: True is not 1)."""
    key: tuple | None = (variant, n_players)
    if overrides:
        items = []
        for name, value in overrides.items():
            if type(value) not in _SCALARS:
                key = None
                break
            items.append((name, type(value), value))
        if key is not None:
            key = (variant, n_players, tuple(items))
    rules = _RULES_CACHE.get(key) if key is not None else None
    if rules is None:
        rules, problems = resolve_rules(variant, overrides, n_players)
        if rules is None or problems:
            raise _Reject
        if key is not None:
            if len(_RULES_CACHE) >= _RULES_CACHE_SIZE:
                _RULES_CACHE.clear()
            _RULES_CACHE[key] = rules
    return rules


def _moves(moves: list[Any], seat: dict[str, int]) -> tuple[Move, ...]:
    """The moves of a deal from their raw dicts.

    Draws and discards are remembered by their raw values (seat, action, pile, card
    code, number of keys): a valid move with equal values has the same keys, so it is
    valid and equal too.  Moves are immutable, so they are shared.
    """
    out: list[Move] = []
    append = out.append
    cache = _MOVE_CACHE
    for m in moves:
        if type(m) is not dict:
            raise _Reject
        p = m.get("p")
        s = seat.get(p) if type(p) is str else None
        if s is None:
            raise _Reject
        a = m.get("a")
        if a in (DRAW, DISCARD):
            key = (s, a, m.get("from"), m.get("card"), len(m))
            try:
                move = cache.get(key)
            except TypeError:  # an unhashable pile or card: not one
                raise _Reject from None
            if move is None:
                move = _new_move(m, s, a)
                if len(cache) >= _MOVE_CACHE_SIZE:
                    cache.clear()
                cache[key] = move
        elif type(a) is str:
            move = _new_move(m, s, a)
        else:
            raise _Reject
        append(move)
    return tuple(out)


def _new_move(m: dict, s: int, text: str) -> Move:
    """A move of player ``s`` doing ``text``: exactly the action's fields, each valid."""
    a = _ACTION_OF.get(text)
    if a is None:
        raise _Reject
    n = len(m)
    if a == DISCARD:
        if n != 3 or "card" not in m:
            raise _Reject
        return Move(s, a, card=_card(m["card"]))
    if a == DRAW:
        src = m.get("from")
        if src == STOCK:
            src = STOCK
        elif src == DISCARD_PILE:
            src = DISCARD_PILE
        else:
            raise _Reject
        if "card" in m:
            if n != 4:
                raise _Reject
            return Move(s, a, source=src, card=_card(m["card"]))
        if n != 3:
            raise _Reject
        return Move(s, a, source=src)
    allowed = _MOVE_KEYS.get(a)
    if allowed is None or not m.keys() <= allowed:
        raise _Reject
    if a == MELD:
        if "cards" not in m:
            raise _Reject
        cards = _card_list(m["cards"])
        if not cards:
            raise _Reject
        return Move(s, a, cards=cards)
    if a == LAYOFF:
        meld = m.get("meld")
        if "card" not in m or type(meld) is not int or not 0 <= meld <= MAX_MELD_INDEX:
            raise _Reject
        return Move(s, a, card=_card(m["card"]), meld=meld)
    if a in (KNOCK, GIN):
        if a == KNOCK and "card" not in m:
            raise _Reject
        card = _card(m["card"]) if "card" in m else None
        melds = _melds(m["melds"]) if "melds" in m else None
        return Move(s, a, card=card, melds=melds)
    if a == SHOW:
        return Move(s, a, melds=_melds(m["melds"]) if "melds" in m else None)
    if a == RESHUFFLE:
        return Move(s, a, stock=_card_list(m["stock"]) if "stock" in m else None)
    if a == END:
        if "reason" in m:
            if m["reason"] != END_REASONS[0]:
                raise _Reject
            return Move(s, a, reason=END_REASONS[0])
        return Move(s, a)
    return Move(s, a)  # pass


def _int_map(value: Any, names: Iterable[str] | dict[str, int]) -> None:
    if type(value) is not dict:
        raise _Reject
    for key, item in value.items():
        if type(key) is not str or key not in names or type(item) is not int \
                or not -MAX_CLAIM <= item <= MAX_CLAIM:
            raise _Reject


def _fast_deal(d: Any, seat: dict[str, int], family: str, n_players: int) -> Deal:
    if type(d) is not dict or not d.keys() <= DEAL_KEYS:
        raise _Reject
    dealer = d.get("dealer")
    if type(dealer) is not str or dealer not in seat:
        raise _Reject
    seated: Any = seat.keys()  # who must have a hand
    deal_players = None
    if "players" in d:
        listed = d["players"]
        if type(listed) is not list:
            raise _Reject
        for name in listed:
            if type(name) is not str or name not in seat:
                raise _Reject
        seated = set(listed)
        if family == GIN_FAMILY:
            if len(listed) != 2 or len(seated) != 2:
                raise _Reject
        elif len(listed) != n_players or len(seated) != n_players:
            raise _Reject
        if dealer not in seated:
            raise _Reject
        deal_players = tuple(seat[name] for name in listed)
    elif family == GIN_FAMILY and n_players >= 3:
        raise _Reject
    deck = None
    if "deck" in d:
        deck = _card_list(d["deck"])
        if len(deck) != 52:
            raise _Reject
    hands = None
    upcard = None
    if "hands" in d:
        raw_hands = d["hands"]
        if type(raw_hands) is not dict or raw_hands.keys() != seated:
            raise _Reject
        hands = {seat[name]: _card_list(cards) for name, cards in raw_hands.items()}
    elif deck is None:
        raise _Reject
    if "upcard" in d:
        upcard = _card(d["upcard"])
    elif deck is None:
        raise _Reject
    moves = d.get("moves")
    if type(moves) is not list or len(moves) > MAX_MOVES:
        raise _Reject
    claimed = None
    if "claimed" in d:
        claimed = d["claimed"]
        if type(claimed) is not dict or not claimed.keys() <= DEAL_CLAIM_KEYS:
            raise _Reject
        if "points" in claimed:
            _int_map(claimed["points"], seat)
        if "winner" in claimed:
            winner = claimed["winner"]
            if winner is not None and (type(winner) is not str or winner not in seat):
                raise _Reject
        if "outcome" in claimed:
            outcome = claimed["outcome"]
            if outcome is not None and (type(outcome) is not str or outcome not in OUTCOMES):
                raise _Reject
    return Deal(dealer=seat[dealer], moves=_moves(moves, seat),
                players=deal_players, deck=deck, hands=hands, upcard=upcard, claimed=claimed)


def fast_parse_game(obj: Any) -> Game | None:
    """The game when ``obj`` is a valid log, else None (checks over the raw dicts)."""
    try:
        return _fast_game(obj)
    except _Reject:
        return None


def _fast_game(obj: Any) -> Game:
    if type(obj) is not dict or not obj.keys() <= GAME_KEYS:
        raise _Reject
    fmt = obj.get("format")
    variant = obj.get("variant")
    players = obj.get("players")
    if type(fmt) is not str or fmt != FORMAT or type(variant) is not str:
        raise _Reject
    preset = PRESETS.get(variant)
    if preset is None or type(players) is not list:
        raise _Reject
    n = len(players)
    if not preset.min_players <= n <= preset.max_players:
        raise _Reject
    for name in players:
        if type(name) is not str or not 1 <= len(name) <= MAX_PLAYER_LENGTH:
            raise _Reject
    seat = {name: i for i, name in enumerate(players)}
    if len(seat) != n:
        raise _Reject
    family = preset.family
    if "id" in obj:
        ident = obj["id"]
        if type(ident) is not str or len(ident) > MAX_ID_LENGTH:
            raise _Reject
    overrides = obj.get("rules")
    if "rules" in obj and type(overrides) is not dict:
        raise _Reject
    rules = _rules(variant, overrides, n)
    teams = None
    claim_names: Any = seat
    if family == GIN_FAMILY and n == 4:
        raw_teams = obj.get("teams")
        if type(raw_teams) is not list or len(raw_teams) != 2:
            raise _Reject
        for team in raw_teams:
            if type(team) is not list or len(team) != 2:
                raise _Reject
            for name in team:
                if type(name) is not str or name not in seat:
                    raise _Reject
        if len({name for team in raw_teams for name in team}) != 4:
            raise _Reject
        teams = tuple(tuple(seat[name] for name in team) for team in raw_teams)
        claim_names = set(seat) | set(_team_names(raw_teams))
    elif "teams" in obj:
        raise _Reject
    if "tournament" in obj:
        tour = obj["tournament"]
        if type(tour) is not dict or not tour.keys() <= TOURNAMENT_KEYS:
            raise _Reject
        if "id" in tour:
            tid = tour["id"]
            if type(tid) is not str or not 1 <= len(tid) <= MAX_ID_LENGTH:
                raise _Reject
        if "round" in tour:
            rnd = tour["round"]
            if type(rnd) is not int or not 1 <= rnd <= MAX_ROUND:
                raise _Reject
        if "table" in tour:
            table = tour["table"]
            if type(table) is not str or len(table) > MAX_ID_LENGTH:
                raise _Reject
    if "played_at" in obj:
        when = obj["played_at"]
        if type(when) is not str or instant(when) is None:
            raise _Reject
    raw_deals = obj.get("deals")
    if type(raw_deals) is not list or not 1 <= len(raw_deals) <= MAX_DEALS:
        raise _Reject
    deals = tuple([_fast_deal(d, seat, family, n) for d in raw_deals])
    claimed = None
    if "claimed" in obj:
        claimed = obj["claimed"]
        if type(claimed) is not dict or not claimed.keys() <= GAME_CLAIM_KEYS:
            raise _Reject
        if "totals" in claimed:
            _int_map(claimed["totals"], claim_names)
        if "winner" in claimed:
            winner = claimed["winner"]
            if winner is not None and (type(winner) is not str or winner not in claim_names):
                raise _Reject
    meta = obj.get("meta", {})
    if type(meta) is not dict:
        raise _Reject
    return Game(rules=rules, players=tuple(players), deals=deals, teams=teams,
                claimed=claimed, meta=meta)


# --------------------------------------------------------------------------- public API

def parse_game(obj: Any) -> Game:
    """The game of a decoded rummy-log/1 document; LogValidationError lists every problem."""
    game = fast_parse_game(obj)
    if game is not None:
        return game
    try:
        return _GAME_SCHEMA.load(obj)
    except ValidationError as exc:
        errors: dict[str, list[str]] = {}
        _flatten(exc.messages, "", errors)
        raise LogValidationError(errors) from None


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

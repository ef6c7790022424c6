"""The marshmallow schemas of a ``rummy-log/1`` game: the reference judge of a log's
shape, and the only one that words the errors.  Loading a valid game builds the
engine's :class:`~service.engine.model.Game`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from marshmallow import Schema, ValidationError, post_load, validates_schema
from marshmallow.validate import Equal, Length

from ..limits import (
    MAX_CLAIM,
    MAX_DEALS,
    MAX_ID_LENGTH,
    MAX_MELD_INDEX,
    MAX_MOVES,
    MAX_PLAYER_LENGTH,
    MAX_ROUND,
)
from ..model import (
    ACTIONS,
    ENDS_WITHOUT_PLAYER,
    GIN_ENDS,
    OUTCOMES,
    RUMMY_ENDS,
    Action,
    Deal,
    End,
    Game,
    Move,
    Pile,
    Result,
)
from ..rules import GIN as GIN_FAMILY
from ..rules import PRESETS, RUMMY, resolve_rules
from .errors import flatten, show
from .fields import (
    CONTEXT,
    CardField,
    ClaimName,
    Context,
    Int,
    List,
    Map,
    Object,
    Player,
    Str,
    between,
    cards_field,
    context_of,
    one_of,
    rfc3339,
)
from .names import name_errors
from .shape import ACTION_FIELDS, END_REASONS, FORMAT, HOLLYWOOD_GAMES, MOVE_FIELDS, SOURCES


class MoveSchema(Schema):
    """A move: `p`, `a` and exactly the fields of its action."""

    p = Player(required=True)
    a = Str(required=True, validate=one_of(ACTIONS, "an action"))
    source = Str(data_key="from", validate=one_of(SOURCES, "a pile"))
    card = CardField()
    cards = cards_field(validate=Length(min=1, error="a meld has at least one card"))
    meld = Int(validate=between(0, MAX_MELD_INDEX))
    melds = List(cards_field())
    stock = cards_field()
    reason = Str(validate=one_of(END_REASONS, "a reason to end"))

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
    """A deal's claimed result: points per player, winner, outcome, and the running
    totals after it (per player, or per team in partnership gin)."""

    points = Map(Int(validate=between(-MAX_CLAIM, MAX_CLAIM)), keys=Player())
    winner = Player(allow_none=True)
    outcome = Str(allow_none=True, validate=one_of(OUTCOMES, "an outcome"))
    totals = Map(Int(validate=between(-MAX_CLAIM, MAX_CLAIM)), keys=ClaimName())
    games = List(Map(Int(validate=between(-MAX_CLAIM, MAX_CLAIM)), keys=Player()),
                 validate=Length(max=HOLLYWOOD_GAMES))


class ResultSchema(Schema):
    """A deal recorded by its result: how it ended, who ended it, the hand values, and
    the melds and counted cards where the sheet has them."""

    end = Str(required=True, validate=one_of(tuple(End), "an end of a deal"))
    by = Player()
    hand_values = Map(Int(validate=between(0, MAX_CLAIM)), keys=Player())
    melds = Map(List(cards_field()), keys=Player())
    cards = Map(cards_field(), keys=Player())


class DealSchema(Schema):
    """A deal: dealer, who plays, the cards dealt (deck or hands and upcard), the moves."""

    dealer = Player(required=True)
    players = List(Player())
    deck = cards_field(validate=Length(equal=52, error="a deck has exactly {equal} cards"))
    hands = Map(cards_field())
    upcard = CardField()
    moves = List(Object(MoveSchema),
                  validate=Length(max=MAX_MOVES, error=f"at most {MAX_MOVES} moves per deal"))
    claimed = Object(DealClaimSchema)
    result = Object(ResultSchema)

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _who_plays(self, data: dict, original_data: Any, **kwargs: Any) -> None:
        """Hands and upcard without a deck; the deal's players; hands are theirs."""
        if type(original_data) is not dict:
            return
        errors = _deal_errors(original_data, CONTEXT.get())
        if errors:
            raise ValidationError(errors)


def _deal_errors(deal: dict, ctx: Context | None) -> dict[str, Any]:
    """The cross-field rules of one deal (types are the fields' business)."""
    errors: dict[str, Any] = {}
    by_result = "result" in deal
    if by_result:
        if "moves" in deal:
            errors["result"] = ["a deal records its moves or its result, never both"]
        for key in ("deck", "hands"):
            if key in deal:
                errors[key] = [f"a deal recorded by its result has no {key!r}"]
    elif "moves" not in deal:
        errors["moves"] = ["Missing data for required field."]
    elif "deck" not in deal:
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
                errors["dealer"] = [f"{show(dealer)} does not play this deal"]
    else:
        seated = None
    result = deal.get("result")
    if by_result and type(result) is dict:
        result_errors = _result_errors(result, ctx, seated)
        if result_errors:
            errors["result"] = result_errors
        if (ctx.oklahoma and result.get("end") in GIN_ENDS and result.get("end") != End.VOID
                and "upcard" not in deal):
            errors["upcard"] = ["Missing data for required field: under oklahoma a deal's "
                                "result gives its first upcard, which sets the knock limit"]
    claimed = deal.get("claimed")
    if type(claimed) is dict and "games" in claimed and not ctx.hollywood:
        errors["claimed"] = {"games": [_NOT_HOLLYWOOD]}
    hands = deal.get("hands")
    if seated is not None and type(hands) is dict:
        hand_errors: dict[Any, Any] = {
            name: [f"{show(name)} does not play this deal"]
            for name in hands if name not in seated}
        missing = [name for name in sorted(seated) if name not in hands]
        if missing:
            hand_errors["_schema"] = ["no hand for " + ", ".join(show(n) for n in missing)]
        if hand_errors:
            errors["hands"] = hand_errors
    return errors


_NOT_HOLLYWOOD = "games are claimed only under hollywood, which plays three at once"


def _result_errors(result: dict, ctx: Context, seated: set[str] | None) -> dict[str, Any]:
    """The cross-field rules of a deal's result: the ends of the game's family, who
    ended it (nobody for a void or blocked deal), a hand value for each player it
    needs, and names of the deal's players only."""
    errors: dict[str, Any] = {}
    end = result.get("end")
    ends = GIN_ENDS if ctx.family == GIN_FAMILY else RUMMY_ENDS
    if type(end) is not str or end not in tuple(End):
        return errors  # the field says what is wrong
    if end not in ends:
        errors["end"] = [f"{show(end)} is not an end of a {ctx.family} deal; one of "
                         + ", ".join(ends)]
        return errors
    empty = end == End.VOID
    if end in ENDS_WITHOUT_PLAYER:
        if "by" in result:
            errors["by"] = [f"a {end} deal was ended by nobody"]
    elif "by" not in result:
        errors["by"] = ["Missing data for required field."]
    for key in ("hand_values", "melds", "cards"):
        if empty and key in result:
            errors[key] = [f"a void deal has no {key!r}"]
    if ctx.family != GIN_FAMILY and "melds" in result:
        errors["melds"] = ["melds are recorded in gin only; a Rummy hand value counts "
                           "every card left"]
    if not empty and "hand_values" not in result:
        errors["hand_values"] = ["Missing data for required field."]
    if seated is None:
        return errors
    by = result.get("by")
    if type(by) is str and ctx.players is not None and by in ctx.players \
            and by not in seated and "by" not in errors:
        errors["by"] = [f"{show(by)} does not play this deal"]
    for key in ("hand_values", "melds", "cards"):
        values = result.get(key)
        if type(values) is not dict or key in errors:
            continue
        key_errors: dict[Any, Any] = {
            name: [f"{show(name)} does not play this deal"] for name in values
            if type(name) is str and ctx.players is not None and name in ctx.players
            and name not in seated}
        if key == "hand_values":
            needed = seated - {by} if end in (End.OUT, End.RUMMY) else seated
            missing = [name for name in sorted(needed) if name not in values]
            if missing:
                key_errors["_schema"] = ["no hand value for "
                                         + ", ".join(show(n) for n in missing)]
        if key_errors:
            errors[key] = key_errors
    return errors


class TournamentSchema(Schema):
    """Where the game was played: tournament id, round, table."""

    id = Str(validate=Length(min=1, max=MAX_ID_LENGTH))
    round = Int(validate=between(1, MAX_ROUND))
    table = Str(validate=Length(max=MAX_ID_LENGTH))


class BonusClaimSchema(Schema):
    """The end bonuses claimed for one player (or team): boxes, game, shutout."""

    box = Int(validate=between(0, MAX_CLAIM))
    game = Int(validate=between(0, MAX_CLAIM))
    shutout = Int(validate=between(0, MAX_CLAIM))


class OneGameClaimSchema(Schema):
    """The claimed result of one game: totals per player (or team), the winner, and from
    a score sheet the boxes counted and the end bonuses."""

    totals = Map(Int(validate=between(-MAX_CLAIM, MAX_CLAIM)), keys=ClaimName())
    winner = ClaimName(allow_none=True)
    boxes = Map(Int(validate=between(0, MAX_CLAIM)), keys=ClaimName())
    bonuses = Map(Object(BonusClaimSchema), keys=ClaimName())


class GameClaimSchema(OneGameClaimSchema):
    """The game's claimed result; under ``hollywood`` also each of its three games'."""

    games = List(Object(OneGameClaimSchema), validate=Length(max=HOLLYWOOD_GAMES))


class GameSchema(Schema):
    """A rummy-log/1 game; loading it returns the :class:`Game`."""

    format = Str(required=True, validate=Equal(FORMAT, error=f"format must be {FORMAT!r}"))
    id = Str(validate=Length(max=MAX_ID_LENGTH))
    variant = Str(required=True, validate=one_of(tuple(PRESETS), "a variant"))
    rules = Map()
    players = List(Str(validate=Length(min=1, max=MAX_PLAYER_LENGTH)), required=True)
    teams = List(List(Str()))
    tournament = Object(TournamentSchema)
    played_at = Str(validate=rfc3339)
    deals = List(Object(DealSchema), required=True, validate=Length(
        min=1, max=MAX_DEALS, error=f"a game has 1 to {MAX_DEALS} deals"))
    claimed = Object(GameClaimSchema)
    meta = Map()

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None,
             unknown: Any = None) -> Any:
        """Load one game; the nested schemas see its players and variant."""
        if type(data) is not dict:
            raise ValidationError({"_schema": [f"a {FORMAT} log is a JSON object, "
                                               f"not {show(data)}"]})
        token = CONTEXT.set(context_of(data))
        try:
            return super().load(data, many=many, partial=partial, unknown=unknown)
        finally:
            CONTEXT.reset(token)

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _game_rules(self, data: dict, original_data: Any, **kwargs: Any) -> None:
        """Player count and uniqueness, teams, and the rule options."""
        if type(original_data) is not dict:
            return
        errors = _game_errors(original_data, CONTEXT.get() or context_of(original_data))
        if errors:
            raise ValidationError(errors)

    @post_load
    def _build(self, data: dict, **kwargs: Any) -> Game:
        return _build_from_loaded(data)


def _game_errors(raw: dict, ctx: Context) -> dict[str, Any]:
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
                "players must be unique: " + ", ".join(show(p) for p in repeated) + " repeated")
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
    claimed = raw.get("claimed")
    if type(claimed) is dict and "games" in claimed and not ctx.hollywood:
        errors["claimed"] = {"games": [_NOT_HOLLYWOOD]}
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
        for m in d.get("moves", ()):
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
            result=_result_from_loaded(d["result"], seat) if "result" in d else None,
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


def _result_from_loaded(r: dict, seat: dict[str, int]) -> Result:
    def by_seat(key: str, convert: Any) -> Any:
        return ({seat[name]: convert(value) for name, value in r[key].items()}
                if key in r else None)

    return Result(end=End(r["end"]), by=seat[r["by"]] if "by" in r else None,
                  hand_values=by_seat("hand_values", int),
                  melds=by_seat("melds", lambda melds: tuple(tuple(m) for m in melds)),
                  cards=by_seat("cards", tuple))


GAME_SCHEMA = GameSchema()


def schema_errors(obj: Any) -> dict[str, list[str]]:
    """Every problem the schemas and the rule of names find in ``obj`` by dotted path;
    empty when it is valid."""
    out: dict[str, list[str]] = {}
    try:
        GAME_SCHEMA.load(obj)
    except ValidationError as exc:
        flatten(exc.messages, "", out)
    for path, messages in name_errors(obj).items():
        out.setdefault(path, []).extend(messages)
    return out

"""The option set, the presets and the validation of a log's ``rules`` overrides.

Every rule that differs between the source texts is an option; a preset is a named
bundle of option values.  A log names a preset and may override any option of its
family.  The source texts are numbered 000 to 003; ``SOURCES`` names each in words,
the one place the pages and the documents take those names from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from .limits import MAX_DEALS, MAX_MOVES, MAX_OPTION_POINTS
from .words import plural


class Family(StrEnum):
    """The two families of rules: the Rummy family (four presets) and Gin Rummy."""

    RUMMY = "rummy"
    GIN = "gin"


class AceMode(StrEnum):
    """Where an ace may stand in a run (see ``melds``)."""

    LOW = "low"  # A-2-3 only
    HIGH_OR_LOW = "high_or_low"  # Q-K-A too, never K-A-2
    AROUND_THE_CORNER = "around_the_corner"  # K-A-2 too


class RummyBonus(StrEnum):
    """What going rummy (out in one turn, nothing laid before) is worth."""

    DOUBLE = "double"  # the winner's points doubled
    PLUS10 = "plus10"  # ten more from each opponent
    PENALTY25 = "penalty25"  # the others' penalties 25 higher (penalty scoring)
    NONE = "none"


class StockPolicy(StrEnum):
    """What happens when the stock runs out (Rummy family)."""

    TURN_OVER = "turn_over"  # the discard pile flipped as one block
    KEEP_TOP = "reshuffle_keep_top"  # all discards but the top shuffled
    KEEP_LAST_DISCARD = "reshuffle_keep_last_discard"  # rebuilt right after the last discard
    RESHUFFLE_ALL = "reshuffle_all"  # the whole pile shuffled
    END_DEAL = "end_deal"  # the deal ends, blocked


class Scoring(StrEnum):
    """Who scores a Rummy-family deal."""

    WINNER_COLLECTS = "winner_collects"  # the winner scores the others' hands
    PENALTY = "penalty"  # each loser scores their own hand as a penalty
    SETTLEMENT = "settlement"  # each loser pays the winner their hand's value


RUMMY, GIN = Family.RUMMY, Family.GIN
ACE_MODES = tuple(AceMode)
RUMMY_BONUSES = tuple(RummyBonus)
STOCK_POLICIES = tuple(StockPolicy)
SCORINGS = tuple(Scoring)
UNLIMITED = "unlimited"


@dataclass(frozen=True, slots=True)
class Rules:
    """One game's complete option set, every default resolved."""

    variant: str
    family: Family
    ace: AceMode = AceMode.LOW
    ace_points: int = 1
    hand_size: int = 10
    discard_taken_card: bool = False
    target: int | None = None
    deals: int | None = None
    # Rummy family
    melds_per_turn: int | None = None  # None: unlimited
    layoff_requires_own_meld: bool = False
    discard_to_go_out: bool = False
    rummy_bonus: RummyBonus = RummyBonus.DOUBLE
    stock_exhausted: StockPolicy = StockPolicy.TURN_OVER
    max_stock_reuses: int | None = None
    scoring: Scoring = Scoring.WINNER_COLLECTS
    # Gin
    knock_limit: int = 10
    oklahoma: bool = False
    gin_bonus: int = 25
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    big_gin_bonus: int | None = None
    box_bonus: int = 20
    shutout_bonus: int = 100
    shutout_double: bool = False
    game_bonus: int = 0
    upcard_pass: bool = False
    stock_floor: int = 2
    hollywood: bool = False

    @property
    def is_gin(self) -> bool:
        return self.family == GIN

    def as_dict(self) -> dict[str, Any]:
        """The options of this game's family, as a log would write them."""
        out = {}
        for f in fields(self):
            if f.name in ("variant", "family"):
                continue
            spec = OPTIONS[f.name]
            if spec.family in (self.family, "both"):
                value = getattr(self, f.name)
                if f.name == "melds_per_turn":
                    value = UNLIMITED if value is None else value
                out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    family: str  # "rummy", "gin" or "both"
    kind: str  # "bool", "int", "choice"
    description: str
    source: str
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    choices: tuple[Any, ...] = ()


def _spec(name, family, kind, description, source, **kw) -> tuple[str, OptionSpec]:
    return name, OptionSpec(name, family, kind, description, source, **kw)


OPTIONS: dict[str, OptionSpec] = dict([
    _spec("ace", "both", "choice", "Ace in runs: low only, high or low, or around the corner",
          "000, 002, 003", choices=ACE_MODES),
    _spec("ace_points", "both", "int", "Points of an ace left in hand (default: 1 when aces are "
          "low, 15 when they may be high; greek 11)", "000, 002, 003", minimum=0,
          maximum=MAX_OPTION_POINTS),
    _spec("hand_size", "both", "int", "Cards dealt to each player (default 10 with 2 players, "
          "7 with 3-4, 6 with 5-6; gin and greek 10)", "001, 002, 003", minimum=1,
          maximum=25),
    _spec("discard_taken_card", "both", "bool", "May the card taken from the discard pile be "
          "discarded the same turn", "000, 002 (ban)"),
    _spec("target", "both", "int", "Points that end the game", "000, 001, 002",
          minimum=1, maximum=MAX_OPTION_POINTS, nullable=True),
    _spec("deals", "both", "int", "Fixed number of deals (gin partnerships: rounds)",
          "000, 002", minimum=1, maximum=MAX_DEALS, nullable=True),
    _spec("melds_per_turn", "rummy", "choice", "Melds a player may lay in one turn",
          "000 (1; house rule unlimited), 002, 003", choices=(1, UNLIMITED)),
    _spec("layoff_requires_own_meld", "rummy", "bool", "No layoff before one's own first meld",
          "000 house rule"),
    _spec("discard_to_go_out", "rummy", "bool", "Going out needs a final discard",
          "000/002 variant, 003"),
    _spec("rummy_bonus", "rummy", "choice", "Bonus for going rummy", "000, 002, 003",
          choices=RUMMY_BONUSES),
    _spec("stock_exhausted", "rummy", "choice", "What happens when the stock runs out",
          "000, 002, 003", choices=STOCK_POLICIES),
    _spec("max_stock_reuses", "rummy", "int", "Reuses of the discard pile per deal "
          "(null: unlimited)", "000 suggestion", minimum=0, maximum=MAX_MOVES, nullable=True),
    _spec("scoring", "rummy", "choice", "Who scores a deal", "000, 002, 003", choices=SCORINGS),
    _spec("knock_limit", "gin", "int", "Highest deadwood that may knock (0: straight gin)",
          "001", minimum=0, maximum=10),
    _spec("oklahoma", "gin", "bool", "The first upcard sets the knock limit; a spade doubles",
          "beyond the seeds (002 names Oklahoma Gin)"),
    _spec("gin_bonus", "gin", "int", "Bonus for going gin", "001", minimum=0,
          maximum=MAX_OPTION_POINTS),
    _spec("undercut_bonus", "gin", "int", "Bonus for an undercut", "001", minimum=0,
          maximum=MAX_OPTION_POINTS),
    _spec("undercut_on_tie", "gin", "bool", "A tie in deadwood is an undercut", "001"),
    _spec("big_gin_bonus", "gin", "int", "Bonus for big gin (null: not allowed)",
          "beyond the seeds", minimum=0, maximum=MAX_OPTION_POINTS, nullable=True),
    _spec("box_bonus", "gin", "int", "Bonus per hand won, added at game end", "001", minimum=0,
          maximum=MAX_OPTION_POINTS),
    _spec("shutout_bonus", "gin", "int", "Bonus when the loser scored nothing", "001",
          minimum=0, maximum=MAX_OPTION_POINTS),
    _spec("shutout_double", "gin", "bool", "A shutout doubles the winner's whole score instead "
          "of adding shutout_bonus", "common usage"),
    _spec("game_bonus", "gin", "int", "Bonus for winning the game", "common usage", minimum=0,
          maximum=MAX_OPTION_POINTS),
    _spec("upcard_pass", "gin", "bool", "The first upcard may be refused by both players",
          "common usage"),
    _spec("stock_floor", "gin", "int", "Cards the stock is never drawn below", "common usage",
          minimum=0, maximum=52),
    _spec("hollywood", "gin", "bool", "Hollywood: three games scored at once, a player's first "
          "win in game 1, the second in games 1 and 2, the rest in all three (two players)",
          "beyond the seeds (002 names Hollywood Gin)"),
])


# The options whose values are a closed set of names, by option.
_CHOICE_TYPES = {"ace": AceMode, "rummy_bonus": RummyBonus, "stock_exhausted": StockPolicy,
                 "scoring": Scoring}


@dataclass(frozen=True, slots=True)
class Source:
    """One of the four rule texts the rules were gathered from (docs/RULES.md, "Where
    the rules come from"), as people name it."""

    number: str
    name: str
    language: str

    def __str__(self) -> str:
        return f"{self.name}, {self.language} rules (seed {self.number})"


SOURCES: dict[str, Source] = {source.number: source for source in (
    Source("000", "Rummy with house rules and Block Rummy", "French"),
    Source("001", "Gin Rummy", "French"),
    Source("002", "basic Rummy", "French"),
    Source("003", "Rummy as played online in Greece", "Greek"),
)}
# The origins that are no text: said as they are.
OTHER_ORIGINS = {"common usage": "not in any of the texts: the way the rule is usually "
                                 "played",
                 "beyond the seeds": "a rule the project added that no text describes"}
_SOURCE_NUMBER = re.compile(r"\b\d{3}\b")


def cited_sources(source: str) -> tuple[Source, ...]:
    """The texts a ``source`` field names ("000, 002 (ban)": 000 and 002), in order."""
    seen = dict.fromkeys(_SOURCE_NUMBER.findall(source))
    return tuple(SOURCES[number] for number in seen if number in SOURCES)


def source_in_words(source: str) -> str:
    """A ``source`` field said in words: a preset's one text in full ("basic Rummy,
    French rules (seed 002)"), an option's texts each named, an origin that is no text
    said as what it is."""
    if source in SOURCES:
        return str(SOURCES[source])
    for origin, words in OTHER_ORIGINS.items():
        if source.startswith(origin):
            return words
    cited = cited_sources(source)
    if not cited:
        return source
    return "; ".join(str(text) for text in cited)


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    family: Family
    min_players: int
    max_players: int
    source: str
    defaults: dict[str, Any]


PRESETS: dict[str, Preset] = {
    "rummy": Preset("rummy", RUMMY, 2, 6, "002", {
        "melds_per_turn": UNLIMITED, "stock_exhausted": StockPolicy.KEEP_TOP,
        "scoring": Scoring.WINNER_COLLECTS, "rummy_bonus": RummyBonus.DOUBLE, "target": 150}),
    "rummy-pagat": Preset("rummy-pagat", RUMMY, 2, 6, "000", {
        "melds_per_turn": 1, "stock_exhausted": StockPolicy.TURN_OVER,
        "scoring": Scoring.WINNER_COLLECTS, "rummy_bonus": RummyBonus.DOUBLE}),
    "rummy-block": Preset("rummy-block", RUMMY, 2, 6, "000", {
        "melds_per_turn": 1, "stock_exhausted": StockPolicy.END_DEAL,
        "scoring": Scoring.WINNER_COLLECTS, "rummy_bonus": RummyBonus.DOUBLE}),
    "gin": Preset("gin", GIN, 2, 4, "001", {"target": 100}),
    "greek": Preset("greek", RUMMY, 2, 4, "003", {
        "ace": AceMode.HIGH_OR_LOW, "ace_points": 11, "hand_size": 10,
        "melds_per_turn": UNLIMITED, "discard_to_go_out": True,
        "rummy_bonus": RummyBonus.PENALTY25, "stock_exhausted": StockPolicy.KEEP_LAST_DISCARD,
        "scoring": Scoring.PENALTY}),
}


def default_hand_size(family: str, n_players: int) -> int:
    """002: 10 cards with two players, 7 with three or four, 6 with five or six; gin 10."""
    if family == GIN or n_players <= 2:
        return 10
    return 7 if n_players <= 4 else 6


def _check_value(spec: OptionSpec, value: Any) -> str | None:
    """The reason a value is out of the option's range, or None when it is fine."""
    if value is None:
        return None if spec.nullable else f"{spec.name} may not be null"
    if spec.kind == "bool":
        return None if isinstance(value, bool) else f"{spec.name} must be true or false"
    if spec.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{spec.name} must be an integer"
        if not spec.minimum <= value <= spec.maximum:
            return f"{spec.name} must be an integer from {spec.minimum} to {spec.maximum}"
        return None
    if isinstance(value, bool) or value not in spec.choices:
        allowed = ", ".join(repr(c) if isinstance(c, str) else str(c) for c in spec.choices)
        return f"{spec.name} must be one of {allowed}"
    return None


def resolve_rules(variant: str, overrides: dict[str, Any] | None,
                  n_players: int) -> tuple[Rules | None, dict[str, str]]:
    """The game's options from its preset and overrides, or the errors by option name.

    ``n_players`` is the number of players seated at the game; it picks the default hand
    size and bounds ``hand_size`` so that a stock is left (players x size + 1 <= 52;
    in gin the two players of a deal).
    """
    preset = PRESETS.get(variant)
    if preset is None:
        return None, {"variant": f"unknown preset {variant!r}; one of {', '.join(PRESETS)}"}
    errors: dict[str, str] = {}
    values: dict[str, Any] = dict(preset.defaults)
    for name, value in (overrides or {}).items():
        spec = OPTIONS.get(name)
        if spec is None:
            errors[name] = f"unknown option {name!r}"
            continue
        if spec.family not in ("both", preset.family):
            errors[name] = f"{name} is a {spec.family} option, not one of {variant}"
            continue
        problem = _check_value(spec, value)
        if problem:
            errors[name] = problem
            continue
        values[name] = _CHOICE_TYPES[name](value) if name in _CHOICE_TYPES else value
    if errors:
        return None, errors
    if values.get("melds_per_turn") == UNLIMITED:
        values["melds_per_turn"] = None
    if "ace_points" not in values:
        values["ace_points"] = 1 if values.get("ace", AceMode.LOW) == AceMode.LOW else 15
    if "hand_size" not in values:
        values["hand_size"] = default_hand_size(preset.family, n_players)
    if values.get("hollywood") and n_players != 2:
        return None, {"hollywood": "Hollywood gin is played by two players, not "
                                   f"{n_players}"}
    seated = 2 if preset.family == GIN else n_players
    if seated * values["hand_size"] + 1 > 52:
        return None, {"hand_size": f"hand_size {values['hand_size']} leaves no stock "
                                   f"with {plural(seated, 'player')}"}
    return Rules(variant=variant, family=preset.family, **values), {}


def with_options(rules: Rules, **changes: Any) -> Rules:
    return replace(rules, **changes)

"""The fast path: hand-written checks over a decoded document's dicts that build the
game directly, for the valid logs that are nearly every upload.

It must accept exactly what the schemas accept and build an equal game; at the first
problem of any kind it gives up (``None``), and the schemas then say what is wrong.
The test suite checks both on random documents.

Measured by ``benchmarks/logformat.py`` (40 generated games per preset, CPU time per log,
best of 5, on a loaded two-core machine): the fast path reads a log in 0.34-0.96 ms, the
schemas in 8-26 ms, 17 to 31 times slower (greek 17x, gin 29x, rummy-pagat 31x).  The
fast path is why validation is a small share of an upload's cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..cards import RANKS, SUITS, Card, parse_card
from ..limits import (
    MAX_CLAIM,
    MAX_DEALS,
    MAX_ID_LENGTH,
    MAX_MELD_INDEX,
    MAX_MOVES,
    MAX_PLAYER_LENGTH,
    MAX_ROUND,
    instant,
)
from ..model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    END,
    ENDS_WITHOUT_PLAYER,
    GIN,
    GIN_ENDS,
    KNOCK,
    LAYOFF,
    MELD,
    OUTCOMES,
    RESHUFFLE,
    RUMMY_ENDS,
    SHOW,
    STOCK,
    Deal,
    End,
    Game,
    Move,
    Result,
)
from ..rules import GIN as GIN_FAMILY
from ..rules import PRESETS, Rules, resolve_rules
from .shape import (
    ACTION_OF,
    BONUS_KINDS,
    DEAL_CLAIM_KEYS,
    DEAL_KEYS,
    END_REASONS,
    FORMAT,
    GAME_CLAIM_KEYS,
    GAME_KEYS,
    HOLLYWOOD_GAMES,
    MOVE_KEYS,
    ONE_GAME_CLAIM_KEYS,
    RESULT_KEYS,
    TOURNAMENT_KEYS,
    team_names,
)


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
    a = ACTION_OF.get(text)
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
    allowed = MOVE_KEYS.get(a)
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


def _claims(claimed: Any, keys: frozenset[str], points: str,
            names: Iterable[str] | dict[str, int]) -> dict[str, Any]:
    """A deal's or a game's ``claimed`` object: only ``keys``, integer ``points`` by
    name, and a ``winner`` that is one of ``names`` or null."""
    if type(claimed) is not dict or not claimed.keys() <= keys:
        raise _Reject
    if points in claimed:
        _int_map(claimed[points], names)
    if "winner" in claimed:
        winner = claimed["winner"]
        if winner is not None and (type(winner) is not str or winner not in names):
            raise _Reject
    return claimed


def _text(value: Any, low: int, high: int) -> None:
    """A string of ``low`` to ``high`` characters."""
    if type(value) is not str or not low <= len(value) <= high:
        raise _Reject


def _int_map(value: Any, names: Iterable[str] | dict[str, int], low: int = -MAX_CLAIM) -> None:
    if type(value) is not dict:
        raise _Reject
    for key, item in value.items():
        if type(key) is not str or key not in names or type(item) is not int \
                or not low <= item <= MAX_CLAIM:
            raise _Reject


def _game_claims(claimed: Any, names: Any, hollywood: bool,
                 keys: frozenset[str] = GAME_CLAIM_KEYS) -> dict[str, Any]:
    """The game's ``claimed``: totals, winner, boxes and end bonuses by player or team,
    and under ``hollywood`` the same for each of its games."""
    claimed = _claims(claimed, keys, "totals", names)
    if "games" in claimed:
        games = claimed["games"]
        if not hollywood or type(games) is not list or len(games) > HOLLYWOOD_GAMES:
            raise _Reject
        for one in games:
            _game_claims(one, names, hollywood, ONE_GAME_CLAIM_KEYS)
    if "boxes" in claimed:
        _int_map(claimed["boxes"], names, 0)
    if "bonuses" in claimed:
        bonuses = claimed["bonuses"]
        if type(bonuses) is not dict:
            raise _Reject
        for key, kinds in bonuses.items():
            if type(key) is not str or key not in names or type(kinds) is not dict:
                raise _Reject
            for kind, value in kinds.items():
                if kind not in BONUS_KINDS or type(value) is not int \
                        or not 0 <= value <= MAX_CLAIM:
                    raise _Reject
    return claimed


def _fast_result(r: Any, seat: dict[str, int], seated: Any, family: str) -> Result:
    """A deal's ``result``: exactly what ``ResultSchema`` and its cross-field rules take."""
    if type(r) is not dict or not r.keys() <= RESULT_KEYS:
        raise _Reject
    end = r.get("end")
    ends = GIN_ENDS if family == GIN_FAMILY else RUMMY_ENDS
    if type(end) is not str or end not in ends:
        raise _Reject
    end = End(end)
    by = None
    if end in ENDS_WITHOUT_PLAYER:
        if "by" in r:
            raise _Reject
    else:
        name = r.get("by")
        if type(name) is not str or name not in seated:
            raise _Reject
        by = seat[name]
    if end == End.VOID:
        if r.keys() != {"end"}:
            raise _Reject
        return Result(end=end)
    if family != GIN_FAMILY and "melds" in r:
        raise _Reject
    raw_values = r.get("hand_values")
    if type(raw_values) is not dict:
        raise _Reject
    _int_map(raw_values, seated, 0)
    needed = seated - {r["by"]} if end in (End.OUT, End.RUMMY) else seated
    if not raw_values.keys() >= needed:
        raise _Reject
    hand_values = {seat[name]: value for name, value in raw_values.items()}
    melds = cards = None
    if "melds" in r:
        raw = r["melds"]
        if type(raw) is not dict:
            raise _Reject
        melds = {}
        for name, value in raw.items():
            if type(name) is not str or name not in seated:
                raise _Reject
            melds[seat[name]] = _melds(value)
    if "cards" in r:
        raw = r["cards"]
        if type(raw) is not dict:
            raise _Reject
        cards = {}
        for name, value in raw.items():
            if type(name) is not str or name not in seated:
                raise _Reject
            cards[seat[name]] = _card_list(value)
    return Result(end=end, by=by, hand_values=hand_values, melds=melds, cards=cards)


def _fast_deal(d: Any, seat: dict[str, int], rules: Rules, n_players: int,
               claim_names: Any) -> Deal:
    family = rules.family
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
    hands = None
    upcard = None
    result = None
    if "result" in d:
        if "moves" in d or "deck" in d or "hands" in d:
            raise _Reject
        result = _fast_result(d["result"], seat, seated, family)
        if "upcard" in d:
            upcard = _card(d["upcard"])
        elif rules.oklahoma and result.end != End.VOID:
            raise _Reject
        moves: Any = []
    else:
        deck, hands, upcard, moves = _dealt(d, seat, seated)
    claimed = None
    if "claimed" in d:
        claimed = _claims(d["claimed"], DEAL_CLAIM_KEYS, "points", seat)
        if "outcome" in claimed:
            outcome = claimed["outcome"]
            if outcome is not None and (type(outcome) is not str or outcome not in OUTCOMES):
                raise _Reject
        if "totals" in claimed:
            _int_map(claimed["totals"], claim_names)
        if "games" in claimed:
            games = claimed["games"]
            if not rules.hollywood or type(games) is not list \
                    or len(games) > HOLLYWOOD_GAMES:
                raise _Reject
            for running in games:
                _int_map(running, seat)
    return Deal(dealer=seat[dealer], moves=_moves(moves, seat),
                players=deal_players, deck=deck, hands=hands, upcard=upcard, claimed=claimed,
                result=result)


def _dealt(d: dict, seat: dict[str, int], seated: Any) -> tuple[Any, Any, Any, list]:
    """A deal recorded by its moves: the deck or the hands and upcard, and the moves."""
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
    return deck, hands, upcard, moves


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
        _text(name, 1, MAX_PLAYER_LENGTH)
    seat = {name: i for i, name in enumerate(players)}
    if len(seat) != n:
        raise _Reject
    family = preset.family
    if "id" in obj:
        _text(obj["id"], 0, MAX_ID_LENGTH)
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
        claim_names = set(seat) | set(team_names(raw_teams))
    elif "teams" in obj:
        raise _Reject
    if "tournament" in obj:
        tour = obj["tournament"]
        if type(tour) is not dict or not tour.keys() <= TOURNAMENT_KEYS:
            raise _Reject
        if "id" in tour:
            _text(tour["id"], 1, MAX_ID_LENGTH)
        if "round" in tour:
            rnd = tour["round"]
            if type(rnd) is not int or not 1 <= rnd <= MAX_ROUND:
                raise _Reject
        if "table" in tour:
            _text(tour["table"], 0, MAX_ID_LENGTH)
    if "played_at" in obj:
        when = obj["played_at"]
        if type(when) is not str or instant(when) is None:
            raise _Reject
    raw_deals = obj.get("deals")
    if type(raw_deals) is not list or not 1 <= len(raw_deals) <= MAX_DEALS:
        raise _Reject
    deals = tuple([_fast_deal(d, seat, rules, n, claim_names) for d in raw_deals])
    claimed = None
    if "claimed" in obj:
        claimed = _game_claims(obj["claimed"], claim_names, rules.hollywood)
    meta = obj.get("meta", {})
    if type(meta) is not dict:
        raise _Reject
    return Game(rules=rules, players=tuple(players), deals=deals, teams=teams,
                claimed=claimed, meta=meta)

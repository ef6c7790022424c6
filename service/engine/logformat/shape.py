"""What a ``rummy-log/1`` document holds: its format name, the keys of each object, and
the fields each move action takes."""

from __future__ import annotations

from typing import Any

from ..model import (
    DISCARD,
    DISCARD_PILE,
    DRAW,
    END,
    GIN,
    KNOCK,
    LAYOFF,
    MELD,
    PASS,
    RESHUFFLE,
    SHOW,
    STOCK,
    Action,
)

FORMAT = "rummy-log/1"
END_REASONS = ("stock_exhausted",)
SOURCES = (STOCK, DISCARD_PILE)

GAME_KEYS = frozenset(("format", "id", "variant", "rules", "players", "teams", "tournament",
                       "played_at", "deals", "claimed", "meta"))
DEAL_KEYS = frozenset(("dealer", "players", "deck", "hands", "upcard", "moves", "claimed",
                       "result"))
RESULT_KEYS = frozenset(("end", "by", "hand_values", "melds", "cards"))
TOURNAMENT_KEYS = frozenset(("id", "round", "table"))
ONE_GAME_CLAIM_KEYS = frozenset(("totals", "winner", "boxes", "bonuses"))
GAME_CLAIM_KEYS = ONE_GAME_CLAIM_KEYS | {"games"}
DEAL_CLAIM_KEYS = frozenset(("points", "winner", "outcome", "totals", "games"))
HOLLYWOOD_GAMES = 3  # claims of each game of a Hollywood match: at most three
BONUS_KINDS = ("box", "game", "shutout")  # a claimed end bonus, per player or team

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
MOVE_KEYS = {a: frozenset(("p", "a")) | req | opt for a, (req, opt) in ACTION_FIELDS.items()}
ACTION_OF = {action.value: action for action in Action}


def team_names(teams: Any) -> list[str]:
    """Team names ``a+b`` (players joined by ``+`` in team order) of well-formed teams."""
    if type(teams) is not list:
        return []
    return ["+".join(team) for team in teams
            if type(team) is list and all(type(name) is str for name in team)]

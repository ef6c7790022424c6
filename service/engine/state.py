"""The table after a given move: what a replay viewer shows.

Moves are replayed from the deal's start; an illegal move stops the replay there and
the state is the one before it, with the violation named.
"""

from __future__ import annotations

from typing import Any

from .cards import card_name
from .gin import GinTable
from .model import Game
from .replay import verify
from .rummy import RummyTable
from .table import Table
from .words import plural


class NoSuchPosition(LookupError):
    pass


def by_result(deal_index: int) -> str:
    """Why a deal recorded by its result has no positions."""
    return (f"deal {deal_index} is recorded by its result (a score sheet): its play is not "
            "recorded, so it has no positions")


def _cards(mask: int) -> list[str]:
    return [card_name(c) for c in range(52) if mask >> c & 1]


def held(table: Table, seat: int) -> int:
    """The cards a player still holds in front of them: in gin, once a knock is made,
    the knocker's declared melds lie on the table and the cards the defender laid off
    lie on them, so neither is shown in its hand as well."""
    mask = table.hands[seat]
    if isinstance(table, GinTable) and table.knocker is not None:
        if seat == table.knocker:
            for meld, _ in table.knock_melds:
                mask &= ~meld
        else:
            mask &= ~table.laid_off
    return mask


def _melds(table: Table) -> list[dict[str, Any]]:
    if isinstance(table, GinTable):
        owner = table.name(table.knocker) if table.knocker is not None else None
        return [{"cards": _cards(mask), "kind": kind, "owner": owner}
                for mask, kind in table.knock_melds]
    assert isinstance(table, RummyTable)
    return [{"cards": _cards(mask), "kind": kind} for mask, kind in table.melds]


def table_after(game: Game, deal_index: int,
                move_index: int) -> tuple[Table, dict[str, Any] | None]:
    """The table of deal ``deal_index`` after move ``move_index`` (-1: as dealt), and
    the violation that stopped the replay before it (``move``, ``code``, ``message``),
    if any.  The table is the engine's own: ``legal_moves()`` lists what may be played
    there, and ``play`` plays a move on it."""
    if not 0 <= deal_index < len(game.deals):
        raise NoSuchPosition(f"the game has {plural(len(game.deals), 'deal')}")
    deal = game.deals[deal_index]
    if deal.result is not None:
        raise NoSuchPosition(by_result(deal_index))
    if not -1 <= move_index < len(deal.moves):
        raise NoSuchPosition(f"deal {deal_index} has {plural(len(deal.moves), 'move')}")
    names = game.players
    seats = tuple(sorted(deal.players)) if deal.players else tuple(range(len(names)))
    table: Table = (GinTable if game.rules.is_gin else RummyTable)(game.rules, names, deal,
                                                                   seats)
    problem = table.deal_cards(deal)
    if problem:
        return table, {"move": None, "code": problem[0], "message": problem[1]}
    for m, move in enumerate(deal.moves[:move_index + 1]):
        problem = table.play(move)
        if problem:
            return table, {"move": m, "code": problem[0], "message": problem[1]}
    return table, None


def state_after(game: Game, deal_index: int, move_index: int) -> dict[str, Any]:
    """The table of deal ``deal_index`` after move ``move_index`` (-1: as dealt)."""
    table, stopped = table_after(game, deal_index, move_index)
    deal = game.deals[deal_index]
    report = verify(game)
    names = game.players
    scores = dict.fromkeys(names, 0)
    for result in report.deals[:deal_index]:
        for player, points in result.points.items():
            scores[player] += points
    result = report.deals[deal_index]
    ended = stopped is None and move_index == len(deal.moves) - 1 and result.outcome is not None
    if ended:
        for player, points in result.points.items():
            scores[player] += points
    return {
        "deal": deal_index,
        "move": move_index,
        "players": [names[s] for s in table.order],
        "to_move": None if table.ended or ended else names[table.to_move],
        "hands": {names[s]: _cards(held(table, s)) for s in table.order},
        "hand_values": table.hand_values(),
        "stock_count": table.stock_count,
        "discard_top": card_name(table.pile[-1]) if table.pile else None,
        "discard_count": len(table.pile),
        "melds": _melds(table),
        "deal_over": ended,
        "outcome": result.outcome if ended else None,
        "scores": scores,
        "stopped_by": stopped,
    }

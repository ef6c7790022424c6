"""Every position of one deal, replayed once: what a replay viewer steps through.

``deal_positions(game, d)`` plays deal ``d`` move by move on the engine's own table and
keeps a snapshot before the first move and after each one, so a viewer can step
without asking again.  An illegal move stops the replay: its position is the table as
the move found it, with the violation named, and the moves after it have none.  Each
move is also said in words ("ben draws 9D from the stock"), as the table found it (a
draw from the discard pile names the card it took), and as the other players at the
table know it (``public``: "ben draws from the stock"), for a view from one seat; and
each position names the hands every player sees (``public``): those laid down at the
show, the knocker's and the defender's in gin, and every hand once the deal is scored.
"""

from __future__ import annotations

from typing import Any

from .cards import card_name, cards_of, mask_of, names
from .gin import VOID, GinTable
from .melds import best_arrangement
from .model import (
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
    Game,
    Move,
)
from .replay import verify
from .report import MISMATCH, VALID
from .rummy import RummyTable
from .state import NoSuchPosition, by_result, held
from .table import Table
from .words import plural


def _codes(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]


def move_in_words(move: Move, table: Table) -> str:
    """What the move does, said as a person would, on the table it is played on (before
    it): the player, the action, the cards and where they come from or go."""
    who = table.name(move.player)
    action = move.action
    if action == DRAW:
        if move.source == DISCARD_PILE:
            card = move.card if move.card is not None else (table.pile[-1] if table.pile
                                                            else None)
            taken = card_name(card) if card is not None else "the top card"
            return f"{who} takes {taken} from the discard pile"
        if move.card is None:
            return f"{who} draws from the stock"
        return f"{who} draws {card_name(move.card)} from the stock"
    if action == DISCARD:
        return f"{who} discards {card_name(move.card)}"
    if action == MELD:
        return f"{who} melds {names(sorted(move.cards or ()))}"
    if action == LAYOFF:
        return f"{who} lays {card_name(move.card)} off on meld {(move.meld or 0) + 1}"
    if action in (KNOCK, GIN):
        verb = "knocks" if action == KNOCK else "goes gin"
        if move.card is None:
            return f"{who} {verb} without discarding"
        return f"{who} {verb}, discarding {card_name(move.card)}"
    if action == SHOW:
        shown = "; ".join(names(sorted(meld)) for meld in move.melds or ())
        return f"{who} shows {shown}" if shown else f"{who} shows no melds"
    if action == PASS:
        return f"{who} passes"
    if action == RESHUFFLE:
        return f"{who} turns the discards into a new stock"
    if action == END:
        return f"{who} ends the deal: the stock is gone for good"
    return f"{who} plays {action}"


def public_words(move: Move, table: Table) -> str:
    """The move as the other players at the table know it: everything but the card a
    player draws from the stock, which only they see.  A card taken from the discard
    pile, shown, melded, laid off or discarded is seen by all."""
    if move.action == DRAW and move.source != DISCARD_PILE:
        return f"{table.name(move.player)} draws from the stock"
    return move_in_words(move, table)


def _arranged(table: Table, seat: int) -> dict[str, Any]:
    """A hand as a person holds it: the melds of its best arrangement, then the rest
    (deadwood), each sorted by suit and rank."""
    mask = held(table, seat)
    _, melds = best_arrangement(mask, table.rules.ace, table.points)
    rest = mask & ~mask_of(c for meld in melds for c in cards_of(meld))
    return {"melds": [_codes(meld) for meld in melds], "rest": _codes(rest),
            "count": mask.bit_count()}


def _table_melds(table: Table, owners: list[str | None]) -> list[dict[str, Any]]:
    if isinstance(table, GinTable):
        owner = table.name(table.knocker) if table.knocker is not None else None
        return [{"cards": _codes(mask), "kind": str(kind), "owner": owner}
                for mask, kind in table.knock_melds]
    assert isinstance(table, RummyTable)
    return [{"cards": _codes(mask), "kind": str(kind), "owner": owners[i]}
            for i, (mask, kind) in enumerate(table.melds)]


def _laid_down(table: Table) -> list[str]:
    """The hands laid face up before the deal is over (001): the knocker's from the
    knock or gin on, the defender's once they show.  Every other hand is seen only by
    its player until the deal's hands are counted."""
    if not isinstance(table, GinTable) or table.knocker is None:
        return []
    shown = {table.knocker} | ({table.defender} if table.shown is not None else set())
    return [table.name(seat) for seat in table.order if seat in shown]


def _snapshot(table: Table, owners: list[str | None]) -> dict[str, Any]:
    order = table.order
    return {
        "public": _laid_down(table),
        "to_move": None if table.ended else table.name(table.to_move),
        "hands": {table.name(seat): _arranged(table, seat) for seat in order},
        "hand_values": table.hand_values(),
        "stock_count": table.stock_count,
        "discard_top": card_name(table.pile[-1]) if table.pile else None,
        "discard_pile": [card_name(c) for c in table.pile],
        "melds": _table_melds(table, owners),
    }


def deal_positions(game: Game, deal_index: int) -> dict[str, Any]:
    """Deal ``deal_index`` (0-based) replayed once: the players in play order, the dealer,
    every move in words (``words``, and ``public`` as the other players know it), and the positions: ``positions[0]`` as dealt, ``positions[k]``
    after the k-th move, up to the end or to the illegal move that stopped the replay
    (``stopped_by``: its 0-based ``move``, None for a problem of the deal as a whole,
    ``code`` and ``message``; that move's position is the table as it found it).
    ``scores`` are the totals before the deal, and after it once it is over; ``final``,
    on the last deal of a game that has a winner, the game's totals with its end
    bonuses (gin's boxes, game bonus and shutouts), else None."""
    if not 0 <= deal_index < len(game.deals):
        raise NoSuchPosition(f"the game has {plural(len(game.deals), 'deal')}")
    deal = game.deals[deal_index]
    if deal.result is not None:
        raise NoSuchPosition(by_result(deal_index))
    players = game.players
    seats = tuple(sorted(deal.players)) if deal.players else tuple(range(len(players)))
    table: Table = (GinTable if game.rules.is_gin else RummyTable)(game.rules, players, deal,
                                                                   seats)
    report = verify(game)
    before = dict.fromkeys(players, 0)
    for result in report.deals[:deal_index]:
        for player, points in result.points.items():
            before[player] += points
    result = report.deals[deal_index]
    owners: list[str | None] = []
    stopped: dict[str, Any] | None = None
    problem = table.deal_cards(deal)
    positions = [_snapshot(table, owners)]
    words: list[tuple[str, str]] = []
    if problem:
        stopped = {"move": None, "code": problem[0], "message": problem[1]}
    for m, move in enumerate(deal.moves):
        words.append((move_in_words(move, table), public_words(move, table)))
        if stopped is not None:
            continue
        melds_before = len(table.melds) if isinstance(table, RummyTable) else 0
        problem = table.play(move)
        if problem:
            stopped = {"move": m, "code": problem[0], "message": problem[1]}
            positions.append(_snapshot(table, owners))
            continue
        if isinstance(table, RummyTable) and len(table.melds) > melds_before:
            owners.append(table.name(move.player))
        positions.append(_snapshot(table, owners))
    over = stopped is None and result.outcome is not None
    if over:
        positions[-1]["to_move"] = None  # the deal is over: nobody is to move
    if over and result.outcome != VOID:
        # The deal is scored by counting every hand: all are laid down at the end.
        positions[-1]["public"] = [players[s] for s in table.order]
    after = dict(before)
    if over:
        for player, points in result.points.items():
            after[player] += points
    # The game's last deal, the game over: its totals with what is added at the end
    # (gin's boxes, game bonus and shutouts), the figures the game page shows.
    ended = (over and deal_index == len(game.deals) - 1 and report.status in (VALID, MISMATCH)
             and report.totals["winner"] is not None)
    final = report.totals.get("teams") or report.totals["points"] if ended else None
    return {
        "deal": deal_index,
        "players": [players[s] for s in table.order],
        "dealer": players[deal.dealer] if 0 <= deal.dealer < len(players) else None,
        "moves": [{"player": players[move.player], "action": str(move.action), "words": said,
                   "public": public}
                  for move, (said, public) in zip(deal.moves, words, strict=True)],
        "positions": positions,
        "stopped_by": stopped,
        "outcome": result.outcome if over else None,
        "winner": result.winner if over else None,
        "points": result.points if over else None,
        "scores_before": before,
        "scores_after": after,
        "final": dict(final) if final is not None else None,
    }

"""Moves written back in the log's own format, for the analysis's alternatives."""

from __future__ import annotations

from typing import Any

from ..engine.cards import card_name
from ..engine.model import DRAW, END, Move


def move_json(move: Move, names: tuple[str, ...]) -> dict[str, Any]:
    """A move as ``rummy-log/1`` writes it: ``p``, ``a`` and exactly the action's fields,
    cards as two-letter codes (a knock's or gin's melds each in ascending card order)."""
    out: dict[str, Any] = {"p": names[move.player], "a": move.action.value}
    if move.action == DRAW:
        out["from"] = move.source.value if move.source is not None else None
    if move.card is not None:
        out["card"] = card_name(move.card)
    if move.cards is not None:
        out["cards"] = [card_name(c) for c in move.cards]
    if move.meld is not None:
        out["meld"] = move.meld
    if move.melds is not None:
        out["melds"] = [[card_name(c) for c in meld] for meld in move.melds]
    if move.stock is not None:
        out["stock"] = [card_name(c) for c in move.stock]
    if move.action == END:
        out["reason"] = move.reason or "stock_exhausted"
    return out


def describe(move: Move | dict[str, Any]) -> str:
    """A move in a few words: "discard KS", "knock 3C", "lay off 5H on meld 0"."""
    m = move if isinstance(move, dict) else move_json(move, tuple(str(i) for i in range(8)))
    action = m["a"]
    if action == "layoff":
        return f"lay off {m['card']} on meld {m['meld']}"
    if action == "meld":
        return "meld " + " ".join(m["cards"])
    if action == "gin" and "card" not in m:
        return "big gin"
    if "card" in m:
        return f"{action} {m['card']}"
    return action

"""A tournament's crosstable: who played whom and how it went, over the games that count.

Built from the audit's games as counted (``counting``: re-entered tables held out,
rulings applied), one table per standings table (variant and scoring direction), its
players in the standings' order.  For each ordered pair (A, B) of players who met in a
counted game: the games they played together, A's credited wins and B's among them, and
the points credited to each in those games.  A game of more than two players is a
meeting of every pair at its table.
"""

from __future__ import annotations

from typing import Any


def crosstable(games: list[dict[str, Any]], standings: list[dict[str, Any]]
               ) -> list[dict[str, Any]]:
    """One crosstable per standings table: ``variant``, ``better``, ``players`` (in the
    standings' order) and ``rows``: per player, their ``cells``, one per other player
    they met, with ``opponent``, ``games``, ``won``, ``lost``, ``points``,
    ``opponent_points`` and ``game_ids`` (in the order of the games)."""
    out = []
    for table in standings:
        lower = table["better"] == "lower"
        order = [row["player"] for row in table["players"]]
        cells: dict[tuple[str, str], dict[str, Any]] = {}
        for game in games:
            if not game["counted"] or game["variant"] != table["variant"] \
                    or game.get("lower_wins", lower) != lower:
                continue
            credited = game["credited"]
            winners = set(game["credited_winners"])
            for a in credited:
                for b in credited:
                    if a == b:
                        continue
                    cell = cells.setdefault((a, b), {
                        "opponent": b, "games": 0, "won": 0, "lost": 0, "points": 0,
                        "opponent_points": 0, "game_ids": []})
                    cell["games"] += 1
                    cell["won"] += a in winners
                    cell["lost"] += b in winners
                    cell["points"] += credited[a]
                    cell["opponent_points"] += credited[b]
                    cell["game_ids"].append(game["id"])
        rows = [{"player": a, "cells": [cells[(a, b)] for b in order if (a, b) in cells]}
                for a in order]
        out.append({"variant": table["variant"], "better": table["better"],
                    "players": order, "rows": rows})
    return out

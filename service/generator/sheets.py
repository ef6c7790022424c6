"""Score sheets made from played games: each deal of a verified move log written down as
its result, the way a club's score sheet keeps it (who knocked, went gin or went out,
the hand values), with the figures a sheet shows claimed (the deal's points, the running
totals, and in gin the boxes and end bonuses).

The property tests verify such a sheet and expect the points, totals and winner of the
game it was made from: the sheet's deals are scored from their hand values alone, so
this checks the result path of the engine against the move path.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..engine.logformat import parse_game
from ..engine.report import Report
from ..engine.rules import GIN, Rules

Json = dict[str, Any]


def sheet_of(log: Json, report: Report, deals: Iterable[int] | None = None) -> Json:
    """``log`` (a finished, valid game and its ``report``) with the deals numbered in
    ``deals`` (all by default) recorded by their result, and every figure a sheet shows
    claimed: each deal's points, winner, outcome and running totals, the game's totals,
    winner, and in gin its boxes and end bonuses."""
    rules = parse_game(log).rules
    chosen = set(range(len(log["deals"])) if deals is None else deals)
    out = {key: value for key, value in log.items() if key != "deals"}
    running: dict[str, int] = dict.fromkeys(log["players"], 0)
    team_of = _teams(log)
    written = []
    for d, (deal, result) in enumerate(zip(log["deals"], report.deals, strict=True)):
        for player, points in result.points.items():
            running[player] += points
        claimed = {"points": dict(result.points), "winner": result.winner,
                   "outcome": None if result.outcome is None else str(result.outcome),
                   "totals": _with_teams(running, team_of)}
        if d in chosen:
            written.append(_result_deal(deal, result, rules) | {"claimed": claimed})
        else:
            written.append(deal | {"claimed": claimed})
    out["deals"] = written
    claimed = {"totals": {**report.totals["points"], **report.totals.get("teams", {})},
               "winner": report.totals["winner"]}
    if rules.family == GIN and rules.hollywood:
        claimed |= _hollywood(rules, report, log["players"], written)
    elif rules.family == GIN:
        claimed |= _gin_end(rules, report, running, team_of)
    out["claimed"] = claimed
    return out


def _hollywood(rules: Rules, report: Report, players: list[str], written: list[Json]) -> Json:
    """Hollywood's three games worked from the deals' winners and points: a player's
    first win in game 1, the second in games 1 and 2, the rest in all three, a game over
    at ``target`` taking nothing more; each deal's running totals per game, and each
    game's totals, winner, boxes and bonuses (the match's boxes and bonuses their sums)."""
    games = [dict.fromkeys(players, 0) for _ in range(3)]
    boxes = [dict.fromkeys(players, 0) for _ in range(3)]
    wins = dict.fromkeys(players, 0)
    for deal, result in zip(written, report.deals, strict=True):
        winner = result.winner
        if winner is not None:
            wins[winner] += 1
            for g in range(min(wins[winner], 3)):
                if rules.target is None or max(games[g].values()) < rules.target:
                    games[g][winner] += result.points[winner]
                    boxes[g][winner] += 1
        deal["claimed"]["games"] = [dict(totals) for totals in games]
    claims = []
    for totals, won in zip(games, boxes, strict=True):
        final = {p: totals[p] + won[p] * rules.box_bonus for p in players}
        bonuses = {p: {"box": won[p] * rules.box_bonus, "game": 0, "shutout": 0}
                   for p in players}
        best = max(totals.values())
        leaders = [p for p in players if totals[p] == best]
        winner = leaders[0] if len(leaders) == 1 else None
        if winner is not None:
            final[winner] += rules.game_bonus
            bonuses[winner]["game"] = rules.game_bonus
            shut = sum(1 for p in players if p != winner and totals[p] == 0)
            extra = (final[winner] * (2 ** shut - 1) if rules.shutout_double
                     else shut * rules.shutout_bonus)
            final[winner] += extra
            bonuses[winner]["shutout"] = extra
        claims.append({"totals": final, "winner": winner, "boxes": won, "bonuses": bonuses})
    return {"games": claims,
            "boxes": {p: sum(c["boxes"][p] for c in claims) for p in players},
            "bonuses": {p: {kind: sum(c["bonuses"][p][kind] for c in claims)
                            for kind in ("box", "game", "shutout")} for p in players}}


def _teams(log: Json) -> dict[str, str]:
    """Each player's side: their team's name in partnership gin, else themselves."""
    teams = log.get("teams")
    if not teams:
        return {name: name for name in log["players"]}
    return {name: "+".join(team) for team in teams for name in team}


def _with_teams(running: dict[str, int], team_of: dict[str, str]) -> dict[str, int]:
    out = dict(running)
    for player, side in team_of.items():
        if side != player:
            out[side] = out.get(side, 0) + running[player]
    return out


def _result_deal(deal: Json, result: Any, rules: Rules) -> Json:
    """The deal as a sheet line: dealer, players, the upcard under Oklahoma, the result."""
    out: Json = {"dealer": deal["dealer"]}
    if "players" in deal:
        out["players"] = deal["players"]
    values = dict(result.hand_values)
    if rules.family == GIN:
        if rules.oklahoma:
            out["upcard"] = deal["upcard"] if "upcard" in deal else deal["deck"][
                2 * rules.hand_size]
        if result.outcome == "void":
            out["result"] = {"end": "void"}
            return out
        last = next(m for m in reversed(deal["moves"]) if m["a"] in ("knock", "gin"))
        end = "big_gin" if last["a"] == "gin" and "card" not in last else last["a"]
        out["result"] = {"end": end, "by": result.knocker, "hand_values": values}
        return out
    if result.outcome == "blocked":
        out["result"] = {"end": "blocked", "hand_values": values}
    else:
        del values[result.winner]  # a sheet writes the others' hands
        out["result"] = {"end": str(result.outcome), "by": result.winner,
                         "hand_values": values}
    return out


def _gin_end(rules: Rules, report: Report, running: dict[str, int],
             team_of: dict[str, str]) -> Json:
    """Boxes and end bonuses of a finished gin game, worked from the rules (001): a box
    for each deal won, the game bonus to the winner, the shutout bonus once for each
    opponent left at 0 deal points (``shutout_double``: the winner's score doubled for
    each)."""
    sides = _with_teams(running, team_of)
    side_names = sorted(set(team_of.values()))
    boxes = dict.fromkeys(side_names, 0)
    for result in report.deals:
        if result.winner is not None:
            boxes[team_of[result.winner]] += 1
    bonuses = {side: {"box": boxes[side] * rules.box_bonus, "game": 0, "shutout": 0}
               for side in side_names}
    winner = report.totals["winner"]
    if winner is not None:
        bonuses[winner]["game"] = rules.game_bonus
        shut = sum(1 for side in side_names if side != winner and sides[side] == 0)
        if rules.shutout_double:  # the whole score doubled for each
            score = sides[winner] + bonuses[winner]["box"] + rules.game_bonus
            bonuses[winner]["shutout"] = score * (2 ** shut - 1)
        else:
            bonuses[winner]["shutout"] = shut * rules.shutout_bonus
    return {"boxes": boxes, "bonuses": bonuses}

"""A stored game's report said in words a tournament director reads, and laid out as
rows: claimed beside recomputed, each difference marked.  Only wording and layout: the
figures are the report's own.

An illegal or unfinished game has no result: its page never names a winner, and the
points of its scored deals are shown as what they are, not as a final score.
"""

from __future__ import annotations

from typing import Any

from ..engine.report import MOVES, RESULTS, VERIFICATION_WORDS
from ..engine.rules import resolve_rules
from ..engine.scoring import gin_deal_bonuses
from ..engine.words import where

STATUS_WORDS = {
    "valid": "valid",
    "mismatch": "legal, claims wrong",
    "illegal": "illegal",
    "incomplete": "unfinished",
}


def replay_fragment(deal: int | None, move: int | None) -> str:
    """The viewer's fragment for a report location: ``deal=1`` is the first deal,
    ``move=k`` the table after the k-th move (the violating one, for a violation)."""
    return f"deal={(deal or 0) + 1}&move={(move + 1) if move is not None else 0}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def verdict(game: dict[str, Any]) -> dict[str, Any]:
    """The headline, the sentence under it, and how much of the game was checked (a game
    with deals recorded by their result, from a score sheet, had its play unrecorded)."""
    said = _verdict(game)
    level = game["report"].get("verification", MOVES)
    said["verification"] = VERIFICATION_WORDS[level] if level != MOVES else None
    if level != MOVES:
        by_result = sum(1 for d in game["report"]["deals"] if d.get("recorded") == "result")
        moves = ("No move is recorded" if level == RESULTS else
                 "Every recorded move is legal")
        said["detail"] = said["detail"].replace(
            "Every move is legal", f"{moves}; {_count(by_result, 'deal')} recorded by "
            "the result alone (arithmetic and rules checked)").replace(
            "Every logged move is legal", f"{moves}; {_count(by_result, 'deal')} "
            "recorded by the result alone (arithmetic and rules checked)")
    return said


def _verdict(game: dict[str, Any]) -> dict[str, Any]:
    report = game["report"]
    status = report["status"]
    totals = report["totals"]
    violations = report["violations"]
    illegal = [v for v in violations if v["code"] != "SCORE_MISMATCH"]
    mismatches = [v for v in violations if v["code"] == "SCORE_MISMATCH"]
    if status == "illegal":
        first = illegal[0]
        return {"status": status, "headline": "Illegal game: it has no result",
                "detail": f"{_count(len(illegal), 'rule')} broken; the first "
                          f"at {where(first['deal'], first['move'])}: {first['message']}. "
                          "No winner is recognised.",
                "winner": None}
    if status == "incomplete":
        why = next((w["message"] for w in report["warnings"]
                    if w["code"] in ("GAME_NOT_FINISHED", "LAST_DEAL_NOT_FINISHED")), "")
        return {"status": status, "headline": "Unfinished game: legal so far, no result yet",
                "detail": f"Every logged move is legal, but the game is not over. "
                          f"{why[:1].upper() + why[1:]}".strip(),
                "winner": None}
    winner = totals["winner"]
    result = f"{winner} wins by {totals['margin']}" if winner else "The game ends in a tie"
    if status == "mismatch":
        return {"status": status, "headline": "Legal game, but the claimed scores are wrong",
                "detail": f"Every move is legal; {_count(len(mismatches), 'claim')} "
                          f"{'does' if len(mismatches) == 1 else 'do'} not match the "
                          f"recomputed score. Recomputed: {result}.",
                "winner": winner}
    return {"status": status, "headline": "Valid game",
            "detail": f"Every move is legal and every claim matches. {result}.",
            "winner": winner}


def _cell(recomputed: Any, claimed: Any, has_claim: bool) -> dict[str, Any]:
    return {"recomputed": recomputed, "claimed": claimed if has_claim else None,
            "has_claim": has_claim, "differs": has_claim and claimed != recomputed}


def deal_rows(game: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per deal: outcome, winner, each player's points and hand value, each
    beside its claim, and in gin the deal's bonuses (gin, undercut, the box); a deal
    stopped by a violation names it instead of a result."""
    report = game["report"]
    rules, _ = resolve_rules(game["variant"], game["rules"], len(game["players"]))
    stopped = {v["deal"]: v for v in report["violations"]
               if v["code"] != "SCORE_MISMATCH" and v["deal"] is not None}
    rows = []
    for d, deal in enumerate(report["deals"]):
        claimed = deal["claimed"] or {}
        points = claimed.get("points") or {}
        violation = stopped.get(d)
        rows.append({
            "number": d + 1,
            "by_result": deal.get("recorded") == "result",
            "fragment": replay_fragment(d, violation["move"]) if violation
            else f"deal={d + 1}&move=0",
            "violation": violation,
            "outcome": _cell(deal["outcome"], claimed.get("outcome"), "outcome" in claimed),
            "winner": _cell(deal["winner"], claimed.get("winner"), "winner" in claimed),
            "players": [{"name": name, "points": _cell(value, points.get(name), name in points),
                         "hand_value": deal["hand_values"].get(name)}
                        for name, value in deal["points"].items()],
            "bonuses": gin_deal_bonuses(rules, deal) if rules is not None and not violation
            else [],
        })
    return rows


def total_rows(game: dict[str, Any]) -> dict[str, Any]:
    """Each total beside its claim; a game without a result says so."""
    report = game["report"]
    totals = report["totals"]
    claimed = totals.get("claimed") or {}
    claimed_totals = claimed.get("totals") or {}
    sides = {**totals["points"], **totals.get("teams", {})}
    result = report["status"] in ("valid", "mismatch")
    return {"result": result,
            "rows": [{"name": name, **_cell(value, claimed_totals.get(name),
                                            name in claimed_totals)}
                     for name, value in sides.items()],
            "winner": _cell(totals["winner"] if result else None, claimed.get("winner"),
                            "winner" in claimed),
            "games": _hollywood_rows(totals, claimed, result)}


def _hollywood_rows(totals: dict[str, Any], claimed: dict[str, Any],
                    result: bool) -> list[dict[str, Any]]:
    """Hollywood: each of the three games' totals and winner, beside their claims."""
    rows = []
    claimed_games = claimed.get("games") or []
    for g, one in enumerate(totals.get("games") or ()):
        said = claimed_games[g] if g < len(claimed_games) else {}
        said_totals = said.get("totals") or {}
        rows.append({"number": g + 1,
                     "rows": [{"name": name, **_cell(value, said_totals.get(name),
                                                     name in said_totals)}
                              for name, value in one["points"].items()],
                     "winner": _cell(one["winner"] if result else None, said.get("winner"),
                                     "winner" in said)})
    return rows


def player_charts(variant: str, figures: dict[str, Any],
                  months: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The charts of a player's figures in one variant: their games, how their deals
    end, points scored and conceded, and month by month their wins and points per
    deal."""
    charts = [{"id": f"{variant}-games", "title": f"{variant}: games won and lost",
               "bars": [("won", figures.get("won", 0)), ("lost", figures.get("lost", 0))]}]
    if variant == "gin":
        ends = [("gin", figures.get("gins", 0)), ("knock won", figures.get("knocks_won", 0)),
                ("undercut made", figures.get("undercuts_made", 0)),
                ("undercut suffered", figures.get("undercuts_suffered", 0))]
    else:
        ends = [("out", figures.get("won_out", 0)), ("rummy", figures.get("won_rummy", 0)),
                ("blocked", figures.get("won_blocked", 0))]
    charts.append({"id": f"{variant}-ends", "title": f"{variant}: how their deals end",
                   "bars": ends})
    charts.append({"id": f"{variant}-points", "title": f"{variant}: points scored and conceded",
                   "bars": [("scored", figures.get("points_scored", 0)),
                            ("conceded", figures.get("points_conceded", 0))]})
    charts.append({"id": f"{variant}-wins-by-month", "title": f"{variant}: wins by month",
                   "bars": [(m["month"], m["won"]) for m in months]})
    charts.append({"id": f"{variant}-points-by-month",
                   "title": f"{variant}: points per deal by month",
                   "bars": [(m["month"], m["points_per_deal"]) for m in months]})
    return charts

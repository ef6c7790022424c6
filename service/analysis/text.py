"""The facts of a game in words, for ``rummy-audit analyse --text``.

Deals and moves are numbered from 1, as people count (and as ``verify --text`` does);
the JSON keeps the engine's indexes from 0.
"""

from __future__ import annotations

from typing import Any

from ..engine.cards import card_name
from ..engine.model import Game
from ..engine.words import plural
from .facts import (
    DISCARD_ERROR,
    FED_CARD,
    KINDS,
    KNOCK_INTO_UNDERCUT,
    MISSED_GIN,
    MISSED_KNOCK,
    MISSED_LAYOFF,
    MISSED_RUMMY,
    Analysis,
    Fact,
)
from .luck import GameLuck
from .moves import describe

_PLAYED = {"discard": "discarded", "knock": "knocked on", "gin": "went gin on"}


def played(game: Game, fact: Fact) -> str:
    """What the player did at the fact's move: "discarded 9H", "knocked on 3C"."""
    move = game.deals[fact.deal].moves[fact.move]
    verb = _PLAYED.get(move.action.value, move.action.value)
    return f"{verb} {card_name(move.card)}" if move.card is not None else verb


def _points(n: int) -> str:
    return f"{n} point" if abs(n) == 1 else f"{n} points"


def fact_line(game: Game, fact: Fact) -> str:
    """One fact as a sentence: "deal 2, move 17: ben discarded 9H leaving 14; the best
    discard was KS, leaving 4 (discard error 10)"."""
    where = f"deal {fact.deal + 1}, move {fact.move + 1}: {fact.player}"
    detail = fact.detail
    alt = describe(fact.alternative) if fact.alternative else None
    scored = detail.get("deal_points")
    then = "" if scored is None else f"; the deal finally scored {scored} for them"
    if fact.kind == DISCARD_ERROR:
        return (f"{where} {played(game, fact)} leaving {detail['left']}; the best discard was "
                f"{fact.alternative['card']}, leaving {detail['best']} "
                f"(discard error {fact.cost})")
    if fact.kind == MISSED_GIN:
        return (f"{where} {played(game, fact)} and played on; {alt} was there, worth "
                f"{_points(fact.cost)}{then}")
    if fact.kind == MISSED_KNOCK:
        return (f"{where} {played(game, fact)} and played on; {alt} with "
                f"{detail['deadwood']} deadwood was there, worth {_points(fact.cost)}{then}")
    if fact.kind == KNOCK_INTO_UNDERCUT:
        return (f"{where} knocked with {detail['knocker_deadwood']} deadwood, and the "
                f"defender's hand was sure to undercut at {detail['defender_deadwood']} "
                f"({_points(fact.cost)} lost)")
    if fact.kind == MISSED_LAYOFF:
        if "line" in detail:
            laid = ", ".join(describe(m) for m in detail["line"])
            return (f"{where} kept {detail['deadwood']} deadwood; {laid} would have left "
                    f"{detail['best']} ({_points(fact.cost)})")
        return (f"{where} {played(game, fact)} and kept a card that could {alt} "
                f"({_points(fact.cost)} less in hand)")
    if fact.kind == FED_CARD:
        return (f"{where} discarded {detail['card']}, which {detail['receiver']} took and "
                f"used ({_points(fact.cost)} off their deadwood)")
    what = "rummy" if fact.kind == MISSED_RUMMY else "out"
    line = ", ".join(describe(m) for m in detail["line"])
    return (f"{where} {played(game, fact)}, but could have gone {what} this turn ({line}), "
            f"worth {_points(fact.cost)}{then}")


def summary_line(player: str, figures: dict[str, Any]) -> str:
    """A player's figures for the game in one line."""
    if not figures["decisions"]:
        return f"{player}: no decision"
    errors = ", ".join(plural(figures["errors"][k], k.replace("_", " ")) for k in KINDS
                       if figures["errors"][k] and k != FED_CARD)
    return (f"{player}: {plural(figures['decisions'], 'decision')}, "
            f"accuracy {figures['accuracy']}%, "
            f"average discard error {figures['average_discard_error']}; "
            f"{errors or 'no error'}; fed {figures['fed_given']}, "
            f"received {figures['fed_received']}")


def luck_summary(luck: GameLuck) -> dict[str, Any]:
    """The luck of a game without its draws: per deal and per player, luck, points and
    luck-adjusted points (the draws are in ``GET /games/{id}/analysis``)."""
    whole = luck.to_dict()
    return {"deals": [{k: d[k] for k in ("deal", "luck", "points", "adjusted", "stopped")}
                      for d in whole["deals"]],
            **{k: whole[k] for k in ("scored", "luck", "points", "adjusted")}}


def luck_line(player: str, luck: dict[str, Any]) -> str:
    """A player's luck over the game in one line."""
    scored = luck["scored"].get(player, 0)
    return (f"{player}: luck {luck['luck'].get(player, 0):+.1f} over {scored} scored "
            f"deals; points {luck['points'].get(player, 0)}, luck-adjusted "
            f"{luck['adjusted'].get(player, 0):.1f}")


def decisions_line(player: str, figures: dict[str, Any]) -> str:
    """A player's decision loss over the game in one line (two-player gin)."""
    return (f"{player}: {plural(figures['decisions'], 'decision')} judged in expected deal "
            f"points, average loss {figures['average_loss']:.3f}, accuracy "
            f"{figures['accuracy']}%")


def analysis_text(source: str, game: Game, analysis: Analysis,
                  luck: dict[str, Any] | None = None,
                  decisions: dict[str, Any] | None = None) -> str:
    """A game's facts, its players' figures, decision loss and luck as a readable
    paragraph."""
    lines = [f"{source}: {len(analysis.facts)} facts"]
    lines.extend("  " + fact_line(game, fact) for fact in analysis.facts)
    for stop in analysis.stopped:
        lines.append(f"  deal {stop['deal'] + 1}: analysed up to move {stop['move'] + 1}, "
                     f"which broke a rule ({stop['code']})")
    lines.extend("  " + summary_line(p, f) for p, f in analysis.summary().items())
    if decisions is not None:
        lines.extend("  " + decisions_line(p, f) for p, f in decisions["players"].items()
                     if f["decisions"])
    if luck is not None:
        lines.extend("  " + luck_line(p, luck) for p in luck["luck"])
    return "\n".join(lines)

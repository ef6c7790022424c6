"""The move analysis of a game for its page: each flagged decision in words with the
viewer's fragment of the position where the better move was legal, each player's
figures and luck.  Computed from the stored log by ``service.analysis`` (a few
milliseconds a deal), so the page is complete whether or not the store's catch-up has
reached the game; the figures are the ones ``GET /games/{id}/analysis`` answers."""

from __future__ import annotations

from typing import Any

from ..analysis.decisions import (
    BEST,
    UPCARD_OFFER,
    game_decisions,
    judge_of,
    judges,
    verdict,
)
from ..analysis.decisions import figures as decision_figures
from ..analysis.facts import FED_CARD, KINDS, analyse
from ..analysis.luck import analyse_luck
from ..analysis.text import fact_line, luck_summary
from ..engine import verify
from ..engine.model import Game
from .verdict import replay_fragment

SHOWN_FACTS = 300  # a page lists this many; the JSON has them all


def game_analysis(game: Game) -> dict[str, Any]:
    """The facts (``line``, ``kind``, ``fragment``, ``evaluator``), the players' figures,
    decision loss and luck, the deals a violation stopped, and how many facts were left
    off the page."""
    report = verify(game)
    analysis = analyse(game, report)
    luck = luck_summary(analyse_luck(game, report))
    decisions = game_decisions(game)
    found = judges(decisions)
    facts = []
    for fact in analysis.facts[:SHOWN_FACTS]:
        judged = judge_of(found, fact.kind, fact.deal, fact.move)
        facts.append({"kind": fact.kind, "player": fact.player,
                      "line": fact_line(game, fact),
                      "fragment": replay_fragment(fact.deal, fact.position),
                      "evaluator": None if judged is None else verdict(judged.loss),
                      "choice": None if judged is None else judged.choice,
                      "evaluator_loss": None if judged is None else judged.loss})
    judged_players = decision_figures(decisions, game.players)
    summary = analysis.summary()
    players = []
    for player in game.players:
        figures = summary.get(player)
        errors = {kind: figures["errors"][kind] for kind in KINDS
                  if kind != FED_CARD and figures["errors"][kind]} if figures else {}
        players.append({"name": player, "figures": figures, "errors": errors,
                        "luck": luck["luck"].get(player, 0.0),
                        "points": luck["points"].get(player, 0),
                        "adjusted": luck["adjusted"].get(player, 0.0),
                        "scored": luck["scored"].get(player, 0),
                        "decisions": judged_players[player]})
    return {"facts": facts, "count": len(analysis.facts), "judged": bool(decisions),
            "offers": any(d.measure == UPCARD_OFFER for d in decisions),
            "best": BEST,
            "left_off": max(0, len(analysis.facts) - SHOWN_FACTS), "players": players,
            "stopped": [{**stop, "fragment": replay_fragment(stop["deal"], stop["move"])}
                        for stop in analysis.stopped]}

"""A terse way to write hand-made logs in tests.

Moves are strings ``"<player> <action> <args>"``:

    ana ds 4H            draw from the stock naming 4H   (ana ds: without a card)
    ana dd               draw the discard                (ana dd 7D: naming it)
    ana m AH 2H 3H       meld
    ana l 5H 0           lay 5H off on meld 0
    ana x KC             discard
    ana knock KC | 2C 3C 4C | 5D 5H 5S     knock discarding KC, declaring two melds
    ana knock KC         knock, melds found by the engine
    ana gin KC |         gin declaring no meld (an empty list)
    ben show | 7C 8C 9C  show melds            (ben show: without melds)
    ana pass / ana end / ana reshuffle [cards]
"""

from __future__ import annotations

from typing import Any

from service.engine import verify
from service.engine.logformat import parse_game


def move(text: str) -> dict[str, Any]:
    head, _, rest = text.partition("|")
    words = head.split()
    player, action, args = words[0], words[1], words[2:]
    melds = None
    if "|" in text:
        melds = [part.split() for part in rest.split("|") if part.strip()]
    if action in ("ds", "dd"):
        out = {"p": player, "a": "draw", "from": "stock" if action == "ds" else "discard"}
        if args:
            out["card"] = args[0]
        return out
    if action == "m":
        return {"p": player, "a": "meld", "cards": args}
    if action == "l":
        return {"p": player, "a": "layoff", "card": args[0], "meld": int(args[1])}
    if action == "x":
        return {"p": player, "a": "discard", "card": args[0]}
    out = {"p": player, "a": action}
    if action in ("knock", "gin") and args:
        out["card"] = args[0]
    if action == "reshuffle" and args:
        out["stock"] = args
    if action == "end":
        out["reason"] = "stock_exhausted"
    if melds is not None:
        out["melds"] = melds
    return out


def deal(dealer: str, hands: dict[str, str] | None = None, upcard: str | None = None,
         moves: list[str] = (), deck: str | None = None, players: list[str] | None = None,
         claimed: dict | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"dealer": dealer, "moves": [move(m) for m in moves]}
    if hands is not None:
        out["hands"] = {p: h.split() for p, h in hands.items()}
    if upcard is not None:
        out["upcard"] = upcard
    if deck is not None:
        out["deck"] = deck.split()
    if players is not None:
        out["players"] = players
    if claimed is not None:
        out["claimed"] = claimed
    return out


def game(variant: str, players: list[str], deals: list[dict], rules: dict | None = None,
         claimed: dict | None = None, teams: list[list[str]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"format": "rummy-log/1", "variant": variant, "players": players,
                           "deals": deals}
    if rules is not None:
        out["rules"] = rules
    if claimed is not None:
        out["claimed"] = claimed
    if teams is not None:
        out["teams"] = teams
    return out


def check(log: dict[str, Any]) -> dict[str, Any]:
    """The report of a log, as a dict."""
    return verify(parse_game(log)).to_dict()


def codes(report: dict[str, Any]) -> list[tuple[int | None, int | None, str]]:
    return [(v["deal"], v["move"], v["code"]) for v in report["violations"]]

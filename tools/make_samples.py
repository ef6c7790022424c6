"""Write sample_logs/: complete games for every preset, generated with fixed seeds, and
illegal, mismatched and incomplete examples made from them by one deliberate change.

    python tools/make_samples.py

The expected verdict of every file is in tests/test_sample_logs.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from service.generator import generate_game

OUT = Path(__file__).resolve().parent.parent / "sample_logs"

# name: (variant, seed, players, options, with_deck)
COMPLETE = {
    "gin-01": ("gin", 3, 2, {"target": 50}, False),
    "gin-02": ("gin", 4, 2, {"deals": 3, "upcard_pass": True}, True),
    "gin-3p": ("gin", 5, 3, {"deals": 3}, False),
    "gin-4p-teams": ("gin", 6, 4, {"deals": 2}, False),
    "rummy-01": ("rummy", 7, 2, {"target": 100}, False),
    "rummy-02": ("rummy", 8, 4, {"target": 80}, True),
    "rummy-pagat-01": ("rummy-pagat", 9, 3, {"deals": 3}, False),
    "rummy-pagat-02": ("rummy-pagat", 10, 2, {"target": 60, "ace": "high_or_low"}, False),
    "rummy-block-01": ("rummy-block", 11, 4, {"deals": 3}, False),
    "rummy-block-02": ("rummy-block", 12, 3, {"deals": 2, "scoring": "settlement"}, True),
    "greek-01": ("greek", 13, 3, {"deals": 3}, False),
    "greek-02": ("greek", 14, 2, {"target": 100}, False),
}


def write(name: str, log: dict) -> None:
    (OUT / f"{name}.json").write_text(json.dumps(log, indent=1) + "\n")


def first_move(log: dict, wanted) -> tuple[int, int]:
    for d, deal in enumerate(log["deals"]):
        for m, move in enumerate(deal["moves"]):
            if wanted(deal["moves"], m, move):
                return d, m
    raise LookupError("no such move")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    games = {}
    for name, (variant, seed, players, rules, deck) in COMPLETE.items():
        games[name] = generate_game(variant, seed, players, rules, with_deck=deck)
        assert len(games[name]["deals"]) >= 2, name
        write(name, games[name])

    # Ben discards the card he just took from the pile.
    log = copy.deepcopy(games["gin-01"])
    d, m = first_move(log, lambda ms, i, mv: mv["a"] == "draw" and mv["from"] == "discard"
                      and "card" in mv and i + 1 < len(ms) and ms[i + 1]["a"] == "discard")
    log["deals"][d]["moves"][m + 1]["card"] = log["deals"][d]["moves"][m]["card"]
    write("illegal-gin-discard-of-taken-card", log)

    # A move played by the wrong player.
    log = copy.deepcopy(games["rummy-01"])
    move = log["deals"][1]["moves"][5]
    players = log["players"]
    move["p"] = players[(players.index(move["p"]) + 1) % len(players)]
    write("illegal-rummy-not-your-turn", log)

    # A meld that is no meld: the first meld of the game loses a card.
    log = copy.deepcopy(games["greek-01"])
    d, m = first_move(log, lambda ms, i, mv: mv["a"] == "meld" and len(mv["cards"]) == 3)
    log["deals"][d]["moves"][m]["cards"].pop()
    write("illegal-greek-invalid-meld", log)

    # A claimed game total one point too high.
    log = copy.deepcopy(games["rummy-pagat-01"])
    leader = log["claimed"]["winner"]
    log["claimed"]["totals"][leader] += 1
    write("mismatch-rummy-pagat-claimed-total", log)

    # A deal's claimed points and winner that the moves do not give.
    log = copy.deepcopy(games["gin-02"])
    claim = log["deals"][0]["claimed"]
    winner = claim["winner"]
    claim["points"][winner] += 10
    write("mismatch-gin-deal-points", log)

    # A log that stops in the middle of its last deal.
    log = copy.deepcopy(games["rummy-block-01"])
    del log["deals"][-1]["moves"][7:]
    del log["deals"][-1]["claimed"]
    del log["claimed"]
    write("incomplete-rummy-block", log)

    # Four gin games make the tournament of the README's examples.
    for name, (round_, table) in {"gin-01": (1, "A"), "gin-02": (1, "B"),
                                  "mismatch-gin-deal-points": (2, "A"),
                                  "illegal-gin-discard-of-taken-card": (2, "B")}.items():
        path = OUT / f"{name}.json"
        log = json.loads(path.read_text())
        log["tournament"] = {"id": "spring-cup", "round": round_, "table": table}
        write(name, log)

    batch = [generate_game("gin", (99, i), 2, {"deals": 2}) for i in range(5)]
    (OUT / "batch-gin.ndjson").write_text("".join(json.dumps(g) + "\n" for g in batch))


if __name__ == "__main__":
    main()

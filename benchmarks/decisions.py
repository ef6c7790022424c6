"""Decision loss of bots of known skill, and what judging decisions costs.

The generator's gin bots (``service/generator/gin_bot.py``: ``random``, ``greedy``,
``careful``) play seeded two-player games in the pairings of
``benchmarks/luck_variance.py``; every discard of every game is judged
(``service/analysis/decisions.py``) and, per skill, it prints the decisions judged, the
average loss per decision in expected deal points, the accuracy (mean of each
decision's), and the share of decisions the evaluator judged best.  The expected
order: random loses most, greedy no less than careful.

It also times, on the same games (parsed and verified beforehand), the analysis the
store computes (facts and luck) with and without the decisions, in deals per second of
this process's CPU time.

``--fit`` instead recomputes ``PER_DRAWN``: the least-squares slope (no constant) of a
deal's net points on the difference of the two dealt hands' mean value after one
draw, over the games ``tools/gin_value_table.py`` fits the evaluator on (``--games``
per pairing).

Run from the project root:

    python benchmarks/decisions.py [--games N] [--seed S]
    python benchmarks/decisions.py --fit --games 250
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.analysis.decisions import BEST, accuracy_of, game_decisions, verdict  # noqa: E402
from service.analysis.facts import analyse  # noqa: E402
from service.analysis.luck import analyse_luck  # noqa: E402
from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_game  # noqa: E402

PAIRS = (("random", "greedy"), ("greedy", "careful"), ("random", "careful"),
         ("greedy", "greedy"), ("careful", "careful"))
SKILLS = ("random", "greedy", "careful")


def losses_by_skill(games: int, seed: int) -> tuple[dict[str, list[float]], list]:
    """Every decision's loss by the skill of its player, and the games played."""
    out: dict[str, list[float]] = {s: [] for s in SKILLS}
    played = []
    for p, (first, second) in enumerate(PAIRS):
        skills = {"ana": first, "ben": second}
        for i in range(games):
            game = parse_game(generate_game("gin", (seed, p, i), players=2, skills=skills))
            played.append(game)
            for x in game_decisions(game):
                out[skills[x.player]].append(x.loss)
    return out, played


def skill_rows(losses: dict[str, list[float]]) -> list[tuple[str, int, float, float, float]]:
    """Per skill: decisions, average loss, accuracy, share judged best."""
    rows = []
    for skill in SKILLS:
        found = losses[skill]
        n = len(found)
        rows.append((skill, n, statistics.fmean(found) if n else 0.0,
                     statistics.fmean(accuracy_of(x) for x in found) if n else 0.0,
                     sum(verdict(x) == BEST for x in found) / n if n else 0.0))
    return rows


def timing(games: list) -> tuple[int, float, float]:
    """Deals, and deals per CPU second without and with the decisions."""
    prepared = [(g, verify(g)) for g in games]
    deals = sum(len(g.deals) for g in games)
    start = time.process_time()
    for game, report in prepared:
        analyse(game, report)
        analyse_luck(game, report)
    without = time.process_time() - start
    start = time.process_time()
    for game, report in prepared:
        analyse(game, report)
        analyse_luck(game, report)
        game_decisions(game)
    with_them = time.process_time() - start
    return deals, deals / without, deals / with_them


def fit(games: int) -> None:
    from tools.gin_value_table import PAIRINGS, rows

    dealt = []
    for p in range(len(PAIRINGS)):
        for i in range(games):
            dealt += rows(p, i)[1]
    sxx = sum(y * y for _, y, _ in dealt)
    sxn = sum(y * net for _, y, net in dealt)
    print(f"{len(dealt)} deals: {sxn / sxx:.4f} deal points per point of mean value after "
          "one draw")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fit", action="store_true", help="recompute PER_DRAWN")
    args = parser.parse_args()
    if args.fit:
        fit(args.games)
        return
    losses, played = losses_by_skill(args.games, args.seed)
    print(f"{args.games} games a pairing, seed {args.seed}")
    print(f"{'skill':8} {'decisions':>9} {'avg loss':>9} {'accuracy':>9} {'best':>6}")
    for skill, n, loss, accuracy, best in skill_rows(losses):
        print(f"{skill:8} {n:9d} {loss:9.3f} {accuracy:8.2f}% {100 * best:5.1f}%")
    deals, without, with_them = timing(played)
    print(f"{deals} deals: facts + luck {without:.0f} deals/s, with the decisions "
          f"{with_them:.0f} deals/s (CPU)")


if __name__ == "__main__":
    main()

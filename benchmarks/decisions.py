"""Decision loss of bots of known skill, and what judging decisions costs.

The generator's gin bots (``service/generator/gin_bot.py``: ``random``, ``greedy``,
``careful``) play seeded two-player games in the pairings of
``benchmarks/luck_variance.py``; every discard of every game is judged
(``service/analysis/decisions.py``) and, per skill, it prints the decisions judged, the
average loss per decision in expected deal points, the accuracy (mean of each
decision's), and the share of decisions the evaluator judged best; the same for the
knock-or-play-on choices alone (``service/analysis/gin_knock.py``), with how many the
player knocked and how many the worlds found the other choice clearly better; and the
discard error, missed knock and knock into undercut facts that the evaluator judges
best, within its margin or worse; with ``--upcard-pass``, the games' rules let the
first upcard be refused and its offers are judged too (``gin_offer``).  The expected order: random loses most, greedy no
less than careful (on the throws and draws; the greedy bot plays on for gin at times
where it could knock, the careful one knocks as soon as it may).

It also times, on the same games (parsed and verified beforehand), the facts and luck
without and with the decisions (all three: what the store's catch-up computes), in
deals per second of this process's CPU time.

``--fit`` instead recomputes ``PER_DRAWN``: the least-squares slope (no constant) of a
deal's net points on the difference of the two dealt hands' mean value after one
draw, over the games ``tools/gin_value_table.py`` fits the evaluator on (``--games``
per pairing).

Run from the project root:

    python benchmarks/decisions.py [--games N] [--seed S] [--upcard-pass]
    python benchmarks/decisions.py --fit --games 250
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.analysis.decisions import (  # noqa: E402
    BEST,
    KNOCK_OR_PLAY_ON,
    UPCARD_OFFER,
    WITHIN_MARGIN,
    WORSE,
    accuracy_of,
    game_decisions,
    mark_facts,
    verdict,
)
from service.analysis.facts import analyse  # noqa: E402
from service.analysis.luck import analyse_luck  # noqa: E402
from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_game  # noqa: E402

PAIRS = (("random", "greedy"), ("greedy", "careful"), ("random", "careful"),
         ("greedy", "greedy"), ("careful", "careful"))
SKILLS = ("random", "greedy", "careful")


def losses_by_skill(games: int, seed: int, rules: dict | None = None
                    ) -> tuple[dict[str, list[float]], dict[str, list], dict[str, list],
                               list, list[dict[str, str]]]:
    """Every decision's loss by the skill of its player, the knock-or-play-on choices
    and the upcard offers by skill, the games played and each game's skills."""
    out: dict[str, list[float]] = {s: [] for s in SKILLS}
    choices: dict[str, list] = {s: [] for s in SKILLS}
    offers: dict[str, list] = {s: [] for s in SKILLS}
    played = []
    skills_of = []
    for p, (first, second) in enumerate(PAIRS):
        skills = {"ana": first, "ben": second}
        for i in range(games):
            game = parse_game(generate_game("gin", (seed, p, i), players=2, rules=rules,
                                            skills=skills))
            played.append(game)
            skills_of.append(skills)
            for x in game_decisions(game):
                out[skills[x.player]].append(x.loss)
                if x.measure == KNOCK_OR_PLAY_ON:
                    choices[skills[x.player]].append(x)
                elif x.measure == UPCARD_OFFER:
                    offers[skills[x.player]].append(x)
    return out, choices, offers, played, skills_of


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


JUDGED = ("discard_error", "missed_knock", "knock_into_undercut")


def verdicts(games: list, skills_of: list[dict[str, str]]
             ) -> dict[tuple[str, str], dict[str, int]]:
    """Per fact kind and skill, the facts the evaluator judges by its verdict."""
    out = {(k, s): dict.fromkeys((BEST, WITHIN_MARGIN, WORSE), 0)
           for k in JUDGED for s in SKILLS}
    for game, skills in zip(games, skills_of, strict=True):
        facts = [f.to_dict() for f in analyse(game).facts]
        mark_facts(facts, game_decisions(game))
        for fact in facts:
            if "evaluator" in fact:
                out[(fact["kind"], skills[fact["player"]])][fact["evaluator"]] += 1
    return out


def choice_rows(choices: dict[str, list], first: str = "knock"
                ) -> list[tuple[str, int, int, float, int]]:
    """Per skill: choices judged, how many chose ``first`` (knock, or take the
    upcard), average loss, and how many the worlds found the other choice clearly
    better."""
    return [(skill, len(found), sum(x.choice == first for x in found),
             statistics.fmean(x.loss for x in found) if found else 0.0,
             sum(x.best_choice != x.choice for x in found))
            for skill, found in choices.items()]


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
    parser.add_argument("--upcard-pass", action="store_true",
                        help="games with upcard_pass, whose first upcard offers are judged")
    args = parser.parse_args()
    if args.fit:
        fit(args.games)
        return
    rules = {"upcard_pass": True} if args.upcard_pass else None
    losses, choices, offers, played, skills_of = losses_by_skill(args.games, args.seed,
                                                                 rules)
    print(f"{args.games} games a pairing, seed {args.seed}")
    print(f"{'skill':8} {'decisions':>9} {'avg loss':>9} {'accuracy':>9} {'best':>6}")
    for skill, n, loss, accuracy, best in skill_rows(losses):
        print(f"{skill:8} {n:9d} {loss:9.3f} {accuracy:8.2f}% {100 * best:5.1f}%")
    print("knock-or-play-on choices: judged, knocked, average loss, the other clearly "
          "better")
    for skill, n, knocked, loss, other in choice_rows(choices):
        print(f"{skill:8} {n:9d} {knocked:9d} {loss:9.3f} {other:6d}")
    if args.upcard_pass:
        print("upcard offers: judged, taken, average loss, the other clearly better")
        for skill, n, taken, loss, other in choice_rows(offers, "take"):
            print(f"{skill:8} {n:9d} {taken:9d} {loss:9.3f} {other:6d}")
    print("facts by the evaluator's verdict: best, within the margin, worse")
    for (kind, skill), counts in verdicts(played, skills_of).items():
        print(f"{kind:20} {skill:8} {counts[BEST]:6d} {counts[WITHIN_MARGIN]:6d} "
              f"{counts[WORSE]:6d}")
    deals, without, with_them = timing(played)
    print(f"{deals} deals: facts + luck {without:.0f} deals/s, with the decisions "
          f"{with_them:.0f} deals/s (CPU)")


if __name__ == "__main__":
    main()

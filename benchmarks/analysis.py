"""Analysis speed: the facts of each decision per preset, deals analysed per second on one
core (games parsed and verified beforehand: the time is ``analyse`` alone), by the wall
clock and by the process's own CPU time, beside the CPU time of verifying the same deals
(what storing a game costs the engine), and how busy the machine was
(``os.getloadavg``: other processes share its cores).

    python benchmarks/analysis.py                 # every case
    python benchmarks/analysis.py --games 100 --preset gin
    python benchmarks/analysis.py --profile gin/2p   # where the time goes, by function

Targets (issue 15): 500 two-player gin deals/s and 300 four-player Rummy deals/s.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.analysis.facts import analyse  # noqa: E402
from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_games  # noqa: E402

CASES = [("gin", 2), ("rummy", 4), ("rummy", 2), ("rummy-pagat", 3), ("rummy-block", 4),
         ("greek", 4), ("greek", 2)]
TARGETS = {"gin/2p": 500, "rummy/4p": 300}


def prepared(variant: str, players: int, games: int, seed: int):
    parsed = [parse_game(g) for g in generate_games(variant, games, seed=seed, players=players)]
    return [(game, verify(game)) for game in parsed]


def best_of(runs: int, work) -> tuple[float, float]:
    """The best wall time and the best CPU time of this process over the runs: on a
    shared machine the CPU time says what one core of its own would do."""
    wall = cpu = float("inf")
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--preset", default=None)
    parser.add_argument("--profile", default=None, help="a case, such as gin/2p")
    args = parser.parse_args()
    if args.profile:
        variant, players = args.profile.split("/")
        corpus = prepared(variant, int(players.rstrip("p")), args.games, args.seed)
        profile = cProfile.Profile()
        profile.runcall(lambda: [analyse(g, r) for g, r in corpus])
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
        return
    print(f"{'case':<16}{'games/s':>10}{'deals/s':>10}{'deals/cpu-s':>13}"
          f"{'verify/cpu-s':>14}{'facts/deal':>12}{'target':>8}   load (1, 5, 15 min)")
    for variant, players in CASES:
        if args.preset and variant != args.preset:
            continue
        corpus = prepared(variant, players, args.games, args.seed)
        deals = sum(len(game.deals) for game, _ in corpus)
        facts = sum(len(analyse(g, r).facts) for g, r in corpus)
        seconds, cpu = best_of(args.runs, lambda c=corpus: [analyse(g, r) for g, r in c])
        _, verify_cpu = best_of(args.runs, lambda c=corpus: [verify(g) for g, _ in c])
        case = f"{variant}/{players}p"
        target = TARGETS.get(case)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{case:<16}{len(corpus) / seconds:>10.0f}{deals / seconds:>10.0f}"
              f"{deals / cpu:>13.0f}{deals / verify_cpu:>14.0f}{facts / deals:>12.1f}{target if target else '':>8}   {load}")
    print(f"{os.cpu_count()} cores; one process, one core")


if __name__ == "__main__":
    main()

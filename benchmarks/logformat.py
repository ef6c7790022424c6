"""Reading logs: the fast path against the marshmallow schemas, per preset, on one core.

Both build the same game from the same decoded document (``load_json`` is not timed);
the figure is CPU time per log, best of several runs.

    python benchmarks/logformat.py
    python benchmarks/logformat.py --games 100 --runs 7
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import orjson

from service.engine.logformat import fast_parse_game, load_json
from service.engine.logformat.schemas import GAME_SCHEMA
from service.generator import generate_games

CASES = [("gin", 2), ("rummy", 2), ("rummy", 4), ("rummy-pagat", 3), ("rummy-block", 4),
         ("greek", 3)]


def best_cpu(runs: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    print(f"{'case':<16}{'fast us/log':>12}{'schemas us/log':>16}{'speed-up':>10}")
    for variant, players in CASES:
        docs = [load_json(orjson.dumps(g))
                for g in generate_games(variant, args.games, seed=args.seed, players=players)]
        assert all(fast_parse_game(d) == GAME_SCHEMA.load(d) for d in docs)
        fast = best_cpu(args.runs, lambda docs=docs: [fast_parse_game(d) for d in docs]) / len(docs)
        slow = best_cpu(args.runs, lambda docs=docs: [GAME_SCHEMA.load(d) for d in docs]) / len(docs)
        print(f"{variant + '/' + str(players) + 'p':<16}{fast * 1e6:>12.0f}{slow * 1e6:>16.0f}"
              f"{slow / fast:>9.1f}x")


if __name__ == "__main__":
    main()

"""The replay viewer's data: every position of a deal in one replay (GET
.../deals/{d}/positions) against one state request per step (GET .../moves/{m}/state,
which replays the game to the move and verifies it for the scores).

Engine calls on one core, no HTTP: what the server spends to let a viewer step through
every position of every deal.

    python benchmarks/positions.py                 # every case
    python benchmarks/positions.py --games 10 --preset gin
"""

from __future__ import annotations

import argparse
import time

from service.engine import parse_game
from service.engine.positions import deal_positions
from service.engine.state import state_after
from service.generator import generate_games

CASES = [("gin", 2), ("rummy", 2), ("rummy", 4), ("greek", 3)]


def measure(variant: str, players: int, games: int, seed: int) -> dict:
    parsed = [parse_game(g) for g in generate_games(variant, games, seed=seed, players=players)]
    deals = [(game, d) for game in parsed for d in range(len(game.deals))]
    steps = sum(len(game.deals[d].moves) + 1 for game, d in deals)
    start = time.perf_counter()
    for game, d in deals:
        deal_positions(game, d)
    at_once = time.perf_counter() - start
    start = time.perf_counter()
    for game, d in deals:
        for move in range(-1, len(game.deals[d].moves)):
            state_after(game, d, move)
    one_by_one = time.perf_counter() - start
    return {"case": f"{variant} x{players}", "deals": len(deals), "positions": steps,
            "at_once_ms_per_deal": 1000 * at_once / len(deals),
            "one_by_one_ms_per_deal": 1000 * one_by_one / len(deals),
            "speedup": one_by_one / at_once}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--preset")
    args = parser.parse_args()
    print(f"{'case':<12} {'deals':>6} {'positions':>9} {'all at once':>14} "
          f"{'one by one':>14} {'ratio':>7}")
    for variant, players in CASES:
        if args.preset and variant != args.preset:
            continue
        row = measure(variant, players, args.games, args.seed)
        print(f"{row['case']:<12} {row['deals']:>6} {row['positions']:>9} "
              f"{row['at_once_ms_per_deal']:>9.2f} ms/deal {row['one_by_one_ms_per_deal']:>9.1f} "
              f"ms/deal {row['speedup']:>6.0f}x")


if __name__ == "__main__":
    main()

"""Throughput of the deadwood solver on random gin hands.

Deals seeded random 10- and 11-card hands and times ``best_arrangement`` on them for each
ace mode, printing hands per second.  Uniform hands seldom hold a meld, so a second set of
"dense" hands is drawn from five ranks around the ace (Q K A 2 3), full of overlapping
groups and runs: the solver's slow case.  Run from the project root:
``python benchmarks/solver.py [--hands N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

try:
    from service.engine.cards import mask_of, point_table
    from service.engine.melds import ACE_MODES, best_arrangement
except ModuleNotFoundError:  # run as a script without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from service.engine.cards import mask_of, point_table
    from service.engine.melds import ACE_MODES, best_arrangement


DENSE_POOL = [suit * 13 + rank for suit in range(4) for rank in (11, 12, 0, 1, 2)]


def random_hands(count: int, size: int, seed: int, pool: list[int] | None = None) -> list[int]:
    """``count`` hands of ``size`` distinct cards from ``pool`` (the whole deck by default),
    the same for the same seed."""
    rng = random.Random(seed)
    deck = pool if pool is not None else list(range(52))
    return [mask_of(rng.sample(deck, size)) for _ in range(count)]


def time_hands(hands: list[int], ace: str, points: tuple[int, ...]) -> tuple[float, int]:
    """Seconds to solve every hand once, and the sum of their deadwood (a checksum)."""
    solve = best_arrangement
    start = time.perf_counter()
    checksum = 0
    for hand in hands:
        checksum += solve(hand, ace, points)[0]
    return time.perf_counter() - start, checksum


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per size")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    print(f"{args.hands} random hands per size, seed {args.seed}")
    runs = [(f"{size} cards", random_hands(args.hands, size, args.seed + size))
            for size in (10, 11)]
    runs += [(f"{size} dense", random_hands(args.hands, size, args.seed - size, DENSE_POOL))
             for size in (10, 11)]
    for label, hands in runs:
        for ace in ACE_MODES:
            points = point_table(1 if ace == "low" else 15)
            time_hands(hands[:500], ace, points)  # warm the per-table caches
            # best of three: the least disturbed by other processes
            seconds, checksum = min(time_hands(hands, ace, points) for _ in range(3))
            rate = len(hands) / seconds
            print(f"{label:<9} {ace:<18} {rate:>10,.0f} hands/s"
                  f"  ({seconds * 1e6 / len(hands):.2f} us/hand, deadwood sum {checksum})")


if __name__ == "__main__":
    main()

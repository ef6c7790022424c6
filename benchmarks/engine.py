"""Engine speed: verify a generated corpus per preset and print games/s, deals/s, moves/s.

Two paths are timed on one core:
  verify  -- the whole path of ``python -m service verify``: read JSON bytes, validate,
             replay, build the report and serialise it;
  replay  -- the replay alone, on games parsed beforehand.

    python benchmarks/engine.py                 # every preset
    python benchmarks/engine.py --games 200 --preset gin

Anchor: OpenSpiel's C++ gin engine replays about 450 two-player gin hands per second
through its Python API on this machine; the target is 10x that for the whole path.
"""

from __future__ import annotations

import argparse
import time

import orjson

from service.engine import parse_game, verify
from service.engine.logformat import load_json
from service.generator import generate_games

CASES = [("gin", 2), ("rummy", 2), ("rummy", 4), ("rummy-pagat", 3), ("rummy-block", 4),
         ("greek", 3)]


def corpus(variant: str, players: int, games: int, seed: int) -> list[bytes]:
    return [orjson.dumps(g) for g in generate_games(variant, games, seed=seed, players=players)]


def best_of(runs: int, work) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def measure(variant: str, players: int, games: int, seed: int, runs: int) -> dict:
    docs = corpus(variant, players, games, seed)
    parsed = [parse_game(load_json(d)) for d in docs]
    deals = sum(len(g.deals) for g in parsed)
    moves = sum(len(d.moves) for g in parsed for d in g.deals)
    for game in parsed:
        assert verify(game).status == "valid"

    def whole():
        for doc in docs:
            orjson.dumps(verify(parse_game(load_json(doc))).to_dict())

    def replay():
        for game in parsed:
            verify(game)

    out = {"case": f"{variant}/{players}p", "games": games, "deals": deals, "moves": moves}
    for name, work in (("verify", whole), ("replay", replay)):
        seconds = best_of(runs, work)
        out[name] = (games / seconds, deals / seconds, moves / seconds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--preset", default=None)
    args = parser.parse_args()
    print(f"{'case':<16}{'path':<8}{'games/s':>10}{'deals/s':>10}{'moves/s':>11}"
          f"   corpus")
    for variant, players in CASES:
        if args.preset and variant != args.preset:
            continue
        result = measure(variant, players, args.games, args.seed, args.runs)
        for path in ("verify", "replay"):
            g, d, m = result[path]
            print(f"{result['case']:<16}{path:<8}{g:>10,.0f}{d:>10,.0f}{m:>11,.0f}"
                  f"   {result['games']} games, {result['deals']} deals, "
                  f"{result['moves']} moves")


if __name__ == "__main__":
    main()

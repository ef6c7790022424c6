"""Speed of the luck analysis: stock draws and deals per second, per preset, one core.

Generates seeded games of each preset (parsed and verified beforehand, outside the
timing), then times ``analyse_luck`` on every game: the replay of the deals and the
figures of every stock draw and dealt hand (gin: in deal points, ``gin_luck``, whose
draws are not timed apart).  It also times the draw figures alone on
the draws of those games two ways: ``draw_figures`` (the tables, the far cards counted
by points) and a plain count with the engine (``melds.discard_deadwoods`` for every
card that could be drawn), the way one would first write it.  CPU time of this process
(``time.process_time``), so that other work on the machine weighs less.  Run from the
project root: ``python benchmarks/luck.py [--games N] [--seed S] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

try:
    import service.analysis.luck as luck_module
except ModuleNotFoundError:  # run as a script without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import service.analysis.luck as luck_module

from service.analysis.values import INF, draw_figures, suit_tables
from service.engine import parse_game
from service.engine.cards import cards_of
from service.engine.melds import discard_deadwoods, least_deadwood
from service.engine.replay import verify
from service.generator import generate_games

PRESETS = (("gin", 2), ("rummy", 2), ("rummy", 4), ("rummy-pagat", 4), ("rummy-block", 4),
           ("greek", 2), ("greek", 4))


def plain_figures(hand: int, unseen: int, card: int, layable: int, tables) -> tuple:
    """``draw_figures`` the plain way: every unseen card drawn, every set of fitting
    cards laid off, every discard weighed by the engine."""
    ace, points = tables.ace, tables.points

    def subsets(mask: int) -> list[int]:
        out = [0]
        for c in cards_of(mask):
            out += [s | 1 << c for s in out]
        return out

    before = min(least_deadwood(hand & ~s, ace, points) for s in subsets(hand & layable))
    total = own = 0
    for c in cards_of(unseen):
        held = hand | 1 << c
        best = INF
        for laid in subsets(held & layable):
            kept = held & ~laid
            value = min((dw for _, dw in discard_deadwoods(kept, ace, points)), default=0)
            best = min(best, value)
        total += best
        if c == card:
            own = best
    return before, total, own


def recorded_draws(games) -> list[tuple]:
    """The arguments of every draw's figures in the games."""
    seen: list[tuple] = []
    original = luck_module.draw_figures

    def record(*args):
        seen.append(args)
        return original(*args)

    luck_module.draw_figures = record
    try:
        for game, report in games:
            luck_module.analyse_luck(game, report)
    finally:
        luck_module.draw_figures = original
    return seen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per preset")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="best of R timings")
    args = parser.parse_args(argv)
    print(f"{args.games} generated games per preset, seed {args.seed}, best of {args.repeat}"
          " (CPU seconds of this process)")
    print(f"{'preset':<16}{'deals':>7}{'draws':>7}{'deals/s':>10}{'draws/s':>10}"
          f"{'figures/s':>11}{'plain/s':>9}{'x':>6}")
    for variant, players in PRESETS:
        games = []
        for log in generate_games(variant, args.games, seed=args.seed, players=players):
            game = parse_game(log)
            games.append((game, verify(game)))
        luck_module.analyse_luck(*games[0])  # the tables of the rules, built once
        deals = sum(len(g.deals) for g, _ in games)
        whole = INF
        for _ in range(args.repeat):
            start = time.process_time()
            for game, report in games:
                luck_module.analyse_luck(game, report)
            whole = min(whole, time.process_time() - start)
        draws = recorded_draws(games)
        label = f"{variant} {players}p"
        if not draws:  # gin: deal points over the stock's cards (gin_luck), no card-point figures
            print(f"{label:<16}{deals:>7}{'':>7}{deals / whole:>10.0f}")
            continue
        fast = plain = INF
        for _ in range(args.repeat):
            start = time.process_time()
            for call in draws:
                draw_figures(*call)
            fast = min(fast, time.process_time() - start)
        sample = draws[:: max(1, len(draws) // 400)]
        start = time.process_time()
        for call in sample:
            assert plain_figures(*call) == draw_figures(*call)
        plain = (time.process_time() - start) / len(sample) * len(draws)
        print(f"{label:<16}{deals:>7}{len(draws):>7}{deals / whole:>10.0f}"
              f"{len(draws) / whole:>10.0f}{len(draws) / fast:>11.0f}"
              f"{len(draws) / plain:>9.0f}{plain / fast:>6.1f}")
    suit_tables.cache_clear()


if __name__ == "__main__":
    main()

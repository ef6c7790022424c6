"""Does taking the luck away make two players easier to tell apart?  Bots of known skill
play two-player gin; per pairing, the per-deal result with and without the luck.

For each pairing of the generator's gin skills (``random``, ``greedy``, ``careful``:
``service/generator/gin_bot.py``) it plays seeded games until it has ``--deals`` deals,
analyses each game's luck (``analyse_luck``, as the service stores it) and prints, for
the head-to-head difference per deal (first player's deal points less the second's):

* the mean and standard deviation of the raw difference and of the luck-adjusted one
  (adjusted = points - luck, per player);
* the variance ratio adjusted / raw (below 1: the luck taken away was noise);
* the deals needed to tell the players apart at 95% (two-sided), ``(1.96 sd / mean)^2``
  with each figure's own mean and sd ("-" where the mean is within two standard errors
  of 0);
* the adjusted mean's standard error (in self-play the adjusted mean should be 0), and
  the mean luck difference per deal with its standard error (``luck``, ``se``): the
  luck's expectation is 0 in every pairing, the adjusted mean the raw one's;
* per player, the variance of their luck-adjusted points per deal against that of their
  points per deal (``player x``), the figure players are ranked by.

Run from the project root: ``python benchmarks/luck_variance.py [--deals N] [--seed S]
[--oklahoma] [--pairs random:greedy,greedy:careful,...]``.  A few minutes at 3,000
deals a pairing on one core.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

try:
    from service.analysis.luck import analyse_luck
except ModuleNotFoundError:  # run as a script without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from service.analysis.luck import analyse_luck

from service.engine import parse_game, verify
from service.generator import generate_game

PAIRS = (("random", "greedy"), ("greedy", "careful"), ("random", "careful"),
         ("greedy", "greedy"), ("careful", "careful"))


def deals_of(first: str, second: str, deals: int, seed: int, rules: dict | None
             ) -> list[tuple[float, float, float, float]]:
    """(points, adjusted) of the first player and of the second, per scored deal."""
    out: list[tuple[float, float, float, float]] = []
    skills = {"ana": first, "ben": second}
    game_no = 0
    while len(out) < deals:
        log = generate_game("gin", (seed, game_no), players=2, rules=rules, skills=skills)
        game_no += 1
        game = parse_game(log)
        luck = analyse_luck(game, verify(game))
        for deal in luck.deals:
            if deal.points is None:
                continue
            out.append((deal.points["ana"], deal.adjusted["ana"],
                        deal.points["ben"], deal.adjusted["ben"]))
    return out[:deals]


def needed(values: list[float]) -> str:
    mean = statistics.fmean(values)
    sd = statistics.stdev(values)
    if abs(mean) <= 2 * sd / math.sqrt(len(values)):
        return "-"
    return f"{(1.96 * sd / mean) ** 2:.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000, help="deals per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--oklahoma", action="store_true", help="play Oklahoma gin")
    parser.add_argument("--pairs", default=",".join(f"{a}:{b}" for a, b in PAIRS))
    args = parser.parse_args(argv)
    rules = {"oklahoma": True} if args.oklahoma else None
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
    print(f"two-player gin{' (oklahoma)' if rules else ''}, {args.deals} deals a pairing, "
          f"seed {args.seed}; difference = first player's points - second's, per deal")
    print(f"{'pairing':<18}{'raw mean':>9}{'sd':>7}{'adj mean':>9}{'sd':>7}{'ratio':>7}"
          f"{'n raw':>7}{'n adj':>7}{'adj se':>7}{'luck':>7}{'se':>6}{'player x':>9}{'s':>6}")
    for first, second in pairs:
        start = time.process_time()
        rows = deals_of(first, second, args.deals, args.seed, rules)
        seconds = time.process_time() - start
        raw = [a - b for a, _, b, _ in rows]
        adjusted = [x - y for _, x, _, y in rows]
        player = []
        for points, adj in ((0, 1), (2, 3)):
            player.append(statistics.variance([r[adj] for r in rows])
                          / statistics.variance([r[points] for r in rows]))
        sd_raw, sd_adj = statistics.stdev(raw), statistics.stdev(adjusted)
        luck = [r - a for r, a in zip(raw, adjusted, strict=True)]
        luck_se = statistics.stdev(luck) / math.sqrt(len(luck))
        print(f"{first + ':' + second:<18}{statistics.fmean(raw):>9.2f}{sd_raw:>7.1f}"
              f"{statistics.fmean(adjusted):>9.2f}{sd_adj:>7.1f}"
              f"{(sd_adj / sd_raw) ** 2:>7.2f}{needed(raw):>7}{needed(adjusted):>7}"
              f"{sd_adj / math.sqrt(len(adjusted)):>7.2f}"
              f"{statistics.fmean(luck):>7.2f}{luck_se:>6.2f}"
              f"{max(player):>9.2f}{seconds:>6.0f}")


if __name__ == "__main__":
    main()

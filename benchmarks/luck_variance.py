"""Does taking the luck away make two players easier to tell apart?  Bots of known skill
play two-player gin; per pairing, the per-deal result with and without the luck.

For each pairing of the generator's gin skills (``random``, ``greedy``, ``careful``:
``service/generator/gin_bot.py``) it plays seeded games until it has ``--deals`` deals,
analyses each game's luck (``analyse_luck``, as the service stores it) and prints, for
the head-to-head difference per deal (first player's deal points less the second's):

* the mean and standard deviation of the raw difference and of the luck-adjusted one
  (adjusted = points - luck, per player);
* the variance ratio adjusted / raw (below 1: the luck taken away was noise), and its
  standard error (``r se``: the deals resampled 200 times, a fixed seed);
* the deals needed to tell the players apart at 95% (two-sided), ``(1.96 sd / mean)^2``
  with each figure's own mean and sd ("-" where the mean is within two standard errors
  of 0);
* the adjusted mean's standard error (in self-play the adjusted mean should be 0), and
  the mean luck difference per deal with its standard error (``luck``, ``se``): the
  luck's expectation is 0 in every pairing, the adjusted mean the raw one's;
* per player, the variance of their luck-adjusted points per deal against that of their
  points per deal (``player x``, the larger of the two);
* the same two ratios with each player's luck weighed by their cross-fitted share of it
  (``share``: the head-to-head difference; ``x``: the larger player's), as the store's
  player figures and leaderboard take it (``service/analysis/luck_share.py``).

Run from the project root: ``python benchmarks/luck_variance.py [--deals N] [--seed S]
[--oklahoma] [--deck] [--pairs random:greedy,greedy:careful,...]``.  ``--deck`` logs
each deal's whole deck (the deal luck then takes the deck's duplicate, ``gin_duplicate``)
instead of its hands and named draws.  A few minutes at 3,000 deals a pairing on one
core.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

try:
    from service.analysis.luck import analyse_luck
except ModuleNotFoundError:  # run as a script without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from service.analysis.luck import analyse_luck

from service.analysis.luck_share import E4, FoldSums, fold_of, share_e4
from service.engine import parse_game, verify
from service.generator import generate_game

PAIRS = (("random", "greedy"), ("greedy", "careful"), ("random", "careful"),
         ("greedy", "greedy"), ("careful", "careful"))


def deals_of(first: str, second: str, deals: int, seed: int, rules: dict | None,
             with_deck: bool = False) -> list[tuple[float, float, float, float, str]]:
    """(points, adjusted) of the first player and of the second, and the game's id (its
    number in hexadecimal, as the store's ids are), per scored deal."""
    out: list[tuple[float, float, float, float, str]] = []
    skills = {"ana": first, "ben": second}
    game_no = 0
    while len(out) < deals:
        log = generate_game("gin", (seed, game_no), players=2, rules=rules, skills=skills,
                            with_deck=with_deck)
        game_no += 1
        game = parse_game(log)
        luck = analyse_luck(game, verify(game))
        for deal in luck.deals:
            if deal.points is None:
                continue
            out.append((deal.points["ana"], deal.adjusted["ana"],
                        deal.points["ben"], deal.adjusted["ben"], f"{game_no:x}"))
    return out[:deals]


def shared(rows: list[tuple[float, float, float, float, str]], points: int, adjusted: int
           ) -> list[float]:
    """A player's points per deal less their luck weighed by their cross-fitted share
    (``luck_share``: each half of the games by the share measured on the other), as the
    store's figures take it."""
    halves = FoldSums(), FoldSums()
    games: dict[str, list[float]] = {}
    for row in rows:
        got = games.setdefault(row[4], [0, 0.0, 0.0])
        got[0] += 1
        got[1] += row[points]
        got[2] += row[points] - row[adjusted]
    for gid, (n, total, luck) in games.items():
        halves[fold_of(gid)].add(int(n), round(total * E4), round(luck * E4))
    shares = share_e4(halves[1]) / E4, share_e4(halves[0]) / E4
    return [r[points] - shares[fold_of(r[4])] * (r[points] - r[adjusted]) for r in rows]


def needed(values: list[float]) -> str:
    mean = statistics.fmean(values)
    sd = statistics.stdev(values)
    if abs(mean) <= 2 * sd / math.sqrt(len(values)):
        return "-"
    return f"{(1.96 * sd / mean) ** 2:.0f}"


def ratio_se(raw: list[float], adjusted: list[float], draws: int = 200) -> float:
    """The standard error of the variance ratio: the deals resampled ``draws`` times
    with replacement (seeded), the ratio's standard deviation over the resamples."""
    rng = random.Random(0)
    n = len(raw)
    ratios = []
    for _ in range(draws):
        picks = [rng.randrange(n) for _ in range(n)]
        ratios.append(statistics.variance([adjusted[i] for i in picks])
                      / statistics.variance([raw[i] for i in picks]))
    return statistics.stdev(ratios)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000, help="deals per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--oklahoma", action="store_true", help="play Oklahoma gin")
    parser.add_argument("--deck", action="store_true", help="log each deal's deck")
    parser.add_argument("--pairs", default=",".join(f"{a}:{b}" for a, b in PAIRS))
    args = parser.parse_args(argv)
    rules = {"oklahoma": True} if args.oklahoma else None
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
    print(f"two-player gin{' (oklahoma)' if rules else ''}"
          f"{', decks logged' if args.deck else ''}, {args.deals} deals a pairing, "
          f"seed {args.seed}; difference = first player's points - second's, per deal")
    print(f"{'pairing':<18}{'raw mean':>9}{'sd':>7}{'adj mean':>9}{'sd':>7}{'ratio':>7}"
          f"{'r se':>6}"
          f"{'n raw':>7}{'n adj':>7}{'adj se':>7}{'luck':>7}{'se':>6}{'player x':>9}"
          f"{'share':>7}{'x':>6}{'s':>6}")
    for first, second in pairs:
        start = time.process_time()
        rows = deals_of(first, second, args.deals, args.seed, rules, args.deck)
        seconds = time.process_time() - start
        raw = [r[0] - r[2] for r in rows]
        adjusted = [r[1] - r[3] for r in rows]
        player, by_share = [], []
        for points, adj in ((0, 1), (2, 3)):
            player.append(statistics.variance([r[adj] for r in rows])
                          / statistics.variance([r[points] for r in rows]))
            by_share.append(shared(rows, points, adj))
        share_ratio = (statistics.variance([a - b for a, b in zip(*by_share, strict=True)])
                       / statistics.variance(raw))
        share_player = max(statistics.variance(values)
                           / statistics.variance([r[points] for r in rows])
                           for values, points in zip(by_share, (0, 2), strict=True))
        sd_raw, sd_adj = statistics.stdev(raw), statistics.stdev(adjusted)
        luck = [r - a for r, a in zip(raw, adjusted, strict=True)]
        luck_se = statistics.stdev(luck) / math.sqrt(len(luck))
        print(f"{first + ':' + second:<18}{statistics.fmean(raw):>9.2f}{sd_raw:>7.1f}"
              f"{statistics.fmean(adjusted):>9.2f}{sd_adj:>7.1f}"
              f"{(sd_adj / sd_raw) ** 2:>7.3f}{ratio_se(raw, adjusted):>6.3f}"
              f"{needed(raw):>7}{needed(adjusted):>7}"
              f"{sd_adj / math.sqrt(len(adjusted)):>7.2f}"
              f"{statistics.fmean(luck):>7.2f}{luck_se:>6.2f}"
              f"{max(player):>9.2f}{share_ratio:>7.2f}{share_player:>6.2f}{seconds:>6.0f}")


if __name__ == "__main__":
    main()

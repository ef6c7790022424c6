"""Analysis speed: the facts of each decision per preset, deals analysed per second on one
core (games parsed and verified beforehand: the time is ``analyse`` alone), by the wall
clock and by the process's own CPU time, with the luck too (``+luck``) and the decision
loss as well (``+decisions``, two-player gin only: what the store's catch-up computes
for each game, and a game's analysis answer and page), beside the CPU time of
verifying the same deals (what storing a game costs the engine), and how busy the
machine was (``os.getloadavg``: other processes share its cores).

    python benchmarks/analysis.py                 # every case
    python benchmarks/analysis.py --games 100 --preset gin
    python benchmarks/analysis.py --profile gin/2p   # where the time goes, by function
    python benchmarks/analysis.py --queries 200000   # the player figures and the screen
                                                     # over that many stored analyses

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

from service.analysis.decisions import game_decisions  # noqa: E402
from service.analysis.facts import analyse  # noqa: E402
from service.analysis.luck import analyse_luck  # noqa: E402
from service.engine import parse_game, verify  # noqa: E402
from service.generator import generate_games  # noqa: E402

CASES = [("gin", 2), ("rummy", 4), ("rummy", 2), ("rummy-pagat", 3), ("rummy-block", 4),
         ("greek", 4), ("greek", 2)]
TARGETS = {"gin/2p": 500, "rummy/4p": 300}


def prepared(variant: str, players: int, games: int, seed: int, with_deck: bool = False):
    parsed = [parse_game(g) for g in generate_games(variant, games, seed=seed, players=players,
                                                    with_deck=with_deck)]
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
    parser.add_argument("--deck", action="store_true",
                        help="games that log each deal's deck (gin: the duplicate's cost)")
    parser.add_argument("--queries", type=int, default=0,
                        help="time the stored figures' queries over this many games")
    args = parser.parse_args()
    if args.queries:
        queries(args.queries, args.seed)
        return
    if args.profile:
        variant, players = args.profile.split("/")
        corpus = prepared(variant, int(players.rstrip("p")), args.games, args.seed)
        profile = cProfile.Profile()
        profile.runcall(lambda: [analyse(g, r) for g, r in corpus])
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
        return
    print(f"{'case':<16}{'games/s':>10}{'deals/s':>10}{'deals/cpu-s':>13}"
          f"{'+luck/cpu-s':>13}{'+decisions':>12}{'verify/cpu-s':>14}{'facts/deal':>12}{'target':>8}"
          "   load (1, 5, 15 min)")
    for variant, players in CASES:
        if args.preset and variant != args.preset:
            continue
        corpus = prepared(variant, players, args.games, args.seed, args.deck)
        deals = sum(len(game.deals) for game, _ in corpus)
        facts = sum(len(analyse(g, r).facts) for g, r in corpus)
        seconds, cpu = best_of(args.runs, lambda c=corpus: [analyse(g, r) for g, r in c])
        # The facts and the luck (the target is for these two).
        _, stored_cpu = best_of(args.runs, lambda c=corpus: [
            (analyse(g, r), analyse_luck(g, r)) for g, r in c])
        # What the catch-up computes for each game: the gin decisions judged too.
        _, judged_cpu = best_of(args.runs, lambda c=corpus: [
            (analyse(g, r), analyse_luck(g, r), game_decisions(g)) for g, r in c])
        _, verify_cpu = best_of(args.runs, lambda c=corpus: [verify(g) for g, _ in c])
        case = f"{variant}/{players}p"
        target = TARGETS.get(case)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{case:<16}{len(corpus) / seconds:>10.0f}{deals / seconds:>10.0f}"
              f"{deals / cpu:>13.0f}{deals / stored_cpu:>13.0f}{deals / judged_cpu:>12.0f}"
              f"{deals / verify_cpu:>14.0f}{facts / deals:>12.1f}{target if target else '':>8}   {load}")
    print(f"{os.cpu_count()} cores; one process, one core")


def queries(games: int, seed: int, repeats: int = 40) -> None:
    """Fill a temporary store with the analyses of ``games`` games (the rows of a small
    generated corpus of 2 to 4 players repeated under fresh ids, players drawn from a
    pool of 2,000) and time the player figures and the integrity screen: p50 and p95."""
    import random
    import tempfile

    from service.store import Store
    from service.store.analysis import (
        AnalysisRecord,
        analysis_record,
        integrity_pairs,
        player_analysis,
    )
    from service.store.stats import StatsFilter, leaderboard

    rng = random.Random(seed)
    base = []
    for variant, players in (("gin", 2), ("rummy", 4), ("rummy", 3)):
        for game, report in prepared(variant, players, 20, seed):
            base.append(analysis_record("x", game, report, None, _when()))
    pool = [f"player{i:04d}" for i in range(2000)]
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "q.duckdb")
        batch = []
        for k in range(games):
            model = base[k % len(base)]
            names = {p: rng.choice(pool) for p in {r[1] for r in model.analysis_players}}
            gid = f"g{k:023d}"
            batch.append(AnalysisRecord(gid, (gid, *model.analysis_games[1:]), [], [
                (gid, names[r[1]], names.get(r[2], r[2]), *r[3:])
                for r in model.analysis_players]))
            if len(batch) == 20000:
                store.add_analyses(batch)
                batch = []
        store.add_analyses(batch)
        _players_of_analyses(store)
        for name, work in (
                ("player figures", lambda: player_analysis(store, rng.choice(pool),
                                                           StatsFilter())),
                ("player figures, gin", lambda: player_analysis(
                    store, rng.choice(pool), StatsFilter(variant="gin"))),
                ("leaderboard sort=wins", lambda: leaderboard(
                    store, StatsFilter(), "wins", "desc", 0, 50)),
                ("leaderboard accuracy", lambda: leaderboard(
                    store, StatsFilter(), "accuracy", "desc", 0, 50)),
                ("leaderboard luck, gin", lambda: leaderboard(
                    store, StatsFilter(variant="gin"), "luck", "desc", 0, 50)),
                ("integrity screen, gin", lambda: integrity_pairs(store, "gin", 20, 50))):
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                work()
                times.append(time.perf_counter() - start)
            times.sort()
            print(f"{name:<24} p50 {1000 * times[len(times) // 2]:7.1f} ms   p95 "
                  f"{1000 * times[int(len(times) * 0.95) - 1]:7.1f} ms   ({games} games)")
        store.close()
    print("load (1, 5, 15 min):", ", ".join(f"{x:.2f}" for x in os.getloadavg()))


def _players_of_analyses(store) -> None:
    """The ``game_players`` rows the leaderboard ranks, one per player of each analysed
    game (finished, won by the first player by name), so that its analysis keys are
    timed over every analysis.  Deal rows are left out: the leaderboard joins them
    apart, and the analysis figures are what is timed here."""
    with store.exclusive() as cur:
        cur.execute("""
            INSERT INTO game_players
            SELECT game_id, row_number() OVER w - 1, player, NULL, variant, status,
                   tournament_id, game_time, sum(points), NULL, row_number() OVER w = 1,
                   row_number() OVER w > 1, true, 0, max(deals)
            FROM analysis_players
            GROUP BY game_id, player, variant, status, tournament_id, game_time
            WINDOW w AS (PARTITION BY game_id ORDER BY player)""")


def _when():
    from datetime import UTC, datetime
    return datetime(2024, 5, 1, tzinfo=UTC)


if __name__ == "__main__":
    main()

"""Query latency of the statistics endpoints on a big store, through the real service.

Loads ``--games`` generated games (mixed presets, 2-6 players, ~200 distinct players;
200,000 games are about a million deals) into a fresh DuckDB file with the loader's
direct mode, prints the load time and the database size, then starts gunicorn as
shipped and times each endpoint over HTTP (sequential requests on one keep-alive
connection, after a few warm-ups): p50 and p95 against the targets.  A route that
answers 404 (not written yet) prints n/a.

    python benchmarks/queries.py                       # 200,000 games
    python benchmarks/queries.py --games 5000          # a quick check
    python benchmarks/queries.py --db big.duckdb       # reuse a loaded file (or keep one)
    python benchmarks/queries.py --lake audit-out      # an audit's Parquet, served (RUMMY_LAKE)
"""

from __future__ import annotations

import argparse
import http.client
import math
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import duckdb
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.loader import LoadPlan, load_direct  # noqa: E402
from tests.e2e.server import Server  # noqa: E402

STATS_TARGET = 50.0  # ms, p95: one player's figures, head-to-head
BOARD_TARGET = 200.0  # ms, p95: leaderboard, variant statistics
SORTS = ("wins", "win_rate", "points_per_deal", "games")


@dataclass
class Sample:
    """What the queries ask about: players, pairs who met, tournaments, variants."""

    players: list[str]
    pairs: list[tuple[str, str]]
    tournaments: list[str]
    variants: list[str]
    games: int
    deals: int


def sample_store(db: Path | None, rng: random.Random, lake: Path | None = None) -> Sample:
    """Read the store once, before the server opens it (DuckDB: one process at a time),
    or the lake's Parquet."""
    if lake is not None:
        from service.store.lake import LakeStore

        reads = LakeStore(lake)
        con = reads._con
    else:
        con = duckdb.connect(str(db), read_only=True)
    try:
        games, deals = con.execute("SELECT count(*), coalesce(sum(n_deals), 0) "
                                   "FROM games").fetchone()
        players = [p for (p,) in con.execute(
            "SELECT DISTINCT player FROM game_players ORDER BY player").fetchall()]
        pairs = [(a, b) for a, b in con.execute(
            "SELECT a.player, b.player FROM game_players a JOIN game_players b "
            "ON a.game_id = b.game_id AND a.player < b.player "
            "USING SAMPLE 2000 ROWS").fetchall()]
        tournaments = [t for (t,) in con.execute(
            "SELECT DISTINCT tournament_id FROM games WHERE tournament_id IS NOT NULL "
            "ORDER BY 1").fetchall()]
        variants = [v for (v,) in con.execute(
            "SELECT DISTINCT variant FROM games ORDER BY 1").fetchall()]
    finally:
        con.close()
    rng.shuffle(pairs)
    return Sample(players, pairs, tournaments, variants, games, deals)


def size_on_disk(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + ".wal")) if p.exists())


@dataclass
class Timing:
    name: str
    target: float | None
    latencies: list[float]
    status: str  # "ok", or why there are no figures

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def time_endpoint(port: int, name: str, target: float | None, paths: Callable[[int], str],
                  requests: int, warmups: int) -> Timing:
    """``requests`` GETs of ``paths(i)`` after ``warmups``; n/a when the route is 404."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    latencies: list[float] = []
    try:
        for i in range(warmups + requests):
            path = paths(i)
            start = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            elapsed = (time.perf_counter() - start) * 1000
            if response.status == 404:
                return Timing(name, target, [], "n/a (404)")
            if response.status != 200:
                detail = body[:200].decode(errors="replace")
                return Timing(name, target, [], f"HTTP {response.status}: {detail}")
            if i >= warmups:
                latencies.append(elapsed)
    finally:
        conn.close()
    return Timing(name, target, latencies, "ok")


def measure(port: int, sample: Sample, rng: random.Random, requests: int,
            warmups: int) -> list[Timing]:
    players = sample.players or ["nobody"]
    pairs = sample.pairs or [("nobody", "noone")]
    variants = sample.variants or ["gin"]

    def player(i: int) -> str:
        return quote(players[rng.randrange(len(players))], safe="")

    def pair(i: int) -> tuple[str, str]:
        a, b = pairs[i % len(pairs)]
        return quote(a, safe=""), quote(b, safe="")

    out = [
        time_endpoint(port, "player stats", STATS_TARGET,
                      lambda i: f"/api/v1/players/{player(i)}/stats", requests, warmups),
        time_endpoint(port, "player stats ?variant=", STATS_TARGET,
                      lambda i: f"/api/v1/players/{player(i)}/stats?variant="
                                f"{variants[i % len(variants)]}", requests, warmups),
    ]
    for sort in SORTS:
        out.append(time_endpoint(port, f"leaderboard sort={sort}", BOARD_TARGET,
                                 lambda i, s=sort: f"/api/v1/players?sort={s}", requests,
                                 warmups))
    out.append(time_endpoint(port, "head-to-head", STATS_TARGET,
                             lambda i: "/api/v1/players/{}/versus/{}".format(*pair(i)),
                             requests, warmups))
    out.append(time_endpoint(port, "variant stats", BOARD_TARGET,
                             lambda i: "/api/v1/stats/variants", requests, warmups))
    if sample.tournaments:
        tournaments = sample.tournaments
        out.append(time_endpoint(
            port, "tournament", None,
            lambda i: f"/api/v1/tournaments/{quote(tournaments[i % len(tournaments)], safe='')}",
            requests, warmups))
    else:
        out.append(Timing("tournament", None, [], "n/a (no tournament stored)"))
    out.append(time_endpoint(port, "games ?player=", None,
                             lambda i: f"/api/v1/games?player={player(i)}", requests, warmups))
    # ratings (docs/RATINGS.md): the leaderboard is a view over the whole history
    out.append(time_endpoint(port, "ratings", BOARD_TARGET, lambda i: "/api/v1/ratings",
                             requests, warmups))
    out.append(time_endpoint(port, "ratings ?variant=", BOARD_TARGET,
                             lambda i: f"/api/v1/ratings?variant={variants[i % len(variants)]}",
                             requests, warmups))
    out.append(time_endpoint(port, "leaderboard sort=rating", BOARD_TARGET,
                             lambda i: "/api/v1/players?sort=rating&variant="
                                       f"{variants[i % len(variants)]}", requests, warmups))
    out.append(time_endpoint(port, "player ratings", STATS_TARGET,
                             lambda i: f"/api/v1/players/{player(i)}/ratings", requests,
                             warmups))
    return out


def table(timings: list[Timing]) -> str:
    lines = [f"{'endpoint':<32} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'target p95':>11}  "
             "verdict"]
    for t in timings:
        target = f"<= {t.target:.0f}" if t.target is not None else "-"
        if not t.latencies:
            lines.append(f"{t.name:<32} {'':>4} {'n/a':>8} {'n/a':>8} {target:>11}  {t.status}")
            continue
        p50, p95 = t.percentile(0.5), t.percentile(0.95)
        verdict = "-" if t.target is None else ("ok" if p95 <= t.target else "SLOW")
        lines.append(f"{t.name:<32} {len(t.latencies):>4} {p50:>8.1f} {p95:>8.1f} "
                     f"{target:>11}  {verdict}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--names", type=int, default=200, help="distinct players")
    parser.add_argument("--db", type=Path, default=None,
                        help="a DuckDB file: reused as it is when it exists (no load), "
                             "else loaded and kept")
    parser.add_argument("--requests", type=int, default=100, help="timed requests each")
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--processes", type=int, default=None, help="loader processes")
    parser.add_argument("--lake", type=Path, default=None,
                        help="an audit's results folder, served read-only instead of a store")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    if args.lake is not None:
        sample = sample_store(None, rng, args.lake)
        size = sum(p.stat().st_size for p in args.lake.rglob("*.parquet"))
        print(f"lake: {sample.games:,} games, {sample.deals:,} deals, "
              f"{len(sample.players)} players, {len(sample.tournaments)} tournaments; "
              f"Parquet {size / 2**20:,.1f} MiB on disk", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            server = Server(Path(tmp) / "unused.duckdb",
                            env={"RUMMY_LAKE": str(args.lake)}).start(timeout=300)
            try:
                timings = measure(server.port, sample, rng, args.requests, args.warmups)
            finally:
                server.stop()
        print(table(timings))
        return

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "queries.duckdb"
        if db.exists():
            print(f"reusing {db} (no load)", flush=True)
        else:
            plan = LoadPlan(args.seed, "mixed", names=args.names)
            result = load_direct(plan, args.games, db, processes=args.processes,
                                 progress=sys.stderr)
            print(f"load: {result.games:,} games, {result.deals:,} deals in "
                  f"{result.seconds:.1f} s ({result.games / result.seconds:,.0f} games/s, "
                  f"{result.deals / result.seconds:,.0f} deals/s)", flush=True)
        sample = sample_store(db, rng)
        print(f"store: {sample.games:,} games, {sample.deals:,} deals, "
              f"{len(sample.players)} players, {len(sample.tournaments)} tournaments; "
              f"database {size_on_disk(db) / 2**20:,.1f} MiB on disk", flush=True)
        server = Server(db).start(timeout=300)
        try:
            timings = measure(server.port, sample, rng, args.requests, args.warmups)
            status, _, body = server.request("GET", "/api/v1/healthz")
            health = orjson.loads(body).get("status") if status == 200 else status
        finally:
            server.stop()
        print(table(timings))
        print(f"healthz: {health}")


if __name__ == "__main__":
    main()

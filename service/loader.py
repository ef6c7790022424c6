"""Fill a store with generated, verified games (``python -m service load-synthetic``).

    python -m service load-synthetic --games 200000 --variant mixed --seed 1
    python -m service load-synthetic --games 5000 --variant gin --players 2 --db x.duckdb
    python -m service load-synthetic --games 5000 --mixed --url http://127.0.0.1:8000

Game ``i`` of a load is a function of the seed and ``i`` only, so the same arguments
load the same games (the same ids; a game already stored is not stored twice).  Its
players are drawn from a pool of ``--names`` distinct ids (:func:`name_pool`), about one
game in twenty is part of one of a handful of tournaments (a fixed variant, rules and
roster; rounds and tables), and most games have a ``played_at`` in 2025.  ``mixed`` (or
``--mixed``) draws each game's preset, player count and a realistic option set;
a single variant keeps its preset's options.

Direct mode (the default) writes to the DuckDB file (``--db``, default ``$RUMMY_DB`` or
``./data/rummy.duckdb``), which no other process may hold: the server's file is loaded
through its API instead (``--url``), in NDJSON batches to ``POST /api/v1/games/batch``.
Games are generated in a pool of processes (all cores); in direct mode the workers also
parse, verify and turn each game into its rows, and the parent stores them in chunks of
``--chunk`` games, one transaction each.  Progress goes to stderr every few seconds.
"""

from __future__ import annotations

import argparse
import http.client
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import orjson

from .engine import parse_game, verify
from .engine.report import VALID
from .engine.rules import GIN, PRESETS
from .engine.words import plural
from .generator import generate_game
from .pool import Pool

EXIT_OK, EXIT_FAILED, EXIT_LOCKED = 0, 1, 2
MIXED = "mixed"
DEFAULT_DB = "./data/rummy.duckdb"
BATCH_PATH = "/api/v1/games/batch"
PROGRESS_SECONDS = 2.0
BLOCK = 16  # games a generating process sends at a time
LOOKAHEAD = 64  # blocks a generating process may get ahead of the one storing them
RETRIES = 5  # fresh seeds tried for a game whose options never let it end

# Mixed loads: how often each preset is drawn, and its player counts.
VARIANT_WEIGHTS = {"gin": 35, "rummy": 30, "rummy-pagat": 10, "rummy-block": 10, "greek": 15}
PLAYER_WEIGHTS = {
    "gin": {2: 70, 3: 10, 4: 20},
    "rummy": {2: 25, 3: 25, 4: 30, 5: 12, 6: 8},
    "rummy-pagat": {2: 25, 3: 25, 4: 30, 5: 12, 6: 8},
    "rummy-block": {2: 25, 3: 25, 4: 30, 5: 12, 6: 8},
    "greek": {2: 40, 3: 30, 4: 30},
}
TOURNAMENT_SHARE = 0.05
TOURNAMENT_NAMES = ("winter-open", "spring-cup", "summer-masters", "autumn-classic",
                    "club-championship", "charity-night")
PLAYED_AT_SHARE = 0.95  # the other games have no played_at (their upload time counts)
YEAR_START = datetime(2025, 1, 1, tzinfo=UTC)
FIRST_NAMES = (
    "ana", "ben", "cleo", "dan", "eva", "finn", "gus", "hana", "ivo", "jade", "kai", "lea",
    "milo", "nina", "otto", "pia", "quin", "rosa", "sam", "tara", "ugo", "vera", "wim",
    "xena", "yuri", "zoe", "abel", "bea", "cruz", "dora", "emil", "faye", "gil", "hugo",
    "iris", "jon", "kira", "liam", "maya", "ned", "olga", "paul", "rhea", "saul", "tess",
    "uma", "vic", "wren", "yara", "zeno")


def name_pool(size: int) -> list[str]:
    """``size`` distinct player ids: ``ana`` .. ``zeno``, then ``ana2`` .. and so on."""
    out = []
    for k in range(size):
        first = FIRST_NAMES[k % len(FIRST_NAMES)]
        out.append(first if k < len(FIRST_NAMES) else f"{first}{k // len(FIRST_NAMES) + 1}")
    return out


# --------------------------------------------------------------------------- what to load

@dataclass(frozen=True, slots=True)
class Tournament:
    id: str
    variant: str
    players: int
    rules: dict[str, Any]
    roster: tuple[str, ...]
    rounds: int
    tables: int
    start: datetime


@dataclass(frozen=True, slots=True)
class GameJob:
    """Everything ``generate_game`` needs for one game of the load."""

    index: int
    variant: str
    players: int
    rules: dict[str, Any] | None
    names: tuple[str, ...]
    tournament: dict[str, Any] | None
    played_at: str | None


@dataclass(frozen=True, slots=True)
class LoadPlan:
    """The games of a load: game ``i`` is ``job(i)``, a function of the seed and ``i``."""

    seed: int
    variant: str  # a preset, or MIXED
    players: int | None = None
    names: int = 200
    pool: tuple[str, ...] = field(init=False)
    tournaments: tuple[Tournament, ...] = field(init=False)

    def __post_init__(self) -> None:
        if self.variant != MIXED and self.variant not in PRESETS:
            raise ValueError(f"unknown variant {self.variant!r}; one of "
                             f"{', '.join(PRESETS)} or {MIXED}")
        if self.players is not None and not self._variants():
            raise ValueError(f"no variant of this load is played by {plural(self.players, 'player')}")
        most = self.players or max(max(PLAYER_WEIGHTS[v]) for v in self._variants())
        if self.names < most:
            raise ValueError(f"--names {self.names}: at least {plural(most, 'name')} are needed")
        object.__setattr__(self, "pool", tuple(name_pool(self.names)))
        object.__setattr__(self, "tournaments", self._make_tournaments())

    def _variants(self) -> list[str]:
        chosen = list(VARIANT_WEIGHTS) if self.variant == MIXED else [self.variant]
        if self.players is None:
            return chosen
        return [v for v in chosen if PRESETS[v].min_players <= self.players
                <= PRESETS[v].max_players]

    def _make_tournaments(self) -> tuple[Tournament, ...]:
        rng = random.Random(f"tournaments:{self.seed}")
        out = []
        for name in TOURNAMENT_NAMES:
            variant, players = self._variant_and_players(rng)
            rules = self._rules(variant, players, rng)
            size = min(len(self.pool), max(players * rng.randint(2, 6), players + 2))
            roster = tuple(rng.sample(self.pool, size))
            start = YEAR_START + timedelta(days=rng.randrange(355), hours=rng.randint(9, 18))
            out.append(Tournament(f"{name}-s{self.seed}", variant, players, rules, roster,
                                  rounds=rng.randint(3, 7), tables=max(1, size // players),
                                  start=start))
        return tuple(out)

    def _variant_and_players(self, rng: random.Random) -> tuple[str, int]:
        variants = self._variants()
        variant = rng.choices(variants, [VARIANT_WEIGHTS[v] for v in variants])[0]
        if self.players is not None:
            return variant, self.players
        counts = PLAYER_WEIGHTS[variant]
        return variant, rng.choices(list(counts), list(counts.values()))[0]

    def _rules(self, variant: str, players: int, rng: random.Random) -> dict[str, Any]:
        return realistic_rules(variant, players, rng) if self.variant == MIXED else {}

    def job(self, index: int) -> GameJob:
        rng = random.Random(f"plan:{self.seed}:{index}")
        tournament = None
        if rng.random() < TOURNAMENT_SHARE:
            t = rng.choice(self.tournaments)
            rnd = rng.randint(1, t.rounds)
            table = rng.randint(1, t.tables)
            when = t.start + timedelta(hours=2 * (rnd - 1), minutes=rng.randrange(90))
            tournament = {"id": t.id, "round": rnd, "table": str(table)}
            return GameJob(index, t.variant, t.players, t.rules or None, t.roster,
                           tournament, _rfc3339(when))
        variant, players = self._variant_and_players(rng)
        rules = self._rules(variant, players, rng)
        played_at = None
        if rng.random() < PLAYED_AT_SHARE:
            played_at = _rfc3339(YEAR_START + timedelta(seconds=rng.randrange(365 * 86400)))
        return GameJob(index, variant, players, rules or None, self.pool, None, played_at)


def _rfc3339(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def realistic_rules(variant: str, players: int, rng: random.Random) -> dict[str, Any]:
    """A house-rule option set as clubs play them (not every value of every option:
    ``random_rules`` does that), with games of a few deals."""
    out: dict[str, Any] = {}
    if PRESETS[variant].family == GIN:
        roll = rng.random()
        if roll < 0.45:
            out["deals"] = rng.randint(1, 4)  # a short match
        elif roll < 0.7:
            out["target"] = 50
        elif roll < 0.75:
            out["target"] = 150
        if rng.random() < 0.1:
            out["oklahoma"] = True
        elif rng.random() < 0.1:
            out["knock_limit"] = rng.choice((5, 7))
        if rng.random() < 0.3:
            out["gin_bonus"] = 20
        if rng.random() < 0.3:
            out["undercut_bonus"] = rng.choice((10, 20))
        if rng.random() < 0.15:
            out["undercut_on_tie"] = False
        if rng.random() < 0.15:
            out["big_gin_bonus"] = 31
        if rng.random() < 0.2:
            out["box_bonus"] = 25
        if rng.random() < 0.2:
            out["game_bonus"] = 100
        if rng.random() < 0.3:
            out["upcard_pass"] = True
        return out
    if variant == "greek":
        if rng.random() < 0.4:
            out["target"] = 100
        else:
            out["deals"] = rng.randint(1, 4)
        if rng.random() < 0.2:
            out["ace_points"] = rng.choice((1, 15))
        return out
    roll = rng.random()
    if roll < 0.55 or (players == 2 and roll < 0.75):
        out["deals"] = rng.randint(1, 5)
    elif roll < 0.85 or variant != "rummy":
        out["target"] = 100 if players <= 3 else rng.choice((100, 150))
    if rng.random() < 0.35:
        ace = rng.choice(("high_or_low", "around_the_corner"))
        out["ace"] = ace
        if rng.random() < 0.3:
            out["ace_points"] = rng.choice((1, 11))
    if rng.random() < 0.25:
        out["rummy_bonus"] = rng.choice(("plus10", "penalty25", "none"))
    if rng.random() < 0.25:
        out["stock_exhausted"] = rng.choice(("turn_over", "reshuffle_all",
                                             "reshuffle_keep_last_discard"))
        if rng.random() < 0.5:
            out["max_stock_reuses"] = rng.randint(1, 3)
    if rng.random() < 0.2:
        out["scoring"] = rng.choice(("penalty", "settlement"))
    if rng.random() < 0.2:
        out["discard_to_go_out"] = True
    if rng.random() < 0.15:
        out["layoff_requires_own_meld"] = True
    if variant == "rummy" and rng.random() < 0.15:
        out["melds_per_turn"] = 1
    if rng.random() < 0.1:
        out["discard_taken_card"] = True
    return out


def make_document(job: GameJob, seed: int, with_deck: bool = False) -> dict[str, Any]:
    """The game of a job (another seed of the game when its options never end it);
    ``with_deck``: each deal records its deck."""
    error: ValueError | None = None
    for attempt in range(RETRIES):
        game_seed = (seed, job.index) if attempt == 0 else (seed, job.index, attempt)
        try:
            return generate_game(job.variant, game_seed, job.players, job.rules, with_deck,
                                 names=job.names, tournament=job.tournament,
                                 played_at=job.played_at)
        except ValueError as problem:
            error = problem
    raise RuntimeError(f"game {job.index} ({job.variant}, {job.players} players, rules "
                       f"{job.rules}) could not be generated: {error}")


# --------------------------------------------------------------------------- the workers

_PLAN: LoadPlan | None = None
_AS_RECORDS = True


def _init_worker(plan: LoadPlan, as_records: bool) -> None:
    global _PLAN, _AS_RECORDS
    _PLAN = plan
    _AS_RECORDS = as_records


def _work(index: int) -> tuple[Any, int]:
    """One game: its store record (direct mode) or its NDJSON line (HTTP), and its deals."""
    plan = _PLAN
    assert plan is not None
    document = make_document(plan.job(index), plan.seed)
    raw = orjson.dumps(document)
    deals = len(document["deals"])
    if not _AS_RECORDS:
        return raw, deals
    from .store.records import build_record

    game = parse_game(document)
    report = verify(game)
    if report.status != VALID:
        raise RuntimeError(f"generated game {index} verifies {report.status}: "
                           f"{[v.to_dict() for v in report.violations][:3]}")
    return build_record(document, raw, game, report), deals


def _block(first: int, last: int) -> list[tuple[Any, int]]:
    """In a generating process: games ``first`` to ``last - 1``."""
    return [_work(i) for i in range(first, last)]


def _results(plan: LoadPlan, games: int, as_records: bool,
             processes: int) -> Iterator[tuple[Any, int]]:
    """The games in order, made in a pool of ``processes`` generating processes
    (``service.pool``: fresh interpreters, so no DuckDB handle or lock of this process is
    ever inherited).  Blocks of BLOCK games are generated in parallel and read back in
    order, up to LOOKAHEAD blocks a process ahead of the one being stored, so the order
    never depends on timing and a parent busy storing never stalls the pool for long."""
    blocks = -(-games // BLOCK)
    if processes <= 1 or blocks <= 1:
        _init_worker(plan, as_records)
        for index in range(games):
            yield _work(index)
        return
    workers = min(processes, blocks)
    jobs = ((b * BLOCK, min((b + 1) * BLOCK, games)) for b in range(blocks))
    with Pool(workers, _init_worker, (plan, as_records)) as pool:
        try:
            for block in pool.ordered(_block, jobs, ahead=workers * LOOKAHEAD):
                yield from block
        except BrokenProcessPool:
            raise RuntimeError("a generating process exited before sending its games") \
                from None
        except Exception as error:
            raise RuntimeError(f"a generating process failed: {error!r}") from error


# --------------------------------------------------------------------------- progress

class Progress:
    """Games, deals, rates and ETA to ``out`` every PROGRESS_SECONDS."""

    def __init__(self, total: int, out: IO[str] | None):
        self.total = total
        self.out = out
        self.start = time.monotonic()
        self.last = self.start
        self.games = self.deals = 0

    def add(self, deals: int) -> None:
        self.games += 1
        self.deals += deals

    def tick(self, force: bool = False, stored: int | None = None) -> None:
        now = time.monotonic()
        if self.out is None or (not force and now - self.last < PROGRESS_SECONDS):
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = self.games / elapsed
        eta = (self.total - self.games) / rate if rate else float("inf")
        line = (f"load-synthetic: {self.games:,}/{self.total:,} games, {self.deals:,} deals, "
                f"{rate:,.0f} games/s, {self.deals / elapsed:,.0f} deals/s, "
                f"elapsed {_clock(elapsed)}, ETA {_clock(eta)}")
        if stored is not None:
            line += f", {stored:,} stored"
        print(line, file=self.out, flush=True)

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.start


def _clock(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


@dataclass(slots=True)
class LoadResult:
    games: int
    created: int
    deals: int
    seconds: float
    target: str

    def summary(self) -> str:
        rate = self.games / self.seconds if self.seconds else 0.0
        deal_rate = self.deals / self.seconds if self.seconds else 0.0
        return (f"load-synthetic: loaded {plural(self.games, 'game', grouped=True)} "
                f"({self.created:,} new), {plural(self.deals, 'deal', grouped=True)} into "
                f"{self.target} in {self.seconds:.1f} s: "
                f"{rate:,.1f} games/s, {deal_rate:,.0f} deals/s")


class LoadError(RuntimeError):
    """The load failed; the message says why."""


# --------------------------------------------------------------------------- direct mode

def _new(answers: list[tuple[str, bool | None]]) -> int:
    """The games an answer of the store says were new; a generated game that could not
    be stored is a fault of the generator, reported as such."""
    refused = [gid for gid, new in answers if new is None]
    if refused:
        from .store import StoreError

        raise StoreError(f"{len(refused)} generated games could not be stored "
                         f"(the first: {refused[0]})")
    return sum(1 for _, new in answers if new)


def load_direct(plan: LoadPlan, games: int, db: str | Path, chunk: int = 2000,
                processes: int | None = None, progress: IO[str] | None = None) -> LoadResult:
    """Generate and store ``games`` games in the DuckDB file ``db``.  StoreLocked (from
    ``service.store``) when another process holds the file."""
    from .store import Store

    processes = processes or os.cpu_count() or 1
    # The workers are fresh interpreters: they never see this handle.  Games arrive out
    # of played_at order, so they are rated once at the end, not as they come.
    store = Store(db, ratings=False)
    meter = Progress(games, progress)
    created = 0
    results = _results(plan, games, True, processes)
    try:
        records = []
        for record, deals in results:
            records.append(record)
            meter.add(deals)
            if len(records) >= chunk:
                created += _new(store.add_games(records))
                records = []
                meter.tick(stored=meter.games)
            else:
                meter.tick()
        if records:
            created += _new(store.add_games(records))
        store.recompute_ratings()
    finally:
        results.close()
        store.close()
    meter.tick(force=True, stored=meter.games)
    return LoadResult(games, created, meter.deals, meter.seconds, str(db))


# --------------------------------------------------------------------------- HTTP mode

class _Poster:
    """POSTs NDJSON batches from a queue on one keep-alive connection, in order, and
    checks that every line came back stored."""

    def __init__(self, url: str, api_key: str | None, timeout: float = 600):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise LoadError(f"--url must be http://host:port, not {url!r}")
        conn_class = (http.client.HTTPSConnection if parts.scheme == "https"
                      else http.client.HTTPConnection)
        self.connect = lambda: conn_class(parts.hostname, parts.port, timeout=timeout)
        self.path = parts.path.rstrip("/") + BATCH_PATH
        self.headers = {"Content-Type": "application/x-ndjson"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.queue: queue.Queue[list[bytes] | None] = queue.Queue(maxsize=4)
        self.error: BaseException | None = None
        self.created = 0
        self.stored = 0
        self.thread = threading.Thread(target=self._run, name="load-poster", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn = self.connect()
        try:
            while True:
                lines = self.queue.get()
                if lines is None:
                    return
                if self.error is None:
                    try:
                        self._post(conn, lines)
                    except BaseException as error:  # reported by the main thread
                        self.error = error
        finally:
            conn.close()

    def _post(self, conn: http.client.HTTPConnection, lines: list[bytes]) -> None:
        body = b"\n".join(lines) + b"\n"
        try:
            conn.request("POST", self.path, body, self.headers)
            response = conn.getresponse()
            text = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise LoadError(f"POST {self.path} failed: {error}") from error
        if response.status != 200:
            raise LoadError(f"POST {self.path} answered {response.status}: "
                            f"{text[:500].decode(errors='replace')}")
        answers = [orjson.loads(line) for line in text.splitlines() if line.strip()]
        if len(answers) != len(lines):
            raise LoadError(f"{plural(len(lines), 'game')} sent, "
                            f"{plural(len(answers), 'result line')} back")
        for number, answer in enumerate(answers, start=1):
            if answer.get("line") != number or "id" not in answer:
                raise LoadError(f"line {number} of a batch was not stored: {answer}")
            if answer.get("status") != VALID:
                raise LoadError(f"line {number} of a batch verified {answer.get('status')}")
        self.stored += len(answers)
        self.created += sum(1 for a in answers if a.get("created"))

    def send(self, lines: list[bytes]) -> None:
        while True:
            if self.error is not None:
                raise self.error
            try:
                self.queue.put(lines, timeout=1)
                return
            except queue.Full:
                continue

    def finish(self) -> None:
        self.queue.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error


def load_http(plan: LoadPlan, games: int, url: str, batch: int = 500,
              processes: int | None = None, progress: IO[str] | None = None,
              api_key: str | None = None) -> LoadResult:
    """Generate ``games`` games and store them through the service at ``url``."""
    processes = processes or os.cpu_count() or 1
    poster = _Poster(url, api_key)
    meter = Progress(games, progress)
    results = _results(plan, games, False, processes)
    try:
        lines: list[bytes] = []
        for line, deals in results:
            lines.append(line)
            meter.add(deals)
            if len(lines) >= batch:
                poster.send(lines)
                lines = []
            meter.tick(stored=poster.stored)
        if lines:
            poster.send(lines)
        poster.finish()
    finally:
        results.close()
        if poster.thread.is_alive():
            poster.queue.put(None)
    meter.tick(force=True, stored=poster.stored)
    if poster.stored != games:
        raise LoadError(f"{plural(games, 'game')} generated, {poster.stored} stored")
    return LoadResult(games, poster.created, meter.deals, meter.seconds, url)


# --------------------------------------------------------------------------- command line

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, required=True, help="games to load")
    parser.add_argument("--variant", default=MIXED,
                        help=f"a preset ({', '.join(PRESETS)}) or {MIXED} (default)")
    parser.add_argument("--mixed", action="store_true", help=f"same as --variant {MIXED}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=None,
                        help="players per game (default: drawn per game)")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--db", default=None,
                        help=f"DuckDB file (default $RUMMY_DB or {DEFAULT_DB})")
    target.add_argument("--url", default=None,
                        help="load through a running service, e.g. http://127.0.0.1:8000")
    parser.add_argument("--names", type=int, default=200, help="distinct player ids")
    parser.add_argument("--chunk", type=int, default=2000,
                        help="games per transaction (direct mode)")
    parser.add_argument("--batch", type=int, default=500, help="games per POST (--url)")
    parser.add_argument("--processes", type=int, default=None,
                        help="generating processes (default: all cores)")
    parser.add_argument("--api-key", default=os.environ.get("RUMMY_CLIENT_KEY"),
                        help="a write key of the service for --url, the key part of one "
                             "of its RUMMY_API_KEYS (default $RUMMY_CLIENT_KEY)")


def run(args: argparse.Namespace, err: IO[str] | None = None) -> int:
    """The ``load-synthetic`` command: the exit code."""
    from .store import StoreError, StoreLocked

    err = err or sys.stderr
    if args.games < 0 or args.chunk < 1 or args.batch < 1:
        print("load-synthetic: --games must be an integer of at least 0, --chunk and --batch "
              "at least 1", file=err)
        return EXIT_FAILED
    try:
        plan = LoadPlan(args.seed, MIXED if args.mixed else args.variant, args.players,
                        args.names)
    except ValueError as error:
        print(f"load-synthetic: {error}", file=err)
        return EXIT_FAILED
    db = args.db or os.environ.get("RUMMY_DB") or DEFAULT_DB
    try:
        if args.url:
            result = load_http(plan, args.games, args.url, args.batch, args.processes, err,
                               args.api_key)
        else:
            result = load_direct(plan, args.games, db, args.chunk, args.processes, err)
    except StoreLocked:
        print(f"load-synthetic: the database file {db} is held open by another process, "
              "most likely the running server (DuckDB allows one writer per file).\n"
              "Load through the server instead: --url http://HOST:PORT (the address it "
              "listens on); or stop the server and run this again.", file=err)
        return EXIT_LOCKED
    except (LoadError, StoreError, RuntimeError) as error:
        print(f"load-synthetic: {error}", file=err)
        return EXIT_FAILED
    print(result.summary(), flush=True)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="load-synthetic", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

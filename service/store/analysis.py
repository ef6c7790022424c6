"""The move analysis of stored games: its rows, the catch-up that fills them, its reads.

Analysing a game costs several times what verifying it does (benchmarks/analysis.py
against benchmarks/engine.py), so it is not done while a game is stored: a catch-up
step of the process that owns the store analyses the stored games that have no analysis
yet, oldest first, in processes of its own at the lowest priority (so that it neither
holds the store's interpreter lock nor takes a core from verification): one while the
service is in use, one per core while it is idle; and writes their rows.  Its backlog
is in ``/healthz`` and ``/metrics``, and in the answers whose figures come from it.  A
game's analysis asked for before the catch-up reached it is computed then and stored
(``GET /games/{id}/analysis``).  docs/ANALYSIS.md defines every figure.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from ..analysis.decisions import Decision, game_decisions, stored_figures, stored_sums
from ..analysis.facts import ERRORS, KINDS, SOFT, Analysis, Tally, analyse, ratio, summarise
from ..analysis.luck import GameLuck, analyse_luck, luck_by_opponent
from ..engine import load_json, parse_game, verify
from ..engine.model import Game
from ..engine.report import Report
from ..engine.words import plural
from .db import Reader, StoreError, live
from .luck_sql import luck_ctes
from .stats import StatsFilter, _where

# Of the definitions: a stored analysis of another version is redone by the catch-up
# (2: the players' luck stored, migration 7; 3: a knock certain to be undercut is no
# missed knock; 4: gin luck in deal points, the evaluator's table gin_values.json, and a
# missed knock costed with the knocker's best declaration; 5: gin luck's blend of the
# table and of what a drawn card does for the other player, a dealt hand's six features;
# 6: two-player gin's decision loss stored, migration 10; 7: gin luck's features
# times the other player's chance at each draw, a dealt hand's over the cards left;
# 8: a recorded deck's duplicate in gin's deal luck; 9: gin's draws judged too, pile
# or stock, in the decision loss; 10: a hands-mode gin log's swap in its deal luck, and
# the duplicate's weight fitted again; 11: the knock-or-play-on choice and the first
# upcard's offer judged in the decision loss).
VERSION = 11
# The analysis version the gin evaluator's table (gin_values.json) was fitted for: a new
# table carries a new number, and the analysis's version goes up with it, so that the
# catch-up redoes every gin analysis; a new analysis version alone keeps the table.
GIN_TABLE_VERSION = 9
E4 = 10_000  # luck is stored in units of 0.0001 point (gin: deal point, else card point)
BATCH = 32  # games each worker analyses in a step of the catch-up
IDLE = 1.0  # seconds the catch-up waits when nothing is left
DEEP = 64  # games waiting for the writer from which the catch-up gives way (``tick``)
PAUSE = 0.1  # seconds it then waits before it looks again
QUIET = 1.0  # seconds without a game written after which the catch-up runs flat out
BUSY_SHARE = 0.1  # share of the time it takes while games are written (``rest_after``)
BACKLOG_EVERY = 1.0  # seconds a counted backlog is reported before it is counted again
_log = logging.getLogger(__name__)


@dataclass
class AnalysisRecord:
    """One game's analysis rows, for the tables of the same names."""

    id: str
    analysis_games: tuple
    analysis_facts: list[tuple] = field(default_factory=list)
    analysis_players: list[tuple] = field(default_factory=list)


def analysis_record(gid: str, game: Game, report: Report, tournament: str | None,
                    at: datetime, analysis: Analysis | None = None,
                    luck: GameLuck | None = None,
                    decisions: list[Decision] | None = None) -> AnalysisRecord:
    """The rows of one game's analysis: its facts, and per player and next player their
    tallies, luck and (two-player gin) judged decisions, on the player's first row (the
    move analysis, the luck and the decisions computed here unless given).  The one
    builder of the analysis rows: the catch-up, a game's analysis asked for and anything
    else that stores analyses call it."""
    analysis = analysis if analysis is not None else analyse(game, report)
    luck = luck if luck is not None else analyse_luck(game, report)
    judged = stored_sums(decisions if decisions is not None else game_decisions(game))
    lucky = luck_by_opponent(luck, analysis.next_players)
    variant, status = game.rules.variant, report.status
    record = AnalysisRecord(gid, (gid, datetime.now(UTC), VERSION, len(analysis.facts)))
    for f in analysis.facts:
        detail = dict(f.detail)
        receiver = detail.get("receiver")
        record.analysis_facts.append((
            gid, f.deal, f.move, f.player, f.kind, f.cost, f.position, receiver,
            None if f.alternative is None else orjson.dumps(f.alternative).decode(),
            orjson.dumps(detail).decode() if detail else None, variant, status, tournament,
            at))
    for (player, opponent), t in analysis.tallies.items():
        got = lucky.get((player, opponent))
        luck_figures = (0, 0, 0) if got is None else (
            got.deals, round(got.luck * E4), round(got.adjusted * E4))
        record.analysis_players.append((
            gid, player, opponent, variant, status, tournament, at, t.deals, t.decisions,
            t.accurate, *(t.kinds.get(kind, 0) for kind in KINDS[:-1]), t.fed_given,
            t.fed_received, t.soft, t.discard_error_points, t.points, t.opponent_points,
            *luck_figures, *judged.pop(player, (0, 0, 0))))
    return record


def analyse_stored(item: tuple[str, bytes, str | None, datetime]) -> AnalysisRecord:
    """The analysis rows of a stored game from its log (``id``, ``log``, tournament,
    game time); runs in the catch-up's process."""
    gid, log, tournament, at = item
    game = parse_game(load_json(log), stored=True)
    return analysis_record(gid, game, verify(game), tournament, at)


# --- the catch-up ----------------------------------------------------------------------

def pending(store: Reader, limit: int, after: int = 0
            ) -> list[tuple[int, tuple[str, bytes, str | None, datetime]]]:
    """The oldest stored games after ``seq`` ``after`` without an analysis of this
    version, each with its ``seq``.  The logs are read only for the games chosen: read
    with the search, every candidate's log was read before the ``LIMIT`` (50-90 ms a
    step at 3,000 stored games, all of it in the store process)."""
    with store.cursor() as cur:
        chosen = cur.execute(
            f"SELECT seq, id FROM games g WHERE seq > ? AND {live('g.id')} AND NOT EXISTS "
            "(SELECT 1 FROM analysis_games a WHERE a.game_id = g.id AND a.version = ?) "
            "ORDER BY seq LIMIT ?", [after, VERSION, limit]).fetchall()
        if not chosen:
            return []
        logs = {gid: (bytes(log), tid, at) for gid, log, tid, at in cur.execute(
            "SELECT id, log, tournament_id, game_time FROM games WHERE id IN "
            "(SELECT unnest(?))", [[gid for _, gid in chosen]]).fetchall()}
    return [(seq, (gid, *logs[gid])) for seq, gid in chosen if gid in logs]


def backlog(store: Reader, after: int = 0) -> int:
    """Stored games (not deleted) after ``seq`` ``after`` that have no analysis yet."""
    with store.cursor() as cur:
        return cur.execute(
            f"SELECT count(*) FROM games g WHERE seq > ? AND {live('g.id')} AND NOT EXISTS "
            "(SELECT 1 FROM analysis_games a WHERE a.game_id = g.id AND a.version = ?)",
            [after, VERSION]).fetchone()[0]


def _lowest_priority() -> None:
    os.nice(19)


class CatchUp:
    """The background step: analyse what is stored and not analysed, write its rows,
    again until nothing is left; then wait ``IDLE`` and look again.  ``store`` is the
    ``Store`` of this process (it writes the rows under its write lock)."""

    def __init__(self, store: Any, processes: int | None = None, deep: int = DEEP):
        self.store = store
        # Worker processes while the service is idle (one per core by default); while
        # it is in use, one.  0: analyse in the calling thread (tests, tools).
        self.processes = cores() if processes is None else processes
        self.deep = deep
        self.paused = 0  # times the catch-up gave way to the writes since start-up
        self.analysed = 0  # games analysed since start-up
        self.failed = 0  # games whose analysis failed (logged; retried at start-up)
        self.last_error: str | None = None
        self._failed: set[str] = set()  # ids of the games whose analysis failed
        self._after = 0  # the seq of the last game taken: all before it are done
        self._rewind: int | None = None  # a place to go back to (``rewind``)
        self._counted: tuple[float, int] | None = None  # (when, backlog) last counted
        self._stop = threading.Event()
        self._pool: list[_Worker] = []
        # The games of the next step, read while the workers analysed this one's.
        self._next: list[tuple[int, tuple]] | None = None
        self._thread = threading.Thread(target=self._run, name="store-analysis",
                                        daemon=True)

    def start(self) -> CatchUp:
        self._thread.start()
        return self

    def counts(self) -> dict[str, Any]:
        return {"analysed": self.analysed, "failed": self.failed,
                "last_error": self.last_error, "paused": self.paused}

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)
        for worker in self._pool:
            worker.close()
        self._pool = []

    def step(self) -> int:
        """Analyse and store one batch; the number of games analysed.  The games are
        taken in ``seq`` order after the last one taken (``_after``): every game before
        it is analysed, or failed (logged, counted, tried again at the next start).

        While the service is idle the batch is ``BATCH`` games for each of
        ``processes`` workers, which analyse their shares side by side, and the store
        reads the next batch meanwhile; while it is in use, ``BATCH`` games for one
        worker (see ``rest_after``)."""
        rewind, self._rewind = self._rewind, None
        if rewind is not None and rewind < self._after:
            self._after, self._next = rewind, None
        idle = self.idle()
        workers = max(1, self.processes) if idle else 1
        chosen, self._next = self._next, None
        if not chosen or len(chosen) > BATCH * workers:
            chosen = pending(self.store, BATCH * workers, self._after)
        if not chosen:
            return 0
        items = [item for _, item in chosen]
        share = -(-len(items) // workers)
        sent = self._send([items[k:k + share] for k in range(0, len(items), share)])
        if idle and len(chosen) == BATCH * workers:
            with suppress(StoreError):  # read again by the next step; the answers first
                self._next = pending(self.store, BATCH * workers, chosen[-1][0])
        records = []
        for item, result in zip(items, self._collect(sent), strict=True):
            if isinstance(result, AnalysisRecord):
                records.append(result)
            else:
                self.failed += 1
                self.last_error = f"{item[0]}: {result}"
                self._failed.add(item[0])
                _log.error("the analysis of game %s failed: %s", item[0], result)
        if records:
            self.store.add_analyses(records)
            self.analysed += len(records)
        self._after = chosen[-1][0]
        self._counted = None
        return len(items)

    def backlog(self) -> int:
        """Stored games not analysed yet: those after the catch-up's place, and those
        it failed on; counted at most every ``BACKLOG_EVERY`` seconds, since health
        probes and metrics scrapes ask often and the count reads every game after the
        place."""
        now = time.monotonic()
        counted = self._counted
        if counted is None or now - counted[0] >= BACKLOG_EVERY:
            rewind = self._rewind
            after = self._after if rewind is None else min(self._after, rewind)
            counted = self._counted = (now, backlog(self.store, after) + len(self._failed))
        return counted[1]

    def note_stored(self, games: int) -> None:
        """Games just stored, not analysed: the backlog counted before grows by them."""
        counted = self._counted
        if counted is not None:
            self._counted = (counted[0], counted[1] + games)

    def rewind(self, seq: int) -> None:
        """A game of ``seq`` is live again (restored), perhaps withdrawn before it was
        analysed: the next step looks again from its place (the games analysed since
        are passed over by ``pending``)."""
        rewind = self._rewind
        self._rewind = seq - 1 if rewind is None else min(rewind, seq - 1)
        self._counted = None

    def forget_backlog(self) -> None:
        """Count the backlog again when next asked (analyses were stored)."""
        self._counted = None

    def step_all(self) -> int:
        """Steps until nothing is left (tests, tools); the games analysed."""
        done = total = self.step()
        while done:
            done = self.step()
            total += done
        return total

    def _send(self, shares: list[list[tuple]]) -> list[Any]:
        """Hand each share of a batch to a worker of its own (started when missing);
        what ``_collect`` takes.  Without processes, the shares are analysed here."""
        if self.processes <= 0:
            return [[_guarded(item) for item in share] for share in shares]
        while len(self._pool) < len(shares):
            self._pool.append(_Worker())
        sent: list[Any] = []
        for worker, share in zip(self._pool, shares, strict=False):
            try:
                worker.send(share)
                sent.append(worker)
            except _GONE as error:
                worker.broken = True
                sent.append(error)
        return sent

    def _collect(self, sent: list[Any]) -> list[AnalysisRecord | str]:
        """The results of the shares ``_send`` handed out, in their order.  A worker
        that died is replaced by the next step, which takes the whole batch again;
        the other workers' answers are read first, so that none is left in a pipe to
        be taken for the answer of another batch."""
        results: list[AnalysisRecord | str] = []
        failed: list[BaseException] = []
        for worker in sent:
            if isinstance(worker, list):  # analysed here
                results.extend(worker)
                continue
            if isinstance(worker, BaseException):
                failed.append(worker)
                continue
            try:
                results.extend(worker.receive())
            except _GONE as error:
                failed.append(error)
                worker.broken = True
        if failed:
            for worker in [w for w in self._pool if w.broken]:
                worker.close()
            self._pool = [w for w in self._pool if not w.broken]
            self._next = None
            raise failed[0]
        return results

    def idle(self) -> bool:
        """No game written and no client's read answered for ``QUIET`` seconds."""
        return time.monotonic() - self.store.last_active >= QUIET

    def tick(self) -> int | None:
        """One turn of the catch-up: None when it gives way to the writes (``deep``
        games or more wait for the writer: the store is behind, and a step would hold
        its write lock and its interpreter while uploads wait), else ``step``."""
        if self.store.queued_games >= self.deep:
            self.paused += 1
            return None
        return self.step()

    def rest_after(self, spent: float) -> float:
        """Seconds to wait after a step that took ``spent`` seconds: none while no game
        was written and no client's read answered for ``QUIET`` seconds; else as long as
        it takes the step to be ``BUSY_SHARE`` of the time.  The worker's low priority
        is not enough on its own: measured on two virtual cores, a step running on the
        idle one slowed the uploads, reads and statistics on the other (cores may share
        a physical core, and do share caches and memory)."""
        if self.idle():
            return 0.0
        return spent * (1 / BUSY_SHARE - 1)

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                done = self.tick()
            except Exception as error:  # noqa: BLE001 - the step is retried after a pause
                self.last_error = f"{type(error).__name__}: {error}"
                _log.error("analysis catch-up: %s", self.last_error)
                done = 0
            if done is None:
                self._stop.wait(PAUSE)
            elif not done:
                self._stop.wait(IDLE)
            else:
                self._stop.wait(self.rest_after(time.monotonic() - started))


def cores() -> int:
    """The cores this process may run on: the catch-up's workers while idle."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


# What a worker that died leaves its pipes raising.
_GONE = (OSError, EOFError, pickle.UnpicklingError)


class _Worker:
    """A process of the catch-up: a fresh interpreter (``python -m service.store.worker``;
    the store process is a daemon, which multiprocessing forbids children), fed batches
    of stored games on its stdin and answering their rows on its stdout, pickled.  It
    ends when its stdin closes: when the catch-up closes it, or its parent dies."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "service.store.worker"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.broken = False

    def send(self, items: Sequence[tuple]) -> None:
        """Hand a batch over; the worker reads all of it before it analyses any, so
        this returns before the analysis is done."""
        assert self.process.stdin is not None
        pickle.dump(list(items), self.process.stdin)
        self.process.stdin.flush()

    def receive(self) -> list[AnalysisRecord | str]:
        """The rows of the batch sent last (or why each game failed), in its order."""
        assert self.process.stdout is not None
        return pickle.load(self.process.stdout)

    def map(self, items: Sequence[tuple]) -> list[AnalysisRecord | str]:
        self.send(items)
        return self.receive()

    def close(self) -> None:
        with suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def serve_worker() -> None:
    """The worker's loop (see ``_Worker``), at the lowest priority.  Its stdin closed
    between batches (the catch-up closed it, or the store process ended while it
    waited), it ends quietly; the store process gone in the middle of a batch (killed:
    the batch cut short, or nobody left to read the answer), it ends with one line on
    stderr, which the service's log shows, rather than a traceback."""
    _lowest_priority()
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    try:
        while True:
            try:
                items = pickle.load(source)
            except EOFError:
                return
            pickle.dump([_guarded(item) for item in items], sink)
            sink.flush()
    except (OSError, pickle.UnpicklingError) as error:
        # The answer left in stdout's buffer would fail again at exit, with a message.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sink.fileno())
        sys.stderr.write(f"analysis worker {os.getpid()}: the store process is gone "
                         f"({type(error).__name__}: {error}); ending\n")


def _guarded(item: tuple) -> AnalysisRecord | str:
    try:
        return analyse_stored(item)
    except Exception as error:  # noqa: BLE001 - reported by the catch-up, game skipped
        return f"{type(error).__name__}: {error}"


def wait_for(store: Reader, timeout: float = 60.0) -> int:
    """Wait until the backlog is empty (tests, tools); the backlog left."""
    deadline = time.monotonic() + timeout
    left = backlog(store)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = backlog(store)
    return left


# --- reads -------------------------------------------------------------------------------

def game_facts(store: Reader, gid: str) -> list[dict[str, Any]] | None:
    """The stored facts of one game in order, or None when it has no analysis yet."""
    done, facts = store.read_many([
        ("SELECT count(*) FROM analysis_games WHERE game_id = ? AND version = ?",
         [gid, VERSION]),
        ("SELECT deal_no, move_no, player, kind, alternative, cost, position, detail "
         "FROM analysis_facts WHERE game_id = ? ORDER BY deal_no, move_no, "
         "list_position(?, kind)", [gid, list(KINDS)]),
    ])
    if not done.rows[0][0]:
        return None
    out = []
    for deal, move, player, kind, alternative, cost, position, detail in facts.rows:
        fact = {"deal": deal, "move": move, "player": player, "kind": kind,
                "alternative": None if alternative is None else orjson.loads(alternative),
                "cost": cost, "position": position}
        if detail is not None:
            fact["detail"] = orjson.loads(detail)
        out.append(fact)
    return out


def game_summary(store: Reader, gid: str) -> dict[str, dict[str, Any]]:
    """Per player of one stored game, the figures of its analysis."""
    with store.cursor() as cur:
        rows = cur.execute(f"SELECT player, {_SUMS} FROM analysis_players WHERE game_id = ? "
                           "GROUP BY player ORDER BY player", [gid]).fetchall()
    return {row[0]: summarise(_tally(row[1:])) for row in rows}


_COUNTED = ("deals", "decisions", "accurate", *KINDS[:-1], "fed_given", "fed_received",
            "soft", "discard_error_points", "points", "opponent_points")
_SUMS = ", ".join(f"CAST(coalesce(sum({c}), 0) AS BIGINT)" for c in _COUNTED)
# Two-player gin's judged decisions (docs/ANALYSIS.md, Decision loss): exact sums.
_JUDGED = ("judged", "loss_e6", "accuracy_e6")
_JUDGED_SUMS = ", ".join(f"CAST(coalesce(sum({c}), 0) AS HUGEINT) AS {c}" for c in _JUDGED)


def _tally(values: Sequence[int]) -> Tally:
    got = dict(zip(_COUNTED, values, strict=True))
    kinds = {kind: got[kind] for kind in KINDS[:-1]}
    kinds["fed_card"] = got["fed_given"]
    return Tally(decisions=got["decisions"], accurate=got["accurate"], kinds=kinds,
                 discard_error_points=got["discard_error_points"],
                 fed_given=got["fed_given"], fed_received=got["fed_received"],
                 soft=got["soft"], points=got["points"],
                 opponent_points=got["opponent_points"], deals=got["deals"])


# Every error of a row: the facts of its kinds but fed cards.
ERRORS_SUM = " + ".join(ERRORS)


def luck_per_deal(total_e4: int, deals: int) -> float | None:
    """Stored luck (units of 0.0001 point) over ``deals`` scored deals, per deal, to 2
    decimals; None over no deal."""
    return ratio(total_e4, deals * E4, 2)


def player_analysis(store: Reader, player: str,
                    flt: StatsFilter) -> dict[str, dict[str, Any]]:
    """One player's analysis figures by variant, over the analysed games the filter
    keeps (the filters of the player's statistics), with their luck per deal and
    luck-adjusted points per deal over the scored deals whose luck is stored, and, for
    two-player gin, the decision loss (``decision_loss``: decisions judged, average loss,
    accuracy; None where no decision was judged)."""
    where, params = _where(flt)
    with store.cursor() as cur:
        rows = cur.execute(
            f"WITH {luck_ctes('variant', ' AND player = ?' + where)}, "
            f"sums AS (SELECT variant, count(DISTINCT game_id) AS games, {_SUMS}, "
            f"{_JUDGED_SUMS} FROM analysis_players WHERE player = ?{where} GROUP BY variant) "
            "SELECT sums.*, luck.luck_deals, luck.luck_e4, luck.adjusted_e8, luck.share_e4 "
            "FROM sums LEFT JOIN luck USING (variant) ORDER BY variant",
            [player, *params, player, *params]).fetchall()
    out = {}
    for variant, games, *values in rows:
        tally = _tally(values[:len(_COUNTED)])
        judged, loss_e6, accuracy_e6 = (int(x) for x in values[len(_COUNTED):][:3])
        luck_deals, luck_e4, adjusted_e8, share = values[len(_COUNTED) + 3:]
        luck_deals, luck_e4, adjusted_e8 = luck_deals or 0, luck_e4 or 0, adjusted_e8 or 0
        figures = summarise(tally)
        figures["games"] = games
        figures["deals"] = tally.deals
        figures["missed_gins_and_knocks"] = (tally.kinds[KINDS[0]] + tally.kinds[KINDS[1]])
        figures["errors_per_100"] = ratio(
            100 * sum(tally.kinds[kind] for kind in ERRORS), tally.decisions, 2)
        figures["luck_deals"] = luck_deals
        figures["luck_per_deal"] = luck_per_deal(luck_e4, luck_deals)
        figures["luck_adjusted_per_deal"] = ratio(int(adjusted_e8), luck_deals * E4 * E4, 2)
        figures["luck_share"] = None if share is None else share / E4
        figures["decision_loss"] = (stored_figures(judged, loss_e6, accuracy_e6)
                                    if judged else None)
        out[variant] = figures
    return out


# --- the integrity screen ----------------------------------------------------------------

_PAIR_SUMS = ("count(*) AS rows, count(DISTINCT game_id) AS games, sum(decisions) AS n, "
              "sum(decisions * decisions) AS nn, sum(fed_given) AS fed, "
              "sum(fed_given * fed_given) AS fed2, sum(fed_given * decisions) AS fedn, "
              "sum(soft) AS soft, sum(soft * soft) AS soft2, sum(soft * decisions) AS softn")
_SUMMED = ("rows", "games", "n", "nn", "fed", "fed2", "fedn", "soft", "soft2", "softn")


def integrity_pairs(store: Reader, variant: str | None, min_games: int,
                    limit: int) -> list[dict[str, Any]]:
    """Every ordered pair (A, B) of players with at least ``min_games`` games in which B
    played after A: A's fed cards to B and soft plays facing B against A's with every
    other opponent, each as a z-score clustered by game; sorted by the score, highest
    first."""
    clauses = [live()]
    params: list[Any] = []
    if variant is not None:
        clauses.append("variant = ?")
        params.append(variant)
    where = " AND ".join(clauses)
    sql = f"""
WITH rows AS (SELECT * FROM analysis_players WHERE {where}),
pair AS (SELECT player, opponent, {_PAIR_SUMS}, sum(opponent_points) AS conceded,
                sum(points) AS points FROM rows GROUP BY player, opponent),
total AS (SELECT player, {_PAIR_SUMS} FROM rows GROUP BY player)
SELECT p.player, p.opponent, p.conceded, p.points,
       {", ".join(f"p.{c}" for c in _SUMMED)}, {", ".join(f"t.{c}" for c in _SUMMED)}
FROM pair p JOIN total t USING (player)
WHERE p.games >= ?
"""
    with store.cursor() as cur:
        rows = cur.execute(sql, [*params, min_games]).fetchall()
    out = []
    for a, b, conceded, points, *sums in rows:
        mine = dict(zip(_SUMMED, (int(x or 0) for x in sums[:10]), strict=True))
        every = dict(zip(_SUMMED, (int(x or 0) for x in sums[10:]), strict=True))
        rest = {k: every[k] - mine[k] for k in _SUMMED}
        figures = {}
        for name in ("fed", "soft"):
            z = clustered_z(_cluster(mine, name), _cluster(rest, name))
            figures[name] = {"count": mine[name], "rate": _share(mine[name], mine["n"]),
                             "rest_count": rest[name], "rest_decisions": rest["n"],
                             "rest_rate": _share(rest[name], rest["n"]), "z": round(z, 3)}
        score = round(max(0.0, figures["fed"]["z"]) + max(0.0, figures["soft"]["z"]), 3)
        out.append({
            "player": a, "partner": b, "games": mine["games"], "decisions": mine["n"],
            **figures, "points_conceded": int(conceded or 0), "points": int(points or 0),
            "score": score,
            "statement": statement(a, b, mine["games"], mine["n"], mine["fed"], rest["fed"],
                                   rest["n"], score),
        })
    out.sort(key=lambda pair: (-pair["score"], pair["player"], pair["partner"]))
    return out[:limit]


@dataclass(frozen=True, slots=True)
class Cluster:
    """Counts ``y`` over decisions ``n`` in ``rows`` clusters (one game's row each), as
    the sums a clustered variance needs: Σy, Σn, Σy², Σyn, Σn²."""

    rows: int
    y: int
    n: int
    yy: int
    yn: int
    nn: int


def _cluster(sums: dict[str, int], name: str) -> Cluster:
    return Cluster(sums["rows"], sums[name], sums["n"], sums[f"{name}2"], sums[f"{name}n"],
                   sums["nn"])


def clustered_z(mine: Cluster, rest: Cluster) -> float:
    """(rate of ``mine`` − rate of ``rest``) over the standard error of that difference,
    each rate's variance estimated from its clusters (games), not from single decisions:
    a player's style varies from game to game, and counting decisions as independent
    makes honest pairs look unlikely.  0 when either side has fewer than two clusters or
    no spread."""
    if mine.rows < 2 or rest.rows < 2 or not mine.n or not rest.n:
        return 0.0
    variance = _ratio_variance(mine) + _ratio_variance(rest)
    if variance <= 0:
        return 0.0
    return (mine.y / mine.n - rest.y / rest.n) / variance ** 0.5


def _ratio_variance(c: Cluster) -> float:
    """The variance of Σy/Σn over its clusters: G/(G−1) · Σ(y − r·n)² / (Σn)²."""
    r = c.y / c.n
    spread = c.yy - 2 * r * c.yn + r * r * c.nn
    return max(0.0, spread) * c.rows / (c.rows - 1) / (c.n * c.n)


def pair_facts(store: Reader, player: str, partner: str, variant: str | None,
               limit: int = 50) -> list[dict[str, Any]]:
    """The games and moves behind a pair's figures: A's fed cards to B and A's soft plays
    in games where A played before B, newest first."""
    soft = list(SOFT)
    clauses = ["f.player = ?", live("f.game_id"),
               "(f.receiver = ? OR (list_contains(?, f.kind) AND EXISTS (SELECT 1 FROM "
               "analysis_players p WHERE p.game_id = f.game_id AND p.player = f.player "
               "AND p.opponent = ?)))"]
    params: list[Any] = [player, partner, soft, partner]
    if variant is not None:
        clauses.append("f.variant = ?")
        params.append(variant)
    with store.cursor() as cur:
        rows = cur.execute(
            "SELECT f.game_id, f.deal_no, f.move_no, f.kind, f.cost FROM analysis_facts f "
            f"WHERE {' AND '.join(clauses)} ORDER BY f.game_time DESC, f.game_id, "
            "f.deal_no, f.move_no LIMIT ?", [*params, limit]).fetchall()
    return [{"game": g, "deal": d, "move": m, "kind": k, "cost": c} for g, d, m, k, c in rows]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def statement(a: str, b: str, games: int, n: int, fed: int, rest_fed: int, rest_n: int,
              score: float) -> str:
    """What a pair's figures say, in words: a screen to look at, not a verdict."""
    rate = f"{100 * fed / n:.1f}%" if n else "no decision"
    against = (f"against {100 * rest_fed / rest_n:.1f}% to other players" if rest_n
               else f"and {a} met no other opponent to compare with")
    return (f"In {plural(games, 'game')}, {a} fed {b} {plural(fed, 'card')} in "
            f"{plural(n, 'decision')} ({rate}), {against}; score {score}. A screen to look "
            "at, not a verdict: a high score says the pair's games deserve a look, not that "
            "anyone cheated.")

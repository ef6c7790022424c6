"""The rating catch-up: stored games rated after their commit, not inside it.

The writer's commit only notes the games it stored (``note``); a thread of the store
rates them later, in a transaction of its own under the write lock (``Keeper.add``, one
Arrow insert of the history rows), once they were committed ``HOLD`` seconds ago.  The
hold is what makes it cheap: a game uploaded without ``played_at`` is rated at its
upload time, which the verifying pool gives it before its commit, so concurrent batches
commit games whose times interleave.  Rated at each commit, every such crossing was a
replay of the games after it; rated ``HOLD`` seconds later, the games of every batch in
flight are rated together, in order, and nothing needs replaying.

Reads are never behind: a read of the ratings first rates what waits (``catch_up``),
and so does a deletion, before it replays its pool.  The games rated are always the
first ones committed (by ``seq``): the ones waiting are exactly the counted games after
the last one in ``rating_history``, which is how a store that opens finds what its last
process left unrated (docs/RATINGS.md, "Order").
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..ratings import RatedGame
from . import ratings as rating_tables
from .transactions import transaction

_log = logging.getLogger(__name__)
HOLD = 5.0  # seconds a committed game waits before the catch-up rates it
ROUND = 1.0  # seconds at least between two rounds of the catch-up: each is a transaction,
# which rated at every commit's turn cost the single uploads a fifth more CPU

# What a commit noted: when, and a function giving its counted games (converted by the
# catch-up, off the writer's path).
Noted = tuple[float, int, Callable[[], list[RatedGame]]]


class RatingCatchUp:
    """The games committed and not rated yet, and the thread that rates them.

    ``store`` is the ``Store`` of this process: its write lock and writer cursor, its
    ``Keeper``.  Every method that touches the queue runs under the write lock."""

    def __init__(self, store: Any, hold: float = HOLD):
        self.store = store
        self.hold = hold
        self.rated = 0  # games rated by the catch-up since start-up
        self.failures = 0  # rounds failed in a row (0 once one succeeds)
        self.last_error: dict[str, str] | None = None  # the latest failure: when, what
        self._queue: list[Noted] = []
        self._waiting = 0  # games noted and not rated (counted or not)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="store-ratings", daemon=True)

    def start(self) -> RatingCatchUp:
        self._thread.start()
        return self

    # -- under the write lock ---------------------------------------------------------

    def note(self, games: int, convert: Callable[[], list[RatedGame]]) -> None:
        """A commit stored ``games`` games; ``convert`` gives the counted ones."""
        self._queue.append((time.monotonic(), games, convert))
        self._waiting += games
        self._wake.set()

    def note_stored(self, cur: Any) -> None:
        """At start-up: the counted games after the last rated one wait (a process
        that ended before its catch-up rated them)."""
        games = rating_tables.unrated_games(cur)
        if games:
            self._queue.append((0.0, len(games), lambda: games))
            self._waiting += len(games)
            self._wake.set()

    def forget(self) -> None:
        """Everything is rated (a recompute): nothing waits."""
        self._queue.clear()
        self._waiting = 0

    def rate(self, cur: Any, due_only: bool = False) -> int:
        """Rate the games waiting (with ``due_only``, only those committed ``hold``
        seconds ago or more) in one transaction on ``cur``; the games rated."""
        keeper = self.store._ratings
        if due_only:
            limit = time.monotonic() - self.hold
            n = next((k for k, (at, _, _) in enumerate(self._queue) if at > limit),
                     len(self._queue))
        else:
            n = len(self._queue)
        if not n:
            return 0
        taken = self._queue[:n]
        games = [game for _, _, convert in taken for game in convert()]
        try:
            with transaction(cur):
                pending = keeper.add(cur, games, until_seq=max((g.seq for g in games),
                                                                default=None))
        except Exception as error:
            # The memory of the last games rated may be what failed: the next round
            # reads the ratings back from the tables instead, which a rollback left
            # as they were.
            keeper.forget()
            self.failures += 1
            self.last_error = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "error": f"{type(error).__name__}: {error}"[:300]}
            raise
        keeper.commit(pending)
        self.failures = 0
        del self._queue[:n]
        self._waiting -= sum(count for _, count, _ in taken)
        self.rated += len(games)
        return len(games)

    # -- any thread -------------------------------------------------------------------

    def backlog(self) -> int:
        """Games committed and not rated yet (a read: no lock)."""
        return self._waiting

    def health(self) -> dict[str, Any]:
        return {"running": self._thread.is_alive(), "backlog": self._waiting,
                "rated": self.rated, "hold_seconds": self.hold,
                "failures": self.failures, "last_error": self.last_error}

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            while not self._stop.is_set():
                queue = self._queue[:1]  # a copy: the writer appends, a read empties it
                if not queue:
                    break
                due = queue[0][0] + self.hold - time.monotonic()
                if due > 0:
                    self._stop.wait(min(due, self.hold))
                    continue
                try:
                    self.store.catch_up_ratings(due_only=True)
                except Exception:  # noqa: BLE001 - logged; the next round tries again
                    _log.exception("the rating catch-up failed")
                    self._stop.wait(max(self.hold, ROUND))
                    continue
                self._stop.wait(min(ROUND, self.hold))

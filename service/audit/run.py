"""An audit run: cut the inputs, skip the shards finished before, verify the others
on a Dask cluster, record each one as it finishes.

The cluster is the one at ``scheduler`` (``tcp://host:8786``), a client given by the
caller, or else a ``LocalCluster`` of ``workers`` processes (default: every core), one
thread each (the engine is pure Python: threads would share one interpreter lock),
started and stopped here.  A task whose worker dies is run again elsewhere by the
scheduler (and ``RETRIES`` more times if the task itself fails), and a shard is only
recorded once its files are written, so an audit killed at any point is finished by
running it again.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

from .layout import Finished, append_manifest, check_layout, read_manifest
from .sources import Shard, cut
from .task import audit_shard
from .version import analysis_version, engine_version

DEFAULT_SHARD_SIZE = 500
RETRIES = 2


@dataclass(slots=True)
class AuditResult:
    version: str
    shards: int  # in the inputs
    skipped: int  # finished by an earlier run, input unchanged
    done: list[Finished] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # shard id -> why
    seconds: float = 0.0
    dashboard: str | None = None
    analysis: str | None = None  # the analysis version, when the audit analyses

    @property
    def games(self) -> int:
        return sum(entry.games for entry in self.done)

    def statuses(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for entry in self.done:
            counts.update(entry.statuses)
        return counts

    def errors(self) -> int:
        """Lines that are no game (rows of ``errors`` but the failed analyses)."""
        return sum(entry.rows["errors"] for entry in self.done) - self.analysis_failures()

    def analysis_failures(self) -> int:
        """Games stored whose analysis failed (left to the store's catch-up)."""
        return sum(entry.extra.get("analysis_failures", 0) for entry in self.done)


# The local cluster's workers do without Dask's statistical profiler, which samples
# every thread's stack a hundred times a second for the dashboard's profile page: on
# pure Python tasks that cost an idle two-worker cluster 0.07 of a core, against 0.03
# without it.
QUIET_WORKERS = {"distributed.worker.profile.enabled": False}


def local_cluster(workers: int | None, dashboard: bool = True):
    """A ``LocalCluster`` of ``workers`` processes (default: every core), one thread
    each, with ``QUIET_WORKERS``; its dashboard on a free port when ``dashboard`` and
    bokeh is installed."""
    import dask
    from distributed import LocalCluster

    address = ":0" if dashboard and importlib.util.find_spec("bokeh") else None
    with dask.config.set(QUIET_WORKERS):  # read by the nannies as they start
        return LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                            processes=True, dashboard_address=address)


def audit(inputs: list[str], out: str, *, scheduler: str | None = None,
          workers: int | None = None, shard_size: int = DEFAULT_SHARD_SIZE,
          client=None, uploaded_at: datetime | None = None,
          progress: IO[str] | None = None,
          on_finished: Callable[[Finished], None] | None = None,
          analyse: bool = False) -> AuditResult:
    """Audit ``inputs`` into ``out``; see the module's docstring.  ``analyse``: analyse
    every game too (the analysis tables).  ``progress``: where the bar goes (None: no
    bar).  ``on_finished`` is called with each shard recorded.

    A shard is skipped when an earlier run of this engine finished it from the same
    bytes, and, when ``analyse``, analysed it with this analysis version; a shard
    analysed before is skipped by a run that does not analyse (it holds more)."""
    began = time.perf_counter()
    version = engine_version()
    analysis = analysis_version() if analyse else None
    shards = cut(inputs, shard_size, skip=out)
    check_layout(out, version, shard_size)
    finished = read_manifest(out, version)

    def done(shard: Shard) -> bool:
        entry = finished.get(shard.id)
        return (entry is not None and entry.digest == shard.digest
                and (analysis is None or entry.analysis == analysis))

    todo = [s for s in shards if not done(s)]
    result = AuditResult(version, len(shards), len(shards) - len(todo), analysis=analysis)
    if todo:
        uploaded_at = uploaded_at or datetime.now(UTC)
        with ExitStack() as stack:
            if client is None:
                from distributed import Client

                if scheduler is None:
                    cluster = stack.enter_context(local_cluster(workers))
                    client = stack.enter_context(Client(cluster))
                else:
                    client = stack.enter_context(Client(scheduler))
            result.dashboard = _dashboard(client)
            if progress is not None and result.dashboard:
                print(f"Dask dashboard: {result.dashboard}", file=progress, flush=True)
            _run(client, todo, out, version, analysis, uploaded_at, result, progress,
                 on_finished)
    result.seconds = time.perf_counter() - began
    return result


def _dashboard(client) -> str | None:
    try:
        return client.dashboard_link if importlib.util.find_spec("bokeh") else None
    except Exception:  # no dashboard on this scheduler
        return None


def _run(client, todo: list[Shard], out: str, version: str, analysis: str | None,
         uploaded_at: datetime, result: AuditResult, progress: IO[str] | None,
         on_finished: Callable[[Finished], None] | None) -> None:
    from distributed import as_completed
    from tqdm import tqdm

    # The key names the shard's bytes and the analysis too: a key the scheduler still
    # remembers from an earlier run of this client (its release is asynchronous) would
    # answer that run's result for a changed input, or one not analysed.
    keys = [f"audit-{version}-{analysis or 'verify'}-{shard.id}-{shard.digest}"
            for shard in todo]
    futures = client.map(audit_shard, todo, out=out, version=version,
                         uploaded_at=uploaded_at, analysis=analysis, key=keys,
                         retries=RETRIES, pure=False)
    shard_of = {future.key: shard for future, shard in zip(futures, todo, strict=True)}
    bar = tqdm(total=sum(s.games for s in todo), unit="game", file=progress or sys.stderr,
               disable=progress is None, dynamic_ncols=True, smoothing=0.1)
    bar.set_postfix_str(f"shards 0/{len(todo)}")
    with bar:
        for future in as_completed(futures):
            shard = shard_of[future.key]
            try:
                entry = future.result()
            except Exception as error:  # noqa: BLE001 - the run goes on; the shard is redone next time
                result.failed[shard.id] = f"{type(error).__name__}: {error}"
            else:
                append_manifest(out, version, entry)
                result.done.append(entry)
                if on_finished is not None:
                    on_finished(entry)
            future.release()
            bar.update(shard.games)
            bar.set_postfix_str(f"shards {len(result.done) + len(result.failed)}/{len(todo)}")

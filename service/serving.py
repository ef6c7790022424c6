"""The processes of the served service, set up by the gunicorn master's hooks
(``gunicorn.conf.py``).

    master ── starts ──► store process (DuckDB, the one writer; started again if it ends)
      │
      └─ forks ──► RUMMY_WORKERS HTTP workers ── Unix socket ──► store process
                   each: RUMMY_THREADS threads, a verifying pool, metric files

The master starts the store process before its first fork and closes it after its last
worker ended; the workers reach it through ``service.store.remote.shared_store``.  The
folder of the workers' metric files (prometheus-client's multiprocess mode) is made
here too, before any module reads ``PROMETHEUS_MULTIPROC_DIR``; it is named like the
store's socket folder, after the master, so that a start after a ``kill -9`` removes it
as it removes that one (``remote.remove_stale_folders``).
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from typing import Any

WORKERS_VARIABLE = "RUMMY_WORKERS"
_METRICS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
_made_folder: str | None = None  # the metrics folder this master made (removed at exit)


def worker_count(environ: dict[str, str] | None = None) -> int:
    """RUMMY_WORKERS, default one per core; always 1 when the workers open DuckDB
    themselves (RUMMY_STORE_PROCESS=0: one process may write the file).  A bad value
    raises ValueError naming the variable."""
    env = os.environ if environ is None else environ
    in_worker = env.get("RUMMY_STORE_PROCESS", "").strip().lower() in ("0", "false", "no",
                                                                     "off")
    text = env.get(WORKERS_VARIABLE, "").strip()
    if not text:
        return 1 if in_worker else os.cpu_count() or 1
    try:
        count = int(text)
    except ValueError:
        raise ValueError(f"{WORKERS_VARIABLE} must be an integer, not {text!r}") from None
    if not 1 <= count <= 256:
        raise ValueError(f"{WORKERS_VARIABLE} must be from 1 to 256")
    if count > 1 and in_worker:
        raise ValueError(f"{WORKERS_VARIABLE}={count} needs the store in a process of its own "
                         "(RUMMY_STORE_PROCESS=1): DuckDB allows one writing process")
    return count


def share_the_cores(workers: int, environ: dict[str, str] | None = None) -> None:
    """Unless RUMMY_VERIFY_PROCESSES is set, give each worker's verifying pool its share
    of the cores (cores ÷ workers, at least one), so that N workers do not start N
    pools of one process per core each, which then take turns on the same cores.  Two
    processes a worker made bulk loads from a few clients faster and the mixed load's
    latency worse (docs/DECISIONS.md, "A verifying pool per worker")."""
    env = os.environ if environ is None else environ
    if not env.get("RUMMY_VERIFY_PROCESSES", "").strip():
        env["RUMMY_VERIFY_PROCESSES"] = str(max(1, (os.cpu_count() or 1) // workers))


def start_master(log: Any) -> None:
    """In the master, before any fork: the metrics folder, then the store process of
    RUMMY_DB (which stops the start, with its reason, when it cannot open the file)."""
    global _made_folder
    from .store.remote import DIR_PREFIX, remove_stale_folders

    remove_stale_folders()  # before making ours: a killed master's folders go first
    folder = os.environ.get(_METRICS_VARIABLE)
    if folder:
        for stale in glob.glob(os.path.join(folder, "*.db")):  # counts of an earlier run
            os.unlink(stale)
    else:
        folder = _made_folder = tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-metrics")
        os.environ[_METRICS_VARIABLE] = folder

    from .api.config import Settings  # reads prometheus-client's mode: after the folder
    from .store.remote import serve_shared

    settings = Settings.load()
    if not settings.store_process or settings.lake_path is not None:
        return  # a lake (RUMMY_LAKE) is read by each worker itself: no store process
    store = serve_shared(settings.db_path, max_queued_games=settings.max_queued_games)

    def lost() -> None:
        log.error("the store process ended on its own; starting another on %s", store.path)

    store.on_lost = lost
    log.info("store process %s serving %s", store.pid, store.path)


def worker_exited(pid: int) -> None:
    """A worker ended: its live gauges (none today) leave the metrics; its counters
    stay, since what it counted happened."""
    if os.environ.get(_METRICS_VARIABLE):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def stop_master(log: Any) -> None:
    """In the master, its workers gone: close the store process (a checkpoint) and
    remove the metrics folder it made."""
    from .store import remote

    if remote.shared_pid() is not None:
        log.info("closing the store process")
    remote.close_shared()
    if _made_folder is not None:
        shutil.rmtree(_made_folder, ignore_errors=True)

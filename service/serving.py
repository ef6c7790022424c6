"""The processes of the served service, set up by the gunicorn master's hooks
(``gunicorn.conf.py``).

    master ── starts ──► store process (DuckDB, the one writer; started again if it ends)
      │
      ├─ starts ──► verifying pool: a dispatcher (one queue) and RUMMY_VERIFY_PROCESSES
      │             processes, which store the games they verify
      └─ forks ──► RUMMY_WORKERS HTTP workers ── Unix sockets ──► store process, pool
                   each: RUMMY_THREADS threads, metric files

The master starts the store process and the pool before its first fork, and stops them
after its last worker ended (the pool first: its processes write to the store); the
workers reach them through ``service.store.remote.shared_store`` and
``service.shared_pool.shared_where``.  The folder of the workers' metric files
(prometheus-client's multiprocess mode) is made here too, before any module reads
``PROMETHEUS_MULTIPROC_DIR``; it is named like the store's socket folder, after the
master, so that a start after a ``kill -9`` removes it as it removes that one
(``remote.remove_stale_folders``).
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


def start_master(log: Any) -> None:
    """In the master, before any fork: the metrics folder, then the store process of
    RUMMY_DB (which stops the start, with its reason, when it cannot open the file),
    then the verifying pool the workers share (unless RUMMY_VERIFY_PROCESSES is 0)."""
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
    store.on_restarted = lambda: log.info("store process %s serving %s", store.pid, store.path)
    log.info("store process %s serving %s", store.pid, store.path)
    if settings.verify_processes > 0:
        _start_pool(log, settings.verify_processes, store.where)


def _start_pool(log: Any, processes: int, store_at: tuple[str, bytes]) -> None:
    """The verifying pool all workers share, its processes writing to the store."""
    from . import shared_pool

    pool = shared_pool.serve_shared(processes, "service.api.verifier:judge_part",
                                    "service.api.verifier:connect_to_store", (store_at,))

    def lost() -> None:
        log.error("the verifying pool's dispatcher ended on its own; starting another")

    def started() -> None:
        log.info("verifying pool %s: %d processes for every worker", pool.pid, processes)

    pool.on_lost = lost
    pool.on_restarted = started
    started()


def worker_exited(pid: int) -> None:
    """A worker ended: its live gauges (none today) leave the metrics; its counters
    stay, since what it counted happened."""
    if os.environ.get(_METRICS_VARIABLE):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def stop_master(log: Any) -> None:
    """In the master, its workers gone: stop the verifying pool (whose processes write
    to the store), close the store process (a checkpoint) and remove the metrics folder
    it made."""
    from . import shared_pool
    from .store import remote

    if shared_pool.shared_pid() is not None:
        log.info("stopping the verifying pool")
    shared_pool.close_shared()
    if remote.shared_pid() is not None:
        log.info("closing the store process")
    remote.close_shared()
    if _made_folder is not None:
        shutil.rmtree(_made_folder, ignore_errors=True)

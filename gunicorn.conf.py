"""Gunicorn settings for rummy-audit.

DuckDB lets one process at a time open the database file for writing, so the service
runs ONE worker process with threads.  The app is created in the worker, after the
fork (no preload), and starts the store process (spawned: DuckDB is not fork-safe),
the only one to open the file: every request queries it over its own connection and
all writes go through its single writer thread (group commits).
Override with the environment: HOST, PORT, RUMMY_THREADS, RUMMY_KEEPALIVE_LINGER_MS,
RUMMY_HEADER_TIMEOUT_S, RUMMY_BODY_TIMEOUT_S, RUMMY_TIMEOUT, RUMMY_ACCESS_LOG (`-`: a line
per request on standard output), RUMMY_LOG_LEVEL.
"""

import os

from service.http_worker import linger_seconds, read_timeouts

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = 1  # one read-write DuckDB process; never raise this
# No control socket: it could raise the worker count at run time (and instances would
# share its default path in the home directory).
control_socket_disable = True
# gunicorn's gthread worker, reading each request within its timeouts (a client that
# stops sending gets 408 and its thread is free: RUMMY_HEADER_TIMEOUT_S,
# RUMMY_BODY_TIMEOUT_S), a thread keeping a kept-alive connection for its next request a
# few milliseconds (RUMMY_KEEPALIVE_LINGER_MS); service/http_worker.py.
worker_class = "service.http_worker.LingeringThreadWorker"
linger_seconds()  # a bad RUMMY_KEEPALIVE_LINGER_MS stops the start with its reason
read_timeouts()  # and so does a bad RUMMY_HEADER_TIMEOUT_S or RUMMY_BODY_TIMEOUT_S
threads = int(os.environ.get("RUMMY_THREADS", "32"))
preload_app = False
timeout = int(os.environ.get("RUMMY_TIMEOUT", "120"))
graceful_timeout = 30
keepalive = 5
# No line per request unless asked: at hundreds of uploads a second the access log
# cost a fifth to a quarter of the throughput; /api/v1/metrics counts the requests.
accesslog = os.environ.get("RUMMY_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("RUMMY_LOG_LEVEL", "info")
wsgi_app = "service.api:create_app()"


def post_worker_init(worker):
    """Should the store process end while the worker serves (killed, out of memory),
    the worker stops taking requests and exits; the master starts a new worker, which
    starts a new store process on the same file."""
    from service.api import on_store_lost

    def lost():
        worker.log.error("the store process ended; restarting the worker")
        worker.alive = False

    on_store_lost(worker.wsgi, lost)

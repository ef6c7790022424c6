"""Gunicorn settings for rummy-audit.

DuckDB lets one process at a time open the database file for writing, so that process
is the store process, and only it: the master starts it once, before forking its
workers (``on_starting``; spawned, never forked: DuckDB is not fork-safe), and starts it
again should it end on its own.  ``RUMMY_WORKERS`` HTTP worker processes (default: one
per core), each with ``RUMMY_THREADS`` threads, create the app after the fork (no
preload) and reach the store over a private Unix socket; every write goes through its
single writer thread (group commits).  A worker that dies is replaced by the master,
and the store never notices.  With ``RUMMY_STORE_PROCESS=0`` the worker opens DuckDB
itself, so there is one worker.
Override with the environment: HOST, PORT, RUMMY_WORKERS, RUMMY_THREADS,
RUMMY_KEEPALIVE_LINGER_MS, RUMMY_HEADER_TIMEOUT_S, RUMMY_BODY_TIMEOUT_S,
RUMMY_BODY_MIN_RATE, RUMMY_WRITE_TIMEOUT_S, RUMMY_TIMEOUT, RUMMY_ACCESS_LOG (`-`: a line per request on standard output), RUMMY_LOG_LEVEL.
"""

import os

from service.http_worker import body_min_rate, linger_seconds, read_timeouts
from service.http_writes import write_timeout
from service.serving import worker_count

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = worker_count()  # RUMMY_WORKERS, default the cores; 1 without a store process
# No control socket: it could change the worker count at run time (and instances would
# share its default path in the home directory).
control_socket_disable = True
# gunicorn's gthread worker, reading each request within its timeouts (a client that
# stops sending, or trickles its body, gets 408 and its thread is free:
# RUMMY_HEADER_TIMEOUT_S, RUMMY_BODY_TIMEOUT_S, RUMMY_BODY_MIN_RATE), writing its answer
# without waiting while the body arrives and within RUMMY_WRITE_TIMEOUT_S after
# (service/http_writes.py), a thread keeping a kept-alive connection for its next request
# a few milliseconds (RUMMY_KEEPALIVE_LINGER_MS); service/http_worker.py.
worker_class = "service.http_worker.LingeringThreadWorker"
linger_seconds()  # a bad RUMMY_KEEPALIVE_LINGER_MS stops the start with its reason
read_timeouts()  # and so does a bad RUMMY_HEADER_TIMEOUT_S or RUMMY_BODY_TIMEOUT_S,
body_min_rate()  # RUMMY_BODY_MIN_RATE
write_timeout()  # or RUMMY_WRITE_TIMEOUT_S
threads = int(os.environ.get("RUMMY_THREADS", "32"))
# What gunicorn reads of a request's head, each over its limit answered with a problem
# (414, 431) by the worker.  Above nginx's (deploy/nginx.conf: a request line or a header
# field fits in one of its 8 KiB buffers), so that a request nginx passes on is never
# refused for its head by gunicorn: the request line is passed on as it came, but a
# header field may grow on its way (nginx writes "Name: value", and appends the
# client's address to X-Forwarded-For).  nginx does not count header fields.
limit_request_line = 8190  # bytes without its CRLF: gunicorn's largest
limit_request_fields = 100
limit_request_field_size = 16384  # bytes of a header field line with its CRLF
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


def on_starting(server):
    """In the master, before any worker: the store process of RUMMY_DB (migrated, ready),
    the verifying pool all workers share (RUMMY_VERIFY_PROCESSES processes, default one
    per core) and the folder of the workers' metrics."""
    from service.serving import start_master

    start_master(server.log)


def child_exit(server, worker):
    """A worker ended (or was killed): its request counts stay in the metrics, as they
    should, since counters never go down."""
    from service.serving import worker_exited

    worker_exited(worker.pid)


def on_exit(server):
    """The master stops, its workers gone: close the store (a checkpoint)."""
    from service.serving import stop_master

    stop_master(server.log)


def post_worker_init(worker):
    """Should the worker's own store process end while the worker serves (only with a
    store of its own: the master's is started again by the master), the worker stops
    taking requests and exits; the master starts a new worker."""
    from service.api import on_store_lost

    def lost():
        worker.log.error("the store process ended; restarting the worker")
        worker.alive = False

    on_store_lost(worker.wsgi, lost)

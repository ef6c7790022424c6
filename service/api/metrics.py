"""Request metrics in the Prometheus text exposition format (version 0.0.4), by
prometheus-client.

Several HTTP worker processes serve the same service, and a scrape reaches one of them:
it must still answer the requests of all.  Each worker counts its own requests in
prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, a private folder
the gunicorn master makes before forking: ``service.serving``): every counter and
histogram is a memory-mapped file per process, and a scrape adds up the files of every
worker, those of dead workers included (their counts happened).  Without that folder
(tests, an embedding server) the app counts in memory, as one process does.  The
store's figures (games by status, commits) are read from the store process at each
scrape, which sees every worker's writes already.

Labels are bounded: the endpoint is the matched URL rule as OpenAPI writes it
(``/api/v1/games/{game_id}``; ``unmatched`` for unknown paths), the method one of the
HTTP verbs (``other`` for anything else), so a client cannot grow the series (nor the
files) without limit.  Latency is measured to the moment the response starts (for the
streamed batch, before its body).
"""

from __future__ import annotations

import os
import re
import time

import prometheus_client
from flask import Flask, Response, current_app, g, request
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

EXTENSION = "rummy_metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
_PARAMETER = re.compile(r"<(?:[^:>]+:)?([^>]+)>")  # <int(signed=True):move> -> {move}
_METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))

# The series a scrape answers are those of the text format 0.0.4: no ``_created``
# samples (the multiprocess mode has none either, so both modes answer alike).
prometheus_client.disable_created_metrics()


def multiprocess_folder() -> str | None:
    """The folder of the workers' metric files, when several processes serve."""
    return os.environ.get(MULTIPROCESS_VARIABLE) or None


class Metrics:
    """The request counter and latency histogram of one app (one worker process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.requests = Counter("rummy_http_requests",
                                "HTTP requests by method, endpoint and status.",
                                ("method", "endpoint", "status"), registry=self.registry)
        self.latency = Histogram("rummy_http_request_duration_seconds",
                                 "Time to the start of the response, by method and endpoint.",
                                 ("method", "endpoint"), buckets=BUCKETS,
                                 registry=self.registry)

    def observe(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        method = method if method in _METHODS else "other"
        self.requests.labels(method, endpoint, str(status)).inc()
        self.latency.labels(method, endpoint).observe(seconds)

    def render(self, games_by_status: dict[str, int] | None,
               writes: dict[str, int] | None = None) -> str:
        """The exposition text: the requests of every worker (or of this process alone
        without a multiprocess folder), then the store's figures: ``games_by_status``
        None when the database is down; ``writes`` the store's counts of commits and
        games committed since it started."""
        folder = multiprocess_folder()
        if folder is None:
            requests = generate_latest(self.registry)
        else:
            every_worker = CollectorRegistry(auto_describe=False)
            MultiProcessCollector(every_worker, path=folder)
            requests = generate_latest(every_worker)
        store = CollectorRegistry(auto_describe=False)
        store.register(_StoreFigures(games_by_status, writes))
        return (requests + generate_latest(store)).decode()


class _StoreFigures:
    """The store's figures of one scrape, as metric families."""

    def __init__(self, games_by_status: dict[str, int] | None,
                 writes: dict[str, int] | None) -> None:
        self.games_by_status = games_by_status
        self.writes = writes

    def collect(self):
        yield GaugeMetricFamily("rummy_database_up", "Whether the database answered this "
                                "scrape.", value=0 if self.games_by_status is None else 1)
        stored = GaugeMetricFamily("rummy_games_stored", "Games stored, by verification "
                                   "status.", labels=("status",))
        for status, count in sorted((self.games_by_status or {}).items()):
            stored.add_metric((status,), count)
        yield stored
        if self.writes is not None:
            yield CounterMetricFamily("rummy_store_commits", "Write transactions committed "
                                      "(each a group of games from any number of requests).",
                                      value=self.writes["commits"])
            yield CounterMetricFamily("rummy_store_games_committed", "Games written since "
                                      "the store process started.",
                                      value=self.writes["games_committed"])
            analysis = self.writes.get("analysis")  # None: a store without analysis
            if analysis is not None:
                yield GaugeMetricFamily("rummy_analysis_backlog", "Stored games not "
                                        "analysed yet.", value=analysis["backlog"])
                yield CounterMetricFamily("rummy_analysis_games", "Games analysed by the "
                                          "background catch-up since the store process "
                                          "started.", value=analysis["analysed"])
                yield CounterMetricFamily("rummy_analysis_failures", "Games whose analysis "
                                          "failed.", value=analysis["failed"])
            ratings = self.writes.get("ratings")  # None: a store that rates nothing
            if ratings is not None:
                yield GaugeMetricFamily("rummy_rating_backlog", "Games committed and not "
                                        "rated yet.", value=ratings["backlog"])
                yield CounterMetricFamily("rummy_rating_games", "Games rated by the "
                                          "rating catch-up since the store process "
                                          "started.", value=ratings["rated"])


def _start() -> None:
    g.metrics_started = time.perf_counter()


def _finish(response: Response) -> Response:
    started = g.pop("metrics_started", None)
    if started is not None:
        rule = request.url_rule
        endpoint = _PARAMETER.sub(r"{\1}", rule.rule) if rule is not None else "unmatched"
        metrics_of_app().observe(request.method, endpoint, response.status_code,
                                 time.perf_counter() - started)
    return response


def metrics_of_app() -> Metrics:
    return current_app.extensions[EXTENSION]


def install(app: Flask) -> None:
    """Count every request the app answers, errors included."""
    app.extensions[EXTENSION] = Metrics()
    app.before_request(_start)
    app.after_request(_finish)

"""Request metrics in the Prometheus text exposition format (version 0.0.4).

Hand-written rather than a client library: four metric families do not need a
dependency.  Labels are bounded: the endpoint is the matched URL rule as OpenAPI writes
it (``/api/v1/games/{game_id}``; ``unmatched`` for unknown paths), the method one of the
HTTP verbs (``other`` for anything else), so a client cannot grow the series without
limit.  Latency is measured to the moment the
response starts (for the streamed batch, before its body).
"""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_left
from collections import defaultdict
from typing import Any

from flask import Flask, Response, current_app, g, request

EXTENSION = "rummy_metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_PARAMETER = re.compile(r"<(?:[^:>]+:)?([^>]+)>")  # <int(signed=True):move> -> {move}
_METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    """Counters and a latency histogram of the requests one process served."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: dict[tuple[str, str, str], int] = defaultdict(int)
        # (method, endpoint) -> [count per bucket..., +Inf], sum
        self._buckets: dict[tuple[str, str], list[int]] = {}
        self._sums: dict[tuple[str, str], float] = defaultdict(float)

    def observe(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        method = method if method in _METHODS else "other"
        key = (method, endpoint)
        with self._lock:
            self._requests[(method, endpoint, str(status))] += 1
            counts = self._buckets.setdefault(key, [0] * (len(BUCKETS) + 1))
            counts[bisect_left(BUCKETS, seconds)] += 1
            self._sums[key] += seconds

    def render(self, games_by_status: dict[str, int] | None,
               writes: dict[str, Any] | None = None) -> str:
        """The exposition text; ``games_by_status`` None when the database is down;
        ``writes`` the store's counts of commits and games committed since start-up."""
        out = ["# HELP rummy_http_requests_total HTTP requests by method, endpoint and status.",
               "# TYPE rummy_http_requests_total counter"]
        with self._lock:
            requests = sorted(self._requests.items())
            histograms = sorted((key, list(counts), self._sums[key])
                                for key, counts in self._buckets.items())
        for (method, endpoint, status), count in requests:
            out.append(f'rummy_http_requests_total{{method="{method}",'
                       f'endpoint="{_label(endpoint)}",status="{status}"}} {count}')
        out += ["# HELP rummy_http_request_duration_seconds Time to the start of the "
                "response, by method and endpoint.",
                "# TYPE rummy_http_request_duration_seconds histogram"]
        for (method, endpoint), counts, total in histograms:
            labels = f'method="{method}",endpoint="{_label(endpoint)}"'
            running = 0
            for bound, count in zip((*BUCKETS, "+Inf"), counts, strict=True):
                running += count
                out.append(f'rummy_http_request_duration_seconds_bucket{{{labels},'
                           f'le="{bound}"}} {running}')
            out.append(f"rummy_http_request_duration_seconds_sum{{{labels}}} {total!r}")
            out.append(f"rummy_http_request_duration_seconds_count{{{labels}}} {running}")
        out += ["# HELP rummy_database_up Whether the database answered this scrape.",
                "# TYPE rummy_database_up gauge",
                f"rummy_database_up {0 if games_by_status is None else 1}",
                "# HELP rummy_games_stored Games stored, by verification status.",
                "# TYPE rummy_games_stored gauge"]
        for status, count in sorted((games_by_status or {}).items()):
            out.append(f'rummy_games_stored{{status="{_label(status)}"}} {count}')
        if writes is not None:
            out += ["# HELP rummy_store_commits_total Write transactions committed (each a "
                    "group of games from any number of requests).",
                    "# TYPE rummy_store_commits_total counter",
                    f"rummy_store_commits_total {writes['commits']}",
                    "# HELP rummy_store_games_committed_total Games written since start-up.",
                    "# TYPE rummy_store_games_committed_total counter",
                    f"rummy_store_games_committed_total {writes['games_committed']}"]
        analysis = (writes or {}).get("analysis")
        if analysis is not None:
            out += ["# HELP rummy_analysis_backlog Stored games not analysed yet.",
                    "# TYPE rummy_analysis_backlog gauge",
                    f"rummy_analysis_backlog {analysis['backlog']}",
                    "# HELP rummy_analysis_games_total Games analysed by the background "
                    "catch-up since start-up.",
                    "# TYPE rummy_analysis_games_total counter",
                    f"rummy_analysis_games_total {analysis['analysed']}",
                    "# HELP rummy_analysis_failures_total Games whose analysis failed.",
                    "# TYPE rummy_analysis_failures_total counter",
                    f"rummy_analysis_failures_total {analysis['failed']}"]
        return "\n".join(out) + "\n"


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

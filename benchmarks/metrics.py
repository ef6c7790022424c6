"""What /metrics costs: one request counted (the counter and the histogram), in memory
and in prometheus-client's multiprocess mode (memory-mapped files), and one scrape
adding up the files of several workers, each with the series of a busy service.

    python benchmarks/metrics.py
    python benchmarks/metrics.py --observations 50000 --workers 16

Each mode runs in a fresh interpreter: prometheus-client picks its mode when imported.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The series of a busy service: every endpoint with a few statuses.
ENDPOINTS = ["/api/v1/games", "/api/v1/games/{game_id}", "/api/v1/games/batch",
             "/api/v1/healthz", "/api/v1/metrics", "/api/v1/players/{player}/stats",
             "/api/v1/stats/variants", "/api/v1/variants", "unmatched"]
STATUSES = ["200", "201", "404", "422", "503"]

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from service.api.metrics import Metrics
observations, endpoints, statuses = int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
metrics = Metrics()
for endpoint in endpoints:  # every series exists, as in a service that ran a while
    for status in statuses:
        metrics.observe("GET", endpoint, int(status), 0.01)
start = time.perf_counter()
for k in range(observations):
    metrics.observe("POST", endpoints[k % len(endpoints)], 201, 0.004)
observe = (time.perf_counter() - start) / observations
start = time.perf_counter()
for _ in range(20):
    text = metrics.render({"valid": 1}, {"commits": 1, "games_committed": 1})
scrape = (time.perf_counter() - start) / 20
print(json.dumps({"observe_us": observe * 1e6, "scrape_ms": scrape * 1e3,
                  "lines": text.count(chr(10))}))
"""


def run(env: dict[str, str], observations: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(observations),
                          json.dumps(ENDPOINTS), json.dumps(STATUSES)],
                         env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    plain = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    memory = run(plain, args.observations)
    print(f"in memory:     {memory['observe_us']:6.1f} us per request counted, "
          f"scrape {memory['scrape_ms']:6.2f} ms ({memory['lines']} lines)")
    with tempfile.TemporaryDirectory() as folder:
        env = {**plain, "PROMETHEUS_MULTIPROC_DIR": folder}
        for worker in range(args.workers):
            shared = run(env, args.observations)  # each run leaves its files, as a worker
            if worker in (0, args.workers - 1):
                print(f"multiprocess:  {shared['observe_us']:6.1f} us per request counted, "
                      f"scrape {shared['scrape_ms']:6.2f} ms over {worker + 1} workers' "
                      f"files ({shared['lines']} lines)")


if __name__ == "__main__":
    main()

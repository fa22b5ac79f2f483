"""The vendor side of a benchmark: the Databricks emulator behind a per-second request limit, counting.

Run as ``python -m benchmarks.vendor --limit 100``: it prints its URL on one line, then serves until
SIGTERM. Every API request is timed; past ``limit`` requests in the current second it answers
429 ``REQUEST_LIMIT_EXCEEDED`` with ``Retry-After: 1``, as a rate-limited workspace does.
``GET /_bench/stats`` returns the counts per route and per second.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections import Counter
from typing import Any

from durable_jobs.emulators._http import ApiError, Request, Response
from durable_jobs.emulators.databricks import DatabricksEmulator

STATUS_ROUTES = ("jobs/runs/get", "jobs/runs/list")


class LimitedDatabricks(DatabricksEmulator):
    def __init__(self, limit: float) -> None:
        super().__init__()
        self.limit = limit
        self.lock = threading.Lock()
        self.per_second: Counter[int] = Counter()
        self.status_per_second: Counter[int] = Counter()
        self.routes: Counter[str] = Counter()
        self.throttled: Counter[str] = Counter()

    def handle(self, request: Request) -> Response:
        if request.path == "/_bench/stats":
            return Response(200, self.stats())
        if request.path == "/_bench/reset":
            with self.lock:
                self.per_second.clear()
                self.status_per_second.clear()
                self.routes.clear()
                self.throttled.clear()
            return Response(200, {})
        if request.path.startswith("/api/"):
            route = request.path.split("/", 3)[3].rstrip("/")
            second = int(time.time())
            with self.lock:
                self.per_second[second] += 1
                self.routes[route] += 1
                if route in STATUS_ROUTES:
                    self.status_per_second[second] += 1
                over = self.limit > 0 and self.per_second[second] > self.limit
                if over:
                    self.throttled[route] += 1
            if over:
                return ApiError(429, "REQUEST_LIMIT_EXCEEDED", "Too many requests", {"Retry-After": "1"}).response()
        return super().handle(request)

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {"routes": dict(self.routes), "throttled": dict(self.throttled),
                    "status_per_second": {str(k): v for k, v in sorted(self.status_per_second.items())},
                    "per_second": {str(k): v for k, v in sorted(self.per_second.items())}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=100.0)
    args = parser.parse_args()
    emulator = LimitedDatabricks(args.limit).start()
    print(json.dumps({"url": emulator.url, "env": emulator.airflow_conn_env("databricks_default")}), flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait()
    emulator.stop()
    sys.exit(0)


if __name__ == "__main__":
    main()

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

from benchmarks.counting import RequestCounter
from durable_jobs.testing.emulators._http import ApiError, Request, Response
from durable_jobs.testing.emulators.databricks import DatabricksEmulator

STATUS_ROUTES = ("jobs/runs/get", "jobs/runs/list")


class LimitedDatabricks(DatabricksEmulator):
    #: HTTP/1.1 with connections kept open, as the workspace's front end answers (and as moto's server, the Batch
    #: vendor, does): an aiohttp session then reuses its connection while its calls come less than its keep-alive
    #: timeout apart, for both implementations.
    keep_alive = True

    def __init__(self, limit: float) -> None:
        super().__init__()
        self.counter = RequestCounter(limit, STATUS_ROUTES)

    def handle(self, request: Request) -> Response:
        if request.path == "/_bench/stats":
            return Response(200, self.counter.stats())
        if request.path == "/_bench/reset":
            self.counter.reset()
            return Response(200, {})
        if request.path == "/_bench/foreign":
            return Response(200, {"run_ids": self.foreign(int(request.params["count"]),
                                                          float(request.params["seconds"]))})
        if request.path.startswith("/api/") and self.counter.count(request.path.split("/", 3)[3].rstrip("/")):
            return ApiError(429, "REQUEST_LIMIT_EXCEEDED", "Too many requests", {"Retry-After": "1"}).response()
        return super().handle(request)


    def foreign(self, count: int, seconds: float) -> list[int]:
        """``count`` one-time runs of someone else's, active for ``seconds``, made straight in the model (not
        through the API, whose limit would spread their submits over many seconds): the workspace full of
        others' active runs that the issue asks the hub to notice."""
        app = self.app
        with app.lock:
            saved, app.config["outcomes"] = app.config["outcomes"], [
                {"outcome": "SUCCESS", "pending_seconds": 0.0, "running_seconds": seconds}] * count
            try:
                payload = {"run_name": "foreign",
                           "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/x"}}]}
                return [app._create_run("jobs/runs/submit", payload, None, None).run_id for _ in range(count)]
            finally:
                app.config["outcomes"] = saved


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

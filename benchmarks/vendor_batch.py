"""The vendor side of an AWS Batch benchmark: moto (with our gap rules) behind a per-second request limit.

Run as ``python -m benchmarks.vendor_batch --limit 50``: it prints its URL and the Airflow connection on one
line, then serves until SIGTERM. AWS documents the limit and the answer past it (AWS re:Post knowledge
center, "aws-batch-requests-error"): "The maximum number of transactions per second (TPS) for each account
for AWS Batch API calls, including the SubmitJob operations, is 50", answered with "Too Many Requests
(Service: AWSBatch; Status Code: 429; Error Code: TooManyRequestsException)". It says nothing of a
Retry-After header, so none is sent. The limit counts from ``/_bench/reset`` (the benchmark's submits come
before it).

Jobs end on a plan (``POST /_bench/plan``: seconds running and the end state, by job-name prefix) rather
than on moto's state steps, which advance only when a job is read and so would let the polling decide
when a job ends. ``GET /_bench/stats`` returns the counts per route and per second.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from benchmarks.counting import RequestCounter

STATUS_ROUTES = ("/v1/describejobs",)
#: job-name prefix (before the first "-") -> (seconds running after its submit, "SUCCEEDED" | "FAILED")
PLANS: dict[str, tuple[float, str]] = {}


class Limited:
    """A WSGI middleware in front of moto: counts every API request, answers 429 past the limit."""

    def __init__(self, app: Callable[..., Iterable[bytes]], limit: float) -> None:
        self.app = app
        self.counter = RequestCounter(limit, STATUS_ROUTES)
        self.armed = False

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path.startswith("/_bench/"):
            return self._bench(path, environ, start_response)
        if not self.armed or path.startswith("/moto-api") or not self.counter.count(path):
            return self.app(environ, start_response)
        body = json.dumps({"__type": "TooManyRequestsException", "message": "Too Many Requests"}).encode()
        start_response("429 Too Many Requests", [("Content-Type", "application/json"),
                                                 ("x-amzn-ErrorType", "TooManyRequestsException")])
        return [body]

    def _bench(self, path: str, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        reply: dict[str, Any] = {}
        if path == "/_bench/plan":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            plans = json.loads(environ["wsgi.input"].read(size) or b"{}")
            PLANS.update({name: (float(secs), end) for name, (secs, end) in plans.items()})
        elif path == "/_bench/reset":
            self.armed = True
            self.counter.reset()
        elif path == "/_bench/stats":
            reply = self.counter.stats(lambda route: route.rsplit("/", 1)[-1])
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(reply).encode()]


def install_plans() -> None:
    """A planned job is RUNNING until its time is up, then ends as planned (stopped, with an exit code, as
    moto's own end marks it); jobs without a plan keep moto's (and our gap rules') life cycle."""
    from moto.batch.models import Job
    from moto.moto_api._internal.managed_state_model import ManagedState

    base: Any = ManagedState.status  # a property

    def planned(job: Job) -> str | None:
        plan = PLANS.get(str(job.job_name).split("-", 1)[0])
        if plan is None:
            return base.fget(job)
        seconds, end = plan
        if time.time() < job.job_created_at.timestamp() + seconds:
            return "RUNNING"
        if not job.job_stopped:
            job.job_stopped, job.job_stopped_at = True, datetime.now()
            job.exit_code = 0 if end == "SUCCEEDED" else 1
            if end != "SUCCEEDED":
                job.job_stopped_reason = "Essential container in task exited"
        return end

    Job.status = property(planned, base.fset)  # type: ignore[method-assign,assignment,unused-ignore]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=50.0)
    args = parser.parse_args()

    import logging

    import moto.server
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import ThreadedWSGIServer

    from durable_jobs.testing.emulators.aws_env import CONN_ENV, REGION, AwsTestEnv

    limited: list[Limited] = []

    class DeepBacklog(ThreadedWSGIServer):
        # werkzeug listens with a backlog of 128: the official trigger's thousand sessions connecting at once
        # overflowed it (connects dropped, retried seconds later); a vendor's front end would take them
        request_queue_size = 1024

    class LimitedMotoServer(ThreadedMotoServer):
        def _server_entry(self) -> None:
            limited.append(Limited(DomainDispatcherApplication(create_backend_app), args.limit))
            self._server = DeepBacklog(self._ip_address, self._port, limited[0], MotoRequestHandler)
            self._server_ready_event.set()
            self._server.serve_forever()

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    # MotoAws.start() builds the server class it finds here
    moto.server.ThreadedMotoServer = LimitedMotoServer  # type: ignore[misc]
    env = AwsTestEnv().start()
    install_plans()
    url = env.moto.url
    conn = env.moto.airflow_conn_uri(url, REGION)
    print(json.dumps({"url": url, "env": {CONN_ENV: conn, "AWS_ACCESS_KEY_ID": "testing",
                                          "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": REGION}}),
          flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait()
    env.stop()
    sys.exit(0)


if __name__ == "__main__":
    main()

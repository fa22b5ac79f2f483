"""A loopback fault-injecting proxy in front of an AWS endpoint (moto), at the level of AWS operations.

The real clients (boto3/botocore, aiobotocore through the official hooks) talk to the proxy as
their ``endpoint_url``; the proxy names each request's operation (``batch:SubmitJob``,
``glue:StartJobRun``, ``emr-serverless:GetJobRun``, ...) from the SigV4 credential scope and the
path or ``X-Amz-Target`` (``athena:StartQueryExecution``), and forwards it, unless a rule says otherwise:

* ``fault(op, mode="error")`` — answer an AWS-shaped error *instead of* forwarding (throttling:
  ``status=429, code="TooManyRequestsException"`` / ``"ThrottlingException"``);
* ``fault(op, mode="lose_reply")`` — forward (the job is created), then answer the error: the reply
  the client never sees;
* ``fault(op, mode="reset")`` — forward, then close the connection without a reply;
* ``fault(op, mode="garbage")`` — forward, then answer 200 with a body that is not JSON (a load
  balancer's HTML page); ``mode="slow", delay=s`` — forward, answer ``s`` seconds late (past a
  client's ``read_timeout``); ``mode="rewrite", rewrite=f`` — forward, answer ``f(reply JSON)`` (a
  state no client has seen); ``seconds=`` limits any rule to that long after it was armed (an outage
  of a given length), or with ``seconds_from="first"`` that long after the first request it answered
  (armed behind an outage rule on the same operation, a window that starts where the outage ends for
  the client, however long the client backed off); ``retry_after=`` adds the header to an error;
* ``lag(seconds)`` — list operations (Batch ``ListJobs``, Glue ``GetJobRuns``, EMR Serverless
  ``ListJobRuns``) leave out jobs created through the proxy less than ``seconds`` ago: a listing
  that has not caught up;
* ``hold(op)`` — park the next matching request after forwarding until ``release()`` (for crash
  tests that kill a worker inside the submit→persist window).

``ledger`` records every job a submit operation created upstream (operation, id, time, and the
idempotency token the request carried: Athena ``ClientRequestToken``, EMR Serverless ``clientToken``).
Listens on 127.0.0.1 only; ``stop()`` shuts it down. Nothing here imports Airflow.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

SUBMIT_OPS = {"batch:SubmitJob": "jobId", "glue:StartJobRun": "JobRunId", "emr-serverless:StartJobRun": "jobRunId",
              "athena:StartQueryExecution": "QueryExecutionId"}
#: A submit whose id is nested in its reply: the path to it (ECS ``RunTask``: ``tasks[0].taskArn``).
SUBMIT_OPS.update({"ecs:RunTask": "tasks.0.taskArn"})
SUBMIT_OPS["states:StartExecution"] = "executionArn"  # Step Functions (the execution name is the key)
SUBMIT_OPS.update({"redshift-data:ExecuteStatement": "Id", "redshift-data:BatchExecuteStatement": "Id"})
#: list operation → (list field, id field inside each entry)
LIST_OPS = {
    "batch:ListJobs": ("jobSummaryList", "jobId"),
    "glue:GetJobRuns": ("JobRuns", "Id"),
    "emr-serverless:ListJobRuns": ("jobRuns", "id"),
}
JSON_11_SERVICES = {"glue", "athena"}
JSON_11_SERVICES.add("ecs")
JSON_11_SERVICES.add("redshift-data")
_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/[^/]+/([^/]+)/aws4_request")
_EMR_ROUTES = [
    ("POST", re.compile(r"^/applications/[^/]+/jobruns/?$"), "StartJobRun"),
    ("GET", re.compile(r"^/applications/[^/]+/jobruns/?$"), "ListJobRuns"),
    ("GET", re.compile(r"^/applications/[^/]+/jobruns/[^/]+/?$"), "GetJobRun"),
    ("DELETE", re.compile(r"^/applications/[^/]+/jobruns/[^/]+/?$"), "CancelJobRun"),
    ("POST", re.compile(r"^/applications/[^/]+/start/?$"), "StartApplication"),
    ("GET", re.compile(r"^/applications/[^/]+/?$"), "GetApplication"),
    ("POST", re.compile(r"^/tags/.+$"), "TagResource"),
    ("GET", re.compile(r"^/tags/.+$"), "ListTagsForResource"),
]
_BATCH_ACTIONS = {
    "submitjob": "SubmitJob", "describejobs": "DescribeJobs", "listjobs": "ListJobs",
    "terminatejob": "TerminateJob", "canceljob": "CancelJob",
}
#: EMR on EKS (``emr-containers``, REST-JSON): the job-run routes (the submit's id is ``id``).
_EMR_CONTAINERS_ROUTES = [
    ("POST", re.compile(r"^/virtualclusters/[^/]+/jobruns/?$"), "StartJobRun"),
    ("GET", re.compile(r"^/virtualclusters/[^/]+/jobruns/?$"), "ListJobRuns"),
    ("GET", re.compile(r"^/virtualclusters/[^/]+/jobruns/[^/]+/?$"), "DescribeJobRun"),
    ("DELETE", re.compile(r"^/virtualclusters/[^/]+/jobruns/[^/]+/?$"), "CancelJobRun"),
    ("GET", re.compile(r"^/virtualclusters/[^/]+/?$"), "DescribeVirtualCluster"),
]
SUBMIT_OPS["emr-containers:StartJobRun"] = "id"
LIST_OPS["emr-containers:ListJobRuns"] = ("jobRuns", "id")
#: EMR steps (``elasticmapreduce``, JSON 1.1): one AddJobFlowSteps adds several steps; the ledger names the first.
SUBMIT_OPS["elasticmapreduce:AddJobFlowSteps"] = "StepIds.0"
JSON_11_SERVICES.add("elasticmapreduce")
#: SageMaker jobs (JSON 1.1): the name is the key and the id; the ledger records the name (the ARN's tail).
SUBMIT_OPS.update({f"sagemaker:Create{t}Job": f"{t}JobArn" for t in ("Training", "Processing", "Transform")})
JSON_11_SERVICES.add("sagemaker")
FAULT_MODES = ("error", "lose_reply", "reset", "garbage", "slow", "rewrite")
GARBAGE_BODY = b"<html><head><title>502 Bad Gateway</title></head><body>upstream unavailable</body></html>"


def operation_of(method: str, path: str, headers: Any) -> str:
    """``service:Operation`` for one request (``service:?`` when the operation is not one we name)."""
    match = _SCOPE.search(headers.get("Authorization", "") or "")
    service = match.group(1) if match else "?"
    target = headers.get("X-Amz-Target")
    if target:
        return f"{service}:{target.rpartition('.')[2]}"
    route = urlsplit(path).path
    if service == "batch":
        action = route.strip("/").split("/")[1] if route.startswith("/v1/") else ""
        if action == "tags":
            return "batch:TagResource" if method == "POST" else "batch:ListTagsForResource"
        return f"batch:{_BATCH_ACTIONS.get(action, action or '?')}"
    if service == "emr-serverless":
        for verb, pattern, name in _EMR_ROUTES:
            if verb == method and pattern.match(route):
                return f"emr-serverless:{name}"
    if service == "emr-containers":
        for verb, pattern, name in _EMR_CONTAINERS_ROUTES:
            if verb == method and pattern.match(route):
                return f"emr-containers:{name}"
    return f"{service}:?"


class _DeepBacklogServer(ThreadingHTTPServer):
    """socketserver's listen backlog is 5: many clients connecting at once had their connects dropped and
    retried seconds later (``durable_jobs.emulators._http.EmulatorHTTPServer`` says more)."""

    request_queue_size = 1024


@dataclass
class Fault:
    op: str
    mode: str = "error"
    status: int = 500
    code: str = "InternalServerException"
    message: str = ""
    count: int = 1
    skip: int = 0
    seconds: float | None = None
    delay: float = 0.0
    rewrite: Callable[[Any], Any] | None = None
    retry_after: float | None = None
    #: where ``seconds`` count from: "armed" (the rule's arming) or "first" (the first request it answered)
    seconds_from: str = "armed"
    seen: int = 0
    fired: int = 0
    armed_at: float = field(default_factory=time.monotonic)
    first_fired_at: float | None = None

    def take(self) -> bool:
        start = self.armed_at if self.seconds_from == "armed" else self.first_fired_at
        if self.seconds is not None and start is not None and time.monotonic() - start > self.seconds:
            return False
        if self.count >= 0 and self.fired >= self.count:
            return False
        self.seen += 1
        if self.seen <= self.skip:
            return False
        self.fired += 1
        if self.first_fired_at is None:
            self.first_fired_at = time.monotonic()
        return True


@dataclass
class Hold:
    op: str
    event: threading.Event = field(default_factory=threading.Event)
    parked: threading.Event = field(default_factory=threading.Event)


class AwsFaultProxy:
    """Forward to ``upstream`` (``http://127.0.0.1:<moto port>``), injecting faults by operation."""

    def __init__(self, upstream: str, host: str = "127.0.0.1", port: int = 0):
        split = urlsplit(upstream)
        self.upstream = (split.hostname or "127.0.0.1", split.port or 80)
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._holds: list[Hold] = []
        self._lag_seconds = 0.0
        self._created: dict[str, float] = {}
        self.ledger: list[dict[str, Any]] = []
        self.calls: dict[str, int] = {}
        #: calls made by aiobotocore (the deferrable path's trigger), by operation
        self.async_calls: dict[str, int] = {}
        self.fired: list[dict[str, Any]] = []
        #: operations whose every call is logged in ``watched`` (``watch()``)
        self._watched_ops: set[str] = set()
        self.watched: list[dict[str, Any]] = []
        proxy = self

        class Handler(_Handler):
            owner = proxy

        self._server = _DeepBacklogServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host if isinstance(host, str) else host.decode()}:{port}"

    def start(self) -> AwsFaultProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> AwsFaultProxy:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ----------------------------------------------------------------- controls
    def fault(self, op: str, *, mode: str = "error", status: int = 500, code: str | None = None,
              message: str = "", count: int = 1, skip: int = 0, seconds: float | None = None,
              delay: float = 0.0, rewrite: Callable[[Any], Any] | None = None,
              retry_after: float | None = None, seconds_from: str = "armed") -> Fault:
        if mode not in FAULT_MODES:
            raise ValueError(f"mode must be one of {FAULT_MODES}")
        if seconds_from not in ("armed", "first"):
            raise ValueError("seconds_from must be 'armed' or 'first'")
        if mode == "rewrite" and rewrite is None:
            raise ValueError("a rewrite fault needs rewrite=<function of the reply's JSON>")
        if code is None:
            code = "ThrottlingException" if status in (400, 429) else "InternalServerException"
        rule = Fault(op, mode, status, code, message or f"injected {mode} on {op}", count, skip, seconds, delay,
                     rewrite, retry_after, seconds_from)
        with self._lock:
            self._faults.append(rule)
        return rule

    def throttle(self, op: str, *, count: int = 1, skip: int = 0) -> Fault:
        """AWS-shaped throttling for ``op`` (each service's own code and status)."""
        service = op.split(":")[0]
        if service == "glue":
            return self.fault(op, status=400, code="ThrottlingException", message="Rate exceeded",
                              count=count, skip=skip)
        if service == "athena":  # "TooManyRequestsException: Indicates that the request was throttled." (a 4xx)
            return self.fault(op, status=400, code="TooManyRequestsException", message="Rate exceeded",
                              count=count, skip=skip)
        code = "TooManyRequestsException" if service == "batch" else "ThrottlingException"
        return self.fault(op, status=429, code=code, message="Too Many Requests", count=count, skip=skip)

    def deny(self, op: str, permission: str, *, count: int = -1) -> Fault:
        """AccessDeniedException naming ``permission`` (e.g. ``batch:TagResource``)."""
        return self.fault(
            op, status=403, code="AccessDeniedException", count=count,
            message=f"User: arn:aws:iam::123456789012:user/airflow is not authorized to perform: {permission}",
        )

    def watch(self, *ops: str) -> None:
        """Log every call of ``ops`` in ``watched``: when, from which client (botocore: a worker or a DAG
        processor; aiobotocore: a trigger) and with what request body — who cancelled a job, for example."""
        with self._lock:
            self._watched_ops.update(ops)

    def lag(self, seconds: float) -> None:
        with self._lock:
            self._lag_seconds = float(seconds)

    def hold(self, op: str) -> Hold:
        hold = Hold(op)
        with self._lock:
            self._holds.append(hold)
        return hold

    def release(self) -> None:
        with self._lock:
            holds, self._holds = self._holds, []
        for hold in holds:
            hold.event.set()

    def clear(self) -> None:
        """Forget rules, lag, counters and the ledger (between tests)."""
        with self._lock:
            self._faults.clear()
            self._lag_seconds = 0.0
            self._created.clear()
            self.ledger.clear()
            self.calls.clear()
            self.async_calls.clear()
            self.fired.clear()
            self.watched.clear()
        self.release()

    def jobs_created(self, op: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.ledger if op is None or e["op"] == op]

    # ----------------------------------------------------------------- used by the handler
    def _take_fault(self, op: str) -> Fault | None:
        with self._lock:
            self.calls[op] = self.calls.get(op, 0) + 1
            for rule in self._faults:
                if rule.op == op and rule.take():
                    self.fired.append({"op": op, "mode": rule.mode, "status": rule.status, "ts": time.time()})
                    return rule
        return None

    def _take_hold(self, op: str) -> Hold | None:
        with self._lock:
            for hold in self._holds:
                if hold.op == op and not hold.parked.is_set():
                    hold.parked.set()
                    return hold
        return None

    def _record(self, op: str, status: int, body: bytes, request: bytes = b"") -> bytes:
        if op in SUBMIT_OPS and status == 200:
            try:
                job_id = _dig_id(json.loads(body), SUBMIT_OPS[op])
            except (ValueError, KeyError, TypeError, IndexError):
                return body
            if op.startswith("sagemaker:Create"):  # the ARN ends in the job name, the id SageMaker is asked by
                job_id = str(job_id).rpartition("/")[2]
            with self._lock:
                if job_id not in self._created:
                    self._created[job_id] = time.monotonic()
                    self.ledger.append({"op": op, "id": job_id, "ts": time.time(), "token": _token_of(request)})
        if op in LIST_OPS and status == 200 and self._lag_seconds > 0:
            list_field, id_field = LIST_OPS[op]
            try:
                data = json.loads(body)
            except ValueError:
                return body
            now = time.monotonic()
            with self._lock:
                fresh = {i for i, t in self._created.items() if now - t < self._lag_seconds}
            entries = data.get(list_field) or []
            data[list_field] = [e for e in entries if e.get(id_field) not in fresh]
            return json.dumps(data).encode()
        return body


def _dig_id(reply: Any, path: str) -> Any:
    """``reply[path]``; a dotted path reaches into lists and objects (``tasks.0.taskArn``)."""
    for part in path.split("."):
        reply = reply[int(part)] if isinstance(reply, list) else reply[part]
    return reply


def _token_of(request: bytes) -> str | None:
    try:
        body = json.loads(request or b"{}")
    except ValueError:
        return None
    token = body.get("ClientRequestToken") or body.get("clientToken") if isinstance(body, dict) else None
    if not token and isinstance(body, dict):
        token = body.get("ClientToken")  # Redshift Data ExecuteStatement / BatchExecuteStatement
    if not token and isinstance(body, dict) and "stateMachineArn" in body:
        token = body.get("name")  # Step Functions StartExecution: the name is the idempotency key
    if not token and isinstance(body, dict):  # SageMaker Create*Job: the job name is the idempotency key
        token = body.get("TrainingJobName") or body.get("ProcessingJobName") or body.get("TransformJobName")
    return str(token) if token else None


class _Handler(BaseHTTPRequestHandler):
    owner: AwsFaultProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return

    def do_GET(self) -> None:
        self._proxy("GET")

    def do_POST(self) -> None:
        self._proxy("POST")

    def do_PUT(self) -> None:
        self._proxy("PUT")

    def do_DELETE(self) -> None:
        self._proxy("DELETE")

    def do_PATCH(self) -> None:
        self._proxy("PATCH")

    def do_HEAD(self) -> None:
        self._proxy("HEAD")

    def _proxy(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        op = operation_of(method, self.path, self.headers)
        proxy = self.owner
        agent = self.headers.get("User-Agent") or ""
        if "aiobotocore" in agent:
            with proxy._lock:
                proxy.async_calls[op] = proxy.async_calls.get(op, 0) + 1
        if op in proxy._watched_ops:
            with proxy._lock:
                proxy.watched.append({"op": op, "ts": time.time(), "agent": agent.split(" ")[0],
                                      "request": body[:500].decode(errors="replace")})
        fault = proxy._take_fault(op)
        if fault is not None and fault.mode == "error":
            self._send_error(op, fault)
            return
        try:
            status, headers, payload = self._forward(method, body)
        except OSError as err:
            self._send_error(op, Fault(op, status=502, code="BadGateway", message=str(err)))
            return
        payload = proxy._record(op, status, payload, body)
        hold = proxy._take_hold(op)
        if hold is not None:
            hold.event.wait(timeout=300)
        if fault is not None and fault.mode == "reset":
            self.close_connection = True
            return
        if fault is not None and fault.mode == "garbage":
            self._send_raw(200, GARBAGE_BODY, "text/html")
            return
        if fault is not None and fault.mode == "slow":
            time.sleep(fault.delay)
        elif fault is not None and fault.mode == "rewrite" and fault.rewrite is not None:
            payload = json.dumps(fault.rewrite(json.loads(payload))).encode()
        elif fault is not None:  # lose_reply: the work is done, the client sees an error
            self._send_error(op, fault)
            return
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(payload)

    def _forward(self, method: str, body: bytes):
        host, port = self.owner.upstream
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
            conn.request(method, self.path, body=body or None, headers=headers)
            response = conn.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            conn.close()

    def _send_error(self, op: str, fault: Fault) -> None:
        service = op.split(":")[0]
        payload = json.dumps({"__type": fault.code, "message": fault.message, "Message": fault.message}).encode()
        self.send_response(fault.status)
        if fault.retry_after is not None:
            self.send_header("Retry-After", str(int(fault.retry_after)))
        if service in JSON_11_SERVICES:
            self.send_header("Content-Type", "application/x-amz-json-1.1")
        else:
            self.send_header("Content-Type", "application/json")
            self.send_header("x-amzn-ErrorType", fault.code)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send_raw(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

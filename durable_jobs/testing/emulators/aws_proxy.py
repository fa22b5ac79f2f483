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

Nothing here lists a vendor: which operations submit and list, where a reply holds the job's id, which field
carries the key and how a service throttles come from the registry (``durable_jobs.vendors.Calls``); the
protocol of each service and the paths of a REST API's operations come from botocore's own models.
Listens on 127.0.0.1 only; ``stop()`` shuts it down. Nothing here imports Airflow.
"""

from __future__ import annotations

import functools
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

from durable_jobs import vendors


def _aws_calls() -> list[vendors.Calls]:
    """Every AWS job API in the registry: each service's calls, and an operator's own (SageMaker's job types)."""
    found: list[vendors.Calls] = []
    for _, service in vendors.services():
        for calls in (service.calls, *(op.calls for op in service.operators)):
            if calls is not None and calls.botocore and calls not in found:
                found.append(calls)
    return found


_CALLS = _aws_calls()
#: submit operation -> where its reply holds the new job's id (a dotted path: ``tasks.0.taskArn``)
SUBMIT_OPS = {op: c.reply_id for c in _CALLS for op in c.submits}
#: submit operation -> the request field that carries the idempotency key (what the ledger records as the token)
KEY_FIELDS = {op: c.key_field for c in _CALLS for op in c.submits if c.key_field}
#: submits whose reply holds an ARN while the job is asked for by its name, the ARN's tail (SageMaker)
BY_NAME_OPS = frozenset(op for c in _CALLS if c.id_is_arn_name for op in c.submits)
#: list operation -> (list field, id field inside each entry)
LIST_OPS = {c.listing[0]: (c.listing[1], c.listing[2]) for c in _CALLS if c.listing}
#: signing name -> how it answers a throttled call: (HTTP status, error code, message); others: the registry's default
THROTTLED = {c.submit.split(":")[0]: c.throttled for c in _CALLS}
_THROTTLED = vendors.Calls("", "").throttled
#: signing name -> botocore service name
_BOTOCORE = {c.submit.split(":")[0]: c.botocore for c in _CALLS}
_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/[^/]+/([^/]+)/aws4_request")
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
    for verb, pattern, name in _protocols().routes.get(service, ()):
        if verb == method and pattern.match(route):
            return f"{service}:{name}"
    return f"{service}:?"


@dataclass(frozen=True)
class _Protocols:
    #: signing names whose errors are ``application/x-amz-json-1.1`` bodies (the rest: ``x-amzn-ErrorType``)
    json_11: frozenset[str]
    #: signing name -> (HTTP method, path pattern, operation) of a REST API, whose operation is in its path
    routes: dict[str, list[tuple[str, re.Pattern[str], str]]]


@functools.cache
def _protocols() -> _Protocols:
    """What botocore's own models say of the registry's AWS services: their protocol, and for a REST API the
    path of each operation (``POST /v1/submitjob`` is Batch's ``SubmitJob``). Read on first use."""
    import botocore.session

    session = botocore.session.get_session()
    json_11: set[str] = set()
    routes: dict[str, list[tuple[str, re.Pattern[str], str]]] = {}
    for scope, name in _BOTOCORE.items():
        model = session.get_service_model(name)
        protocol = model.metadata.get("protocol")
        if protocol == "json" and model.metadata.get("jsonVersion") == "1.1":
            json_11.add(scope)
        if protocol != "rest-json":
            continue
        found = []
        for operation in model.operation_names:
            http = model.operation_model(operation).http
            found.append((http["method"], _route_pattern(http["requestUri"]), operation))
        # the most literal path first: ``/applications/{id}/start`` before ``/applications/{id}/{x}``
        routes[scope] = sorted(found, key=lambda r: r[1].pattern.count("[^/]") + r[1].pattern.count(".+"))
    return _Protocols(frozenset(json_11), routes)


def _route_pattern(uri: str) -> re.Pattern[str]:
    """``/applications/{applicationId}/jobruns`` as a pattern of request paths (a trailing slash allowed)."""
    parts = []
    for part in uri.partition("?")[0].strip("/").split("/"):
        if part.startswith("{") and part.endswith("+}"):
            parts.append(".+")
        elif part.startswith("{") and part.endswith("}"):
            parts.append("[^/]+")
        else:
            parts.append(re.escape(part))
    return re.compile("^/" + "/".join(parts) + "/?$")


class _DeepBacklogServer(ThreadingHTTPServer):
    """socketserver's listen backlog is 5: many clients connecting at once had their connects dropped and
    retried seconds later (``durable_jobs.testing.emulators._http.EmulatorHTTPServer`` says more)."""

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
        """AWS-shaped throttling for ``op``: its service's own status and code (the registry's ``throttled``)."""
        status, code, message = THROTTLED.get(op.split(":")[0], _THROTTLED)
        return self.fault(op, status=status, code=code, message=message, count=count, skip=skip)

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
            if op in BY_NAME_OPS:  # the ARN ends in the job's name, the id the vendor is asked by
                job_id = str(job_id).rpartition("/")[2]
            with self._lock:
                if job_id not in self._created:
                    self._created[job_id] = time.monotonic()
                    self.ledger.append({"op": op, "id": job_id, "ts": time.time(),
                                        "token": _token_of(request, KEY_FIELDS.get(op))})
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


def state_rewrite(state_field: str, state: str) -> Callable[[Any], Any]:
    """A ``rewrite`` for ``fault(op, mode="rewrite")``: the status reply with the job's state replaced by ``state``.

    ``state_field`` is where the reply holds it (the registry's ``Calls.state_field``): a dotted path, ``*`` for
    each entry of a list (``jobs.*.status``). A reply without the path's first field is left alone; below it,
    missing objects are made (``QueryExecution.Status.State`` on a query without a ``Status``)."""
    first, *rest = state_field.split(".")

    def put(node: Any, parts: list[str]) -> None:
        head, *tail = parts
        if head == "*":
            for entry in node if isinstance(node, list) else []:
                put(entry, tail)
        elif not tail:
            node[head] = state
        else:
            put(node.setdefault(head, [] if tail[0] == "*" else {}), tail)

    def rewrite(body: Any) -> Any:
        if not rest:
            body[first] = state
        elif isinstance(body, dict) and body.get(first) is not None:
            put(body[first], rest)
        return body

    return rewrite


def _dig_id(reply: Any, path: str) -> Any:
    """``reply[path]``; a dotted path reaches into lists and objects (``tasks.0.taskArn``)."""
    for part in path.split("."):
        reply = reply[int(part)] if isinstance(reply, list) else reply[part]
    return reply


def _token_of(request: bytes, key_field: str | None) -> str | None:
    """The idempotency key the submit carried in ``key_field`` (None: its API has none)."""
    if not key_field:
        return None
    try:
        body = json.loads(request or b"{}")
    except ValueError:
        return None
    token = body.get(key_field) if isinstance(body, dict) else None
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
        if service in _protocols().json_11:
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

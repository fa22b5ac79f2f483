"""A loopback emulator of Dataproc's JobController and BatchController (and the long-running
operations the batch client reads), over gRPC, for the real ``google-cloud-dataproc`` clients::

    with DataprocEmulator() as emu, emu.routed():         # DataprocHook's clients now reach 127.0.0.1
        os.environ.update(emu.airflow_conn_env())         # AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT: is_anonymous
        DataprocHook().submit_job(job={...}, project_id="emulator-project", region="europe-west1",
                                  request_id="k1")
        assert emu.created("job") == 1

Where the hooks send their calls: ``DataprocHook`` 22.8 builds every client with
``client_options=get_client_options(api_endpoint_override=f"{region}-dataproc.googleapis.com:443")`` and
the client opens a TLS channel to it; no connection extra or environment variable names another host
(``api_endpoint`` comes from the region, and ``GOOGLE_CLOUD_UNIVERSE_DOMAIN`` only changes the domain).
So :meth:`routed` (and :func:`route_hooks`) replace, at the boundary where the hook builds a vendor client,
``DataprocHook.get_job_client`` / ``get_batch_client`` and ``DataprocAsyncHook.get_job_client`` /
``get_batch_client`` / ``get_template_client`` by the same clients over an insecure channel to
``127.0.0.1:<port>``. The hook still resolves the connection's credentials (``is_anonymous``: Google's
``AnonymousCredentials``) and everything else — request building, the clients' own retries, operation
polling, error mapping — is the official code, unchanged. A crash stack's Airflow processes get the same
from ``tests/crash/vendor_route/sitecustomize.py``, which calls :func:`route_from_env`.

Faults (``inject``): a method's call answers an error ``code`` (``UNAVAILABLE`` for a 5xx, ``RESOURCE_EXHAUSTED``
for a 429) before any work, or, with ``after=True``, after the work is done (a lost reply: the job exists,
the caller sees an error); or is slow, or answers bytes that are not the message, or reports a state the
durable table does not list; for a count of calls or a time window, for one project or all. The ledger
(``ledger()``) lists every create with its ``request_id`` and whether it created anything.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any, ClassVar

import grpc
from google.cloud.dataproc_v1 import types as t
from google.longrunning import operations_pb2
from google.protobuf import any_pb2, empty_pb2

from durable_jobs.testing.emulators._dataproc_model import DataprocModel, Workload
from durable_jobs.testing.emulators._grpc_routing import insecure_client, install_from_env, replace, routed
from durable_jobs.testing.emulators._workload_model import NamedWorkloadModel, RpcError, get_or_not_found

PROJECT = "emulator-project"
REGION = "europe-west1"
#: The environment variable :func:`route_from_env` reads (``127.0.0.1:<port>``).
ROUTE_ENV = "DURABLE_JOBS_DATAPROC_EMULATOR_ADDRESS"
_JOBS = "google.cloud.dataproc.v1.JobController"
_BATCHES = "google.cloud.dataproc.v1.BatchController"
_OPERATIONS = "google.longrunning.Operations"


class DataprocEmulator:
    """The server: start/stop (or a ``with`` block), its address, faults, holds and the ledger."""

    def __init__(self, *, run_seconds: float = 1.0) -> None:
        self.model = DataprocModel(run_seconds=run_seconds)
        self._faults: list[_Fault] = []
        self._hold_rules: list[tuple[str, str, str | None]] = []
        self._held: list[dict[str, Any]] = []
        self._hold_ids = 0
        self._lock = threading.Lock()
        self._server: grpc.Server | None = None
        self.port = 0
        self.calls: dict[str, int] = {}
        self.calls_by_project: dict[tuple[str, str], int] = {}

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> DataprocEmulator:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        server.add_generic_rpc_handlers(self._handlers())
        self.port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        self._server = server
        return self

    def stop(self) -> None:
        self.release(abandon=True)
        if self._server is not None:
            self._server.stop(grace=0).wait(5)
            self._server = None

    def __enter__(self) -> DataprocEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def airflow_conn_env(self, conn_id: str = "google_cloud_default") -> dict[str, str]:
        """A ``google_cloud_platform`` connection with anonymous credentials and the emulator's project."""
        import json

        extra = {"is_anonymous": True, "project": PROJECT}
        return {f"AIRFLOW_CONN_{conn_id.upper()}": json.dumps({"conn_type": "google_cloud_platform", "extra": extra})}

    @contextlib.contextmanager
    def routed(self) -> Iterator[DataprocEmulator]:
        """Send every ``DataprocHook``'s and ``DataprocAsyncHook``'s calls here while the block runs."""
        with route_hooks(self.address):
            yield self

    # ---------------------------------------------------------------- test controls
    def inject(self, method: str, code: str = "UNAVAILABLE", *, times: int = 1, after: bool = False,
               delay: float = 0.0, mode: str | None = None, seconds: float | None = None,
               project: str | None = None) -> None:
        """The next ``times`` calls (-1: every call; ``seconds``: for that long) of ``method`` (``SubmitJob``,
        ``GetJob``, ``CreateBatch``, ...) of ``project`` (None: any) misbehave. ``mode``: "before" (answer
        ``code``, no work), "after" (do the work, answer ``code``: a lost reply), "slow" (sleep ``delay``, then
        work and reply), "garbage" (work, then bytes that are not the message), "unknown" (a job or batch
        reported in STATE_UNSPECIFIED, a state the durable table does not list)."""
        with self._lock:
            self._faults.append(_Fault(method, code, mode or ("after" if after else "slow" if delay else "before"),
                                       times, delay, time.monotonic() + seconds if seconds else None, project))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def forget(self, kind: str, ident: str) -> None:
        """The job or batch vanishes (deleted, history purged): later reads answer NOT_FOUND."""
        with self.model.lock:
            if kind == "job":
                for job_key in [k for k, v in self.model.jobs.items() if v.id == ident]:
                    del self.model.jobs[job_key]
            for name in [k for k, v in self.model.batches.items() if v.id == ident and kind != "job"]:
                del self.model.batches[name]

    def add_hold(self, method: str, phase: str = "before", project: str | None = None) -> None:
        """Park the next call of ``method`` (of ``project``) ``before`` the work or ``after`` it (the job made,
        the reply not sent) until :meth:`release`; ``holds()`` shows it with whether the client still waits."""
        with self._lock:
            self._hold_rules.append((method, phase, project))

    def holds(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{"id": h["id"], "method": h["method"], "phase": h["phase"], "project": h["project"],
                     "client_connected": bool(h["context"].is_active())} for h in self._held]

    def release(self, hold_id: int | None = None, abandon: bool = False) -> None:
        """Let a parked call go on (``abandon``: answer it UNAVAILABLE; its client is usually gone)."""
        with self._lock:
            for h in list(self._held):
                if hold_id is None or h["id"] == hold_id:
                    h["abandon"] = abandon
                    h["event"].set()
                    self._held.remove(h)

    def freeze(self, project: str, on: bool = True) -> None:
        """Keep ``project``'s jobs and batches RUNNING (after PENDING) until thawed or finished."""
        self.model.freeze(project, on)

    def finish_project(self, project: str, state: str = "DONE", kind: str = "job") -> None:
        with self.model.lock:
            for item in self.model.jobs.values() if kind == "job" else self.model.batches.values():
                if item.project == project:
                    item.forced = state

    def hold(self, on: bool = True) -> None:
        """Keep every job and batch RUNNING (after PENDING) until released or finished."""
        self.model.held = on

    def finish(self, kind: str, ident: str, state: str) -> None:
        self.model.finish(kind, ident, state)

    def ledger(self) -> list[dict[str, Any]]:
        with self.model.lock:
            return [dict(e) for e in self.model.ledger]

    def created(self, kind: str) -> int:
        op = "SubmitJob" if kind == "job" else "CreateBatch"
        return sum(1 for e in self.ledger() if e["op"] == op and e.get("created"))

    def job_states(self) -> dict[str, str]:
        with self.model.lock:
            return {k[2]: self.model.state_of(v) for k, v in self.model.jobs.items()}

    def batch_states(self) -> dict[str, str]:
        with self.model.lock:
            return {v.id: self.model.state_of(v) for v in self.model.batches.values()}

    # ---------------------------------------------------------------- the RPCs
    def _handlers(self) -> list[grpc.GenericRpcHandler]:
        unary = self._unary
        pb = operations_pb2
        return [
            grpc.method_handlers_generic_handler(_JOBS, {
                "SubmitJob": unary("SubmitJob", self._submit_job, t.SubmitJobRequest.deserialize, t.Job.serialize),
                "GetJob": unary("GetJob", self._get_job, t.GetJobRequest.deserialize, t.Job.serialize),
                "ListJobs": unary("ListJobs", self._list_jobs, t.ListJobsRequest.deserialize,
                                  t.ListJobsResponse.serialize),
                "CancelJob": unary("CancelJob", self._cancel_job, t.CancelJobRequest.deserialize, t.Job.serialize),
            }),
            grpc.method_handlers_generic_handler(_BATCHES, {
                "CreateBatch": unary("CreateBatch", self._create_batch, t.CreateBatchRequest.deserialize,
                                     pb.Operation.SerializeToString),
                "GetBatch": unary("GetBatch", self._get_batch, t.GetBatchRequest.deserialize, t.Batch.serialize),
                "ListBatches": unary("ListBatches", self._list_batches, t.ListBatchesRequest.deserialize,
                                     t.ListBatchesResponse.serialize),
                "DeleteBatch": unary("DeleteBatch", self._delete_batch, t.DeleteBatchRequest.deserialize,
                                     empty_pb2.Empty.SerializeToString),
            }),
            grpc.method_handlers_generic_handler(_OPERATIONS, {
                "GetOperation": unary("GetOperation", self._get_operation, pb.GetOperationRequest.FromString,
                                      pb.Operation.SerializeToString),
                "CancelOperation": unary("CancelOperation", self._cancel_operation,
                                         pb.CancelOperationRequest.FromString, empty_pb2.Empty.SerializeToString),
            }),
        ]

    def _take_fault(self, method: str, request: Any) -> _Fault | None:
        project = _project_of(request)
        now = time.monotonic()
        with self._lock:
            self.calls[method] = self.calls.get(method, 0) + 1
            self.calls_by_project[(method, project)] = self.calls_by_project.get((method, project), 0) + 1
            for fault in list(self._faults):
                if fault.until is not None and now > fault.until:
                    self._faults.remove(fault)
                    continue
                if fault.method != method or (fault.project and fault.project != project):
                    continue
                if fault.until is None and fault.times > 0:
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                return fault
        return None

    def _park(self, method: str, phase: str, request: Any, context: grpc.ServicerContext) -> None:
        project = _project_of(request)
        with self._lock:
            rule = next((r for r in self._hold_rules if r[0] == method and r[1] == phase
                         and (r[2] is None or r[2] == project)), None)
            if rule is None:
                return
            self._hold_rules.remove(rule)
            self._hold_ids += 1
            held = {"id": self._hold_ids, "method": method, "phase": phase, "project": project,
                    "context": context, "event": threading.Event(), "abandon": False}
            self._held.append(held)
        held["event"].wait(600)
        if held["abandon"]:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"emulated: the held {method} was abandoned")

    def _wrap(self, method: str, fn: Callable[[Any], Any]) -> Callable[[Any, grpc.ServicerContext], Any]:
        def handler(request: Any, context: grpc.ServicerContext) -> Any:
            fault = self._take_fault(method, request)
            if fault and fault.delay:
                time.sleep(fault.delay)
            if fault and fault.mode == "before":
                context.abort(getattr(grpc.StatusCode, fault.code), f"emulated {fault.code} (before the work)")
            self._park(method, "before", request, context)
            try:
                reply = fn(request)
            except RpcError as err:
                context.abort(getattr(grpc.StatusCode, err.code), err.message)
            self._park(method, "after", request, context)
            if fault and fault.mode == "after":  # the work is done, the reply is lost
                context.abort(getattr(grpc.StatusCode, fault.code), f"emulated {fault.code} (the reply was lost)")
            if fault and fault.mode == "garbage":
                return GARBAGE
            if fault and fault.mode == "unknown":
                self._report_unknown(reply)
            return reply

        return handler

    def _unary(self, method: str, fn: Callable[[Any], Any], req: Any, resp: Any) -> grpc.RpcMethodHandler:
        """``method``'s handler: ``fn`` under the faults and holds; a ``bytes`` reply is sent as it is (garbage)."""
        return grpc.unary_unary_rpc_method_handler(
            self._wrap(method, fn), request_deserializer=req,
            response_serializer=lambda reply: reply if isinstance(reply, bytes) else resp(reply))

    def _report_unknown(self, reply: Any) -> None:
        """Make ``reply`` report a state the durable table does not list (the "unknown" fault)."""
        if isinstance(reply, t.Job):
            reply.status.state = t.JobStatus.State.STATE_UNSPECIFIED  # type: ignore[assignment]
        elif isinstance(reply, t.Batch):
            reply.state = t.Batch.State.STATE_UNSPECIFIED  # type: ignore[assignment]

    def _submit_job(self, req: t.SubmitJobRequest) -> t.Job:
        return self.model.submit_job(req.project_id, req.region, req.job, req.request_id)

    def _get_job(self, req: t.GetJobRequest) -> t.Job:
        with self.model.lock:
            return self.model.job_view(self.model.job(req.project_id, req.region, req.job_id))

    def _list_jobs(self, req: t.ListJobsRequest) -> t.ListJobsResponse:
        jobs = self.model.list_jobs(req.project_id, req.region, req.job_state_matcher.name, req.filter)
        page, token = one_page(jobs, req.page_token, req.page_size or 100)
        return t.ListJobsResponse(jobs=page, next_page_token=token)

    def _cancel_job(self, req: t.CancelJobRequest) -> t.Job:
        return self.model.cancel_job(req.project_id, req.region, req.job_id)

    def _create_batch(self, req: t.CreateBatchRequest) -> operations_pb2.Operation:
        item = self.model.create_batch(req.parent, req.batch, req.batch_id, req.request_id)
        return self._operation(item)

    def _operation(self, item: Workload) -> operations_pb2.Operation:
        with self.model.lock:
            batch = self.model.batch_view(item)
        meta = t.BatchOperationMetadata(batch=batch.name, batch_uuid=batch.uuid,
                                        operation_type=t.BatchOperationMetadata.BatchOperationType.BATCH)
        op = operations_pb2.Operation(name=item.operation)
        op.metadata.CopyFrom(_pack(t.BatchOperationMetadata.pb(meta)))
        state = batch.state.name
        if state in ("SUCCEEDED", "FAILED", "CANCELLED"):
            op.done = True
            if state == "SUCCEEDED":
                op.response.CopyFrom(_pack(t.Batch.pb(batch)))
            else:
                op.error.code = 1 if state == "CANCELLED" else 13  # CANCELLED / INTERNAL (google.rpc.Code)
                op.error.message = f"Batch {batch.name} {state.lower()}"
        return op

    def _get_batch(self, req: t.GetBatchRequest) -> t.Batch:
        with self.model.lock:
            return self.model.batch_view(self.model.batch(req.name))

    def _list_batches(self, req: t.ListBatchesRequest) -> t.ListBatchesResponse:
        batches = self.model.list_batches(req.parent, req.filter)
        page, token = one_page(batches, req.page_token, min(req.page_size or 20, 1000))
        return t.ListBatchesResponse(batches=page, next_page_token=token)

    def _delete_batch(self, req: t.DeleteBatchRequest) -> empty_pb2.Empty:
        self.model.delete_batch(req.name)
        return empty_pb2.Empty()

    def _operation_item(self, name: str) -> Any:
        """The workload a long-running operation is about."""
        return get_or_not_found(self.model.operations, name, f"Operation {name} not found")

    def _get_operation(self, req: operations_pb2.GetOperationRequest) -> operations_pb2.Operation:
        return self._operation(self._operation_item(req.name))

    def _cancel_operation(self, req: operations_pb2.CancelOperationRequest) -> empty_pb2.Empty:
        self.model.cancel_batch(self._operation_item(req.name))
        return empty_pb2.Empty()


class OneKindEmulator(DataprocEmulator):
    """The machinery above over a model of one kind of workload, kept by resource name (a
    ``NamedWorkloadModel``: Cloud Batch's jobs, Cloud Run's executions); a control's ``kind`` is not read."""

    model: Any  # a NamedWorkloadModel
    model_class: ClassVar[type[NamedWorkloadModel]]
    #: The RPC that creates a workload, as the ledger names it (what ``created`` counts).
    create_op: ClassVar[str] = ""

    def __init__(self, *, run_seconds: float = 1.0) -> None:
        super().__init__(run_seconds=run_seconds)
        self.model = self.model_class(run_seconds=run_seconds)

    def forget(self, kind: str, ident: str) -> None:
        """The workload vanishes (deleted): later reads answer NOT_FOUND."""
        self.model.forget(ident)

    def finish_project(self, project: str, state: str = "SUCCEEDED", kind: str = "job") -> None:
        with self.model.lock:
            for item in self.model.jobs.values():
                if item.project == project:
                    item.forced = state

    def created(self, kind: str = "") -> int:
        return sum(1 for e in self.ledger() if e["op"] == self.create_op and e.get("created"))

    def job_states(self) -> dict[str, str]:
        """Every workload (by its id) and its state."""
        with self.model.lock:
            return {v.id: self.model.state_of(v) for v in self.model.jobs.values()}


#: A reply that is not the message the client expects (a proxy's page, a truncated frame).
GARBAGE = b"\xff\xff\xff\xffnot a protobuf message"


@dataclass
class _Fault:
    method: str
    code: str
    mode: str
    times: int
    delay: float
    until: float | None
    project: str | None


def one_page(items: list[Any], page_token: str, size: int) -> tuple[list[Any], str]:
    """The page a ``List*`` call asks for (its token: where the page starts) and the next page's token ('' after
    the last)."""
    start = int(page_token or 0)
    return items[start:start + size], str(start + size) if start + size < len(items) else ""


def _project_of(request: Any) -> str:
    """The project a request is for (``project_id``, or the ``projects/<p>/...`` of a name or parent)."""
    project = getattr(request, "project_id", "") or ""
    if project:
        return str(project)
    for attr in ("name", "parent"):
        value = str(getattr(request, attr, "") or "")
        if value.startswith("projects/"):
            return value.split("/")[1]
    return ""


def _pack(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


# -------------------------------------------------------------------- routing the official hooks
def route_hooks(address: str) -> contextlib.AbstractContextManager[None]:
    """``DataprocHook`` / ``DataprocAsyncHook`` build their clients over an insecure channel to ``address``."""
    return routed(_install, address)


def route_from_env() -> None:
    """Route for the whole process when ``DURABLE_JOBS_DATAPROC_EMULATOR_ADDRESS`` is set (crash stack)."""
    install_from_env(_install, ROUTE_ENV)


def _install(address: str) -> list[tuple[Any, str, Any]]:
    from airflow.providers.google.cloud.hooks import dataproc as hooks
    from google.cloud import dataproc_v1 as d
    from google.cloud.dataproc_v1.services.batch_controller.transports import (
        BatchControllerGrpcAsyncIOTransport,
        BatchControllerGrpcTransport,
    )
    from google.cloud.dataproc_v1.services.job_controller.transports import (
        JobControllerGrpcAsyncIOTransport,
        JobControllerGrpcTransport,
    )
    from google.cloud.dataproc_v1.services.workflow_template_service.transports import (
        WorkflowTemplateServiceGrpcAsyncIOTransport,
    )

    sync_hook, async_hook = hooks.DataprocHook, hooks.DataprocAsyncHook

    def sync_factory(client_cls: Any, transport_cls: Any) -> Callable[..., Any]:
        def get(self: Any, region: str | None = None) -> Any:
            self.get_credentials()  # the connection's credentials are resolved as the official hook does
            return insecure_client(client_cls, transport_cls, address, hooks.CLIENT_INFO)
        return get

    def async_factory(client_cls: Any, transport_cls: Any, cache: str | None) -> Callable[..., Any]:
        async def get(self: Any, region: str | None = None) -> Any:
            if cache and getattr(self, cache, None) is not None:
                return getattr(self, cache)
            sync = await self.get_sync_hook()
            sync.get_credentials()
            client = insecure_client(client_cls, transport_cls, address, hooks.CLIENT_INFO, aio=True)
            if cache:
                setattr(self, cache, client)
            return client
        return get

    return replace([
        (sync_hook, "get_job_client", sync_factory(d.JobControllerClient, JobControllerGrpcTransport)),
        (sync_hook, "get_batch_client", sync_factory(d.BatchControllerClient, BatchControllerGrpcTransport)),
        (async_hook, "get_job_client", async_factory(d.JobControllerAsyncClient, JobControllerGrpcAsyncIOTransport,
                                                     "_cached_client")),
        (async_hook, "get_batch_client", async_factory(d.BatchControllerAsyncClient,
                                                       BatchControllerGrpcAsyncIOTransport, "_cached_batch_client")),
        (async_hook, "get_template_client", async_factory(d.WorkflowTemplateServiceAsyncClient,
                                                          WorkflowTemplateServiceGrpcAsyncIOTransport, None)),
    ])


__all__ = ["PROJECT", "REGION", "ROUTE_ENV", "DataprocEmulator", "route_from_env", "route_hooks"]

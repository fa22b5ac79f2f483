"""A loopback emulator of Cloud Run Admin API v2's ``Jobs`` and ``Executions`` services over gRPC (and the
long-running operations ``RunJob`` and ``CancelExecution`` return), for the real ``google-cloud-run`` clients that
the official ``CloudRunHook`` / ``CloudRunAsyncHook`` build::

    with CloudRunEmulator() as emu, emu.routed():          # CloudRunHook's clients now reach 127.0.0.1
        os.environ.update(emu.airflow_conn_env())          # AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT: is_anonymous
        emu.add_job("nightly")                              # a Cloud Run job to execute
        CloudRunHook().execute_job(job_name="nightly", region="europe-west1", project_id="emulator-project")
        assert emu.created() == 1

Where the hooks send their calls: ``CloudRunHook.get_conn`` / ``CloudRunAsyncHook.get_conn`` (google 22.8) build
``JobsClient`` / ``JobsAsyncClient`` over TLS to ``run.googleapis.com`` (or ``<region>-run.googleapis.com`` with
``use_regional_endpoint``); no connection extra names another host. :meth:`routed` (and :func:`route_hooks`)
replace those two methods by the same clients over an insecure channel to ``127.0.0.1:<port>``, after resolving
the connection's credentials as the hook does (a ``transport="rest"`` hook is routed to gRPC too: the emulator
speaks gRPC only). The durable client builds its ``ExecutionsClient`` on the channel of the hook's
``JobsClient``, so it reaches the emulator with no routing of its own. The crash stack's Airflow processes get
the same from ``tests/crash/vendor_route/sitecustomize.py`` (:func:`route_from_env`).

The fault and hold machinery is the Dataproc emulator's, reused by subclassing; only the model
(``durable_jobs.testing.emulators._cloud_run_model``) and the RPCs differ. The rules, each quoted from Google's
documentation, are in ``docs/emulators/cloud_run.md``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import grpc
from google.cloud.run_v2 import types as t
from google.longrunning import operations_pb2
from google.protobuf import empty_pb2

from durable_jobs.testing.emulators._cloud_run_model import TERMINAL, CloudRunModel, RunExecution
from durable_jobs.testing.emulators._grpc_routing import insecure_client, install_from_env, replace, routed
from durable_jobs.testing.emulators.dataproc import OneKindEmulator, _pack, one_page

PROJECT = "emulator-project"
REGION = "europe-west1"
#: The environment variable :func:`route_from_env` reads (``127.0.0.1:<port>``).
ROUTE_ENV = "DURABLE_JOBS_CLOUD_RUN_EMULATOR_ADDRESS"
_JOBS = "google.cloud.run.v2.Jobs"
_EXECUTIONS = "google.cloud.run.v2.Executions"
_OPERATIONS = "google.longrunning.Operations"


class CloudRunEmulator(OneKindEmulator):
    """The server: start/stop (or a ``with`` block), its address, jobs, faults, holds and the ledger."""

    model_class = CloudRunModel
    create_op = "RunJob"

    def __enter__(self) -> CloudRunEmulator:
        self.start()
        return self

    @contextlib.contextmanager
    def routed(self) -> Iterator[CloudRunEmulator]:
        """Send every ``CloudRunHook``'s and ``CloudRunAsyncHook``'s calls here while the block runs."""
        with route_hooks(self.address):
            yield self

    # ---------------------------------------------------------------- test controls (Cloud Run's model)
    def add_job(self, job: str, *, project: str = PROJECT, region: str = REGION, task_count: int = 1,
                env: dict[str, str] | None = None, containers: list[dict[str, Any]] | None = None) -> str:
        """Define the Cloud Run job ``job`` (its one container gets ``env``); returns its resource name."""
        name = f"projects/{project}/locations/{region}/jobs/{job}"
        spec = containers or [{"image": "us-docker.pkg.dev/cloudrun/container/job:latest",
                               "env": [{"name": k, "value": v} for k, v in (env or {}).items()]}]
        self.model.add_job(name, t.ExecutionTemplate(task_count=task_count, template={"containers": spec}))
        return name

    def set_list_lag(self, seconds: float, project: str = "") -> None:
        """A new execution is listed by ``ListExecutions`` only ``seconds`` after ``RunJob`` made it (Google does
        not say how soon it is: this is the window the durable operator's ``find`` has to cover)."""
        with self.model.lock:
            self.model.list_lag[project] = seconds

    def execution_keys(self) -> dict[str, str]:
        """Every execution (by its id) and the ``DURABLE_JOBS_KEY`` in its template ('' when none)."""
        with self.model.lock:
            return {v.id: v.key for v in self.model.jobs.values()}

    # ---------------------------------------------------------------- the RPCs
    def _handlers(self) -> list[grpc.GenericRpcHandler]:
        unary = self._unary
        pb = operations_pb2
        return [
            grpc.method_handlers_generic_handler(_JOBS, {
                "RunJob": unary("RunJob", self._run_job, t.RunJobRequest.deserialize, pb.Operation.SerializeToString),
                "GetJob": unary("GetJob", self._get_job, t.GetJobRequest.deserialize, t.Job.serialize),
            }),
            grpc.method_handlers_generic_handler(_EXECUTIONS, {
                "GetExecution": unary("GetExecution", self._get_execution, t.GetExecutionRequest.deserialize,
                                      t.Execution.serialize),
                "ListExecutions": unary("ListExecutions", self._list_executions,
                                        t.ListExecutionsRequest.deserialize, t.ListExecutionsResponse.serialize),
                "CancelExecution": unary("CancelExecution", self._cancel_execution,
                                         t.CancelExecutionRequest.deserialize, pb.Operation.SerializeToString),
                "DeleteExecution": unary("DeleteExecution", self._delete_execution,
                                         t.DeleteExecutionRequest.deserialize, pb.Operation.SerializeToString),
            }),
            grpc.method_handlers_generic_handler(_OPERATIONS, {
                "GetOperation": unary("GetOperation", self._get_operation, pb.GetOperationRequest.FromString,
                                      pb.Operation.SerializeToString),
                "DeleteOperation": unary("DeleteOperation", self._delete_operation,
                                         pb.DeleteOperationRequest.FromString, empty_pb2.Empty.SerializeToString),
            }),
        ]

    def _report_unknown(self, reply: Any) -> None:
        if isinstance(reply, t.Execution):
            # an execution that reports a completion time but no task outcome at all: no state we know
            reply.succeeded_count = reply.failed_count = reply.cancelled_count = 0
            reply.running_count = 0
            reply.completion_time = reply.create_time

    def _run_job(self, req: t.RunJobRequest) -> operations_pb2.Operation:
        return self._run_operation(self.model.run_job(req))

    def _run_operation(self, item: RunExecution) -> operations_pb2.Operation:
        """``RunJob``'s operation: its metadata and (when done) its response are the Execution. A failed
        execution ends it with an error; a cancelled one with the Execution as response (its counts say it)."""
        with self.model.lock:
            execution = self.model.view(item)
            state = self.model.state_of(item)
        op = operations_pb2.Operation(name=item.operation)
        op.metadata.CopyFrom(_pack(t.Execution.pb(execution)))
        if state in TERMINAL:
            op.done = True
            if state == "FAILED":
                op.error.code = 9  # FAILED_PRECONDITION (google.rpc.Code): silent, see the contract
                op.error.message = (f"Execution {item.id} failed: {execution.failed_count} of "
                                    f"{execution.task_count} tasks failed")
            else:
                op.response.CopyFrom(_pack(t.Execution.pb(execution)))
        return op

    def _get_job(self, req: t.GetJobRequest) -> t.Job:
        return self.model.get_job(req.name)

    def _get_execution(self, req: t.GetExecutionRequest) -> t.Execution:
        return self.model.get_execution(req.name)

    def _list_executions(self, req: t.ListExecutionsRequest) -> t.ListExecutionsResponse:
        page, token = one_page(self.model.list_executions(req.parent), req.page_token, req.page_size or 100)
        return t.ListExecutionsResponse(executions=page, next_page_token=token)

    def _cancel_execution(self, req: t.CancelExecutionRequest) -> operations_pb2.Operation:
        item = self.model.cancel_execution(req.name)
        return self._done_operation(item, "cancel")

    def _delete_execution(self, req: t.DeleteExecutionRequest) -> operations_pb2.Operation:
        return self._done_operation(self.model.delete_execution(req.name), "delete")

    def _done_operation(self, item: RunExecution, verb: str) -> operations_pb2.Operation:
        """The operation a cancel or delete starts, reported done at once with the Execution (its effect, the
        tasks' end, still takes its time)."""
        with self.model.lock:
            execution = self.model.view(item)
        op = operations_pb2.Operation(name=f"{item.operation}-{verb}", done=True)
        op.metadata.CopyFrom(_pack(t.Execution.pb(execution)))
        op.response.CopyFrom(_pack(t.Execution.pb(execution)))
        return op

    def _get_operation(self, req: operations_pb2.GetOperationRequest) -> operations_pb2.Operation:
        return self._run_operation(self._operation_item(req.name))

    def _delete_operation(self, req: operations_pb2.DeleteOperationRequest) -> empty_pb2.Empty:
        self.model.operations.pop(req.name, None)
        return empty_pb2.Empty()


# -------------------------------------------------------------------- routing the official hooks
def route_hooks(address: str) -> contextlib.AbstractContextManager[None]:
    """``CloudRunHook`` / ``CloudRunAsyncHook`` build their clients over an insecure channel to ``address``."""
    return routed(_install, address)


def route_from_env() -> None:
    """Route for the whole process when ``DURABLE_JOBS_CLOUD_RUN_EMULATOR_ADDRESS`` is set (crash stack)."""
    install_from_env(_install, ROUTE_ENV)


def _install(address: str) -> list[tuple[Any, str, Any]]:
    from airflow.providers.google.cloud.hooks import cloud_run as hooks
    from google.cloud.run_v2 import JobsAsyncClient, JobsClient
    from google.cloud.run_v2.services.jobs.transports import JobsGrpcAsyncIOTransport, JobsGrpcTransport

    def sync_get_conn(self: Any, location: str | None = None, use_regional_endpoint: bool | None = False) -> Any:
        if self._client is None:
            self.get_credentials()  # the connection's credentials are resolved as the official hook does
            self._client = insecure_client(JobsClient, JobsGrpcTransport, address, hooks.CLIENT_INFO)
        return self._client

    async def async_get_conn(self: Any, location: str | None = None,
                             use_regional_endpoint: bool | None = False) -> Any:
        if self._client is None:
            sync = await self.get_sync_hook()
            sync.get_credentials()
            self._client = insecure_client(JobsAsyncClient, JobsGrpcAsyncIOTransport, address, hooks.CLIENT_INFO,
                                           aio=True)
        return self._client

    return replace([(hooks.CloudRunHook, "get_conn", sync_get_conn),
                    (hooks.CloudRunAsyncHook, "get_conn", async_get_conn)])


__all__ = ["PROJECT", "REGION", "ROUTE_ENV", "CloudRunEmulator", "route_from_env", "route_hooks"]

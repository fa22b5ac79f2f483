"""A loopback emulator of Cloud Batch's ``BatchService`` (v1) over gRPC, for the real ``google-cloud-batch``
clients that the official ``CloudBatchHook`` / ``CloudBatchAsyncHook`` build::

    with CloudBatchEmulator() as emu, emu.routed():       # CloudBatchHook's clients now reach 127.0.0.1
        os.environ.update(emu.airflow_conn_env())         # AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT: is_anonymous
        CloudBatchHook().submit_batch_job(job_name="j1", job={...}, region="europe-west1",
                                          project_id="emulator-project")
        assert emu.created() == 1

Where the hooks send their calls: ``CloudBatchHook.get_conn`` / ``CloudBatchAsyncHook.get_conn`` (google 22.8)
build ``BatchServiceClient(credentials=..., client_info=..., client_options=self.get_client_options())`` over
TLS to ``batch.googleapis.com``; no connection extra names another host. :meth:`routed` (and
:func:`route_hooks`) replace those two ``get_conn`` methods by the same clients over an insecure channel to
``127.0.0.1:<port>``, after resolving the connection's credentials as the hook does. Request building, the
clients' retries and error mapping stay the official code. The crash stack's Airflow processes get the same from
``tests/crash/vendor_route/sitecustomize.py`` (:func:`route_from_env`).

The fault and hold machinery (``inject``, ``add_hold``, ``holds``, ``release``, per-project counters) is the
Dataproc emulator's, reused by subclassing: only the model (``durable_jobs.testing.emulators._cloud_batch_model``) and
the RPCs differ. The rules the model follows, each quoted from Google's documentation, are in
``docs/emulators/cloud_batch.md``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import grpc
from google.cloud.batch_v1 import types as t
from google.longrunning import operations_pb2

from durable_jobs.testing.emulators._cloud_batch_model import CloudBatchModel
from durable_jobs.testing.emulators._grpc_routing import insecure_client, install_from_env, replace, routed
from durable_jobs.testing.emulators.dataproc import OneKindEmulator

PROJECT = "emulator-project"
REGION = "europe-west1"
#: The environment variable :func:`route_from_env` reads (``127.0.0.1:<port>``).
ROUTE_ENV = "DURABLE_JOBS_CLOUD_BATCH_EMULATOR_ADDRESS"
_SERVICE = "google.cloud.batch.v1.BatchService"
_OPERATIONS = "google.longrunning.Operations"


class CloudBatchEmulator(OneKindEmulator):
    """The server: start/stop (or a ``with`` block), its address, faults, holds and the ledger."""

    model_class = CloudBatchModel
    create_op = "CreateJob"

    @contextlib.contextmanager
    def routed(self) -> Iterator[CloudBatchEmulator]:
        """Send every ``CloudBatchHook``'s and ``CloudBatchAsyncHook``'s calls here while the block runs."""
        with route_hooks(self.address):
            yield self

    # ---------------------------------------------------------------- the RPCs
    def _handlers(self) -> list[grpc.GenericRpcHandler]:
        unary = self._unary
        pb = operations_pb2
        return [
            grpc.method_handlers_generic_handler(_SERVICE, {
                "CreateJob": unary("CreateJob", self._create_job, t.CreateJobRequest.deserialize, t.Job.serialize),
                "GetJob": unary("GetJob", self._get_job, t.GetJobRequest.deserialize, t.Job.serialize),
                "CancelJob": unary("CancelJob", self._cancel_job, t.CancelJobRequest.deserialize,
                                   pb.Operation.SerializeToString),
                "DeleteJob": unary("DeleteJob", self._delete_job, t.DeleteJobRequest.deserialize,
                                   pb.Operation.SerializeToString),
            }),
            grpc.method_handlers_generic_handler(_OPERATIONS, {
                "GetOperation": unary("GetOperation", self._get_operation, pb.GetOperationRequest.FromString,
                                      pb.Operation.SerializeToString),
            }),
        ]

    def _report_unknown(self, reply: Any) -> None:
        if isinstance(reply, t.Job):
            reply.status.state = t.JobStatus.State.STATE_UNSPECIFIED  # type: ignore[assignment]

    def _create_job(self, req: t.CreateJobRequest) -> t.Job:
        return self.model.create_job(req.parent, req.job, req.job_id, req.request_id)

    def _get_job(self, req: t.GetJobRequest) -> t.Job:
        return self.model.get_job(req.name)

    def _cancel_job(self, req: t.CancelJobRequest) -> operations_pb2.Operation:
        return self._done_operation(self.model.cancel_job(req.name), "cancel")

    def _delete_job(self, req: t.DeleteJobRequest) -> operations_pb2.Operation:
        return self._done_operation(self.model.delete_job(req.name), "delete")

    def _done_operation(self, name: str, verb: str) -> operations_pb2.Operation:
        """The operation a cancel or delete starts; the emulator reports it done at once (its effect, the job's
        state, still takes its time)."""
        op = operations_pb2.Operation(name=f"{name.rsplit('/jobs/', 1)[0]}/operations/{verb}-{time.monotonic_ns()}",
                                      done=True)
        return op

    def _get_operation(self, req: operations_pb2.GetOperationRequest) -> operations_pb2.Operation:
        return operations_pb2.Operation(name=req.name, done=True)


# -------------------------------------------------------------------- routing the official hooks
def route_hooks(address: str) -> contextlib.AbstractContextManager[None]:
    """``CloudBatchHook`` / ``CloudBatchAsyncHook`` build their clients over an insecure channel to ``address``."""
    return routed(_install, address)


def route_from_env() -> None:
    """Route for the whole process when ``DURABLE_JOBS_CLOUD_BATCH_EMULATOR_ADDRESS`` is set (crash stack)."""
    install_from_env(_install, ROUTE_ENV)


def _install(address: str) -> list[tuple[Any, str, Any]]:
    from airflow.providers.google.cloud.hooks import cloud_batch as hooks
    from google.cloud.batch_v1 import BatchServiceAsyncClient, BatchServiceClient
    from google.cloud.batch_v1.services.batch_service.transports import (
        BatchServiceGrpcAsyncIOTransport,
        BatchServiceGrpcTransport,
    )

    def sync_get_conn(self: Any) -> Any:
        if self._client is None:
            self.get_credentials()  # the connection's credentials are resolved as the official hook does
            self._client = insecure_client(BatchServiceClient, BatchServiceGrpcTransport, address, hooks.CLIENT_INFO)
        return self._client

    def async_get_conn(self: Any) -> Any:
        if self._client is None:
            self.get_credentials()
            self._client = insecure_client(BatchServiceAsyncClient, BatchServiceGrpcAsyncIOTransport, address,
                                           hooks.CLIENT_INFO, aio=True)
        return self._client

    return replace([(hooks.CloudBatchHook, "get_conn", sync_get_conn),
                    (hooks.CloudBatchAsyncHook, "get_conn", async_get_conn)])


__all__ = ["PROJECT", "REGION", "ROUTE_ENV", "CloudBatchEmulator", "route_from_env", "route_hooks"]

"""The gRPC face of the Dataflow emulator: ``JobsV1Beta3.GetJob``, which the official deferrable trigger polls.

google 22.8's ``TemplateJobStartTrigger`` reads a job's state with ``AsyncDataflowHook.get_job_status``:
``JobsV1Beta3AsyncClient(credentials=..., client_options=sync_hook.get_client_options()).get_job(GetJobRequest(
project_id, job_id, view=JOB_VIEW_SUMMARY, location))`` (google-cloud-dataflow-client), over TLS to
``dataflow.googleapis.com``. This server answers ``GetJob`` from the same :class:`DataflowModel` the REST face
serves (the same jobs, clocks and per-project call counts: a ``GetJob`` counts as ``jobs/get``), so a job launched
over REST is read over gRPC as Google's two surfaces of one API would read it. Only ``GetJob``: the trigger calls
nothing else over gRPC (its cancel, ``on_kill``, goes through the synchronous REST hook). Faults and holds are not
applied here (the crash and fault suites arm them on the REST routes); a missing job answers ``NOT_FOUND``, as
``jobs.get`` answers 404.

:func:`install` routes ``AsyncDataflowHook.initialize_client``: the same client class, built over an insecure
channel to the emulator instead of Google's endpoint (the connection's credentials are still resolved as the
official hook resolves them). Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from concurrent import futures
from typing import Any

import grpc

from durable_jobs.testing.emulators._dataflow_model import DataflowModel
from durable_jobs.testing.emulators._grpc_routing import replace
from durable_jobs.testing.emulators._http import ApiError

SERVICE = "google.dataflow.v1beta3.JobsV1Beta3"


def _job_message(resource: dict[str, Any]) -> Any:
    """The REST resource as the v1beta3 ``Job`` message (the fields the trigger and ``get_job`` read)."""
    from google.cloud.dataflow_v1beta3 import Job, JobState, JobType

    return Job(id=resource["id"], project_id=resource["projectId"], location=resource["location"],
               name=resource["name"], type_=getattr(JobType, resource["type"]),
               # a state forced by a test that the enum lacks reads as JOB_STATE_UNKNOWN (what the enum offers)
               current_state=getattr(JobState, resource["currentState"], JobState.JOB_STATE_UNKNOWN))


class DataflowGrpcServer:
    """``JobsV1Beta3.GetJob`` on 127.0.0.1 (port 0 picks a free one), over ``model``."""

    def __init__(self, model: DataflowModel, host: str = "127.0.0.1"):
        self.model, self.host = model, host
        self._server: grpc.Server | None = None
        self.port = 0

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> DataflowGrpcServer:
        from google.cloud.dataflow_v1beta3 import GetJobRequest, Job

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, {
            "GetJob": grpc.unary_unary_rpc_method_handler(self._get_job, request_deserializer=GetJobRequest.deserialize,
                                                          response_serializer=Job.serialize),
        })])
        self.port = server.add_insecure_port(f"{self.host}:0")
        server.start()
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=0).wait(5)
            self._server = None

    def _get_job(self, request: Any, context: grpc.ServicerContext) -> Any:
        model = self.model
        with model.lock:
            model.calls["jobs/get"] += 1
            model.calls[f"{request.project_id}/jobs/get"] += 1
            model.calls["grpc/GetJob"] += 1
        try:
            resource = model.get(request.project_id, request.location, request.job_id)
        except ApiError as err:
            code = grpc.StatusCode.NOT_FOUND if err.status == 404 else grpc.StatusCode.INVALID_ARGUMENT
            context.abort(code, err.message)
        return _job_message(resource)


def install(address: str) -> list[tuple[Any, str, Any]]:
    """``AsyncDataflowHook.initialize_client`` builds its client over an insecure channel to ``address``."""
    from airflow.providers.google.cloud.hooks import dataflow as hooks

    async def initialize_client(self: Any, client_class: Any) -> Any:
        sync_hook = await self.get_sync_hook()
        sync_hook.get_credentials()  # resolved as the official hook does (the connection's is_anonymous)
        transport_class = client_class.get_transport_class("grpc_asyncio")
        return client_class(transport=transport_class(channel=grpc.aio.insecure_channel(address)))

    return replace([(hooks.AsyncDataflowHook, "initialize_client", initialize_client)])

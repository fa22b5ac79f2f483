"""Cloud Run job executions through the official ``CloudRunHook`` / ``CloudRunAsyncHook`` (gRPC ``Jobs``) and the
``Executions`` service on the same channel.

Idempotency: Cloud Run has none to offer. ``RunJob`` ("Triggers creation of a new Execution of this Job") takes
no request id, and an execution's id is chosen by Cloud Run, so a resend after a lost reply, or a retry after a
crash, starts a second execution. What a caller *can* put into the execution is its ``overrides``: "Overrides
specification for a given execution of a job. If provided, overrides will be applied to update the execution or
task spec."; a container override's ``env`` "will be
merged with existing env for override". So the epoch's key rides in the execution as the container environment
variable ``DURABLE_JOBS_KEY`` (merged with the user's own ``overrides``), and an execution whose fate is unknown is
found by listing the job's executions (``ListExecutions``: "Results are sorted by creation time, descending") and
reading each one's ``template`` ("The template used to create tasks for this execution") for that variable.

The window that stays open: Google does not say how soon an execution ``RunJob`` accepted shows in
``ListExecutions``. As for the AWS listings, an empty listing is not taken as proof of absence until
``[durable_jobs] cloud_run_list_consistency_seconds`` (default 15 s) have passed since the submit attempt (after a
crash: since the intent was written); ``find`` re-scans until then. An execution listed later than that is not
found, and the retry runs a second one: the crash suite's ``CLOUD-RUN-LIST-LAG`` row measures exactly that.
Why not the other carriers: labels and annotations cannot be overridden per execution (``Overrides`` has
container overrides, ``task_count`` and ``timeout`` only); args would change the user's command line.

What Google does not document, and the side taken: the error ``CancelExecution`` answers for an execution that
already ended (logged, not raised); which container a nameless container override targets (we name none when
the user gave no container override, taking it to reach the job's only container in the usual one-container job:
an assumption, modelled so by the emulator and to be confirmed against Cloud Run; a multi-container job should name
its container in ``overrides``, and the key then rides in that override); whether an ended execution's ``RunJob``
operation carries an error or a response (the official trigger reads both; we read the Execution itself).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, ClassVar, Literal

from durable_jobs.core.faults import UnreadableReplyError, cap
from durable_jobs.core.listing import scan_until_consistent
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.google.cloud.clients.base import GoogleRegionalClient, listing_consistency_seconds

log = logging.getLogger(__name__)

#: An execution has no state field: its phase is read from ``completion_time`` and the task counts, as the
#: official operator reads them (``_fail_if_execution_failed``): not complete -> PENDING (no task started) or
#: RUNNING; complete with every task succeeded -> SUCCEEDED; a failed task -> FAILED; tasks cancelled (or not
#: all tasks finished) -> CANCELLED / FAILED.
EXECUTION_STATES = StateTable(
    vendor="Cloud Run execution",
    active=frozenset({"PENDING", "RUNNING"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"FAILED", "CANCELLED"}),
)
#: The container environment variable that carries the epoch's key into the execution.
KEY_ENV = "DURABLE_JOBS_KEY"
#: How far before ``since`` a listing is searched (clock skew between us and Google).
CLOCK_SKEW = timedelta(minutes=5)


def with_key(overrides: Any, key: str) -> dict[str, Any]:
    """The user's ``overrides`` (a dict or a ``RunJobRequest.Overrides``) with ``DURABLE_JOBS_KEY=<key>`` merged
    into the first container override (a nameless one is added when the user gave none); nothing else changes."""
    from google.cloud.run_v2 import RunJobRequest

    if overrides is None:
        merged: dict[str, Any] = {}
    elif isinstance(overrides, Mapping):
        merged = copy.deepcopy(dict(overrides))
    else:
        merged = RunJobRequest.Overrides.to_dict(overrides, preserving_proto_field_name=True)
    containers = list(merged.get("container_overrides") or [])
    first = dict(containers[0]) if containers else {}
    env = [e for e in (first.get("env") or []) if _env_name(e) != KEY_ENV]
    first["env"] = [*env, {"name": KEY_ENV, "value": key}]
    merged["container_overrides"] = [first, *containers[1:]]
    return merged


def _env_name(var: Any) -> str:
    return str(var.get("name") if isinstance(var, Mapping) else getattr(var, "name", ""))


def key_of(execution: Any) -> str | None:
    """The ``DURABLE_JOBS_KEY`` in an execution's template, if any container has it."""
    for container in execution.template.containers:
        for var in container.env:
            if var.name == KEY_ENV:
                return str(var.value)
    return None


class CloudRunJobClient(GoogleRegionalClient):
    """``RunJob`` with the key in the overrides; ``GetExecution`` for its state; ``ListExecutions`` to find it;
    ``CancelExecution`` on a user's kill. The external id is the execution's resource name."""

    vendor: ClassVar[str] = "Cloud Run"
    states: ClassVar[StateTable] = EXECUTION_STATES
    status_endpoint: ClassVar[str] = "Executions.GetExecution"
    #: The key rides in an environment override; Google's "Execute jobs" page: "to override job
    #: configurations ...: Cloud Run Developer (roles/run.developer) on the Cloud Run job" (Invoker executes only).
    submit_permissions: ClassVar[str] = (
        "Cloud Run Developer (roles/run.developer) on the job, not only Cloud Run Invoker: the idempotency key "
        "rides in an environment override, and Google requires the Developer role to override job configurations"
    )
    region_hint = "the Cloud Run location of the job (for example 'us-central1')"

    def __init__(self, gcp_conn_id: str = "google_cloud_default", *, region: str, job_name: str,
                 project_id: str | None = None, impersonation_chain: str | list[str] | None = None,
                 use_regional_endpoint: bool = False, transport: Literal["rest", "grpc"] | None = None,
                 timeout: float | None = None, consistency_seconds: float | None = None) -> None:
        super().__init__(gcp_conn_id, region=region, project_id=project_id,
                         impersonation_chain=impersonation_chain, timeout=timeout)
        if not job_name:
            raise ValueError("job_name is required: the name of the Cloud Run job to execute")
        if transport not in (None, "grpc", "rest"):
            raise ValueError(f"transport={transport!r}: give 'grpc', 'rest' or None")
        self.job_name = job_name
        self.use_regional_endpoint = bool(use_regional_endpoint)
        self.transport = transport
        self.consistency_seconds = listing_consistency_seconds(consistency_seconds,
                                                              "cloud_run_list_consistency_seconds")
        self._executions: Any = None
        self._aexecutions: Any = None

    def serialize(self) -> dict[str, Any]:
        return {**super().serialize(), "job_name": self.job_name, "use_regional_endpoint": self.use_regional_endpoint,
                "transport": self.transport, "consistency_seconds": self.consistency_seconds}

    @property
    def submit_endpoint(self) -> str:
        return "Jobs.RunJob"

    # ------------------------------------------------------------------ clients
    def _make_hook(self) -> Any:
        # looked up in the official operator module, as the official operator does (its tests patch it there)
        from airflow.providers.google.cloud.operators import cloud_run

        return cloud_run.CloudRunHook(gcp_conn_id=self.gcp_conn_id, impersonation_chain=self.impersonation_chain,
                                      transport=self.transport)

    def _make_async_hook(self) -> Any:
        from airflow.providers.google.cloud.hooks.cloud_run import CloudRunAsyncHook

        return CloudRunAsyncHook(gcp_conn_id=self.gcp_conn_id, impersonation_chain=self.impersonation_chain,
                                 transport=self.transport)

    def _rest_kwargs(self) -> dict[str, Any]:
        from airflow.providers.google.common.consts import CLIENT_INFO

        hook = self.hook
        endpoint = hook._get_api_endpoint(location=self.region, use_regional_endpoint=self.use_regional_endpoint)
        return {"credentials": hook.get_credentials(), "client_info": CLIENT_INFO, "transport": "rest",
                "client_options": hook.get_client_options(api_endpoint_override=endpoint)}

    def executions(self) -> Any:
        """An ``ExecutionsClient`` on the channel of the hook's ``JobsClient`` (same host, credentials, endpoint);
        over REST when the operator asked for ``transport="rest"``."""
        if self._executions is None:
            from airflow.providers.google.common.consts import CLIENT_INFO
            from google.cloud.run_v2 import ExecutionsClient
            from google.cloud.run_v2.services.executions.transports import ExecutionsGrpcTransport

            jobs = self.hook.get_conn(location=self.region, use_regional_endpoint=self.use_regional_endpoint)
            channel = getattr(jobs.transport, "grpc_channel", None)
            if channel is not None:
                self._executions = ExecutionsClient(transport=ExecutionsGrpcTransport(channel=channel),
                                                    client_info=CLIENT_INFO)
            else:
                self._executions = ExecutionsClient(**self._rest_kwargs())
        return self._executions

    async def aexecutions(self) -> Any:
        """The async ``ExecutionsAsyncClient`` on the async hook's channel (None over REST: calls go to a thread)."""
        if self._aexecutions is None:
            from airflow.providers.google.common.consts import CLIENT_INFO
            from google.cloud.run_v2 import ExecutionsAsyncClient
            from google.cloud.run_v2.services.executions.transports import ExecutionsGrpcAsyncIOTransport

            jobs = await self.async_hook.get_conn(location=self.region,
                                                  use_regional_endpoint=self.use_regional_endpoint)
            channel = getattr(jobs.transport, "grpc_channel", None)
            if channel is None or self.transport == "rest":
                return None
            self._aexecutions = ExecutionsAsyncClient(transport=ExecutionsGrpcAsyncIOTransport(channel=channel),
                                                      client_info=CLIENT_INFO)
        return self._aexecutions

    @property
    def job_resource(self) -> str:
        return f"projects/{self.project}/locations/{self.region}/jobs/{self.job_name}"

    def name(self, execution: Any) -> str:
        """The execution's resource name (the official trigger's event carries the short id only)."""
        ident = str(execution)
        return ident if ident.startswith("projects/") else f"{self.job_resource}/executions/{ident}"

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """What ``CloudRunJobFinishedTrigger`` yields, so that the official ``execute_complete`` can take our event
        (a task switched back to the official import while deferred)."""
        ok = status.phase is JobPhase.SUCCEEDED
        return {"status": "Success" if ok else "Fail", "job_name": self.job_name,
                "execution_name": str(job_id).rsplit("/", 1)[-1], "operation_error_code": None,
                "operation_error_message": None if ok else f"Cloud Run execution ended {status.state}: "
                                                           f"{status.message}"}

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return nonce  # an env value has no format rules; the operator has no token of its own

    # ------------------------------------------------------------------ submit and find
    def submit(self, request: Mapping[str, Any], key: str) -> str:
        """The official hook's ``execute_job`` with the key merged into the overrides; the operation's metadata
        (the Execution) names what was started."""
        operation = self.hook.execute_job(job_name=self.job_name, region=self.region, project_id=self.project,
                                          overrides=with_key(request.get("overrides"), key),
                                          use_regional_endpoint=self.use_regional_endpoint)
        name = getattr(getattr(operation, "metadata", None), "name", "")
        if not name:
            raise UnreadableReplyError(f"RunJob answered an operation without an Execution ({cap(operation, 200)})")
        return str(name)

    def _scan(self, key: str, since: datetime | None) -> str | None:
        """One pass over the job's executions, newest first, down to ``since`` (less the clock skew)."""
        from google.cloud.run_v2 import ListExecutionsRequest

        floor = (since - CLOCK_SKEW) if since is not None else None
        pager = self.executions().list_executions(
            request=ListExecutionsRequest(parent=self.job_resource, page_size=100), retry=None,
            timeout=self.call_timeout)
        for execution in pager:
            if key_of(execution) == key:
                return str(execution.name)
            created = execution.create_time
            if floor is not None and created and created < floor:
                return None  # sorted by creation time, descending: the rest are older still
        return None

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        """Scan, and keep re-scanning until the consistency window after ``since`` has passed."""
        return scan_until_consistent(lambda: self._scan(key, since), since=since, window=self.consistency_seconds,
                                     what=f"Cloud Run execution of job {self.job_name} carrying key {key}")

    # ------------------------------------------------------------------ status
    def _status(self, execution: Any) -> JobStatus:
        if execution is None or not hasattr(execution, "task_count"):
            raise UnreadableReplyError(f"{self.status_endpoint} answered a reply that is not an Execution "
                                       f"({cap(execution, 100)})")
        counts = {"task_count": execution.task_count, "succeeded": execution.succeeded_count,
                  "failed": execution.failed_count, "cancelled": execution.cancelled_count,
                  "running": execution.running_count}
        if not execution.completion_time:
            state = "RUNNING" if execution.start_time or execution.running_count else "PENDING"
        elif execution.task_count and execution.succeeded_count == execution.task_count:
            state = "SUCCEEDED"
        elif execution.failed_count:
            state = "FAILED"
        elif execution.cancelled_count:
            state = "CANCELLED"
        elif execution.succeeded_count + execution.failed_count + execution.cancelled_count == 0:
            state = "COMPLETED_WITHOUT_TASKS"  # no state we know: the unknown-state policy decides
        else:
            state = "FAILED"
        message = ", ".join(f"{k}={v}" for k, v in counts.items())
        return JobStatus(self.phase_of(state), state, message, raw={"name": execution.name, "state": state,
                                                                    "log_uri": execution.log_uri, **counts})

    def get_execution(self, execution: Any) -> Any:
        return self.executions().get_execution(name=self.name(execution), retry=None, timeout=self.call_timeout)

    def _get(self, job_id: Any) -> Any:
        return self.get_execution(job_id)

    async def _aget(self, job_id: Any) -> Any:
        client = await self.aexecutions()
        if client is None:  # over REST: the synchronous client, in a thread
            return await asyncio.to_thread(self.get_execution, job_id)
        return await client.get_execution(name=self.name(job_id), retry=None, timeout=self.call_timeout)

    def cancel(self, job_id: Any) -> None:
        """``CancelExecution`` (its operation is not waited for: the execution's state says when it ended)."""
        from google.api_core.exceptions import FailedPrecondition

        try:
            self.executions().cancel_execution(name=self.name(job_id), timeout=self.call_timeout)
        except FailedPrecondition as err:  # the execution already ended: nothing to cancel
            log.info("Cloud Run did not cancel execution %s: %s", job_id, cap(err, 200))

    def get_job(self) -> Any:
        """The Cloud Run job, as the official operator returns it (``hook.get_job``)."""
        return self.hook.get_job(job_name=self.job_name, region=self.region, project_id=self.project,
                                 use_regional_endpoint=self.use_regional_endpoint)

    def url(self, job_id: Any) -> str | None:
        return (f"https://console.cloud.google.com/run/jobs/details/{self.region}/{self.job_name}/executions"
                f"?project={self.project_id}")

    async def aclose(self) -> None:
        client = getattr(self._async_hook, "_client", None)
        transport = getattr(client, "transport", None)
        if transport is not None and hasattr(transport, "close"):
            result = transport.close()
            if asyncio.iscoroutine(result):
                await result

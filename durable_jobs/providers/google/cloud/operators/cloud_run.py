"""Drop-in durable ``CloudRunExecuteJobOperator``.

Change one import line::

    from airflow.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator
    from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator

Same constructor arguments, template fields, extra links (the ``log_uri`` and execution-details XComs) and
return value (the Cloud Run job, ``Job.to_dict``) as apache-airflow-providers-google 22.8. Each execution is
started once on the synchronous and the deferrable path: ``RunJob`` has no request id, so the epoch's key rides
in the execution's overrides (container env ``DURABLE_JOBS_KEY``) and an execution whose reply was lost, or whose
worker died, is found by listing the job's executions (``durable_jobs.providers.google.cloud.clients.cloud_run``).

Differences from the official operator, on purpose:

* ``overrides`` gains one container environment variable, ``DURABLE_JOBS_KEY`` (merged into the first container
  override; a nameless override is added when there is none). Your container sees it; nothing else changes.
* A user's kill (mark failed / clear) cancels the execution (``CancelExecution``) on both paths; upstream has no
  ``on_kill`` and leaves it running. ``cancel_on_kill="never"`` keeps upstream's behaviour; an infrastructure
  kill never cancels.
* The wait polls the execution (``GetExecution``) on both paths, not the ``RunJob`` operation: after a crash the
  operation's name is gone, the execution's is in the state store.
* ``timeout_seconds`` bounds the wait as ``ceil(timeout_seconds / polling_period_seconds)`` status checks on both
  paths (upstream's deferrable path ignores it); a retry reconnects, and after the last try it is cancelled.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, cast

from airflow.providers.google.cloud.operators import cloud_run as _official

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.google.cloud.clients.cloud_run import CloudRunJobClient

try:
    from airflow.providers.common.compat.sdk import AirflowException
except ImportError:  # pragma: no cover - older compat providers
    from airflow.exceptions import AirflowException

if TYPE_CHECKING:
    from airflow.sdk import Context


class CloudRunJobError(JobFailedError, AirflowException):
    """An execution ended with failed or cancelled tasks: an ``AirflowException``, as upstream raises."""


class CloudRunExecuteJobOperator(DurableJobMixin, _official.CloudRunExecuteJobOperator):
    """The official ``CloudRunExecuteJobOperator``, starting each execution once (the key in its overrides)."""

    if TYPE_CHECKING:  # what the official operator defines
        project_id: str
        region: str
        job_name: str
        overrides: Any
        polling_period_seconds: float
        timeout_seconds: float | None
        use_regional_endpoint: bool
        gcp_conn_id: str
        impersonation_chain: Any
        deferrable: bool
        transport: Any
        verbose: bool

    __init__ = with_official_signature(_official.CloudRunExecuteJobOperator)

    external_id_key = "cloud_run_execution_name"
    poll_interval_argument = "polling_period_seconds"
    official_event_id_keys = ("execution_name",)

    @property
    def run_client(self) -> CloudRunJobClient:
        return cast(CloudRunJobClient, self.job_client)

    def make_job_client(self) -> CloudRunJobClient:
        if self.timeout_seconds is not None and float(self.timeout_seconds) <= 0:
            raise ValueError(f"timeout_seconds={self.timeout_seconds!r}: give a positive number of seconds to bound "
                             "the wait, or None to wait until the execution ends")
        return CloudRunJobClient(self.gcp_conn_id, region=self.region, job_name=self.job_name,
                                 project_id=self.project_id or None, impersonation_chain=self.impersonation_chain,
                                 use_regional_endpoint=self.use_regional_endpoint, transport=self.transport)

    def _raw_request(self) -> dict[str, Any]:
        """``Overrides`` given as a message is fingerprinted by its content."""
        raw = super()._raw_request()
        overrides = raw.get("overrides")
        if overrides is not None and not isinstance(overrides, dict) and hasattr(type(overrides), "to_dict"):
            raw["overrides"] = type(overrides).to_dict(overrides)
        return raw

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        return {"overrides": self.overrides}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """Upstream's two links: the execution's ``log_uri`` and the job's execution details."""
        from airflow.providers.google.cloud.links.cloud_run import (
            CloudRunJobExecutionDetailsLink,
            CloudRunJobLoggingLink,
        )

        self.log.info("Cloud Run execution %s %s.", job_id, "found again" if reconnected else "started")
        if not context:
            return
        execution = self.call_vendor(job_id, lambda: self.run_client.get_execution(job_id))
        if execution.log_uri:
            CloudRunJobLoggingLink.persist(context=context, log_uri=execution.log_uri)
        CloudRunJobExecutionDetailsLink.persist(context=context, region=self.region, job_name=self.job_name,
                                                project_id=self.project_id)

    def max_polls(self) -> int | None:
        if self.timeout_seconds is None:
            return None
        return max(1, math.ceil(float(self.timeout_seconds) / max(float(self.polling_period_seconds), 1e-9)))

    def on_poll_limit(self, job_id: Any) -> None:
        raise AirflowException(f"Operation timed out: Cloud Run execution {job_id} still running after "
                               f"timeout_seconds={self.timeout_seconds}. A retry of this task reconnects to it; "
                               "after the last try it is cancelled.")

    def _forward_logs(self, job_id: Any, *, failed: bool = False) -> None:
        """``verbose``: upstream's Cloud Logging read for the execution (best effort, as upstream; after a failure
        upstream's short wait for late log entries first)."""
        if not self.verbose or not job_id:
            return
        if failed:
            time.sleep(_official.FAILED_EXECUTION_LOG_FETCH_DELAY_SECONDS)
        try:
            self._log_container_output(str(job_id).rsplit("/", 1)[-1])
        except Exception as err:  # noqa: BLE001 - the logs never decide the task's outcome
            self.log.warning("Could not fetch container logs of %s: %s. Task result is unaffected.", job_id,
                             cap(err, 300))

    def job_result(self, context: Context, job_id: Any) -> Any:
        from google.cloud.run_v2 import Job

        self._forward_logs(job_id)
        return Job.to_dict(self.call_vendor(job_id, self.run_client.get_job))

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        self._forward_logs(job_id, failed=True)
        text = "Some tasks failed execution" if status.state == "FAILED" else "Not all tasks finished execution"
        return CloudRunJobError(f"{text} (Cloud Run execution {job_id}: {status.message}). A retry runs a new "
                                "execution.", job_id=job_id, state=status.state)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if isinstance(event, dict) and "client" not in event and event.get("status") != "Success":
            # the official trigger's end that is not success (a task deferred by the official operator, resumed by
            # ours): upstream's message, as upstream raises it
            if event.get("status") == "Timeout":
                raise AirflowException("Operation timed out")
            self._forward_logs(event.get("execution_name"), failed=True)
            raise AirflowException(f"Operation failed with error code [{event.get('operation_error_code')}] and "
                                   f"error message [{event.get('operation_error_message')}]")
        if isinstance(event, dict) and "client" not in event and not event.get("execution_name"):
            # an official success event that names no execution (provider versions before execution_name): the
            # official trigger saw the operation succeed; upstream's result, as upstream returns it
            from google.cloud.run_v2 import Job

            self.log.info("Resuming from the official operator's trigger: it reported success for job %s",
                          event.get("job_name", self.job_name))
            return Job.to_dict(self.call_vendor(self.job_name, self.run_client.get_job))
        return super().execute_complete(context, event or {})


__all__ = ["CloudRunExecuteJobOperator", "CloudRunJobError"]

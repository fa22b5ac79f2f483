"""Drop-in durable ``CloudBatchSubmitJobOperator``.

Change one import line::

    from airflow.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator
    from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator

Same constructor arguments, template fields (``job`` rendered into nested fields, as upstream's
``prepare_template``) and return value (the finished job, ``Job.to_dict``) as apache-airflow-providers-google
22.8. Each job is created exactly once on the synchronous and the deferrable path: the epoch's key is the job
id (``durable_jobs.providers.google.cloud.clients.cloud_batch``).

Differences from the official operator, on purpose:

* ``job_name``: upstream uses it as the job id, so a retry fails with ``ALREADY_EXISTS`` (and a failed job can
  never be run again under that name). Ours makes it the prefix of the job id: ``<job_name>-<key>`` (a name
  that does not fit the id's 63 characters becomes a digest). A lost reply or a crash is found again under that
  id; a job that genuinely failed is retried as a new job, under the next epoch's key.
* A user's kill (mark failed / clear) cancels the job (``CancelJob``); upstream has no ``on_kill`` and leaves it
  running. ``cancel_on_kill="never"`` keeps upstream's behaviour; an infrastructure kill never cancels.
* A CANCELLED job fails the task (upstream's wait does not know the state and polls until ``timeout_seconds``).
* ``timeout_seconds`` bounds the wait as upstream counts it (``ceil(timeout_seconds / polling_period_seconds)``
  status checks), on both paths; a retry reconnects to the job, and after the last try it is cancelled.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, cast

from airflow.providers.google.cloud.operators import cloud_batch as _official

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.google.cloud.clients.cloud_batch import CloudBatchJobClient

try:
    from airflow.providers.common.compat.sdk import AirflowException
except ImportError:  # pragma: no cover - older compat providers
    from airflow.exceptions import AirflowException

if TYPE_CHECKING:
    from airflow.sdk import Context


class CloudBatchJobError(JobFailedError, AirflowException):
    """A Batch job ended FAILED, CANCELLED or being deleted: an ``AirflowException``, as upstream raises."""


class CloudBatchSubmitJobOperator(DurableJobMixin, _official.CloudBatchSubmitJobOperator):
    """The official ``CloudBatchSubmitJobOperator``, creating each job exactly once under a key-derived id."""

    if TYPE_CHECKING:  # what the official operator defines
        project_id: str
        region: str
        job_name: str
        job: Any
        polling_period_seconds: float
        timeout_seconds: float | None
        gcp_conn_id: str
        impersonation_chain: Any
        deferrable: bool

    __init__ = with_official_signature(_official.CloudBatchSubmitJobOperator)

    external_id_key = "cloud_batch_job_id"
    poll_interval_argument = "polling_period_seconds"
    user_token_argument = "job_name"
    official_event_id_keys = ("job_name",)

    @property
    def batch_client(self) -> CloudBatchJobClient:
        return cast(CloudBatchJobClient, self.job_client)

    def make_job_client(self) -> CloudBatchJobClient:
        if self.timeout_seconds is not None and float(self.timeout_seconds) <= 0:
            raise ValueError(f"timeout_seconds={self.timeout_seconds!r}: give a positive number of seconds to bound "
                             "the wait, or None to wait until the job ends")
        return CloudBatchJobClient(self.gcp_conn_id, region=self.region, project_id=self.project_id or None,
                                   impersonation_chain=self.impersonation_chain)

    def _raw_request(self) -> dict[str, Any]:
        """A ``Job`` message is fingerprinted by its content (upstream turns it into a dict only when rendering)."""
        raw = super()._raw_request()
        if "job" in raw and not isinstance(raw["job"], dict) and hasattr(type(raw["job"]), "to_json"):
            raw["job"] = json.loads(type(raw["job"]).to_json(raw["job"]))
        return raw

    def user_idempotency_token(self) -> str | None:
        """The user's ``job_name`` (rendered) is the job id's prefix."""
        return str(self.job_name) if self.job_name else None

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        return {"job": self.job}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        if not reconnected:
            self.log.info("Cloud Batch job %s was created (job_name %r + this epoch's key).", job_id, self.job_name)

    def max_polls(self) -> int | None:
        if self.timeout_seconds is None:
            return None
        return max(1, math.ceil(float(self.timeout_seconds) / max(float(self.polling_period_seconds), 1e-9)))

    def on_poll_limit(self, job_id: Any) -> None:
        raise AirflowException(f"Job with name [{self.batch_client.name(job_id)}] timed out. A retry of this task "
                               "reconnects to the job; after the last try it is cancelled.")

    def job_result(self, context: Context, job_id: Any) -> Any:
        from google.cloud.batch_v1 import Job

        job = self.call_vendor(job_id, lambda: self.batch_client.get_job(job_id))
        return Job.to_dict(job)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        name = self.batch_client.name(job_id)
        if status.state == "DELETION_IN_PROGRESS":
            text = f"Unexpected error in the operation: Batch job with name {name} is being deleted."
        elif status.state == "CANCELLED":
            text = f"Unexpected error in the operation: Batch job with name {name} was cancelled."
        else:
            text = f"Unexpected error in the operation: Batch job with name {name} has failed its execution."
        return CloudBatchJobError(f"{text} A retry creates a new job.", job_id=job_id, state=status.state)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if isinstance(event, dict) and "client" not in event and event.get("status") != "success":
            # the official trigger's end that is not success (failed, deleted, timed out, its own error): upstream's
            # message, as upstream raises it (a task deferred by the official operator, resumed by ours)
            raise AirflowException(f"Unexpected error in the operation: {event.get('message')}")
        return super().execute_complete(context, event or {})


__all__ = ["CloudBatchJobError", "CloudBatchSubmitJobOperator"]

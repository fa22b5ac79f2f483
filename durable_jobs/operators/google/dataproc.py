"""Drop-in durable ``DataprocSubmitJobOperator``.

Change one import line::

    from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
    from durable_jobs.operators.google.dataproc import DataprocSubmitJobOperator

Same constructor arguments, template fields, return value (the job id), ``DataprocJobLink`` and OpenLineage
Spark-property injection as apache-airflow-providers-google 22.8. Each job is submitted exactly once on the
synchronous *and* the deferrable path: the epoch's key is the ``SubmitJobRequest.request_id`` and is part of
the job's ``reference.job_id`` (``durable_jobs.hooks.google_dataproc``).

Differences from the official operator, on purpose:

* ``request_id``: upstream passes the user's value through (a retry of a failed job then gets the *old* job
  back); ours combines it with the epoch's key (``<request_id>-<key>``), so a failed job is retried as a new
  one and a lost reply is not. ``job["reference"]["job_id"]``, if set, becomes ``<job_id>-<key>`` (upstream
  fails a retry with ``ALREADY_EXISTS``).
* The deferrable path checkpoints before ``defer()``; ``start_from_trigger=True`` is not honoured (starting in
  the triggerer leaves nothing to checkpoint): the task starts on a worker and says so.
* ``asynchronous=True`` is upstream's "submit only": the task succeeds once the job is *accepted*, not when it
  succeeds (logged); a retry of it reconnects to the accepted job.
* ``cancel_on_kill``: True -> "user" (cancel when a user stopped the task; an infrastructure kill leaves the
  job running for the retry), False -> "never".
* A failed job raises upstream's text ("Job failed: ..." / "Job was cancelled: ...") and says that a retry
  submits a new job; the error is an ``AirflowException`` (``DataprocJobError``, also a ``JobFailedError``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from airflow.providers.google.cloud.operators import dataproc as _official

from durable_jobs.exceptions import DurableJobError, JobFailedError
from durable_jobs.faults import cap
from durable_jobs.hooks.base import JobPhase, JobStatus
from durable_jobs.hooks.google_dataproc import DataprocJobClient
from durable_jobs.operators.base import DurableJobMixin
from durable_jobs.operators.signature import with_official_signature

try:
    from airflow.providers.common.compat.sdk import AirflowException
except ImportError:  # pragma: no cover - older compat providers
    from airflow.exceptions import AirflowException

if TYPE_CHECKING:
    from airflow.sdk import Context


class DataprocJobError(JobFailedError, AirflowException):
    """A Dataproc job ended in ERROR or CANCELLED: an ``AirflowException``, as the official operator raises."""


def _dataproc_init(official: type) -> Any:
    base = with_official_signature(official)

    def __init__(self: Any, **kwargs: Any) -> None:
        cancel = kwargs.get("cancel_on_kill", True)
        if isinstance(cancel, bool):  # the official boolean: True -> cancel on a user's kill
            kwargs["cancel_on_kill"] = "user" if cancel else "never"
        base(self, **kwargs)
        if getattr(self, "start_from_trigger", False):
            self.log.warning("%s: start_from_trigger=True is not honoured by the durable operator: the job is "
                             "submitted from a worker, checkpointed, then watched in the triggerer.", self.task_id)
            self.start_from_trigger = False

    __init__.__signature__ = base.__signature__  # type: ignore[attr-defined]
    __init__.__doc__ = base.__doc__
    return __init__


class DataprocSubmitJobOperator(DurableJobMixin, _official.DataprocSubmitJobOperator):  # type: ignore[misc]
    """The official ``DataprocSubmitJobOperator``, submitting each job exactly once."""

    if TYPE_CHECKING:  # what the official operator defines
        project_id: str
        region: str
        job: Any
        request_id: str | None
        retry: Any
        timeout: float | None
        metadata: Any
        gcp_conn_id: str
        impersonation_chain: Any
        asynchronous: bool
        deferrable: bool
        polling_interval_seconds: int
        wait_timeout: int | None
        job_id: str | None
        hook: Any

    __init__ = _dataproc_init(_official.DataprocSubmitJobOperator)

    external_id_key = "dataproc_job_id"
    poll_interval_argument = "polling_interval_seconds"
    user_token_argument = "request_id"
    official_event_id_keys = ("job_id",)

    @property
    def wait_for_termination(self) -> bool:
        """Upstream waits unless ``asynchronous`` (and always when deferrable: its deferral comes first)."""
        return bool(self.deferrable or not self.asynchronous)

    def make_job_client(self) -> DataprocJobClient:
        return DataprocJobClient(self.gcp_conn_id, region=self.region, project_id=self.project_id or None,
                                 impersonation_chain=self.impersonation_chain, timeout=self.timeout)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.log.info("Submitting job")
        if self.openlineage_inject_parent_job_info or self.openlineage_inject_transport_info:
            self.log.info("Automatic injection of OpenLineage information into Spark properties is enabled.")
            self._inject_openlineage_properties_into_dataproc_job(context)
        return {"job": self.job, "retry": self.retry, "timeout": self.timeout, "metadata": self.metadata}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        from airflow.providers.google.cloud.links.dataproc import DataprocJobLink

        self.job_id = str(job_id)
        self.hook = self.job_client.hook  # type: ignore[attr-defined]
        if not reconnected:
            self.log.info("Job %s submitted successfully.", job_id)
        project_id = self.project_id or self.hook.project_id
        if project_id and context is not None:
            DataprocJobLink.persist(context=context, job_id=self.job_id, region=self.region, project_id=project_id)
        self._durable_wait_started = time.monotonic()
        if self.wait_for_termination and not self.deferrable:
            self.log.info("Waiting for job %s to complete", job_id)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        super().on_poll(context, job_id, status)
        started = getattr(self, "_durable_wait_started", None)
        if self.wait_timeout and started is not None and time.monotonic() - started > self.wait_timeout:
            raise AirflowException(
                f"Timeout: dataproc job {job_id} is not ready after {self.wait_timeout}s. The job is left "
                "running; a retry of this task reconnects to it."
            )

    def job_result(self, context: Context, job_id: Any) -> str:
        self.job_id = str(job_id)
        if self.deferrable:
            self.log.info("%s completed successfully.", self.task_id)
        else:
            self.log.info("Job %s completed successfully.", job_id)
        return self.job_id

    def accepted_result(self, context: Context, job_id: Any) -> str:
        self.log.info("asynchronous=True: Dataproc job %s was accepted, which is not success; a "
                      "DataprocJobSensor (or asynchronous=False) reports its outcome.", job_id)
        return str(job_id)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        detail = f"job {job_id} ended {status.state}{': ' + cap(status.message, 2000) if status.message else ''}"
        head = "Job was cancelled" if status.state == "CANCELLED" else "Job failed"
        return DataprocJobError(f"{head}:\n{detail}. A retry submits a new job.", job_id=job_id, state=status.state)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if isinstance(event, dict) and "client" not in event and "job_state" in event:
            state = str(event.get("job_state"))
            if state == "ERROR":  # the official trigger's outcome, read as the official operator does
                raise AirflowException(f"Job {event.get('job_id')} failed:\n{event.get('job')}")
            if state == "CANCELLED":
                raise AirflowException(f"Job {event.get('job_id')} was cancelled:\n{event.get('job')}")
        if event is None:
            raise DurableJobError(f"{self.task_id}: the trigger sent no event")
        return super().execute_complete(context, event)

    # The SDK mixin's methods, answering in Dataproc's states.
    def is_job_active(self, status: str) -> bool:
        return self.job_client.phase_of(status) in (JobPhase.ACTIVE, JobPhase.UNKNOWN)


__all__ = ["DataprocJobError", "DataprocSubmitJobOperator"]

"""Drop-in durable ``DataprocSubmitJobOperator``.

Change one import line::

    from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
    from durable_jobs.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator

Same constructor arguments, template fields, return value (the job id), ``DataprocJobLink`` and OpenLineage
Spark-property injection as apache-airflow-providers-google 22.8. Each job is submitted exactly once on the
synchronous *and* the deferrable path: the epoch's key is the ``SubmitJobRequest.request_id`` and is part of
the job's ``reference.job_id`` (``durable_jobs.providers.google.cloud.clients.dataproc``).

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
from typing import TYPE_CHECKING, Any, cast

from airflow.providers.google.cloud.operators import dataproc as _official

from durable_jobs.core.exceptions import DurableJobError, JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.google.cloud.clients.dataproc import DataprocBatchClient, DataprocJobClient

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


class DataprocCreateBatchOperator(DurableJobMixin, _official.DataprocCreateBatchOperator):
    """The official ``DataprocCreateBatchOperator``, creating each batch exactly once: its ``batch_id`` is the
    epoch's key (``<batch_id or batch_id_prefix or "airflow">-<key>``), its ``request_id`` the key's nonce
    (combined with the user's ``request_id``). A FAILED batch is retried as a new batch, not re-attached."""

    if TYPE_CHECKING:  # what the official operator defines
        project_id: str
        region: str
        batch: Any
        batch_id: str | None
        batch_id_prefix: str | None
        request_id: str | None
        num_retries_if_resource_is_not_ready: int
        retry: Any
        timeout: float | None
        metadata: Any
        gcp_conn_id: str
        impersonation_chain: Any
        asynchronous: bool
        deferrable: bool
        polling_interval_seconds: int

        @property
        def hook(self) -> Any: ...

    __init__ = _dataproc_init(_official.DataprocCreateBatchOperator)

    external_id_key = "dataproc_batch_id"
    poll_interval_argument = "polling_interval_seconds"
    durable_request_fields = ("request_id", "num_retries_if_resource_is_not_ready")
    official_event_id_keys = ("batch_id",)

    @property
    def wait_for_termination(self) -> bool:
        return bool(self.deferrable or not self.asynchronous)

    def user_idempotency_token(self) -> str | None:
        """The user's ``batch_id`` (or ``batch_id_prefix``) becomes the prefix of the key-derived batch id."""
        if self.batch_id and self.batch_id_prefix:
            raise ValueError("batch_id and batch_id_prefix are mutually exclusive")
        return self.batch_id or self.batch_id_prefix or None

    @property
    def batch_client(self) -> DataprocBatchClient:
        return cast(DataprocBatchClient, self.job_client)

    def make_job_client(self) -> DataprocBatchClient:
        return DataprocBatchClient(self.gcp_conn_id, region=self.region, project_id=self.project_id or None,
                                   impersonation_chain=self.impersonation_chain, timeout=self.timeout)

    def execute(self, context: Context) -> Any:
        """Upstream's argument checks first, before any checkpoint is read or written."""
        if self.asynchronous and self.deferrable:
            raise AirflowException("Both asynchronous and deferrable parameters were passed. Please, provide only one.")
        if self.batch_id and self.batch_id_prefix:
            raise ValueError("batch_id and batch_id_prefix are mutually exclusive")
        if self.batch_id_prefix and self.request_id:
            raise ValueError("batch_id_prefix and request_id are mutually exclusive")
        return super().execute(context)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.log.info("Starting batch. The batch ID is made from this epoch's idempotency key.")
        if self.openlineage_inject_parent_job_info or self.openlineage_inject_transport_info:
            self.log.info("Automatic injection of OpenLineage information into Spark properties is enabled.")
            self._inject_openlineage_properties_into_dataproc_batch(context)
        getattr(self, "_DataprocCreateBatchOperator__update_batch_labels")()  # upstream's private label helper
        self._durable_not_ready_left = int(self.num_retries_if_resource_is_not_ready or 0)
        return {"batch": self.batch, "request_id": self.request_id, "retry": self.retry, "timeout": self.timeout,
                "metadata": self.metadata}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        from airflow.providers.google.cloud.links.dataproc import DataprocBatchLink

        if not reconnected:
            self.log.info("The batch %s was created.", job_id)
        if context is not None:
            DataprocBatchLink.persist(context=context, project_id=self.batch_client.project_id, region=self.region,
                                      batch_id=str(job_id))
        if self.wait_for_termination and not self.deferrable:
            self.log.info("Waiting for the completion of batch job %s", job_id)

    def _batch_dict(self, job_id: Any) -> dict[str, Any]:
        from google.cloud.dataproc_v1 import Batch

        batch = self.call_vendor(job_id, lambda: self.batch_client.hook.get_batch(
            batch_id=str(job_id), region=self.region, project_id=self.batch_client.project, retry=self.retry,
            timeout=self.timeout, metadata=self.metadata))
        return Batch.to_dict(batch)

    def _link(self, job_id: Any) -> str:
        return self.batch_client.url(job_id) or ""

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.log.info("Batch job %s completed.\nDriver logs: %s", job_id, self._link(job_id))
        if self.deferrable:  # upstream's execute_complete returns None
            return None
        return self._batch_dict(job_id)

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        self.log.info("The batch %s was created asynchronously. Exiting. It was accepted, which is not success; "
                      "a DataprocBatchSensor (or asynchronous=False) reports its outcome.", job_id)
        return self._batch_dict(job_id)

    def on_failed_job(self, context: Context, job_id: Any, status: JobStatus) -> bool:
        """``num_retries_if_resource_is_not_ready``, as upstream: delete the failed batch and create it again under
        the same batch id (a fresh request id), then wait for it."""
        left = getattr(self, "_durable_not_ready_left", int(self.num_retries_if_resource_is_not_ready or 0))
        hook = self.batch_client.hook
        if status.state != "FAILED" or left <= 0 or not hook.check_error_for_resource_is_not_ready_msg(status.message):
            return False
        self._durable_not_ready_left = left - 1
        self.log.info("Retrying creation process for batch_id %s", job_id)
        self.log.info("Deleting previous failed Batch")
        project = self.batch_client.project
        hook.delete_batch(batch_id=str(job_id), region=self.region, project_id=project, retry=self.retry,
                          timeout=self.timeout, metadata=self.metadata)
        self.log.info("Starting a new creation for batch_id %s", job_id)
        request = {"batch": self.batch, "request_id": self.request_id, "retry": self.retry, "timeout": self.timeout,
                   "metadata": self.metadata,
                   "request_suffix": f"-r{self.num_retries_if_resource_is_not_ready - left + 1}"}
        self.batch_client.submit(request, str(job_id))
        return True

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        link = self._link(job_id)
        if status.state == "CANCELLED":
            text = f"Batch job {job_id} was cancelled.\nDriver logs: {link}"
        else:
            text = f"Batch job {job_id} failed with error: {cap(status.message, 2000)}.\nDriver logs: {link}"
        return DataprocJobError(f"{text}\nA retry creates a new batch.", job_id=job_id, state=status.state)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if isinstance(event, dict) and "client" not in event and "batch_state" in event:
            state = str(event.get("batch_state"))
            if state != "SUCCEEDED":  # the official trigger's outcome, read as the official operator does
                self.handle_batch_status(context, state, str(event.get("batch_id")), event.get("batch_state_message"))
        if event is None:
            raise AirflowException("Batch failed.")
        return super().execute_complete(context, event)

    def is_job_active(self, status: str) -> bool:
        return self.batch_client.phase_of(status) in (JobPhase.ACTIVE, JobPhase.UNKNOWN)


__all__ = ["DataprocCreateBatchOperator", "DataprocJobError", "DataprocSubmitJobOperator"]

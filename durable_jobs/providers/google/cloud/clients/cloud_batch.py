"""Cloud Batch jobs through the official ``CloudBatchHook`` / ``CloudBatchAsyncHook`` (gRPC ``BatchService``).

Idempotency: the job id. ``CreateJobRequest.job_id`` (Batch API reference): "ID used to uniquely identify the
Job within its parent scope. This field should contain at most 63 characters and must start with lowercase
characters. Only lowercase characters, numbers and '-' are accepted. The '-' character cannot be the first or
the last one." The epoch's key *is* the job id (``<the user's job_name>-<nonce>``), so the job a lost reply or a
crash left behind is found by ``GetJob`` under it (``find``), and a resend of the same create answers
``ALREADY_EXISTS``, which we answer by reading that job: it carries a 128-bit nonce, so it is ours.

The official operator passes the user's ``job_name`` as the job id unchanged: a retry of a task whose create
went through fails with ``ALREADY_EXISTS``, and a retry of a *failed* job can never run again under that name.

``CreateJobRequest.request_id`` ("Specify a unique request ID so that if you must retry your request, the
server will know to ignore the request if it has already been completed. The server will guarantee that for
at least 60 minutes since the first request. ... must be a valid UUID") is not sent: the official hook's
``submit_batch_job`` has no such argument, and the job id already gives the same protection without a time
limit.

What Google does not document, and the side taken: which error a taken job id answers (AIP-133's
``ALREADY_EXISTS``, read as "ours"; any other error fails the try, and the retry asks ``GetJob`` first); what
``CancelJob`` answers for a job that already ended (best effort: a ``FAILED_PRECONDITION`` is logged);
whether ``DELETION_IN_PROGRESS`` can end any other way (no: the official operator and trigger fail on it, so
do we).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.faults import UnreadableReplyError, cap
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.google.cloud.clients.base import GoogleRegionalClient

log = logging.getLogger(__name__)

#: ``google.cloud.batch.v1.JobStatus.State`` (the client library's enum, whose docstrings are Google's): QUEUED
#: "Job is admitted (validated and persisted) and waiting for resources"; SCHEDULED; RUNNING; SUCCEEDED "All
#: Tasks in the Job have finished successfully"; FAILED "At least one Task in the Job has failed";
#: DELETION_IN_PROGRESS "The Job will be deleted" (the official hook and trigger fail on it); CANCELLATION_IN_
#: PROGRESS (ends in CANCELLED); CANCELLED "the task executions were stopped". STATE_UNSPECIFIED: not listed.
JOB_STATES = StateTable(
    vendor="Cloud Batch job",
    active=frozenset({"QUEUED", "SCHEDULED", "RUNNING", "CANCELLATION_IN_PROGRESS"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"FAILED", "CANCELLED", "DELETION_IN_PROGRESS"}),
)
MAX_JOB_ID = 63
_JOB_ID = re.compile(r"^[a-z]([a-z0-9-]*[a-z0-9])?$")
#: The job id's prefix when the user's ``job_name`` is empty.
DEFAULT_PREFIX = "airflow"


def job_id(nonce: str, user_job_name: str | None = None) -> str:
    """``<job_name>-<nonce>`` within the job id's rules: the user's ``job_name`` lower-cased, each run of other
    characters made one ``-``, cut to fit 63 characters (the nonce alone keeps ids apart, so a shortened or
    folded name never merges two jobs); ``j`` in front of a name that does not start with a letter."""
    prefix = re.sub(r"[^a-z0-9]+", "-", str(user_job_name or "").lower()).strip("-") or DEFAULT_PREFIX
    if not prefix[0].isalpha():
        prefix = "j" + prefix
    prefix = prefix[: MAX_JOB_ID - 1 - len(nonce)].rstrip("-")
    return f"{prefix}-{nonce}"


class CloudBatchJobClient(GoogleRegionalClient):
    """``CreateJob`` under the key-derived job id; ``GetJob`` for its state; ``CancelJob`` on a user's kill."""

    vendor: ClassVar[str] = "Cloud Batch"
    states: ClassVar[StateTable] = JOB_STATES
    status_endpoint: ClassVar[str] = "BatchService.GetJob"
    region_hint = "the Cloud Batch location of the job (for example 'us-central1')"

    @property
    def submit_endpoint(self) -> str:
        return "BatchService.CreateJob"

    def _make_hook(self) -> Any:
        # looked up in the official operator module, as the official operator does (its tests patch it there)
        from airflow.providers.google.cloud.operators import cloud_batch

        return cloud_batch.CloudBatchHook(self.gcp_conn_id, self.impersonation_chain)

    def _make_async_hook(self) -> Any:
        from airflow.providers.google.cloud.hooks.cloud_batch import CloudBatchAsyncHook

        return CloudBatchAsyncHook(gcp_conn_id=self.gcp_conn_id, impersonation_chain=self.impersonation_chain)

    def name(self, job_id: Any) -> str:
        """The job's resource name (an official trigger's event carries the full name already)."""
        ident = str(job_id)
        if ident.startswith("projects/"):
            return ident
        return f"projects/{self.project}/locations/{self.region}/jobs/{ident}"

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return job_id(nonce, user_token)

    def submit(self, request: Mapping[str, Any], key: str) -> str:
        """The official hook's ``submit_batch_job`` with the key as ``job_name``; ``ALREADY_EXISTS``: ours."""
        from google.api_core.exceptions import AlreadyExists

        job = request["job"]
        if not isinstance(job, dict):
            from google.cloud.batch_v1 import Job

            job = json.loads(Job.to_json(job))
        try:
            self.hook.submit_batch_job(job_name=key, job=job, region=self.region, project_id=self.project)
        except AlreadyExists:
            log.info("Cloud Batch job %s already exists: it was created under this key", key)
        return key

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        return None if self.status(key).phase is JobPhase.MISSING else key

    def _status(self, job: Any) -> JobStatus:
        if job is None or getattr(job, "status", None) is None:
            raise UnreadableReplyError(f"{self.status_endpoint} answered a reply that is not a Job ({cap(job, 100)})")
        state = job.status.state.name
        events = list(job.status.status_events or [])
        message = str(events[-1].description) if events else ""
        return JobStatus(self.phase_of(state), state, message, raw={"name": job.name, "state": state})

    def _get(self, job_id: Any) -> Any:
        return self.hook.get_conn().get_job(name=self.name(job_id), retry=None, timeout=self.call_timeout)

    async def _aget(self, job_id: Any) -> Any:
        return await self.async_hook.get_conn().get_job(name=self.name(job_id), retry=None, timeout=self.call_timeout)

    def get_job(self, job_id: Any) -> Any:
        """The job, as the official operator returns it (``hook.get_job`` by resource name)."""
        return self.hook.get_job(job_name=self.name(job_id))

    def cancel(self, job_id: Any) -> None:
        from google.api_core.exceptions import FailedPrecondition

        try:
            self.hook.get_conn().cancel_job(name=self.name(job_id), timeout=self.call_timeout)
        except FailedPrecondition as err:  # the job already ended: nothing to cancel
            log.info("Cloud Batch did not cancel job %s: %s", job_id, cap(err, 200))

    def url(self, job_id: Any) -> str | None:
        return (f"https://console.cloud.google.com/batch/jobsDetail/regions/{self.region}/jobs/{job_id}/details"
                f"?project={self.project_id}")

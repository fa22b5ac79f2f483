"""Dataproc jobs through the official ``DataprocHook`` / ``DataprocAsyncHook`` (gRPC JobController).

Idempotency (``SubmitJobRequest.request_id``, Dataproc API reference): "If the server receives two
SubmitJobRequest requests with the same id, then the second request will be ignored and the first Job
created and stored in the backend is returned. ... The id must contain only letters (a-z, A-Z), numbers
(0-9), underscores (_), and hyphens (-). The maximum length is 40 characters." The epoch's key is that
``request_id``; the job's ``reference.job_id`` carries it too (``<the user's job id>-<key>`` when the user
fixed one), so a resend after the request id is forgotten answers ``ALREADY_EXISTS`` for *our* job id, which
we then read, instead of creating a second job.

Dataproc cannot be asked for a job by its request id: ``find()`` answers None and the protocol resends the
same request (the rule above returns the first job).

Status calls are made with ``retry=None``: the client library's default retries ``GetJob`` / ``ListJobs`` on
DEADLINE_EXCEEDED, INTERNAL and UNAVAILABLE for up to 900 s, which would hide an outage from the shared fault
policy (``poll_error_budget``, Retry-After, the message that the job may still be running). The submit keeps
the operator's ``retry`` (the library retries UNAVAILABLE): every resend carries the same ``request_id``.

What Google does not document, and the side taken: how long a ``request_id`` is remembered (the job id
carrying the key covers a forgotten one); what ``CancelJob`` answers for a job that already ended (best
effort: a ``FAILED_PRECONDITION`` is logged, never a failure of ours); whether ``ATTEMPT_FAILURE`` ("applies
to restartable jobs only") ends a job (no: it is active, the job may restart).
"""

from __future__ import annotations

import copy
import hashlib
import logging
import re
from abc import abstractmethod
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.faults import UnreadableReplyError, cap
from durable_jobs.core.pacing import pace_call
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.google.cloud.clients.base import GoogleRegionalClient

log = logging.getLogger(__name__)

#: ``google.cloud.dataproc.v1.JobStatus.State`` (the client library's enum, whose docstrings are Google's):
#: DONE "The job has completed successfully"; ERROR "The job has completed, but encountered an error";
#: CANCELLED "The job cancellation was successful". CANCEL_PENDING / CANCEL_STARTED end in CANCELLED;
#: ATTEMPT_FAILURE "Job attempt has failed ... Applies to restartable jobs only": the job may restart, so
#: it is active. STATE_UNSPECIFIED "The job state is unknown": not in the table, watched, never an end.
JOB_STATES = StateTable(
    vendor="Dataproc job",
    active=frozenset({"PENDING", "SETUP_DONE", "RUNNING", "CANCEL_PENDING", "CANCEL_STARTED", "ATTEMPT_FAILURE"}),
    succeeded=frozenset({"DONE"}),
    failed=frozenset({"ERROR", "CANCELLED"}),
)
MAX_REQUEST_ID = 40
MAX_JOB_ID = 100
_ID_CHARS = re.compile(r"^[A-Za-z0-9_-]+$")


def request_id(nonce: str, user_token: str | None = None) -> str:
    """The ``request_id``: the nonce (32 hex), or ``<user request id>-<nonce>`` within 40 characters (a long
    or ill-formed user id is shortened to a digest)."""
    return _user_prefixed(nonce, user_token, MAX_REQUEST_ID)


def job_reference_id(key: str, user_job_id: str | None) -> str:
    """The job id: the key, or ``<user's job id>-<key>`` within 100 characters."""
    return _user_prefixed(key, user_job_id, MAX_JOB_ID)


def _user_prefixed(tail: str, user_part: str | None, max_length: int) -> str:
    """``tail`` alone, or ``<user part>-<tail>`` within ``max_length``; a user part that is too long or holds
    characters an id cannot becomes its digest, so that the key at the end stays whole."""
    if not user_part:
        return tail
    prefix = str(user_part)
    room = max_length - 1 - len(tail)
    if len(prefix) > room or not _ID_CHARS.match(prefix):
        prefix = hashlib.sha256(prefix.encode()).hexdigest()[:room]
    return f"{prefix}-{tail}"


class _DataprocClient(GoogleRegionalClient):
    """What the job and the batch clients share: the Dataproc hooks."""

    region_hint = "the Dataproc region of the job (for example 'europe-west1')"

    def _make_hook(self) -> Any:
        from airflow.providers.google.cloud.hooks.dataproc import DataprocHook

        return DataprocHook(gcp_conn_id=self.gcp_conn_id, impersonation_chain=self.impersonation_chain)

    def _make_async_hook(self) -> Any:
        from airflow.providers.google.cloud.hooks.dataproc import DataprocAsyncHook

        return DataprocAsyncHook(gcp_conn_id=self.gcp_conn_id, impersonation_chain=self.impersonation_chain)

    @abstractmethod
    async def _running_listing(self) -> Any:
        """The async pager of the region's workloads that are running (its first page paced; later pages not)."""

    @abstractmethod
    def _listed_id(self, item: Any) -> str:
        """The id ``status`` takes, of a workload the listing shows."""

    async def astatuses(self, job_ids: Iterable[Any]) -> Mapping[Any, JobStatus | Exception]:
        """One listing of the running workloads for two or more; one it does not show has left those states (or
        not reached them yet) and is read alone with a get (once, as per-workload polling would)."""
        ids = list(job_ids)
        if len(ids) < 2:
            return await super().astatuses(ids)
        listed = {self._listed_id(item): self._status(item) async for item in await self._running_listing()}
        out = {i: listed[str(i)] for i in ids if str(i) in listed}
        rest = [i for i in ids if i not in out]
        if rest:
            out.update(await super().astatuses(rest))
        return out


class DataprocJobClient(_DataprocClient):
    """``SubmitJob`` under ``request_id`` (and a key-derived job id); ``GetJob``; ``ListJobs`` for many."""

    vendor: ClassVar[str] = "Dataproc"
    states: ClassVar[StateTable] = JOB_STATES
    status_endpoint: ClassVar[str] = "JobController.GetJob"
    async_client_attribute = "_cached_client"

    @property
    def submit_endpoint(self) -> str:
        return "JobController.SubmitJob"

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return request_id(nonce, user_token)

    def submit(self, request: Mapping[str, Any], key: str) -> str:
        from google.api_core.exceptions import AlreadyExists
        from google.api_core.gapic_v1.method import DEFAULT
        from google.cloud.dataproc_v1 import Job

        job = request["job"]
        payload = Job.to_dict(job) if isinstance(job, Job) else copy.deepcopy(dict(job))
        reference = dict(payload.get("reference") or {})
        job_id = job_reference_id(key, reference.get("job_id") or None)
        payload["reference"] = {**reference, "job_id": job_id}
        try:
            submitted = self.hook.submit_job(
                project_id=self.project, region=self.region, job=payload, request_id=key,
                retry=request.get("retry", DEFAULT), timeout=request.get("timeout") or self.call_timeout,
                metadata=request.get("metadata") or (),
            )
        except AlreadyExists:
            # the job id carries the key: the job that exists under it is ours (request id forgotten)
            log.info("Dataproc job %s already exists: it was submitted under this key; reading it", job_id)
            return str(self.hook.get_job(job_id=job_id, project_id=self.project, region=self.region)
                       .reference.job_id)
        return str(submitted.reference.job_id)

    def find(self, key: str, *, since: datetime | None = None) -> None:
        # No lookup by request id; a resend under it returns the first job (the documented rule).
        return None

    def _status(self, job: Any) -> JobStatus:
        if job is None or getattr(job, "status", None) is None:
            # grpc.aio hands back None for a reply it could not deserialise (the sync client raises INTERNAL)
            raise UnreadableReplyError(f"{self.status_endpoint} answered a reply that is not a Job ({cap(job, 100)})")
        state = job.status.state.name
        return JobStatus(self.phase_of(state), state, str(job.status.details or ""),
                         raw={"job_id": job.reference.job_id, "state": state})

    def _get(self, job_id: Any) -> Any:
        return self.hook.get_job(job_id=str(job_id), project_id=self.project, region=self.region, retry=None,
                                 timeout=self.call_timeout)

    async def _aget(self, job_id: Any) -> Any:
        return await self.async_hook.get_job(job_id=str(job_id), project_id=self.project_id, region=self.region,
                                             retry=None, timeout=self.call_timeout)

    async def _running_listing(self) -> Any:
        """``ListJobs`` with ``filter="status.state = ACTIVE"`` (paged): a job it does not show has left the
        active states."""
        client = await self.async_hook.get_job_client(region=self.region)
        await pace_call()  # the listing's first page (later pages are not paced)
        return await client.list_jobs(request={"project_id": self.project_id, "region": self.region,
                                               "filter": "status.state = ACTIVE"}, retry=None,
                                      timeout=self.call_timeout)

    def _listed_id(self, item: Any) -> str:
        return str(item.reference.job_id)

    def cancel(self, job_id: Any) -> None:
        from google.api_core.exceptions import FailedPrecondition

        try:
            self.hook.cancel_job(job_id=str(job_id), project_id=self.project, region=self.region)
        except FailedPrecondition as err:  # the job already ended: nothing to cancel
            log.info("Dataproc did not cancel job %s: %s", job_id, cap(err, 200))

    def status_from_official_event(self, event: Mapping[str, Any]) -> JobStatus | None:
        """``DataprocSubmitTrigger`` yields ``{"job_id", "job_state", "job"}`` once the job ended."""
        state = event.get("job_state")
        if isinstance(state, str) and self.phase_of(state) in (JobPhase.SUCCEEDED, JobPhase.FAILED):
            return JobStatus(self.phase_of(state), state, "the official trigger reported it")
        return None

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """What the official ``execute_complete`` reads: it fails only on ERROR / CANCELLED, so any end that is
        not DONE is reported as ERROR (a task switched back to the official import while deferred)."""
        state = status.state if status.state in ("DONE", "CANCELLED") else "ERROR"
        return {"job_state": state, "job": {"job_id": str(job_id), "state": status.state}}

    def url(self, job_id: Any) -> str | None:
        from airflow.providers.google.cloud.links.dataproc import DATAPROC_JOB_LINK

        return DATAPROC_JOB_LINK.format(region=self.region, project_id=self.project_id, job_id=job_id)


# ============================================================================ Dataproc Serverless batches
#: ``google.cloud.dataproc.v1.Batch.State``: PENDING "The batch is created before running"; RUNNING; CANCELLING
#: "The batch is cancelling"; CANCELLED "The batch cancellation was successful"; SUCCEEDED "The batch completed
#: successfully"; FAILED "The batch is no longer running due to an error". STATE_UNSPECIFIED: not in the table.
BATCH_STATES = StateTable(
    vendor="Dataproc batch",
    active=frozenset({"PENDING", "RUNNING", "CANCELLING"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"FAILED", "CANCELLED"}),
)
MAX_BATCH_ID = 63
_BATCH_CHARS = re.compile(r"^[a-z0-9-]+$")
#: The prefix of a key-derived batch id when the user gave neither ``batch_id`` nor ``batch_id_prefix``.
DEFAULT_BATCH_PREFIX = "airflow"


def batch_id(nonce: str, user_token: str | None = None) -> str:
    """``CreateBatchRequest.batch_id`` ("4-63 characters. Valid characters are /[a-z][0-9]-/"): ``<prefix>-<nonce>``,
    the prefix being the user's ``batch_id`` / ``batch_id_prefix`` (a long or ill-formed one: a digest)."""
    prefix = str(user_token) if user_token else DEFAULT_BATCH_PREFIX
    room = MAX_BATCH_ID - 1 - len(nonce)
    if len(prefix) > room or not _BATCH_CHARS.match(prefix):
        prefix = "b" + hashlib.sha256(prefix.encode()).hexdigest()[: room - 1]
    return f"{prefix}-{nonce}"


def nonce_of(key: str) -> str:
    """The nonce a batch key ends with (the request id is made from it)."""
    return key.rpartition("-")[2]


class DataprocBatchClient(_DataprocClient):
    """``CreateBatch`` under a key-derived ``batch_id`` and ``request_id``; ``GetBatch``; ``ListBatches`` for many.

    The batch id *is* the key, so ``find()`` is a ``GetBatch``: a batch created before a lost reply or a crash is
    found by its id, and a resend of the same request would answer the first operation anyway."""

    vendor: ClassVar[str] = "Dataproc"
    states: ClassVar[StateTable] = BATCH_STATES
    status_endpoint: ClassVar[str] = "BatchController.GetBatch"
    async_client_attribute = "_cached_batch_client"

    @property
    def submit_endpoint(self) -> str:
        return "BatchController.CreateBatch"

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return batch_id(nonce, user_token)

    def submit(self, request: Mapping[str, Any], key: str) -> str:
        from google.api_core.exceptions import AlreadyExists
        from google.api_core.gapic_v1.method import DEFAULT

        req_id = request_id(nonce_of(key) + str(request.get("request_suffix") or ""), request.get("request_id"))
        try:
            self.hook.create_batch(
                region=self.region, project_id=self.project, batch=request["batch"], batch_id=key,
                request_id=req_id, retry=request.get("retry", DEFAULT),
                timeout=request.get("timeout") or self.call_timeout, metadata=request.get("metadata") or (),
            )
        except AlreadyExists:  # the batch id carries the key: the batch under it is ours
            log.info("Dataproc batch %s already exists: it was created under this key", key)
        return key

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        status = self.status(key)
        return None if status.phase is JobPhase.MISSING else key

    def _status(self, batch: Any) -> JobStatus:
        if batch is None or getattr(batch, "state", None) is None:
            raise UnreadableReplyError(f"{self.status_endpoint} answered a reply that is not a Batch "
                                       f"({cap(batch, 100)})")
        state = batch.state.name
        return JobStatus(self.phase_of(state), state, str(batch.state_message or ""),
                         raw={"batch_id": batch.name.rpartition("/")[2], "state": state,
                              "operation": batch.operation})

    def _get(self, job_id: Any) -> Any:
        return self.hook.get_batch(batch_id=str(job_id), region=self.region, project_id=self.project, retry=None,
                                   timeout=self.call_timeout)

    async def _aget(self, job_id: Any) -> Any:
        return await self.async_hook.get_batch(batch_id=str(job_id), region=self.region, project_id=self.project_id,
                                               retry=None, timeout=self.call_timeout)

    async def _running_listing(self) -> Any:
        """``ListBatches`` with ``filter="state = RUNNING"`` (paged, 1,000 a page): a batch it does not show is
        pending, ending or ended."""
        client = await self.async_hook.get_batch_client(region=self.region)
        await pace_call()  # the listing's first page (later pages are not paced)
        return await client.list_batches(
            request={"parent": f"projects/{self.project_id}/locations/{self.region}", "filter": "state = RUNNING",
                     "page_size": 1000}, retry=None, timeout=self.call_timeout)

    def _listed_id(self, item: Any) -> str:
        return str(item.name.rpartition("/")[2])

    def cancel(self, job_id: Any) -> None:
        """Cancel the batch's long-running operation (what the official ``on_kill`` does)."""
        status = self.status(job_id)
        operation = status.raw.get("operation")
        if status.is_terminal or not operation:
            log.info("Dataproc batch %s is %s: nothing to cancel", job_id, status.state)
            return
        self.hook.get_operations_client(region=self.region).cancel_operation(name=operation)

    def url(self, job_id: Any) -> str | None:
        from airflow.providers.google.cloud.links.dataproc import DATAPROC_BATCH_LINK

        return DATAPROC_BATCH_LINK.format(region=self.region, project_id=self.project_id, batch_id=job_id)

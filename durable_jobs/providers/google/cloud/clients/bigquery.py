"""BigQuery jobs (``jobs.insert``) through the official ``BigQueryHook`` and ``BigQueryAsyncHook``.

The key *is* the job id. BigQuery job ids are chosen by the client (``jobReference.jobId``: "letters (a-z,
A-Z), numbers (0-9), underscores (_), or dashes (-). The maximum length is 1,024 characters"), and an insert
under an id the project already has fails: "If the BigQuery REST API receives a jobs.insert request for a job
with the same ID, the REST API fails because the job already exists" (python-bigquery, *Design of query
retries*). So the id is ``<prefix>_<nonce>``: a resend after a lost reply answers 409 and the job is fetched;
``find(key)`` is an exact ``jobs.get``. The prefix is the user's ``job_id`` or upstream's
``airflow_<dag_id>_<task_id>`` form.

States (BigQuery, *Manage jobs*): "PENDING: The job is scheduled and waiting to be run. RUNNING: The job is in
progress. DONE: The job is completed. If the job completes without errors, then BigQuery reports this state as
SUCCESS. If the job completes with errors, then BigQuery reports this state as FAILURE." ``status()`` reports
those two words for a DONE job (``errorResult`` decides), so that the state table is the documented one.

What Google does not document, and the side taken: how long a job id stays taken (the job history; a
``jobs.get`` 404 is read as "gone", and the protocol then starts a new epoch with a new nonce, never reusing
the id); whether the id is unique per project or per location (the emulator takes per project, which can only
refuse more); what ``jobs.cancel`` answers for a finished job (best effort, never a failure of ours).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.client import JobClient
from durable_jobs.core.exceptions import DurableJobConfigError, JobFailedError
from durable_jobs.core.faults import Fault, FaultKind, cap, chain, generic_classify, kind_for_status
from durable_jobs.core.pacing import pace_call
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.google.cloud.clients.base import missing_status

JOB_STATES = StateTable(
    vendor="BigQuery job",
    active=frozenset({"PENDING", "RUNNING"}),
    succeeded=frozenset({"SUCCESS"}),
    failed=frozenset({"FAILURE"}),
)
#: ``jobReference.jobId``'s documented alphabet and length.
JOB_ID_RULE = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_JOB_ID = 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
#: Above this many watched jobs, ``astatuses`` lists the active ones (two listings) instead of one get each.
LIST_THRESHOLD = 2


def job_id_for(nonce: str, prefix: str | None) -> str:
    """``<prefix>_<nonce>``, within BigQuery's 1,024 characters (the prefix is cut, never the nonce)."""
    if not prefix:
        return f"airflow_{nonce}"
    return f"{prefix[: MAX_JOB_ID - len(nonce) - 1]}_{nonce}"


def default_prefix(dag_id: str, task_id: str) -> str:
    """Upstream's ``airflow_<dag_id>_<task_id>`` form, with characters a job id cannot hold made ``_``."""
    return _UNSAFE.sub("_", f"airflow_{dag_id}_{task_id}")


def check_user_job_id(job_id: str) -> str:
    """A user's ``job_id`` is our prefix: it must already be a valid job id."""
    if not JOB_ID_RULE.match(job_id):
        bad = sorted(set(_UNSAFE.findall(job_id)))
        raise DurableJobConfigError(
            f"job_id={cap(job_id, 100)!r} holds {bad}: BigQuery job ids take only letters, digits, '_' and '-'. "
            "Fix the job_id argument (it becomes the prefix of the job id; durable-jobs appends the epoch's key)."
        )
    return job_id


class BigQueryJobClient(JobClient):
    """``jobs.insert`` under a client-chosen job id; ``jobs.get`` / ``jobs.list`` / ``jobs.cancel``."""

    vendor: ClassVar[str] = "BigQuery"
    states: ClassVar[StateTable] = JOB_STATES
    status_endpoint: ClassVar[str] = "GET projects/{project}/jobs/{jobId}"

    def __init__(self, gcp_conn_id: str = "google_cloud_default", *, project_id: str | None = None,
                 location: str | None = None, impersonation_chain: str | list[str] | None = None) -> None:
        if impersonation_chain is not None and not isinstance(impersonation_chain, (str, list, tuple)):
            raise DurableJobConfigError(
                f"impersonation_chain must be a service account (str) or a list of them, got "
                f"{type(impersonation_chain).__name__}"
            )
        self.gcp_conn_id = gcp_conn_id
        self._project_id = project_id
        self.location = location
        self.impersonation_chain = list(impersonation_chain) if isinstance(impersonation_chain, tuple) \
            else impersonation_chain
        self._hook: Any = None
        self._async_hook: Any = None
        self.jobs: dict[str, Any] = {}  # job objects seen, for the operator's links and lineage

    def serialize(self) -> dict[str, Any]:
        return {"gcp_conn_id": self.gcp_conn_id, "project_id": self._project_id, "location": self.location,
                "impersonation_chain": self.impersonation_chain}

    @property
    def connection_id(self) -> str | None:
        return self.gcp_conn_id

    @property
    def submit_endpoint(self) -> str:
        return "POST projects/{project}/jobs (jobs.insert)"

    @property
    def hook(self) -> Any:
        if self._hook is None:
            # The name the official operator module binds: the hook is built exactly as the official operator
            # builds it (and a test that patches the operator module's BigQueryHook patches ours too).
            from airflow.providers.google.cloud.operators.bigquery import BigQueryHook

            self._hook = BigQueryHook(gcp_conn_id=self.gcp_conn_id, impersonation_chain=self.impersonation_chain)
        return self._hook

    @property
    def async_hook(self) -> Any:
        if self._async_hook is None:
            from airflow.providers.google.cloud.triggers.bigquery import BigQueryAsyncHook  # as the trigger

            self._async_hook = BigQueryAsyncHook(gcp_conn_id=self.gcp_conn_id,
                                                 impersonation_chain=self.impersonation_chain)
        return self._async_hook

    @property
    def project_id(self) -> str:
        """The operator's ``project_id``, else the connection's project (as the official operator falls back)."""
        if not self._project_id:
            self._project_id = self.hook.project_id
        return str(self._project_id)

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return job_id_for(nonce, user_token)

    def classify(self, err: BaseException) -> Fault:
        for cause in chain(err):
            module = type(cause).__module__
            code = getattr(cause, "code", None)
            if module.startswith("google.api_core") and isinstance(code, int):
                return Fault(kind_for_status(code), cap(getattr(cause, "message", cause), 300), code)
            if module.startswith("google.auth"):
                if type(cause).__name__ == "TransportError":
                    return Fault(FaultKind.TRANSIENT, f"token request failed ({cap(cause, 200)})")
                return Fault(FaultKind.AUTH, cap(cause, 300))
        found = generic_classify(err)
        if found is not None:
            return found
        return Fault(FaultKind.REJECTED, f"{type(err).__name__}: {cap(err, 300)}")

    # ------------------------------------------------------------------ submit
    def submit(self, request: Mapping[str, Any], key: str) -> str:
        """The official ``insert_job`` (nowait, its lineage) under job id ``key``; a 409 fetches that job."""
        from google.api_core.exceptions import Conflict

        project = str(request.get("project_id") or self.project_id)
        try:
            job = self.hook.insert_job(
                configuration=request["configuration"], project_id=project, location=request.get("location"),
                job_id=key, timeout=request.get("timeout"), nowait=True,
                **({"retry": request["retry"]} if request.get("retry") is not None else {}),
            )
        except Conflict:
            job = self.hook.get_job(job_id=key, project_id=project, location=request.get("location"))
            self.hook.log.info("BigQuery job %s already exists (a resend under the same id): reattaching to it", key)
        self.jobs[key] = self.jobs[str(job.job_id)] = job
        return str(job.job_id)

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        """The key is the job id: one ``jobs.get``."""
        try:
            job = self.hook.get_job(job_id=key, project_id=self.project_id, location=self.location)
        except Exception as err:
            if self.classify(err).kind is FaultKind.NOT_FOUND:
                return None
            raise
        self.jobs[key] = job
        return str(job.job_id)

    def job(self, job_id: str) -> Any:
        """The job object (from the submit or the last status), fetched when this process has none."""
        if job_id not in self.jobs:
            status = self.status(job_id)
            if job_id not in self.jobs:
                raise JobFailedError(f"BigQuery job {job_id} no longer exists ({status.message}). A retry "
                                     "submits a new job.", job_id=job_id, state=status.state)
        return self.jobs[job_id]

    # ------------------------------------------------------------------ status
    @staticmethod
    def _of_job(job: Any) -> JobStatus:
        state = str(job.state)
        if state == "DONE":
            error = job.error_result
            if error:  # a dict in BigQuery's replies (``ErrorProto``); read anything else as its text
                message = error.get("message") if isinstance(error, Mapping) else None
                return JobStatus(JobPhase.FAILED, "FAILURE", str(message or error), raw={"error": error})
            return JobStatus(JobPhase.SUCCEEDED, "SUCCESS", "Job completed")
        return JobStatus(JOB_STATES.phase(state), state, "Job running")

    def status(self, job_id: Any) -> JobStatus:
        try:
            job = self.hook.get_job(job_id=str(job_id), project_id=self.project_id, location=self.location)
        except Exception as err:
            if self.classify(err).kind is FaultKind.NOT_FOUND:
                return missing_status(err)
            raise
        self.jobs[str(job_id)] = job
        return self._of_job(job)

    async def astatus(self, job_id: Any) -> JobStatus:
        """The official trigger's call (``BigQueryAsyncHook.get_job_status``), read into the documented states."""
        try:
            reply = await self.async_hook.get_job_status(job_id=str(job_id), project_id=self.project_id,
                                                         location=self.location)
        except Exception as err:
            if self.classify(err).kind is FaultKind.NOT_FOUND:
                return missing_status(err)
            raise
        word = str(reply.get("status", "")).upper()
        state = {"SUCCESS": "SUCCESS", "ERROR": "FAILURE"}.get(word, word)
        return JobStatus(self.phase_of(state), state, str(reply.get("message") or ""), raw=dict(reply))

    async def astatuses(self, job_ids: Iterable[Any]) -> Mapping[Any, JobStatus | Exception]:
        """Many jobs: list the project's PENDING and RUNNING jobs (two ``jobs.list`` calls), then one get for
        each watched job that left them (it ended: its outcome needs ``errorResult``)."""
        ids = list(job_ids)
        if len(ids) <= LIST_THRESHOLD:
            return await super().astatuses(ids)
        wanted = {str(i) for i in ids}

        def active() -> dict[str, str]:
            client = self.hook.get_client(project_id=self.project_id, location=self.location)
            seen: dict[str, str] = {}
            for state in ("pending", "running"):
                for job in client.list_jobs(project=self.project_id, state_filter=state):
                    if job.job_id in wanted:
                        seen[job.job_id] = str(job.state)
            return seen

        await pace_call()
        await pace_call()  # two listings (pending, running) in the thread below
        listed = await asyncio.to_thread(active)
        out: dict[Any, JobStatus] = {i: JobStatus(JobPhase.ACTIVE, listed[str(i)], "Job running")
                                     for i in ids if str(i) in listed}
        out.update(await super().astatuses([i for i in ids if str(i) not in listed]))
        return out

    def cancel(self, job_id: Any) -> None:
        """The official ``BigQueryHook.cancel_job`` (``jobs.cancel``, then it waits for DONE)."""
        self.hook.cancel_job(job_id=str(job_id), project_id=self.project_id, location=self.location)

    async def acancel(self, job_id: Any) -> None:
        """The official trigger's cancel (``BigQueryAsyncHook.cancel_job``, gcloud-aio)."""
        await self.async_hook.cancel_job(job_id=str(job_id), project_id=self.project_id, location=self.location)

    def status_from_official_event(self, event: Mapping[str, Any]) -> JobStatus | None:
        """``BigQueryInsertJobTrigger`` says "success" only for a DONE job without ``errorResult``."""
        if event.get("status") == "success":
            return JobStatus(JobPhase.SUCCEEDED, "SUCCESS", str(event.get("message") or ""))
        return None

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """What the official ``execute_complete`` reads: ``status`` "success" or "error" and ``message``."""
        word = "success" if status.phase is JobPhase.SUCCEEDED else "error"
        return {"status": word}  # the trigger adds the message

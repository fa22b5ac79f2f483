"""Dataflow template jobs (classic and flex) through the official ``DataflowHook`` (REST v1b3, discovery client).

Idempotency: the job name. ``Job.name`` (Dataflow REST reference): "Only one active job with a given name can
exist in a project within one region at any given time. ... If a caller attempts to create a job with the same
name as an active job that already exists, the attempt returns the existing job. The name must match the
regular expression ``[a-z]([-a-z0-9]{0,1022}[a-z0-9])?``". The epoch's key *is* the job name
(``<the user's job_name>-<nonce>``, in place of the 8-character uuid upstream appends on every try), so:

* a launch that answers with a job (``{"job": ...}``): that job, whether new or the active one of that name;
* a launch that answers 409 ``ALREADY_EXISTS`` ("There is already an active job named ..." - what
  ``templates:launch`` / ``flexTemplates:launch`` are seen to answer; Google's reference documents the
  "returns the existing job" of ``jobs.create`` only): the name is listed as ``find`` lists it and that job
  re-attached (it may have ended since the 409);
* a lost reply or a crash: ``find`` lists the region's jobs by name (``jobs.list`` ``name``: "Optional. The
  job name."; ``filter=ALL``: "Returns all running jobs first ordered on creation timestamp, then returns all
  terminated jobs ordered on the termination timestamp") and takes the active one, else the newest ended one -
  the name carries a 128-bit nonce, so any job under it is ours; a DONE one is this epoch's result, a FAILED or
  CANCELLED one starts the next epoch (a new name), as the decision order says.

Google does not say how soon a launched job shows in ``jobs.list`` (``jobs.get`` by id is not the question: the
id is what was lost). An empty listing is not taken as proof of absence until ``[durable_jobs]
dataflow_list_consistency_seconds`` (default 15 s) have passed since the launch attempt (after a crash: since the
intent was written): ``durable_jobs.core.listing.scan_until_consistent``.

``append_job_name=False`` (upstream: the name exactly as given, a duplicate fails while the first is active):
the name is the user's, unchanged; a 409 re-attaches to the active job of that name (which may be another run's:
that is what a fixed name shares), and ``find`` looks at *active* jobs only - an ended job under a reused name
may be yesterday's, so it is never adopted, and a job that ended while its task was down is launched again.

``clientRequestId`` ("The request to create a job will fail if the service has knowledge of a previously
submitted job with the same client's ID and job name") belongs to ``jobs.create``; neither launch request has
it, so it is not used.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.client import JobClient
from durable_jobs.core.faults import (
    Fault,
    FaultKind,
    UnreadableReplyError,
    cap,
    chain,
    generic_classify,
    kind_for_status,
    retry_after_seconds,
)
from durable_jobs.core.listing import scan_until_consistent
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.google.cloud.clients.base import (
    ConnectionProject,
    listing_consistency_seconds,
    missing_status,
)

log = logging.getLogger(__name__)

DONE, RUNNING, FAILED = "JOB_STATE_DONE", "JOB_STATE_RUNNING", "JOB_STATE_FAILED"
STOPPED, CANCELLED, DRAINED = "JOB_STATE_STOPPED", "JOB_STATE_CANCELLED", "JOB_STATE_DRAINED"
#: ``Job.currentState`` (the v1b3 reference's enum). Not ended: PENDING ("created but is not yet running"),
#: QUEUED ("being delayed until launch"), RUNNING, STOPPED ("has not yet started to run"), CANCELLING, DRAINING,
#: RESOURCE_CLEANING_UP ("resources are currently being cleaned up after a successful run"), PAUSING, PAUSED
#: ("can transition back to JOB_STATE_RUNNING"). Ended: DONE, FAILED, CANCELLED, UPDATED ("this job was stopped
#: and another job was started, inheriting state from this one"), DRAINED. Whether an ended job *succeeded*
#: depends on the job's type and the operator's ``expected_terminal_state`` (``dataflow_phase``); the table is
#: the default reading (a batch job: DONE).
JOB_STATES = StateTable(
    vendor="Dataflow job",
    active=frozenset({"JOB_STATE_PENDING", "JOB_STATE_QUEUED", RUNNING, STOPPED, "JOB_STATE_CANCELLING",
                      "JOB_STATE_DRAINING", "JOB_STATE_RESOURCE_CLEANING_UP", "JOB_STATE_PAUSING",
                      "JOB_STATE_PAUSED"}),
    succeeded=frozenset({DONE}),
    failed=frozenset({FAILED, CANCELLED, "JOB_STATE_UPDATED", DRAINED}),
)
#: upstream's ``DataflowJobStatus.AWAITING_STATES``: the states its synchronous wait keeps waiting in.
AWAITING = frozenset({RUNNING, "JOB_STATE_PENDING", "JOB_STATE_QUEUED", "JOB_STATE_CANCELLING",
                      "JOB_STATE_DRAINING", STOPPED})
#: upstream's ``TERMINAL_STATES | {RUNNING}``: what ``expected_terminal_state`` may name.
EXPECTABLE = frozenset({DONE, "JOB_STATE_UPDATED", DRAINED, FAILED, CANCELLED, RUNNING})
MAX_NAME = 1024
_NAME = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
DEFAULT_PREFIX = "airflow"


def job_name(nonce: str, user_job_name: str | None = None, *, append: bool = True) -> str:
    """``<job_name>-<nonce>`` (``append``) or the name itself, checked as upstream's ``build_dataflow_job_name``
    checks it (``_`` becomes ``-``; anything else outside Dataflow's rule is refused, naming the argument)."""
    base = str(user_job_name or DEFAULT_PREFIX).replace("_", "-")
    if not _NAME.fullmatch(base):
        raise ValueError(f"Invalid job_name ({base}); the name must consist of only the characters [-a-z0-9], "
                         "starting with a letter and ending with a letter or number")
    if not append:
        if len(base) > MAX_NAME:
            raise ValueError(f"job_name is {len(base)} characters long: Dataflow allows {MAX_NAME}")
        return base
    base = base[: MAX_NAME - 1 - len(nonce)].rstrip("-")
    return f"{base}-{nonce}"


def dataflow_phase(job: Mapping[str, Any], *, deferred: bool, expected_terminal_state: str | None,
                   wait_until_finished: bool | None) -> tuple[JobPhase, str]:
    """Upstream's reading of a job's state, as (phase, message).

    Synchronous (``DataflowJobTerminalStateHelper.job_reached_terminal_state``): success is the expected state
    (``expected_terminal_state``, else RUNNING for a streaming job and DONE for a batch job), except RUNNING while
    ``wait_until_finished``; an awaiting state is success when ``wait_until_finished is False`` (the launch
    only), else keep waiting; any other state fails ("unexpected terminal state").
    Deferred (``TemplateJobStartTrigger``): DONE succeeds, FAILED and STOPPED fail, everything else keeps waiting
    - so a streaming job keeps the task deferred until it ends, as upstream. Unlike the trigger, which polls
    for ever on them, the other ended states (CANCELLED, DRAINED, UPDATED) fail the task.
    """
    state = str(job.get("currentState") or "")
    name = job.get("name")
    streaming = job.get("type") == "JOB_TYPE_STREAMING"
    if state not in JOB_STATES.all_states:
        return JobPhase.UNKNOWN, ""
    if deferred:
        if state == DONE:
            return JobPhase.SUCCEEDED, "Job completed"
        if state == FAILED:
            return JobPhase.FAILED, f"Dataflow job with id {job.get('id')} has failed its execution"
        if state == STOPPED:
            return JobPhase.FAILED, f"Dataflow job with id {job.get('id')} was stopped"
        if state in JOB_STATES.active:
            return JobPhase.ACTIVE, ""
        return JobPhase.FAILED, (f"Google Cloud Dataflow job {name} is in an unexpected terminal state: {state}, "
                                 f"expected terminal state: {DONE}")
    expected = expected_terminal_state or (RUNNING if streaming else DONE)
    if streaming and expected == DONE or not streaming and expected == DRAINED:
        kind = "streaming" if streaming else "batch"
        return JobPhase.FAILED, (f"Google Cloud Dataflow job's expected terminal state cannot be {expected} "
                                 f"while it is a {kind} job")
    if state == expected:
        if expected == RUNNING and wait_until_finished:
            return JobPhase.ACTIVE, ""
        return JobPhase.SUCCEEDED, ""
    if state in JOB_STATES.active:
        # upstream's AWAITING_STATES, plus the states it does not know yet (never an end)
        return (JobPhase.SUCCEEDED, "") if wait_until_finished is False else (JobPhase.ACTIVE, "")
    return JobPhase.FAILED, (f"Google Cloud Dataflow job {name} is in an unexpected terminal state: {state}, "
                             f"expected terminal state: {expected}")


def _json(reply: Any, endpoint: str) -> Mapping[str, Any]:
    """googleapiclient hands back the raw text of a body that is not JSON (an HTML error page from a proxy):
    that says nothing about the job, so it is an unreadable reply for the fault policy, not a rejection."""
    if reply is None:
        return {}
    if not isinstance(reply, Mapping):
        raise UnreadableReplyError(f"{endpoint} answered a reply that is not JSON ({cap(reply, 100)})")
    return reply


class DataflowJobClient(ConnectionProject, JobClient):
    """A launch under the key-derived job name; ``jobs.get`` for its state; ``jobs.list`` by name to find it;
    ``jobs.update`` (cancel, or drain a streaming job) on a user's kill. The external id is Dataflow's job id."""

    vendor: ClassVar[str] = "Dataflow"
    states: ClassVar[StateTable] = JOB_STATES
    status_endpoint: ClassVar[str] = "projects.locations.jobs.get"

    def __init__(self, gcp_conn_id: str = "google_cloud_default", *, location: str, project_id: str | None = None,
                 impersonation_chain: str | list[str] | None = None, flex: bool = False, append_job_name: bool = True,
                 deferred: bool = False, expected_terminal_state: str | None = None,
                 wait_until_finished: bool | None = None, drain_pipeline: bool = False,
                 cancel_timeout: float | None = 600, poll_sleep: float = 10,
                 consistency_seconds: float | None = None) -> None:
        if not location:
            raise ValueError("location is required: the Dataflow region of the job (for example 'us-central1')")
        if expected_terminal_state is not None and expected_terminal_state not in EXPECTABLE:
            raise ValueError(f"expected_terminal_state={expected_terminal_state!r}: Google Cloud Dataflow job's "
                             f"expected terminal state is invalid. The value should be any of {sorted(EXPECTABLE)}")
        self.gcp_conn_id = gcp_conn_id
        self.location = location
        self.project_id = project_id
        self.impersonation_chain = list(impersonation_chain) if isinstance(impersonation_chain, (list, tuple)) \
            else impersonation_chain
        self.flex = bool(flex)
        self.append_job_name = bool(append_job_name)
        self.deferred = bool(deferred)
        self.expected_terminal_state = expected_terminal_state
        self.wait_until_finished = wait_until_finished
        self.drain_pipeline = bool(drain_pipeline)
        self.cancel_timeout = float(cancel_timeout) if cancel_timeout else None
        self.poll_sleep = float(poll_sleep)
        self.consistency_seconds = listing_consistency_seconds(consistency_seconds,
                                                              "dataflow_list_consistency_seconds")
        self._hook: Any = None

    def serialize(self) -> dict[str, Any]:
        return {"gcp_conn_id": self.gcp_conn_id, "location": self.location, "project_id": self.project_id,
                "impersonation_chain": self.impersonation_chain, "flex": self.flex,
                "append_job_name": self.append_job_name, "deferred": self.deferred,
                "expected_terminal_state": self.expected_terminal_state,
                "wait_until_finished": self.wait_until_finished, "drain_pipeline": self.drain_pipeline,
                "cancel_timeout": self.cancel_timeout, "poll_sleep": self.poll_sleep,
                "consistency_seconds": self.consistency_seconds}

    @property
    def submit_endpoint(self) -> str:
        return f"projects.locations.{'flexTemplates' if self.flex else 'templates'}.launch"

    @property
    def connection_id(self) -> str | None:
        return self.gcp_conn_id

    @property
    def hook(self) -> Any:
        if self._hook is None:
            # looked up in the official operator module, as the official operator does (its tests patch it there)
            from airflow.providers.google.cloud.operators import dataflow

            self._hook = dataflow.DataflowHook(gcp_conn_id=self.gcp_conn_id, poll_sleep=int(self.poll_sleep),
                                               impersonation_chain=self.impersonation_chain,
                                               drain_pipeline=self.drain_pipeline, cancel_timeout=None)
        return self._hook

    def _jobs(self) -> Any:
        return self.hook.get_conn().projects().locations().jobs()

    def classify(self, err: BaseException) -> Fault:
        """googleapiclient's ``HttpError`` carries its status on ``resp``; the rest is the generic sorting."""
        from googleapiclient.errors import HttpError

        for cause in chain(err):
            if isinstance(cause, HttpError):
                status = int(getattr(cause.resp, "status", 0) or 0)
                retry_after = retry_after_seconds(cause.resp.get("retry-after")) if hasattr(cause.resp, "get") \
                    else None
                return Fault(kind_for_status(status), cap(cause._get_reason() or cause, 300), status, retry_after)
            if type(cause).__module__.startswith("google.auth"):
                return Fault(FaultKind.AUTH, cap(cause, 300))
        return generic_classify(err) or Fault(FaultKind.REJECTED, f"{type(err).__name__}: {cap(err, 300)}")

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return job_name(nonce, user_token, append=self.append_job_name)

    # ------------------------------------------------------------------ launch and find
    def submit(self, request: Mapping[str, Any], key: str) -> str:
        """The official hook's launch request under the key as ``jobName``; a 409: the active job of that name.

        Sent once: with ``num_retries=0`` (the hook's ``send_launch_template_request`` /
        ``launch_job_with_flex_template`` resend a 5xx on their own, up to the connection's ``num_retries``) and
        through ``send_once`` (httplib2 resends a request whose connection closed before the reply): a launch
        whose reply was lost, resent after its job ended, would start a second job under the same name, since
        only *active* names are unique. The fault policy resends instead, after ``find`` has listed the name
        (ended jobs included). A 409 lists the name the same way: the job may have ended since it answered."""
        from googleapiclient.errors import HttpError

        from durable_jobs.providers.google.cloud.clients.send_once import send_once

        service = self.hook.get_conn().projects().locations()
        if self.flex:
            body = copy.deepcopy(dict(request["body"]))
            param = body.get("launchParameter") or body.get("launch_parameter")
            if param is None:
                param = body["launchParameter"] = {}
            param["jobName"] = key
            call = service.flexTemplates().launch(projectId=self.project, body=body, location=self.location)
        else:
            call = service.templates().launch(
                projectId=self.project, location=self.location, gcsPath=request["template"],
                body={"jobName": key, "parameters": request.get("parameters") or {},
                      "environment": request.get("environment") or {}})
        try:
            send_once(call.http)  # the transport of the service built above, for this launch alone
            job = _json(call.execute(num_retries=0), self.submit_endpoint).get("job")
        except HttpError as err:
            if int(getattr(err.resp, "status", 0) or 0) != 409:
                raise
            found = self._scan(key)
            if found is None:
                raise
            log.info("Dataflow already runs job %s under name %s: re-attaching", found, key)
            return found
        if not isinstance(job, Mapping) or not job.get("id"):
            raise UnreadableReplyError(f"{self.submit_endpoint} answered no job id ({cap(job, 200)})")
        return str(job["id"])

    def _scan(self, key: str) -> str | None:
        """One ``jobs.list`` by name (all pages): the active job, else (nonce names only) the newest ended one."""
        jobs = self._jobs()
        request = jobs.list(projectId=self.project, location=self.location, name=key,
                            filter="ALL" if self.append_job_name else "ACTIVE")
        active: list[dict[str, Any]] = []
        ended: list[dict[str, Any]] = []
        while request is not None:
            response = _json(request.execute(num_retries=0), "projects.locations.jobs.list")
            for job in response.get("jobs") or []:
                if job.get("name") != key:  # "The job name": whether Google matches exactly is not said
                    continue
                (active if job.get("currentState") in JOB_STATES.active else ended).append(job)
            request = jobs.list_next(previous_request=request, previous_response=response)
        if active:
            return str(active[0]["id"])
        if ended and self.append_job_name:
            return str(max(ended, key=lambda j: str(j.get("createTime") or ""))["id"])
        return None

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        return scan_until_consistent(lambda: self._scan(key), since=since, window=self.consistency_seconds,
                                     what=f"Dataflow job named {key}")

    # ------------------------------------------------------------------ status
    def _status(self, job: Any) -> JobStatus:
        if not isinstance(job, Mapping) or "currentState" not in job:
            raise UnreadableReplyError(f"{self.status_endpoint} answered a reply that is not a Job "
                                       f"({cap(job, 100)})")
        phase, message = dataflow_phase(job, deferred=self.deferred,
                                        expected_terminal_state=self.expected_terminal_state,
                                        wait_until_finished=self.wait_until_finished)
        raw = {k: job.get(k) for k in ("id", "name", "projectId", "location", "type", "currentState")}
        return JobStatus(phase, str(job["currentState"]), message, raw=raw)

    def get_job(self, job_id: Any) -> dict[str, Any]:
        """The job as ``jobs.get`` answers it (``JOB_VIEW_SUMMARY``, as the official hook reads it)."""
        return dict(_json(self._jobs().get(projectId=self.project, location=self.location, jobId=str(job_id))
                          .execute(num_retries=0), self.status_endpoint))

    def status(self, job_id: Any) -> JobStatus:
        """``jobs.get`` without the client's retries (they would hide an outage from the fault policy)."""
        from googleapiclient.errors import HttpError

        try:
            job = self.get_job(job_id)
        except HttpError as err:
            if int(getattr(err.resp, "status", 0) or 0) == 404:
                return missing_status(err)
            raise
        return self._status(job)

    async def astatus(self, job_id: Any) -> JobStatus:
        """The REST client in a thread: googleapiclient is synchronous (the official trigger uses the gRPC
        ``JobsV1Beta3AsyncClient``; one protocol keeps one set of rules)."""
        return await asyncio.to_thread(self.status, job_id)

    # ------------------------------------------------------------------ cancel
    def request_stop(self, job_id: Any) -> str | None:
        """``jobs.update`` with ``requestedState``: DRAINED for a streaming job with ``drain_pipeline``, else
        CANCELLED (upstream's choice); None when the job had already ended."""
        job = self.get_job(job_id)
        if job.get("currentState") not in JOB_STATES.active:
            log.info("Dataflow job %s already ended (%s): nothing to cancel", job_id, job.get("currentState"))
            return None
        wanted = DRAINED if self.drain_pipeline and job.get("type") == "JOB_TYPE_STREAMING" else CANCELLED
        self._jobs().update(projectId=self.project, location=self.location, jobId=str(job_id),
                            body={"requestedState": wanted}).execute(num_retries=0)
        log.info("Requested %s for Dataflow job %s", wanted, job_id)
        return wanted

    def cancel(self, job_id: Any) -> None:
        """Request the stop, then wait up to ``cancel_timeout`` for CANCELLED/DRAINED (upstream's ``on_kill``)."""
        if self.request_stop(job_id) is None or not self.cancel_timeout:
            return
        deadline = time.monotonic() + self.cancel_timeout
        while time.monotonic() < deadline:
            state = self.get_job(job_id).get("currentState")
            if state in (CANCELLED, DRAINED):
                return
            if state not in JOB_STATES.active:
                log.warning("Dataflow job %s ended %s while being cancelled", job_id, state)
                return
            time.sleep(min(self.poll_sleep, max(0.0, deadline - time.monotonic())))
        log.warning("Dataflow job %s was not cancelled within cancel_timeout=%s s", job_id, self.cancel_timeout)

    async def acancel(self, job_id: Any) -> None:
        """In the triggerer: request the stop and do not wait (as the official trigger: ``cancel_timeout=None``)."""
        await asyncio.to_thread(self.request_stop, job_id)

    def url(self, job_id: Any) -> str | None:
        return (f"https://console.cloud.google.com/dataflow/jobs/{self.location}/{job_id}"
                f"?project={self.project_id}")

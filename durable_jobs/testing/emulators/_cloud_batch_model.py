"""The Cloud Batch emulator's state: jobs, their state machine, the ``job_id`` and ``request_id`` rules.

Every rule is quoted in ``docs/emulators/cloud_batch.md``. In short: a ``job_id`` names the job within its
parent ("ID used to uniquely identify the Job within its parent scope"), so a second ``CreateJob`` under a
taken id answers ``ALREADY_EXISTS`` (Google's Batch reference does not name the error: the code is AIP-133's
for a resource that exists, as every google-api-core client maps it); a repeated ``request_id`` (a UUID)
answers the job the first request made and creates nothing. Jobs go QUEUED -> SCHEDULED -> RUNNING ->
SUCCEEDED | FAILED on a clock unless held; ``CancelJob`` goes CANCELLATION_IN_PROGRESS -> CANCELLED; ``DeleteJob``
DELETION_IN_PROGRESS -> gone. A job's label ``emulator-outcome: failed`` and ``emulator-seconds`` choose its end
and running time, so a test asks for a failing job through the real request.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from google.cloud.batch_v1.types import Job, JobStatus

from durable_jobs.testing.emulators._workload_model import NamedWorkloadModel, RpcError, clock_state, get_or_not_found

#: "at most 63 characters and must start with lowercase characters. Only lowercase characters, numbers and '-'
#: are accepted. The '-' character cannot be the first or the last one."
JOB_ID = re.compile(r"^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$")
#: "The request ID must be a valid UUID with the exception that zero UUID is not supported"
ZERO_UUID = "00000000-0000-0000-0000-000000000000"
ACTIVE = frozenset({"QUEUED", "SCHEDULED", "RUNNING", "CANCELLATION_IN_PROGRESS", "DELETION_IN_PROGRESS"})
_PARENT = re.compile(r"^projects/([^/]+)/locations/([^/]+)$")


@dataclass
class BatchJob:
    id: str
    name: str
    project: str
    request_id: str
    message: Job
    created: float
    seconds: float
    outcome: str
    cancelled_at: float | None = None
    deleted_at: float | None = None
    forced: str | None = None

    def state(self, now: float, held: bool) -> str:
        if self.deleted_at is not None:
            return "DELETION_IN_PROGRESS"
        return clock_state(self, now, held, starting=[(0.05, "QUEUED"), (0.1, "SCHEDULED")],
                           cancelling="CANCELLATION_IN_PROGRESS")


class CloudBatchModel(NamedWorkloadModel):
    """Jobs of every project and location, behind one lock; the ledger of every ``CreateJob``."""

    def __init__(self, *, run_seconds: float = 1.0, clock: Any = time.monotonic) -> None:
        super().__init__(run_seconds=run_seconds, clock=clock)
        self.jobs: dict[str, BatchJob] = {}  # by resource name
        self.by_request: dict[tuple[str, str], BatchJob] = {}  # (parent, request_id)

    def create_job(self, parent: str, job: Job, job_id: str, request_id: str) -> Job:
        found = _PARENT.match(parent)
        if not found:
            raise RpcError("INVALID_ARGUMENT", f"parent {parent!r} is not projects/<project>/locations/<location>")
        project = found.group(1)
        with self.lock:
            if request_id:
                try:
                    valid = str(uuid.UUID(request_id)) == request_id.lower() and request_id != ZERO_UUID
                except ValueError:
                    valid = False
                if not valid:
                    raise RpcError("INVALID_ARGUMENT", f"request_id {request_id!r} is not a valid non-zero UUID")
                first = self.by_request.get((parent, request_id))
                if first is not None:
                    self.ledger.append({"op": "CreateJob", "project": project, "request_id": request_id,
                                        "id": first.id, "created": False})
                    return self.view(first)
            job_id = job_id or f"j-{uuid.uuid4().hex[:20]}"
            if not JOB_ID.match(job_id):
                raise RpcError("INVALID_ARGUMENT", f"job_id {job_id!r}: at most 63 of [a-z0-9-], starting with a "
                                                   "letter, not ending with '-'")
            name = f"{parent}/jobs/{job_id}"
            if name in self.jobs:
                self.ledger.append({"op": "CreateJob", "project": project, "request_id": request_id, "id": job_id,
                                    "created": False, "error": "ALREADY_EXISTS"})
                raise RpcError("ALREADY_EXISTS", f"Job {name} already exists")
            stored = Job.deserialize(Job.serialize(job))
            stored.name = name  # "The job.name field in the request will be ignored"
            stored.uid = f"{job_id[:40]}-{uuid.uuid4().hex[:8]}"
            labels = stored.labels
            try:
                seconds = float(labels.get("emulator-seconds", self.run_seconds))
            except ValueError:
                seconds = self.run_seconds
            outcome = "FAILED" if labels.get("emulator-outcome") == "failed" else "SUCCEEDED"
            item = BatchJob(job_id, name, project, request_id, stored, self.clock(), seconds, outcome)
            self.jobs[name] = item
            if request_id:
                self.by_request[(parent, request_id)] = item
            self.ledger.append({"op": "CreateJob", "project": project, "request_id": request_id, "id": job_id,
                                "created": True})
            return self.view(item)

    def job(self, name: str) -> BatchJob:
        item = get_or_not_found(self.jobs, name, f"Job {name} not found")
        if item.deleted_at is not None and self.clock() - item.deleted_at > 0.2:
            del self.jobs[name]
            raise RpcError("NOT_FOUND", f"Job {name} not found")
        return item

    def view(self, item: BatchJob) -> Job:
        job = Job.deserialize(Job.serialize(item.message))
        job.status = JobStatus(state=getattr(JobStatus.State, self.state_of(item)))
        return job

    def get_job(self, name: str) -> Job:
        with self.lock:
            return self.view(self.job(name))

    def cancel_job(self, name: str) -> str:
        """Cancelling an active job starts its cancellation; an ended job is left as it is (Google's reference
        does not say what ``CancelJob`` answers for one: the emulator answers FAILED_PRECONDITION)."""
        with self.lock:
            item = self.job(name)
            state = self.state_of(item)
            self.ledger.append({"op": "CancelJob", "project": item.project, "id": item.id, "ts": time.time()})
            if state not in ACTIVE:
                raise RpcError("FAILED_PRECONDITION", f"Job {name} is {state} and cannot be cancelled")
            if item.cancelled_at is None:
                item.cancelled_at, item.forced = self.clock(), None
            return name

    def delete_job(self, name: str) -> str:
        with self.lock:
            item = self.job(name)
            if item.deleted_at is None:
                item.deleted_at = self.clock()
            return name

"""The Dataproc emulator's state: jobs and batches, their state machines and the ``request_id`` rule.

Every rule is quoted in ``docs/emulators/dataproc.md``. In short: a repeated ``request_id`` answers the
first job (``SubmitJob``) or the first batch's operation (``CreateBatch``) and creates nothing; a
``reference.job_id`` or ``batch_id`` already taken by another request is ``ALREADY_EXISTS``; jobs go
PENDING -> RUNNING -> DONE | ERROR, batches PENDING -> RUNNING -> SUCCEEDED | FAILED, on a clock, unless
held. A job's or batch's label ``emulator-outcome`` (``error`` / ``failed``) and ``emulator-seconds``
choose its end and its running time, so a test can ask for a failing workload through the real request.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.cloud.dataproc_v1.types import Batch, Job, JobStatus

from durable_jobs.testing.emulators._workload_model import RpcError, WorkloadModel, clock_state, get_or_not_found

JOB_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
REQUEST_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
BATCH_ID = re.compile(r"^[a-z0-9-]{4,63}$")
JOB_ACTIVE = frozenset({"PENDING", "SETUP_DONE", "RUNNING", "CANCEL_PENDING", "CANCEL_STARTED", "ATTEMPT_FAILURE"})
BATCH_ACTIVE = frozenset({"PENDING", "RUNNING", "CANCELLING"})


@dataclass
class Workload:
    """A job or a batch: when it was made, how long it runs, how it ends, where a cancel left it."""

    kind: str  # "job" | "batch"
    id: str
    project: str
    region: str
    request_id: str
    message: Any  # the Job / Batch as submitted (a copy, updated on read)
    created: float
    seconds: float
    outcome: str  # the terminal state when it ends by itself
    cancelled_at: float | None = None
    forced: str | None = None  # a state set by the test (finish / hold)
    operation: str = ""  # batches: the long-running operation's name
    history: list[str] = field(default_factory=list)

    def state(self, now: float, held: bool) -> str:
        return clock_state(self, now, held, starting=[(0.1, "PENDING")],
                           cancelling="CANCEL_PENDING" if self.kind == "job" else "CANCELLING")


class DataprocModel(WorkloadModel):
    """Jobs and batches of every project and region, behind one lock; the ledger of what was created."""

    def __init__(self, *, run_seconds: float = 1.0, clock: Any = time.monotonic) -> None:
        super().__init__(run_seconds=run_seconds, clock=clock)
        self.jobs: dict[tuple[str, str, str], Workload] = {}
        self.batches: dict[str, Workload] = {}  # by resource name
        self.operations: dict[str, Workload] = {}  # by operation name
        self.by_request: dict[tuple[str, str, str, str], Workload] = {}
        self.batch_creations: dict[str, int] = {}

    def workloads(self) -> Iterable[Workload]:
        return [*self.jobs.values(), *self.batches.values()]

    def _first_of_request(self, kind: str, op: str, project: str, region: str, request_id: str) -> Workload | None:
        """The workload a repeated ``request_id`` made first (ledgered as an ``op`` that created nothing), or None;
        a malformed ``request_id`` is refused."""
        if request_id and not REQUEST_ID.match(request_id):
            raise RpcError("INVALID_ARGUMENT", f"request_id {request_id!r}: letters, digits, _ and -, at most 40")
        first = self.by_request.get((kind, project, region, request_id)) if request_id else None
        if first is not None:
            self.ledger.append({"op": op, "project": project, "request_id": request_id, "id": first.id,
                                "created": False})
        return first

    # ---------------------------------------------------------------- jobs
    def submit_job(self, project: str, region: str, job: Job, request_id: str) -> Job:
        with self.lock:
            first = self._first_of_request("job", "SubmitJob", project, region, request_id)
            if first is not None:
                return self.job_view(first)
            job_id = job.reference.job_id or uuid.uuid4().hex
            if not JOB_ID.match(job_id):
                raise RpcError("INVALID_ARGUMENT", f"job id {job_id!r}: letters, digits, _ and -, at most 100")
            if (project, region, job_id) in self.jobs:
                raise RpcError("ALREADY_EXISTS", f"Already exists: Failed to submit job: Job projects/{project}/"
                                                 f"regions/{region}/jobs/{job_id}")
            stored = Job.deserialize(Job.serialize(job))
            stored.reference.project_id = project
            stored.reference.job_id = job_id
            stored.job_uuid = str(uuid.uuid4())
            item = Workload("job", job_id, project, region, request_id, stored, self.clock(),
                            _seconds(stored.labels, self.run_seconds), _outcome(stored.labels, "ERROR", "DONE"))
            self.jobs[(project, region, job_id)] = item
            if request_id:
                self.by_request[("job", project, region, request_id)] = item
            self.ledger.append({"op": "SubmitJob", "project": project, "request_id": request_id, "id": job_id,
                                "created": True})
            return self.job_view(item)

    def job(self, project: str, region: str, job_id: str) -> Workload:
        return get_or_not_found(self.jobs, (project, region, job_id),
                     f"Not found: Job projects/{project}/regions/{region}/jobs/{job_id}")

    def job_view(self, item: Workload) -> Job:
        state = self.state_of(item)
        job = Job.deserialize(Job.serialize(item.message))
        job.status = JobStatus(state=getattr(JobStatus.State, state),
                               details="emulated failure" if state == "ERROR" else "")
        job.done = state in ("DONE", "ERROR", "CANCELLED")
        return job

    def cancel_job(self, project: str, region: str, job_id: str) -> Job:
        with self.lock:
            item = self.job(project, region, job_id)
            state = self.state_of(item)
            if state not in JOB_ACTIVE:
                raise RpcError("FAILED_PRECONDITION", f"Job {job_id} is in state {state} and cannot be cancelled")
            if item.cancelled_at is None:
                item.cancelled_at, item.forced = self.clock(), None
            self.ledger.append({"op": "CancelJob", "id": job_id, "ts": time.time()})
            return self.job_view(item)

    def list_jobs(self, project: str, region: str, matcher: str, filter_: str) -> list[Job]:
        """``job_state_matcher`` ALL / ACTIVE / NON_ACTIVE; ``filter`` ``status.state = ACTIVE|NON_ACTIVE``
        (other clauses of the documented syntax are refused rather than guessed)."""
        want = matcher
        if filter_.strip():
            found = re.fullmatch(r"\s*status\.state\s*=\s*(ACTIVE|NON_ACTIVE)\s*", filter_)
            if not found:
                raise RpcError("INVALID_ARGUMENT", f"the emulator supports only 'status.state = ACTIVE|NON_ACTIVE', "
                                                   f"not {filter_!r}")
            want = found.group(1)
        with self.lock:
            out = []
            for (p, r, _), item in self.jobs.items():
                if (p, r) != (project, region):
                    continue
                active = self.state_of(item) in JOB_ACTIVE
                if want == "ACTIVE" and not active or want == "NON_ACTIVE" and active:
                    continue
                out.append(self.job_view(item))
            return out

    # ---------------------------------------------------------------- batches
    def create_batch(self, parent: str, batch: Batch, batch_id: str, request_id: str) -> Workload:
        with self.lock:
            project, region = _parent(parent)
            first = self._first_of_request("batch", "CreateBatch", project, region, request_id)
            if first is not None:
                return first
            batch_id = batch_id or uuid.uuid4().hex[:16] + "-" + uuid.uuid4().hex[:8]
            if not BATCH_ID.match(batch_id):
                raise RpcError("INVALID_ARGUMENT", f"batch_id {batch_id!r}: 4-63 characters of [a-z0-9-]")
            parent = f"projects/{project}/locations/{region}"
            name = f"{parent}/batches/{batch_id}"
            if name in self.batches:
                raise RpcError("ALREADY_EXISTS", f"Batch {name} already exists")
            stored = Batch.deserialize(Batch.serialize(batch))
            stored.name = name
            stored.uuid = str(uuid.uuid4())
            operation = f"projects/{project}/regions/{region}/operations/{uuid.uuid4()}"
            self.batch_creations[name] = self.batch_creations.get(name, 0) + 1
            outcome = _outcome(stored.labels, "FAILED", "SUCCEEDED")
            if stored.labels.get("emulator-outcome") == "not-ready-once":  # fails once, then a re-creation succeeds
                outcome = "FAILED" if self.batch_creations[name] == 1 else "SUCCEEDED"
            item = Workload("batch", batch_id, project, region, request_id, stored, self.clock(),
                            _seconds(stored.labels, self.run_seconds), outcome, operation=operation)
            self.batches[name] = item
            self.operations[operation] = item
            if request_id:
                self.by_request[("batch", project, region, request_id)] = item
            self.ledger.append({"op": "CreateBatch", "project": project, "request_id": request_id, "id": batch_id,
                                "created": True})
            return item

    def batch(self, name: str) -> Workload:
        return get_or_not_found(self.batches, _canonical(name), f"Not found: Batch {name}")

    def batch_view(self, item: Workload) -> Batch:
        state = self.state_of(item)
        batch = Batch.deserialize(Batch.serialize(item.message))
        batch.state = getattr(Batch.State, state)
        not_ready = item.message.labels.get("emulator-outcome") == "not-ready-once"
        failure = f"The resource '{batch.name}' is not ready" if not_ready else "emulated failure"
        batch.state_message = failure if state == "FAILED" else ""
        batch.operation = item.operation
        return batch

    def cancel_batch(self, item: Workload) -> None:
        with self.lock:
            if self.state_of(item) in BATCH_ACTIVE and item.cancelled_at is None:
                item.cancelled_at, item.forced = self.clock(), None
            self.ledger.append({"op": "CancelOperation", "id": item.id, "ts": time.time()})

    def delete_batch(self, name: str) -> None:
        with self.lock:
            item = self.batch(name)
            name = _canonical(name)
            if self.state_of(item) in BATCH_ACTIVE:
                raise RpcError("FAILED_PRECONDITION", f"Batch {name} is still active and cannot be deleted")
            del self.batches[name]

    def list_batches(self, parent: str, filter_: str) -> list[Batch]:
        """``filter``: empty, ``state = X`` or ``state != X`` (other expressions are refused)."""
        op, want = "", ""
        if filter_.strip():
            found = re.fullmatch(r"\s*state\s*(!=|=)\s*([A-Z_]+)\s*", filter_)
            if not found:
                raise RpcError("INVALID_ARGUMENT", f"the emulator supports only 'state = X' / 'state != X', "
                                                   f"not {filter_!r}")
            op, want = found.groups()
        with self.lock:
            out = []
            project, region = _parent(parent)
            for name, item in self.batches.items():
                if not name.startswith(f"projects/{project}/locations/{region}/"):
                    continue
                state = self.state_of(item)
                if op == "=" and state != want or op == "!=" and state == want:
                    continue
                out.append(self.batch_view(item))
            return out

    def finish(self, kind: str, ident: str, state: str) -> None:
        """Force a workload's state (a test's hand on the vendor)."""
        with self.lock:
            pool = self.jobs.values() if kind == "job" else self.batches.values()
            for item in pool:
                if item.id == ident:
                    item.forced = state
                    return
            raise KeyError(ident)


def _parent(parent: str) -> tuple[str, str]:
    found = re.fullmatch(r"projects/([^/]+)/(?:locations|regions)/([^/]+)", parent)
    if not found:
        raise RpcError("INVALID_ARGUMENT", f"parent {parent!r} is not projects/<project>/locations/<region>")
    return found.group(1), found.group(2)


def _canonical(name: str) -> str:
    """Batch names as ``projects/<p>/locations/<r>/batches/<id>`` (the hooks write ``regions`` in places)."""
    return re.sub(r"^(projects/[^/]+)/regions/", r"\1/locations/", name)


def _seconds(labels: Any, default: float) -> float:
    try:
        return float(labels.get("emulator-seconds", default))
    except ValueError:
        return default


def _outcome(labels: Any, failed: str, succeeded: str) -> str:
    return failed if labels.get("emulator-outcome") in ("error", "failed") else succeeded

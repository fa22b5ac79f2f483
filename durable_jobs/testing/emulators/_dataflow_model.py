"""The Dataflow REST v1b3 rules the emulator models (contract, with Google's words: ``docs/emulators/dataflow.md``).

Jobs run on the emulator's clock: ``JOB_STATE_PENDING`` for ``pending_seconds``, ``JOB_STATE_RUNNING`` for
``run_seconds``, then ``JOB_STATE_DONE`` (a batch job) or ``JOB_STATE_FAILED`` when the template path or a
parameter matches ``fail_pattern``. A job launched with the parameter ``streaming=true`` is a streaming job: it
stays ``JOB_STATE_RUNNING`` until an ``UpdateJob`` cancels or drains it. A launch under the name of an *active*
job in the same project and region answers 409 ``ALREADY_EXISTS`` and creates nothing (observed behaviour,
undocumented: see the contract); a finished job's name may be used again. A job becomes visible in
``jobs.list`` ``list_lag`` seconds after its launch (0 by default: Google does not say how soon, see the
contract); ``jobs.get`` sees it at once.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from durable_jobs.testing.emulators._faults import Clock, FaultSet, HoldSet
from durable_jobs.testing.emulators._http import ApiError

DEFAULT_CONFIG: dict[str, Any] = {
    "pending_seconds": 0.1,
    "run_seconds": 0.5,
    "fail_pattern": r"(?i)\bfail\b",
    "list_lag": 0.0,  # seconds (emulator clock) before a launched job shows in jobs.list
    "speed": 1.0,
}
#: ``LaunchTemplateParameters.jobName``: "The name must match the regular expression
#: ``[a-z]([-a-z0-9]{0,1022}[a-z0-9])?``".
JOB_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,1022}[a-z0-9])?$")
ACTIVE_STATES = frozenset({"JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_QUEUED", "JOB_STATE_CANCELLING",
                           "JOB_STATE_DRAINING", "JOB_STATE_STOPPED", "JOB_STATE_RESOURCE_CLEANING_UP",
                           "JOB_STATE_PAUSING", "JOB_STATE_PAUSED"})
#: ``requestedState`` an ``UpdateJob`` may ask for ("from ``JOB_STATE_RUNNING`` to ``JOB_STATE_CANCELLED``,
#: ``JOB_STATE_DONE``, or ``JOB_STATE_DRAINED``").
REQUESTABLE = {"JOB_STATE_CANCELLED": "JOB_STATE_CANCELLING", "JOB_STATE_DRAINED": "JOB_STATE_DRAINING",
               "JOB_STATE_DONE": "JOB_STATE_DONE"}
#: How long a cancel or drain takes to end the job, in wall time: a test that froze a project's clock (the crash
#: suite, so that its jobs do not finish) still sees a requested stop end, as a cancel does not wait on the job.
STOP_SECONDS = 0.2


@dataclass
class Job:
    project: str
    location: str
    job_id: str
    name: str
    streaming: bool
    created: float  # emulator clock
    wall_created: float
    pending_until: float
    done_at: float
    fails: bool
    launch: str  # "templates" or "flexTemplates"
    requested: str | None = None
    requested_at: float | None = None  # time.monotonic() of the stop request
    wall_requested: float | None = None  # its Unix time, for the ledger
    forced: str | None = None  # a state set by a test (an unknown one, for example)

    def state(self, now: float) -> str:
        if self.forced:
            return self.forced
        if self.requested is not None and self.requested_at is not None:
            if self.requested == "JOB_STATE_DONE":
                return "JOB_STATE_DONE"
            if time.monotonic() < self.requested_at + STOP_SECONDS:
                return REQUESTABLE[self.requested]
            return self.requested
        if now < self.pending_until:
            return "JOB_STATE_PENDING"
        if self.streaming or now < self.done_at:
            return "JOB_STATE_RUNNING"
        return "JOB_STATE_FAILED" if self.fails else "JOB_STATE_DONE"

    def resource(self, now: float) -> dict[str, Any]:
        created = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.wall_created)) + "Z"
        return {"id": self.job_id, "projectId": self.project, "location": self.location, "name": self.name,
                "type": "JOB_TYPE_STREAMING" if self.streaming else "JOB_TYPE_BATCH",
                "currentState": self.state(now), "createTime": created, "currentStateTime": created}


@dataclass
class DataflowModel:
    """Jobs, faults, holds and the ledger; one lock guards them."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    clock: Clock = field(default_factory=Clock)
    config: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_CONFIG))
    faults: FaultSet = field(default_factory=FaultSet)
    holds: HoldSet = field(default_factory=HoldSet)
    jobs: dict[str, Job] = field(default_factory=dict)
    launches: list[dict[str, Any]] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    #: per-project clocks: tenants of one emulator (the crash suite's cells) steer their own jobs' time
    clocks: dict[str, Clock] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def reset(self) -> None:
        with self.lock:
            self.clock = Clock()
            self.config = dict(DEFAULT_CONFIG)
            self.faults.clear()
            self.holds.clear()
            self.jobs.clear()
            self.launches.clear()
            self.calls.clear()
            self.clocks.clear()

    def clock_for(self, project: str) -> Clock:
        with self.lock:
            return self.clocks.get(project, self.clock)

    # ---------------------------------------------------------------- the API
    def launch(self, project: str, location: str, kind: str, body: dict[str, Any], gcs_path: str) -> dict[str, Any]:
        """``templates.launch`` / ``flexTemplates.launch``: a new job, or 409 while one of that name is active."""
        if kind == "flexTemplates":
            param = body.get("launchParameter") or body.get("launch_parameter") or {}
            name, parameters = str(param.get("jobName") or ""), dict(param.get("parameters") or {})
            source = str(param.get("containerSpecGcsPath") or "")
        else:
            name, parameters, source = str(body.get("jobName") or ""), dict(body.get("parameters") or {}), gcs_path
        with self.lock:
            entry = {"project": project, "location": location, "name": name, "kind": kind, "created": False}
            self.launches.append(entry)
            if not JOB_NAME.match(name):
                raise ApiError(400, "badRequest", f"(emulator): The job name {name!r} does not match the regular "
                                                  "expression [a-z]([-a-z0-9]{0,1022}[a-z0-9])?")
            now = self.clock_for(project).now()
            for job in self.jobs.values():
                if (job.project, job.location, job.name) == (project, location, name) \
                        and job.state(now) in ACTIVE_STATES:
                    raise ApiError(409, "alreadyExists", f"(emulator): There is already an active job named {name}. "
                                   "If you want to  submit a second job, try again by setting a different name.")
            job_id = time.strftime("%Y-%m-%d_%H_%M_%S", time.gmtime()) + f"-{next(self._ids):019d}"
            text = " ".join([source, *map(str, parameters.values())])
            job = Job(project, location, job_id, name,
                      streaming=str(parameters.get("streaming", "")).lower() == "true", created=now,
                      wall_created=time.time(), pending_until=now + float(self.config["pending_seconds"]),
                      done_at=now + float(self.config["pending_seconds"]) + float(self.config["run_seconds"]),
                      fails=bool(re.search(str(self.config["fail_pattern"]), text)), launch=kind)
            self.jobs[job_id] = job
            entry.update(created=True, job_id=job_id)
            return {"job": job.resource(now)}

    def _job(self, project: str, location: str, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None or (job.project, job.location) != (project, location):
            raise ApiError(404, "notFound", f"(emulator): Requested entity was not found. Job {job_id} in "
                                            f"{project}/{location}")
        return job

    def get(self, project: str, location: str, job_id: str) -> dict[str, Any]:
        with self.lock:
            return self._job(project, location, job_id).resource(self.clock_for(project).now())

    def list(self, project: str, location: str, params: dict[str, Any]) -> dict[str, Any]:
        """``jobs.list`` with ``filter`` (ALL, ACTIVE, TERMINATED) and ``name``; active jobs first, as ALL says."""
        flt, name = str(params.get("filter") or "ALL"), params.get("name")
        with self.lock:
            now = self.clock_for(project).now()
            visible = [j for j in self.jobs.values() if (j.project, j.location) == (project, location)
                       and now >= j.created + float(self.config["list_lag"]) and (not name or j.name == name)]
            active = sorted((j for j in visible if j.state(now) in ACTIVE_STATES), key=lambda j: j.created)
            ended = sorted((j for j in visible if j.state(now) not in ACTIVE_STATES), key=lambda j: -j.created)
            chosen = {"ACTIVE": active, "TERMINATED": ended}.get(flt, active + ended)
            return {"jobs": [j.resource(now) for j in chosen]} if chosen else {}

    def update(self, project: str, location: str, job_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """``jobs.update`` with ``requestedState``: cancel, drain (streaming only) or done; ended jobs refuse."""
        requested = str(body.get("requestedState") or "")
        with self.lock:
            job = self._job(project, location, job_id)
            now = self.clock_for(project).now()
            if requested not in REQUESTABLE:
                raise ApiError(400, "badRequest", f"(emulator): requestedState {requested!r} is not supported")
            if job.state(now) not in ACTIVE_STATES:
                raise ApiError(400, "failedPrecondition", f"(emulator): Job {job_id} has terminated in state "
                                                          f"{job.state(now)}")
            if requested == "JOB_STATE_DRAINED" and not job.streaming:
                raise ApiError(400, "badRequest", "(emulator): Only streaming jobs can be drained")
            if job.requested is None:
                job.requested, job.requested_at, job.wall_requested = requested, time.monotonic(), time.time()
            return job.resource(now)

    # ---------------------------------------------------------------- test controls
    def ledger(self, project: str | None = None) -> dict[str, Any]:
        """Every launch and job; with ``project``, that project's only."""
        with self.lock:
            launches = [e for e in self.launches if project is None or e["project"] == project]
            return {"launches": launches, "created": sum(1 for e in launches if e["created"]),
                    "jobs": {j.job_id: {"name": j.name, "state": j.state(self.clock_for(j.project).now()),
                                        "streaming": j.streaming, "requested": j.requested,
                                        "requested_ts": j.wall_requested}
                             for j in self.jobs.values() if project is None or j.project == project}}

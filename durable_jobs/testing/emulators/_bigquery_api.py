"""The BigQuery REST v2 jobs rules the emulator models (contract: ``docs/emulators/bigquery.md``).

Jobs run on the emulator's clock: ``PENDING`` for ``pending_seconds``, ``RUNNING`` for ``run_seconds``, then
``DONE``, with ``status.errorResult`` when the query text (or a load/copy/extract's source) matches
``fail_pattern``. A ``jobs.insert`` under a job id the project already has answers 409 (reason ``duplicate``)
and creates nothing: the ledger counts every insert request and every job *created*.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from durable_jobs.testing.emulators._faults import Clock, FaultSet, HoldSet
from durable_jobs.testing.emulators._http import ApiError, Request

DEFAULT_CONFIG: dict[str, Any] = {
    "pending_seconds": 0.1,  # PENDING on the emulator clock
    "run_seconds": 0.5,  # then RUNNING
    "fail_pattern": r"(?i)\bfail\b",  # a job whose configuration matches it ends DONE with errorResult
    "speed": 1.0,
}
#: ``jobReference.jobId``: "letters (a-z, A-Z), numbers (0-9), underscores (_), or dashes (-)", at most 1,024.
JOB_ID = re.compile(r"^[A-Za-z0-9_-]{1,1024}$")
JOB_TYPES = ("query", "load", "copy", "extract")
STATE_FILTERS = ("pending", "running", "done")


@dataclass
class Job:
    project: str
    job_id: str
    location: str
    configuration: dict[str, Any]
    created: float  # emulator clock
    wall_created: float  # epoch seconds, for statistics
    pending_until: float
    done_at: float
    fails: bool
    cancelled_at: float | None = None
    gets: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def state(self, now: float) -> str:
        if self.cancelled_at is not None and now >= self.cancelled_at:
            return "DONE"
        if now < self.pending_until:
            return "PENDING"
        return "RUNNING" if now < self.done_at else "DONE"

    def error_result(self, now: float) -> dict[str, Any] | None:
        if self.state(now) != "DONE":
            return None
        if self.cancelled_at is not None and self.cancelled_at <= self.done_at:
            return {"reason": "stopped", "message": "Job execution was cancelled: User requested cancellation"}
        if self.fails:
            return {"reason": "invalidQuery", "location": "query",
                    "message": "Syntax error: emulated failure (the job's text matches fail_pattern)"}
        return None

    def resource(self, now: float, base_url: str) -> dict[str, Any]:
        state = self.state(now)
        status: dict[str, Any] = {"state": state}
        error = self.error_result(now)
        if error is not None:
            status["errorResult"] = error
            status["errors"] = [error]
        ms = int(self.wall_created * 1000)
        stats: dict[str, Any] = {"creationTime": str(ms)}
        if state != "PENDING":
            stats["startTime"] = str(ms + 1)
        if state == "DONE":
            stats["endTime"] = str(ms + 2)
        job_type = next((t for t in JOB_TYPES if t in self.configuration), "query")
        if job_type == "query":
            stats["query"] = {"statementType": "SELECT", "totalBytesProcessed": "0"}
        return {
            "kind": "bigquery#job", "etag": f'"{self.job_id}-{state}"',
            "id": f"{self.project}:{self.location}.{self.job_id}",
            "selfLink": f"{base_url}/bigquery/v2/projects/{self.project}/jobs/{self.job_id}?location={self.location}",
            "user_email": "emulator@example.com",
            "jobReference": {"projectId": self.project, "jobId": self.job_id, "location": self.location},
            "configuration": {**self.configuration, "jobType": job_type.upper()},
            "status": status, "statistics": stats,
        }


class BigQueryApp:
    """Jobs per project, faults, holds and the ledger; one lock guards them."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.clock = Clock()
        self.config: dict[str, Any] = dict(DEFAULT_CONFIG)
        self.faults = FaultSet()
        self.holds = HoldSet()
        self.base_url = ""
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.jobs: dict[tuple[str, str], Job] = {}
            self.inserts: list[dict[str, Any]] = []
            self.cancels: list[str] = []
            #: every cancel call: the job and its Unix time
            self.cancel_calls: list[dict[str, Any]] = []
            self.cancelled_running: list[str] = []
            self.calls: Counter[str] = Counter()
            self.config = dict(DEFAULT_CONFIG)
            self.clock = Clock()
            #: per-project clocks and config overrides: tenants of one emulator steer their own jobs
            self.clocks: dict[str, Clock] = {}
            self.project_config: dict[str, dict[str, Any]] = {}
            self.faults.clear()
            self.holds.clear()

    def clock_for(self, project: str) -> Clock:
        with self.lock:
            return self.clocks.get(project, self.clock)

    def setting(self, project: str, name: str) -> Any:
        return self.project_config.get(project, {}).get(name, self.config[name])

    def ledger(self, project: str | None = None) -> dict[str, Any]:
        with self.lock:
            mine = [j for j in self.jobs.values() if project is None or j.project == project]
            inserts = [dict(i) for i in self.inserts if project is None or i["project"] == project]
            ids = {j.job_id for j in mine}
            return {
                "requests": len(inserts),
                "created": sum(1 for i in inserts if i["created"]),
                "duplicates_detected": sum(1 for i in inserts if i["duplicate"]),
                "inserts": inserts,
                "jobs": {j.job_id: {"state": j.state(self.clock_for(j.project).now()),
                                    "error": j.error_result(self.clock_for(j.project).now()), "project": j.project,
                                    "location": j.location, "cancelled": j.cancelled_at is not None}
                         for j in mine},
                "cancels": [c for c in self.cancels if project is None or c in ids],
                "cancelled_running": [c for c in self.cancelled_running if project is None or c in ids],
                "cancel_calls": [c for c in self.cancel_calls if project is None or c["id"] in ids],
                "calls": dict(self.calls),
            }

    # ------------------------------------------------------------------ the API
    def insert(self, project: str, request: Request) -> dict[str, Any]:
        body = request.body if isinstance(request.body, dict) else {}
        ref = dict(body.get("jobReference") or {})
        configuration = body.get("configuration")
        if not isinstance(configuration, dict) or not any(t in configuration for t in JOB_TYPES):
            raise ApiError(400, "invalid", "Job configuration must name one of query, load, copy, extract")
        job_id = str(ref.get("jobId") or "")
        if not JOB_ID.match(job_id):
            raise ApiError(400, "invalid", f"Invalid job ID \"{job_id[:80]}\". Job IDs must be alphanumeric (plus "
                                           "underscores and dashes) and must be at most 1024 characters long.")
        location = str(ref.get("location") or "US")
        dry_run = bool(configuration.get("dryRun"))
        with self.lock:
            now = self.clock_for(project).now()
            entry = {"job_id": job_id, "project": project, "location": location, "dry_run": dry_run,
                     "created": False, "duplicate": False, "ts": time.time(),
                     "query": str((configuration.get("query") or {}).get("query", ""))[:500],
                     "labels": dict(configuration.get("labels") or {})}
            self.inserts.append(entry)
            if dry_run:  # validated and estimated; nothing is stored or run
                job = self._new_job(project, job_id, location, configuration, now)
                job.pending_until = job.done_at = now
                return job.resource(now, self.base_url)
            if (project, job_id) in self.jobs:
                entry["duplicate"] = True
                raise ApiError(409, "duplicate", f"Already Exists: Job {project}:{location}.{job_id}")
            job = self._new_job(project, job_id, location, configuration, now)
            self.jobs[(project, job_id)] = job
            entry["created"] = True
            return job.resource(now, self.base_url)

    def _new_job(self, project: str, job_id: str, location: str, configuration: dict[str, Any],
                 now: float) -> Job:
        pending, run = float(self.setting(project, "pending_seconds")), float(self.setting(project, "run_seconds"))
        fails = bool(re.search(self.setting(project, "fail_pattern"), json.dumps(configuration)))
        return Job(project, job_id, location, dict(configuration), now, time.time(), now + pending,
                   now + pending + run, fails)

    def job(self, project: str, job_id: str, location: str | None) -> Job:
        with self.lock:
            job = self.jobs.get((project, job_id))
            if job is None or (location and job.location.lower() != location.lower()):
                where = f"{project}:{location or 'US'}.{job_id}"
                raise ApiError(404, "notFound", f"Not found: Job {where}")
            return job

    def get(self, project: str, job_id: str, location: str | None) -> dict[str, Any]:
        with self.lock:
            job = self.job(project, job_id, location)
            job.gets += 1
            return job.resource(self.clock_for(project).now(), self.base_url)

    def cancel(self, project: str, job_id: str, location: str | None) -> dict[str, Any]:
        """"Requests that a job be cancelled. This call will return immediately, and the client will need to
        poll for the job status": a running job reaches DONE (``stopped``) on the next status read."""
        with self.lock:
            job = self.job(project, job_id, location)
            now = self.clock_for(project).now()
            self.cancels.append(job_id)
            self.cancel_calls.append({"id": job_id, "ts": time.time()})
            if job.state(now) != "DONE" and job.cancelled_at is None:
                job.cancelled_at = now
                self.cancelled_running.append(job_id)
            return {"kind": "bigquery#jobCancelResponse", "job": job.resource(now, self.base_url)}

    def list(self, project: str, params: dict[str, Any]) -> dict[str, Any]:
        wanted = _state_filter(params)
        with self.lock:
            now = self.clock_for(project).now()
            jobs = [j for j in self.jobs.values() if j.project == project
                    and (not wanted or j.state(now).lower() in wanted)]
            jobs.sort(key=lambda j: j.created, reverse=True)  # "in reverse chronological order"
            listed = []
            for job in jobs:
                resource = job.resource(now, self.base_url)
                listed.append({k: resource[k] for k in ("id", "kind", "jobReference", "configuration", "status",
                                                        "statistics", "user_email")}
                              | {"state": resource["status"]["state"],
                                 **({"errorResult": resource["status"]["errorResult"]}
                                    if "errorResult" in resource["status"] else {})})
            return {"kind": "bigquery#jobList", "etag": '"list"', "jobs": listed}

    def query_results(self, project: str, job_id: str, location: str | None) -> dict[str, Any]:
        with self.lock:
            job = self.job(project, job_id, location)
            now = self.clock_for(project).now()
            ref = {"projectId": project, "jobId": job_id, "location": job.location}
            if job.state(now) != "DONE":
                return {"kind": "bigquery#getQueryResultsResponse", "jobReference": ref, "jobComplete": False}
            error = job.error_result(now)
            if error is not None:
                raise ApiError(400, error["reason"], error["message"])
            return {"kind": "bigquery#getQueryResultsResponse", "jobReference": ref, "jobComplete": True,
                    "totalRows": "0", "rows": [], "schema": {"fields": []}, "cacheHit": False}


def _state_filter(params: dict[str, Any]) -> set[str]:
    """``stateFilter`` (repeated): pending, running, done; aiohttp may send a JSON list."""
    raw = params.get("stateFilter")
    values = raw if isinstance(raw, list) else [raw] if raw else []
    out = {str(v).lower() for v in values}
    bad = out - set(STATE_FILTERS)
    if bad:
        raise ApiError(400, "invalid", f"Invalid value for stateFilter: {sorted(bad)}")
    return out

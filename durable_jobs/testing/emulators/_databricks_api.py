"""The Jobs API half of the Databricks emulator: state, the routes DatabricksHook calls, the ledger.

Every rule here is listed, one line each with its proving test, in ``docs/emulators/databricks.md``.
All state lives behind one lock; a request holds it only while it reads or changes state, never
while parked on a hold.
"""

from __future__ import annotations

import copy
import itertools
import threading
import time
from collections import Counter
from typing import Any, Callable

from durable_jobs.testing.emulators._databricks_model import Job, Plan, Run, task_specs, validate_tasks
from durable_jobs.testing.emulators._databricks_statements import StatementsApi
from durable_jobs.testing.emulators._faults import Clock, FaultSet, HoldSet
from durable_jobs.testing.emulators._http import ApiError, Request

MAX_TOKEN_LENGTH = 64

DEFAULT_CONFIG: dict[str, Any] = {
    "pending_seconds": 0.2,
    "running_seconds": 1.0,
    "terminating_seconds": 0.1,
    "speed": 1.0,
    "default_outcome": "SUCCESS",
    "outcomes": [],  # FIFO, one entry consumed by each NEW run (not by a deduplicated submit)
    "repair_outcomes": [],  # FIFO for runs/repair; empty -> default_outcome
    "not_found_status": 404,  # 404 RESOURCE_DOES_NOT_EXIST, or 400 INVALID_PARAMETER_VALUE (wire)
    "tasks_page_size": 100,  # runs/get returns at most this many tasks per page
    "statement_outcomes": [],  # FIFO, one entry consumed by each new SQL statement; empty -> SUCCEEDED
    # runs/list order: "reference" (each version's documented order), or "start_time" (a fault: 2.2 too lists by
    # start time, as the 2.1 reference says, for tests of a client that relies on 2.2's end-time order)
    "runs_list_order": "reference",
}

Handler = Callable[[Request, str], dict[str, Any]]


class DatabricksApp:
    """State and Jobs API routes. ``routes`` maps a normalized route to (method, handler)."""

    def __init__(self, token: str):
        self.token = token
        self.lock = threading.RLock()
        self.url = "http://127.0.0.1"
        self.faults = FaultSet()
        self.holds = HoldSet()
        self.routes: dict[str, tuple[str, Handler]] = {
            "jobs/runs/submit": ("POST", self.submit),
            "jobs/run-now": ("POST", self.run_now),
            "jobs/runs/get": ("GET", self.get_run),
            "jobs/runs/get-output": ("GET", self.get_output),
            "jobs/runs/cancel": ("POST", self.cancel),
            "jobs/runs/cancel-all": ("POST", self.cancel_all),
            "jobs/runs/delete": ("POST", self.delete),
            "jobs/runs/list": ("GET", self.list_runs),
            "jobs/runs/repair": ("POST", self.repair),
            "jobs/create": ("POST", self.create_job),
            "jobs/get": ("GET", self.get_job),
            "jobs/list": ("GET", self.list_jobs),
            "jobs/reset": ("POST", self.reset_job),
            "jobs/update": ("POST", self.update_job),
        }
        self.statements = StatementsApi(self)
        self.routes.update(self.statements.routes())
        self.reset()

    def reset(self) -> None:
        """Forget everything: runs, jobs, tokens, ledger, faults, holds, config, clock."""
        self.holds.clear()
        self.faults.clear()
        with self.lock:
            self.config = copy.deepcopy(DEFAULT_CONFIG)
            self.clock = Clock(self.config["speed"])
            self._epoch_ms_at_zero = time.time() * 1000 - self.clock.now() * 1000
            self.runs: dict[int, Run] = {}
            self.task_parent: dict[int, int] = {}
            self.jobs: dict[int, Job] = {}
            self.tokens: dict[str, int] = {}
            self.run_ids = itertools.count(1001)
            self.job_ids = itertools.count(11)
            self.numbers: Counter[int] = Counter()
            self.calls: Counter[str] = Counter()
            self.submissions: list[dict[str, Any]] = []
            self.cancels: list[dict[str, Any]] = []
            self.deletes: list[dict[str, Any]] = []
            self.repairs: list[dict[str, Any]] = []
            if hasattr(self, "statements"):
                self.statements.reset()

    # -- helpers -----------------------------------------------------------------------------
    def now(self) -> float:
        return self.clock.now()

    def epoch_ms(self, emulator_time: float) -> int:
        """An emulator time as the API renders times (ms since the epoch): the wall clock when the emulator began,
        moved on with its clock (``advance``, ``speed``), so that rendered times keep the emulator's order."""
        return int(self._epoch_ms_at_zero + emulator_time * 1000)

    def known_job(self, job_id: int) -> Job:
        """The job, or the 400 that Jobs API calls other than ``jobs/get`` answer for an id it does not know."""
        if job_id not in self.jobs:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", f"Job {job_id} does not exist.")
        return self.jobs[job_id]

    def not_found(self, kind: str, ident: Any) -> ApiError:
        message = f"{kind} {ident} does not exist."
        if self.config["not_found_status"] == 400:
            return ApiError(400, "INVALID_PARAMETER_VALUE", message)
        return ApiError(404, "RESOURCE_DOES_NOT_EXIST", message)

    def visible_run(self, run_id: int) -> Run:
        run = self.runs.get(run_id)
        if run is None or run.deleted or run.expired:
            raise self.not_found("Run", run_id)
        return run

    def next_plan(self, queue: str) -> Plan:
        entries = self.config[queue]
        entry = entries.pop(0) if entries else self.config["default_outcome"]
        return Plan.parse(entry, self.config)

    @staticmethod
    def validate_plans(entries: list[Any], config: dict[str, Any]) -> None:
        """Raise 400 for any outcome entry that could not be planned under ``config``."""
        for entry in entries:
            Plan.parse(entry, config)

    # -- submissions ---------------------------------------------------------------------------
    def submit(self, req: Request, version: str) -> dict[str, Any]:
        payload = _body(req)

        def check_tasks() -> None:
            validate_tasks(payload)

        return self._submission("jobs/runs/submit", payload, check_tasks)

    def run_now(self, req: Request, version: str) -> dict[str, Any]:
        payload = _body(req)

        return self._submission("jobs/run-now", payload, lambda: self.known_job(_int(payload, "job_id")))

    def _submission(
        self, path: str, payload: dict[str, Any], check: Callable[[], Job | None]
    ) -> dict[str, Any]:
        """Validate, then deduplicate on the idempotency token, then create; record every outcome."""
        entry: dict[str, Any] = {
            "seq": 0,
            "path": path,
            "run_id": None,
            "idempotency_token": payload.get("idempotency_token") or None,
            "deduplicated": False,
            "run_name": payload.get("run_name"),
            "payload": payload,
            "ts": time.time(),
            "status": 200,
        }
        with self.lock:
            entry["seq"] = len(self.submissions) + 1
            self.submissions.append(entry)
            try:
                token = _token(payload)
                job = check()
                if token is not None and token in self.tokens:
                    run = self.runs[self.tokens[token]]
                    if run.deleted:
                        raise ApiError(
                            400,
                            "INVALID_PARAMETER_VALUE",
                            f"The run with idempotency_token {token!r} (run {run.run_id}) was deleted; "
                            "use a new idempotency_token.",
                        )
                    entry.update(run_id=run.run_id, deduplicated=True, run_name=run.run_name)
                    return {"run_id": run.run_id, "number_in_job": run.number_in_job}
                run = self._create_run(path, payload, token, job)
                entry.update(run_id=run.run_id, run_name=run.run_name)
                return {"run_id": run.run_id, "number_in_job": run.number_in_job}
            except ApiError as err:
                entry.update(status=err.status, error_code=err.error_code)
                raise

    def _create_run(self, path: str, payload: dict[str, Any], token: str | None, job: Job | None) -> Run:
        run_id = next(self.run_ids)
        if job is not None:
            tasks = [dict(t) for t in job.settings.get("tasks", [])] or [{"task_key": job.name}]
            job_id, run_name, run_type = job.job_id, job.name, "JOB_RUN"
        else:
            tasks = task_specs(payload)
            # A one-time run still belongs to a (hidden) job, as on Databricks.
            job_id, run_type = next(self.job_ids), "SUBMIT_RUN"
            run_name = payload.get("run_name") or "Untitled"
        self.numbers[job_id] += 1
        run = Run(
            run_id=run_id,
            job_id=job_id,
            run_type=run_type,
            run_name=run_name,
            path=path,
            payload=payload,
            token=token,
            plan=self.next_plan("outcomes"),
            started=self.now(),
            start_ms=self.epoch_ms(self.now()),
            tasks=tasks,
            task_run_ids=[next(self.run_ids) for _ in tasks],
            number_in_job=self.numbers[job_id],
            page_url=f"{self.url}/?o=0#job/{job_id}/run/{run_id}",
        )
        self.runs[run_id] = run
        self.task_parent.update({t: run_id for t in run.task_run_ids})
        if token is not None:
            self.tokens[token] = run_id
        return run

    # -- reading runs --------------------------------------------------------------------------
    def get_run(self, req: Request, version: str) -> dict[str, Any]:
        run_id = _int(req.params, "run_id")
        with self.lock:
            if run_id in self.task_parent:  # a task run's id (see Run.render_task_run)
                return self.visible_run(self.task_parent[run_id]).render_task_run(self.now(), run_id)
            run = self.visible_run(run_id)
            body = run.render(self.now(), include_history=_bool(req.params.get("include_history")))
            size = int(self.config["tasks_page_size"])
        offset = _offset(req.params.get("page_token"))
        tasks = body["tasks"]
        body["tasks"] = tasks[offset : offset + size]
        if offset + size < len(tasks):
            body["next_page_token"] = str(offset + size)
        return body

    def get_output(self, req: Request, version: str) -> dict[str, Any]:
        run_id = _int(req.params, "run_id")
        with self.lock:
            if run_id in self.task_parent:
                return self.visible_run(self.task_parent[run_id]).render_output(self.now(), run_id)
            run = self.visible_run(run_id)
            if len(run.tasks) > 1:
                raise ApiError(
                    400,
                    "INVALID_PARAMETER_VALUE",
                    "Retrieving the output of runs with multiple tasks is not supported. "
                    "Please retrieve the output of each individual task run instead.",
                )
            return run.render_output(self.now())

    def list_runs(self, req: Request, version: str) -> dict[str, Any]:
        p = req.params
        limit = int(p.get("limit") or 20)
        if not 1 <= limit <= 25:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "limit must be between 1 and 25")
        job_id = int(p["job_id"]) if p.get("job_id") not in (None, "") else None
        with self.lock:
            now = self.now()
            runs = [r for r in self.runs.values() if not (r.deleted or r.expired or r.unlisted)]
            runs = [r for r in runs if job_id is None or r.job_id == job_id]
            if _bool(p.get("active_only")):
                runs = [r for r in runs if r.is_active(now)]
            if _bool(p.get("completed_only")):
                runs = [r for r in runs if not r.is_active(now)]
            if p.get("run_type"):
                runs = [r for r in runs if r.run_type == p["run_type"]]
            if version == "2.2" and self.config["runs_list_order"] == "reference":
                # The 2.2 reference: "List runs in descending order by end time. If a run has not finished, it
                # falls back to start time." (2.1's: "in descending order by start time".)
                runs.sort(key=lambda r: (_ended_or_started(r, now), r.run_id), reverse=True)
            else:
                runs.sort(key=lambda r: r.run_id, reverse=True)
            offset = _offset(p.get("page_token")) or int(p.get("offset") or 0)
            page = [r.render(now) for r in runs[offset : offset + limit]]
        if not _bool(p.get("expand_tasks")):
            for body in page:
                body.pop("tasks", None)
        out: dict[str, Any] = {"has_more": offset + limit < len(runs)}
        if page:
            out["runs"] = page
        if out["has_more"]:
            out["next_page_token"] = str(offset + limit)
        return out

    # -- changing runs -------------------------------------------------------------------------
    def cancel(self, req: Request, version: str) -> dict[str, Any]:
        run_id = _int(_body(req), "run_id")
        with self.lock:
            run = self.visible_run(run_id)
            was_active = run.cancel(self.now())
            self._record_cancel(run_id, was_active, "runs/cancel")
        return {}

    def cancel_all(self, req: Request, version: str) -> dict[str, Any]:
        job_id = _int(_body(req), "job_id")
        with self.lock:
            if job_id not in self.jobs and not any(r.job_id == job_id for r in self.runs.values()):
                raise ApiError(400, "INVALID_PARAMETER_VALUE", f"Job {job_id} does not exist.")
            now = self.now()
            for run in self.runs.values():
                if run.job_id == job_id and not (run.deleted or run.expired) and run.cancel(now):
                    self._record_cancel(run.run_id, True, "runs/cancel-all")
        return {}

    def _record_cancel(self, run_id: int, was_active: bool, via: str) -> None:
        self.cancels.append({"run_id": run_id, "ts": time.time(), "was_active": was_active, "via": via})

    def delete(self, req: Request, version: str) -> dict[str, Any]:
        run_id = _int(_body(req), "run_id")
        with self.lock:
            run = self.visible_run(run_id)
            if run.is_active(self.now()):
                raise ApiError(400, "INVALID_STATE", f"Run {run_id} is active; cancel it before deleting it.")
            run.deleted = True
            self.deletes.append({"run_id": run_id, "ts": time.time(), "idempotency_token": run.token})
        return {}

    def repair(self, req: Request, version: str) -> dict[str, Any]:
        payload = _body(req)
        run_id = _int(payload, "run_id")
        with self.lock:
            run = self.visible_run(run_id)
            now = self.now()
            if run.is_active(now):
                message = f"Run {run_id} is still active; only a finished run can be repaired."
                raise ApiError(400, "INVALID_STATE", message)
            latest = run.repairs[-1]["id"] if run.repairs else None
            given = payload.get("latest_repair_id")
            if (None if given in (None, "") else int(given)) != latest:
                message = f"latest_repair_id must be {latest} for run {run_id}, got {given}"
                raise ApiError(400, "INVALID_PARAMETER_VALUE", message)
            repair_id = next(self.run_ids)
            run.plan, run.started, run.frozen = self.next_plan("repair_outcomes"), now, None
            run.start_ms = self.epoch_ms(now)
            run.repairs.append({"type": "REPAIR", "id": repair_id, "start_time": run.start_ms})
            entry = {"run_id": run_id, "repair_id": repair_id, "ts": time.time(), "payload": payload}
            self.repairs.append(entry)
        return {"repair_id": repair_id}

    # -- jobs ------------------------------------------------------------------------------------
    def create_job(self, req: Request, version: str) -> dict[str, Any]:
        settings = {k: v for k, v in _body(req).items() if k != "access_control_list"}
        return {"job_id": self.add_job(settings)}

    def add_job(self, settings: dict[str, Any], job_id: int | None = None) -> int:
        with self.lock:
            job_id = int(job_id) if job_id is not None else next(self.job_ids)
            self.jobs[job_id] = Job(job_id, {"name": "Untitled", **settings}, int(time.time() * 1000))
        return job_id

    def get_job(self, req: Request, version: str) -> dict[str, Any]:
        job_id = _int(req.params, "job_id")
        with self.lock:
            if job_id not in self.jobs:
                raise self.not_found("Job", job_id)
            return self.jobs[job_id].render()

    def list_jobs(self, req: Request, version: str) -> dict[str, Any]:
        p = req.params
        limit = int(p.get("limit") or 20)
        if not 1 <= limit <= 100:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "limit must be between 1 and 100")
        name = p.get("name")
        with self.lock:
            jobs = sorted(self.jobs.values(), key=lambda j: j.job_id)
        if name:
            jobs = [j for j in jobs if j.name.lower() == str(name).lower()]
        offset = _offset(p.get("page_token")) or int(p.get("offset") or 0)
        page = jobs[offset : offset + limit]
        out: dict[str, Any] = {}
        if page:
            out["jobs"] = [j.render(expand_tasks=_bool(p.get("expand_tasks"))) for j in page]
        if offset + limit < len(jobs):
            out["next_page_token"] = str(offset + limit)
        if version == "2.1":  # API 2.2 dropped has_more (apache/airflow#59189)
            out["has_more"] = offset + limit < len(jobs)
        return out

    def reset_job(self, req: Request, version: str) -> dict[str, Any]:
        payload = _body(req)
        job_id = _int(payload, "job_id")
        with self.lock:
            self.known_job(job_id).settings = dict(payload.get("new_settings") or {})
        return {}

    def update_job(self, req: Request, version: str) -> dict[str, Any]:
        payload = _body(req)
        job_id = _int(payload, "job_id")
        with self.lock:
            settings = self.known_job(job_id).settings
            settings.update(payload.get("new_settings") or {})
            for name in payload.get("fields_to_remove") or []:
                settings.pop(name, None)
        return {}

    # -- ledger ------------------------------------------------------------------------------------
    def ledger(self) -> dict[str, Any]:
        """Everything a test asserts on, as plain JSON (run and job ids are string keys)."""
        with self.lock:
            now = self.now()
            runs = {}
            for run in self.runs.values():
                life, result, _ = run.state(now)
                runs[str(run.run_id)] = {
                    "state": life,
                    "result_state": result,
                    "idempotency_token": run.token,
                    "outcome": run.plan.outcome,
                    "job_id": run.job_id,
                    "run_name": run.run_name,
                    "path": run.path,
                    "deleted": run.deleted,
                    "expired": run.expired,
                    "unlisted": run.unlisted,
                    "repairs": len(run.repairs),
                }
            return copy.deepcopy(
                {
                    "submissions": self.submissions,
                    "cancels": self.cancels,
                    "deletes": self.deletes,
                    "repairs": self.repairs,
                    "calls": dict(self.calls),
                    "runs": runs,
                    "runs_created": len(self.runs),
                    "jobs": {str(j.job_id): {"name": j.name} for j in self.jobs.values()},
                    "faults_fired": self.faults.fired,
                    "holds_hit": self.holds.history + self.holds.describe()["held"],
                    "clock": now,
                    **self.statements.ledger(now),
                }
            )


# -- request parsing ----------------------------------------------------------------------------
def _body(req: Request) -> dict[str, Any]:
    if req.body is None:
        return {}
    if not isinstance(req.body, dict):
        raise ApiError(400, "MALFORMED_REQUEST", "Request body must be a JSON object")
    return req.body


def _int(params: dict[str, Any], name: str) -> int:
    value = params.get(name)
    if value in (None, ""):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", f"Missing required field: {name}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", f"Invalid value for {name}: {value!r}") from None


def _bool(value: Any) -> bool:
    return str(value).lower() in ("true", "1", "yes")


def _ended_or_started(run: Any, now: float) -> int:
    """``runs/list`` 2.2's sort key: the run's ``end_time``, or its ``start_time`` while it runs, as rendered (ms):
    a listing never shows end times out of the order it claims."""
    return run.end_ms(now) or run.start_ms


def _offset(page_token: Any) -> int:
    if page_token in (None, ""):
        return 0
    try:
        return int(page_token)
    except (TypeError, ValueError):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", f"Invalid page_token {page_token!r}") from None


def _token(payload: dict[str, Any]) -> str | None:
    token = payload.get("idempotency_token")
    if token in (None, ""):
        return None
    if not isinstance(token, str):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", "idempotency_token must be a string")
    if len(token) > MAX_TOKEN_LENGTH:
        raise ApiError(
            400,
            "INVALID_PARAMETER_VALUE",
            f"idempotency_token must have at most {MAX_TOKEN_LENGTH} characters, got {len(token)}",
        )
    return token

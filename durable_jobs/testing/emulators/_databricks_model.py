"""The Databricks emulator's data: jobs, runs, the life-cycle table and the JSON they render to.

A run's state is *computed* from the emulator clock (never stored per poll): PENDING for
``pending_seconds``, RUNNING for ``running_seconds``, TERMINATING for ``terminating_seconds``,
then TERMINATED with the planned ``result_state`` (or the INTERNAL_ERROR life cycle). A cancel
freezes the run at TERMINATED/CANCELED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from durable_jobs.testing.emulators._http import ApiError

#: Outcomes a run can be planned with. INTERNAL_ERROR is a life cycle state, the rest result states.
OUTCOMES = ("SUCCESS", "FAILED", "TIMEDOUT", "CANCELED", "INTERNAL_ERROR")
TERMINAL_LIFE_CYCLES = ("TERMINATED", "SKIPPED", "INTERNAL_ERROR")

#: Single-task run fields of Jobs API 2.0 that runs/submit still accepts instead of ``tasks``.
LEGACY_TASK_FIELDS = (
    "notebook_task",
    "spark_jar_task",
    "spark_python_task",
    "spark_submit_task",
    "pipeline_task",
    "python_wheel_task",
    "dbt_task",
    "sql_task",
    "run_job_task",
)

STATE_MESSAGES = {
    "PENDING": "Waiting for cluster",
    "RUNNING": "In run",
    "TERMINATING": "Terminating",
    "SUCCESS": "",
    "FAILED": "Task failed with an error (planned by the emulator)",
    "TIMEDOUT": "Run timed out (planned by the emulator)",
    "CANCELED": "Run cancelled (planned by the emulator)",
    "INTERNAL_ERROR": "Internal error in the Jobs service (planned by the emulator)",
    "USER_CANCELED": "Run cancelled.",
}

PLAN_KEYS = ("outcome", "pending_seconds", "running_seconds", "terminating_seconds", "output", "error")


@dataclass
class Plan:
    """What one run (or one repair attempt) will do on the emulator clock."""

    outcome: str
    pending_seconds: float
    running_seconds: float
    terminating_seconds: float
    output: str | None = None
    error: str | None = None

    @classmethod
    def parse(cls, entry: Any, defaults: dict[str, Any]) -> Plan:
        """An outcome entry is "FAILED" or {"outcome": "FAILED", "running_seconds": 5, ...}."""
        spec = {"outcome": entry} if isinstance(entry, str) else dict(entry or {})
        unknown = sorted(set(spec) - set(PLAN_KEYS))
        if unknown:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", f"unknown outcome field(s) {unknown}")
        outcome = str(spec.get("outcome", defaults["default_outcome"])).upper()
        if outcome not in OUTCOMES:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", f"outcome {outcome!r} is not one of {OUTCOMES}")
        durations = {k: float(spec.get(k, defaults[k])) for k in PLAN_KEYS[1:4]}
        return cls(outcome, **durations, output=spec.get("output"), error=spec.get("error"))

    def describe(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in PLAN_KEYS if getattr(self, k) is not None}


@dataclass
class Job:
    job_id: int
    settings: dict[str, Any]
    created_time: int

    @property
    def name(self) -> str:
        return str(self.settings.get("name", "Untitled"))

    def render(self, expand_tasks: bool = True) -> dict[str, Any]:
        settings = dict(self.settings)
        if not expand_tasks:
            settings.pop("tasks", None)
            settings.pop("job_clusters", None)
        return {
            "job_id": self.job_id,
            "creator_user_name": "emulator@example.com",
            "created_time": self.created_time,
            "settings": settings,
        }


@dataclass
class Run:
    """One run. ``started`` is the emulator-clock time its current attempt began."""

    run_id: int
    job_id: int
    run_type: str
    run_name: str
    path: str
    payload: dict[str, Any]
    token: str | None
    plan: Plan
    started: float
    start_ms: int
    tasks: list[dict[str, Any]]
    task_run_ids: list[int]
    number_in_job: int
    page_url: str
    frozen: tuple[str, str | None, str, float] | None = None  # life cycle, result, message, at
    deleted: bool = False
    expired: bool = False
    unlisted: bool = False  # a fault: runs/list does not show it (``DatabricksEmulator.unlist``)
    repairs: list[dict[str, Any]] = field(default_factory=list)

    # -- state machine -------------------------------------------------------------------------
    def state(self, now: float) -> tuple[str, str | None, str]:
        """(life_cycle_state, result_state or None, state_message) at emulator time ``now``."""
        if self.frozen is not None:
            return self.frozen[:3]
        p, t = self.plan, now - self.started
        if t < p.pending_seconds:
            return "PENDING", None, STATE_MESSAGES["PENDING"]
        t -= p.pending_seconds
        if t < p.running_seconds:
            return "RUNNING", None, STATE_MESSAGES["RUNNING"]
        t -= p.running_seconds
        if p.outcome == "INTERNAL_ERROR":
            return "INTERNAL_ERROR", None, p.error or STATE_MESSAGES["INTERNAL_ERROR"]
        if t < p.terminating_seconds:
            return "TERMINATING", None, STATE_MESSAGES["TERMINATING"]
        return "TERMINATED", p.outcome, p.error or STATE_MESSAGES[p.outcome]

    def is_active(self, now: float) -> bool:
        return self.state(now)[0] not in TERMINAL_LIFE_CYCLES

    def ended_at(self, now: float) -> float | None:
        """Emulator time the run became terminal, or None while active."""
        if self.frozen is not None:
            return self.frozen[3]
        if self.is_active(now):
            return None
        p = self.plan
        tail = 0.0 if p.outcome == "INTERNAL_ERROR" else p.terminating_seconds
        return self.started + p.pending_seconds + p.running_seconds + tail

    def cancel(self, now: float) -> bool:
        """Freeze an active run at TERMINATED/CANCELED; return whether it was active."""
        if not self.is_active(now):
            return False
        self.frozen = ("TERMINATED", "CANCELED", STATE_MESSAGES["USER_CANCELED"], now)
        return True

    # -- rendering -------------------------------------------------------------------------------
    def render_state(self, now: float) -> dict[str, Any]:
        life, result, message = self.state(now)
        state: dict[str, Any] = {"life_cycle_state": life, "state_message": message}
        if result is not None:
            state["result_state"] = result
            state["user_cancelled_or_timedout"] = result in ("CANCELED", "TIMEDOUT")
        return state

    def end_ms(self, now: float) -> int:
        """``end_time`` as rendered (ms since the epoch; 0 while the run is active): what runs/list 2.2 orders by."""
        end = self.ended_at(now)
        return int(self.start_ms + (end - self.started) * 1000) if end is not None else 0

    def render(self, now: float, *, include_history: bool = False) -> dict[str, Any]:
        state = self.render_state(now)
        end_ms = self.end_ms(now)
        body: dict[str, Any] = {
            "job_id": self.job_id,
            "run_id": self.run_id,
            "original_attempt_run_id": self.run_id,
            "number_in_job": self.number_in_job,
            "creator_user_name": "emulator@example.com",
            "run_name": self.run_name,
            "run_type": self.run_type,
            "run_page_url": self.page_url,
            "state": state,
            "start_time": self.start_ms,
            "end_time": end_ms,
            "attempt_number": 0,
            "tasks": [
                self._render_task(spec, task_run_id, state, end_ms)
                for spec, task_run_id in zip(self.tasks, self.task_run_ids)
            ],
        }
        if include_history:
            original = {"type": "ORIGINAL", "id": self.run_id, "start_time": self.start_ms}
            body["repair_history"] = [original, *self.repairs]
        return body

    def _render_task(self, spec: dict[str, Any], task_run_id: int, state: dict[str, Any], end_ms: int):
        task = dict(spec)
        times = {"start_time": self.start_ms, "end_time": end_ms}
        return {**task, "run_id": task_run_id, "state": dict(state), **times}

    def render_task_run(self, now: float, task_run_id: int) -> dict[str, Any]:
        """runs/get of one of this run's task runs: the task as the parent lists it, as a run of its own.

        The reference does not say that runs/get takes a task run's id; the official provider's
        ``DatabricksTaskBaseOperator`` polls it that way (``_monitor_single_attempt``), so we answer it.
        """
        task = next(t for t in self.render(now)["tasks"] if t["run_id"] == task_run_id)
        page = f"{self.page_url.rsplit('/run/', 1)[0]}/run/{task_run_id}"
        return {**task, "job_id": self.job_id, "run_name": self.run_name, "run_type": self.run_type,
                "run_page_url": page, "attempt_number": 0, "tasks": []}

    def render_output(self, now: float, task_run_id: int | None = None) -> dict[str, Any]:
        """runs/get-output of this run (single task) or of one of its task runs."""
        metadata = self.render(now)
        if task_run_id is not None:
            metadata = next(t for t in metadata["tasks"] if t["run_id"] == task_run_id)
        life, result, _ = self.state(now)
        out: dict[str, Any] = {"metadata": metadata}
        spec = self.tasks[0] if task_run_id is None else self.tasks[self.task_run_ids.index(task_run_id)]
        if life == "TERMINATED" and result == "SUCCESS" and "notebook_task" in spec:
            out["notebook_output"] = {"result": self.plan.output or "", "truncated": False}
        elif result in ("FAILED", "TIMEDOUT") or life == "INTERNAL_ERROR":
            out["error"] = self.plan.error or STATE_MESSAGES[result or life]
            out["error_trace"] = "Traceback (emulated)"
        return out


def task_specs(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The task list of a submit/run-now payload, or a one-task list built from a legacy field."""
    tasks = payload.get("tasks")
    if tasks:
        return [dict(t) for t in tasks]
    for name in LEGACY_TASK_FIELDS:
        if name in payload:
            return [{"task_key": payload.get("run_name") or "task", name: payload[name]}]
    return []


def validate_tasks(payload: dict[str, Any]) -> None:
    """runs/submit needs ``tasks`` (each with a unique ``task_key``) or one legacy task field."""
    tasks = payload.get("tasks")
    if tasks is None or tasks == []:
        if not any(name in payload for name in LEGACY_TASK_FIELDS):
            fields = ", ".join(("tasks", *LEGACY_TASK_FIELDS))
            message = f"One of the following fields must be provided: {fields}"
            raise ApiError(400, "INVALID_PARAMETER_VALUE", message)
        return
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", "tasks must be a list of objects")
    keys = [t.get("task_key") for t in tasks]
    if not all(isinstance(k, str) and k for k in keys):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", "Every task must have a non-empty task_key")
    if len(set(keys)) != len(keys):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", "Task keys must be unique within a run")

"""The Cloud Run emulator's state: jobs, their executions, the overrides a ``RunJob`` applies, listing.

Every rule is quoted in ``docs/emulators/cloud_run.md``. In short: ``RunJob`` "create[s] a new Execution of a
Job" and takes no request id, so every accepted call makes one more execution; its ``overrides`` replace the
task count, the timeout and a container's args, and "will be merged with existing env" (a variable of the same
name replaced, others kept); the execution's ``template`` is "the template used to create tasks for this
execution", overrides applied. ``ListExecutions`` "Lists Executions from a Job. Results are sorted by creation
time, descending." Executions go pending -> running -> succeeded | failed on a clock unless held;
``CancelExecution`` ends them cancelled. Where Google is silent the choice is marked *silent* here and in the
contract: what a nameless container override targets (the first container), the error for an unknown
container name, what ``CancelExecution`` answers for an ended execution, and how soon a new execution is
listed (at once, unless a test sets ``list_lag``: the window the durable operator's ``find`` has to cover).

A container env ``EMULATOR_OUTCOME=failed`` (in the job or in the overrides) ends the execution with a failed
task and ``EMULATOR_SECONDS`` sets its running time, so a test asks for a failing execution through the real
request. ``jobs`` holds the *executions* (the name the shared crash and fault tools read); ``definitions`` the
Cloud Run jobs they belong to.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from google.cloud.run_v2.types import Condition, EnvVar, Execution, ExecutionTemplate, Job, RunJobRequest
from google.protobuf import timestamp_pb2

from durable_jobs.testing.emulators._workload_model import NamedWorkloadModel, RpcError, clock_state, get_or_not_found

_JOB_NAME = re.compile(r"^projects/([^/]+)/locations/([^/]+)/jobs/([^/]+)$")
_EXECUTION_NAME = re.compile(r"^(projects/[^/]+/locations/[^/]+/jobs/[^/]+)/executions/([^/]+)$")
TERMINAL = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})


@dataclass
class RunExecution:
    id: str
    name: str
    project: str
    job: str  # the parent job's resource name
    message: Execution  # the template, task count and parallelism, fixed at RunJob
    created: float
    wall: float  # time.time() at creation, for create_time
    seconds: float
    outcome: str
    operation: str
    key: str
    cancelled_at: float | None = None
    forced: str | None = None

    def state(self, now: float, held: bool) -> str:
        return clock_state(self, now, held, starting=[(0.05, "PENDING")], cancelling="CANCELLING")


class CloudRunModel(NamedWorkloadModel):
    """Jobs and executions of every project and location, behind one lock; the ledger of every ``RunJob``."""

    #: The env variable a test may read back (the durable operator's key); only recorded in the ledger.
    KEY_ENV = "DURABLE_JOBS_KEY"

    def __init__(self, *, run_seconds: float = 1.0, clock: Any = time.monotonic) -> None:
        super().__init__(run_seconds=run_seconds, clock=clock)
        self.definitions: dict[str, Job] = {}  # by job resource name
        self.jobs: dict[str, RunExecution] = {}  # the executions, by resource name
        self.operations: dict[str, RunExecution] = {}
        self.list_lag: dict[str, float] = {}  # project ("" = every project) -> seconds before a new one is listed
        self._counter = 0

    # ------------------------------------------------------------------ jobs
    def add_job(self, name: str, template: ExecutionTemplate) -> Job:
        if not _JOB_NAME.match(name):
            raise ValueError(f"{name!r} is not projects/<project>/locations/<location>/jobs/<job>")
        with self.lock:
            job = Job(name=name, template=template, uid=str(uuid.uuid4()))
            self.definitions[name] = job
            return job

    def job(self, name: str) -> Job:
        return get_or_not_found(self.definitions, name, f"Job {name} not found")

    def get_job(self, name: str) -> Job:
        with self.lock:
            job = Job.deserialize(Job.serialize(self.job(name)))
            mine = [e for e in self.jobs.values() if e.job == name]
            job.execution_count = len(mine)
            if mine:
                latest = max(mine, key=lambda e: e.created)
                job.latest_created_execution.name = latest.name
                job.latest_created_execution.create_time = _stamp(latest.wall)
            return job

    # ------------------------------------------------------------------ RunJob
    def run_job(self, req: RunJobRequest) -> RunExecution:
        found = _JOB_NAME.match(req.name)
        if not found:
            raise RpcError("INVALID_ARGUMENT", f"name {req.name!r} is not projects/<p>/locations/<l>/jobs/<job>")
        project, location, job_id = found.groups()
        with self.lock:
            job = self.job(req.name)
            template = ExecutionTemplate.deserialize(ExecutionTemplate.serialize(job.template))
            _apply(template, req.overrides)
            env = {e.name: e.value for c in template.template.containers for e in c.env}
            try:
                seconds = float(env.get("EMULATOR_SECONDS", self.run_seconds))
            except ValueError:
                seconds = self.run_seconds
            outcome = "FAILED" if env.get("EMULATOR_OUTCOME") == "failed" else "SUCCEEDED"
            self._counter += 1
            short = f"{job_id[:40]}-{uuid.uuid4().hex[:5]}"
            name = f"{req.name}/executions/{short}"
            task_count = template.task_count or 1
            message = Execution(name=name, uid=str(uuid.uuid4()), job=job_id, template=template.template,
                                task_count=task_count, parallelism=template.parallelism or task_count,
                                labels=dict(template.labels), annotations=dict(template.annotations),
                                log_uri=f"https://console.cloud.google.com/logs/viewer?project={project}"
                                        f"&resource=cloud_run_job/location/{location}&execution={short}")
            operation = f"projects/{project}/locations/{location}/operations/{uuid.uuid4()}"
            item = RunExecution(short, name, project, req.name, message, self.clock(), time.time(), seconds,
                                outcome, operation, env.get(self.KEY_ENV, ""))
            self.jobs[name] = item
            self.operations[operation] = item
            self.ledger.append({"op": "RunJob", "project": project, "job": req.name, "id": short,
                                "created": True, "request_id": item.key})
            return item

    # ------------------------------------------------------------------ executions
    def execution(self, name: str) -> RunExecution:
        return get_or_not_found(self.jobs, name, f"Execution {name} not found")

    def view(self, item: RunExecution) -> Execution:
        state = self.state_of(item)
        msg = Execution.deserialize(Execution.serialize(item.message))
        msg.create_time = _stamp(item.wall)
        msg.update_time = _stamp(time.time())
        count = msg.task_count
        if state != "PENDING":
            msg.start_time = _stamp(item.wall + 0.05)
        if state in ("RUNNING", "CANCELLING"):
            msg.running_count = min(count, msg.parallelism or count)
        if state == "SUCCEEDED":
            msg.succeeded_count = count
        elif state == "FAILED":
            msg.failed_count, msg.succeeded_count = 1, count - 1
        elif state == "CANCELLED":
            msg.cancelled_count = count
        done = state in TERMINAL
        msg.reconciling = not done
        if done:
            msg.completion_time = _stamp(time.time())
        cond = Condition.State.CONDITION_SUCCEEDED if state == "SUCCEEDED" else \
            Condition.State.CONDITION_FAILED if done else Condition.State.CONDITION_PENDING
        msg.conditions = [Condition(type_="Completed", state=cond)]
        return msg

    def get_execution(self, name: str) -> Execution:
        with self.lock:
            return self.view(self.execution(name))

    def list_executions(self, parent: str) -> list[Execution]:
        """A job's executions, newest first; one younger than the project's ``list_lag`` is not listed yet."""
        with self.lock:
            if parent.endswith("/jobs/-"):
                prefix = parent[: -len("-")]
                pool = [e for e in self.jobs.values() if e.job.startswith(prefix)]
            else:
                self.job(parent)
                pool = [e for e in self.jobs.values() if e.job == parent]
            now = self.clock()
            pool = [e for e in pool if now - e.created >= self.list_lag.get(e.project, self.list_lag.get("", 0.0))]
            return [self.view(e) for e in sorted(pool, key=lambda e: e.created, reverse=True)]

    def cancel_execution(self, name: str) -> RunExecution:
        """An active execution is cancelled (its tasks end cancelled 0.2 s later); an ended one is left as it is
        (*silent*: the emulator answers FAILED_PRECONDITION)."""
        with self.lock:
            item = self.execution(name)
            state = self.state_of(item)
            self.ledger.append({"op": "CancelExecution", "project": item.project, "id": item.id,
                                "ts": time.time()})
            if state in TERMINAL:
                raise RpcError("FAILED_PRECONDITION", f"Execution {name} is {state.lower()} and cannot be cancelled")
            if item.cancelled_at is None:
                item.cancelled_at, item.forced = self.clock(), None
            return item

    def delete_execution(self, name: str) -> RunExecution:
        with self.lock:
            item = self.execution(name)
            del self.jobs[name]
            return item

    def _thaw(self, project: str, since: float) -> None:
        now = self.clock()
        for item in self.jobs.values():
            if item.project == project:  # only the frozen time it lived through
                item.created += max(0.0, now - max(since, item.created))


def _apply(template: ExecutionTemplate, overrides: RunJobRequest.Overrides) -> None:
    """``RunJobRequest.overrides`` on a copy of the job's execution template."""
    if overrides.task_count:
        template.task_count = overrides.task_count  # "Will replace existing task_count value."
    if overrides.timeout:
        template.template.timeout = overrides.timeout  # "Will replace existing timeout_seconds value."
    containers = template.template.containers
    for override in overrides.container_overrides:
        if not containers:
            raise RpcError("INVALID_ARGUMENT", "the job has no container to override")
        if override.name:
            target = next((c for c in containers if c.name == override.name), None)
            if target is None:  # silent: the emulator refuses an override of a container the job lacks
                raise RpcError("INVALID_ARGUMENT", f"container_overrides: the job has no container {override.name!r}")
        else:  # silent: a nameless override goes to the first (for one-container jobs, the only) container
            target = containers[0]
        if override.clear_args:
            target.args = []
        if override.args:
            target.args = list(override.args)  # "Will replace existing args for override."
        if override.env:  # "Will be merged with existing env for override."
            merged = {e.name: e for e in target.env}
            for var in override.env:
                merged[var.name] = EnvVar(name=var.name, value=var.value)
            target.env = list(merged.values())


def _stamp(seconds: float) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def split_execution_name(name: str) -> tuple[str, str]:
    """(job resource name, execution id) of an execution's resource name."""
    found = _EXECUTION_NAME.match(name)
    if not found:
        raise RpcError("INVALID_ARGUMENT", f"{name!r} is not <job name>/executions/<execution>")
    return found.group(1), found.group(2)

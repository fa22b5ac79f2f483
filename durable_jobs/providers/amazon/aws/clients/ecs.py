"""Amazon ECS tasks (``RunTask``) through the official ``EcsHook``.

``RunTask`` is idempotent on ``clientToken``: the epoch's key goes there. The ECS API reference
(RunTask, ``clientToken``): "An identifier that you provide to ensure the idempotency of the request.
It must be unique and is case sensitive. Up to 64 characters are allowed. The valid characters are
characters in the range of 33-126, inclusive." "Ensuring idempotency": "If you retry a request that
completed successfully using the same client token and the same parameters, the retry succeeds without
performing any further actions." RunTask's own documentation: "If you get a ``ConflictException`` error,
the ``RunTask`` request could not be processed due to conflicts. The provided ``clientToken`` is already in
use with a different ``RunTask`` request. The ``resourceIds`` are the existing task ARNs which are already
associated with the ``clientToken``": that answer names the task of our key, and is taken as found. The
idempotency page's RunTask section (read in its docs.amazonaws.cn edition, in Chinese) adds that a token
is idempotent per cluster and lives 24 hours; the English reference we quote is silent on both.

The key (32 hex characters) fits the 64. Since the token makes a resend idempotent, ``RunTask`` goes
through the ordinary client with the SDK's retries on (unlike Batch and Glue). The official operator
sends no token: botocore fills one in (the member is an ``idempotencyToken``), so its own retries
within one call are safe, but a new try is a new task.

ECS cannot look a task up by token, so the task is also tagged ``durable-jobs:key`` (``DescribeTasks``
with ``include=["TAGS"]`` returns it) and ``find(key)`` lists the cluster's tasks started with the
operator's ``startedBy`` (RUNNING and STOPPED: ``ListTasks`` shows one desired status per call), over
the consistency window: the reference says "The Amazon ECS API follows an eventual consistency model".
Tagging at submit needs ``ecs:TagResource``; without it, and without tags of the user's own, the task is
resubmitted untagged (the refusal created nothing) and a lost reply is still recovered by the same-token
resend.

A stopped task's outcome is in its containers, not in ``lastStatus``: ``task_outcome`` reads it as the
official operator's ``_check_success_task`` does (a failure list, ``TaskFailedToStart``, a terminated
host, a container stopped with a non-zero or missing exit code, a container still PENDING, an error
reason). "API failure reasons" (ECS developer guide), ``DescribeTasks``, ``MISSING``: "The specified task
wasn't found. Verify the correct cluster or Region is specified and that both the task ARN or ID is
valid." Only that reason reads as MISSING; a reply that neither describes the task nor says MISSING is
raised, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import (
    KEY_TAG,
    AwsJobClient,
    _aware,
    chunked,
    error_code,
    listing_floor,
    log,
    merge_tags,
)

#: ``lastStatus`` (ECS developer guide, "Amazon ECS task lifecycle"). A STOPPED task may have failed:
#: ``status()`` decides its phase from the containers (``task_outcome``), not from this table.
ECS_STATES = StateTable(
    vendor="Amazon ECS",
    active=frozenset({"PROVISIONING", "PENDING", "ACTIVATING", "RUNNING", "DEACTIVATING", "STOPPING",
                      "DEPROVISIONING"}),
    succeeded=frozenset({"STOPPED", "DELETED"}),
    failed=frozenset(),
)
MAX_TOKEN_LENGTH = 64
#: "Maximum number of tags per resource - 50" (RunTask, ``tags``).
MAX_TAGS = 50
#: DescribeTasks: "A list of up to 100 task IDs or full ARN entries."
DESCRIBE_BATCH = 100
MAX_PAGES = 10
KILL_REASON = "Task killed by the user"
_HOST_GONE = re.compile(r"Host EC2 \(instance .+?\) (stopped|terminated)\.")


def task_outcome(task: Mapping[str, Any]) -> str | None:
    """Why a stopped task did not succeed (None: it did), by the official ``_check_success_task``'s rules."""
    if task.get("stopCode", "") == "TaskFailedToStart":
        return f"the task failed to start: {task.get('stoppedReason', '')}"
    if _HOST_GONE.match(task.get("stoppedReason", "") or ""):
        return f"the host instance terminated: {task.get('stoppedReason', '')}"
    for container in task.get("containers") or []:
        if container.get("lastStatus") == "STOPPED" and container.get("exitCode", 1) != 0:
            return f"container {container.get('name')} exited with code {container.get('exitCode', 1)}"
        if container.get("lastStatus") == "PENDING":
            return f"container {container.get('name')} is still PENDING"
        if "error" in (container.get("reason") or "").lower():
            return f"container {container.get('name')}: {container.get('reason')}"
    return None


class EcsJobClient(AwsJobClient):
    """``RunTask`` under ``clientToken`` and a key tag; ``find`` lists the tasks of ``startedBy``."""

    vendor: ClassVar[str] = "Amazon ECS"
    states: ClassVar[StateTable] = ECS_STATES
    tag_permission: ClassVar[str] = "ecs:TagResource"
    status_endpoint: ClassVar[str] = "ecs:DescribeTasks"
    _untagged_find_by = "a same-token resend (clientToken)"
    service_fields = ("cluster", "started_by")

    def __init__(self, aws_conn_id: str | None = "aws_default", *, cluster: str = "", started_by: str = "",
                 **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.cluster = cluster
        self.started_by = started_by

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.ecs import EcsHook

        return EcsHook(**self._hook_kwargs())

    #: In the worker, the operator's own boto3 client (upstream's ``EcsBaseOperator.client``, the same hook
    #: arguments); None in the triggerer, which builds the hook from ``serialize()``.
    conn_source: Any = None

    @property
    def client(self):
        return self.conn_source() if self.conn_source is not None else self.hook.conn

    @property
    def submit_client(self):
        """The same client: a resend under the same ``clientToken`` is idempotent, so the SDK may retry it."""
        return self.client

    # ------------------------------------------------------------------ submit
    def _tag_fallback_allowed(self, request: Mapping[str, Any]) -> bool:
        return not request.get("tags")

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        from airflow.providers.amazon.aws.exceptions import EcsOperatorError

        args = dict(request)
        args["clientToken"] = key
        if tag:
            user = {t["key"]: t.get("value", "") for t in args.get("tags") or []}
            merged, room = merge_tags(user, key, limit=MAX_TAGS)
            if not room:
                log.warning("Amazon ECS allows %d tags per task and `tags` has %d: the key %s travels in the "
                            "clientToken only", MAX_TAGS, len(merged), key)
            args["tags"] = [{"key": k, "value": v} for k, v in merged.items()]
        if not args.get("tags"):
            args.pop("tags", None)
        try:
            response = self.submit_client.run_task(**args)
        except Exception as err:
            existing = (getattr(err, "response", None) or {}).get("resourceIds") or []
            if error_code(err) == "ConflictException" and existing:
                log.warning("Amazon ECS already ran tasks %s under clientToken %s: using them", existing, key)
                return str(existing[0])
            raise
        failures = self.field(response, "failures", "RunTask")
        if failures:
            raise EcsOperatorError(failures, response)
        return str(self.field(response, "tasks", "RunTask")[0]["taskArn"])

    # ------------------------------------------------------------------ find
    def _scan(self, key: str, since: datetime | None) -> str | None:
        arns: list[str] = []
        for desired in ("RUNNING", "STOPPED"):
            request = {"cluster": self.cluster, "desiredStatus": desired}
            if self.started_by:
                request["startedBy"] = self.started_by
            for page in self._pages("list_tasks", request, MAX_PAGES):
                arns.extend(self.field(page, "taskArns", "ListTasks"))
        floor = listing_floor(since)
        for chunk in chunked(arns, DESCRIBE_BATCH):
            response = self.client.describe_tasks(cluster=self.cluster, tasks=chunk, include=["TAGS"])
            for task in self.field(response, "tasks", "DescribeTasks"):
                created = task.get("createdAt")
                if floor is not None and created and _aware(created) < floor:
                    continue
                if any(t.get("key") == KEY_TAG and t.get("value") == key for t in task.get("tags") or []):
                    return str(task["taskArn"])
        return None

    # ------------------------------------------------------------------ status
    def _status_in(self, job_id: str, response: Mapping[str, Any]) -> JobStatus:
        for task in self.field(response, "tasks", "DescribeTasks"):
            if task.get("taskArn") == job_id or str(task.get("taskArn", "")).endswith("/" + str(job_id)):
                state = task.get("lastStatus", "")
                phase = self.states.phase(state)
                if phase is JobPhase.SUCCEEDED and task_outcome(task) is not None:
                    return JobStatus(JobPhase.FAILED, state, task_outcome(task) or "", task)
                return JobStatus(phase, state, task.get("stoppedReason", "") or "", task)
        for failure in response.get("failures") or []:
            if failure.get("reason") == "MISSING":
                return JobStatus(JobPhase.MISSING, "NOT_FOUND", f"Amazon ECS has no task {job_id}: MISSING")
        raise RuntimeError(f"Amazon ECS DescribeTasks did not describe {job_id}: {response.get('failures')}")

    def status(self, job_id: Any) -> JobStatus:
        return self._status_in(job_id, self.client.describe_tasks(cluster=self.cluster, tasks=[job_id]))

    async def astatus(self, job_id: Any) -> JobStatus:
        client = await self._async_client()
        return self._status_in(job_id, await client.describe_tasks(cluster=self.cluster, tasks=[job_id]))

    async def astatuses(self, job_ids: Iterable[Any]) -> dict[Any, JobStatus]:
        """``DescribeTasks`` takes 100 tasks a call: one request per hundred."""
        ids = list(job_ids)
        client = await self._async_client()
        result: dict[Any, JobStatus] = {}
        for chunk in chunked(ids, DESCRIBE_BATCH):
            response = await client.describe_tasks(cluster=self.cluster, tasks=chunk)
            result.update({i: self._status_in(i, response) for i in chunk})
        return result

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official ``TaskDoneTrigger`` event's ARN and cluster (its ``execute_complete`` reads both)."""
        return {"task_arn": job_id, "cluster": self.cluster}

    def cancel(self, job_id: Any) -> None:
        self.client.stop_task(cluster=self.cluster, task=job_id, reason=KILL_REASON)

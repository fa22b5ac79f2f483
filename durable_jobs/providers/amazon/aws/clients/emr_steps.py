"""Amazon EMR steps (``AddJobFlowSteps``) through the official ``EmrHook``.

``AddJobFlowSteps`` takes no idempotency token (its request is ``JobFlowId``, ``Steps``, ``ExecutionRoleArn``),
so the key travels in each step's ``Name``: the user's name followed by ``" [durable-jobs <key> <i>/<n>]"``
(step ``i`` of the ``n`` steps of one call). The EMR API reference (StepConfig, ``Name``): "The name of the
step", "Length Constraints: Maximum length of 256" (``XmlStringMaxLen256``). The suffix is 56 characters at
most (up to 256 steps: "A maximum of 256 steps are allowed in each job flow"), so a user's name keeps at
least its first 200 characters; a longer one is cut, with a WARNING naming the step.

``find(key)`` lists the cluster's steps (``ListSteps``: "Provides a list of steps for the cluster in reverse
order", "The maximum number of steps that a single ListSteps action returns is 50", further pages by
``Marker``), newest first, and stops at steps older than the intent (less the clock-skew margin). All ``n``
steps of the call must be found, or the call counts as not made: one ``AddJobFlowSteps`` is one request, and
the reference does not say whether it can add some steps of a list and not others. A partial find is logged
(naming the steps found) and treated as not found: after the consistency window the same steps are added again
under the same key. The reference says nothing about ListSteps' consistency: the shared window applies
(``[durable_jobs] aws_list_consistency_seconds``).

The job id is ``"<cluster id>/<step id>,<step id>,..."``: the cluster the steps run on and every step of the
call, in order, so that a retry asks the same cluster even when ``job_flow_name`` now names another. Statuses
come from ``ListSteps`` with ``StepIds`` ("You can specify a maximum of ten Step IDs": one call per ten), the
phase of the whole from its steps: any FAILED, CANCELLED or INTERRUPTED → failed; all COMPLETED → succeeded;
otherwise active (states: ``StepState``, PENDING | CANCEL_PENDING | RUNNING | COMPLETED | CANCELLED | FAILED |
INTERRUPTED). A step the listing no longer shows, or ``InvalidRequestException`` for the cluster, reads as
MISSING.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, _aware, chunked, listing_floor, log

#: ``StepState``, sorted as the official waiters do: ``step_complete`` succeeds on COMPLETED and fails on
#: FAILED/CANCELLED; ``steps_wait_for_terminal`` also fails on INTERRUPTED.
EMR_STEP_STATES = StateTable(
    vendor="Amazon EMR",
    active=frozenset({"PENDING", "CANCEL_PENDING", "RUNNING"}),
    succeeded=frozenset({"COMPLETED"}),
    failed=frozenset({"CANCELLED", "FAILED", "INTERRUPTED"}),
)
#: StepConfig ``Name``: "Maximum length of 256".
MAX_NAME_LENGTH = 256
#: AddJobFlowSteps: "A maximum of 256 steps are allowed in each job flow."
MAX_STEPS = 256
#: ListSteps ``StepIds``: "You can specify a maximum of ten Step IDs."
LIST_STEP_IDS = 10
#: Pages of 50 steps scanned at most by ``find`` (it stops earlier at steps older than the intent).
MAX_PAGES = 40
MISSING_CODES = frozenset({"InvalidRequestException", "ResourceNotFoundException"})
_SUFFIX = re.compile(r" \[durable-jobs ([0-9a-f]{32}) (\d{1,3})/(\d{1,3})\]$")


def key_suffix(key: str, index: int, count: int) -> str:
    return f" [durable-jobs {key} {index}/{count}]"


def name_with_key(name: str, key: str, index: int, count: int) -> tuple[str, bool]:
    """The step's name carrying the key; True when the user's name had to be cut to fit 256 characters."""
    suffix = key_suffix(key, index, count)
    room = MAX_NAME_LENGTH - len(suffix)
    return name[:room] + suffix, len(name) > room


def key_of_name(name: str) -> tuple[str, int, int] | None:
    """(key, index, count) from a step name we decorated; None for any other name."""
    match = _SUFFIX.search(name or "")
    return (match.group(1), int(match.group(2)), int(match.group(3))) if match else None


def user_name(name: str) -> str:
    """The name as the user wrote it (the key suffix removed)."""
    return _SUFFIX.sub("", name or "")


def split_job_id(job_id: Any) -> tuple[str, list[str]]:
    cluster, sep, steps = str(job_id).partition("/")
    if not sep or not cluster or not steps:
        raise DurableJobConfigError(f"not an EMR steps job id (expected '<cluster id>/<step id>,...'): {job_id!r}")
    return cluster, steps.split(",")


def make_job_id(cluster_id: str, step_ids: Sequence[str]) -> str:
    return f"{cluster_id}/{','.join(step_ids)}"


class EmrStepsJobClient(AwsJobClient):
    """``AddJobFlowSteps`` with the key in each step's name; ``find`` lists the cluster's steps."""

    vendor: ClassVar[str] = "Amazon EMR"
    states: ClassVar[StateTable] = EMR_STEP_STATES
    status_endpoint: ClassVar[str] = "elasticmapreduce:ListSteps"
    missing_codes: ClassVar[frozenset[str]] = MISSING_CODES
    service_fields = ("cluster_id",)
    def __init__(self, aws_conn_id: str | None = "aws_default", *, cluster_id: str = "", **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        #: The cluster ``find`` lists (resolved from ``job_flow_name`` by the operator before it submits).
        self.cluster_id = cluster_id

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.emr import EmrHook

        return EmrHook(**self._hook_kwargs())

    @property
    def submit_endpoint(self) -> str:
        return "elasticmapreduce:AddJobFlowSteps"

    # ------------------------------------------------------------------ submit
    def keyed_steps(self, steps: Sequence[Mapping[str, Any]], key: str) -> list[dict[str, Any]]:
        if len(steps) > MAX_STEPS:
            raise DurableJobConfigError(f"steps: Amazon EMR takes at most {MAX_STEPS} steps per job flow, got "
                                        f"{len(steps)}; split them over several tasks")
        keyed = []
        for index, step in enumerate(steps):
            name, cut = name_with_key(str(step.get("Name") or ""), key, index, len(steps))
            if cut:
                log.warning("Step %d's Name is longer than Amazon EMR's %d characters with the durable-jobs key: "
                            "it is cut to %r", index, MAX_NAME_LENGTH, name)
            keyed.append({**step, "Name": name})
        return keyed

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        from airflow.providers.common.compat.sdk import AirflowException

        args = dict(request)
        args["Steps"] = self.keyed_steps(args.get("Steps") or [], key)
        response = self.submit_client.add_job_flow_steps(**args)
        if response["ResponseMetadata"]["HTTPStatusCode"] != 200:  # upstream's check (EmrHook.add_job_flow_steps)
            raise AirflowException(f"Adding steps failed: {response}")
        step_ids = [str(i) for i in self.field(response, "StepIds", "AddJobFlowSteps")]
        return make_job_id(str(args["JobFlowId"]), step_ids)

    # ------------------------------------------------------------------ find
    def _scan(self, key: str, since: datetime | None) -> str | None:
        if not self.cluster_id:
            return None
        found: dict[int, str] = {}
        count = 0
        oldest = listing_floor(since)
        for page in self._pages("list_steps", {"ClusterId": self.cluster_id}, MAX_PAGES):
            older = False
            for step in self.field(page, "Steps", "ListSteps"):
                created = ((step.get("Status") or {}).get("Timeline") or {}).get("CreationDateTime")
                if oldest is not None and created and _aware(created) < oldest:
                    older = True  # reverse order: every step after this one is older still
                    break
                parsed = key_of_name(step.get("Name", ""))
                if parsed and parsed[0] == key:
                    count = parsed[2]
                    found.setdefault(parsed[1], str(step["Id"]))  # newest first: a resend's steps win
            if older:
                break
        if not found:
            return None
        if count and all(i in found for i in range(count)):
            return make_job_id(self.cluster_id, [found[i] for i in range(count)])
        log.warning("Amazon EMR cluster %s lists %d of the %d steps added under key %s (%s): the call counts as "
                    "not made", self.cluster_id, len(found), count, key, sorted(found.values()))
        return None

    # ------------------------------------------------------------------ status
    def _combine(self, job_id: Any, step_ids: list[str], listed: Mapping[str, Mapping[str, Any]]) -> JobStatus:
        missing = [i for i in step_ids if i not in listed]
        if missing:
            return JobStatus(JobPhase.MISSING, "NOT_FOUND", f"Amazon EMR no longer lists steps {missing}")
        steps = [listed[i] for i in step_ids]
        states = [str(self.field(s.get("Status") or {}, "State", "ListSteps")) for s in steps]
        raw = {"Steps": steps}
        for step, state in zip(steps, states):
            if self.states.phase(state) is JobPhase.FAILED:
                status = step.get("Status") or {}
                detail = status.get("FailureDetails") or status.get("StateChangeReason") or {}
                return JobStatus(JobPhase.FAILED, state, f"step {step['Id']} {state}: {detail}", raw)
        for state in states:
            if self.states.phase(state) is JobPhase.UNKNOWN:
                return JobStatus(JobPhase.UNKNOWN, state, "", raw)
        if all(self.states.phase(s) is JobPhase.SUCCEEDED for s in states):
            return JobStatus(JobPhase.SUCCEEDED, "COMPLETED", "", raw)
        active = next(s for s in states if self.states.phase(s) is JobPhase.ACTIVE)
        return JobStatus(JobPhase.ACTIVE, active, "", raw)

    def _steps_by_id(self, page: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        return {str(s["Id"]): s for s in self.field(page, "Steps", "ListSteps")}

    def status(self, job_id: Any) -> JobStatus:
        cluster, step_ids = split_job_id(job_id)
        listed: dict[str, Mapping[str, Any]] = {}
        try:
            for chunk in chunked(step_ids, LIST_STEP_IDS):
                listed.update(self._steps_by_id(self.client.list_steps(ClusterId=cluster, StepIds=chunk)))
        except Exception as err:
            return self._missing_or_raise(job_id, err)
        return self._combine(job_id, step_ids, listed)

    async def astatus(self, job_id: Any) -> JobStatus:
        cluster, step_ids = split_job_id(job_id)
        client = await self._async_client()
        listed: dict[str, Mapping[str, Any]] = {}
        try:
            for chunk in chunked(step_ids, LIST_STEP_IDS):
                listed.update(self._steps_by_id(await client.list_steps(ClusterId=cluster, StepIds=chunk)))
        except Exception as err:
            return self._missing_or_raise(job_id, err)
        return self._combine(job_id, step_ids, listed)

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official ``EmrAddStepsTrigger``'s event carries the step ids as ``value`` (its return value)."""
        return {"value": split_job_id(job_id)[1]}

    def cancel(self, job_id: Any) -> None:
        """``CancelSteps`` on every step of the call ("idempotent but asynchronous"); declined ones are logged."""
        cluster, step_ids = split_job_id(job_id)
        response = self.client.cancel_steps(ClusterId=cluster, StepIds=step_ids)
        declined = [i for i in response.get("CancelStepsInfoList") or [] if i.get("Status") != "SUBMITTED"]
        for info in declined:
            log.info("Amazon EMR did not cancel step %s (%s): it may have already finished", info.get("StepId"),
                     info.get("Reason"))

"""The Amazon EMR step rules moto 5.2.5 lacks, installed by ``aws_moto.install_gap_rules``.

Kept apart from ``aws_moto`` (which merges ``GAPS`` into ``MOTO_GAPS`` and calls ``install``) so that this
service's emulator rules read in one place; the contract is docs/emulators/aws-emr-steps.md. Nothing here
imports Airflow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from durable_jobs.testing.emulators._moto_state import graft_managed_state

MODEL = "emr::step"
#: A step with an argument containing this ends FAILED (``emr-step-life-cycle``).
FAIL_MARKER = "fail"
FAILURE_DETAILS = {"Reason": "Unknown Error.", "Message": "the emulator's 'fail' marker is in the step's Args",
                   "LogFile": "s3://durable-emr-logs/steps/"}
#: "You can specify a maximum of ten Step IDs" (ListSteps, ``StepIds``).
MAX_LIST_STEP_IDS = 10
#: "CancelSteps ... A maximum of 256 steps are allowed in each CancelSteps request."
MAX_CANCEL_STEP_IDS = 256
CANCELLABLE = ("PENDING", "RUNNING")

GAPS: dict[str, str] = {
    "emr-step-life-cycle": (
        "moto creates the first step of a cluster RUNNING, later ones PENDING, and nothing ever ends them (the "
        "official operator's step_complete waiter waits forever). Ours run PENDING -> RUNNING -> COMPLETED on "
        "moto's state manager (model 'emr::step'), each step on its own (AWS runs them in order, or up to the "
        "cluster's StepConcurrencyLevel at once: not modelled); a step with an argument containing 'fail' ends "
        "FAILED with FailureDetails."
    ),
    "emr-cancel-steps": (
        "moto has no CancelSteps. AWS: 'Cancels a pending step or steps in a running cluster ... A maximum of 256 "
        "steps are allowed in each CancelSteps request. CancelSteps is idempotent but asynchronous; it does not "
        "guarantee that a step will be canceled, even if the request is successfully submitted. When you use "
        "Amazon EMR releases 5.28.0 and later, you can cancel steps that are in a PENDING or RUNNING state.' Ours "
        "ends a PENDING or RUNNING step CANCELLED at once (AWS may pass through CANCEL_PENDING) and answers it "
        "Status SUBMITTED; a finished or unknown step gets Status FAILED with a Reason (the reference documents "
        "the Reason field, not its text)."
    ),
    "emr-list-steps-step-ids-limit": (
        "moto accepts any number of StepIds in ListSteps. AWS: 'You can specify a maximum of ten Step IDs.' Ours "
        "refuses more than ten with InvalidRequestException (the reference does not name the error: ours is the "
        "one EMR documents for 'something wrong with user input'). moto also answers ListSteps for an unknown "
        "cluster with a 500 (a KeyError): ours raises moto's own InvalidRequestException \"Cluster id '<id>' "
        "is not valid.\" (what its DescribeCluster answers; the ListSteps reference lists "
        "InvalidRequestException)."
    ),
    "emr-step-execution-role": (
        "moto drops AddJobFlowSteps' ExecutionRoleArn. AWS: 'The Amazon Resource Name (ARN) of the runtime role "
        "for a step on the cluster.' Ours keeps it on each step and DescribeStep answers it (ListSteps' "
        "StepSummary has no such field)."
    ),
}


def install(patch: Callable[[Any, str, Any], None]) -> None:
    """Add the rules in ``GAPS`` through ``patch(owner, name, value)`` (undone by ``aws_moto``)."""
    from moto.core.responses import ActionResult
    from moto.emr.exceptions import InvalidRequestException
    from moto.emr.models import ElasticMapReduceBackend, Step
    from moto.emr.responses import ElasticMapReduceResponse
    from moto.moto_api._internal.managed_state_model import ManagedState

    original_init = Step.__init__
    original_status = Step.__dict__["status"]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        failing = any(FAIL_MARKER in str(arg).lower() for arg in self.args or [])
        ManagedState.__init__(self, MODEL, [("PENDING", "RUNNING"), ("RUNNING", "FAILED" if failing else "COMPLETED")])

    def status(self: Any) -> dict[str, Any]:
        described = original_status.fget(self)
        if described.get("State") == "FAILED":
            described["FailureDetails"] = dict(FAILURE_DETAILS)
        return described

    def list_steps(self: ElasticMapReduceBackend, cluster_id: str, step_ids: list[str] | None = None,
                   step_states: list[str] | None = None) -> list[Any]:
        if step_ids and len(step_ids) > MAX_LIST_STEP_IDS:
            raise InvalidRequestException(f"You can specify a maximum of ten Step IDs; got {len(step_ids)}")
        self.describe_cluster(cluster_id)  # moto's InvalidCluster for an unknown id (instead of a KeyError)
        return original_list_steps(self, cluster_id, step_ids=step_ids, step_states=step_states)

    original_list_steps = ElasticMapReduceBackend.list_steps
    original_add = ElasticMapReduceResponse.add_job_flow_steps

    def add_job_flow_steps(self: ElasticMapReduceResponse) -> Any:
        result = original_add(self)
        role = self._get_param("ExecutionRoleArn")
        if role:
            cluster = self.backend.clusters[self._get_param("JobFlowId")]
            ids = set(result.result["StepIds"])  # type: ignore[index]
            for step in cluster.steps:
                if step.id in ids:
                    step.execution_role_arn = role  # type: ignore[attr-defined]
        return result

    def cancel_steps(self: ElasticMapReduceResponse) -> Any:
        cluster = self.backend.describe_cluster(self._get_param("ClusterId"))
        step_ids = self._get_param("StepIds", []) or []
        if len(step_ids) > MAX_CANCEL_STEP_IDS:
            raise InvalidRequestException(f"A maximum of 256 steps are allowed in each CancelSteps request; got "
                                          f"{len(step_ids)}")
        by_id = {step.id: step for step in cluster.steps}
        answers = []
        for step_id in step_ids:
            step = by_id.get(step_id)
            state = step.state if step is not None else None
            if step is None:
                answers.append({"StepId": step_id, "Status": "FAILED", "Reason": f"Step {step_id} not found"})
            elif state not in CANCELLABLE:
                answers.append({"StepId": step_id, "Status": "FAILED",
                                "Reason": f"Step {step_id} is in state {state} and cannot be cancelled"})
            else:
                step.state = "CANCELLED"
                step.last_state_change_reason = "Cancelled by CancelSteps"  # type: ignore[attr-defined]
                answers.append({"StepId": step_id, "Status": "SUBMITTED"})
        return ActionResult({"CancelStepsInfoList": answers})

    patch(Step, "__init__", __init__)
    graft_managed_state(patch, Step, "state", plain_key="_plain_state")
    patch(Step, "status", property(status))
    patch(ElasticMapReduceBackend, "list_steps", list_steps)
    patch(ElasticMapReduceResponse, "add_job_flow_steps", add_job_flow_steps)
    patch(ElasticMapReduceResponse, "cancel_steps", cancel_steps)

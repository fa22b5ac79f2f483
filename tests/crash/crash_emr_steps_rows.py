"""Amazon EMR steps crash rows: W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, next to the official
``EmrAddStepsOperator``'s.

The shared AWS drivers (``crash_aws_rows.aws_rows``): each cell adds one step, named after the cell, to the shared
long-running cluster (``durable-emr-cluster``); the step is pinned in moto (model ``emr::step``) while
``AddJobFlowSteps``' reply is held, so it is provably active until the driver lets it go. W5 deferrable holds a
``DescribeCluster`` the cell's DAG makes inside ``execute_complete`` (``dags/crash_dags.EmrStepsReadsOnComplete``),
an operation the trigger never calls. Ours polls ``ListSteps`` on both paths; the official operator's synchronous
wait is botocore's ``step_complete`` waiter (``DescribeStep``), its trigger ``ListSteps``: the official sync cells
see the service with ``DescribeStep`` as the status call (``crash_aws.CELL_SERVICES``). The official operator sends
no token and has no ``on_kill``: its W2 rows show the second step, its MARK-FAILED rows a step left running.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from crash_aws import CELL_SERVICES, SERVICES, UNKNOWN_STATE, AwsService, AwsVendor
from crash_aws_rows import COMPLETE_READS, SUCCEEDED, aws_rows
from crash_scenarios import Scenario

from durable_jobs.hooks.aws_emr_steps import EMR_STEP_STATES, key_of_name, user_name


def _emr_steps(vendor: AwsVendor) -> list[dict[str, Any]]:
    # One cluster for every cell: a cell's steps are the ones whose name (less our key suffix) is its DAG id; the
    # token is the key in the name (None for the official operator's, which carry none).
    emr = vendor.env.client("emr", direct=True)
    pages = emr.get_paginator("list_steps").paginate(ClusterId=vendor.env.emr_cluster_id)
    steps = [s for page in pages for s in page["Steps"] if user_name(s.get("Name", "")) == vendor.job_name]
    steps.sort(key=lambda s: s["Status"]["Timeline"]["CreationDateTime"])
    return [{"id": s["Id"], "status": s["Status"]["State"], "token": (key_of_name(s["Name"]) or (None,))[0]}
            for s in steps]


def _emr_steps_unknown(body: dict[str, Any]) -> dict[str, Any]:
    for step in body.get("Steps", []) + ([body["Step"]] if "Step" in body else []):
        step.setdefault("Status", {})["State"] = UNKNOWN_STATE
    return body


SERVICES["emr_steps"] = AwsService(
    "emr_steps", "Amazon EMR", "elasticmapreduce:AddJobFlowSteps", "elasticmapreduce:ListSteps",
    ("elasticmapreduce:CancelSteps",), EMR_STEP_STATES.active, "emr_steps_job_id", _emr_steps, _emr_steps_unknown)
CELL_SERVICES["emr_steps"] = {
    "_official_sync": replace(SERVICES["emr_steps"], describe="elasticmapreduce:DescribeStep")}
SUCCEEDED["emr_steps"] = EMR_STEP_STATES.succeeded
COMPLETE_READS["emr_steps"] = "elasticmapreduce:DescribeCluster"

EMR_STEPS_SCENARIOS: list[Scenario] = aws_rows("emr_steps", "EMR-STEPS")

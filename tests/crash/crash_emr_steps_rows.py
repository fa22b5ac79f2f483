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

from crash_aws import CELL_SERVICES, SERVICES, UNKNOWN_STATE
from crash_aws_rows import COMPLETE_READS, aws_rows
from crash_scenarios import Scenario

from durable_jobs.testing.emulators.aws_proxy import state_rewrite

CELL_SERVICES["emr_steps"] = {"_official_sync": replace(
    SERVICES["emr_steps"], describe="elasticmapreduce:DescribeStep",
    unknown_state=state_rewrite("Step.Status.State", UNKNOWN_STATE))}
COMPLETE_READS["emr_steps"] = "elasticmapreduce:DescribeCluster"

EMR_STEPS_SCENARIOS: list[Scenario] = aws_rows("emr_steps", "EMR-STEPS")

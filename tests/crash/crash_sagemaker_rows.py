"""Amazon SageMaker crash rows (training jobs): W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, next to the
official ``SageMakerTrainingOperator``'s.

The shared AWS drivers (``crash_aws_rows.aws_rows``): the job is pinned in moto (its ``sagemaker::job`` state
manager, ``durable_jobs.emulators.aws_moto_sagemaker``) while ``CreateTrainingJob``'s reply is held, so it is
provably running until the driver lets it go; W5 deferrable holds a ``ListTrainingJobs`` the cell's DAG makes inside
``execute_complete`` (``dags/crash_dags.SageMakerReadsOnComplete``), an operation the trigger never calls. The
official operator checkpoints nothing: its retry finds its own job under the configured name and, with
``action_if_job_exists="timestamp"``, creates a second one under ``<name>-<timestamp>``.
"""

from __future__ import annotations

from crash_aws_rows import COMPLETE_READS, SUCCEEDED, aws_rows
from crash_scenarios import Scenario

from durable_jobs.hooks.aws_sagemaker import SAGEMAKER_STATES

SUCCEEDED["sagemaker"] = SAGEMAKER_STATES.succeeded
COMPLETE_READS["sagemaker"] = "sagemaker:ListTrainingJobs"

SAGEMAKER_SCENARIOS: list[Scenario] = aws_rows("sagemaker", "SAGEMAKER")

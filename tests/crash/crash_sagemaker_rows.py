"""Amazon SageMaker crash rows (training, processing and transform jobs): W2, W5, SIGTERM and MARK-FAILED, sync
and deferrable, next to the official ``SageMakerTrainingOperator``'s, ``SageMakerProcessingOperator``'s and
``SageMakerTransformOperator``'s.

The shared AWS drivers (``crash_aws_rows.aws_rows``): the job is pinned in moto (its ``sagemaker::job`` state
manager, ``durable_jobs.testing.emulators.aws_moto_sagemaker``) while ``Create<Type>Job``'s reply is held, so it is
provably running until the driver lets it go; W5 deferrable holds a ``List<Type>Jobs`` the cell's DAG makes inside
``execute_complete`` (``dags/crash_dags.SageMakerReadsOnComplete``), an operation the trigger never calls. The
official operators checkpoint nothing: a retry finds its own job under the configured name and, with
``action_if_job_exists="timestamp"`` (their default), creates a second one under ``<name>-<timestamp>``.
"""

from __future__ import annotations

from crash_aws import SAGEMAKER_KEYS
from crash_aws_rows import COMPLETE_READS, aws_rows
from crash_scenarios import Scenario

SAGEMAKER_SCENARIOS: list[Scenario] = []
for _type, _key in SAGEMAKER_KEYS.items():
    COMPLETE_READS[_key] = f"sagemaker:List{_type}Jobs"
    # each job type's rows are labelled after its crash key: SAGEMAKER (training's), SAGEMAKER-PROCESSING, ...
    SAGEMAKER_SCENARIOS += aws_rows(_key, _key.upper().replace("_", "-"))

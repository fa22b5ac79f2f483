"""Amazon SageMaker, each training job created exactly once: the official ``SageMakerTrainingOperator``, one import
changed (``SageMakerProcessingOperator`` and ``SageMakerTransformOperator`` work the same way).

SageMaker job names are unique per account and Region, so the name is the key: the job below is named
``train-<date>-<key>``. A lost reply or a worker killed before the job was recorded is recovered by describing
that exact name (the retry reconnects to the job instead of training again); a create that answers
``ResourceInUse`` under it is the job this epoch already created. A job that fails raises upstream's
"SageMaker job failed because ..." and the retry trains under a new key. The return value is upstream's:
``{"Training": <DescribeTrainingJob>}``.

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run it for real
(the role, image and buckets must then exist).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator

with DAG(
    "example_aws_sagemaker",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    SageMakerTrainingOperator(
        task_id="nightly_training",
        config={
            "TrainingJobName": "train-{{ ds_nodash }}",
            "RoleArn": "arn:aws:iam::123456789012:role/sagemaker",
            "AlgorithmSpecification": {
                "TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgboost:1",
                "TrainingInputMode": "File",
            },
            "HyperParameters": {"num_round": "100", "run_date": "{{ ds }}"},
            "OutputDataConfig": {"S3OutputPath": "s3://durable-data/models/"},
            "ResourceConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge", "VolumeSizeInGB": 10},
            "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
        },
        deferrable=True,
        check_interval=60,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )

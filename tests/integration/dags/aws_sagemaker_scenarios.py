"""DAGs for the SageMaker job integration tests (Airflow runs them against moto behind our fault proxy).

``training()``, ``processing()`` and ``transform()`` build one-task DAGs around the durable operators. moto runs no
container: a job whose name contains ``fail`` ends Failed
(``durable_jobs.testing.emulators.aws_moto_sagemaker.FAIL_MARKER``).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.sagemaker import (
    SageMakerTrainingOperator as OfficialSageMakerTrainingOperator,
)
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.sagemaker import (
    SageMakerProcessingOperator,
    SageMakerTrainingOperator,
    SageMakerTransformOperator,
)

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
ROLE = "arn:aws:iam::123456789012:role/sagemaker"


def training_config(name: str = "train-{{ ds_nodash }}") -> dict:
    return {
        "TrainingJobName": name, "RoleArn": ROLE,
        "AlgorithmSpecification": {"TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgb:1",
                                   "TrainingInputMode": "File"},
        "InputDataConfig": [{"ChannelName": "train", "DataSource": {"S3DataSource": {
            "S3DataType": "S3Prefix", "S3Uri": "s3://durable-data/train/"}}}],
        "OutputDataConfig": {"S3OutputPath": "s3://durable-data/model/"},
        "ResourceConfig": {"InstanceCount": "1", "InstanceType": "ml.m5.large", "VolumeSizeInGB": "5"},
        "StoppingCondition": {"MaxRuntimeInSeconds": "3600"},
    }


def processing_config(name: str = "prep-{{ ds_nodash }}") -> dict:
    return {
        "ProcessingJobName": name, "RoleArn": ROLE,
        "AppSpecification": {"ImageUri": "123456789012.dkr.ecr.us-east-1.amazonaws.com/prep:1"},
        "ProcessingResources": {"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large",
                                                  "VolumeSizeInGB": 5}},
        "ProcessingInputs": [{"InputName": "raw", "S3Input": {
            "S3Uri": "s3://durable-data/raw/", "S3DataType": "S3Prefix", "LocalPath": "/opt/ml/processing/input"}}],
        "ProcessingOutputConfig": {"Outputs": [{"OutputName": "clean", "S3Output": {
            "S3Uri": "s3://durable-data/clean/", "LocalPath": "/opt/ml/processing/output",
            "S3UploadMode": "EndOfJob"}}]},
    }


def transform_config(name: str = "score-{{ ds_nodash }}") -> dict:
    return {
        "Model": {"ModelName": "durable-model", "ExecutionRoleArn": ROLE,
                  "PrimaryContainer": {"Image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgb:1"}},
        "Transform": {
            "TransformJobName": name, "ModelName": "durable-model",
            "TransformInput": {"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix",
                                                               "S3Uri": "s3://durable-data/batch/"}}},
            "TransformOutput": {"S3OutputPath": "s3://durable-data/scores/"},
            "TransformResources": {"InstanceType": "ml.m5.large", "InstanceCount": 1},
        },
    }


def _dag(dag_id: str, operator, config: dict, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", config=config, **{**RETRIES, "check_interval": 0.2, **kwargs})
    return dag


def training(dag_id: str, *, operator=SageMakerTrainingOperator, name: str = "train-{{ ds_nodash }}", **kwargs):
    return _dag(dag_id, operator, training_config(name), **kwargs)


training_sync = training("aws_sm_training_sync")
training_deferrable = training("aws_sm_training_deferrable", deferrable=True)
training_no_wait = training("aws_sm_training_no_wait", wait_for_completion=False)
training_fails = training("aws_sm_training_fails", name="train-fail", retries=1)
training_fails_deferrable = training("aws_sm_training_fails_deferrable", name="train-fail", retries=1,
                                     deferrable=True)
training_exists_fail = training("aws_sm_training_exists_fail", name="taken", action_if_job_exists="fail", retries=0)
training_exists_timestamp = training("aws_sm_training_exists_timestamp", name="taken")
training_official = training("aws_sm_training_official", operator=OfficialSageMakerTrainingOperator, name="official",
                             print_log=False)  # upstream tails CloudWatch logs, which moto has none of
processing_sync = _dag("aws_sm_processing_sync", SageMakerProcessingOperator, processing_config())
processing_deferrable = _dag("aws_sm_processing_deferrable", SageMakerProcessingOperator, processing_config(),
                             deferrable=True)
transform_sync = _dag("aws_sm_transform_sync", SageMakerTransformOperator, transform_config())
transform_deferrable = _dag("aws_sm_transform_deferrable", SageMakerTransformOperator,
                            transform_config("score-fail"), deferrable=True, retries=0)

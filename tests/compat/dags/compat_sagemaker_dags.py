"""Amazon SageMaker job DAGs for the compatibility subset, run against moto behind our fault proxy
(``durable_jobs.testing.emulators.aws_env``); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.sagemaker import (
    SageMakerProcessingOperator,
    SageMakerTrainingOperator,
    SageMakerTransformOperator,
)

FAST = {"retries": 1, "retry_delay": timedelta(0)}
ROLE = "arn:aws:iam::123456789012:role/sagemaker"
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgb:1"
TRAINING = {
    "TrainingJobName": "compat-train", "RoleArn": ROLE,
    "AlgorithmSpecification": {"TrainingImage": IMAGE, "TrainingInputMode": "File"},
    "OutputDataConfig": {"S3OutputPath": "s3://durable-data/model/"},
    "ResourceConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 5},
    "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
}
PROCESSING = {
    "ProcessingJobName": "compat-prep", "RoleArn": ROLE, "AppSpecification": {"ImageUri": IMAGE},
    "ProcessingResources": {"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large",
                                              "VolumeSizeInGB": 5}},
}
TRANSFORM = {
    "Model": {"ModelName": "compat-model", "ExecutionRoleArn": ROLE, "PrimaryContainer": {"Image": IMAGE}},
    "Transform": {
        "TransformJobName": "compat-score", "ModelName": "compat-model",
        "TransformInput": {"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://durable-data/in/"}}},
        "TransformOutput": {"S3OutputPath": "s3://durable-data/out/"},
        "TransformResources": {"InstanceType": "ml.m5.large", "InstanceCount": 1},
    },
}


class Training(_RecordDeferrals, SageMakerTrainingOperator):
    pass


class Processing(_RecordDeferrals, SageMakerProcessingOperator):
    pass


class Transform(_RecordDeferrals, SageMakerTransformOperator):
    pass


def _sm(dag_id: str, operator, config: dict, **kwargs):
    with _dag(dag_id) as dag:
        operator(task_id="run", config=config, check_interval=0.2, **FAST, **kwargs)
    return dag


training_sync = _sm("compat_aws_sagemaker_training_sync", Training, TRAINING)
training_deferrable = _sm("compat_aws_sagemaker_training_deferrable", Training, TRAINING, deferrable=True)
processing_sync = _sm("compat_aws_sagemaker_processing_sync", Processing, PROCESSING)
processing_deferrable = _sm("compat_aws_sagemaker_processing_deferrable", Processing, PROCESSING, deferrable=True)
transform_sync = _sm("compat_aws_sagemaker_transform_sync", Transform, TRANSFORM)
transform_deferrable = _sm("compat_aws_sagemaker_transform_deferrable", Transform, TRANSFORM, deferrable=True)

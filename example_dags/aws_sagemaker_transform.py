"""Amazon SageMaker batch transform, each job created exactly once: the official ``SageMakerTransformOperator``,
one import changed.

``config`` carries upstream's two parts: ``Model`` (created first when it does not exist yet, as upstream does)
and ``Transform``. The transform job's name is the key: the job below is named ``score-<date>-<key>``. A lost
reply or a worker killed before the job was recorded is recovered by ``DescribeTransformJob`` of that exact name,
so the retry reconnects instead of scoring the day twice; a job that fails raises upstream's error and the retry
starts under a new key. The return value is upstream's: ``{"Model": <DescribeModel>, "Transform":
<DescribeTransformJob>}``.

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run it for real
(the role, image and bucket must then exist).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerTransformOperator

with DAG(
    "example_aws_sagemaker_transform",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    SageMakerTransformOperator(
        task_id="nightly_scoring",
        config={
            "Model": {
                "ModelName": "churn-model",
                "ExecutionRoleArn": "arn:aws:iam::123456789012:role/sagemaker",
                "PrimaryContainer": {"Image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgboost:1",
                                     "ModelDataUrl": "s3://durable-data/models/model.tar.gz"},
            },
            "Transform": {
                "TransformJobName": "score-{{ ds_nodash }}",
                "ModelName": "churn-model",
                "TransformInput": {"DataSource": {"S3DataSource": {
                    "S3DataType": "S3Prefix", "S3Uri": "s3://durable-data/batch/"}}, "ContentType": "text/csv"},
                "TransformOutput": {"S3OutputPath": "s3://durable-data/scores/{{ ds }}/"},
                "TransformResources": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1},
            },
        },
        deferrable=True,
        check_interval=60,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )

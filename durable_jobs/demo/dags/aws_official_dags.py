"""DAGs for the AWS demo's contrast runs: the *official* Batch and Glue operators, same requests as the
examples (``example_dags/aws_batch.py``, ``aws_glue.py``). Linked into the demo's DAGs folder only."""

from __future__ import annotations

import pendulum
from airflow.providers.amazon.aws.operators.batch import BatchOperator
from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.sdk import DAG

START = pendulum.datetime(2026, 1, 1, tz="UTC")

with DAG("example_aws_batch_official", schedule=None, start_date=START, catchup=False) as batch_dag:
    BatchOperator(task_id="nightly_batch", job_name="nightly-etl", job_queue="durable-queue",
                  job_definition="durable-job-def", parameters={"day": "{{ ds }}"}, tags={"team": "data"},
                  wait_for_completion=False)

with DAG("example_aws_glue_official", schedule=None, start_date=START, catchup=False) as glue_dag:
    GlueJobOperator(task_id="nightly_glue", job_name="durable-example-etl",
                    script_location="s3://durable-bucket/scripts/etl.py", s3_bucket="durable-bucket",
                    iam_role_arn="arn:aws:iam::123456789012:role/durable-jobs-role",
                    script_args={"--day": "{{ ds }}"}, wait_for_completion=False)

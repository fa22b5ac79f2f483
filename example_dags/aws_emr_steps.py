"""Amazon EMR steps, each call's steps added exactly once: the official ``EmrAddStepsOperator``, one import changed.

``AddJobFlowSteps`` has no idempotency token, so the key goes into each step's ``Name`` (the name below, then
``" [durable-jobs <key> <i>/<n>]"``). A lost reply, or a worker killed before the step ids were saved, is recovered
by listing the cluster's steps (``ListSteps``) and finding both by that key: the report is not run twice. A step
that fails fails the task, and the retry adds new steps under a new key. The cluster is found by name, as
upstream's ``job_flow_name`` does; the return value is upstream's: the step ids.

Runs against the loopback AWS of ``durable-jobs demo`` (its long-running cluster ``durable-emr-cluster``); point
``aws_default`` at your account to run it for real (the cluster must then exist and be WAITING or RUNNING).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

SPARK = "command-runner.jar"

with DAG(
    "example_aws_emr_steps",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    EmrAddStepsOperator(
        task_id="nightly_report",
        job_flow_name="durable-emr-cluster",
        cluster_states=["WAITING", "RUNNING"],
        steps=[
            {"Name": "aggregate {{ ds }}", "ActionOnFailure": "CONTINUE",
             "HadoopJarStep": {"Jar": SPARK, "Args": ["spark-submit", "s3://durable-bucket/aggregate.py", "{{ ds }}"]}},
            {"Name": "publish {{ ds }}", "ActionOnFailure": "CONTINUE",
             "HadoopJarStep": {"Jar": SPARK, "Args": ["spark-submit", "s3://durable-bucket/publish.py", "{{ ds }}"]}},
        ],
        deferrable=True,
        waiter_delay=30,
        waiter_max_attempts=240,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )

"""AWS Step Functions, each execution started exactly once: the official
``StepFunctionStartExecutionOperator``, one import changed.

The key is the execution's name: Step Functions answers a second StartExecution with the same name and
input with the execution already running, so a lost reply is recovered by sending the same request again.
A worker killed before the execution's ARN was saved is recovered by DescribeExecution of the ARN that
name gives. An execution that genuinely fails is retried under a new name, hence a new execution. With a
``name`` of your own the execution is named ``<name>-<key>``.

As upstream, ``deferrable=True`` waits for the execution in the triggerer (the synchronous path returns
once it has started). Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your
account and ``state_machine_arn`` at a STANDARD state machine to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator

with DAG(
    "example_aws_stepfunctions",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    StepFunctionStartExecutionOperator(
        task_id="nightly_workflow",
        state_machine_arn="arn:aws:states:us-east-1:123456789012:stateMachine:durable-state-machine",
        name="nightly-{{ ds_nodash }}",
        state_machine_input={"day": "{{ ds }}"},
        deferrable=True,
        waiter_delay=30,
        waiter_max_attempts=240,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )

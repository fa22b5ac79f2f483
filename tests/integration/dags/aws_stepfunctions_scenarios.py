"""DAGs for the Step Functions integration tests (Airflow against moto behind our fault proxy).

``sfn()`` builds one-task DAGs with ours or the official operator. Resource names match
``durable_jobs.testing.emulators.aws_env``.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.step_function import (
    StepFunctionStartExecutionOperator as OfficialStepFunctionStartExecutionOperator,
)
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:durable-state-machine"


def sfn(dag_id: str, *, operator=StepFunctionStartExecutionOperator, **kwargs) -> DAG:
    args = dict(state_machine_arn=STATE_MACHINE_ARN, state_machine_input={"day": "{{ ds }}"}, waiter_delay=0.2)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


sfn_sync = sfn("aws_sfn_sync")
sfn_deferrable = sfn("aws_sfn_deferrable", deferrable=True)
sfn_named = sfn("aws_sfn_named", name="nightly-{{ ds_nodash }}", deferrable=True)
sfn_fails_deferrable = sfn("aws_sfn_fails_deferrable", state_machine_input='{"step": "fail"}', deferrable=True,
                           retries=1)
sfn_redrive = sfn("aws_sfn_redrive", name="to-redrive", is_redrive_execution=True, deferrable=True)
sfn_official_named = sfn("aws_sfn_official_named", operator=OfficialStepFunctionStartExecutionOperator,
                         name="nightly", state_machine_input='{"step": "fail"}', deferrable=True, retries=1)
#: the same task, official and ours, for the side-by-side parity test
sfn_parity = {(flavour, deferrable): sfn(f"aws_sfn_parity_{flavour}_{'deferrable' if deferrable else 'sync'}",
                                         operator=op, deferrable=deferrable, retries=0)
              for flavour, op in (("official", OfficialStepFunctionStartExecutionOperator),
                                  ("durable", StepFunctionStartExecutionOperator))
              for deferrable in (False, True)}

"""AWS Step Functions DAGs for the compatibility subset, run against moto behind our fault proxy
(``durable_jobs.testing.emulators.aws_env``); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator

STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:durable-state-machine"
FAST = {"retries": 1, "retry_delay": timedelta(0)}


class StepFunction(_RecordDeferrals, StepFunctionStartExecutionOperator):
    pass


def _sfn(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        StepFunction(task_id="run", state_machine_arn=STATE_MACHINE_ARN, state_machine_input={"compat": dag_id},
                     waiter_delay=0.2, **FAST, **kwargs)
    return dag


#: As upstream, the synchronous path returns once the execution has started; deferrable waits for it.
sfn_sync = _sfn("compat_aws_sfn_sync")
sfn_deferrable = _sfn("compat_aws_sfn_deferrable", deferrable=True)

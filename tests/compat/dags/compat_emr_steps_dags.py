"""Amazon EMR steps DAGs for the compatibility subset, run against moto behind our fault proxy
(``durable_jobs.testing.emulators.aws_env``: its long-running cluster ``durable-emr-cluster``); parsed by dag.test() on
Airflow 2.11, 3.2 and 3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

FAST = {"retries": 1, "retry_delay": timedelta(0)}
STEPS = [{"Name": "calculate_pi", "ActionOnFailure": "CONTINUE",
          "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "pi.py"]}}]


class EmrAddSteps(_RecordDeferrals, EmrAddStepsOperator):
    pass


def _emr(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        EmrAddSteps(task_id="run", job_flow_name="durable-emr-cluster", cluster_states=["WAITING", "RUNNING"],
                    steps=STEPS, wait_for_completion=True, waiter_delay=0.2, **FAST, **kwargs)
    return dag


emr_steps_sync = _emr("compat_aws_emr_steps_sync")
emr_steps_deferrable = _emr("compat_aws_emr_steps_deferrable", deferrable=True)

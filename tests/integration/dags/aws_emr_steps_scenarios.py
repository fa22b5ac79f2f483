"""DAGs for the EMR steps integration tests (Airflow runs them against moto behind our fault proxy).

``emr()`` builds a one-task DAG around ``EmrAddStepsOperator`` adding two steps to the test environment's
long-running cluster (``durable-emr-cluster``, found by ``job_flow_name`` or, templated, by its id). A step with
an argument containing ``fail`` ends FAILED (``durable_jobs.testing.emulators.aws_moto_emr_steps.FAIL_MARKER``).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator as OfficialEmrAddStepsOperator
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
STEPS = [
    {"Name": "calculate_pi {{ ds }}", "ActionOnFailure": "CONTINUE",
     "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "pi.py", "{{ ds }}"]}},
    {"Name": "report", "ActionOnFailure": "CONTINUE",
     "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "report.py"]}},
]
FAILING = [{**STEPS[0], "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "fail.py"]}}]


def emr(dag_id: str, *, operator=EmrAddStepsOperator, **kwargs) -> DAG:
    args = dict(job_flow_name="durable-emr-cluster", cluster_states=["WAITING", "RUNNING"], steps=STEPS,
                wait_for_completion=True, waiter_delay=0.2, waiter_max_attempts=200)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


emr_sync = emr("aws_emr_steps_sync")
emr_by_id = emr("aws_emr_steps_by_id", job_flow_name=None, cluster_states=None,
                job_flow_id="{{ var.value.durable_emr_cluster_id }}",
                execution_role_arn="arn:aws:iam::123456789012:role/durable-jobs-role")
emr_deferrable = emr("aws_emr_steps_deferrable", deferrable=True)
emr_no_wait = emr("aws_emr_steps_no_wait", wait_for_completion=False)
emr_fails = emr("aws_emr_steps_fails", steps=FAILING, retries=1)
emr_fails_deferrable = emr("aws_emr_steps_fails_deferrable", steps=FAILING, retries=1, deferrable=True)
emr_no_cluster = emr("aws_emr_steps_no_cluster", job_flow_name="no-such-cluster", retries=0)
emr_official = emr("aws_emr_steps_official", operator=OfficialEmrAddStepsOperator)

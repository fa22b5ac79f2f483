"""DAGs for the ECS integration tests (Airflow runs them against moto behind our fault proxy).

``ecs()`` builds a one-task DAG around ``EcsRunTaskOperator``. Names match ``durable_jobs.testing.emulators.aws_env``
(cluster ``durable-cluster``; task definition ``durable-task``, and ``durable-task-fails`` whose container
exits 1).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.ecs import EcsRunTaskOperator as OfficialEcsRunTaskOperator
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))


def ecs(dag_id: str, *, operator=EcsRunTaskOperator, **kwargs) -> DAG:
    args = dict(task_definition="durable-task", cluster="durable-cluster", launch_type="FARGATE",
                overrides={"containerOverrides": [
                    {"name": "main", "environment": [{"name": "DAY", "value": "{{ ds }}"}]}]},
                waiter_delay=0.2, do_xcom_push=True)
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **args, **kwargs})
    return dag


ecs_sync = ecs("aws_ecs_sync")
ecs_deferrable = ecs("aws_ecs_deferrable", deferrable=True)
ecs_fails = ecs("aws_ecs_fails", task_definition="durable-task-fails", retries=1)
ecs_fails_deferrable = ecs("aws_ecs_fails_deferrable", task_definition="durable-task-fails", retries=1, deferrable=True)
ecs_skip = ecs("aws_ecs_skip", task_definition="durable-task-fails", skip_on_exit_code=1)
ecs_tagged = ecs("aws_ecs_tagged", tags={"team": "etl"}, reattach=True)
ecs_no_wait = ecs("aws_ecs_no_wait", wait_for_completion=False)
ecs_official = ecs("aws_ecs_official", operator=OfficialEcsRunTaskOperator)
ecs_official_reattach = ecs("aws_ecs_official_reattach", operator=OfficialEcsRunTaskOperator, reattach=True)
ecs_reattach = ecs("aws_ecs_official_reattach", reattach=True)  # the same dag_id: the import switched

"""Amazon ECS DAGs for the compatibility subset, run against moto behind our fault proxy
(``durable_jobs.testing.emulators.aws_env``: cluster ``durable-cluster``); parsed by dag.test() on Airflow 2.11, 3.2 and
3.3 alike."""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

FAST = {"retries": 1, "retry_delay": timedelta(0)}


class EcsRunTask(_RecordDeferrals, EcsRunTaskOperator):
    pass


def _ecs(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        EcsRunTask(task_id="run", cluster="durable-cluster", task_definition="durable-task", launch_type="FARGATE",
                   overrides={}, waiter_delay=0.2, do_xcom_push=True, **FAST, **kwargs)
    return dag


ecs_sync = _ecs("compat_aws_ecs_sync")
ecs_deferrable = _ecs("compat_aws_ecs_deferrable", deferrable=True)

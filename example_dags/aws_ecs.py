"""Amazon ECS, each task run exactly once: the official ``EcsRunTaskOperator``, one import changed.

The key goes into RunTask's ``clientToken``: ECS answers a token it has seen with the task it already
started, so a lost reply or a worker killed before the task ARN was saved is recovered by sending the same
request under the same token. The task is also tagged with the key (``durable-jobs:key``), so a retry finds
it with ``ListTasks``/``DescribeTasks`` even after the token has expired. A task whose container exits
non-zero fails as upstream ("This task is not in success state"), and the retry runs a new task under a
new key. ``reattach=True`` keeps upstream's meaning: a task the official operator started for this task
instance is attached to, not run again.

Runs against the loopback AWS of ``durable-jobs demo``; point ``aws_default`` at your account to run it for
real (the cluster and task definition must then exist, with ``ecs:TagResource`` granted).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

with DAG(
    "example_aws_ecs",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "aws"],
) as dag:
    EcsRunTaskOperator(
        task_id="nightly_container",
        cluster="durable-cluster",
        task_definition="durable-task",
        launch_type="FARGATE",
        overrides={"containerOverrides": [{"name": "main", "environment": [{"name": "DAY", "value": "{{ ds }}"}]}]},
        reattach=True,
        deferrable=True,
        waiter_delay=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )

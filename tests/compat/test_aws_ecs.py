"""``EcsRunTaskOperator``'s run/wait/result cycle through Airflow itself (dag.test) against moto behind our fault
proxy, on whichever Airflow the compat venv runs (2.11, 3.2, 3.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_ecs_dags as dags  # noqa: E402
from compat_support import DEFERRALS, release_after_trigger_polls, run_dag, xcom  # noqa: E402

RUN, DESCRIBE = "ecs:RunTask", "ecs:DescribeTasks"



@pytest.mark.parametrize("dag", [dags.ecs_sync, dags.ecs_deferrable], ids=lambda d: d.dag_id)
def test_cycle_run_wait_result(aws, dag):
    deferrable = dag is dags.ecs_deferrable
    watcher = release_after_trigger_polls(aws, DESCRIBE) if deferrable else None
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    if watcher is not None:
        watcher.join(timeout=5)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    [created] = aws.proxy.jobs_created(RUN)
    [task] = aws.ecs_tasks()
    assert task["taskArn"] == created["id"] and task["lastStatus"] == "STOPPED"
    assert xcom(dag.dag_id, "run", "ecs_task_arn") == created["id"]
    assert DEFERRALS == ([dag.dag_id] if deferrable else [])
    if deferrable:  # waited in the trigger (aiobotocore)
        assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1, aws.proxy.async_calls


def test_lost_run_task_reply_gives_one_task(aws):
    """Below 3.3 nothing is checkpointed, but the clientToken is a per-try key: a lost reply inside the try is
    resent under the same token and ECS returns the task it started."""
    aws.proxy.fault(RUN, mode="lose_reply", status=500)
    state, tis = run_dag(dags.ecs_sync)
    assert state == "success", tis
    assert len(aws.ecs_tasks()) == 1 and aws.proxy.calls[RUN] >= 2

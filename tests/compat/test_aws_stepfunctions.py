"""``StepFunctionStartExecutionOperator``'s start/wait/result cycle through Airflow itself (dag.test) against
moto behind our fault proxy, on whichever Airflow the compat venv runs (2.11, 3.2, 3.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_sfn_dags as dags  # noqa: E402
from compat_support import DEFERRALS, release_after_trigger_polls, run_dag, xcom  # noqa: E402

START, DESCRIBE = "states:StartExecution", "states:DescribeExecution"



@pytest.mark.parametrize("dag", [dags.sfn_sync, dags.sfn_deferrable], ids=lambda d: d.dag_id)
def test_cycle_start_wait_result(aws, dag):
    deferrable = dag is dags.sfn_deferrable
    watcher = release_after_trigger_polls(aws, DESCRIBE) if deferrable else None
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    if watcher is not None:
        watcher.join(timeout=5)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    [created] = aws.proxy.jobs_created(START)
    assert [e["executionArn"] for e in aws.sfn_executions()] == [created["id"]]
    assert xcom(dag.dag_id, "run", "return_value") == created["id"]
    assert DEFERRALS == ([dag.dag_id] if deferrable else [])
    if deferrable:  # waited in the trigger (aiobotocore)
        assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1, aws.proxy.async_calls
        assert aws.sfn_executions()[0]["status"] == "SUCCEEDED"


def test_lost_start_reply_gives_one_execution(aws):
    """Below 3.3 nothing is checkpointed, but the name still carries a per-try key: a lost reply inside the
    try is resent under the same name and Step Functions returns the execution it started."""
    aws.proxy.fault(START, mode="lose_reply", status=500)
    state, tis = run_dag(dags.sfn_sync)
    assert state == "success", tis
    assert len(aws.sfn_executions()) == 1 and aws.proxy.calls[START] >= 1

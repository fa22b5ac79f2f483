"""``RedshiftDataOperator``'s run/wait/result cycle through Airflow itself (dag.test) against moto behind our
fault proxy, on whichever Airflow the compat venv runs (2.11, 3.2, 3.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_redshift_data_dags as dags  # noqa: E402
from compat_support import DEFERRALS, release_after_trigger_polls, run_dag, xcom  # noqa: E402

EXECUTE, DESCRIBE = "redshift-data:ExecuteStatement", "redshift-data:DescribeStatement"



@pytest.mark.parametrize("dag", [dags.rsd_sync, dags.rsd_deferrable], ids=lambda d: d.dag_id)
def test_cycle_run_wait_result(aws, dag):
    deferrable = dag is dags.rsd_deferrable
    watcher = release_after_trigger_polls(aws, DESCRIBE) if deferrable else None
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    if watcher is not None:
        watcher.join(timeout=5)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    [created] = aws.proxy.jobs_created(EXECUTE)
    assert xcom(dag.dag_id, "run", "return_value") == [created["id"]]
    assert DEFERRALS == ([dag.dag_id] if deferrable else [])
    if deferrable:  # waited in the trigger (aiobotocore)
        assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1, aws.proxy.async_calls


def test_lost_execute_statement_reply_gives_one_statement(aws):
    """Below 3.3 nothing is checkpointed, but the ClientToken is a per-try key: a lost reply inside the try is
    resent under the same token and the Data API returns the statement it ran."""
    aws.proxy.fault(EXECUTE, mode="lose_reply", status=500)
    state, tis = run_dag(dags.rsd_sync)
    assert state == "success", tis
    assert len({e["id"] for e in aws.proxy.jobs_created(EXECUTE)}) == 1 and aws.proxy.calls[EXECUTE] >= 2

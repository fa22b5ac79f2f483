"""``EmrContainerOperator``'s start/wait/result cycle through Airflow itself (dag.test) against moto behind our
fault proxy, on whichever Airflow the compat venv runs (2.11, 3.2, 3.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_emr_containers_dags as dags  # noqa: E402
from compat_support import DEFERRALS, release_after_trigger_polls, run_dag  # noqa: E402

START, DESCRIBE = "emr-containers:StartJobRun", "emr-containers:DescribeJobRun"



@pytest.mark.parametrize("dag", [dags.emr_containers_sync, dags.emr_containers_deferrable], ids=lambda d: d.dag_id)
def test_cycle_start_wait_result(aws, dag):
    deferrable = dag is dags.emr_containers_deferrable
    watcher = release_after_trigger_polls(aws, DESCRIBE) if deferrable else None
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    if watcher is not None:
        watcher.join(timeout=5)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    [created] = aws.proxy.jobs_created(START)
    [run] = aws.emr_container_runs()
    assert run["id"] == created["id"] and run["state"] == "COMPLETED"
    assert DEFERRALS == ([dag.dag_id] if deferrable else [])
    if deferrable:  # waited in the trigger (aiobotocore)
        assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1, aws.proxy.async_calls


def test_lost_start_job_run_reply_gives_one_run(aws):
    """Below 3.3 nothing is checkpointed, but the key is per try: a lost reply inside the try is found by its
    clientToken in the run listing, not started again."""
    aws.proxy.fault(START, mode="lose_reply", status=500)
    state, tis = run_dag(dags.emr_containers_sync)
    assert state == "success", tis
    assert len(aws.emr_container_runs()) == 1 and aws.proxy.calls[START] == 1

"""``EmrAddStepsOperator``'s add/wait/result cycle through Airflow itself (dag.test) against moto behind our
fault proxy, on whichever Airflow the compat venv runs (2.11, 3.2, 3.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_emr_steps_dags as dags  # noqa: E402
from compat_support import DEFERRALS, release_after_trigger_polls, run_dag, xcom  # noqa: E402

ADD, LIST = "elasticmapreduce:AddJobFlowSteps", "elasticmapreduce:ListSteps"



def _steps(aws) -> list[str]:
    return [s["Id"] for s in aws.client("emr", direct=True).list_steps(ClusterId=aws.emr_cluster_id)["Steps"]]


@pytest.mark.parametrize("dag", [dags.emr_steps_sync, dags.emr_steps_deferrable], ids=lambda d: d.dag_id)
def test_cycle_add_wait_result(aws, dag):
    deferrable = dag is dags.emr_steps_deferrable
    watcher = release_after_trigger_polls(aws, LIST) if deferrable else None
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    if watcher is not None:
        watcher.join(timeout=5)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    assert xcom(dag.dag_id, "run", "return_value") == _steps(aws) and len(_steps(aws)) == 1
    assert DEFERRALS == ([dag.dag_id] if deferrable else [])
    if deferrable:  # waited in the trigger (aiobotocore)
        assert aws.proxy.async_calls.get(LIST, 0) >= 1, aws.proxy.async_calls


def test_lost_add_job_flow_steps_reply_gives_one_set_of_steps(aws):
    """Below 3.3 nothing is checkpointed, but the key is a per-try key in the step names: a lost reply inside the
    try is answered by ListSteps, not by adding the steps again."""
    aws.proxy.fault(ADD, mode="lose_reply", status=500)
    state, tis = run_dag(dags.emr_steps_sync)
    assert state == "success", tis
    assert aws.proxy.calls[ADD] == 1 and len(_steps(aws)) == 1

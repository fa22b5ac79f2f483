"""Every operator's submit/poll/result cycle through Airflow itself (dag.test) against the emulator."""

from __future__ import annotations

import compat_dags
import pytest
from compat_support import DEFERRALS, run_dag, xcom

from durable_jobs.shims import has_state_store

SYNC = [compat_dags.submit_sync, compat_dags.run_now_sync]
DEFERRABLE = [compat_dags.submit_deferrable, compat_dags.run_now_deferrable]


def _only_run(emulator) -> tuple[str, dict]:
    ledger = emulator.ledger()
    assert ledger["runs_created"] == 1, ledger["runs"]
    (run_id, run), = ledger["runs"].items()
    return run_id, run


@pytest.mark.parametrize("dag", SYNC + DEFERRABLE, ids=lambda d: d.dag_id)
def test_cycle_submit_poll_result(emulator, dag):
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"][0] == "success"
    run_id, run = _only_run(emulator)
    assert (run["state"], run["result_state"]) == ("TERMINATED", "SUCCESS")
    assert str(xcom(dag.dag_id, "run", "run_id")) == run_id
    assert xcom(dag.dag_id, "run", "run_page_url")
    if "run_now" in dag.dag_id:
        assert run["job_id"] == compat_dags.JOB_ID
    assert DEFERRALS == ([dag.dag_id] if dag in DEFERRABLE else [])


def test_deferrable_without_wait_does_not_defer(emulator):
    """deferrable=True defers only with wait_for_termination=True; alone it returns on acceptance."""
    DEFERRALS.clear()
    state, tis = run_dag(compat_dags.submit_fire_and_forget)
    assert state == "success", tis
    assert DEFERRALS == []
    run_id, _ = _only_run(emulator)
    assert str(xcom("compat_submit_fire_and_forget", "run", "run_id")) == run_id


@pytest.mark.skipif(has_state_store(), reason="on Airflow 3.3+ the retry reconnects (tests/integration)")
def test_poll_error_then_retry_submits_fresh(emulator):
    """Below 3.3 nothing is checkpointed: a try that fails while polling is retried with a new run."""
    # runs/get #1 is the run page URL pushed right after submit; #2 is the first poll. A 403 fails the
    # try at once (the fault policy waits out a 5xx or a throttle, so those would not end it).
    emulator.add_fault("jobs/runs/get", status=403, skip=1, count=1)
    state, tis = run_dag(compat_dags.submit_sync)
    assert state == "success", tis
    assert tis["run"] == ("success", 2)
    ledger = emulator.ledger()
    assert ledger["faults_fired"], ledger
    assert ledger["runs_created"] == 2, ledger["runs"]
    tokens = {run["idempotency_token"] for run in ledger["runs"].values()}
    assert len(tokens) == 2  # a fresh key per try, so Databricks does not hand back the first run


@pytest.mark.parametrize(
    "dag", [compat_dags.submit_sync, compat_dags.submit_deferrable], ids=lambda d: d.dag_id
)
def test_failed_run_then_retry_submits_fresh(emulator, dag):
    emulator.configure(outcomes=["FAILED"])
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 2)
    ledger = emulator.ledger()
    assert ledger["runs_created"] == 2, ledger["runs"]
    assert sorted(run["result_state"] for run in ledger["runs"].values()) == ["FAILED", "SUCCESS"]


NOTEBOOK_AND_TASK = [compat_dags.notebook_sync, compat_dags.notebook_deferrable, compat_dags.task_sync,
                     compat_dags.task_deferrable]


@pytest.mark.parametrize("dag", NOTEBOOK_AND_TASK, ids=lambda d: d.dag_id)
def test_notebook_and_task_submit_one_run_with_our_token(emulator, dag):
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"][0] == "success"
    _, run = _only_run(emulator)
    assert (run["state"], run["result_state"]) == ("TERMINATED", "SUCCESS")
    [submission] = emulator.ledger()["submissions"]
    assert submission["path"].endswith("runs/submit") and submission["idempotency_token"]  # upstream sends none
    assert DEFERRALS == ([dag.dag_id] if "deferrable" in dag.dag_id else [])

"""No orphaned jobs (issue 19): the task's own bound and the last try cancel the job; retries still reconnect.

Airflow runs the DAGs (its own execution_timeout, its own retry counters, its own failure callbacks)
against the Databricks emulator, which counts runs and cancels. The real-process cases (SIGTERM/SIGKILL on
the last try and the DAG processor's failure callback, a deferral's timeout enforced by the scheduler,
reconcile on a live stack) are crash-matrix rows (tests/crash/crash_orphans.py).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from . import driver, store

pytestmark = pytest.mark.usefixtures("databricks_conn_env")


@pytest.fixture(scope="module")
def dags():
    return driver.load("orphan_dags")


def runs(emu) -> dict:
    return emu.ledger()["runs"]


def test_execution_timeout_cancels_the_run_and_the_retry_starts_a_new_one(databricks_conn_env, dags):
    emu = databricks_conn_env
    emu.configure(running_seconds=60, outcomes=["SUCCESS", "SUCCESS"])  # outlasts the try's 5 s bound

    dr = driver.start(dags.orphan_timeout_retry)
    driver.drive(dags.orphan_timeout_retry, dr, max_tries=1)

    [first] = [r for r in emu.ledger()["submissions"] if not r.get("deduplicated")]
    assert len(emu.ledger()["cancels"]) == 1  # the user's bound ended the run it bounded
    assert store.record(dr)["status"] == "FAILED"  # so the retry does not reconnect to a dying run
    emu.configure(running_seconds=0.5)
    # The retry under a bound it cannot hit (the same DAG, edited between the tries): its whole try (a new run
    # of 0.8 s, polls, Airflow's own steps) had 2 s, which a loaded machine can use up.
    retry_dag = dags._dag("orphan_timeout_retry", execution_timeout=timedelta(seconds=120), retries=1)
    dr = driver.drive(retry_dag, dr)
    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 2
    assert store.record(dr)["id"] != first["run_id"]


@pytest.mark.parametrize("dag_name", ["orphan_last_try_sync", "orphan_last_try_deferrable"])
def test_the_last_try_failing_while_the_run_may_run_cancels_it(databricks_conn_env, dags, dag_name, monkeypatch):
    emu = databricks_conn_env
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "1")
    emu.configure(running_seconds=30)
    emu.add_fault("jobs/runs/get", status=503, count=-1, skip=2)  # watching fails past the budget

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "failed"
    assert emu.ledger()["runs_created"] == 1 and len(emu.ledger()["cancels"]) == 1


def test_a_try_with_a_retry_left_leaves_the_run_for_the_retry(databricks_conn_env, dags, monkeypatch):
    emu = databricks_conn_env
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "1")
    emu.configure(running_seconds=4)
    emu.add_fault("jobs/runs/get", status=503, count=4, skip=2)  # two calls of two hook attempts: try 1

    dr = driver.run(dags.orphan_not_last_try)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)  # the retry reconnected
    assert emu.ledger()["runs_created"] == 1 and emu.ledger()["cancels"] == []


def test_a_last_try_failing_outside_the_wait_cancels_through_the_failure_callback(databricks_conn_env, dags):
    """The run page lookup right after the submit meets an auth error: the try fails outside the wait, on the
    last try, with the run RUNNING. The on_failure_callback every durable operator carries (the same one the
    DAG processor runs for a task Airflow fails itself) cancels it, then the user's own callback runs."""
    emu = databricks_conn_env
    emu.configure(running_seconds=30)
    emu.add_fault("jobs/runs/get", status=403, count=1)  # on_job_known's runs/get
    dags.USER_CALLBACK_CALLS.clear()

    dr = driver.run(dags.orphan_callback_chain)

    assert driver.task_result(dr, "run").state == "failed"
    [cancel] = emu.ledger()["cancels"]
    assert cancel["was_active"] and cancel["run_id"] == store.record(dr)["id"]
    assert dags.USER_CALLBACK_CALLS == [{"task_id": "run"}]  # chained, not replaced


def test_cancel_on_kill_never_is_respected_on_the_last_try(databricks_conn_env, dags, monkeypatch):
    emu = databricks_conn_env
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "1")
    emu.configure(running_seconds=30)
    emu.add_fault("jobs/runs/get", status=503, count=-1, skip=2)

    dr = driver.run(dags.orphan_never)

    assert driver.task_result(dr, "run").state == "failed"
    assert emu.ledger()["cancels"] == []


def test_reconcile_finds_exactly_the_orphans_and_cancels_them(databricks_conn_env, dags, monkeypatch, capsys):
    """Plant an orphan (the last try failed with cancel_on_kill="never"), next to a finished run and a
    cancelled one; reconcile lists only the orphan, and --cancel cancels it through the same client."""
    import json

    from durable_jobs.reconcile import main

    emu = databricks_conn_env
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "1")
    emu.configure(running_seconds=0.5)
    done = driver.run(dags.orphan_not_last_try)
    emu.configure(running_seconds=60)
    emu.add_fault("jobs/runs/get", status=503, count=4, skip=2)
    cancelled = driver.run(dags.orphan_last_try_sync)  # the last try cancels its run
    emu.add_fault("jobs/runs/get", status=503, count=4, skip=2)
    orphaned = driver.run(dags.orphan_never)  # cancel_on_kill="never": the run is left running
    assert [driver.task_result(dr, "run").state for dr in (done, cancelled, orphaned)] == [
        "success", "failed", "failed"]
    orphan_run = store.record(orphaned)["id"]
    capsys.readouterr()  # what the runs printed

    assert main(["--format", "json", "--since", "1h"]) == 1
    said = capsys.readouterr()
    [finding] = [f for f in json.loads(said.out) if f["dag_id"].startswith("orphan_")]
    assert (finding["dag_id"], finding["job_id"], finding["verdict"]) == ("orphan_never", orphan_run, "orphan")
    assert finding["vendor"] == "Databricks" and finding["ti_state"] == "failed"
    assert "Checked " in said.err  # stdout is the JSON alone
    cancels_before = len(emu.ledger()["cancels"])

    assert main(["--dag-id", "orphan_never", "--run-id", orphaned.run_id]) == 1
    assert capsys.readouterr().out.startswith(
        "Checked 1 durable-jobs record(s); asked the vendor about 1 job(s) of finished task instances.\n"
        "1 job(s) for finished task instances:\n  orphan ")
    assert main(["--dag-id", "orphan_never", "--since", "2999-01-01"]) == 0  # written before then: out of scope
    assert capsys.readouterr().out == ("Checked 0 durable-jobs record(s); asked the vendor about 0 job(s) of finished "
                                       "task instances.\nNo external job is running for a finished task instance.\n")

    assert main(["--dag-id", "orphan_never", "--cancel"]) == 0
    assert "cancelled" in capsys.readouterr().out
    assert len(emu.ledger()["cancels"]) == cancels_before + 1
    assert emu.ledger()["cancels"][-1]["run_id"] == orphan_run
    assert main(["--dag-id", "orphan_never"]) == 0  # nothing left to find

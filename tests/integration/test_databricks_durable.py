"""The checkpoint protocol end to end: Airflow runs the DAGs, the emulator counts the runs.

Every test asserts the task's final state and try number (from the metadata DB) and what the
vendor saw (the emulator's ledger). Failures are caused by emulator faults, never by patching
our code.
"""

from __future__ import annotations

import threading
import time

import pytest

from durable_jobs.core.exceptions import CheckpointError

from . import driver, store

pytestmark = pytest.mark.usefixtures("databricks_conn_env")


@pytest.fixture
def emu(databricks_conn_env):
    return databricks_conn_env


@pytest.fixture(scope="module")
def dags():
    return driver.load("databricks_scenarios")


def submissions(emu) -> list[dict]:
    return [s for s in emu.ledger()["submissions"] if not s.get("deduplicated")]


def tokens(emu) -> list[str]:
    return [s["idempotency_token"] for s in submissions(emu)]


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        # Airflow 3 also keeps the extra link's URL as an XCom (``_link_<name>``); compare the operator's own.
        return {row.key: XComModel.deserialize_value(row) for row in rows if not row.key.startswith("_link_")}


def fail_polling_once(emu, *, skip: int) -> None:
    """Fail the try while it watches: one runs/get answers 403 after ``skip`` good ones.

    An auth error is the one status fault the policy does not bear (5xx, 429 and resets are waited out,
    see test_faults): the try fails at once and Airflow's retry has a running run to reconnect to.
    """
    emu.add_fault("jobs/runs/get", status=403, count=1, skip=skip)


def clock_still_until(emu, ready, timeout: float = 120.0) -> None:
    """Keep the emulator's clock still (every run stays where it is) until ``ready()``, then let it run.

    The tests below need a run still running when the task reaches a given call; on a loaded machine the
    run's own seconds can pass before the task gets there. Stopping the vendor's clock waits for the
    evidence instead (the fixture's emulator is the test's own and is stopped after it).
    """
    emu.configure(speed=0)

    def thaw() -> None:
        deadline = time.monotonic() + timeout
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        emu.configure(speed=1)

    threading.Thread(target=thaw, name="emulator-thaw", daemon=True).start()


def runs_get_calls(emu) -> int:
    return emu.ledger()["calls"].get("jobs/runs/get", 0)


# ------------------------------------------------------------------ happy paths
def test_sync_success_checkpoints_and_pushes_xcoms(emu, dags):
    dr = driver.run(dags.submit_sync)

    result = driver.task_result(dr, "run")
    assert (dr.state, result.state, result.try_number) == ("success", "success", 1)
    [run] = submissions(emu)
    assert emu.ledger()["runs_created"] == 1
    record = store.record(dr)
    assert record["id"] == run["run_id"] and record["status"] == "SUCCEEDED"
    assert run["idempotency_token"] == record["nonce"] == record["key"]
    assert store.get(dr, store.BARE_KEY) == run["run_id"]  # the official operator can still read it
    pushed = xcoms(dr)
    assert pushed["run_id"] == run["run_id"]
    assert pushed["run_page_url"].startswith(emu.url) and str(run["run_id"]) in pushed["run_page_url"]


def test_deferrable_success_defers_after_checkpoint(emu, dags):
    dr = driver.run(dags.submit_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [run] = submissions(emu)
    assert store.record(dr)["status"] == "SUCCEEDED"
    pushed = xcoms(dr)
    # the official XComs, and a copy of the record for the failure callback (durable_jobs/core/orphans.py)
    assert set(pushed) == {"job_id", "run_id", "run_page_url", store.RECORD_KEY}
    # the copy is the record as it stood once the run was known (its outcome needs no copy)
    assert pushed[store.RECORD_KEY] == {k: v for k, v in store.record(dr).items() if k != "status"}


def test_wait_for_termination_false_returns_after_a_checkpointed_submit(emu, dags):
    emu.configure(running_seconds=30)
    dr = driver.run(dags.submit_nowait)

    assert driver.task_result(dr, "run").state == "success"
    [run] = submissions(emu)
    assert emu.ledger()["runs"][str(run["run_id"])]["state"] in ("PENDING", "RUNNING")
    record = store.record(dr)
    assert record["id"] == run["run_id"] and "status" not in record  # accepted, not succeeded


# ------------------------------------------------------------------ retries
@pytest.mark.parametrize(("dag_name", "skip"), [("submit_sync", 2), ("submit_deferrable", 3)])
def test_real_retry_reconnects_to_the_running_job(emu, dags, dag_name, skip):
    emu.configure(running_seconds=3)
    fail_polling_once(emu, skip=skip)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1 and len(submissions(emu)) == 1
    assert xcoms(dr)["run_id"] == submissions(emu)[0]["run_id"]  # re-pushed on reconnect


@pytest.mark.parametrize("dag_name", ["submit_sync", "submit_deferrable"])
def test_failed_job_is_retried_with_a_new_job_and_a_new_key(emu, dags, dag_name):
    emu.configure(outcomes=["FAILED", "SUCCESS"])

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    first, second = submissions(emu)
    assert first["idempotency_token"] != second["idempotency_token"]
    assert store.record(dr)["id"] == second["run_id"]


def test_poll_errors_429_and_500_are_retried_without_resubmitting(emu, dags):
    emu.add_fault("jobs/runs/get", status=429, count=1, skip=2, retry_after=0)
    emu.add_fault("jobs/runs/get", status=503, count=1, skip=3)
    clock_still_until(emu, lambda: len(emu.ledger()["faults_fired"]) == 2)  # the run outlasts both faults

    dr = driver.run(dags.submit_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert emu.ledger()["runs_created"] == 1
    assert len(emu.ledger()["faults_fired"]) == 2


# ------------------------------------------------------------------ the submit→persist window
def test_lost_submit_reply_is_recovered_by_the_hooks_retry_with_the_same_key(emu, dags):
    emu.add_fault("jobs/runs/submit", status=500, count=1, mode="lose_reply")

    dr = driver.run(dags.submit_sync)

    assert driver.task_result(dr, "run").try_number == 1
    assert emu.ledger()["runs_created"] == 1
    assert len(emu.ledger()["submissions"]) == 2  # the lost one and its deduplicated resend


def test_lost_submit_replies_are_resent_with_the_same_key_within_the_try(emu, dags):
    emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")  # beats the hook's 2 attempts

    dr = driver.run(dags.submit_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)  # the fault policy resent the same key
    assert emu.ledger()["runs_created"] == 1
    assert len(set(s["idempotency_token"] for s in emu.ledger()["submissions"])) == 1


def test_lost_submit_reply_across_tries_resubmits_the_same_key(emu, dags, monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "0")  # the try gives up at once
    emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")  # beats the hook's 2 attempts

    dr = driver.run(dags.submit_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1
    assert len(set(s["idempotency_token"] for s in emu.ledger()["submissions"])) == 1


def test_burned_key_starts_a_new_epoch(emu, dags, monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "0")
    emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")
    dag = dags.submit_sync
    dr = driver.start(dag)
    driver.drive(dag, dr, max_tries=1)
    assert store.record(dr)["id"] is None  # crashed inside the window: intent only
    [lost] = {s["run_id"] for s in emu.ledger()["submissions"]}
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    DatabricksHook().cancel_run(lost)
    DatabricksHook().delete_run(lost)  # someone deleted the run: its token can never be used again

    dr = driver.drive(dag, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 2
    assert store.record(dr)["id"] != lost


# ------------------------------------------------------------------ clears and edits
def test_clear_starts_fresh_with_a_new_key(emu, dags):
    dag = dags.submit_sync
    dr = driver.run(dag)
    first_key = store.record(dr)["nonce"]

    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 2
    assert store.record(dr)["nonce"] != first_key


def test_clear_reconnects_when_fresh_on_clear_is_off(emu, dags):
    dag = dags.submit_keep_on_clear
    dr = driver.run(dag)
    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert emu.ledger()["runs_created"] == 1


def test_clear_after_clear_on_success_wiped_the_record(emu, dags, monkeypatch):
    monkeypatch.setenv("AIRFLOW__STATE_STORE__CLEAR_ON_SUCCESS", "True")
    dag = dags.submit_sync
    dr = driver.run(dag)
    assert store.record(dr) is None  # Airflow deleted it on success

    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "success"
    first, second = submissions(emu)
    assert first["idempotency_token"] != second["idempotency_token"]
    assert emu.ledger()["runs_created"] == 2


def test_clear_after_the_record_was_deleted_through_the_rest_api(emu, dags, rest_api):
    dag = dags.submit_sync
    dr = driver.run(dag)
    old = store.record(dr)
    base = f"/api/v2/dags/{dr.dag_id}/dagRuns/{dr.run_id}/taskInstances/run/state-store"
    assert rest_api.delete(base).status_code == 204
    assert store.record(dr) is None and store.get(dr, store.BARE_KEY) is None

    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert emu.ledger()["runs_created"] == 2  # never the old run handed back
    assert store.record(dr)["nonce"] != old["nonce"] and store.record(dr)["id"] != old["id"]


def test_changed_request_starts_fresh_and_names_the_field(emu, dags, capfd):
    emu.configure(running_seconds=3)
    fail_polling_once(emu, skip=2)
    dag = dags.submit_sync
    dr = driver.start(dag)
    driver.drive(dag, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry"

    edited = dags.build("dj_submit_sync", tasks=dags.notebook("/Shared/etl_v2"))
    dr = driver.drive(edited, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 2
    out = capfd.readouterr()
    assert "request changed since the checkpoint (fields: tasks)" in out.out + out.err


def test_try_number_template_is_not_a_change(emu, dags):
    emu.configure(running_seconds=3)
    fail_polling_once(emu, skip=2)

    dr = driver.run(dags.submit_templated)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1
    assert submissions(emu)[0]["run_name"] == "nightly (try 1)"


# ------------------------------------------------------------------ switches and inputs
def test_durable_false_never_touches_the_store(emu, dags):
    emu.configure(running_seconds=3)
    fail_polling_once(emu, skip=2)

    dr = driver.run(dags.submit_not_durable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 2  # no checkpoint: the retry submitted again
    assert store.record(dr) is None and store.get(dr, store.BARE_KEY) is None


def test_user_token_is_combined_with_the_epoch_key(emu, dags):
    emu.configure(outcomes=["FAILED", "SUCCESS"])

    dr = driver.run(dags.submit_user_token)

    assert driver.task_result(dr, "run").state == "success"
    first, second = tokens(emu)
    ds = dr.logical_date.strftime("%Y%m%d")
    assert first.startswith(f"nightly-{ds}-") and second.startswith(f"nightly-{ds}-")
    assert first != second and len(first) <= 64


def test_untrustworthy_checkpoint_fails_the_try_without_submitting(emu, dags):
    dag = dags.submit_sync
    dr = driver.start(dag)
    store.put(dr, store.RECORD_KEY, {"v": 1, "nonce": "not-a-nonce"})

    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "failed"
    assert emu.ledger()["submissions"] == []


def test_mapped_tasks_keep_separate_records(emu, dags):
    dr = driver.run(dags.submit_mapped)

    records = [store.record(dr, map_index=i) for i in range(3)]
    assert all(driver.task_result(dr, "run", i).state == "success" for i in range(3))
    assert len({r["nonce"] for r in records}) == 3
    assert sorted(r["id"] for r in records) == sorted(s["run_id"] for s in submissions(emu))
    assert emu.ledger()["runs_created"] == 3


# ------------------------------------------------------------------ run-now
def test_run_now_reconnect_never_cancels_the_run_it_reconnects_to(emu, dags):
    emu.seed_job(job_id=501, name="nightly")
    emu.configure(running_seconds=3)
    fail_polling_once(emu, skip=2)

    dr = driver.run(dags.run_now_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1
    assert emu.ledger()["cancels"] == []


@pytest.mark.parametrize("dag_name", ["run_now_sync_repair", "run_now_deferrable_repair"])
def test_run_now_repair_stays_in_the_same_epoch(emu, dags, dag_name):
    emu.seed_job(job_id=501, name="nightly")
    emu.configure(outcomes=["FAILED", "SUCCESS"])

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert emu.ledger()["runs_created"] == 1
    assert len(emu.ledger()["repairs"]) == 1
    assert store.record(dr, key="databricks_run_now_id_durable")["status"] == "SUCCEEDED"


def test_record_pinned_to_never_expire(emu, dags):
    from airflow import settings
    from airflow.models.task_state_store import TaskStateStoreModel

    dr = driver.run(dags.submit_sync)
    with settings.Session() as session:
        rows = session.query(TaskStateStoreModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id).all()
    assert {r.key for r in rows} == {store.RECORD_KEY, store.BARE_KEY}
    assert all(r.expires_at is None for r in rows)


def test_bad_record_error_names_the_key():
    from durable_jobs.core.checkpoint import parse_record

    with pytest.raises(CheckpointError, match="databricks_run_id_durable"):
        parse_record({"v": 1}, key="databricks_run_id_durable")


def test_store_read_error_fails_the_try_instead_of_submitting(emu, dags, monkeypatch, capfd):
    import airflow.state

    monkeypatch.setenv("AIRFLOW__STATE_STORE__BACKEND", "tests.integration.failing_backend.UnreadableBackend")
    monkeypatch.setattr(airflow.state, "_backend_instance", None)  # Airflow caches the backend per process
    dag = dags.build("dj_submit_sync", retries=0)

    dr = driver.run(dag)

    assert driver.task_result(dr, "run").state == "failed"
    assert emu.ledger()["submissions"] == []  # never treated as "no record"
    out = capfd.readouterr()
    assert "CheckpointError: could not read the checkpoint 'databricks_run_id_durable'" in out.out + out.err
    monkeypatch.setattr(airflow.state, "_backend_instance", None)


def test_run_now_repairs_a_run_it_reconnected_to(emu, dags):
    """repair_run after a reconnect (try 2 watching try 1's run) repairs; the official loop raised
    AttributeError: _merged_json there, because only its submit path sets that attribute."""
    emu.seed_job(job_id=501, name="nightly")
    emu.configure(outcomes=["FAILED", "SUCCESS"], running_seconds=2)
    fail_polling_once(emu, skip=2)  # try 1 fails while watching; try 2 reconnects to the same run
    # ... while it still runs: the clock moves once try 2 has read it (runs/get #4, after the 403 of #3)
    clock_still_until(emu, lambda: runs_get_calls(emu) >= 4)

    dr = driver.run(dags.run_now_sync_repair)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1 and len(emu.ledger()["repairs"]) == 1

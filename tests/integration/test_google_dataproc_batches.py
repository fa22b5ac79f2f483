"""Dataproc Serverless batches end to end: Airflow runs the DAGs, the official ``DataprocHook`` /
``DataprocAsyncHook`` (the real ``google-cloud-dataproc`` BatchController clients and the long-running operations
client) talk over loopback to the emulator, whose ledger records every ``CreateBatch``."""

from __future__ import annotations

import pytest

from durable_jobs.providers.google.cloud.clients.dataproc import batch_id
from durable_jobs.testing.emulators.dataproc import DataprocEmulator

from . import driver, store

RECORD = "dataproc_batch_id_durable"


@pytest.fixture
def dp(monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "5")
    emulator = DataprocEmulator(run_seconds=0.5).start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.fixture(scope="module")
def dags():
    return driver.load("dataproc_scenarios")


def creates(dp) -> list[dict]:
    return [e for e in dp.ledger() if e["op"] == "CreateBatch"]


@pytest.mark.parametrize("dag_name", ["b_sync", "b_deferrable"])
def test_batch_id_and_request_id_come_from_the_key(dp, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    [create] = creates(dp)
    assert create["created"] and create["id"] == f"airflow-{record['nonce']}" == record["id"]
    assert create["request_id"] == record["nonce"]
    assert dp.batch_states() == {create["id"]: "SUCCEEDED"}


def test_a_user_batch_id_and_request_id_are_combined_with_the_key(dp, dags):
    dr = driver.run(dags.b_user_id)

    assert driver.task_result(dr, "run").state == "success"
    nonce = store.get(dr, RECORD)["nonce"]
    ds = dr.logical_date.strftime("%Y%m%d")
    [create] = creates(dp)
    assert create["id"] == batch_id(nonce, f"daily-{ds}") == f"daily-{ds}-{nonce}"
    assert create["request_id"].endswith(nonce) and len(create["request_id"]) <= 40


@pytest.mark.parametrize("dag_name", ["b_sync", "b_deferrable"])
def test_lost_create_reply_creates_one_batch(dp, dags, dag_name):
    """The batch was created, the reply lost: the resend finds the batch by its key-derived id."""
    dp.inject("CreateBatch", "UNAVAILABLE", after=True)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    assert dp.created("batch") == 1 and len(dp.batch_states()) == 1


@pytest.mark.parametrize("dag_name", ["b_fails", "b_fails_deferrable"])
def test_a_failed_batch_is_retried_as_a_new_batch(dp, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    assert dp.created("batch") == 2 and set(dp.batch_states().values()) == {"FAILED"}
    out = capfd.readouterr()
    assert "failed with error: emulated failure" in out.out + out.err


def test_num_retries_if_resource_is_not_ready_recreates_the_batch(dp, dags):
    dr = driver.run(dags.b_not_ready)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    made = [e for e in creates(dp) if e["created"]]
    assert len(made) == 2 and made[0]["id"] == made[1]["id"] and made[0]["request_id"] != made[1]["request_id"]


def test_batch_id_rules():
    nonce = "0123456789abcdef0123456789abcdef"
    assert batch_id(nonce) == f"airflow-{nonce}"
    assert len(batch_id(nonce, "x" * 80)) <= 63 and batch_id(nonce, "Bad_ID").startswith("b")


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_batch(dp, monkeypatch, state, cancelled):
    """Our JobTrigger polls GetBatch through the async client; a user's kill cancels the batch's operation."""
    import asyncio

    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger
    from durable_jobs.providers.google.cloud.clients.dataproc import DataprocBatchClient
    from durable_jobs.testing.emulators.dataproc import PROJECT, REGION

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    dp.hold()
    client = DataprocBatchClient(region=REGION, project_id=PROJECT)
    ident = client.submit({"batch": {"pyspark_batch": {"main_python_file_uri": "gs://b/x.py"}}},
                          batch_id("0123456789abcdef0123456789abcdef"))
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=ident,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: dp.calls.get("GetBatch", 0) >= 2))

    assert supervisor.asked == 1 and dp.calls["GetBatch"] >= 2
    if cancelled:
        assert dp.batch_states()[ident] in ("CANCELLING", "CANCELLED")
    else:
        assert dp.batch_states()[ident] == "RUNNING"  # a move: left running


def test_the_example_dag_runs_as_written_with_a_lost_reply(dp):
    """example_dags/google_dataproc_batch.py: deferrable, a batch_id_prefix; the CreateBatch reply lost once."""
    dags = driver.load("google_dataproc_batch", driver.EXAMPLES)
    dp.inject("CreateBatch", "UNAVAILABLE", after=True)

    dr = driver.run(dags.dag)

    assert driver.task_result(dr, "sales_report").state == "success"
    [(ident, state)] = dp.batch_states().items()
    assert dp.created("batch") == 1 and state == "SUCCEEDED" and ident.startswith("sales-report-")

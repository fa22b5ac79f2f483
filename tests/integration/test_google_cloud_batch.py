"""Cloud Batch end to end: Airflow runs the DAGs, the official ``CloudBatchHook`` / ``CloudBatchAsyncHook`` (the
real ``google-cloud-batch`` clients) talk over loopback gRPC to the emulator, whose ledger records every
``CreateJob``."""

from __future__ import annotations

import asyncio

import pytest
from google.cloud.batch_v1 import JobStatus

from durable_jobs.providers.google.cloud.clients.cloud_batch import CloudBatchJobClient, job_id
from durable_jobs.testing.emulators.cloud_batch import PROJECT, REGION, CloudBatchEmulator

from . import driver, store

RECORD = "cloud_batch_job_id_durable"


@pytest.fixture
def cb(monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "5")
    emulator = CloudBatchEmulator(run_seconds=0.5).start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.fixture(scope="module")
def dags():
    return driver.load("cloud_batch_scenarios")


def creates(cb) -> list[dict]:
    return [e for e in cb.ledger() if e["op"] == "CreateJob"]


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


@pytest.mark.parametrize("dag_name", ["cb_sync", "cb_deferrable"])
def test_the_job_id_is_the_job_name_and_the_key(cb, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    ds = dr.logical_date.strftime("%Y%m%d")
    [create] = creates(cb)
    assert create["created"] and create["id"] == f"daily-{ds}-{record['nonce']}" == record["id"]
    assert cb.job_states() == {create["id"]: "SUCCEEDED"}
    returned = xcoms(dr)["return_value"]  # upstream's return value: the finished job, Job.to_dict
    assert returned["name"] == f"projects/{PROJECT}/locations/{REGION}/jobs/{create['id']}"
    assert returned["status"]["state"] == JobStatus.State.SUCCEEDED  # Job.to_dict writes enums as numbers, as upstream


@pytest.mark.parametrize("dag_name", ["cb_sync", "cb_deferrable"])
def test_lost_create_reply_creates_one_job(cb, dags, dag_name):
    """The job was created, the reply lost: before resending, GetJob under the key-derived id finds it."""
    cb.inject("CreateJob", "UNAVAILABLE", after=True)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    assert cb.created() == 1 and len(cb.job_states()) == 1 and len(creates(cb)) == 1


def test_the_official_operator_fails_its_retry_with_already_exists(cb, dags):
    """What ours fixes: upstream's job id is the job name, so the retry after a lost reply is refused."""
    cb.inject("CreateJob", "UNAVAILABLE", after=True)

    dr = driver.run(dags.cb_official)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 3)
    assert cb.created() == 1 and [e.get("error") for e in creates(cb)] == [None, "ALREADY_EXISTS", "ALREADY_EXISTS"]


@pytest.mark.parametrize("dag_name", ["cb_fails", "cb_fails_deferrable"])
def test_a_failed_job_is_retried_as_a_new_job(cb, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    assert cb.created() == 2 and set(cb.job_states().values()) == {"FAILED"}
    out = capfd.readouterr()
    assert "Unexpected error in the operation: Batch job with name projects/" in out.out + out.err
    assert "has failed its execution" in out.out + out.err


def test_timeout_seconds_bounds_the_wait(cb, dags, capfd):
    """Upstream's bound and message; with no try left the job is cancelled, not left behind (no orphans)."""
    dr = driver.run(dags.cb_timeout)

    assert driver.task_result(dr, "run").state == "failed"
    out = capfd.readouterr()
    assert "Job with name [projects/" in out.out + out.err and "timed out" in out.out + out.err
    assert cb.created() == 1
    assert list(cb.job_states().values())[0] in ("CANCELLATION_IN_PROGRESS", "CANCELLED")


def test_a_retry_reconnects_to_the_running_job():
    """The decisive read: find() asks GetJob under the key-derived id; nothing is created again."""
    with CloudBatchEmulator(run_seconds=60) as emu, emu.routed():  # still active at the reads below, however slow
        import os

        os.environ.update(emu.airflow_conn_env())
        client = CloudBatchJobClient(region=REGION, project_id=PROJECT)
        key = client.format_key("0123456789abcdef0123456789abcdef", "nightly")
        assert client.find(key) is None
        client.submit({"job": {"labels": {"a": "b"}}}, key)
        assert client.find(key) == key and client.status(key).state in ("QUEUED", "SCHEDULED", "RUNNING")
        assert asyncio.run(client.astatus(key)).phase.value == "ACTIVE"
        assert emu.created() == 1


def test_job_id_rules():
    nonce = "0123456789abcdef0123456789abcdef"
    assert job_id(nonce) == f"airflow-{nonce}"
    assert job_id(nonce, "My_Report 2026") == f"my-report-2026-{nonce}"
    assert job_id(nonce, "2026-report").startswith("j2026-report-")
    assert len(job_id(nonce, "x" * 80)) == 63 and not job_id(nonce, "x" * 80).startswith("-")


def test_bad_arguments_fail_at_parse_time():
    from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator

    with pytest.raises(ValueError, match="region is required"):
        CloudBatchSubmitJobOperator(task_id="x", project_id=PROJECT, region="", job_name="j", job={})
    with pytest.raises(ValueError, match="timeout_seconds"):
        CloudBatchSubmitJobOperator(task_id="x", project_id=PROJECT, region=REGION, job_name="j", job={},
                                    timeout_seconds=0)


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_job(cb, monkeypatch, state, cancelled):
    """Our JobTrigger polls GetJob through the official async client; a user's kill cancels the job."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    cb.hold()
    client = CloudBatchJobClient(region=REGION, project_id=PROJECT)
    ident = client.submit({"job": {}}, job_id("0123456789abcdef0123456789abcdef"))
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=ident,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: cb.calls.get("GetJob", 0) >= 2))

    assert supervisor.asked == 1 and cb.calls["GetJob"] >= 2
    cancels = [e for e in cb.ledger() if e["op"] == "CancelJob"]
    if cancelled:
        assert len(cancels) == 1 and cb.job_states()[ident] in ("CANCELLATION_IN_PROGRESS", "CANCELLED")
    else:
        assert cancels == [] and cb.job_states()[ident] == "RUNNING"  # a move: left running


def test_the_example_dag_runs_as_written_with_a_lost_reply(cb):
    """example_dags/google_cloud_batch.py: deferrable, a job_name; the CreateJob reply lost once -> one job."""
    dags = driver.load("google_cloud_batch", driver.EXAMPLES)
    cb.inject("CreateJob", "UNAVAILABLE", after=True)

    dr = driver.run(dags.dag)

    assert driver.task_result(dr, "nightly_render").state == "success"
    [(ident, state)] = cb.job_states().items()
    assert cb.created() == 1 and state == "SUCCEEDED" and ident.startswith("nightly-render-")


def test_the_surface_is_the_official_one():
    """Same class name, signature (plus durable-jobs' own keyword arguments), template attributes and links."""
    import inspect

    from airflow.providers.google.cloud.operators import cloud_batch as official

    from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator as Ours

    theirs = official.CloudBatchSubmitJobOperator
    mine, upstream = inspect.signature(Ours.__init__).parameters, inspect.signature(theirs.__init__).parameters
    assert Ours.__name__ == theirs.__name__
    assert set(mine) - set(upstream) == {"durable", "cancel_on_kill", "fresh_on_clear"}
    for name, param in upstream.items():
        assert mine[name].kind == param.kind and mine[name].default == param.default, name
    for attr in ("template_fields", "template_ext", "template_fields_renderers", "ui_color", "operator_extra_links"):
        assert getattr(Ours, attr) == getattr(theirs, attr), attr

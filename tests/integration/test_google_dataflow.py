"""Dataflow end to end: Airflow runs the DAGs, the official ``DataflowHook`` (its discovery-built REST client)
talks over loopback HTTP to the emulator, whose ledger records every launch.

The official Dataflow hook imports apache-airflow-providers-apache-beam; without it these tests are skipped.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("airflow.providers.apache.beam.hooks.beam",
                    reason="the official Dataflow hook needs apache-airflow-providers-apache-beam")

from durable_jobs.core.status import JobPhase  # noqa: E402
from durable_jobs.providers.google.cloud.clients.dataflow import DataflowJobClient, job_name  # noqa: E402
from durable_jobs.testing.emulators.dataflow import PROJECT, REGION, DataflowEmulator  # noqa: E402

from . import driver, store  # noqa: E402

RECORD = "dataflow_job_id_durable"
NONCE = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def df(monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "5")
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__DATAFLOW_LIST_CONSISTENCY_SECONDS", "1")
    emulator = DataflowEmulator().start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()
    assert emulator.server_errors == []


@pytest.fixture(scope="module")
def dags():
    return driver.load("dataflow_scenarios")


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def states(df) -> list[str]:
    return [j["state"] for j in df.ledger()["jobs"].values()]


@pytest.mark.parametrize("dag_name", ["df_sync", "df_deferrable"])
def test_the_job_name_carries_the_key_and_a_lost_reply_launches_once(df, dags, dag_name):
    """The launch went through, its reply was lost: the resend answers 409 and the job is re-attached."""
    df.add_fault("templates/launch", status=503, mode="lose_reply")

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    [job] = df.ledger()["jobs"].values()
    assert df.created() == 1 and job["name"] == f"wordcount-{dr.logical_date:%Y%m%d}-{record['nonce']}"
    assert job["state"] == "JOB_STATE_DONE"
    out = xcoms(dr)
    assert out["return_value"] == out["job_id"] == record["id"]  # upstream's return value: the job id
    # the official DataflowJobLink.persist (Airflow 3: the formatted console URL)
    assert f"/dataflow/jobs/{REGION}/{record['id']}?project={PROJECT}" in out["dataflow_job_config"]


def test_the_official_operator_with_a_fixed_name_fails_its_retry(df, dags):
    """What ours fixes: upstream's retry after a lost reply meets the active job of the same name (409)."""
    df.configure(run_seconds=30)
    df.add_fault("templates/launch", status=503, mode="lose_reply")

    dr = driver.run(dags.df_official_fixed)

    assert driver.task_result(dr, "run").state == "failed"
    assert df.created() == 1 and len(df.ledger()["launches"]) >= 3


def test_a_fixed_name_reattaches_instead(df, dags):
    df.add_fault("templates/launch", status=503, mode="lose_reply")

    dr = driver.run(dags.df_fixed_name)

    assert driver.task_result(dr, "run").state == "success"
    assert df.created() == 1 and [j["name"] for j in df.ledger()["jobs"].values()] == [
        f"wordcount-{dr.logical_date:%Y%m%d}"]


@pytest.mark.parametrize("dag_name", ["df_fails", "df_fails_deferrable"])
def test_a_failed_job_is_retried_as_a_new_job(df, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("failed", 2)
    assert df.created() == 2 and states(df) == ["JOB_STATE_FAILED"] * 2
    names = [j["name"] for j in df.ledger()["jobs"].values()]
    assert len(set(names)) == 2  # a new epoch, a new name
    out = capfd.readouterr()
    assert "JOB_STATE_FAILED" in out.out + out.err or "has failed its execution" in out.out + out.err


def test_a_streaming_job_succeeds_when_running_as_upstream(df, dags):
    """Synchronous, default expected state: a streaming job succeeds once RUNNING and is left running."""
    dr = driver.run(dags.df_streaming)

    assert driver.task_result(dr, "run").state == "success"
    assert states(df) == ["JOB_STATE_RUNNING"]


def test_wait_until_finished_false_returns_after_the_launch(df, dags):
    df.configure(run_seconds=30)

    dr = driver.run(dags.df_no_wait)

    assert driver.task_result(dr, "run").state == "success"
    assert df.created() == 1 and states(df)[0] in ("JOB_STATE_PENDING", "JOB_STATE_RUNNING")


@pytest.mark.parametrize("dag_name", ["df_flex", "df_flex_deferrable"])
def test_flex_returns_the_job_dict(df, dags, dag_name):
    df.add_fault("flexTemplates/launch", status=503, mode="lose_reply")

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    record = store.get(dr, RECORD)
    returned = xcoms(dr)["return_value"]
    assert df.created() == 1 and returned["id"] == record["id"] and returned["currentState"] == "JOB_STATE_DONE"
    assert returned["name"] == f"flexjob-{record['nonce']}"


def test_find_lists_by_name_and_takes_an_ended_job(df):
    """After a crash: the active job of the key's name, else the newest ended one (the name carries a nonce)."""
    client = DataflowJobClient(location=REGION, project_id=PROJECT, consistency_seconds=0)
    key = client.format_key(NONCE, "nightly")
    assert client.find(key) is None
    ident = client.submit({"template": "gs://t/x"}, key)
    assert client.find(key) == ident and client.status(ident).phase is JobPhase.ACTIVE
    assert asyncio.run(client.astatus(ident)).phase is JobPhase.ACTIVE
    df.finish(ident)
    assert client.find(key) == ident and client.status(ident).phase is JobPhase.SUCCEEDED
    fixed = DataflowJobClient(location=REGION, project_id=PROJECT, consistency_seconds=0, append_job_name=False)
    assert fixed.find(key) is None  # a reused fixed name: an ended job is never adopted


def test_find_waits_out_the_listing_lag(df):
    # The first scan comes right after the submit, well inside the 1.5 s lag (there is a re-scan to see); the
    # job is listed 3.5 s before the window ends: seconds of slack either side for a loaded machine.
    df.configure(list_lag=1.5)
    client = DataflowJobClient(location=REGION, project_id=PROJECT, consistency_seconds=5)
    key = client.format_key(NONCE, "lagged")
    ident = client.submit({"template": "gs://t/x"}, key)
    assert client.find(key) == ident and df.app.calls["jobs/list"] >= 2


def _launch(client: DataflowJobClient, key: str) -> str:
    from airflow.sdk import BaseOperator

    from durable_jobs.core.polling import PollPolicy
    from durable_jobs.core.resend import submit_once

    return submit_once(client, {"template": "gs://t/x"}, key, PollPolicy(interval=0.1, error_budget=5.0),
                       log=BaseOperator(task_id="t").log, first_contact=True)


def test_the_client_library_sends_a_launch_again_when_its_connection_closes(df):
    """The window (the official hook's own call): httplib2 resends a request whose connection closed before any
    reply. The job had already ended, so Dataflow's name rule (active names only) let the resend make a second."""
    from airflow.providers.google.cloud.hooks.dataflow import DataflowHook

    df.configure(pending_seconds=0, run_seconds=0)  # the job ends as soon as it is created
    df.add_fault("templates/launch", mode="reset", count=1)
    launch = DataflowHook().get_conn().projects().locations().templates().launch(
        projectId=PROJECT, location=REGION, gcsPath="gs://t/x", body={"jobName": "closed", "parameters": {}})

    launch.execute(num_retries=0)

    assert len(df.ledger()["launches"]) == 2 and df.created() == 2


def test_a_launch_whose_connection_closes_is_sent_once_and_found_by_name(df):
    df.configure(pending_seconds=0, run_seconds=0)
    df.add_fault("templates/launch", mode="reset", count=1)
    client = DataflowJobClient(location=REGION, project_id=PROJECT, consistency_seconds=0)
    key = client.format_key(NONCE, "closed")

    ident = _launch(client, key)

    [job_id] = df.ledger()["jobs"]
    assert ident == job_id and len(df.ledger()["launches"]) == 1
    assert df.app.calls["jobs/list"] >= 1  # the resend loop looked for the job before it would send again


def test_a_409_whose_job_ended_before_the_listing_reattaches_to_it(df):
    """The launch meets the active job of its name (409); by the time the name is listed, that job has ended.
    It is still this key's job: re-attached, never launched again."""
    import threading
    import time

    df.configure(run_seconds=600)
    client = DataflowJobClient(location=REGION, project_id=PROJECT, consistency_seconds=0)
    key = client.format_key(NONCE, "ended")
    first = client.submit({"template": "gs://t/x"}, key)
    df.add_hold("jobs/list", phase="before")
    outcome: dict[str, object] = {}

    def launch_again() -> None:
        try:
            outcome["id"] = client.submit({"template": "gs://t/x"}, key)
        except Exception as err:  # noqa: BLE001 - the assertion below names it
            outcome["error"] = err

    worker = threading.Thread(target=launch_again, name="launch-again", daemon=True)
    worker.start()
    deadline = time.monotonic() + 60  # only a launch that never lists gets there
    while not df.holds()["held"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert df.holds()["held"], "the launch did not list the name after its 409"
    df.finish(first)
    df.release()
    worker.join(timeout=60)

    assert outcome == {"id": first}
    assert [e["created"] for e in df.ledger()["launches"]] == [True, False] and df.created() == 1


def test_cancel_drains_a_streaming_job_with_drain_pipeline(df):
    client = DataflowJobClient(location=REGION, project_id=PROJECT, drain_pipeline=True, poll_sleep=0.05,
                               cancel_timeout=5)
    ident = client.submit({"template": "gs://t/x", "parameters": {"streaming": "true"}}, job_name(NONCE, "s"))
    client.cancel(ident)
    assert states(df) == ["JOB_STATE_DRAINED"]
    batch = DataflowJobClient(location=REGION, project_id=PROJECT, drain_pipeline=True, cancel_timeout=None)
    other = batch.submit({"template": "gs://t/x"}, job_name(NONCE, "b"))
    asyncio.run(batch.acancel(other))  # the triggerer's cancel: requested, not waited for
    assert df.ledger()["jobs"][other]["state"] in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")


def test_the_surface_is_the_official_one():
    import inspect

    from airflow.providers.google.cloud.operators import dataflow as official

    from durable_jobs.providers.google.cloud.operators import dataflow as ours

    for name in ("DataflowTemplatedJobStartOperator", "DataflowStartFlexTemplateOperator"):
        mine, theirs = getattr(ours, name), getattr(official, name)
        assert mine.__name__ == theirs.__name__
        a, b = inspect.signature(mine.__init__).parameters, inspect.signature(theirs.__init__).parameters
        assert set(a) - set(b) == {"durable", "fresh_on_clear"}
        for pname, param in b.items():
            assert a[pname].kind == param.kind and a[pname].default == param.default, (name, pname)
        for attr in ("template_fields", "template_ext", "ui_color", "operator_extra_links"):
            assert getattr(mine, attr) == getattr(theirs, attr), (name, attr)


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_job(df, monkeypatch, state, cancelled):
    """Our JobTrigger polls jobs.get; a user's kill (the task is no longer deferred) cancels the job, a move of
    the trigger to another triggerer (still deferred) leaves it running."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    df.configure(run_seconds=60)
    client = DataflowJobClient(location=REGION, project_id=PROJECT, deferred=True, consistency_seconds=0)
    ident = client.submit({"template": "gs://t/x"}, job_name(NONCE, "killed"))
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=ident,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: df.app.calls["jobs/get"] >= 2))

    assert supervisor.asked == 1
    state_now = df.ledger()["jobs"][ident]["state"]
    if cancelled:
        assert df.app.calls["jobs/update"] == 1 and state_now in ("JOB_STATE_CANCELLING", "JOB_STATE_CANCELLED")
    else:
        assert df.app.calls["jobs/update"] == 0 and state_now == "JOB_STATE_RUNNING"


def test_the_example_dag_runs_as_written_with_a_lost_reply(df):
    """example_dags/google_dataflow.py: the launch reply lost once -> one job, under the key-derived name."""
    dags = driver.load("google_dataflow", driver.EXAMPLES)
    for task in dags.dag.tasks:
        task.poll_sleep = 0.2
    df.add_fault("templates/launch", status=503, mode="lose_reply")

    dr = driver.run(dags.dag)

    assert driver.task_result(dr, "word_count").state == "success"
    [job] = df.ledger()["jobs"].values()
    assert df.created() == 1 and job["state"] == "JOB_STATE_DONE" and job["name"].startswith("word-count-")


def test_the_official_deferrable_operator_launches_again_after_a_lost_reply(df, dags):
    """The official path end to end (its trigger polls the emulator's gRPC GetJob): the client library resends the
    lost launch (within 2 s), Dataflow answers 409 for the still active name, the retry launches under a new
    uuid - two jobs. (Had the first job ended before the resend, the resend itself would have made the second.)"""
    import threading
    import time

    df.add_fault("templates/launch", status=503, mode="lose_reply")
    # The emulator's clock stands still until the retry's job exists: the first job is still active when the
    # resend comes, however late a loaded machine sends it (the resend waits out the client's backoff, 1-2 s).
    df.configure(run_seconds=5.0, speed=0)

    def thaw() -> None:
        deadline = time.monotonic() + 120  # only a run that never launches twice gets here
        while df.created() < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        df.configure(speed=1)

    threading.Thread(target=thaw, name="emulator-thaw", daemon=True).start()

    dr = driver.run(dags.df_official_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert df.created() == 2 and sorted(states(df)) == ["JOB_STATE_DONE", "JOB_STATE_DONE"]
    assert df.app.calls["grpc/GetJob"] >= 1  # AsyncDataflowHook.get_job_status reached the gRPC face

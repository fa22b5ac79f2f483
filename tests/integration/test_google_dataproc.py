"""Dataproc jobs end to end: Airflow runs the DAGs, the official ``DataprocHook`` / ``DataprocAsyncHook``
(the real ``google-cloud-dataproc`` gRPC clients, sync and async) talk over loopback to the emulator, whose
ledger records every ``SubmitJob`` and whether it created a job.

Every failure comes from the emulator (an injected gRPC status, a lost reply, a job that fails), never from
patching our code. The only thing redirected is where the hooks' clients connect (``DataprocEmulator.routed``).
"""

from __future__ import annotations

import asyncio

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.google.cloud.clients.dataproc import DataprocJobClient, job_reference_id, request_id
from durable_jobs.testing.emulators.dataproc import PROJECT, REGION, DataprocEmulator

from . import driver, store

RECORD = "dataproc_job_id_durable"
BARE = "dataproc_job_id"


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


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def submits(dp) -> list[dict]:
    return [e for e in dp.ledger() if e["op"] == "SubmitJob"]


# ------------------------------------------------------------------ happy paths
@pytest.mark.parametrize("dag_name", ["dp_sync", "dp_deferrable"])
def test_success_sends_the_key_as_request_id_and_job_id(dp, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    [submit] = submits(dp)
    assert submit["created"] and submit["request_id"] == record["nonce"]  # the nonce is the request_id
    assert submit["id"] == record["nonce"] == record["id"] and record["status"] == "SUCCEEDED"
    assert store.get(dr, BARE) == submit["id"]
    pushed = xcoms(dr)
    assert pushed["return_value"] == submit["id"]  # the official return value: the job id
    assert submit["id"] in str(pushed["dataproc_job"])  # DataprocJobLink, as upstream persists it
    assert dp.job_states() == {submit["id"]: "DONE"}
    stored = dp.model.jobs[(PROJECT, REGION, submit["id"])].message
    assert list(stored.pyspark_job.args) == [dr.logical_date.strftime("%Y-%m-%d")]  # rendered


def test_asynchronous_returns_on_acceptance(dp, dags, capfd):
    dp.hold()  # the job runs on after the task returned, however long Airflow takes to end the run
    dr = driver.run(dags.dp_async)

    assert driver.task_result(dr, "run").state == "success"
    [job_id] = dp.job_states()
    assert dp.job_states()[job_id] in ("PENDING", "RUNNING")  # accepted, not finished
    out = capfd.readouterr()
    assert "accepted, which is not success" in out.out + out.err


def test_user_job_id_and_request_id_are_combined_with_the_key(dp, dags):
    dr = driver.run(dags.dp_user_ids)

    assert driver.task_result(dr, "run").state == "success"
    record = store.get(dr, RECORD)
    ds = dr.logical_date.strftime("%Y%m%d")
    key = request_id(record["nonce"], f"daily-{ds}")  # too long to prefix whole: a 7-character digest of it
    assert key.endswith(f"-{record['nonce']}") and len(key) == 40 and not key.startswith("daily")
    [submit] = submits(dp)
    assert submit["request_id"] == key and submit["id"] == f"daily-{ds}-{key}" == record["id"]


# ------------------------------------------------------------------ the lost reply
@pytest.mark.parametrize("dag_name", ["dp_sync", "dp_deferrable"])
def test_lost_submit_reply_creates_one_job(dp, dags, dag_name):
    """Dataproc created the job; the reply was lost (UNAVAILABLE). The resend carries the same request_id and
    gets the first job back: one job in the emulator."""
    dp.inject("SubmitJob", "UNAVAILABLE", after=True)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    assert dp.created("job") == 1 and len(submits(dp)) == 2
    assert {e["request_id"] for e in submits(dp)} == {store.get(dr, RECORD)["nonce"]}


def test_official_operator_duplicates_on_a_lost_reply(dp, dags):
    """Upstream sends no request_id: the client's own retry of the UNAVAILABLE submit makes a second job."""
    dp.inject("SubmitJob", "UNAVAILABLE", after=True)

    dr = driver.run(dags.dp_official)

    assert driver.task_result(dr, "run").state == "success"
    assert dp.created("job") == 2


def test_every_reply_of_try_one_lost_then_try_two_resends_the_same_key(dp, dags, monkeypatch):
    """An intent without an id (what a crash inside the window leaves): try 2 resends under the same key."""
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "1")
    dp.inject("SubmitJob", "INTERNAL", times=200, after=True)  # a 500: the client does not retry it
    dr = driver.start(dags.dp_sync)
    dr = driver.drive(dags.dp_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state in ("up_for_retry", "failed")
    assert store.get(dr, RECORD)["id"] is None and dp.created("job") == 1
    dp.clear_faults()

    dr = driver.drive(dags.dp_sync, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert dp.created("job") == 1 and store.get(dr, RECORD)["id"] == submits(dp)[0]["id"]


# ------------------------------------------------------------------ failures
@pytest.mark.parametrize("dag_name", ["dp_fails", "dp_fails_deferrable"])
def test_a_failed_job_is_retried_as_a_new_job(dp, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    created = [e for e in submits(dp) if e["created"]]
    assert len(created) == 2 and len({e["request_id"] for e in created}) == 2
    assert set(dp.job_states().values()) == {"ERROR"}
    out = capfd.readouterr()
    assert "Job failed:" in out.out + out.err and "A retry submits a new job" in out.out + out.err


def test_retry_reconnects_to_a_running_job(dp, dags):
    dp.hold()
    dp.inject("GetJob", "PERMISSION_DENIED", times=1)  # the first status call fails the try at once
    dr = driver.start(dags.dp_sync)
    dr = driver.drive(dags.dp_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    dp.hold(False)

    dr = driver.drive(dags.dp_sync, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert dp.created("job") == 1 and len(submits(dp)) == 1


# ------------------------------------------------------------------ the client itself
def test_client_status_missing_cancel_and_listing(dp):
    client = DataprocJobClient(region=REGION, project_id=PROJECT)
    dp.hold()
    ids = [client.submit({"job": {"placement": {"cluster_name": "c"}, "pyspark_job": {
        "main_python_file_uri": "gs://b/x.py"}}}, f"k{i}") for i in range(3)]
    assert ids == ["k0", "k1", "k2"]
    assert client.status("nope").phase is JobPhase.MISSING
    client.cancel("k2")

    async def statuses():
        try:
            return await client.astatuses(ids)
        finally:
            await client.aclose()

    before = dict(dp.calls)
    found = asyncio.run(statuses())
    assert found["k0"].state in ("PENDING", "RUNNING") and found["k0"].phase is JobPhase.ACTIVE
    assert found["k2"].state in ("CANCEL_PENDING", "CANCELLED")
    assert dp.calls.get("ListJobs", 0) - before.get("ListJobs", 0) == 1
    assert dp.calls.get("GetJob", 0) - before.get("GetJob", 0) <= 1  # only the job that left the listing
    client.cancel("k2")  # a second cancel of an ended job is not an error of ours


def test_key_formats_follow_dataproc_rules():
    nonce = "0123456789abcdef0123456789abcdef"
    assert request_id(nonce) == nonce
    assert len(request_id(nonce, "x" * 60)) == 40
    assert len(request_id(nonce, "bad id with spaces")) <= 40
    assert job_reference_id(nonce, None) == nonce
    assert len(job_reference_id(nonce, "j" * 200)) <= 100
    assert job_reference_id(nonce, "daily") == f"daily-{nonce}"


def test_bad_input_names_the_argument(dags):
    from durable_jobs.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator

    with pytest.raises(ValueError, match="region"):
        DataprocSubmitJobOperator(task_id="x", job={}, region="")
    with pytest.raises(ValueError, match="polling_interval_seconds"):
        DataprocSubmitJobOperator(task_id="x", job={}, region=REGION, deferrable=True, polling_interval_seconds=0)


# ------------------------------------------------------------------ kills: a user's cancels, an eviction's does not
@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_job(dp, monkeypatch, state, cancelled):
    """The triggerer's own ``cancel_triggers`` ends our JobTrigger (polling through the async gRPC client);
    its on_kill asks Airflow who killed it."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    dp.hold()
    client = DataprocJobClient(region=REGION, project_id=PROJECT)
    job_id = client.submit({"job": {"placement": {"cluster_name": "c"},
                                    "pyspark_job": {"main_python_file_uri": "gs://b/x.py"}}}, "kill-me")
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: dp.calls.get("GetJob", 0) >= 2))

    assert supervisor.asked == 1 and dp.calls["GetJob"] >= 2  # the trigger polled through the async client
    cancels = [e for e in dp.ledger() if e["op"] == "CancelJob"]
    if cancelled:
        assert [(e["op"], e["id"]) for e in cancels] == [("CancelJob", job_id)]
        assert dp.job_states()[job_id] in ("CANCEL_PENDING", "CANCELLED")
    else:
        assert cancels == [] and dp.job_states()[job_id] == "RUNNING"  # a move: left running


def test_user_kill_landing_inside_a_grpc_call_still_cancels_the_job(dp, monkeypatch):
    """A grpc.aio unary call swallows the task's cancel and raises a new, message-less CancelledError; Airflow
    calls on_kill only when the message says "user action". The kill here lands while GetJob is parked in the
    emulator (the trigger awaiting the call), the window a loaded machine hit at random."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor("failed")
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    dp.hold()
    client = DataprocJobClient(region=REGION, project_id=PROJECT)
    job_id = client.submit({"job": {"placement": {"cluster_name": "c"},
                                    "pyspark_job": {"main_python_file_uri": "gs://b/x.py"}}}, "kill-mid-call")
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI
    dp.add_hold("GetJob")
    try:
        asyncio.run(run_then_cancel(trigger, polled=lambda: bool(dp.holds())))
    finally:
        dp.release(abandon=True)

    assert supervisor.asked == 1, "on_kill never ran: the user's cancel lost its message inside the gRPC call"
    assert [(e["op"], e["id"]) for e in dp.ledger() if e["op"] == "CancelJob"] == [("CancelJob", job_id)]


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("running", False)])
def test_user_kill_of_a_polling_sync_task_cancels_the_job(dp, monkeypatch, state, cancelled):
    import threading

    from airflow.sdk.execution_time import task_runner

    from durable_jobs.providers.google.cloud.operators.dataproc import DataprocJobError, DataprocSubmitJobOperator

    from .test_aws_kill import TI, FakeTI, Supervisor

    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", Supervisor(state), raising=False)
    op = DataprocSubmitJobOperator(task_id=TI.task_id, region=REGION, project_id=PROJECT, durable=False,
                                   polling_interval_seconds=0.1,
                                   job={"placement": {"cluster_name": "c"}, "labels": {"emulator-seconds": "3"},
                                        "pyspark_job": {"main_python_file_uri": "gs://b/x.py"}})
    ti = FakeTI(**vars(TI), pushed={})
    outcome: list = []

    def work() -> None:
        try:
            outcome.append(op.execute({"ti": ti}))
        except BaseException as err:  # noqa: BLE001 - the test reads what the worker thread raised
            outcome.append(err)

    dp.hold()  # the job runs until on_kill has come, however slow the worker's start
    worker = threading.Thread(target=work)
    worker.start()
    while dp.calls.get("GetJob", 0) < 3 and worker.is_alive():
        worker.join(0.05)

    op.on_kill()  # as the Task SDK's signal handler does, while execute() polls
    dp.hold(False)  # a job left running ends once its 3 s are up

    worker.join(60)  # a few polls (0.1 s apart); only a hang reaches this
    assert not worker.is_alive()
    [job_id] = dp.job_states()
    if cancelled:
        assert isinstance(outcome[0], DataprocJobError) and "Job was cancelled" in str(outcome[0])
        assert dp.job_states()[job_id] == "CANCELLED"
    else:
        assert outcome == [job_id] and dp.job_states()[job_id] == "DONE"  # infrastructure: left running
    assert dp.created("job") == 1


def test_the_example_dag_runs_as_written_with_a_lost_reply(dp):
    """example_dags/google_dataproc.py: deferrable, a user's job id; the SubmitJob reply lost once -> one job."""
    dags = driver.load("google_dataproc", driver.EXAMPLES)
    dp.inject("SubmitJob", "UNAVAILABLE", after=True)

    dr = driver.run(dags.dag)

    assert driver.task_result(dr, "aggregate_sales").state == "success"
    [job_id] = dp.job_states()
    assert dp.created("job") == 1 and job_id.startswith(f"daily-sales-{dr.logical_date.strftime('%Y%m%d')}-")

"""BigQuery jobs end to end: Airflow runs the DAGs, the official ``BigQueryHook`` (google-cloud-bigquery) and
``BigQueryAsyncHook`` (gcloud-aio-bigquery) talk over loopback HTTP to the BigQuery jobs emulator, whose
ledger counts every insert request and every job *created*.

Every failure comes from the emulator (an injected status, a lost reply, a job that fails), never from
patching our code. What is redirected: ``BIGQUERY_EMULATOR_HOST`` (read by both client libraries; gcloud-aio
is taught to take a URL, ``durable_jobs.testing.emulators.bigquery.route_aio``) and an anonymous connection.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.google.cloud.clients.bigquery import BigQueryJobClient, check_user_job_id, job_id_for

from . import driver, store

RECORD = "bigquery_job_id_durable"
BARE = "bigquery_job_id"


@pytest.fixture(scope="module")
def dags():
    return driver.load("bigquery_scenarios")


@pytest.fixture
def bq(monkeypatch):
    from durable_jobs.testing.emulators.bigquery import BigQueryEmulator

    emulator = BigQueryEmulator().start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "5")
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


# ------------------------------------------------------------------ happy paths
@pytest.mark.parametrize("dag_name", ["bq_sync", "bq_deferrable"])
def test_success_uses_the_key_as_the_job_id(bq, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    [insert] = bq.ledger()["inserts"]
    assert insert["created"] and insert["job_id"] == f"airflow_{dag_name}_run_{record['nonce']}"
    assert record["id"] == insert["job_id"] and record["status"] == "SUCCEEDED"
    assert store.get(dr, BARE) == insert["job_id"]  # where the official operator keeps its id
    pushed = xcoms(dr)
    assert pushed["return_value"] == insert["job_id"]
    assert pushed["job_id_path"] == f"{bq.project}:US:{insert['job_id']}"
    assert insert["labels"] == {"airflow-dag": dag_name, "airflow-task": "run"}
    ds = dr.logical_date.strftime("%Y-%m-%d")
    assert insert["query"].endswith(f"WHERE day = '{ds}'")
    assert bq.ledger()["calls"]["jobs/get"] >= 1 and bq.server_errors == []


def test_user_job_id_is_the_prefix(bq, dags):
    dr = driver.run(dags.bq_prefix)

    assert driver.task_result(dr, "run").state == "success"
    [insert] = bq.ledger()["inserts"]
    nonce = store.get(dr, RECORD)["nonce"]
    assert insert["job_id"] == f"sales_{dr.logical_date.strftime('%Y%m%d')}_{nonce}"


def test_an_invalid_job_id_fails_naming_the_argument(bq, dags):
    dr = driver.run(dags.bq_bad_prefix)

    assert driver.task_result(dr, "run").state == "failed"
    assert bq.ledger()["requests"] == 0
    with pytest.raises(DurableJobConfigError, match=r"job_id=.*letters, digits.*Fix the job_id argument"):
        check_user_job_id("sales.2026-01-01")


def test_dry_run_is_upstreams_path_without_a_record(bq, dags):
    dr = driver.run(dags.bq_dry_run)

    assert driver.task_result(dr, "run").state == "success"
    [insert] = bq.ledger()["inserts"]
    assert insert["dry_run"] and not insert["created"]
    assert store.get(dr, RECORD) is None


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize(("dag_name", "mode", "requests"), [
    ("bq_sync", "lose_reply", 1), ("bq_deferrable", "lose_reply", 1), ("bq_sync", "reset", 2),
    ("bq_deferrable", "reset", 2),
])
def test_lost_insert_reply_creates_one_job(bq, dags, dag_name, mode, requests):
    """BigQuery created the job; its reply was lost. A 503 (``lose_reply``): the policy looks the key up
    (``jobs.get``: it is the job id) and finds the job. A dropped connection (``reset``): google-cloud-bigquery's
    own retry resends the insert under the same job id, BigQuery answers 409, and the job is fetched. One job
    in the emulator's ledger either way."""
    bq.add_fault("jobs/insert", 503, mode=mode, count=1)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    ledger = bq.ledger()
    assert (ledger["requests"], ledger["created"], ledger["duplicates_detected"]) == (requests, 1, requests - 1)
    assert {i["job_id"] for i in ledger["inserts"]} == {store.get(dr, RECORD)["id"]}


def test_crash_inside_the_submit_window_finds_the_job(bq, dags):
    """Every insert reply of try 1 is lost after BigQuery created the job: the try ends with an intent and
    no id, as a worker killed inside the submit→persist window leaves it. Try 2 looks the key up (it is the
    job id) and reattaches: still one job."""
    bq.add_fault("jobs/insert", 503, mode="lose_reply", count=-1)
    bq.add_fault("jobs/get", 503, count=-1)

    dr = driver.start(dags.bq_sync)
    driver.drive(dags.bq_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and bq.ledger()["created"] == 1
    bq.clear_faults()
    dr = driver.drive(dags.bq_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert bq.ledger()["created"] == 1
    assert store.get(dr, RECORD)["id"] == job_id_for(intent["nonce"], "airflow_bq_sync_run")


# ------------------------------------------------------------------ failures
@pytest.mark.parametrize("dag_name", ["bq_fails", "bq_fails_deferrable"])
def test_a_failed_job_fails_with_the_official_text_and_the_retry_inserts_a_new_job(bq, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    ledger = bq.ledger()
    assert ledger["created"] == 2 and ledger["duplicates_detected"] == 0
    first, second = (i["job_id"] for i in ledger["inserts"])
    assert first != second and all(ledger["jobs"][j]["error"]["reason"] == "invalidQuery" for j in (first, second))


def test_a_retry_reattaches_to_a_running_job(bq, dags):
    """Try 1 ends while its job still runs (the status calls fail past the 5 s budget); try 2 reattaches.
    The 503s are the try's next four status reads, counted rather than timed: the backoff puts the fourth 6 s
    after the first (1 s, 2 s, then up to the budget and 1 s more), past the 5 s budget however slow the machine,
    and try 2 reads the job. (A window in seconds would have to outlast try 1's failures and yet end before try
    2's own budget: a few seconds of slack either way.)"""
    bq.configure(run_seconds=12)
    bq.add_fault("jobs/get", 503, count=4, skip=1)

    dr = driver.start(dags.bq_sync)
    driver.drive(dags.bq_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    dr = driver.drive(dags.bq_sync, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert bq.ledger()["created"] == 1


def test_force_rerun_false_returns_the_job_on_a_clear(bq, dags):
    dr = driver.run(dags.bq_keep)
    assert driver.task_result(dr, "run").state == "success"
    driver.clear(dr, ["run"])
    dr = driver.drive(dags.bq_keep, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert bq.ledger()["created"] == 1


def test_a_clear_inserts_a_new_job_by_default(bq, dags):
    dr = driver.run(dags.bq_sync)
    driver.clear(dr, ["run"])
    dr = driver.drive(dags.bq_sync, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert bq.ledger()["created"] == 2


# ------------------------------------------------------------------ the client, through both libraries
def test_client_status_cancel_and_listing(bq):
    client = BigQueryJobClient(location="US")
    bq.configure(run_seconds=30)
    ids = [client.submit({"configuration": {"query": {"query": f"SELECT {i}"}}}, job_id_for(new_nonce(), "t"))
           for i in range(4)]
    assert client.find(ids[0]) == ids[0] and client.find("t_" + "0" * 32) is None
    assert client.status(ids[0]).phase is JobPhase.ACTIVE
    bq.finish(ids[1])
    statuses = asyncio.run(client.astatuses(ids))
    assert statuses[ids[1]].state == "SUCCESS" and statuses[ids[0]].phase is JobPhase.ACTIVE
    assert bq.ledger()["calls"]["jobs/list"] == 2
    asyncio.run(client.acancel(ids[2]))  # gcloud-aio, as the official trigger cancels
    client.cancel(ids[3])  # google-cloud-bigquery, as the official operator cancels
    for job_id in ids[2:]:
        status = client.status(job_id)
        assert status.state == "FAILURE" and "cancelled" in status.message
    bq.forget(ids[0])
    assert client.status(ids[0]).phase is JobPhase.MISSING
    assert asyncio.run(client.astatus(ids[0])).phase is JobPhase.MISSING
    assert re.fullmatch(r"t_[0-9a-f]{32}", ids[0]) and bq.server_errors == []


def test_key_fits_bigquerys_job_id_rules():
    nonce = new_nonce()
    long = job_id_for(nonce, "p" * 2000)
    assert len(long) == 1024 and long.endswith(nonce)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", job_id_for(nonce, "airflow_dag-1_task_2"))


# ------------------------------------------------------------------ a user's kill
@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_job(bq, monkeypatch, state, cancelled):
    """The triggerer's own ``cancel_triggers`` ends our JobTrigger; its on_kill asks Airflow who killed it and
    cancels through gcloud-aio (the official trigger's client) only for a user's kill."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    bq.configure(run_seconds=60)
    client = BigQueryJobClient(location="US")
    job_id = client.submit({"configuration": {"query": {"query": "SELECT 1"}}}, job_id_for(new_nonce(), "k"))
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: bq.ledger()["calls"].get("jobs/get", 0) >= 2))

    assert supervisor.asked == 1
    assert bq.ledger()["calls"]["jobs/get"] >= 2
    if cancelled:
        assert bq.ledger()["cancels"] == [job_id] and client.status(job_id).state == "FAILURE"
    else:
        assert bq.ledger()["cancels"] == [] and client.status(job_id).phase is JobPhase.ACTIVE


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("running", False)])
def test_user_kill_of_a_polling_sync_task_cancels_the_job(bq, monkeypatch, state, cancelled):
    import threading

    from airflow.sdk.execution_time import task_runner

    from durable_jobs.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator, BigQueryJobError

    from .test_aws_kill import TI, FakeTI, Supervisor

    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", Supervisor(state), raising=False)
    bq.configure(run_seconds=60)  # still running when on_kill comes, however slow the worker's start
    op = BigQueryInsertJobOperator(task_id=TI.task_id, configuration={"query": {"query": "SELECT 1"}},
                                   location="US", poll_interval=0.1, durable=False)
    ti = FakeTI(**vars(TI), pushed={})
    outcome: list = []

    def work() -> None:
        try:
            outcome.append(op.execute({"ti": ti}))
        except BaseException as err:  # noqa: BLE001 - the test reads what the worker thread raised
            outcome.append(err)

    worker = threading.Thread(target=work)
    worker.start()
    while bq.ledger()["calls"].get("jobs/get", 0) < 3 and worker.is_alive():
        worker.join(0.05)
    [job_id] = bq.ledger()["jobs"]

    op.on_kill()  # as the Task SDK's signal handler does, while execute() polls
    if not cancelled:
        bq.finish(job_id)  # the job left running ends now

    worker.join(60)  # a poll or two (0.1 s apart); only a hang reaches this
    assert not worker.is_alive()
    if cancelled:
        assert isinstance(outcome[0], BigQueryJobError) and "cancelled" in str(outcome[0])
        assert bq.ledger()["cancels"] == [job_id]
    else:
        assert outcome == [job_id] and bq.ledger()["cancels"] == []  # infrastructure: left running, then success
    assert bq.ledger()["created"] == 1


# ------------------------------------------------------------------ the example DAG, as written
@pytest.mark.parametrize("lost_reply", [False, True], ids=["plain", "lost-reply"])
def test_example_dag_inserts_one_job(bq, lost_reply):
    dag = driver.load("google_bigquery", driver.EXAMPLES).dag
    task = dag.task_dict["merge_sales_daily"]
    task.poll_interval, task.retry_delay = 0.2, __import__("datetime").timedelta(0)
    bq.configure(run_seconds=1.0)
    if lost_reply:
        bq.add_fault("jobs/insert", 503, mode="reset", count=1)

    dr = driver.run(dag)

    assert driver.task_result(dr, "merge_sales_daily").state == "success"
    [insert] = [i for i in bq.ledger()["inserts"] if i["created"]]
    assert insert["job_id"].startswith(f"sales_daily_{dr.logical_date.strftime('%Y%m%d')}_")
    assert bq.ledger()["created"] == 1

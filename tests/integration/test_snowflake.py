"""Snowflake SQL API end to end: Airflow runs the DAGs, the official ``SnowflakeSqlApiHook`` (requests and
aiohttp) talks over loopback HTTP to the SQL API emulator, whose ledger counts every *execution*.

Every failure comes from the emulator (an injected status, a lost reply, a statement that fails), never
from patching our code. The only thing redirected is the host the official hook builds its URLs from
(``SnowflakeEmulator.routed``: ``https://<account>.snowflakecomputing.com`` becomes the emulator).
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.snowflake.clients.snowflake_sql_api import SnowflakeSqlApiJobClient, request_id

from . import driver, store

RECORD = "snowflake_query_ids_durable"
BARE = "snowflake_query_ids"


@pytest.fixture(scope="module")
def dags():
    return driver.load("snowflake_scenarios")


@pytest.fixture
def sf(snowflake_emulator, monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "5")
    return snowflake_emulator


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def executed(sf) -> list[dict]:
    return [s for s in sf.ledger()["submits"] if s["executed"]]


# ------------------------------------------------------------------ happy paths
@pytest.mark.parametrize("dag_name", ["sf_sync", "sf_deferrable"])
def test_success_sends_the_key_as_request_id(sf, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    [submit] = sf.ledger()["submits"]
    assert submit["executed"] and not submit["retry"]
    assert submit["request_id"] == str(uuid.UUID(hex=record["nonce"]))  # the nonce, as the UUID Snowflake wants
    assert record["id"] == submit["handles"] and record["status"] == "SUCCEEDED"
    assert store.get(dr, BARE) == submit["handles"]  # where the official operator keeps its handles
    pushed = xcoms(dr)
    assert pushed["query_ids"] == submit["handles"] and pushed.get("return_value") is None
    ds = dr.logical_date.strftime("%Y-%m-%d")
    assert submit["statement"] == f"INSERT INTO sales_daily SELECT * FROM sales_staging WHERE day = '{ds}'"
    assert sf.ledger()["calls"]["statements/status"] >= 1 and sf.server_errors == []


@pytest.mark.parametrize("dag_name", ["sf_batch", "sf_batch_deferrable"])
def test_a_statement_batch_is_one_job(sf, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    ledger = sf.ledger()
    assert (ledger["executions"], ledger["statements_executed"]) == (1, 4)
    [handle] = store.get(dr, RECORD)["id"]
    assert len(ledger["statements"][handle]["children"]) == 4


def test_notebook_operator_runs_execute_notebook_once(sf, dags):
    dr = driver.run(dags.sf_notebook)

    assert driver.task_result(dr, "run").state == "success"
    [submit] = sf.ledger()["submits"]
    ds = dr.logical_date.strftime("%Y-%m-%d")
    assert submit["statement"] == f"EXECUTE NOTEBOOK ANALYTICS.PUBLIC.DAILY_REPORT('{ds}', 'it''s')"


@pytest.mark.parametrize(("dag_name", "conn_id", "auth", "kind"), [
    ("sf_keypair", "snowflake_keypair", "keypair", "KEYPAIR_JWT"),
    ("sf_oauth", "snowflake_oauth", "oauth", "OAUTH"),
])
def test_key_pair_jwt_and_oauth_connections(sf, dags, monkeypatch, dag_name, conn_id, auth, kind):
    for name, value in sf.airflow_conn_env(conn_id, auth=auth).items():
        monkeypatch.setenv(name, value)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    assert set(sf.ledger()["tokens_seen"]) == {kind}


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["sf_sync", "sf_deferrable", "sf_batch_deferrable"])
def test_lost_submit_reply_executes_the_statements_once(sf, dags, dag_name):
    """Snowflake executed the request; its reply was lost. The resend carries the same requestId with
    retry=true and gets the original statement back: one execution in the emulator's ledger."""
    sf.add_fault("statements", 500, mode="lose_reply", count=1)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    ledger = sf.ledger()
    first, again = ledger["submits"]
    assert (ledger["requests"], ledger["executions"], ledger["duplicates_detected"]) == (2, 1, 1)
    assert first["request_id"] == again["request_id"] and (first["retry"], again["retry"]) == (False, True)
    assert again["handles"] == first["handles"]
    # the handed-back reply names the request's handle, or, once a batch is done, its statements' handles
    [handle] = first["handles"]
    assert store.get(dr, RECORD)["id"] in ([handle], ledger["statements"][handle]["children"])


def test_crash_inside_the_submit_window_resends_the_same_request_id(sf, dags):
    """Every reply of try 1 is lost after Snowflake executed the request: the try ends with an intent
    and no id, as a worker killed inside the submit→persist window leaves it. Try 2 has nothing to look
    up (no lookup by requestId) and resends it with retry=true: the same statement comes back."""
    sf.add_fault("statements", 500, mode="lose_reply", count=-1)

    dr = driver.start(dags.sf_sync)
    driver.drive(dags.sf_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and sf.ledger()["executions"] == 1  # the window: executed, no id
    sf.clear_faults()
    dr = driver.drive(dags.sf_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    ledger = sf.ledger()
    assert ledger["executions"] == 1 and ledger["requests"] >= 3
    assert {s["request_id"] for s in ledger["submits"]} == {str(uuid.UUID(hex=intent["nonce"]))}
    assert store.get(dr, RECORD)["id"] == ledger["submits"][0]["handles"]


@pytest.mark.parametrize("dag_name", ["sf_official", "sf_official_deferrable"])
def test_official_operator_executes_again_after_a_lost_reply(sf, dags, dag_name):
    """The control: the official hook sends a new uuid4 requestId per call and never retry=true, so the
    retry after a lost reply executes the statement a second time."""
    sf.add_fault("statements", 500, mode="lose_reply", count=1)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    ledger = sf.ledger()
    assert ledger["executions"] == 2 and ledger["duplicates_detected"] == 0
    assert len({s["request_id"] for s in ledger["submits"]}) == 2


def test_throttled_submit_is_resent_with_the_same_request_id(sf, dags):
    sf.add_fault("statements", 429, count=2, retry_after=0)

    dr = driver.run(dags.sf_sync)

    assert driver.task_result(dr, "run").try_number == 1
    ledger = sf.ledger()
    assert ledger["calls"]["statements"] == 3 and ledger["executions"] == 1


# ------------------------------------------------------------------ failures and retries
@pytest.mark.parametrize("dag_name", ["sf_fails", "sf_fails_deferrable"])
def test_failed_statement_fails_with_the_official_text_and_the_retry_executes_anew(sf, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = executed(sf)
    assert first["request_id"] != second["request_id"]  # a new epoch: a new requestId
    out = capfd.readouterr()
    assert "error: SQL compilation error: statement failed: SELECT fail FROM nowhere" in out.out + out.err


@pytest.mark.parametrize("dag_name", ["sf_sync", "sf_deferrable"])
def test_retry_reconnects_to_the_running_statement(sf, dags, dag_name):
    """Try 1 fails while the statement runs (its status calls are refused: 401); the retry reconnects."""
    sf.configure(run_seconds=3.0)
    sf.add_fault("statements/status", 401, count=1)
    dag = getattr(dags, dag_name)
    dr = driver.start(dag)
    driver.drive(dag, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry"

    dr = driver.drive(dag, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert sf.ledger()["executions"] == 1


def test_handles_stored_by_the_official_operator_are_reconnected_to(sf, dags):
    """A retry of ours after the official operator's try: its bare list of handles is a legacy record."""
    client = SnowflakeSqlApiJobClient()
    handles = client.submit({"sql": "INSERT INTO t VALUES (1)", "statement_count": 1}, str(uuid.uuid4()))
    dr = driver.start(dags.sf_sync)
    store.put(dr, BARE, handles)

    dr = driver.drive(dags.sf_sync, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert sf.ledger()["executions"] == 1 and xcoms(dr)["query_ids"] == handles


# ------------------------------------------------------------------ the client against the emulator's rules
def test_request_id_is_the_nonce_as_a_uuid_and_a_user_token_is_combined_deterministically():
    nonce = new_nonce()
    assert uuid.UUID(request_id(nonce)).hex == nonce
    combined = request_id(nonce, "nightly")
    assert combined == request_id(nonce, "nightly") != request_id(nonce, "other") and uuid.UUID(combined)


def test_status_aggregates_the_handles_missing_and_cancel(sf):
    client = SnowflakeSqlApiJobClient()
    sf.configure(run_seconds=30)
    running = client.submit({"sql": "SELECT 1", "statement_count": 1}, str(uuid.uuid4()))
    sf.configure(run_seconds=0)
    done = client.submit({"sql": "SELECT 2", "statement_count": 1}, str(uuid.uuid4()))
    failed = client.submit({"sql": "SELECT fail", "statement_count": 1}, str(uuid.uuid4()))

    assert client.status(done).phase is JobPhase.SUCCEEDED
    assert client.status(running + done).phase is JobPhase.ACTIVE
    assert client.status(running + failed).phase is JobPhase.FAILED
    assert asyncio.run(client.astatus(done + running)).state == "running"
    sf.forget(done[0])
    assert client.status(done).phase is JobPhase.MISSING
    assert asyncio.run(client.astatus(done)).phase is JobPhase.MISSING

    client.cancel(running + failed)

    assert sf.ledger()["cancels"] == running + failed
    status = client.status(running)
    assert status.phase is JobPhase.FAILED and "canceled" in status.message


def test_a_resend_without_retry_true_executes_again_in_the_emulator(sf):
    """The emulator's strict reading (docs/emulators/snowflake.md): only retry=true marks a resend."""
    client = SnowflakeSqlApiJobClient()
    key = str(uuid.uuid4())
    first = client.submit({"sql": "SELECT 1", "statement_count": 1}, key)
    again = client.submit({"sql": "SELECT 1", "statement_count": 1}, key)  # this client sent it: retry=true
    other = SnowflakeSqlApiJobClient().submit({"sql": "SELECT 1", "statement_count": 1}, key)  # no retry flag

    assert first == again != other
    assert sf.ledger()["executions"] == 2 and sf.ledger()["duplicates_detected"] == 1


def test_example_dag_runs_as_written_and_survives_a_lost_reply(sf):
    from datetime import timedelta

    dag = driver.load("snowflake_sql_api", driver.EXAMPLES).dag
    task = dag.task_dict["load_sales_daily"]
    task.poll_interval, task.retry_delay = 0.2, timedelta(0)  # only the timings are shortened
    sf.add_fault("statements", 500, mode="lose_reply", count=1)

    dr = driver.run(dag)

    result = driver.task_result(dr, "load_sales_daily")
    assert (result.state, result.try_number) == ("success", 1)
    ledger = sf.ledger()
    assert (ledger["executions"], ledger["statements_executed"], ledger["duplicates_detected"]) == (1, 4, 1)


def test_a_request_id_that_is_not_a_uuid_is_refused(sf):
    import requests

    with pytest.raises(requests.HTTPError, match="400"):
        SnowflakeSqlApiJobClient().submit({"sql": "SELECT 1", "statement_count": 1}, "not-a-uuid")
    assert sf.ledger()["executions"] == 0


# ------------------------------------------------------------------ kills: a user's cancels, an eviction's does not
@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_every_handle(sf, monkeypatch, state, cancelled):
    """The triggerer's own ``cancel_triggers`` ends our JobTrigger; its on_kill asks Airflow who killed it."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    sf.configure(run_seconds=60)
    client = SnowflakeSqlApiJobClient()
    handles = client.submit({"sql": "SELECT 1; SELECT 2", "statement_count": 2}, str(uuid.uuid4()))
    handles += client.submit({"sql": "SELECT 3", "statement_count": 1}, str(uuid.uuid4()))
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=handles,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: sf.ledger()["calls"].get("statements/status", 0) >= 2))

    assert supervisor.asked == 1
    ledger = sf.ledger()
    assert ledger["calls"]["statements/status"] >= 2  # the trigger polled through aiohttp
    if cancelled:
        assert ledger["cancelled_running"] == handles and client.status(handles).phase is JobPhase.FAILED
    else:
        assert ledger["cancels"] == [] and client.status(handles).phase is JobPhase.ACTIVE  # a move: left running


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("running", False)])
def test_user_kill_of_a_polling_sync_task_cancels_the_statements(sf, monkeypatch, state, cancelled):
    import threading

    from airflow.sdk.execution_time import task_runner

    from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator, SnowflakeStatementError

    from .test_aws_kill import TI, FakeTI, Supervisor

    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", Supervisor(state), raising=False)
    sf.configure(run_seconds=60)  # still running when on_kill comes, however slow the worker's start
    op = SnowflakeSqlApiOperator(task_id=TI.task_id, sql="INSERT INTO t VALUES (1)", statement_count=1,
                                 poll_interval=0.1, durable=False)
    ti = FakeTI(**vars(TI), pushed={})
    outcome: list = []

    def work() -> None:
        try:
            outcome.append(op.execute({"ti": ti}))
        except BaseException as err:  # noqa: BLE001 - the test reads what the worker thread raised
            outcome.append(err)

    worker = threading.Thread(target=work)
    worker.start()
    while sf.ledger()["calls"].get("statements/status", 0) < 3 and worker.is_alive():
        worker.join(0.05)

    op.on_kill()  # as the Task SDK's signal handler does, while execute() polls
    if not cancelled:
        sf.advance(60)  # the statement left running ends now

    worker.join(60)  # a poll or two (0.1 s apart); only a hang reaches this
    assert not worker.is_alive()
    if cancelled:
        assert isinstance(outcome[0], SnowflakeStatementError) and "SQL execution canceled" in str(outcome[0])
        assert sf.ledger()["cancelled_running"] == ti.pushed["query_ids"]
    else:
        assert outcome == [None] and sf.ledger()["cancels"] == []  # infrastructure: left running, then success
    assert sf.ledger()["executions"] == 1


# ------------------------------------------------------------------ switching the import while deferred
def first_event(trigger) -> dict:
    """The first event a trigger fires (run in this thread's own event loop)."""

    async def first():
        async for event in trigger.run():
            return dict(event.payload)

    return asyncio.run(first())


def test_a_task_deferred_by_the_official_operator_resumes_with_ours(sf):
    from airflow.providers.snowflake.triggers.snowflake_trigger import SnowflakeSqlApiTrigger

    from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

    from .test_aws_kill import TI, FakeTI

    sf.configure(run_seconds=0.3)
    handles = SnowflakeSqlApiJobClient().submit({"sql": "SELECT 1", "statement_count": 1}, str(uuid.uuid4()))
    trigger = SnowflakeSqlApiTrigger(poll_interval=0.1, query_ids=handles, snowflake_conn_id="snowflake_default",
                                     token_life_time=SnowflakeSqlApiOperator.LIFETIME,
                                     token_renewal_delta=SnowflakeSqlApiOperator.RENEWAL_DELTA)

    event = first_event(trigger)  # the official trigger, polling the emulator through aiohttp
    assert event == {"status": "success", "statement_query_ids": handles}
    op = SnowflakeSqlApiOperator(task_id="run", sql="SELECT 1", statement_count=1, deferrable=True, durable=False)
    ti = FakeTI(**vars(TI), pushed={})

    assert op.execute_complete({"ti": ti}, event) is None
    assert ti.pushed["query_ids"] == handles and sf.ledger()["executions"] == 1
    with pytest.raises(RuntimeError, match="error: boom"):  # the official trigger's error event names no handles
        op.execute_complete({"ti": ti}, {"status": "error", "message": "boom"})


def test_a_task_deferred_by_ours_resumes_with_the_official_operator(sf):
    from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator as Official

    from durable_jobs.core.trigger import JobTrigger
    from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

    sf.configure(run_seconds=0.3)
    ours = SnowflakeSqlApiOperator(task_id="run", sql="SELECT 1", statement_count=1, deferrable=True)
    client = ours.job_client
    handles = client.submit({"sql": "SELECT 1", "statement_count": 1}, str(uuid.uuid4()))
    event = first_event(JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(),
                                   job_id=handles, poll_interval=0.1, jitter=0.0))
    official = Official(task_id="run", sql="SELECT 1", statement_count=1, deferrable=True)
    gets = sf.ledger()["calls"]["statements/status"]

    assert official.execute_complete({}, event) is None
    assert official.query_ids == handles
    assert sf.ledger()["calls"]["statements/status"] == gets + 1  # its check_query_output read the result


def test_the_official_operator_reads_our_failed_event_as_a_failure(sf):
    """Switched back while our trigger waits on a batch that then fails: the official ``execute_complete``
    raises only on ``status: "error"``, which our event carries for it (ours reads ``durable_status``)."""
    from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator as Official

    from durable_jobs.core.trigger import EVENT_FAILED, JobTrigger
    from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

    ours = SnowflakeSqlApiOperator(task_id="run", sql="SELECT fail", statement_count=1, deferrable=True)
    client = ours.job_client
    handles = client.submit({"sql": "SELECT fail", "statement_count": 1}, str(uuid.uuid4()))
    event = first_event(JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(),
                                   job_id=handles, poll_interval=0.1, jitter=0.0))
    assert (event["status"], event["durable_status"]) == ("error", EVENT_FAILED)
    official = Official(task_id="run", sql="SELECT fail", statement_count=1, deferrable=True)
    with pytest.raises(RuntimeError, match="^error: .*statement failed"):
        official.execute_complete({}, event)
    with pytest.raises(RuntimeError, match="statement failed"):  # and ours still reads it as failed
        ours.execute_complete({"ti": None}, event)

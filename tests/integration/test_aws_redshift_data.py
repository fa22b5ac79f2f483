"""Amazon Redshift Data API ``RedshiftDataOperator`` end to end: Airflow runs the DAGs, moto (server mode, behind
our fault proxy) runs the statements.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from a statement whose SQL holds the
emulator's ``fail()`` marker, never from patching our code. moto gaps covered by our rule layer rather than
skipped (``aws_moto.MOTO_GAPS``): ``redshift-data-client-token`` (moto ignores the token),
``redshift-data-life-cycle`` (moto's statements never end), ``redshift-data-batch-execute-statement`` and
``redshift-data-sessions``.
"""

from __future__ import annotations

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.redshift_data import RedshiftDataJobClient
from durable_jobs.testing.emulators.aws_moto import MOTO_GAPS, REDSHIFT_DATA_MODEL

from . import driver, store

RECORD = "redshift_statement_id_durable"
EXECUTE = "redshift-data:ExecuteStatement"
BATCH = "redshift-data:BatchExecuteStatement"
DESCRIBE = "redshift-data:DescribeStatement"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_redshift_data_scenarios")


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def created(aws, op: str = EXECUTE) -> list[dict]:
    return aws.proxy.jobs_created(op)


def describe(aws, statement_id: str) -> dict:
    return aws.client("redshift-data", direct=True).describe_statement(Id=statement_id)


# ------------------------------------------------------------------ happy paths
def test_sync_success_sends_the_key_as_client_token_and_returns_the_statement_id(aws, dags):
    dr = driver.run(dags.rsd_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [entry] = created(aws)
    record = store.get(dr, RECORD)
    assert record["id"] == entry["id"] and record["status"] == "SUCCEEDED"
    assert entry["token"] == record["nonce"]  # the epoch's key is the ClientToken
    assert store.get(dr, "redshift_statement_id") == entry["id"]  # the bare id, where upstream keeps it
    statement = describe(aws, entry["id"])
    assert statement["Status"] == "FINISHED" and "{{" not in statement["QueryString"]  # rendered template
    assert xcoms(dr)["return_value"] == [entry["id"]]  # upstream's return value: the statement ids
    assert "session_id" not in xcoms(dr)


def test_deferrable_waits_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(DESCRIBE, REDSHIFT_DATA_MODEL)

    dr = driver.run(dags.rsd_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [entry] = created(aws)
    assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED"
    assert xcoms(dr)["return_value"] == [entry["id"]]


def test_batch_returns_each_sub_statements_result(aws, dags):
    dr = driver.run(dags.rsd_batch)

    assert driver.task_result(dr, "run").state == "success"
    assert created(aws, EXECUTE) == []
    [entry] = created(aws, BATCH)
    assert entry["token"] == store.get(dr, RECORD)["nonce"]
    results = xcoms(dr)["return_value"]
    assert len(results) == 2 and all("Records" in r for r in results)  # GetStatementResult per sub-statement
    subs = [s["Id"] for s in describe(aws, entry["id"])["SubStatements"]]
    assert subs == [f"{entry['id']}:1", f"{entry['id']}:2"]


def test_session_id_is_pushed_as_upstream(aws, dags):
    dr = driver.run(dags.rsd_session)

    assert driver.task_result(dr, "run").state == "success"
    [entry] = created(aws)
    session = describe(aws, entry["id"])["SessionId"]
    assert session and xcoms(dr)["session_id"] == session


def test_wait_for_completion_false_returns_once_the_statement_is_accepted(aws, dags):
    aws.moto.hold(REDSHIFT_DATA_MODEL)

    dr = driver.run(dags.rsd_no_wait)

    assert driver.task_result(dr, "run").state == "success"
    [entry] = created(aws)
    assert describe(aws, entry["id"])["Status"] == "SUBMITTED"
    assert store.get(dr, RECORD)["id"] == entry["id"] and xcoms(dr)["return_value"] == [entry["id"]]


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["rsd_sync", "rsd_deferrable"])
def test_lost_execute_statement_reply_gives_one_statement(aws, dags, dag_name):
    """ExecuteStatement ran the statement; its reply was lost; the resend under the same ClientToken (botocore's
    retry: the token makes it safe, so the submit keeps the SDK's retries) gets the same statement back."""
    aws.proxy.fault(EXECUTE, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert aws.proxy.calls[EXECUTE] == 2 and len({e["id"] for e in created(aws)}) == 1
    assert store.get(dr, RECORD)["id"] == created(aws)[0]["id"]


def test_crash_inside_the_submit_window_gives_one_statement(aws, dags, monkeypatch):
    """Every reply to ExecuteStatement is lost after the Data API ran the statement: try 1 ends with an intent
    and no id, as a worker killed inside the submit→persist window leaves it. Try 2 resends the same request
    under the same ClientToken and gets the same statement: still one."""
    # try 1 resends (1 s after the first loss) until its budget is spent: 10 s, not the default 600 s
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "10")
    aws.proxy.fault(EXECUTE, mode="lose_reply", status=500, count=-1)
    aws.moto.hold(REDSHIFT_DATA_MODEL)

    dr = driver.start(dags.rsd_one_resend)
    driver.drive(dags.rsd_one_resend, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and aws.proxy.calls[EXECUTE] >= 2
    aws.proxy.clear()
    aws.moto.progress()
    dr = driver.drive(dags.rsd_one_resend, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    ids = {e["id"] for e in created(aws)}
    assert len(ids) == 1 and {e["token"] for e in created(aws)} == {intent["nonce"]}
    assert store.get(dr, RECORD)["id"] in ids


def test_official_operator_is_protected_by_botocores_token_only_within_one_call(aws, dags):
    """The control: botocore fills in ClientToken (an idempotencyToken member) and reuses it on its own retry of
    a lost reply, so the official operator also gets one statement here. A new try (a crash) draws a new token
    and a second statement: that is the crash matrix's REDSHIFT-DATA-W2 row."""
    aws.proxy.fault(EXECUTE, mode="lose_reply", status=500)

    driver.run(dags.rsd_official)

    assert aws.proxy.calls[EXECUTE] == 2 and len({e["id"] for e in created(aws)}) == 1
    [token] = {e["token"] for e in created(aws)}
    assert token and len(token) == 36  # botocore's uuid4


# ------------------------------------------------------------------ failures, retries
@pytest.mark.parametrize("dag_name", ["rsd_fails", "rsd_fails_deferrable"])
def test_failed_statement_fails_with_the_official_error_and_the_retry_runs_a_new_one(aws, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = created(aws)
    assert first["id"] != second["id"] and first["token"] != second["token"]  # a new epoch, a new token
    assert describe(aws, first["id"])["Status"] == "FAILED"
    out = capfd.readouterr()
    assert "RedshiftDataQueryFailedError" in out.out + out.err
    assert f"Statement {second['id']} terminated with status FAILED" in out.out + out.err
    assert store.get(dr, RECORD)["status"] == "FAILED"


def test_real_retry_reconnects_to_the_running_statement(aws, dags):
    """Try 1 fails while its statement runs (DescribeStatement refused: an expired session token); the retry
    reconnects to the statement instead of running it again."""
    aws.moto.hold(REDSHIFT_DATA_MODEL)
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.rsd_sync)
    driver.drive(dags.rsd_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired
    aws.hold_for(0.5, REDSHIFT_DATA_MODEL)

    dr = driver.drive(dags.rsd_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    [entry] = created(aws)
    assert xcoms(dr)["return_value"] == [entry["id"]]  # upstream returns None on reconnect; we return the ids


def test_switching_from_the_official_operator_reconnects_to_its_statement(aws, dags):
    """The official operator (its ``ResumableJobMixin``) stores the bare statement id once ExecuteStatement
    answered; its try fails while the statement runs (DescribeStatement refused). The import is switched to ours:
    the retry reads the bare id as a legacy record and reconnects instead of running the statement again."""
    aws.moto.hold(REDSHIFT_DATA_MODEL)
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.rsd_official_switch)
    driver.drive(dags.rsd_official_switch, dr, max_tries=1)
    [entry] = created(aws)
    assert driver.task_result(dr, "run").state == "up_for_retry" and store.get(dr, RECORD) is None
    assert store.get(dr, "redshift_statement_id") == entry["id"]
    refused.count = refused.fired
    aws.hold_for(0.5, REDSHIFT_DATA_MODEL)

    dr = driver.drive(dags.rsd_switch, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert len(created(aws)) == 1 and xcoms(dr)["return_value"] == [entry["id"]]


# ------------------------------------------------------------------ the client against the gap rules
def test_same_token_returns_the_same_statement_and_the_client_reads_every_state(aws):
    """MOTO_GAPS['redshift-data-client-token'] and ['redshift-data-life-cycle'], through the official hook."""
    assert {"redshift-data-client-token", "redshift-data-life-cycle"} <= set(MOTO_GAPS)
    client = RedshiftDataJobClient()
    request = {"ClusterIdentifier": "durable-cluster", "Database": "dev", "DbUser": "airflow", "Sql": "SELECT 1"}
    key = "0123456789abcdef0123456789abcdef"
    aws.moto.hold(REDSHIFT_DATA_MODEL)
    first = client.submit(request, key)
    assert client.submit(request, key) == first and aws.proxy.calls[EXECUTE] == 2 and len(created(aws)) == 1
    assert client.find(key) is None  # no lookup by token: the protocol resends the token instead
    assert client.status(first).phase is JobPhase.ACTIVE
    client.cancel(first)
    assert (client.status(first).phase, client.status(first).state) == (JobPhase.FAILED, "ABORTED")
    assert client.status("00000000-0000-4000-8000-000000000000").phase is JobPhase.MISSING
    aws.moto.finish(REDSHIFT_DATA_MODEL)
    failing = client.submit({**request, "Sql": "SELECT fail()"}, "f" * 32)
    status = client.status(failing)
    assert (status.phase, status.state) == (JobPhase.FAILED, "FAILED") and "fail()" in status.message

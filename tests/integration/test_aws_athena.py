"""Amazon Athena end to end: Airflow runs the DAGs, moto (server mode, behind our fault proxy) runs the queries.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from a query that fails in
moto, never from patching our code. moto gaps covered by our rule layer rather than skipped
(``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``): ``athena-client-request-token`` (moto ignores the
token), ``athena-life-cycle`` (moto's queries never fail), ``athena-stop-query-execution``,
``athena-unknown-id`` and ``athena-batch-get-query-execution``.
"""

from __future__ import annotations

import asyncio

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.athena import BATCH_GET_LIMIT, AthenaJobClient
from durable_jobs.testing.emulators.aws_env import ATHENA_WORKGROUP
from durable_jobs.testing.emulators.aws_moto import MOTO_GAPS

from . import driver, store

RECORD = "athena_query_execution_id_durable"
START = "athena:StartQueryExecution"
GET = "athena:GetQueryExecution"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_scenarios")


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def tokens(aws) -> list[str | None]:
    """The ClientRequestToken of each query AWS created, as the proxy saw the StartQueryExecution."""
    return [entry["token"] for entry in aws.proxy.jobs_created(START)]


# ------------------------------------------------------------------ happy paths
def test_sync_success_sends_the_key_as_client_request_token(aws, dags):
    dr = driver.run(dags.athena_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [query] = aws.athena_queries()
    record = store.get(dr, RECORD)
    assert record["id"] == query["QueryExecutionId"] and record["status"] == "SUCCEEDED"
    assert store.get(dr, "athena_query_execution_id") == query["QueryExecutionId"]
    assert tokens(aws) == [record["nonce"]] and len(record["nonce"]) == 32  # Athena's minimum length
    assert query["QueryExecutionContext"] == {"Database": "analytics", "Catalog": "AwsDataCatalog"}
    assert query["WorkGroup"] == ATHENA_WORKGROUP and query["Status"]["State"] == "SUCCEEDED"
    pushed = xcoms(dr)
    assert pushed["return_value"] == query["QueryExecutionId"]
    assert pushed["_athena_query_results"]["query_execution_id"] == query["QueryExecutionId"]


def test_deferrable_polls_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(GET)

    dr = driver.run(dags.athena_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [query] = aws.athena_queries()
    assert aws.proxy.async_calls.get(GET, 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED"
    assert xcoms(dr)["return_value"] == query["QueryExecutionId"]


def test_output_location_and_catalog_reach_the_request_as_the_official_operator_sends_them(aws, dags):
    dr = driver.run(dags.athena_output)

    assert driver.task_result(dr, "run").state == "success"
    [query] = aws.athena_queries()
    assert query["WorkGroup"] == "primary"
    assert query["ResultConfiguration"]["OutputLocation"].startswith("s3://durable-athena-results/adhoc/")


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["athena_sync", "athena_deferrable"])
def test_lost_start_reply_gives_one_query(aws, dags, dag_name):
    """StartQueryExecution created the query; its reply was lost; the resend under the same token
    gets the same query back (AWS's rule, MOTO_GAPS['athena-client-request-token'])."""
    aws.proxy.fault(START, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert len(aws.athena_queries()) == 1 and len(aws.proxy.jobs_created(START)) == 1
    assert aws.proxy.calls[START] == 2  # resent once, under the same token
    assert store.get(dr, RECORD)["id"] == aws.athena_queries()[0]["QueryExecutionId"]


def test_crash_inside_the_submit_window_resends_the_same_token(aws, dags, monkeypatch):
    """Try 1's reply is lost after AWS created the query and its fault budget is spent at once: the try ends
    with an intent and no id, as a worker killed inside the submit→persist window leaves it. Try 2 finds
    nothing to look up (Athena has no lookup by token) and resends the same token: the same query comes back."""
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "0")  # try 1 gives up after its first submit
    aws.proxy.fault(START, mode="lose_reply", status=500, count=1)

    dr = driver.start(dags.athena_sync)
    driver.drive(dags.athena_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and len(aws.athena_queries()) == 1  # the window: a query, no id
    dr = driver.drive(dags.athena_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    [query] = aws.athena_queries()
    record = store.get(dr, RECORD)
    assert record["nonce"] == intent["nonce"] and record["id"] == query["QueryExecutionId"]
    assert len(aws.proxy.jobs_created(START)) == 1 and aws.proxy.calls[START] == 2


def test_official_operator_is_protected_by_botocores_token_only_within_one_call(aws, dags):
    """The control: botocore generates a ClientRequestToken per call and reuses it on its own retry of a
    lost reply, so the official operator also gets one query here. A *new try* (a crash) draws a new
    token and a second query: that is the crash matrix's ATHENA-W2 row."""
    aws.proxy.fault(START, mode="lose_reply", status=500)

    driver.run(dags.athena_official)

    assert len(aws.athena_queries()) == 1 and aws.proxy.calls[START] == 2
    [token] = tokens(aws)
    assert token and len(token) == 36  # botocore's uuid4


def test_throttled_start_is_resent(aws, dags):
    aws.proxy.throttle(START, count=2)

    dr = driver.run(dags.athena_sync)

    assert driver.task_result(dr, "run").try_number == 1
    assert len(aws.athena_queries()) == 1 and aws.proxy.calls[START] == 3


# ------------------------------------------------------------------ failures and retries
@pytest.mark.parametrize("dag_name", ["athena_fails", "athena_fails_deferrable"])
def test_failed_query_fails_with_the_official_message_and_the_retry_makes_a_new_query(aws, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = aws.athena_queries()
    assert first["Status"]["State"] == second["Status"]["State"] == "FAILED"
    assert len(set(tokens(aws))) == 2  # a new epoch: a new token, so Athena makes a new query
    out = capfd.readouterr()
    text = out.out + out.err
    for query in (first, second):
        assert (f"Final state of Athena job is FAILED, query_execution_id is {query['QueryExecutionId']}. "
                "Error: GENERIC_USER_ERROR") in text


@pytest.mark.parametrize("dag_name", ["athena_sync", "athena_deferrable"])
def test_real_retry_reconnects_to_the_running_query(aws, dags, dag_name):
    """Try 1 fails while its query runs (the status calls are refused: an expired session token); the
    retry reconnects to the query instead of starting another."""
    dag = getattr(dags, dag_name)
    aws.moto.hold()
    refused = aws.proxy.fault(GET, status=400, code="ExpiredTokenException", skip=1, count=-1)
    dr = driver.start(dag)
    driver.drive(dag, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired  # the token is renewed
    aws.hold_for(1.0)

    dr = driver.drive(dag, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(aws.athena_queries()) == 1 and len(aws.proxy.jobs_created(START)) == 1


def test_user_token_is_combined_with_the_epoch_key(aws, dags):
    dr = driver.run(dags.athena_user_token)

    assert driver.task_result(dr, "run").state == "success"
    nonce = store.get(dr, RECORD)["nonce"]
    [token] = tokens(aws)
    assert token.startswith("nightly-report-") and token.endswith("-" + nonce) and 32 <= len(token) <= 128


def test_max_polling_attempts_fails_the_sync_wait_with_the_official_message(aws, dags, capfd):
    aws.moto.hold()  # the query stays QUEUED
    dag = dags.athena("aws_athena_sync", max_polling_attempts=2, retries=0)

    dr = driver.run(dag)

    assert driver.task_result(dr, "run").state == "failed"
    [query] = aws.athena_queries()
    # The official operator leaves the query running; on the last try ours does not leave an orphan: the
    # failure callback (durable_jobs/core/orphans.py) reads it still QUEUED and stops it, as the deferred wait does.
    assert query["Status"]["State"] == "CANCELLED"
    assert aws.proxy.calls.get(GET, 0) == 4  # two polls, the final read the message names, the callback's
    out = capfd.readouterr()
    assert (f"Final state of Athena job is QUEUED. Max tries of poll status exceeded, query_execution_id is "
            f"{query['QueryExecutionId']}.") in out.out + out.err


# ------------------------------------------------------------------ the client against AWS's rules
def test_client_request_token_returns_the_query_already_started(aws):
    """AWS's rule, which moto lacks (MOTO_GAPS['athena-client-request-token']); our rule layer supplies it."""
    assert "ignores StartQueryExecution's ClientRequestToken" in MOTO_GAPS["athena-client-request-token"]
    athena = aws.client("athena")
    request = {"QueryString": "SELECT 1", "WorkGroup": ATHENA_WORKGROUP}
    first = athena.start_query_execution(ClientRequestToken="a" * 32, **request)["QueryExecutionId"]
    again = athena.start_query_execution(ClientRequestToken="a" * 32, **request)["QueryExecutionId"]
    other = athena.start_query_execution(ClientRequestToken="b" * 32, **request)["QueryExecutionId"]
    assert first == again != other
    with pytest.raises(athena.exceptions.InvalidRequestException, match="Idempotent parameters do not match"):
        athena.start_query_execution(ClientRequestToken="a" * 32, **{**request, "QueryString": "SELECT 2"})


def test_status_of_an_unknown_query_is_missing_and_statuses_batch_fifty_ids_a_call(aws):
    client = AthenaJobClient()
    ids = [client.submit({"QueryString": f"SELECT {i}", "WorkGroup": ATHENA_WORKGROUP}, f"{i:032x}")
           for i in range(BATCH_GET_LIMIT + 5)]
    aws.moto.finish()

    async def statuses():
        try:
            return await client.astatuses([*ids, "no-such-query"])
        finally:
            await client.aclose()

    result = asyncio.run(statuses())

    assert {s.phase for i, s in result.items() if i != "no-such-query"} == {JobPhase.SUCCEEDED}
    assert result["no-such-query"].phase is JobPhase.MISSING
    assert client.status("no-such-query").phase is JobPhase.MISSING
    assert aws.proxy.async_calls["athena:BatchGetQueryExecution"] == 2  # 55 ids: 50 + 5 (+ the unknown one)
    assert aws.proxy.async_calls[GET] == 1  # only the id AWS left unprocessed is asked alone


def test_cancel_stops_an_active_query_and_leaves_a_finished_one(aws):
    client = AthenaJobClient()
    finished = client.submit({"QueryString": "SELECT 1", "WorkGroup": ATHENA_WORKGROUP}, "c" * 32)
    aws.moto.finish()
    assert client.status(finished).state == "SUCCEEDED"
    aws.moto.hold()
    running = client.submit({"QueryString": "SELECT 2", "WorkGroup": ATHENA_WORKGROUP}, "d" * 32)

    client.cancel(running)
    client.cancel(finished)

    assert client.status(running).state == "CANCELLED" and client.status(finished).state == "SUCCEEDED"

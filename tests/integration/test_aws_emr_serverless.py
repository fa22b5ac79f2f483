"""EMR Serverless end to end: Airflow runs the DAGs, moto (server mode, behind our fault proxy) runs the job runs.

moto gaps (``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``) covered by our rule layer rather than skipped:
``emr-serverless-client-token`` (moto ignores clientToken), ``emr-serverless-state-machine`` (moto's runs
are born SUCCESS) and ``emr-serverless-created-at`` (moto truncates createdAt to the day).
"""

from __future__ import annotations

import pytest

from durable_jobs.providers.amazon.aws.clients.base import KEY_TAG
from durable_jobs.providers.amazon.aws.clients.emr_serverless import EmrServerlessJobClient
from durable_jobs.testing.emulators.aws_env import ROLE_ARN
from durable_jobs.testing.emulators.aws_moto import MOTO_GAPS

from . import driver, store

RECORD = "emr_serverless_job_run_id_durable"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_scenarios")


def runs(aws) -> list[dict]:
    emr = aws.client("emr-serverless", direct=True)
    details = [emr.get_job_run(applicationId=aws.application_id, jobRunId=r["id"])["jobRun"] for r in aws.emr_runs()]
    return sorted(details, key=lambda r: r["createdAt"])


def request(aws, entry: str = "s3://b/etl.py") -> dict:
    return {"applicationId": aws.application_id, "executionRoleArn": ROLE_ARN, "name": "r",
            "jobDriver": {"sparkSubmit": {"entryPoint": entry}}}


def test_sync_success_uses_the_key_as_client_token_and_tag(aws, dags):
    dr = driver.run(dags.emr_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [run] = runs(aws)
    record = store.get(dr, RECORD)
    assert record["id"] == run["jobRunId"] and record["status"] == "SUCCEEDED"
    assert run["tags"][KEY_TAG] == record["nonce"] and run["state"] == "SUCCESS"


def test_deferrable_polls_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls("emr-serverless:GetJobRun")

    dr = driver.run(dags.emr_deferrable)

    assert driver.task_result(dr, "run").state == "success"
    assert len(runs(aws)) == 1
    assert aws.proxy.async_calls.get("emr-serverless:GetJobRun", 0) >= 1


def test_failed_run_is_retried_with_a_new_run_and_a_new_key(aws, dags):
    dr = driver.run(dags.emr_fails)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = runs(aws)
    assert first["state"] == second["state"] == "FAILED"
    assert first["tags"][KEY_TAG] != second["tags"][KEY_TAG]


def test_real_retry_reconnects_to_the_running_run(aws, dags):
    aws.hold_for(4.0)
    # an expired token is an auth fault: the try fails at once, the retry reconnects
    aws.proxy.fault("emr-serverless:GetJobRun", status=400, code="ExpiredTokenException", skip=1, count=1)
    dr = driver.run(dags.emr_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(runs(aws)) == 1


def test_user_token_is_combined_with_the_epoch_key(aws, dags):
    dr = driver.run(dags.emr_user_token)

    [run] = runs(aws)
    nonce = store.get(dr, RECORD)["nonce"]
    assert run["tags"][KEY_TAG].startswith("nightly-") and run["tags"][KEY_TAG].endswith(nonce)


def test_client_token_returns_the_run_already_started(aws):
    """What moto lacks (MOTO_GAPS['emr-serverless-client-token']) and our rule layer supplies; AWS's reference does
    not say what a used token answers, which the gap says."""
    gap = MOTO_GAPS["emr-serverless-client-token"]
    assert "ignores StartJobRun's clientToken" in gap and "not what a resend under a used token answers" in gap
    emr = aws.client("emr-serverless")
    first = emr.start_job_run(clientToken="t-1", **request(aws))["jobRunId"]
    again = emr.start_job_run(clientToken="t-1", **request(aws))["jobRunId"]
    other = emr.start_job_run(clientToken="t-2", **request(aws))["jobRunId"]

    assert first == again != other


@pytest.mark.parametrize("dag_name", ["emr_sync", "emr_deferrable"])
def test_lost_start_reply_gives_one_run(aws, dags, dag_name):
    aws.proxy.fault("emr-serverless:StartJobRun", mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").try_number == 1
    assert len(runs(aws)) == 1


def test_find_after_a_crash_inside_the_window(aws):
    client = EmrServerlessJobClient(application_id=aws.application_id)
    from durable_jobs.providers.amazon.aws.clients.base import utcnow

    since = utcnow()
    job_id = client.submit(request(aws), "c" * 32)

    assert client.find("c" * 32, since=since) == job_id
    assert client.find("d" * 32, since=since) is None


def test_missing_tag_permission_falls_back_to_the_client_token(aws, caplog):
    aws.proxy.deny("emr-serverless:StartJobRun", "emr-serverless:TagResource", count=1)
    client = EmrServerlessJobClient(application_id=aws.application_id)

    job_id = client.submit(request(aws), "e" * 32)

    [run] = runs(aws)
    assert run["jobRunId"] == job_id and KEY_TAG not in (run.get("tags") or {})
    assert "lacks emr-serverless:TagResource" in caplog.text
    assert client.submit(request(aws), "e" * 32) == job_id  # a same-key resend returns the same run


def test_sync_wait_stops_at_waiter_max_attempts_and_cancels_the_run(aws, dags):
    """The official waiter contract, through the mixin's ``max_polls``/``on_poll_limit`` hooks."""
    aws.moto.hold()  # the run stays RUNNING
    dag = dags.emr("aws_emr_sync", waiter_max_attempts=2, retries=0)
    try:
        dr = driver.run(dag)
    finally:
        aws.moto.progress()

    assert driver.task_result(dr, "run").state == "failed"
    [run] = runs(aws)
    assert run["state"] in ("CANCELLING", "CANCELLED")
    assert aws.proxy.calls.get("emr-serverless:CancelJobRun", 0) == 1

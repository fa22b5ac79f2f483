"""AWS Batch end to end: Airflow runs the DAGs, moto (in server mode, behind our fault proxy) runs the jobs.

Every failure is caused by the proxy (an AWS-shaped error, a lost reply, a lagging listing) or by
a job that fails in moto, never by patching our code. moto gaps relied on are named from
``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS`` where used.
"""

from __future__ import annotations

import pytest

from durable_jobs.providers.amazon.aws.clients.base import DEFAULT_CONSISTENCY_SECONDS, KEY_TAG
from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient
from durable_jobs.testing.emulators.aws_env import CONSISTENCY_ENV, JOB_QUEUE

from . import driver, store

RECORD = "batch_job_id_durable"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_scenarios")


def jobs(aws) -> list[dict]:
    """Every job moto holds, described (tags included), oldest first."""
    summaries = aws.batch_jobs()
    if not summaries:
        return []
    described = aws.client("batch", direct=True).describe_jobs(jobs=[s["jobId"] for s in summaries])["jobs"]
    return sorted(described, key=lambda j: j["createdAt"])


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


# ------------------------------------------------------------------ happy paths
def test_sync_success_tags_the_job_and_checkpoints(aws, dags):
    dr = driver.run(dags.batch_sync)

    result = driver.task_result(dr, "run")
    assert (dr.state, result.state, result.try_number) == ("success", "success", 1)
    [job] = jobs(aws)
    record = store.get(dr, RECORD)
    assert record["id"] == job["jobId"] and record["status"] == "SUCCEEDED"
    assert store.get(dr, "batch_job_id") == job["jobId"]  # the bare id, as the official operators store it
    assert job["jobName"] == f"nightly-etl-{record['nonce']}" and job["tags"][KEY_TAG] == record["nonce"]
    pushed = xcoms(dr)
    assert pushed["return_value"] == job["jobId"]
    assert {"batch_job_details", "batch_job_definition", "batch_job_queue"} <= set(pushed)


def test_deferrable_polls_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls("batch:DescribeJobs")

    dr = driver.run(dags.batch_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert len(jobs(aws)) == 1
    assert aws.proxy.async_calls.get("batch:DescribeJobs", 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED"


def test_user_tags_are_merged_with_the_key(aws, dags):
    dr = driver.run(dags.batch_tagged)

    [job] = jobs(aws)
    assert job["tags"] == {"team": "data", "cost-center": "42", KEY_TAG: store.get(dr, RECORD)["nonce"]}


def test_wait_for_completion_false_returns_the_id_after_a_checkpointed_submit(aws, dags):
    aws.moto.hold()
    dr = driver.run(dags.batch_nowait)

    [job] = jobs(aws)
    assert job["status"] in ("SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING")
    assert xcoms(dr)["return_value"] == job["jobId"]
    record = store.get(dr, RECORD)
    assert record["id"] == job["jobId"] and "status" not in record  # accepted, not succeeded


# ------------------------------------------------------------------ retries
@pytest.mark.parametrize("dag_name", ["batch_sync", "batch_deferrable"])
def test_real_retry_reconnects_to_the_running_job(aws, dags, dag_name):
    # An expired session token fails the poll: an auth fault, which fails the try at once on both
    # paths (durable_jobs.core.polling). Airflow retries; the retry must reconnect.
    aws.hold_for(4.0)
    aws.proxy.fault("batch:DescribeJobs", status=400, code="ExpiredTokenException", skip=2, count=1)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(jobs(aws)) == 1 and len(aws.proxy.jobs_created()) == 1
    assert xcoms(dr)["return_value"] == jobs(aws)[0]["jobId"]


@pytest.mark.parametrize("dag_name", ["batch_fails", "batch_fails_deferrable"])
def test_failed_job_is_retried_with_a_new_job_and_a_new_key(aws, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = jobs(aws)
    assert first["status"] == second["status"] == "FAILED"
    assert first["tags"][KEY_TAG] != second["tags"][KEY_TAG]
    assert store.get(dr, RECORD)["id"] == second["jobId"]


@pytest.mark.parametrize("dag_name", ["batch_sync", "batch_deferrable"])
def test_throttled_polling_is_retried_without_resubmitting(aws, dags, dag_name):
    aws.hold_for(1.5)
    aws.proxy.throttle("batch:DescribeJobs", count=2, skip=2)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert len(jobs(aws)) == 1
    assert len(aws.proxy.fired) == 2


def test_throttled_submit_is_resent_once_refused(aws, dags):
    aws.proxy.throttle("batch:SubmitJob", count=2)

    dr = driver.run(dags.batch_sync)

    assert driver.task_result(dr, "run").try_number == 1
    assert len(jobs(aws)) == 1 and aws.proxy.calls["batch:SubmitJob"] == 3


# ------------------------------------------------------------------ the lost reply
@pytest.mark.parametrize(("dag_name", "mode"), [("batch_sync", "lose_reply"), ("batch_deferrable", "reset")])
def test_lost_submit_reply_gives_one_job(aws, dags, dag_name, mode):
    aws.proxy.fault("batch:SubmitJob", mode=mode, status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert len(jobs(aws)) == 1
    assert aws.proxy.calls["batch:SubmitJob"] == 1  # found by key: never resent


def test_official_operator_duplicates_the_job_on_a_lost_reply(aws, dags):
    """What the durable operator prevents: botocore's own retry of SubmitJob makes a second job."""
    aws.proxy.fault("batch:SubmitJob", mode="lose_reply", status=500)

    driver.run(dags.batch_official)

    assert len(jobs(aws)) == 2


def _not_listed_yet(reply: dict) -> dict:
    reply["jobSummaryList"] = []
    return reply


def test_a_listing_that_has_not_caught_up_is_no_proof_of_absence(aws, dags, monkeypatch):
    # The listing lags by one scan, not by seconds: the first scan after the lost reply (the first ListJobs)
    # does not show the job, however late a loaded machine gets to it (a lag in seconds must outlast the time
    # from the job's creation to that scan). The product's default window costs nothing here: the scan ends
    # when it finds the job.
    monkeypatch.setenv(CONSISTENCY_ENV, str(DEFAULT_CONSISTENCY_SECONDS))
    aws.proxy.fault("batch:ListJobs", mode="rewrite", rewrite=_not_listed_yet, count=1)
    aws.proxy.fault("batch:SubmitJob", mode="lose_reply", status=500)

    dr = driver.run(dags.batch_sync)

    assert driver.task_result(dr, "run").state == "success"
    assert len(jobs(aws)) == 1
    assert aws.proxy.calls["batch:ListJobs"] >= 2  # re-scanned until the job showed up


def test_without_the_consistency_window_a_lagging_list_duplicates(aws):
    """The control for the test above, at the client level and through the protocol's resend loop (the client
    makes one attempt): no window, one scan that does not show the job yet, a second job."""
    from airflow.sdk import BaseOperator

    from durable_jobs.core.polling import PollPolicy
    from durable_jobs.core.resend import submit_once

    aws.proxy.fault("batch:ListJobs", mode="rewrite", rewrite=_not_listed_yet, count=1)
    aws.proxy.fault("batch:SubmitJob", mode="lose_reply", status=500, count=1)
    client = BatchJobClient(job_queue=JOB_QUEUE, job_name="n", consistency_seconds=0)
    request = {"jobName": "n", "jobQueue": JOB_QUEUE, "jobDefinition": "durable-job-def"}

    submit_once(client, request, "a" * 32, PollPolicy(interval=0.1), log=BaseOperator(task_id="t").log)

    assert aws.proxy.calls["batch:ListJobs"] == 1
    assert aws.proxy.calls["batch:SubmitJob"] == 2
    assert len(jobs(aws)) == 2


def test_lost_reply_and_a_failed_lookup_leave_the_retry_to_find_the_job(aws, dags):
    """Try 1 ends inside the window (the record holds the intent, no id); try 2 finds the job by key."""
    aws.proxy.fault("batch:SubmitJob", mode="lose_reply", status=500)
    aws.proxy.fault("batch:ListJobs", status=400, code="ExpiredTokenException")

    dr = driver.run(dags.batch_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    [job] = jobs(aws)
    assert aws.proxy.calls["batch:SubmitJob"] == 1
    assert store.get(dr, RECORD)["id"] == job["jobId"]


# ------------------------------------------------------------------ clears and edits
def test_clear_starts_fresh_with_a_new_key(aws, dags):
    dag = dags.batch_sync
    dr = driver.run(dag)
    first = store.get(dr, RECORD)["nonce"]

    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert len(jobs(aws)) == 2 and store.get(dr, RECORD)["nonce"] != first


def test_clear_reconnects_when_fresh_on_clear_is_off(aws, dags):
    dag = dags.batch_keep_on_clear
    dr = driver.run(dag)
    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert len(jobs(aws)) == 1


def test_changed_request_starts_fresh_and_names_the_field(aws, dags, capfd):
    aws.moto.hold()
    aws.proxy.fault("batch:DescribeJobs", status=400, code="ExpiredTokenException", skip=2)
    dag = dags.batch_sync
    dr = driver.start(dag)
    driver.drive(dag, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    aws.moto.progress()

    edited = dags.batch("aws_batch_sync", parameters={"day": "2026-01-02"})
    dr = driver.drive(edited, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(jobs(aws)) == 2
    out = capfd.readouterr()
    assert "request changed since the checkpoint (fields: parameters)" in out.out + out.err


# ------------------------------------------------------------------ tagging permission
def test_missing_tag_permission_falls_back_to_the_name(aws, dags, caplog):
    aws.proxy.deny("batch:SubmitJob", "batch:TagResource", count=1)

    dr = driver.run(dags.batch_sync)

    assert driver.task_result(dr, "run").state == "success"
    [job] = jobs(aws)
    assert KEY_TAG not in (job.get("tags") or {})
    assert job["jobName"].endswith(store.get(dr, RECORD)["nonce"])
    assert "lacks batch:TagResource" in caplog.text


def test_missing_tag_permission_with_user_tags_names_the_permission(aws, dags, capfd):
    aws.proxy.deny("batch:SubmitJob", "batch:TagResource")

    dr = driver.run(dags.batch_tagged)

    assert driver.task_result(dr, "run").state == "failed"
    assert jobs(aws) == []
    out = capfd.readouterr()
    assert "lacks batch:TagResource" in out.out + out.err


def test_fifty_user_tags_leave_the_key_in_the_name(aws):
    client = BatchJobClient(job_queue=JOB_QUEUE, job_name="n")
    tags = {f"t{i}": "v" for i in range(50)}
    job_id = client.submit({"jobName": "n", "jobQueue": JOB_QUEUE, "jobDefinition": "durable-job-def",
                            "tags": tags}, "b" * 32)

    [job] = jobs(aws)
    assert job["tags"] == tags and client.find("b" * 32) == job_id

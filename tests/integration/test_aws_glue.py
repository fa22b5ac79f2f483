"""AWS Glue end to end: Airflow runs the DAGs, moto (server mode, behind our fault proxy) runs the job runs.

moto gap relied on: ``glue-batch-stop-job-run`` (moto has no BatchStopJobRun; see
``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``), used by the kill tests in ``test_aws_kill.py``.
"""

from __future__ import annotations

import pytest

from durable_jobs.providers.amazon.aws.clients.base import DEFAULT_CONSISTENCY_SECONDS
from durable_jobs.providers.amazon.aws.clients.glue import KEY_ARGUMENT
from durable_jobs.testing.emulators.aws_env import CONSISTENCY_ENV

from . import driver, store

RECORD = "glue_job_run_id_durable"
JOB = "durable-glue-etl"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_scenarios")


def runs(aws, job: str = JOB) -> list[dict]:
    return sorted(aws.glue_runs(job), key=lambda r: r["StartedOn"])


def test_sync_success_puts_the_key_in_the_arguments(aws, dags):
    dr = driver.run(dags.glue_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [run] = runs(aws)
    record = store.get(dr, RECORD)
    assert record["id"] == run["Id"] and record["status"] == "SUCCEEDED"
    assert run["Arguments"][KEY_ARGUMENT] == record["nonce"]
    assert store.get(dr, "glue_job_run_id") == run["Id"]  # the official operator's own key, readable by it


def test_deferrable_polls_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls("glue:GetJobRun")

    dr = driver.run(dags.glue_deferrable)

    assert driver.task_result(dr, "run").state == "success"
    assert len(runs(aws)) == 1
    assert aws.proxy.async_calls.get("glue:GetJobRun", 0) >= 1


@pytest.mark.parametrize("dag_name", ["glue_sync", "glue_deferrable"])
def test_real_retry_reconnects_to_the_running_run(aws, dags, dag_name):
    aws.hold_for(4.0)  # an expired token is an auth fault: the try fails at once, the retry reconnects
    aws.proxy.fault("glue:GetJobRun", status=400, code="ExpiredTokenException", skip=1, count=1)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(runs(aws)) == 1


def test_failed_run_is_retried_with_a_new_run_and_a_new_key(aws, dags):
    dr = driver.run(dags.glue_fails)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = runs(aws, "durable-glue-fails")
    assert first["JobRunState"] == second["JobRunState"] == "FAILED"
    assert first["Arguments"][KEY_ARGUMENT] != second["Arguments"][KEY_ARGUMENT]


def test_throttled_polling_is_retried_without_resubmitting(aws, dags):
    aws.hold_for(1.0)
    aws.proxy.throttle("glue:GetJobRun", count=2, skip=1)

    dr = driver.run(dags.glue_sync)

    assert driver.task_result(dr, "run").try_number == 1
    assert len(runs(aws)) == 1 and len(aws.proxy.fired) == 2


@pytest.mark.parametrize("dag_name", ["glue_sync", "glue_deferrable"])
def test_lost_start_reply_behind_a_lagging_listing_gives_one_run(aws, dags, dag_name, monkeypatch):
    # The window must outlast the submit's own latency plus the lag. 4 s was not enough once in CI (three lanes on
    # two CPUs: a second run was started). The product's default costs nothing here: the scan ends when it finds.
    monkeypatch.setenv(CONSISTENCY_ENV, str(DEFAULT_CONSISTENCY_SECONDS))
    aws.proxy.lag(0.5)
    aws.proxy.fault("glue:StartJobRun", mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").try_number == 1
    assert len(runs(aws)) == 1 and aws.proxy.calls["glue:StartJobRun"] == 1


def test_official_operator_duplicates_the_run_on_a_lost_reply(aws, dags):
    aws.proxy.fault("glue:StartJobRun", mode="lose_reply", status=500)

    driver.run(dags.glue_official)

    assert len(runs(aws)) == 2


def test_clear_starts_fresh_with_a_new_key(aws, dags):
    dag = dags.glue_sync
    dr = driver.run(dag)
    first = store.get(dr, RECORD)["nonce"]

    driver.clear(dr, ["run"])
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert len(runs(aws)) == 2 and store.get(dr, RECORD)["nonce"] != first


def test_changed_request_starts_fresh(aws, dags, capfd):
    aws.moto.hold()
    aws.proxy.fault("glue:GetJobRun", status=400, code="ExpiredTokenException", skip=1)
    dag = dags.glue_sync
    dr = driver.start(dag)
    driver.drive(dag, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    aws.moto.progress()

    edited = dags.glue("aws_glue_sync", script_args={"--day": "2026-01-02"})
    dr = driver.drive(edited, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert len(runs(aws)) == 2
    out = capfd.readouterr()
    assert "request changed since the checkpoint (fields: script_args)" in out.out + out.err

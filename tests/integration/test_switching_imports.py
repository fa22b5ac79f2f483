"""Switching the import while a task is deferred, in both directions (issue 20's migration path).

A task deferred by the official operator resumes with ours: our ``execute_complete`` takes the
official trigger's event, asks the vendor about the job and finishes it (or watches it with our
trigger). A task deferred by ours resumes with the official operator: our trigger's event carries
what the official ``execute_complete`` reads. The jobs are real (the Databricks emulator; moto behind
the fault proxy); the official classes are the installed provider's.
"""

from __future__ import annotations

import asyncio

import pytest
from airflow.providers.amazon.aws.operators import athena as official_athena
from airflow.providers.amazon.aws.operators import batch as official_batch
from airflow.providers.common.compat.sdk import AirflowException, TaskDeferred
from airflow.providers.databricks.hooks.databricks import RunState
from airflow.providers.databricks.operators import databricks as official_dbx

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.status import JobPhase
from durable_jobs.core.trigger import JobTrigger
from durable_jobs.providers.amazon.aws.operators import athena as ours_athena
from durable_jobs.providers.amazon.aws.operators import batch as ours_batch
from durable_jobs.providers.amazon.aws.operators import emr as ours_emr
from durable_jobs.providers.databricks.operators import databricks
from durable_jobs.testing.emulators.aws_env import ATHENA_WORKGROUP, JOB_DEFINITION, JOB_QUEUE

TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]
DBX = dict(tasks=TASKS, polling_period_seconds=0.1, databricks_retry_limit=2, databricks_retry_delay=0.01,
           do_xcom_push=False, deferrable=True)


def wait_for(client, job_id, phase: JobPhase, seconds: float = 30) -> None:
    import time

    deadline = time.monotonic() + seconds
    while client.status(job_id).phase is not phase:
        assert time.monotonic() < deadline, f"{job_id} never reached {phase}"
        time.sleep(0.1)


def our_trigger_event(op, job_id) -> dict:
    client, policy = op.job_client, op.poll_policy()
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, jitter=0.0, echo=op.trigger_echo(), max_polls=op.max_polls(),
                         error_budget=policy.error_budget)

    async def first():
        async for event in trigger.run():
            return dict(event.payload)

    return asyncio.run(first())


# ------------------------------------------------------------------ official → ours
def official_databricks_event(run_id: int, life: str, result: str) -> dict:
    return {"run_id": run_id, "run_page_url": "http://x", "run_state": RunState(life, result, "").to_json(),
            "repair_run": False, "errors": []}


def test_ours_finishes_a_run_the_official_operator_deferred(databricks_conn_env):
    op = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    run_id = op.job_client.submit({"run_name": "x", "tasks": TASKS}, op.job_client.format_key(new_nonce()))
    wait_for(op.job_client, run_id, JobPhase.SUCCEEDED)

    assert op.execute_complete({}, official_databricks_event(run_id, "TERMINATED", "SUCCESS")) is None
    assert databricks_conn_env.ledger()["runs_created"] == 1


def test_ours_keeps_watching_a_run_the_official_operator_left_running(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=30)
    op = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    run_id = op.job_client.submit({"run_name": "x", "tasks": TASKS}, op.job_client.format_key(new_nonce()))

    # The official trigger fired (say, after a triggerer restart) while the run still runs: ours defers
    # again, to its own trigger, on the same run.
    with pytest.raises(TaskDeferred) as deferred:
        op.execute_complete({}, official_databricks_event(run_id, "RUNNING", ""))
    assert isinstance(deferred.value.trigger, JobTrigger) and deferred.value.trigger.job_id == run_id
    assert databricks_conn_env.ledger()["runs_created"] == 1


def test_ours_takes_the_official_aws_events(aws):
    athena = ours_athena.AthenaOperator(task_id="a", query="SELECT 1", workgroup=ATHENA_WORKGROUP, sleep_time=0.1,
                                deferrable=True)
    query = athena.job_client.submit({"QueryString": "SELECT 1", "WorkGroup": ATHENA_WORKGROUP},
                                     athena.job_client.format_key(new_nonce()))
    wait_for(athena.job_client, query, JobPhase.SUCCEEDED)
    assert athena.execute_complete({}, {"status": "success", "value": query}) == query


# ------------------------------------------------------------------ ours → official
def test_the_official_operator_takes_our_triggers_event(databricks_conn_env):
    ours = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    run_id = ours.job_client.submit({"run_name": "x", "tasks": TASKS}, ours.job_client.format_key(new_nonce()))
    event = our_trigger_event(ours, run_id)

    theirs = official_dbx.DatabricksSubmitRunOperator(task_id="t", tasks=TASKS, deferrable=True)
    assert theirs.execute_complete({}, event) is None  # the official completion accepted it: success


def test_the_official_operator_reads_our_failed_event_as_a_failure(databricks_conn_env):
    databricks_conn_env.configure(outcomes=["FAILED"])
    ours = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    run_id = ours.job_client.submit({"run_name": "x", "tasks": TASKS}, ours.job_client.format_key(new_nonce()))
    event = our_trigger_event(ours, run_id)

    theirs = official_dbx.DatabricksSubmitRunOperator(task_id="t", tasks=TASKS, deferrable=True)
    with pytest.raises(AirflowException, match="Job run failed with terminal state"):
        theirs.execute_complete({}, event)


def test_the_official_aws_operators_take_our_triggers_events(aws):
    batch = ours_batch.BatchOperator(task_id="b", job_name="switch", job_queue=JOB_QUEUE,
                                      job_definition=JOB_DEFINITION, poll_interval=0.1, deferrable=True)
    job = batch.job_client.submit({"jobName": "switch", "jobQueue": JOB_QUEUE, "jobDefinition": JOB_DEFINITION},
                                  batch.job_client.format_key(new_nonce()))
    event = our_trigger_event(batch, job)
    official = official_batch.BatchOperator(task_id="b", job_name="switch", job_queue=JOB_QUEUE,
                                            job_definition=JOB_DEFINITION, deferrable=True)
    assert official.execute_complete({}, event) == job

    athena = ours_athena.AthenaOperator(task_id="a", query="SELECT 2", workgroup=ATHENA_WORKGROUP, sleep_time=0.1,
                                deferrable=True)
    query = athena.job_client.submit({"QueryString": "SELECT 2", "WorkGroup": ATHENA_WORKGROUP},
                                     athena.job_client.format_key(new_nonce()))
    event = our_trigger_event(athena, query)
    assert official_athena.AthenaOperator(task_id="a", query="SELECT 2").execute_complete({}, event) == query


# ------------------------------------------------------------------ the SDK mixin's vocabulary, and bounds
def test_resumable_job_methods_answer_in_the_vendors_states(databricks_conn_env, aws):
    op = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    run_id = op.job_client.submit({"run_name": "x", "tasks": TASKS}, op.job_client.format_key(new_nonce()))
    wait_for(op.job_client, run_id, JobPhase.SUCCEEDED)
    status = op.get_job_status(run_id, {})
    assert status == "TERMINATED:SUCCESS" and op.is_job_succeeded(status) and not op.is_job_active(status)
    assert op.is_job_active("RUNNING:None") and not op.is_job_succeeded("RUNNING:None")  # the official format

    athena = ours_athena.AthenaOperator(task_id="a", query="SELECT 3", workgroup=ATHENA_WORKGROUP, sleep_time=0.1)
    assert athena.is_job_active("RUNNING") and athena.is_job_succeeded("SUCCEEDED")
    assert not athena.is_job_active("FAILED") and not athena.is_job_succeeded("FAILED")


def test_the_deferred_wait_honours_the_official_bound(aws):
    """EMR Serverless' ``waiter_max_attempts`` bounds the trigger too: cancel, then fail (as upstream)."""
    from durable_jobs.testing.emulators.aws_env import ROLE_ARN

    aws.moto.hold()  # the run stays where it is
    op = ours_emr.EmrServerlessStartJobOperator(
        task_id="e", application_id=aws.application_id, execution_role_arn=ROLE_ARN, waiter_delay=1,
        waiter_max_attempts=2, name="bounded", deferrable=True,
        job_driver={"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}})
    run = op.job_client.submit(op.prepare_request({}, fresh_key=True), op.job_client.format_key(new_nonce()))
    event = our_trigger_event(op, run)
    assert event["status"] == "poll_limit"
    with pytest.raises(AirflowException, match="Serverless Job failed: Waiter error: max attempts reached"):
        op.execute_complete({}, event)
    assert aws.proxy.calls.get("emr-serverless:CancelJobRun") == 1

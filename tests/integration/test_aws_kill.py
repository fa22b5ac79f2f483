"""A deferred task killed by a user: the triggerer's own code path cancels the AWS job.

Airflow's ``TriggerRunner.run_trigger`` runs our ``JobTrigger`` (polling moto through aiobotocore);
``cancel_triggers`` cancels it with the user-action message, as the triggerer does when a user
marks the deferred task failed or clears it, and ``run_trigger`` then calls ``JobTrigger.on_kill``.
Whether the kill came from a user is read from Airflow (``GetTaskStates`` over the supervisor
comms); a stand-in supervisor answers with the task's state as a user action left it ("failed")
or as a trigger move leaves it ("deferred"). The full-process version is in the crash suite.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from durable_jobs.emulators.aws_env import JOB_DEFINITION, JOB_QUEUE, ROLE_ARN
from durable_jobs.hooks.aws_batch import BatchJobClient
from durable_jobs.hooks.aws_emr_serverless import EmrServerlessJobClient
from durable_jobs.hooks.aws_glue import GlueJobClient
from durable_jobs.triggers.job import JobTrigger

TI = SimpleNamespace(id="01a2", dag_id="d", task_id="run", run_id="manual__1", try_number=1, map_index=-1,
                     context_carrier=None)


class Supervisor:
    """Answers the Task SDK's GetTaskStates the way the API server would for ``state``."""

    def __init__(self, state: str):
        self.state = state
        self.asked = 0

    def send(self, msg):
        from airflow.sdk.execution_time.comms import ErrorResponse, GetTaskStates, TaskStatesResult

        if not isinstance(msg, GetTaskStates):  # connections come from the environment here
            return ErrorResponse(error="not_found", detail={"message": type(msg).__name__})
        self.asked += 1
        return TaskStatesResult(task_states={TI.run_id: {TI.task_id: self.state}})


def start_job(aws, service: str):
    if service == "batch":
        client = BatchJobClient(job_queue=JOB_QUEUE, job_name="k")
        request = {"jobName": "k", "jobQueue": JOB_QUEUE, "jobDefinition": JOB_DEFINITION}
    elif service == "glue":
        aws.client("glue", direct=True).create_job(
            Name="k", Role=ROLE_ARN, Command={"Name": "glueetl", "ScriptLocation": "s3://b/etl.py"},
            ExecutionProperty={"MaxConcurrentRuns": 5},
        )
        client = GlueJobClient(job_name="k")
        request = {"JobName": "k"}
    else:
        client = EmrServerlessJobClient(application_id=aws.application_id)
        request = {"applicationId": aws.application_id, "executionRoleArn": ROLE_ARN,
                   "jobDriver": {"sparkSubmit": {"entryPoint": "s3://b/etl.py"}}}
    return client, client.submit(request, "f" * 32)


async def run_then_cancel(trigger: JobTrigger) -> None:
    from airflow.jobs.triggerer_job_runner import TriggerRunner

    runner = TriggerRunner()
    task = asyncio.create_task(runner.run_trigger(1, trigger))
    runner.triggers[1] = {"task": task, "name": "JobTrigger", "events": 0}
    await asyncio.sleep(0.6)  # a few polls through aiobotocore
    assert not task.done(), "the trigger ended before the kill"
    runner.to_cancel.append(1)
    await runner.cancel_triggers()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
@pytest.mark.parametrize("service", ["batch", "glue", "emr"])
def test_user_kill_of_a_deferred_task_cancels_the_job(aws, monkeypatch, service, state, cancelled):
    from airflow.sdk.execution_time import task_runner

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold()
    client, job_id = start_job(aws, service)
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger))

    assert supervisor.asked == 1
    assert aws.proxy.async_calls  # the trigger polled through aiobotocore
    status = client.status(job_id)
    if cancelled:
        assert status.state in ("FAILED", "STOPPED", "CANCELLED"), status
    else:
        assert status.state in ("SUBMITTED", "STARTING", "RUNNING"), status  # a move, not a user: left running

"""A deferred task killed by a user: the triggerer's own code path cancels the AWS job.

Airflow's ``TriggerRunner.run_trigger`` runs our ``JobTrigger`` (polling moto through aiobotocore);
``cancel_triggers`` cancels it with the user-action message, as the triggerer does when a user
marks the deferred task failed or clears it, and ``run_trigger`` then calls ``JobTrigger.on_kill``.
Whether the kill came from a user is read from Airflow (``GetTaskStates`` over the supervisor
comms) when the trigger cannot vouch that its triggerer never stood still, as here; a stand-in
supervisor answers with the task's state as a user action left it ("failed") or as a trigger move
leaves it ("deferred"). The kill without asking, and the stall that makes a trigger ask, are in
``tests/unit/test_job_trigger.py``; the full-process version is in the crash suite.

The synchronous path is shown on Athena: the operator polls in one thread while ``on_kill`` runs in
another, as the Task SDK calls it when the supervisor forwards a signal to the task process.
"""

from __future__ import annotations

import asyncio
import threading
import time
from types import SimpleNamespace

import pytest

from durable_jobs.core.exceptions import VendorAuthError
from durable_jobs.core.status import JobPhase
from durable_jobs.core.trigger import JobTrigger
from durable_jobs.providers.amazon.aws.clients.athena import AthenaJobClient
from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient
from durable_jobs.providers.amazon.aws.clients.emr_serverless import EmrServerlessJobClient
from durable_jobs.providers.amazon.aws.clients.glue import GlueJobClient
from durable_jobs.testing.emulators.aws_env import ATHENA_WORKGROUP, JOB_DEFINITION, JOB_QUEUE, ROLE_ARN

TI = SimpleNamespace(id="01a2", dag_id="d", task_id="run", run_id="manual__1", try_number=1, map_index=-1,
                     context_carrier=None)


class Supervisor:
    """Answers the Task SDK's GetTaskStates the way the API server would for ``state`` (``send`` from a worker,
    ``asend`` from a trigger). It shows no table of pending requests, so a trigger's pulse cannot vouch that
    its triggerer never stood still, and the trigger asks: these tests are about what the answer decides."""

    def __init__(self, state: str):
        self.state = state
        self.asked = 0

    def send(self, msg):
        from airflow.sdk.execution_time.comms import ErrorResponse, GetTaskStates, TaskStatesResult

        if not isinstance(msg, GetTaskStates):  # connections come from the environment here
            return ErrorResponse(error="not_found", detail={"message": type(msg).__name__})
        self.asked += 1
        return TaskStatesResult(task_states={TI.run_id: {TI.task_id: self.state}})

    async def asend(self, msg):
        return self.send(msg)


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
    elif service == "athena":
        client = AthenaJobClient()
        request = {"QueryString": "SELECT 1", "WorkGroup": ATHENA_WORKGROUP}
    else:
        client = EmrServerlessJobClient(application_id=aws.application_id)
        request = {"applicationId": aws.application_id, "executionRoleArn": ROLE_ARN,
                   "jobDriver": {"sparkSubmit": {"entryPoint": "s3://b/etl.py"}}}
    return client, client.submit(request, "f" * 32)


async def run_then_cancel(trigger: JobTrigger, polled=None) -> None:
    """Run the trigger as the triggerer does, then cancel it as a user's action does. ``polled()``, when
    given, says the trigger has polled enough (waited for, up to 30 s, rather than a fixed 0.6 s that a
    loaded machine may not fill)."""
    from airflow.jobs.triggerer_job_runner import TriggerRunner

    runner = TriggerRunner()
    task = asyncio.create_task(runner.run_trigger(1, trigger))
    runner.triggers[1] = {"task": task, "name": "JobTrigger", "events": 0}
    await asyncio.sleep(0.6)  # a few polls through aiobotocore
    for _ in range(600):
        if polled is None or polled():
            break
        await asyncio.sleep(0.05)
    assert not task.done(), "the trigger ended before the kill"
    runner.to_cancel.append(1)
    await runner.cancel_triggers()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
@pytest.mark.parametrize("service", ["batch", "glue", "emr", "athena"])
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

    asyncio.run(run_then_cancel(trigger, polled=lambda: bool(aws.proxy.async_calls)))

    assert supervisor.asked == 1
    assert aws.proxy.async_calls  # the trigger polled through aiobotocore
    status = client.status(job_id)
    if cancelled:
        assert status.state in ("FAILED", "STOPPED", "CANCELLED"), status
    else:
        assert status.state in ("SUBMITTED", "STARTING", "RUNNING", "QUEUED"), status  # a move: left running


class FakeTI(SimpleNamespace):
    """The task instance the worker's context carries: it takes the operator's XCom pushes."""

    def xcom_push(self, key, value):
        self.pushed[key] = value


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("running", False)])
def test_user_kill_of_a_polling_sync_task_cancels_the_query(aws, monkeypatch, state, cancelled):
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.providers.amazon.aws.operators.athena import AthenaOperator

    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold()
    op = AthenaOperator(task_id=TI.task_id, query="SELECT 1", workgroup=ATHENA_WORKGROUP, sleep_time=0.1,
                        durable=False)
    ti = FakeTI(**vars(TI), pushed={})
    outcome: list[BaseException | str] = []

    def work() -> None:
        try:
            outcome.append(op.execute({"ti": ti}))
        except BaseException as err:  # noqa: BLE001 - the test reads what the worker thread raised
            outcome.append(err)

    worker = threading.Thread(target=work)
    worker.start()
    client = AthenaJobClient()
    calls = lambda: aws.proxy.calls.get("athena:GetQueryExecution", 0)  # noqa: E731
    while calls() < 3 and worker.is_alive():  # the worker is in its poll loop
        worker.join(0.05)
    [query] = aws.athena_queries()

    op.on_kill()  # as the Task SDK's signal handler does, while execute() polls

    # A kill that lands while the worker holds the log writer asks from a thread once that write returned
    # (durable_jobs.core.cancel): wait for the question; only a kill that never asks reaches the bound.
    deadline = time.monotonic() + 30
    while supervisor.asked == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert supervisor.asked == 1
    if cancelled:
        worker.join(10)
        assert not worker.is_alive() and isinstance(outcome[0], Exception)
        assert "Final state of Athena job is CANCELLED" in str(outcome[0])
        assert client.status(query["QueryExecutionId"]).state == "CANCELLED"
        assert aws.proxy.calls["athena:StopQueryExecution"] == 1
    else:
        assert client.status(query["QueryExecutionId"]).state == "QUEUED"  # infrastructure: left running
        assert "athena:StopQueryExecution" not in aws.proxy.calls
        aws.moto.finish()
        worker.join(10)
        assert outcome == [query["QueryExecutionId"]]


@pytest.mark.parametrize("state", ["scheduled", "running", "failed"])
def test_a_kill_after_the_trigger_fired_leaves_the_job_to_the_resumed_task(aws, monkeypatch, state):
    """Airflow cancels a trigger whose row is gone with the user-action message, and that also happens right
    after the trigger fired (its generator still closing its client) while the task moves on: the state is
    no longer "deferred", yet no user stopped anything. Here the trigger gave up on its poll bound while the
    job still runs (``max_polls=1``): the resumed task fails, and a retry must find that job still running.
    A crash cell's one TerminateJob after success (BATCH-W2-ours-deferrable) was first put down to this; the
    likelier cause is the worker's overtime SIGTERM (``test_a_kill_after_the_try_returned_leaves_the_job``)."""
    from airflow.sdk.execution_time import task_runner

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold()
    client, job_id = start_job(aws, "batch")
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, cancel_on_kill="user", max_polls=1)
    trigger.task_instance = TI

    async def fire_then_kill() -> dict:
        events = trigger.run()
        event = await events.__anext__()  # fired; suspended where Airflow's runner logs and queues the event
        await trigger.on_kill()  # what run_trigger does when the user-action cancel lands now
        await events.aclose()
        return event.payload

    payload = asyncio.run(fire_then_kill())

    assert payload["durable_status"] == "poll_limit"
    assert supervisor.asked == 0  # not a user's kill: Airflow need not even be asked
    assert "batch:TerminateJob" not in aws.proxy.calls and "batch:CancelJob" not in aws.proxy.calls
    assert client.status(job_id).state in ("SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING")


def _batch_operator(**kwargs):
    from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator

    return BatchOperator(task_id=TI.task_id, job_name="k", job_queue=JOB_QUEUE, job_definition=JOB_DEFINITION,
                         durable=False, **kwargs)


@pytest.mark.parametrize("state", ["success", "failed"])
def test_a_kill_after_the_try_returned_leaves_the_job(aws, monkeypatch, state):
    """Airflow's supervisor SIGTERMs a task process still alive ``[core] task_success_overtime`` (20 s) after
    it reported its end (its callbacks or listeners ran long, or the machine is loaded), and the Task SDK's
    handler calls ``on_kill``. Here the try returned with the job still running, as ``wait_for_completion=False``
    means it to: whatever Airflow now says of the task ("success", or "failed" if a user marked it since), that
    kill is not the try's, and the job stays (it cancelled it before: the task's state was not "running")."""
    from airflow.sdk.execution_time import task_runner

    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold()
    op = _batch_operator(wait_for_completion=False)

    job_id = op.execute({"ti": FakeTI(**vars(TI), pushed={})})
    op.on_kill()  # as the Task SDK's SIGTERM handler does

    assert supervisor.asked == 0
    assert "batch:TerminateJob" not in aws.proxy.calls and "batch:CancelJob" not in aws.proxy.calls
    assert BatchJobClient(job_queue=JOB_QUEUE, job_name="k").status(job_id).phase is JobPhase.ACTIVE


@pytest.mark.parametrize(("should_retry", "cancelled"), [(True, False), (False, True)])
def test_a_kill_after_the_try_raised_cancels_only_on_the_last_try(aws, monkeypatch, should_retry, cancelled):
    """The try raised after the submit with the job still active (AWS denied the status call: an auth error
    is final under the fault policy); Airflow's overtime SIGTERM then calls ``on_kill``. With a retry left
    the job is the retry's to reconnect to; on the last try nothing would ever come back for it, so it is
    cancelled (the same rule as a kill while the try runs)."""
    from airflow.sdk.execution_time import task_runner

    supervisor = Supervisor("up_for_retry" if should_retry else "failed")
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold()
    denied = aws.proxy.fault("batch:DescribeJobs", status=403, code="AccessDeniedException", count=-1)
    op = _batch_operator(poll_interval=0.1)
    ti = FakeTI(**vars(TI), pushed={}, _ti_context_from_server=SimpleNamespace(should_retry=should_retry))

    with pytest.raises(VendorAuthError):
        op.execute({"ti": ti})
    denied.count = denied.fired  # spent: AWS answers again (the status read below)
    op.on_kill()

    assert op._job_id is not None  # the job was submitted before the try failed
    assert aws.proxy.calls.get("batch:TerminateJob", 0) == (1 if cancelled else 0)
    status = BatchJobClient(job_queue=JOB_QUEUE, job_name="k").status(op._job_id)
    assert status.phase is (JobPhase.FAILED if cancelled else JobPhase.ACTIVE), status

"""EMR on EKS ``EmrContainerOperator`` end to end: Airflow runs the DAGs, moto (server mode, behind our fault
proxy) runs the job runs.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from a job driver marked ``fail``,
never from patching our code. moto gaps covered by our rule layer rather than skipped
(``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``): ``emr-containers-client-token`` (moto ignores the token),
``emr-containers-life-cycle`` (moto's runs never leave RUNNING), ``emr-containers-created-at``.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.core.trigger import JobTrigger
from durable_jobs.providers.amazon.aws.clients.emr_containers import EmrContainersJobClient
from durable_jobs.testing.emulators.aws_env import EMR_RELEASE_LABEL, ROLE_ARN
from durable_jobs.testing.emulators.aws_moto import EMR_CONTAINERS_MODEL, MOTO_GAPS

from . import driver, store
from .test_aws_kill import TI, FakeTI, Supervisor, run_then_cancel

RECORD = "emr_containers_job_id_durable"
START = "emr-containers:StartJobRun"
DESCRIBE = "emr-containers:DescribeJobRun"
LIST = "emr-containers:ListJobRuns"
CANCEL = "emr-containers:CancelJobRun"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_emr_containers_scenarios")


def runs(aws) -> list[dict]:
    emr = aws.client("emr-containers", direct=True)
    return [emr.describe_job_run(virtualClusterId=aws.virtual_cluster_id, id=r["id"])["jobRun"]
            for r in aws.emr_container_runs()]


def tokens(aws) -> list[str | None]:
    return [entry["token"] for entry in aws.proxy.jobs_created(START)]


def request(aws, entry: str = "s3://durable/etl.py") -> dict:
    return {"name": "r", "virtualClusterId": aws.virtual_cluster_id, "executionRoleArn": ROLE_ARN,
            "releaseLabel": EMR_RELEASE_LABEL, "jobDriver": {"sparkSubmitJobDriver": {"entryPoint": entry}}}


def return_value(dr):
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        row = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id="run",
                                                 key="return_value").one_or_none()
        return None if row is None else XComModel.deserialize_value(row)


# ------------------------------------------------------------------ happy paths
def test_sync_success_sends_the_key_as_client_token(aws, dags):
    dr = driver.run(dags.emr_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [run] = runs(aws)
    record = store.get(dr, RECORD)
    assert record["id"] == run["id"] and record["status"] == "SUCCEEDED" and run["state"] == "COMPLETED"
    assert tokens(aws) == [record["nonce"]] == [run["clientToken"]]
    [day] = run["jobDriver"]["sparkSubmitJobDriver"]["entryPointArguments"]
    assert day and "{{" not in day  # the template field was rendered
    assert return_value(dr) == run["id"]  # upstream returns the job run id


def test_deferrable_waits_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(DESCRIBE, EMR_CONTAINERS_MODEL)

    dr = driver.run(dags.emr_deferrable)

    assert driver.task_result(dr, "run").state == "success"
    [run] = runs(aws)
    assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED" and return_value(dr) == run["id"]


def test_wait_for_completion_false_returns_the_id_once_the_run_is_accepted(aws, dags):
    aws.moto.hold(EMR_CONTAINERS_MODEL)

    dr = driver.run(dags.emr_no_wait)

    [run] = runs(aws)
    assert driver.task_result(dr, "run").state == "success" and run["state"] == "PENDING"
    assert return_value(dr) == run["id"] == store.get(dr, RECORD)["id"]


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["emr_sync", "emr_deferrable"])
def test_lost_start_job_run_reply_gives_one_run(aws, dags, dag_name):
    """StartJobRun started the run; its reply was lost. The SDK's retries are off for the submit (the
    reference does not say a same-token resend is deduplicated): ``find(key)`` lists the runs, finds the
    one whose clientToken is the key, and no second StartJobRun is sent."""
    aws.proxy.fault(START, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 1)
    [run] = runs(aws)
    assert aws.proxy.calls[START] == 1 and aws.proxy.calls[LIST] >= 1
    assert store.get(dr, RECORD)["id"] == run["id"]


def test_crash_inside_the_submit_window_gives_one_run(aws, dags):
    """StartJobRun's replies are lost after EMR on EKS started the run, and the listing is refused: try 1 ends
    with an intent and no id, as a worker killed inside the submit→persist window leaves it. Try 2 finds the
    run by its clientToken: still one run."""
    aws.proxy.fault(START, mode="lose_reply", status=500, count=-1)
    aws.proxy.fault(LIST, status=400, code="ValidationException", count=-1)
    aws.moto.hold(EMR_CONTAINERS_MODEL)

    dr = driver.start(dags.emr_sync)
    driver.drive(dags.emr_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and len(aws.proxy.jobs_created(START)) == 1
    aws.proxy.clear()
    aws.moto.progress()
    dr = driver.drive(dags.emr_sync, dr)

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 2)
    [run] = runs(aws)
    assert run["clientToken"] == intent["nonce"] and store.get(dr, RECORD)["id"] == run["id"]
    assert START not in aws.proxy.calls  # found, not resent


# ------------------------------------------------------------------ failures, tokens, retries, bounds
@pytest.mark.parametrize("dag_name", ["emr_fails", "emr_fails_deferrable"])
def test_failed_run_fails_with_the_official_message_and_the_retry_starts_a_new_run(aws, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("failed", 2)
    first, second = runs(aws)
    assert first["state"] == second["state"] == "FAILED" and len(set(tokens(aws))) == 2
    out = capfd.readouterr()
    assert "EMR Containers job failed. Final state is FAILED" in out.out + out.err
    assert "USER_ERROR" in out.out + out.err
    assert store.get(dr, RECORD)["status"] == "FAILED"


def test_a_users_client_request_token_is_combined_with_the_key(aws, dags):
    """The user's token leads each epoch's clientToken: the genuine failure's retry gets a new run."""
    dr = driver.run(dags.emr_user_token)

    assert driver.task_result(dr, "run").state == "failed"
    first, second = runs(aws)
    assert first["clientToken"].startswith("nightly-") and second["clientToken"].startswith("nightly-")
    assert second["clientToken"] == f"nightly-{store.get(dr, RECORD)['nonce']}"  # the last epoch's key
    assert first["clientToken"] != second["clientToken"] and first["tags"] == {"team": "etl"}


def test_official_operator_with_a_fixed_token_gets_the_failed_run_back(aws, dags):
    """The control, on the emulator's reading of the token (MOTO_GAPS['emr-containers-client-token'], after the
    provider's own docstring): upstream resends the user's token unchanged, so its retry is handed the run
    that already failed, and the task can never succeed under that token."""
    dr = driver.run(dags.emr_official_token)

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("failed", 2)
    assert len(runs(aws)) == 1 and aws.proxy.calls[START] == 2


def test_official_operator_draws_a_new_token_per_try(aws, dags):
    """The control for a crash: without a token upstream sends a fresh UUID per try, so a retry after a lost
    reply (here: the SDK's own resend within one try keeps the token) is protected within the call only."""
    aws.proxy.fault(START, mode="lose_reply", status=500)

    driver.run(dags.emr_official)

    assert len(runs(aws)) == 1 and aws.proxy.calls[START] == 2  # botocore resent the same token
    [token] = set(tokens(aws))
    assert token and len(token) == 36  # upstream's uuid4


def test_real_retry_reconnects_to_the_running_run(aws, dags):
    """Try 1 fails while its run goes on (DescribeJobRun refused: an expired session token); the retry
    reconnects to the run instead of starting another."""
    aws.moto.hold(EMR_CONTAINERS_MODEL)
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.emr_sync)
    driver.drive(dags.emr_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired
    aws.hold_for(0.5, EMR_CONTAINERS_MODEL)

    dr = driver.drive(dags.emr_sync, dr)

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 2)
    assert len(runs(aws)) == 1 and len(aws.proxy.jobs_created(START)) == 1


def test_max_polling_attempts_fails_the_try_with_the_official_message(aws, dags, capfd):
    """The bound fails the try as upstream's does, leaving the run going: the retry reconnects to it (no
    second StartJobRun). The last try's failure cancels it (durable_jobs.core.orphans; upstream leaves it)."""
    aws.moto.hold(EMR_CONTAINERS_MODEL)
    dr = driver.start(dags.emr_poll_limit)
    driver.drive(dags.emr_poll_limit, dr, max_tries=1)

    assert driver.task_result(dr, "run").state == "up_for_retry"
    out = capfd.readouterr()
    assert "Max tries of poll status exceeded" in out.out + out.err
    [run] = runs(aws)
    assert run["state"] == "PENDING" and CANCEL not in aws.proxy.calls

    dr = driver.drive(dags.emr_poll_limit, dr)

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("failed", 2)
    [run] = runs(aws)
    assert aws.proxy.calls[START] == 1 and run["state"] == "CANCELLED"


# ------------------------------------------------------------------ a user's kill, both paths
@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_run(aws, monkeypatch, state, cancelled):
    from airflow.sdk.execution_time import task_runner

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold(EMR_CONTAINERS_MODEL)
    client = EmrContainersJobClient(virtual_cluster_id=aws.virtual_cluster_id)
    job_id = client.submit(request(aws), "k" * 32)
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: aws.proxy.async_calls.get(DESCRIBE, 0) >= 1))

    assert supervisor.asked == 1 and aws.proxy.async_calls.get(DESCRIBE, 0) >= 1
    assert client.status(job_id).state == ("CANCELLED" if cancelled else "PENDING")


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("running", False)])
def test_user_kill_of_a_polling_sync_task_cancels_the_run(aws, monkeypatch, state, cancelled):
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    aws.moto.hold(EMR_CONTAINERS_MODEL)
    op = EmrContainerOperator(task_id=TI.task_id, name="r", virtual_cluster_id=aws.virtual_cluster_id,
                              execution_role_arn=ROLE_ARN, release_label=EMR_RELEASE_LABEL,
                              job_driver={"sparkSubmitJobDriver": {"entryPoint": "s3://durable/etl.py"}},
                              poll_interval=0.1, durable=False)
    ti = FakeTI(**vars(TI), pushed={})
    outcome: list[BaseException | str] = []

    def work() -> None:
        try:
            outcome.append(op.execute({"ti": ti}))
        except BaseException as err:  # noqa: BLE001 - the test reads what the worker thread raised
            outcome.append(err)

    worker = threading.Thread(target=work)
    worker.start()
    while aws.proxy.calls.get(DESCRIBE, 0) < 3 and worker.is_alive():  # the worker is in its poll loop
        worker.join(0.05)
    [run] = aws.emr_container_runs()

    op.on_kill()  # as the Task SDK's signal handler does, while execute() polls

    client = EmrContainersJobClient(virtual_cluster_id=aws.virtual_cluster_id)
    assert supervisor.asked == 1
    if cancelled:
        worker.join(10)
        assert not worker.is_alive() and isinstance(outcome[0], Exception)
        assert "Final state is CANCELLED" in str(outcome[0])
        assert client.status(run["id"]).state == "CANCELLED" and aws.proxy.calls[CANCEL] == 1
    else:
        assert client.status(run["id"]).state == "PENDING" and CANCEL not in aws.proxy.calls
        aws.moto.finish(EMR_CONTAINERS_MODEL)
        worker.join(10)
        assert outcome == [run["id"]]


# ------------------------------------------------------------------ the client against the gap rules
def test_same_token_returns_the_same_run_and_find_reads_the_token(aws):
    """MOTO_GAPS['emr-containers-client-token'], through the official hook's client."""
    assert "emr-containers-client-token" in MOTO_GAPS
    client = EmrContainersJobClient(virtual_cluster_id=aws.virtual_cluster_id)
    key = "0123456789abcdef0123456789abcdef"
    first = client.submit(request(aws), key)
    assert client.submit(request(aws), key) == first
    assert len(aws.emr_container_runs()) == 1
    assert client.find(key) == first and client.find("f" * 32, since=None) is None


def test_unknown_run_is_missing_and_a_failed_run_reports_its_reason(aws):
    client = EmrContainersJobClient(virtual_cluster_id=aws.virtual_cluster_id)
    assert client.status("a" * 19).phase is JobPhase.MISSING
    run = client.submit(request(aws, "s3://durable/fail.py"), "e" * 32)
    aws.moto.finish(EMR_CONTAINERS_MODEL)
    status = client.status(run)
    assert (status.phase, status.state) == (JobPhase.FAILED, "FAILED") and status.message.startswith("USER_ERROR")

"""AWS Step Functions end to end: Airflow runs the DAGs, moto (server mode, behind our fault proxy) runs the
executions.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from an execution that fails in
moto, never from patching our code. moto gaps covered by our rule layer rather than skipped
(``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``): ``stepfunctions-life-cycle`` (moto's executions never
end), ``stepfunctions-redrive`` (moto has no RedriveExecution). The name's idempotency is moto's own
(``stepfunctions-name-idempotency``).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.stepfunctions import (
    MAX_NAME_LENGTH,
    RESEND,
    StepFunctionsJobClient,
    execution_arn_for,
)
from durable_jobs.testing.emulators.aws_env import STATE_MACHINE_ARN
from durable_jobs.testing.emulators.aws_moto import MOTO_GAPS

from . import driver, store

RECORD = "step_function_execution_arn_durable"
START = "states:StartExecution"
DESCRIBE = "states:DescribeExecution"
REDRIVE = "states:RedriveExecution"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_stepfunctions_scenarios")


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def names(aws) -> list[str]:
    """The name of each execution AWS created, as the proxy saw the StartExecution."""
    return [entry["token"] for entry in aws.proxy.jobs_created(START)]


# ------------------------------------------------------------------ happy paths
def test_sync_returns_the_execution_started_under_the_key(aws, dags):
    dr = driver.run(dags.sfn_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [execution] = aws.sfn_executions()
    record = store.get(dr, RECORD)
    assert record["id"] == execution["executionArn"] and execution["name"] == record["nonce"] == names(aws)[0]
    assert store.get(dr, "step_function_execution_arn") == execution["executionArn"]
    pushed = xcoms(dr)
    assert pushed["return_value"] == execution["executionArn"]  # returned at start, as upstream (no wait)
    assert pushed["_state_machine_details"]["state_machine_arn"] == STATE_MACHINE_ARN
    assert pushed["_state_machine_executions_details"]["execution_arn"] == execution["executionArn"]


def test_deferrable_waits_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(DESCRIBE)

    dr = driver.run(dags.sfn_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [execution] = aws.sfn_executions()
    assert execution["status"] == "SUCCEEDED"
    assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED"
    assert xcoms(dr)["return_value"] == execution["executionArn"]


def test_user_name_is_combined_with_the_key(aws, dags):
    dr = driver.run(dags.sfn_named)

    assert driver.task_result(dr, "run").state == "success"
    nonce = store.get(dr, RECORD)["nonce"]
    [execution] = aws.sfn_executions()
    assert execution["name"].startswith("nightly-2") and execution["name"].endswith(f"-{nonce}")  # <ds_nodash>
    assert len(execution["name"]) == len("nightly-20260101-") + len(nonce) <= MAX_NAME_LENGTH


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["sfn_sync", "sfn_deferrable"])
def test_lost_start_reply_gives_one_execution(aws, dags, dag_name):
    aws.proxy.fault(START, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [execution] = aws.sfn_executions()
    assert len(aws.proxy.jobs_created(START)) == 1
    assert store.get(dr, RECORD)["id"] == execution["executionArn"]


def test_crash_inside_the_submit_window_finds_the_execution_by_name(aws, dags, monkeypatch):
    """Try 1: StartExecution creates the execution but every reply is lost, and DescribeExecution fails
    too, so the try ends with an intent and no id, as a worker killed inside the window leaves it. Try 2
    describes the execution named by the key and adopts it: one execution."""
    # try 1 keeps looking until its budget is spent: 10 s, not the default 600 s
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "10")
    aws.proxy.fault(START, mode="lose_reply", status=500, count=-1)
    describe = aws.proxy.fault(DESCRIBE, status=500, count=-1)
    dr = driver.start(dags.sfn_sync)
    driver.drive(dags.sfn_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and len(aws.sfn_executions()) == 1  # the window: an execution, no id
    aws.proxy.clear()
    assert describe.fired >= 1

    dr = driver.drive(dags.sfn_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    [execution] = aws.sfn_executions()
    record = store.get(dr, RECORD)
    assert record["nonce"] == intent["nonce"] and record["id"] == execution["executionArn"]
    assert aws.proxy.calls.get(START, 0) == 0  # found, not resent (calls were reset by clear())


def test_throttled_start_is_resent(aws, dags):
    aws.proxy.throttle(START, count=2)

    dr = driver.run(dags.sfn_sync)

    assert driver.task_result(dr, "run").try_number == 1
    assert len(aws.sfn_executions()) == 1 and aws.proxy.calls[START] == 3


# ------------------------------------------------------------------ failures and retries
def test_failed_execution_fails_with_the_official_message_and_the_retry_starts_a_new_one(aws, dags, capfd):
    dr = driver.run(dags.sfn_fails_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = aws.sfn_executions()
    assert first["status"] == second["status"] == "FAILED" and first["name"] != second["name"]
    out = capfd.readouterr()
    for execution in (first, second):
        assert f"Step function failed: {execution['executionArn']} FAILED States.TaskFailed" in out.out + out.err


def test_official_operator_retry_of_a_named_failed_execution_is_refused(aws, dags, capfd):
    """The control: upstream sends the user's name as it is, so its retry of a failed execution gets
    ExecutionAlreadyExists ("If the execution is closed ... it returns a 400 ExecutionAlreadyExists")."""
    dr = driver.run(dags.sfn_official_named)

    assert driver.task_result(dr, "run").state == "failed"
    assert len(aws.sfn_executions()) == 1
    out = capfd.readouterr()
    assert "ExecutionAlreadyExists" in out.out + out.err


def test_real_retry_reconnects_to_the_running_execution(aws, dags):
    aws.moto.hold()
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.sfn_deferrable)
    driver.drive(dags.sfn_deferrable, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired  # the token is renewed
    aws.hold_for(1.0)

    dr = driver.drive(dags.sfn_deferrable, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(aws.sfn_executions()) == 1 and len(aws.proxy.jobs_created(START)) == 1


def test_waiter_max_attempts_bounds_the_deferred_wait(aws, dags, capfd):
    aws.moto.hold()
    dag = dags.sfn("aws_sfn_deferrable", deferrable=True, waiter_max_attempts=2, retries=0)

    dr = driver.run(dag)

    assert driver.task_result(dr, "run").state == "failed"
    out = capfd.readouterr()
    assert "Waiter error: max attempts reached" in out.out + out.err


# ------------------------------------------------------------------ redrive
def test_redrive_is_sent_under_the_key_as_client_token_and_a_lost_reply_redrives_once(aws, dags):
    sfn = aws.client("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=STATE_MACHINE_ARN, name="to-redrive", input='{"step": "fail"}')[
        "executionArn"]
    aws.moto.finish()
    assert sfn.describe_execution(executionArn=arn)["status"] == "FAILED"
    aws.moto.progress()
    aws.proxy.fault(REDRIVE, mode="lose_reply", status=500)

    dr = driver.run(dags.sfn_redrive)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    assert record["id"] == arn and sfn.describe_execution(executionArn=arn)["status"] == "SUCCEEDED"
    assert aws.proxy.calls[REDRIVE] == 2 and len(aws.sfn_executions()) == 1


# ------------------------------------------------------------------ the client against AWS's rules
def test_same_name_and_input_returns_the_running_execution_and_a_closed_one_is_adopted(aws):
    """AWS's rule (moto models it: MOTO_GAPS['stepfunctions-name-idempotency'])."""
    assert "Not a gap" in MOTO_GAPS["stepfunctions-name-idempotency"]
    aws.moto.hold()
    client = StepFunctionsJobClient(state_machine_arn=STATE_MACHINE_ARN)
    request = {"stateMachineArn": STATE_MACHINE_ARN, "input": "{}"}
    first = client.submit(request, "k" * 32)
    assert client.submit(request, "k" * 32) == first == execution_arn_for(STATE_MACHINE_ARN, "k" * 32)
    aws.moto.finish()
    assert client.status(first).phase is JobPhase.SUCCEEDED
    assert client.submit(request, "k" * 32) == first  # ExecutionAlreadyExists under our key: that execution
    assert len(aws.sfn_executions()) == 1


def test_unknown_execution_is_missing_and_cancel_aborts_a_running_one(aws):
    client = StepFunctionsJobClient(state_machine_arn=STATE_MACHINE_ARN)
    unknown = execution_arn_for(STATE_MACHINE_ARN, "no-such-execution")
    assert client.status(unknown).phase is JobPhase.MISSING
    assert client.find("no-such-execution") is None
    aws.moto.hold()
    running = client.submit({"stateMachineArn": STATE_MACHINE_ARN, "input": "{}"}, "r" * 32)

    client.cancel(running)

    async def astatus():
        try:
            return await client.astatus(running), await client.astatus(unknown)
        finally:
            await client.aclose()

    stopped, missing = asyncio.run(astatus())
    assert stopped.state == "ABORTED" and stopped.phase is JobPhase.FAILED and missing.phase is JobPhase.MISSING


# ------------------------------------------------------------------ side by side with the official operator
@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_same_xcoms_return_value_and_link_urls_as_the_official_operator(aws, dags, rest_api, deferrable):
    results = {}
    for flavour in ("official", "durable"):
        if deferrable:
            aws.hold_until_trigger_polls(DESCRIBE)
        aws.proxy.clear()
        dr = driver.run(dags.sfn_parity[(flavour, deferrable)])
        assert driver.task_result(dr, "run").state == "success"
        pushed = {k: v for k, v in xcoms(dr).items() if not k.endswith("_durable")}
        arn = pushed["return_value"]
        links = rest_api.get(
            f"/api/v2/dags/{dr.dag_id}/dagRuns/{dr.run_id}/taskInstances/run/links"
        ).json()["extra_links"]
        name = arn.rpartition(":")[2]
        results[flavour] = (json.loads(json.dumps(pushed).replace(name, "<name>")),
                            json.loads(json.dumps(links).replace(name, "<name>")))
    assert results["durable"] == results["official"]
    assert set(results["official"][1]) == {"State Machine Details", "State Machine Executions Details"}


def test_a_redrive_resent_after_its_token_expired_is_adopted_only_as_a_resend(aws):
    """AWS forgets a redrive's clientToken after 15 minutes (moto never does: a new token stands in for an
    expired one). The execution is then not redrivable: a resend of this epoch's key adopts it (it is this
    redrive), a first send fails as upstream's would."""
    sfn = aws.client("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=STATE_MACHINE_ARN, name="redriven", input='{"step": "fail"}')[
        "executionArn"]
    aws.moto.finish()
    client = StepFunctionsJobClient(state_machine_arn=STATE_MACHINE_ARN, redrive=True)
    request = {"stateMachineArn": STATE_MACHINE_ARN, "name": "redriven"}
    assert client.status(arn).state == "FAILED"
    assert client.submit({**request, RESEND: False}, "t" * 32) == arn
    assert client.status(arn).state == "SUCCEEDED"

    assert client.submit({**request, RESEND: True}, "u" * 32) == arn  # "expired" token, this epoch's resend
    with pytest.raises(Exception, match="ExecutionNotRedrivable"):
        client.submit({**request, RESEND: False}, "v" * 32)  # a first send: refused, as upstream
    assert aws.proxy.calls[REDRIVE] == 3

"""Amazon EMR ``EmrAddStepsOperator`` end to end: Airflow runs the DAGs, moto (server mode, behind our fault
proxy) runs the cluster's steps.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from a step whose arguments hold the
emulator's ``fail`` marker, never from patching our code. moto gaps covered by our rule layer rather than skipped
(``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``): ``emr-step-life-cycle`` (moto's steps never end),
``emr-cancel-steps`` (moto has no CancelSteps), ``emr-list-steps-step-ids-limit`` and ``emr-step-execution-role``.
"""

from __future__ import annotations

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.emr_steps import EmrStepsJobClient, key_of_name, make_job_id
from durable_jobs.testing.emulators.aws_moto import EMR_STEP_MODEL, MOTO_GAPS

from . import driver, store

RECORD = "emr_steps_job_id_durable"
ADD = "elasticmapreduce:AddJobFlowSteps"
LIST = "elasticmapreduce:ListSteps"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_emr_steps_scenarios")


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:  # type: ignore[misc]
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def steps(aws) -> list[dict]:
    """Every step of the test cluster, oldest first (straight to moto)."""
    listed = aws.client("emr", direct=True).list_steps(ClusterId=aws.emr_cluster_id)["Steps"]
    return list(reversed(listed))


# ------------------------------------------------------------------ happy paths
def test_sync_success_names_each_step_with_the_key_and_returns_the_step_ids(aws, dags):
    dr = driver.run(dags.emr_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert aws.proxy.calls[ADD] == 1
    first, second = steps(aws)
    record = store.get(dr, RECORD)
    assert record["id"] == make_job_id(aws.emr_cluster_id, [first["Id"], second["Id"]])
    assert record["status"] == "SUCCEEDED"
    assert key_of_name(first["Name"]) == (record["nonce"], 0, 2) and key_of_name(second["Name"])[1:] == (1, 2)
    assert first["Name"].startswith("calculate_pi 2026-") and second["Name"].startswith("report [durable-jobs ")
    assert {first["Status"]["State"], second["Status"]["State"]} == {"COMPLETED"}
    pushed = xcoms(dr)
    assert pushed["return_value"] == [first["Id"], second["Id"]]  # upstream's return value: the step ids
    assert pushed["job_flow_id"] == aws.emr_cluster_id  # found by job_flow_name, as upstream


def test_job_flow_id_and_execution_role_reach_the_steps(aws, dags):
    dr = driver.run(dags.emr_by_id)

    assert driver.task_result(dr, "run").state == "success"
    emr = aws.client("emr", direct=True)
    for step in steps(aws):  # MOTO_GAPS['emr-step-execution-role']
        described = emr.describe_step(ClusterId=aws.emr_cluster_id, StepId=step["Id"])["Step"]
        assert described["ExecutionRoleArn"] == "arn:aws:iam::123456789012:role/durable-jobs-role"


def test_deferrable_waits_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(LIST, EMR_STEP_MODEL)

    dr = driver.run(dags.emr_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert aws.proxy.async_calls.get(LIST, 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED"
    assert xcoms(dr)["return_value"] == [s["Id"] for s in steps(aws)]


def test_wait_for_completion_false_returns_once_the_steps_are_added(aws, dags):
    aws.moto.hold(EMR_STEP_MODEL)

    dr = driver.run(dags.emr_no_wait)

    assert driver.task_result(dr, "run").state == "success"
    assert [s["Status"]["State"] for s in steps(aws)] == ["PENDING", "PENDING"]
    assert xcoms(dr)["return_value"] == [s["Id"] for s in steps(aws)]


def test_no_cluster_of_that_name_fails_as_upstream(aws, dags, capfd):
    dr = driver.run(dags.emr_no_cluster)

    assert driver.task_result(dr, "run").state == "failed"
    assert aws.proxy.calls.get(ADD, 0) == 0
    out = capfd.readouterr()
    assert "No cluster found for name: no-such-cluster" in out.out + out.err


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["emr_sync", "emr_deferrable"])
def test_lost_add_job_flow_steps_reply_gives_one_set_of_steps(aws, dags, dag_name):
    """AddJobFlowSteps added the steps; its reply was lost. No SDK retry (no token to make it safe): ListSteps
    finds the steps by the key in their names, and they are used."""
    aws.proxy.fault(ADD, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert aws.proxy.calls[ADD] == 1 and len(steps(aws)) == 2
    assert xcoms(dr)["return_value"] == [s["Id"] for s in steps(aws)]


def test_crash_inside_the_submit_window_gives_one_set_of_steps(aws, dags):
    """The reply to AddJobFlowSteps is lost and ListSteps is refused: try 1 ends with an intent and no id, as a
    worker killed inside the submit→persist window leaves it. Try 2 lists the cluster's steps, finds both by the
    key in their names and reconnects instead of adding them again."""
    aws.proxy.fault(ADD, mode="lose_reply", status=500)
    aws.proxy.fault(LIST, status=400, code="ExpiredTokenException", count=-1)
    aws.moto.hold(EMR_STEP_MODEL)

    dr = driver.start(dags.emr_sync)
    driver.drive(dags.emr_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and aws.proxy.calls[ADD] == 1
    aws.proxy.clear()
    aws.moto.progress()
    dr = driver.drive(dags.emr_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert aws.proxy.calls.get(ADD, 0) == 0 and len(steps(aws)) == 2  # no second AddJobFlowSteps
    assert store.get(dr, RECORD)["nonce"] == intent["nonce"]
    assert xcoms(dr)["return_value"] == [s["Id"] for s in steps(aws)]


def test_official_operator_adds_the_steps_twice_when_a_reply_is_lost(aws, dags):
    """The control: the official hook sends AddJobFlowSteps through a client with botocore's retries on, and the
    request carries no token, so botocore's retry of a lost reply adds every step a second time."""
    aws.proxy.fault(ADD, mode="lose_reply", status=500)

    driver.run(dags.emr_official)

    assert aws.proxy.calls[ADD] == 2 and len(steps(aws)) == 4


# ------------------------------------------------------------------ failures, retries
@pytest.mark.parametrize("dag_name", ["emr_fails", "emr_fails_deferrable"])
def test_failed_step_fails_the_try_and_the_retry_adds_new_steps(aws, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = steps(aws)
    assert key_of_name(first["Name"])[0] != key_of_name(second["Name"])[0]  # a new epoch, a new key
    assert first["Status"]["State"] == "FAILED"
    out = capfd.readouterr()
    text = out.out + out.err
    assert ("Error while running steps" if "deferrable" in dag_name else "EMR Steps failed") in text
    assert store.get(dr, RECORD)["status"] == "FAILED"


def test_real_retry_reconnects_to_the_running_steps(aws, dags):
    """Try 1 fails while its steps run (ListSteps refused: an expired session token); the retry reconnects to the
    steps instead of adding them again."""
    aws.moto.hold(EMR_STEP_MODEL)
    refused = aws.proxy.fault(LIST, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.emr_sync)
    driver.drive(dags.emr_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired
    aws.hold_for(0.5, EMR_STEP_MODEL)

    dr = driver.drive(dags.emr_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(steps(aws)) == 2
    assert xcoms(dr)["return_value"] == [s["Id"] for s in steps(aws)]  # upstream would have added two more


# ------------------------------------------------------------------ the client against the gap rules
def test_client_reads_every_state_lists_in_tens_and_cancels(aws):
    """MOTO_GAPS['emr-step-life-cycle'], ['emr-cancel-steps'] and ['emr-list-steps-step-ids-limit'], through the
    official hook's client."""
    assert {"emr-step-life-cycle", "emr-cancel-steps", "emr-list-steps-step-ids-limit"} <= set(MOTO_GAPS)
    client = EmrStepsJobClient(cluster_id=aws.emr_cluster_id, consistency_seconds=0)
    aws.moto.hold(EMR_STEP_MODEL)
    many = [{"Name": f"s{i}", "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["true"]}} for i in range(12)]
    key = "0123456789abcdef0123456789abcdef"
    job_id = client.submit({"JobFlowId": aws.emr_cluster_id, "Steps": many}, key)
    assert client.find(key) == job_id  # all twelve found, in order, by the key in their names
    assert client.status(job_id).phase is JobPhase.ACTIVE  # twelve ids: two ListSteps calls of at most ten
    with pytest.raises(Exception, match="maximum of ten"):
        aws.client("emr", direct=True).list_steps(ClusterId=aws.emr_cluster_id, StepIds=job_id.split("/")[1]
                                                  .split(",")[:11])
    client.cancel(job_id)
    status = client.status(job_id)
    assert (status.phase, status.state) == (JobPhase.FAILED, "CANCELLED")
    assert client.status(f"{aws.emr_cluster_id}/s-NOSUCHSTEP").phase is JobPhase.MISSING
    assert client.status("j-NOSUCHCLUSTER/s-NOSUCHSTEP").phase is JobPhase.MISSING


def test_a_partial_set_of_steps_counts_as_not_added(aws):
    """Only some steps of a call listed (the reference does not say one AddJobFlowSteps can produce that): the
    find answers None, so the protocol adds the steps again under the same key, and names what it saw."""
    client = EmrStepsJobClient(cluster_id=aws.emr_cluster_id, consistency_seconds=0)
    key = "a" * 32
    emr = aws.client("emr", direct=True)
    one = client.keyed_steps([{"Name": "a", "HadoopJarStep": {"Jar": "x"}},
                              {"Name": "b", "HadoopJarStep": {"Jar": "x"}}], key)[:1]
    emr.add_job_flow_steps(JobFlowId=aws.emr_cluster_id, Steps=one)  # step 0 of 2 only
    assert client.find(key) is None

"""EMR steps client and operator rules: the state table agrees with the official waiters, the key fits the step
name's 256 characters, the client crosses to the triggerer, and the operator is a drop-in for the official class.

The state table is checked against the official waiters themselves (botocore's ``step_complete`` and the
provider's ``steps_wait_for_terminal``), their replies answered by botocore's ``Stubber``: the network boundary.
"""

from __future__ import annotations

import inspect
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from durable_jobs.core.checkpoint import CheckpointRecord
from durable_jobs.core.client import load_client
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.emr_steps import (
    EMR_STEP_STATES,
    MAX_NAME_LENGTH,
    EmrStepsJobClient,
    key_of_name,
    make_job_id,
    name_with_key,
    split_job_id,
    user_name,
)

CLUSTER, STEP = "j-1234567890ABC", "s-1234567890ABC"


def _emr():
    return boto3.client("emr", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")


def _official_reading(state: str, waiter_name: str) -> str:
    """What an official waiter makes of one reply in ``state``: success, failure, or "waiting" (polls on)."""
    from airflow.providers.amazon.aws.hooks.emr import EmrHook
    from botocore.exceptions import WaiterError

    client = _emr()
    reply: dict[str, Any]
    args: dict[str, Any]
    if waiter_name == "step_complete":
        waiter, operation = client.get_waiter("step_complete"), "describe_step"
        reply = {"Step": {"Id": STEP, "Status": {"State": state}}}
        args = {"ClusterId": CLUSTER, "StepId": STEP}
    else:
        hook = EmrHook(aws_conn_id=None, region_name="us-east-1")
        waiter, operation = hook.get_waiter("steps_wait_for_terminal", client=client), "list_steps"
        reply = {"Steps": [{"Id": STEP, "Status": {"State": state}}]}
        args = {"ClusterId": CLUSTER, "StepIds": [STEP]}
    with Stubber(client) as stub:
        stub.add_response(operation, reply)
        try:
            waiter.wait(**args, WaiterConfig={"MaxAttempts": 1, "Delay": 0})
        except WaiterError as err:
            return "failure" if "terminal failure" in str(err) else "waiting"
    return "success"


@pytest.mark.parametrize("state", sorted(EMR_STEP_STATES.all_states))
def test_state_table_agrees_with_the_deferred_paths_official_waiter(state):
    reading = _official_reading(state, "steps_wait_for_terminal")
    expected = {"success": JobPhase.SUCCEEDED, "failure": JobPhase.FAILED, "waiting": JobPhase.ACTIVE}[reading]
    assert EMR_STEP_STATES.phase(state) is expected


@pytest.mark.parametrize("state", sorted(EMR_STEP_STATES.all_states))
def test_state_table_agrees_with_the_sync_paths_waiter_except_interrupted(state):
    """botocore's ``step_complete`` has no acceptor for INTERRUPTED (it polls on): ours fails it, as the
    deferred path's waiter does (documented difference)."""
    reading = _official_reading(state, "step_complete")
    if state == "INTERRUPTED":
        assert reading == "waiting" and EMR_STEP_STATES.phase(state) is JobPhase.FAILED
    else:
        expected = {"success": JobPhase.SUCCEEDED, "failure": JobPhase.FAILED, "waiting": JobPhase.ACTIVE}[reading]
        assert EMR_STEP_STATES.phase(state) is expected


def test_every_documented_step_state_is_in_the_table():
    assert set(_emr().meta.service_model.shape_for("StepState").enum) == EMR_STEP_STATES.all_states


def test_the_key_fits_the_step_name_and_the_users_name_is_kept():
    record = CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=1, retries=0,
                                          client=EmrStepsJobClient.classpath())
    key = EmrStepsJobClient().format_key(record.nonce)
    member = _emr().meta.service_model.shape_for("StepConfig").members["Name"]
    assert member.metadata["max"] == MAX_NAME_LENGTH
    for name in ("", "calculate_pi", "x" * 200):
        keyed, cut = name_with_key(name, key, 255, 256)
        assert len(keyed) <= MAX_NAME_LENGTH and not cut
        assert key_of_name(keyed) == (key, 255, 256) and user_name(keyed) == name
    keyed, cut = name_with_key("y" * 300, key, 0, 1)
    assert cut and len(keyed) == MAX_NAME_LENGTH and key_of_name(keyed) == (key, 0, 1)
    assert key_of_name("calculate_pi [durable-jobs not-a-key 0/1]") is None


def test_the_job_id_names_the_cluster_and_every_step():
    job_id = make_job_id(CLUSTER, ["s-1", "s-2"])
    assert split_job_id(job_id) == (CLUSTER, ["s-1", "s-2"])
    with pytest.raises(Exception, match="not an EMR steps job id"):
        split_job_id("s-1")


def test_the_client_is_rebuilt_in_the_triggerer_from_its_kwargs():
    client = EmrStepsJobClient("aws_x", cluster_id=CLUSTER, region_name="eu-west-1")
    rebuilt = load_client(client.classpath(), client.serialize())
    assert isinstance(rebuilt, EmrStepsJobClient) and rebuilt.serialize() == client.serialize()
    fields = rebuilt.official_event_fields(make_job_id(CLUSTER, ["s-1"]), JobStatus(JobPhase.SUCCEEDED, "COMPLETED"),
                                          {})
    assert fields == {"value": ["s-1"]}  # what the official execute_complete returns


def test_same_arguments_template_fields_renderers_and_links_as_the_official_operator():
    from airflow.providers.amazon.aws.operators import emr as official

    from durable_jobs.core.mixin import DurableJobMixin
    from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

    theirs = inspect.signature(official.EmrAddStepsOperator.__init__).parameters
    mine = inspect.signature(EmrAddStepsOperator.__init__).parameters
    assert set(theirs) <= set(mine) and {"durable", "fresh_on_clear", "cancel_on_kill"} <= set(mine)
    assert all(mine[name].default == p.default for name, p in theirs.items()
               if name not in ("deferrable", "openlineage_inject_parent_job_info"))
    assert tuple(EmrAddStepsOperator.template_fields) == tuple(official.EmrAddStepsOperator.template_fields)
    assert EmrAddStepsOperator.template_ext == official.EmrAddStepsOperator.template_ext
    assert EmrAddStepsOperator.template_fields_renderers == official.EmrAddStepsOperator.template_fields_renderers
    assert [type(link) for link in EmrAddStepsOperator.operator_extra_links] == [
        type(link) for link in official.EmrAddStepsOperator.operator_extra_links]
    assert EmrAddStepsOperator.__mro__.index(DurableJobMixin) < EmrAddStepsOperator.__mro__.index(
        official.EmrAddStepsOperator)
    op = EmrAddStepsOperator(task_id="t", job_flow_id=CLUSTER, default_args={"durable": False})
    assert op.durable is False and op.cancel_on_kill == "user"
    with pytest.raises(Exception, match="Exactly one of job_flow_id or job_flow_name must be specified."):
        EmrAddStepsOperator(task_id="t")  # upstream's own check


def test_the_request_is_upstreams():
    """A string of steps is parsed as upstream parses it; the role travels as ``ExecutionRoleArn``."""
    from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

    op = EmrAddStepsOperator(task_id="t", job_flow_id=CLUSTER, steps="[{'Name': 'a', 'HadoopJarStep': {'Jar': 'x'}}]",
                             execution_role_arn="arn:aws:iam::1:role/r", openlineage_inject_parent_job_info=False)
    assert op.prepare_request({}, fresh_key=True) == {
        "JobFlowId": CLUSTER, "Steps": [{"Name": "a", "HadoopJarStep": {"Jar": "x"}}],
        "ExecutionRoleArn": "arn:aws:iam::1:role/r"}
    assert EmrAddStepsOperator(task_id="t", job_flow_id=CLUSTER).wait_for_termination is False  # upstream's default
    assert EmrAddStepsOperator(task_id="t", job_flow_id=CLUSTER, deferrable=True).wait_for_termination is True


def test_a_failed_step_raises_the_official_exceptions():
    from airflow.providers.amazon.aws.exceptions import WaiterTerminalFailure

    from durable_jobs.core.exceptions import JobFailedError
    from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

    job_id = make_job_id(CLUSTER, [STEP])
    status = JobStatus(JobPhase.FAILED, "FAILED", f"step {STEP} FAILED: {{'Reason': 'boom'}}")
    sync = EmrAddStepsOperator(task_id="t", job_flow_id=CLUSTER, wait_for_completion=True)
    err = sync.failure_error({}, job_id, status)
    assert isinstance(err, WaiterTerminalFailure) and str(err).startswith("EMR Steps failed: ")
    deferred = EmrAddStepsOperator(task_id="t", job_flow_id=CLUSTER, deferrable=True)
    err = deferred.failure_error({}, job_id, status)
    assert isinstance(err, JobFailedError) and str(err).startswith("Error while running steps: ")

"""Amazon ECS client rules: a stopped task's outcome reads as the official operator's check reads it; the key
fits RunTask's clientToken; the client crosses to the triggerer.

The outcome table is checked against the official ``EcsRunTaskOperator._check_success_task`` itself, its
``DescribeTasks`` answered by botocore's ``Stubber`` (the network boundary), so the two cannot drift apart.
"""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from durable_jobs.core.checkpoint import CheckpointRecord
from durable_jobs.core.client import load_client
from durable_jobs.providers.amazon.aws.clients.ecs import ECS_STATES, MAX_TOKEN_LENGTH, EcsJobClient, task_outcome

ARN = "arn:aws:ecs:us-east-1:123456789012:task/c/0123456789abcdef"


def _container(**kwargs):
    return {"name": "main", **kwargs}


TASKS = {
    "exit 0": {"lastStatus": "STOPPED", "containers": [_container(lastStatus="STOPPED", exitCode=0)]},
    "exit 1": {"lastStatus": "STOPPED", "containers": [_container(lastStatus="STOPPED", exitCode=1)]},
    "no exit code": {"lastStatus": "STOPPED", "containers": [_container(lastStatus="STOPPED")]},
    "failed to start": {"lastStatus": "STOPPED", "stopCode": "TaskFailedToStart", "stoppedReason": "no capacity",
                        "containers": []},
    "host gone": {"lastStatus": "STOPPED", "stoppedReason": "Host EC2 (instance i-123) terminated.",
                  "containers": [_container(lastStatus="STOPPED", exitCode=0)]},
    "still pending": {"lastStatus": "STOPPED", "containers": [_container(lastStatus="PENDING")]},
    "error reason": {"lastStatus": "STOPPED",
                     "containers": [_container(lastStatus="STOPPED", exitCode=0, reason="CannotPullImageError")]},
    "two containers, second fails": {"lastStatus": "STOPPED", "containers": [
        _container(lastStatus="STOPPED", exitCode=0), {"name": "side", "lastStatus": "STOPPED", "exitCode": 2}]},
}


def _official_says_failed(task: dict) -> bool:
    from airflow.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

    op = EcsRunTaskOperator(task_id="t", task_definition="td", cluster="c", overrides={}, aws_conn_id=None,
                            region_name="us-east-1")
    op.arn = ARN
    client = boto3.client("ecs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    op.__dict__["client"] = client  # the operator's cached boto3 client, answered by the Stubber below
    with Stubber(client) as stub:
        stub.add_response("describe_tasks", {"tasks": [{"taskArn": ARN, **task}], "failures": []},
                          {"cluster": "c", "tasks": [ARN]})
        try:
            op._check_success_task()
        except Exception:  # noqa: BLE001 - any of the official exceptions means "not a success"
            return True
    return False


@pytest.mark.parametrize("name", list(TASKS))
def test_outcome_agrees_with_the_official_check(name):
    task = TASKS[name]
    assert (task_outcome(task) is not None) == _official_says_failed(task), name


def test_states_cover_the_task_life_cycle_and_stopped_ends_it():
    assert ECS_STATES.active == {"PROVISIONING", "PENDING", "ACTIVATING", "RUNNING", "DEACTIVATING", "STOPPING",
                                 "DEPROVISIONING"}
    assert "STOPPED" not in ECS_STATES.active


def test_the_key_fits_run_tasks_client_token():
    record = CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=1, retries=0,
                                          client=EcsJobClient.classpath())
    key = EcsJobClient().format_key(record.nonce)
    assert len(key) <= MAX_TOKEN_LENGTH and all(33 <= ord(c) <= 126 for c in key)
    shape = boto3.client("ecs", region_name="us-east-1").meta.service_model.operation_model("RunTask")
    assert shape.input_shape.members["clientToken"].metadata.get("idempotencyToken") is True


def test_the_client_is_rebuilt_in_the_triggerer_from_its_kwargs():
    client = EcsJobClient("aws_x", cluster="c", started_by="airflow", region_name="eu-west-1")
    client.conn_source = lambda: None  # the worker's operator client never crosses
    rebuilt = load_client(client.classpath(), client.serialize())
    assert isinstance(rebuilt, EcsJobClient) and rebuilt.serialize() == client.serialize()
    assert rebuilt.conn_source is None and (rebuilt.cluster, rebuilt.started_by) == ("c", "airflow")


def test_same_arguments_template_fields_renderers_and_links_as_the_official_operator():
    import inspect

    from airflow.providers.amazon.aws.operators import ecs as official

    from durable_jobs.core.mixin import DurableJobMixin
    from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

    theirs = set(inspect.signature(official.EcsRunTaskOperator.__init__).parameters)
    mine = set(inspect.signature(EcsRunTaskOperator.__init__).parameters)
    assert theirs <= mine and {"durable", "fresh_on_clear", "cancel_on_kill"} <= mine
    assert tuple(EcsRunTaskOperator.template_fields) == tuple(official.EcsRunTaskOperator.template_fields)
    assert EcsRunTaskOperator.template_fields_renderers == official.EcsRunTaskOperator.template_fields_renderers
    assert list(EcsRunTaskOperator.operator_extra_links) == list(official.EcsRunTaskOperator.operator_extra_links)
    assert EcsRunTaskOperator.__mro__.index(DurableJobMixin) < EcsRunTaskOperator.__mro__.index(
        official.EcsRunTaskOperator)
    op = EcsRunTaskOperator(task_id="t", cluster="c", task_definition="td", overrides={},
                            default_args={"durable": False})
    assert op.durable is False and op.cancel_on_kill == "user"


def test_a_describe_answers_the_status_its_containers_were_synced_to():
    """moto advances a task's status by time whenever it is read: the serialiser's read must see the status the
    containers were synced to, or a task is answered STOPPED with running containers (read as a success)."""
    from moto import mock_aws
    from moto.ecs.models import ecs_backends
    from moto.moto_api import state_manager

    from durable_jobs.testing.emulators.aws_moto import ECS_MODEL, install_gap_rules, uninstall_gap_rules

    install_gap_rules()
    state_manager.set_transition(ECS_MODEL, {"progression": "time", "seconds": 60})
    try:
        with mock_aws():
            ecs = boto3.client("ecs", region_name="us-east-1")
            ecs.create_cluster(clusterName="c")
            ecs.register_task_definition(family="f", containerDefinitions=[
                {"name": "main", "image": "busybox", "memory": 128, "command": ["false"]}])
            ecs.run_task(cluster="c", taskDefinition="f", launchType="FARGATE", networkConfiguration={
                "awsvpcConfiguration": {"subnets": ["subnet-1"]}})
            backend = ecs_backends["123456789012"]["us-east-1"]
            task = next(iter(backend.tasks["c"].values()))
            seen = backend.describe_tasks("c", [task.id])[0].last_status  # what _sync synced the containers to
            task._time_progressed = task._time_progressed.replace(year=2000)  # the next transition is due now
            assert task.last_status == seen  # the serialiser's read, within the same answer
            assert [c.last_status for c in task.containers] == ["PENDING" if seen in ("PROVISIONING", "PENDING")
                                                                 else "RUNNING"]
            task.__dict__["_dj_pinned"] = (seen, 0.0)  # the pin expired: the next answer reads on
            assert task.last_status != seen
    finally:
        state_manager.unset_transition(ECS_MODEL)
        uninstall_gap_rules()

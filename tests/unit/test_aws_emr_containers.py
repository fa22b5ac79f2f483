"""EMR on EKS client rules: the state table is the official hook's, the key fits StartJobRun's clientToken
(alone and combined with a user's ``client_request_token``), the client crosses to the triggerer, and the
operator is a drop-in for the official ``EmrContainerOperator``."""

from __future__ import annotations

import inspect
import re

import boto3
import pytest

from durable_jobs.core.checkpoint import CheckpointRecord
from durable_jobs.core.client import load_client
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.emr_containers import (
    EMR_CONTAINERS_STATES,
    MAX_TOKEN_LENGTH,
    EmrContainersJobClient,
    format_client_token,
)

ARGS = dict(name="n", virtual_cluster_id="vc", execution_role_arn="arn:aws:iam::123456789012:role/r",
            release_label="emr-7.0.0-latest", job_driver={"sparkSubmitJobDriver": {"entryPoint": "s3://b/x.py"}})


def _client_token_shape():
    model = boto3.client("emr-containers", region_name="us-east-1").meta.service_model
    return model.operation_model("StartJobRun").input_shape.members["clientToken"]


def _nonce() -> str:
    return CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=1, retries=0,
                                        client=EmrContainersJobClient.classpath()).nonce


def test_states_are_the_official_hooks():
    from airflow.providers.amazon.aws.hooks.emr import EmrContainerHook

    assert EMR_CONTAINERS_STATES.active == set(EmrContainerHook.INTERMEDIATE_STATES)
    assert EMR_CONTAINERS_STATES.succeeded == set(EmrContainerHook.SUCCESS_STATES)
    assert EMR_CONTAINERS_STATES.failed == set(EmrContainerHook.FAILURE_STATES)
    model = boto3.client("emr-containers", region_name="us-east-1").meta.service_model
    enum = set(model.shape_for("JobRunState").enum)
    assert EMR_CONTAINERS_STATES.active | EMR_CONTAINERS_STATES.succeeded | EMR_CONTAINERS_STATES.failed == enum


@pytest.mark.parametrize("user_token", [None, "nightly", "x" * 80, "with spaces / and : colons"])
def test_the_key_fits_start_job_runs_client_token(user_token):
    shape = _client_token_shape()
    assert shape.metadata["max"] == MAX_TOKEN_LENGTH and shape.metadata.get("idempotencyToken") is True
    nonce = _nonce()
    key = EmrContainersJobClient().format_key(nonce, user_token)
    assert shape.metadata["min"] <= len(key) <= shape.metadata["max"]
    assert re.fullmatch(shape.metadata["pattern"], key)
    assert key.endswith(nonce)  # each epoch its own token, whatever the user's
    if user_token and len(user_token) + 1 + len(nonce) <= MAX_TOKEN_LENGTH:
        assert key == f"{user_token}-{nonce}"


def test_a_user_token_is_combined_the_databricks_way():
    from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient

    nonce = _nonce()
    for token in ("nightly", "y" * 70):
        assert format_client_token(nonce, token) == DatabricksJobClient.format_key(None, nonce, token)  # type: ignore[arg-type]


def test_the_client_is_rebuilt_in_the_triggerer_from_its_kwargs():
    client = EmrContainersJobClient("aws_x", virtual_cluster_id="vc1", region_name="eu-west-1")
    rebuilt = load_client(client.classpath(), client.serialize())
    assert isinstance(rebuilt, EmrContainersJobClient) and rebuilt.serialize() == client.serialize()
    assert rebuilt.virtual_cluster_id == "vc1" and rebuilt.hook.virtual_cluster_id == "vc1"


def test_status_reads_the_failure_reason_as_the_official_hook_joins_it():
    client = EmrContainersJobClient(virtual_cluster_id="vc")
    status = client._to_status({"jobRun": {"state": "FAILED", "failureReason": "USER_ERROR",
                                           "stateDetails": "exit 1"}})
    assert (status.phase, status.message) == (JobPhase.FAILED, "USER_ERROR - exit 1")
    assert client._to_status({"jobRun": {"state": "CANCEL_PENDING"}}).phase is JobPhase.FAILED


def test_same_arguments_template_fields_and_links_as_the_official_operator():
    from airflow.providers.amazon.aws.operators import emr as official

    from durable_jobs.core.mixin import DurableJobMixin
    from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

    theirs = inspect.signature(official.EmrContainerOperator.__init__).parameters
    mine = inspect.signature(EmrContainerOperator.__init__).parameters
    assert set(theirs) <= set(mine) and {"durable", "fresh_on_clear", "cancel_on_kill"} <= set(mine)
    assert all(mine[n].default == p.default for n, p in theirs.items() if n != "kwargs")
    assert tuple(EmrContainerOperator.template_fields) == tuple(official.EmrContainerOperator.template_fields)
    assert list(EmrContainerOperator.operator_extra_links) == list(official.EmrContainerOperator.operator_extra_links)
    assert EmrContainerOperator.__mro__.index(DurableJobMixin) < EmrContainerOperator.__mro__.index(
        official.EmrContainerOperator)


@pytest.mark.parametrize(("given", "policy"), [({}, "user"), ({"cancel_on_kill": True}, "user"),
                                               ({"cancel_on_kill": False}, "never")])
def test_the_official_boolean_cancel_on_kill_maps_to_a_policy(given, policy):
    from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

    op = EmrContainerOperator(task_id="t", **ARGS, **given)
    assert op.cancel_on_kill == policy


def test_default_args_reach_durable_and_the_request_is_upstreams():
    from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

    op = EmrContainerOperator(task_id="t", **ARGS, tags={"team": "etl"}, job_retry_max_attempts=2,
                              default_args={"durable": False})
    assert op.durable is False and op.wait_for_termination is True
    request = op.prepare_request(None, fresh_key=True)  # type: ignore[arg-type]
    assert request == {"name": "n", "virtualClusterId": "vc", "executionRoleArn": ARGS["execution_role_arn"],
                       "releaseLabel": "emr-7.0.0-latest", "jobDriver": ARGS["job_driver"],
                       "configurationOverrides": {}, "tags": {"team": "etl"},
                       "retryPolicyConfiguration": {"maxAttempts": 2}}
    assert EmrContainerOperator(task_id="t2", **ARGS, wait_for_completion=False,
                                deferrable=True).wait_for_termination is True  # upstream defers regardless

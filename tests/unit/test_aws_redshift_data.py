"""Redshift Data API client and operator rules: the state table is the official hook's, the key fits
``ClientToken``, the client crosses to the triggerer, and the operator is a drop-in for the official class.

The state table and the failure exceptions are checked against the official ``RedshiftDataHook`` itself
(``parse_statement_response``, its ``DescribeStatement`` reply answered by botocore's ``Stubber``: the network
boundary), so the two cannot drift apart.
"""

from __future__ import annotations

import inspect

import boto3
import pytest
from botocore.stub import Stubber

from durable_jobs.core.checkpoint import CheckpointRecord
from durable_jobs.core.client import load_client
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.redshift_data import (
    MAX_TOKEN_LENGTH,
    REDSHIFT_DATA_STATES,
    RedshiftDataJobClient,
)

STATEMENT = "d9b6c0c9-0747-4bf4-b142-e8883122f766"


def _official_reading(state: str) -> str:
    """What the official hook makes of a DescribeStatement reply in ``state``: active, succeeded, or its error."""
    from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook

    hook = RedshiftDataHook(aws_conn_id=None, region_name="us-east-1")
    client = boto3.client("redshift-data", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    hook.__dict__["conn"] = client  # the hook's cached boto3 client, answered by the Stubber below
    with Stubber(client) as stub:
        stub.add_response("describe_statement", {"Id": STATEMENT, "Status": state}, {"Id": STATEMENT})
        try:
            return "succeeded" if hook.check_query_is_finished(STATEMENT) else "active"
        except Exception as err:  # noqa: BLE001 - the official exception names the outcome
            return type(err).__name__


@pytest.mark.parametrize("state", ["SUBMITTED", "PICKED", "STARTED", "FINISHED", "FAILED", "ABORTED"])
def test_state_table_agrees_with_the_official_hook(state):
    reading = _official_reading(state)
    phase = REDSHIFT_DATA_STATES.phase(state)
    assert {"active": JobPhase.ACTIVE, "succeeded": JobPhase.SUCCEEDED}.get(reading, JobPhase.FAILED) is phase


def test_every_documented_status_is_in_the_table():
    shape = boto3.client("redshift-data", region_name="us-east-1").meta.service_model.shape_for(
        "StatementStatusString")
    assert set(shape.enum) == REDSHIFT_DATA_STATES.all_states


def test_the_key_fits_client_token_on_both_submit_calls():
    record = CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=1, retries=0,
                                          client=RedshiftDataJobClient.classpath())
    key = RedshiftDataJobClient().format_key(record.nonce)
    model = boto3.client("redshift-data", region_name="us-east-1").meta.service_model
    for operation in ("ExecuteStatement", "BatchExecuteStatement"):
        member = model.operation_model(operation).input_shape.members["ClientToken"]
        assert member.metadata.get("idempotencyToken") is True  # botocore fills one in when none is sent
        assert member.metadata["min"] <= len(key) <= member.metadata["max"] == MAX_TOKEN_LENGTH


def test_the_client_is_rebuilt_in_the_triggerer_from_its_kwargs():
    client = RedshiftDataJobClient("aws_x", region_name="eu-west-1")
    client.session_ids["x"] = "y"  # what the worker learnt from a submit never crosses
    rebuilt = load_client(client.classpath(), client.serialize())
    assert isinstance(rebuilt, RedshiftDataJobClient) and rebuilt.serialize() == client.serialize()
    assert rebuilt.session_ids == {} and rebuilt.official_event_fields("s", JobStatus(JobPhase.SUCCEEDED, "FINISHED"),
                                                                       {}) == {"statement_id": "s"}


def test_same_arguments_template_fields_renderers_and_links_as_the_official_operator():
    from airflow.providers.amazon.aws.operators import redshift_data as official

    from durable_jobs.core.mixin import DurableJobMixin
    from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

    theirs = inspect.signature(official.RedshiftDataOperator.__init__).parameters
    mine = inspect.signature(RedshiftDataOperator.__init__).parameters
    assert set(theirs) <= set(mine) and {"durable", "fresh_on_clear", "cancel_on_kill"} <= set(mine)
    assert all(mine[name].default == p.default for name, p in theirs.items() if name != "deferrable")
    assert tuple(RedshiftDataOperator.template_fields) == tuple(official.RedshiftDataOperator.template_fields)
    assert RedshiftDataOperator.template_ext == official.RedshiftDataOperator.template_ext
    assert RedshiftDataOperator.template_fields_renderers == official.RedshiftDataOperator.template_fields_renderers
    assert list(RedshiftDataOperator.operator_extra_links) == list(
        official.RedshiftDataOperator.operator_extra_links)
    assert RedshiftDataOperator.external_id_key == official.RedshiftDataOperator.external_id_key
    assert RedshiftDataOperator.__mro__.index(DurableJobMixin) < RedshiftDataOperator.__mro__.index(
        official.RedshiftDataOperator)
    op = RedshiftDataOperator(task_id="t", sql="SELECT 1", database="dev", cluster_identifier="c",
                              default_args={"durable": False})
    assert op.durable is False and op.cancel_on_kill == "user"  # upstream's default True: a user's kill cancels


@pytest.mark.parametrize(("given", "policy"), [(True, "user"), (False, "never"), ("always", "always")])
def test_the_official_boolean_cancel_on_kill_maps_to_a_policy(given, policy):
    from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

    op = RedshiftDataOperator(task_id="t", sql="SELECT 1", database="dev", cluster_identifier="c",
                              cancel_on_kill=given)
    assert op.cancel_on_kill == policy


@pytest.mark.parametrize("kwargs", [
    {},  # neither a cluster, a workgroup nor a session
    {"cluster_identifier": "c", "workgroup_name": "w"},
    {"session_id": "not-a-uuid"},
    {"cluster_identifier": "c", "session_keep_alive_seconds": -1},
    # not 90000: upstream's check reads pendulum's ``duration(...).hours`` (the hours *component*, 0-23), so it
    # never refuses more than 24 hours; botocore's model (max 86400) then refuses it at the call, for both
])
def test_the_request_is_refused_as_the_official_hook_refuses_it(kwargs):
    """Upstream's checks (``RedshiftDataHook.execute_query``), with its messages, before anything is sent."""
    from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook

    from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

    op = RedshiftDataOperator(task_id="t", sql="SELECT 1", database="dev", **kwargs)
    with pytest.raises(ValueError) as ours:
        op.prepare_request({}, fresh_key=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError) as theirs:
        RedshiftDataHook(aws_conn_id=None).execute_query(sql="SELECT 1", database="dev", **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(("state", "error"), [("FAILED", "RedshiftDataQueryFailedError"),
                                               ("ABORTED", "RedshiftDataQueryAbortedError")])
def test_a_failed_statement_raises_the_official_exception(state, error):
    from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

    op = RedshiftDataOperator(task_id="t", sql="SELECT 1", database="dev", cluster_identifier="c")
    raw = {"Id": STATEMENT, "Status": state, "Error": "boom"}
    err = op.failure_error({}, STATEMENT, JobStatus(REDSHIFT_DATA_STATES.phase(state), state, "boom", raw))
    assert type(err).__name__ == error == _official_reading(state)
    assert str(err).startswith(f"Statement {STATEMENT} terminated with status {state}. Response details: ")

"""AWS Step Functions: the client's rules against botocore's own service model, and the drop-in surface."""

from __future__ import annotations

import inspect
import re

import botocore.session
import pytest

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.providers.amazon.aws.clients.stepfunctions import (
    MAX_CLIENT_TOKEN_LENGTH,
    MAX_NAME_LENGTH,
    STEP_FUNCTIONS_STATES,
    StepFunctionsJobClient,
    execution_arn_for,
    execution_name_for,
)

MACHINE = "arn:aws:states:eu-west-1:123456789012:stateMachine:orders"
#: StartExecution ``name``: "A name must not contain: white space, brackets < > { } [ ], wildcard characters
#: ? *, special characters " # % \ ^ | ~ ` $ & , ; : /" (and "To enable logging with CloudWatch Logs, the
#: name should only contain 0-9, A-Z, a-z, - and _").
LOGGABLE = re.compile(r"^[0-9A-Za-z_-]+$")


def _model():
    return botocore.session.get_session().get_service_model("stepfunctions")


def test_state_table_is_botocores_execution_status():
    assert STEP_FUNCTIONS_STATES.all_states == set(_model().shape_for("ExecutionStatus").enum)


def test_name_limits_are_the_models():
    name = _model().operation_model("StartExecution").input_shape.members["name"]
    token = _model().operation_model("RedriveExecution").input_shape.members["clientToken"]
    assert (name.metadata["min"], name.metadata["max"]) == (1, MAX_NAME_LENGTH)
    assert token.metadata["max"] == MAX_CLIENT_TOKEN_LENGTH and token.metadata["idempotencyToken"] is True


@pytest.mark.parametrize("user", [None, "", "nightly-20260101", "x" * 200])
def test_execution_name_keeps_the_key_within_80_loggable_characters(user):
    nonce = new_nonce()
    name = execution_name_for(nonce, user)
    assert name.endswith(nonce) and 1 <= len(name) <= MAX_NAME_LENGTH and LOGGABLE.match(name)
    if user:
        assert name.startswith(user[: MAX_NAME_LENGTH - len(nonce) - 1] + "-")
    else:
        assert name == nonce


def test_redrive_key_is_the_client_token_and_the_name_is_left_alone():
    nonce = new_nonce()
    client = StepFunctionsJobClient(state_machine_arn=MACHINE, redrive=True)
    assert client.format_key(nonce, "to-redrive") == nonce and len(nonce) <= MAX_CLIENT_TOKEN_LENGTH
    assert StepFunctionsJobClient(state_machine_arn=MACHINE).format_key(nonce, "mine") == f"mine-{nonce}"


@pytest.mark.parametrize("machine", [MACHINE, f"{MACHINE}:PROD", f"{MACHINE}:7"])
def test_execution_arn_of_a_state_machine_version_or_alias(machine):
    """IAM's execution resource:
    arn:${Partition}:states:${Region}:${Account}:execution:${StateMachineName}:${ExecutionId}."""
    assert execution_arn_for(machine, "run-1") == "arn:aws:states:eu-west-1:123456789012:execution:orders:run-1"


def test_a_state_machine_arn_that_is_not_one_is_refused_with_the_fix():
    with pytest.raises(DurableJobConfigError, match="state_machine_arn 'orders' is not a state machine ARN"):
        execution_arn_for("orders", "run-1")


def test_client_rebuilds_from_its_serialized_kwargs():
    client = StepFunctionsJobClient("aws_x", state_machine_arn=MACHINE, redrive=True, region_name="eu-west-1")
    again = StepFunctionsJobClient(**client.serialize())
    assert again.serialize() == client.serialize() and again.redrive and again.state_machine_arn == MACHINE


def test_operator_is_a_drop_in():
    from airflow.providers.amazon.aws.operators.step_function import (
        StepFunctionStartExecutionOperator as Official,
    )

    from durable_jobs.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator as Ours

    official = inspect.signature(Official.__init__).parameters
    ours = inspect.signature(Ours.__init__).parameters
    assert {k: (p.kind, p.default) for k, p in official.items() if k != "kwargs"}.items() <= {
        k: (p.kind, p.default) for k, p in ours.items()}.items()
    assert tuple(Ours.template_fields) == tuple(Official.template_fields)
    assert [type(link) for link in Ours.operator_extra_links] == [type(link) for link in Official.operator_extra_links]
    op = Ours(task_id="t", state_machine_arn=MACHINE, name="n")
    assert op.wait_for_termination is False  # as upstream: the synchronous path does not wait
    assert Ours(task_id="d", state_machine_arn=MACHINE, deferrable=True).wait_for_termination is True

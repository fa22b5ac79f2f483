"""AWS job clients as data and pure functions: state tables, key formats, tags, error classes."""

from __future__ import annotations

import hashlib
import re

import botocore.session
import pytest
from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError

from durable_jobs.core.client import load_client
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.athena import ATHENA_STATES, AthenaJobClient, format_request_token
from durable_jobs.providers.amazon.aws.clients.base import (
    KEY_TAG,
    is_ambiguous,
    is_retryable,
    is_tag_permission_error,
    merge_tags,
)
from durable_jobs.providers.amazon.aws.clients.batch import BATCH_STATES, BatchJobClient, job_name_for
from durable_jobs.providers.amazon.aws.clients.emr_serverless import (
    EMR_SERVERLESS_STATES,
    EmrServerlessJobClient,
    format_client_token,
)
from durable_jobs.providers.amazon.aws.clients.glue import GLUE_STATES, GlueJobClient
from durable_jobs.testing.emulators.aws_proxy import operation_of

NONCE = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("table", "service", "shape"),
    [(BATCH_STATES, "batch", "JobStatus"), (GLUE_STATES, "glue", "JobRunState"),
     (EMR_SERVERLESS_STATES, "emr-serverless", "JobRunState"), (ATHENA_STATES, "athena", "QueryExecutionState")],
)
def test_state_tables_cover_every_documented_state(table, service, shape):
    documented = set(botocore.session.get_session().get_service_model(service).shape_for(shape).enum)
    assert table.all_states == documented


def test_state_table_phases():
    assert BATCH_STATES.phase("RUNNABLE") is JobPhase.ACTIVE and BATCH_STATES.phase("FAILED") is JobPhase.FAILED
    assert GLUE_STATES.phase("STOPPING") is JobPhase.ACTIVE and GLUE_STATES.phase("EXPIRED") is JobPhase.FAILED
    assert EMR_SERVERLESS_STATES.phase("QUEUED") is JobPhase.ACTIVE
    assert EMR_SERVERLESS_STATES.phase("SUCCESS") is JobPhase.SUCCEEDED
    # a state the table does not list is never an end: the fault policy keeps watching it
    assert GLUE_STATES.phase("PAUSED") is JobPhase.UNKNOWN


def test_batch_job_name_keeps_the_key_within_128_characters():
    name = job_name_for("x" * 200, NONCE)
    assert len(name) == 128 and name.endswith("-" + NONCE)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{1,127}", job_name_for("nightly_etl", NONCE))


@pytest.mark.parametrize("user", [None, "nightly-20260101", "a b/c" * 20])
def test_emr_serverless_client_token_rules(user):
    token = format_client_token(NONCE, user)
    assert 1 <= len(token) <= 64 and re.fullmatch(r"[A-Za-z0-9._-]+", token) and token.endswith(NONCE)


@pytest.mark.parametrize("user", [None, "nightly-report", "x" * 95, "x" * 96, "a b/c ü" * 40])
def test_athena_client_request_token_rules(user):
    """StartQueryExecution's ClientRequestToken: "Length Constraints: Minimum length of 32. Maximum length of
    128." (no pattern); the model's own constraints are checked too, so a new botocore would show a change."""
    shape = botocore.session.get_session().get_service_model("athena").operation_model(
        "StartQueryExecution").input_shape.members["ClientRequestToken"]
    assert (shape.metadata["min"], shape.metadata["max"]) == (32, 128) and "pattern" not in shape.metadata
    token = format_request_token(NONCE, user)
    assert 32 <= len(token) <= 128 and token.endswith(NONCE)
    if user is None:
        assert token == NONCE
    elif len(user) + 1 + len(NONCE) <= 128:  # the user's token, then ours: a failed query's retry differs
        assert token == f"{user}-{NONCE}"
    else:  # too long to keep: a digest of it stands in
        assert token == f"{hashlib.sha256(user.encode()).hexdigest()}-{NONCE}"
    assert AthenaJobClient().format_key(NONCE, user) == token


def test_athena_batch_status_limit_is_the_documented_one():
    from durable_jobs.providers.amazon.aws.clients.athena import BATCH_GET_LIMIT

    model = botocore.session.get_session().get_service_model("athena")
    ids = model.operation_model("BatchGetQueryExecution").input_shape.members["QueryExecutionIds"]
    assert ids.metadata.get("max", BATCH_GET_LIMIT) == BATCH_GET_LIMIT == 50
    assert "up to 50 query executions" in model.operation_model("BatchGetQueryExecution").documentation


def test_aws_faults_are_sorted_for_the_polling_policy():
    pytest.importorskip("durable_jobs.core.faults")
    from durable_jobs.core.faults import FaultKind

    client = AthenaJobClient()
    assert client.classify(_client_error("TooManyRequestsException", 400)).kind is FaultKind.THROTTLED
    assert client.classify(_client_error("ThrottlingException", 400)).kind is FaultKind.THROTTLED
    assert client.classify(_client_error("InternalServerException", 500)).kind is FaultKind.TRANSIENT
    assert client.classify(_client_error("ExpiredTokenException", 400)).kind is FaultKind.AUTH
    assert client.classify(_client_error("AccessDeniedException", 403)).kind is FaultKind.AUTH
    assert client.classify(_client_error("InvalidRequestException", 400)).kind is FaultKind.REJECTED
    assert client.classify(ConnectionClosedError(endpoint_url="http://x")).kind is FaultKind.TRANSIENT
    assert client.connection_id == "aws_default"


def test_tags_merge_within_the_limit():
    assert merge_tags({"a": 1}, NONCE, limit=50) == ({"a": "1", KEY_TAG: NONCE}, True)
    full = {f"t{i}": "v" for i in range(50)}
    assert merge_tags(full, NONCE, limit=50) == (full, False)


def _client_error(code: str, status: int, message: str = "m") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": message},
                        "ResponseMetadata": {"HTTPStatusCode": status}}, "SubmitJob")


def test_error_classes():
    assert is_retryable(_client_error("TooManyRequestsException", 429))
    assert not is_ambiguous(_client_error("ThrottlingException", 400))  # refused: nothing was created
    assert is_ambiguous(_client_error("InternalServerException", 500))
    assert is_ambiguous(ConnectionClosedError(endpoint_url="http://x"))
    assert not is_ambiguous(EndpointConnectionError(endpoint_url="http://x"))
    assert not is_retryable(_client_error("ClientException", 400))
    denied = _client_error("AccessDeniedException", 403, "not authorized to perform: batch:TagResource")
    assert is_tag_permission_error(denied) and not is_retryable(denied)


@pytest.mark.parametrize(
    "client",
    [BatchJobClient("c", job_queue="q", job_name="n", region_name="eu-west-1", consistency_seconds=3),
     GlueJobClient(job_name="g", botocore_config={"retries": {"mode": "standard"}}),
     EmrServerlessJobClient(application_id="app"), AthenaJobClient("c", region_name="eu-west-1")],
)
def test_clients_rebuild_from_their_serialized_kwargs(client):
    import json

    kwargs = json.loads(json.dumps(client.serialize()))
    rebuilt = load_client(client.classpath(), kwargs)
    assert rebuilt.serialize() == client.serialize()


@pytest.mark.parametrize(
    ("method", "path", "service", "target", "op"),
    [("POST", "/v1/submitjob", "batch", None, "batch:SubmitJob"),
     ("POST", "/v1/listjobs", "batch", None, "batch:ListJobs"),
     ("POST", "/", "glue", "AWSGlue.StartJobRun", "glue:StartJobRun"),
     ("POST", "/applications/a1/jobruns", "emr-serverless", None, "emr-serverless:StartJobRun"),
     ("GET", "/applications/a1/jobruns?createdAtAfter=1", "emr-serverless", None, "emr-serverless:ListJobRuns"),
     ("GET", "/applications/a1/jobruns/j1", "emr-serverless", None, "emr-serverless:GetJobRun"),
     ("DELETE", "/applications/a1/jobruns/j1", "emr-serverless", None, "emr-serverless:CancelJobRun"),
     ("POST", "/", "athena", "AmazonAthena.StartQueryExecution", "athena:StartQueryExecution"),
     ("POST", "/", "athena", "AmazonAthena.BatchGetQueryExecution", "athena:BatchGetQueryExecution")],
)
def test_proxy_names_operations(method, path, service, target, op):
    headers = {"Authorization": f"AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/{service}/aws4_request, "
                                "SignedHeaders=host, Signature=x"}
    if target:
        headers["X-Amz-Target"] = target
    assert operation_of(method, path, headers) == op

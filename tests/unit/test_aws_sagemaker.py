"""SageMaker job client and operator rules: the state table covers the documented statuses and agrees with the
official hook's sets, the keyed name fits SageMaker's name rules, the client crosses to the triggerer, and the
three operators are drop-ins for the official classes.
"""

from __future__ import annotations

import inspect

import boto3
import pytest

from durable_jobs.core.checkpoint import CheckpointRecord
from durable_jobs.core.client import load_client
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.sagemaker import (
    MAX_NAME_LENGTH,
    NAME_PATTERN,
    SAGEMAKER_STATES,
    SageMakerJobClient,
    is_duplicate_name,
    job_name_for,
)

OPERATORS = ("SageMakerTrainingOperator", "SageMakerProcessingOperator", "SageMakerTransformOperator")


def _model():
    return boto3.client("sagemaker", region_name="us-east-1").meta.service_model


@pytest.mark.parametrize("job_type", ["Training", "Processing", "Transform"])
def test_every_documented_status_is_in_the_table(job_type):
    assert set(_model().shape_for(f"{job_type}JobStatus").enum) <= SAGEMAKER_STATES.all_states


def test_state_table_agrees_with_the_official_hooks_sets():
    from airflow.providers.amazon.aws.hooks.sagemaker import SageMakerHook

    assert SageMakerHook.non_terminal_states == SAGEMAKER_STATES.active
    assert SageMakerHook.training_failed_states <= SAGEMAKER_STATES.failed
    assert SageMakerHook.processing_job_failed_states <= SAGEMAKER_STATES.failed


@pytest.mark.parametrize("user_name", [None, "x", "train-20260101", "a" * 63, "a-" * 31 + "b"])
@pytest.mark.parametrize("job_type", ["Training", "Processing", "Transform"])
def test_the_keyed_name_fits_the_name_rules(job_type, user_name):
    record = CheckpointRecord.start_epoch(request_fingerprint="", fields={}, try_number=1, max_tries=1, retries=0,
                                          client=SageMakerJobClient.classpath())
    name = SageMakerJobClient(job_type=job_type).format_key(record.nonce, user_name)
    shape = _model().operation_model(f"Create{job_type}Job").input_shape.members[f"{job_type}JobName"]
    assert shape.metadata["min"] <= len(name) <= shape.metadata["max"] == MAX_NAME_LENGTH
    assert NAME_PATTERN.pattern.strip("^$") == shape.metadata["pattern"]
    assert NAME_PATTERN.match(name) and name.endswith(record.nonce)
    if user_name:
        assert name.startswith(user_name[:30])


def test_a_name_outside_the_pattern_is_refused_naming_the_field():
    from durable_jobs.core.exceptions import DurableJobConfigError

    with pytest.raises(DurableJobConfigError, match="ProcessingJobName 'my_job'"):
        SageMakerJobClient(job_type="Processing").format_key("0" * 32, "my_job")
    assert job_name_for("k") == "k"


def test_a_duplicate_name_is_read_from_resource_in_use_or_an_already_exists_validation():
    from botocore.exceptions import ClientError

    def err(code: str, message: str) -> ClientError:
        return ClientError({"Error": {"Code": code, "Message": message}}, "CreateTrainingJob")

    assert is_duplicate_name(err("ResourceInUse", "in use"))
    assert is_duplicate_name(err("ValidationException", "a training job with this name already exists"))
    assert not is_duplicate_name(err("ValidationException", "1 validation error detected"))
    assert not is_duplicate_name(err("ResourceLimitExceeded", "too many jobs"))


def test_the_client_is_rebuilt_in_the_triggerer_from_its_kwargs():
    client = SageMakerJobClient("aws_x", job_type="Transform", region_name="eu-west-1")
    rebuilt = load_client(client.classpath(), client.serialize())
    assert isinstance(rebuilt, SageMakerJobClient) and rebuilt.serialize() == client.serialize()
    assert rebuilt.job_type == "Transform" and rebuilt.status_endpoint == "sagemaker:DescribeTransformJob"
    assert rebuilt.official_event_fields("n", JobStatus(JobPhase.SUCCEEDED, "Completed"), {}) == {"job_name": "n"}


@pytest.mark.parametrize("name", OPERATORS)
def test_same_arguments_template_fields_and_links_as_the_official_operator(name):
    from airflow.providers.amazon.aws.operators import sagemaker as official

    from durable_jobs.core.mixin import DurableJobMixin
    from durable_jobs.providers.amazon.aws.operators import sagemaker as aws

    theirs_cls, mine_cls = getattr(official, name), getattr(aws, name)
    theirs = inspect.signature(theirs_cls.__init__).parameters
    mine = inspect.signature(mine_cls.__init__).parameters
    assert set(theirs) <= set(mine) and {"durable", "fresh_on_clear", "cancel_on_kill"} <= set(mine)
    assert all(mine[n].default == p.default for n, p in theirs.items() if n != "deferrable")
    assert tuple(mine_cls.template_fields) == tuple(theirs_cls.template_fields)
    assert mine_cls.template_fields_renderers == theirs_cls.template_fields_renderers
    assert list(mine_cls.operator_extra_links) == list(theirs_cls.operator_extra_links)
    assert mine_cls.__mro__.index(DurableJobMixin) < mine_cls.__mro__.index(theirs_cls)
    op = mine_cls(task_id="t", config={}, default_args={"durable": False})
    assert op.durable is False and op.cancel_on_kill == "user"
    with pytest.raises(Exception, match="action_if_job_exists accepts only 'timestamp' and 'fail'"):
        mine_cls(task_id="u", config={}, action_if_job_exists="increment")  # upstream refuses it too


def test_the_user_name_is_read_from_the_rendered_config():
    from durable_jobs.providers.amazon.aws.operators.sagemaker import (
        SageMakerTrainingOperator,
        SageMakerTransformOperator,
    )

    assert SageMakerTrainingOperator(task_id="t", config={"TrainingJobName": "a"}).user_idempotency_token() == "a"
    nested = SageMakerTransformOperator(task_id="t", config={"Transform": {"TransformJobName": "b"}})
    assert nested.user_idempotency_token() == "b"
    flat = SageMakerTransformOperator(task_id="t", config={"TransformJobName": "c"})
    assert flat.user_idempotency_token() == "c"
    assert SageMakerTrainingOperator(task_id="t", config={}).user_idempotency_token() is None


def test_wait_bounds_follow_upstream():
    from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator

    deferred = SageMakerTrainingOperator(task_id="t", config={}, deferrable=True, max_attempts=7)
    assert deferred.max_polls() == 7 and deferred.wait_for_termination
    sync = SageMakerTrainingOperator(task_id="t", config={}, check_interval=10, max_ingestion_time=25)
    assert sync.max_polls() == 3
    assert SageMakerTrainingOperator(task_id="t", config={}).max_polls() is None
    assert not SageMakerTrainingOperator(task_id="t", config={}, deferrable=True,
                                         wait_for_completion=False).wait_for_termination


def test_a_failed_job_raises_upstreams_message():
    from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerProcessingOperator

    op = SageMakerProcessingOperator(task_id="t", config={})
    err = op.failure_error({}, "n", JobStatus(JobPhase.FAILED, "Failed", "AlgorithmError: boom", {}))
    assert str(err).startswith("SageMaker job failed because AlgorithmError: boom")

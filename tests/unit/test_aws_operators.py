"""The durable AWS operators are drop-ins: same arguments, template fields, links; mixin first."""

from __future__ import annotations

import inspect

import pytest
from airflow.providers.amazon.aws.operators import athena as _athena
from airflow.providers.amazon.aws.operators import batch as _batch
from airflow.providers.amazon.aws.operators import emr as _emr
from airflow.providers.amazon.aws.operators import glue as _glue

from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient
from durable_jobs.providers.amazon.aws.operators import athena as aws_athena
from durable_jobs.providers.amazon.aws.operators import batch as aws_batch
from durable_jobs.providers.amazon.aws.operators import emr as aws_emr
from durable_jobs.providers.amazon.aws.operators import glue as aws_glue

PAIRS = [
    (aws_batch.BatchOperator, _batch.BatchOperator, dict(job_name="n", job_queue="q", job_definition="d")),
    (aws_glue.GlueJobOperator, _glue.GlueJobOperator, dict(job_name="g", script_location="s3://b/s.py")),
    (aws_emr.EmrServerlessStartJobOperator, _emr.EmrServerlessStartJobOperator,
     dict(application_id="a", execution_role_arn="arn:aws:iam::1:role/r", job_driver={})),
    (aws_athena.AthenaOperator, _athena.AthenaOperator, dict(query="SELECT 1", output_location="s3://b/r/")),
]


@pytest.mark.parametrize(("ours", "official", "_"), PAIRS)
def test_same_arguments_template_fields_and_links(ours, official, _):
    theirs = set(inspect.signature(official.__init__).parameters)
    mine = set(inspect.signature(ours.__init__).parameters)
    assert theirs <= mine and {"durable", "fresh_on_clear"} <= mine
    assert tuple(ours.template_fields) == tuple(official.template_fields)
    assert [type(link) for link in ours.operator_extra_links] == [type(link) for link in official.operator_extra_links]
    assert ours.__mro__[1] is not official and issubclass(ours, DurableJobMixin)
    assert ours.__mro__.index(DurableJobMixin) < ours.__mro__.index(official)


@pytest.mark.parametrize(("ours", "official", "kwargs"), PAIRS)
def test_operators_build_and_default_args_reach_durable(ours, official, kwargs):
    op = ours(task_id="t", default_args={"durable": False}, **kwargs)
    assert op.durable is False and op.cancel_on_kill == "user"


def test_emr_serverless_boolean_cancel_on_kill_maps_to_the_policy():
    kwargs = PAIRS[2][2]
    assert aws_emr.EmrServerlessStartJobOperator(task_id="a", cancel_on_kill=False, **kwargs).cancel_on_kill == "never"
    assert aws_emr.EmrServerlessStartJobOperator(task_id="b", cancel_on_kill=True, **kwargs).cancel_on_kill == "user"
    op = aws_emr.EmrServerlessStartJobOperator(task_id="c", client_request_token="mine", **kwargs)
    assert op.user_idempotency_token() == "mine"
    assert aws_emr.EmrServerlessStartJobOperator(task_id="d", **kwargs).user_idempotency_token() is None


def test_wait_and_poll_follow_the_official_arguments():
    batch = aws_batch.BatchOperator(task_id="t", job_name="n", job_queue="q", job_definition="d", poll_interval=7,
                              deferrable=True, wait_for_completion=False)
    assert batch.wait_for_termination and batch.poll_interval_seconds == 7  # deferrable always waits
    glue = aws_glue.GlueJobOperator(task_id="g", job_poll_interval=2, waiter_delay=9)
    assert glue.poll_interval_seconds == 2
    assert aws_glue.GlueJobOperator(task_id="h", waiter_delay=9, deferrable=True).poll_interval_seconds == 9
    emr = aws_emr.EmrServerlessStartJobOperator(task_id="e", wait_for_completion=False, **PAIRS[2][2])
    assert not emr.wait_for_termination


def test_external_id_keys():
    assert aws_glue.GlueJobOperator.external_id_key == "glue_job_run_id"  # the official operator's own
    assert aws_batch.BatchOperator.external_id_key == "batch_job_id"
    assert aws_emr.EmrServerlessStartJobOperator.external_id_key == "emr_serverless_job_run_id"
    assert aws_athena.AthenaOperator.external_id_key == "athena_query_execution_id"  # the official one is not resumable


def test_athena_waits_always_polls_every_sleep_time_and_honours_max_polling_attempts():
    op = aws_athena.AthenaOperator(task_id="a", query="SELECT 1", sleep_time=7, deferrable=True)
    assert op.wait_for_termination and op.poll_interval_seconds == 7
    assert op.max_polls() == 999999  # the official default when max_polling_attempts is None
    assert aws_athena.AthenaOperator(task_id="b", query="SELECT 1", max_polling_attempts=3).max_polls() == 3
    mine = aws_athena.AthenaOperator(task_id="c", query="SELECT 1", client_request_token="nightly-report")
    assert mine.user_idempotency_token() == "nightly-report" and op.user_idempotency_token() is None


def test_client_carries_the_rendered_queue_and_name():
    op = aws_batch.BatchOperator(task_id="t", job_name="n", job_queue="q", job_definition="d", region_name="eu-west-1")
    client = op.make_job_client()
    assert isinstance(client, BatchJobClient)
    assert (client.job_queue, client.job_name, client.region_name) == ("q", "n", "eu-west-1")

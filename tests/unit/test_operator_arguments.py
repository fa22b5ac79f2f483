"""Bad operator arguments fail when the DAG is parsed, naming the argument and the fix."""

from __future__ import annotations

import pendulum
import pytest
from airflow.sdk import DAG

from durable_jobs.core.exceptions import DurableJobConfigError, DurableJobError
from durable_jobs.providers.databricks.operators.databricks import (
    DatabricksRunNowOperator,
    DatabricksSubmitRunOperator,
)

TASKS = [{"task_key": "t", "notebook_task": {"notebook_path": "/p"}}]


def build(**kwargs):
    with DAG("args", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
        return DatabricksSubmitRunOperator(task_id="t", tasks=TASKS, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"cancel_on_kill": "sometimes"}, "cancel_on_kill"),
        ({"durable": "yes"}, "durable"),
        ({"fresh_on_clear": "no"}, "fresh_on_clear"),
        ({"polling_period_seconds": -5}, "polling_period_seconds"),
        ({"polling_period_seconds": "often"}, "polling_period_seconds"),
        ({"databricks_retry_limit": 0}, "databricks_retry_limit"),
        ({"databricks_retry_delay": -1}, "databricks_retry_delay"),
    ],
)
def test_bad_argument_is_named_at_parse_time(kwargs, named):
    with pytest.raises(DurableJobConfigError, match=named) as err:
        build(**kwargs)
    assert isinstance(err.value, ValueError) and isinstance(err.value, DurableJobError)


def test_default_args_reach_the_added_arguments():
    with DAG("defaults", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
             default_args={"durable": False, "cancel_on_kill": "never", "fresh_on_clear": False}):
        op = DatabricksRunNowOperator(task_id="t", job_id=1)
    assert (op.durable, op.cancel_on_kill, op.fresh_on_clear) == (False, "never", False)


def test_defaults():
    op = build()
    assert (op.durable, op.cancel_on_kill, op.fresh_on_clear) == (True, "user", True)


def test_deferrable_without_waiting_warns_at_parse_time(capfd):
    build(deferrable=True, wait_for_termination=False)
    out = capfd.readouterr()
    assert "deferrable=True with wait_for_termination=False neither defers nor polls" in out.out + out.err


def test_exceptions_are_airflow_exceptions_too():
    from airflow.exceptions import AirflowException

    assert issubclass(DurableJobError, AirflowException)


AWS_OPERATORS = {
    "BatchOperator": dict(job_name="j", job_queue="q", job_definition="d"),
    "GlueJobOperator": dict(job_name="g"),
    "EmrServerlessStartJobOperator": dict(application_id="a", execution_role_arn="arn:aws:iam::1:role/r",
                                          job_driver={}),
}


@pytest.mark.parametrize(
    ("name", "kwargs", "named"),
    [
        ("BatchOperator", {"poll_interval": -1}, "poll_interval"),
        ("BatchOperator", {"poll_interval": "often"}, "poll_interval"),
        ("GlueJobOperator", {"job_poll_interval": -1}, "job_poll_interval"),
        ("GlueJobOperator", {"deferrable": True, "waiter_delay": -1}, "waiter_delay"),
        ("EmrServerlessStartJobOperator", {"waiter_delay": -1}, "waiter_delay"),
        ("BatchOperator", {"cancel_on_kill": "sometimes"}, "cancel_on_kill"),
    ],
)
def test_aws_operators_name_their_own_arguments(name, kwargs, named):
    """The mixin is vendor-neutral: the error names the argument of *this* operator, never another's."""

    with DAG("aws-args", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
        with pytest.raises(DurableJobConfigError, match=rf"^{named} ") as err:
            _ours(name)(task_id="t", **AWS_OPERATORS[name], **kwargs)
    assert "polling_period_seconds" not in str(err.value)


def test_user_token_is_read_from_the_operators_own_argument():
    from durable_jobs.providers.amazon.aws.operators import batch as aws_batch
    from durable_jobs.providers.amazon.aws.operators import emr as aws_emr

    kwargs = AWS_OPERATORS["EmrServerlessStartJobOperator"]
    with DAG("tokens", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
        databricks = build(idempotency_token="mine")
        emr = aws_emr.EmrServerlessStartJobOperator(task_id="e", client_request_token="theirs", **kwargs)
        batch = aws_batch.BatchOperator(task_id="b", **AWS_OPERATORS["BatchOperator"])
    assert databricks.user_idempotency_token() == "mine"
    assert emr.user_idempotency_token() == "theirs"
    assert batch.user_idempotency_token() is None  # Batch has no token argument at all


def test_deferrable_refuses_retry_args_that_cannot_reach_the_triggerer():
    """As the official trigger does: same message, same moment (before defer(), not at parse time)."""
    from tenacity import stop_after_attempt

    op = build(deferrable=True, databricks_retry_args={"stop": stop_after_attempt(2)})
    with pytest.raises(ValueError, match="does not support non-serializable retry_args/databricks_retry_args"):
        op.validate_for_deferral()
    build(deferrable=True, databricks_retry_args={"reraise": True}).validate_for_deferral()  # serialisable


def test_a_zero_polling_interval_is_accepted_as_upstream_does_with_a_warning(capfd):
    from durable_jobs.providers.amazon.aws.operators import athena as aws_athena

    with DAG("zero", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
        op = aws_athena.AthenaOperator(task_id="a", query="SELECT 1", sleep_time=0)
    assert op.poll_interval_seconds == 0
    out = capfd.readouterr()
    assert "sleep_time=0 polls without pausing" in out.out + out.err


def _ours(name: str) -> type:
    """Our class of that name, from the module the registry says it mirrors."""
    import importlib

    from durable_jobs import vendors

    op = next(op for _, _, op in vendors.operators() if op.name == name)
    return getattr(importlib.import_module(op.module), name)


#: The operators whose official counterpart has a boolean ``cancel_on_kill`` of its own (Snowflake's notebook
#: operator passes it on to the SQL API operator it extends).
OFFICIAL_BOOLEAN = {"EmrServerlessStartJobOperator", "EmrContainerOperator", "RedshiftDataOperator",
                    "SnowflakeSqlApiOperator", "SnowflakeNotebookOperator", "BigQueryInsertJobOperator",
                    "DataprocSubmitJobOperator",
                    "DataflowTemplatedJobStartOperator", "DataflowStartFlexTemplateOperator"}


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_cancel_on_kill_is_refused_where_the_official_operator_has_none(value):
    """``True`` could mean "user" or "always": the DAG fails to parse, naming the accepted values."""
    with pytest.raises(DurableJobConfigError, match=r"^cancel_on_kill must be one of 'user', 'always', 'never', "
                                                     rf"got {value}: this operator's official counterpart has no "
                                                     "boolean cancel_on_kill"):
        build(cancel_on_kill=value)
    with DAG("aws-bool", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
        with pytest.raises(DurableJobConfigError, match="'user', 'always', 'never'"):
            _ours("BatchOperator")(task_id="t", **AWS_OPERATORS["BatchOperator"], cancel_on_kill=value)


@pytest.mark.parametrize(("value", "policy"), [(True, "user"), (False, "never")])
def test_the_official_boolean_is_kept_where_the_official_operator_has_one(value, policy):
    """Swapping the import keeps such a DAG valid: True cancels on a user's kill, False never."""
    kwargs = AWS_OPERATORS["EmrServerlessStartJobOperator"]
    with DAG("emr-bool", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")):
        op = _ours("EmrServerlessStartJobOperator")(task_id="t", cancel_on_kill=value, **kwargs)
    assert op.cancel_on_kill == policy


def test_which_official_operators_have_a_boolean_cancel_on_kill():
    """Read from the official signatures: a provider that adds or drops the argument shows up here."""
    import importlib

    from durable_jobs import vendors
    from durable_jobs.core.cancel import official_takes_boolean

    found = {op.name for _, _, op in vendors.operators()
             if official_takes_boolean(getattr(importlib.import_module(op.module), op.name))}
    assert found == OFFICIAL_BOOLEAN

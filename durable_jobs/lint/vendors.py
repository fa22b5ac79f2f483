"""What job systems look like in DAG code: submit calls, waits, status checks, operators.

Data only (plus two tiny predicates), so that the split rule and the hand-written-submit rule
agree on what "submits a job" and "waits for it" mean.
"""

from __future__ import annotations

import ast
import re

from durable_jobs.lint.exprs import int_value, is_false, is_true, kwargs, literal_text
from durable_jobs.lint.imports import last

# Hook / SDK / boto3 methods that create a job run in an external system.
SUBMIT_METHODS = frozenset({
    "submit_run", "run_now",                                   # Databricks hook
    "start_job_run", "initialize_job",                         # Glue, EMR Serverless/containers
    "add_job_flow_steps", "run_job_flow",                      # EMR
    "submit_job", "submit_job_as_operation", "create_batch",   # Batch, Dataproc
    "insert_job",                                              # BigQuery hook
    "execute_query", "execute_async",                          # Snowflake SQL API / connector
    "execute_statement",                                       # Redshift Data API
    "start_query_execution", "run_query",                      # Athena
    "create_training_job", "create_processing_job", "create_transform_job",  # SageMaker
    "start_execution",                                         # Step Functions
    "trigger_job_run",                                         # dbt Cloud
    "post_batch",                                              # Livy
    "create_run",                                              # Azure Data Factory
})
# REST paths that submit when called through a generic HTTP helper (``_do_api_call``...).
SUBMIT_PATHS = ("jobs/runs/submit", "jobs/run-now")

# Calls that block until the job finishes.
WAIT_METHODS = frozenset({
    "wait", "result", "job_completion", "poll_until_complete", "poll_query_status",
    "check_query_status_until_done",
})
# One-shot status reads: a task that calls one of these on another task's job is polling it.
STATUS_METHODS = frozenset({
    "get_run_state", "get_run", "get_run_status", "get_run_page_url",
    "describe_jobs", "describe_step", "describe_cluster", "get_job_run", "get_job_state",
    "get_job_status", "get_job", "get_batch", "get_batch_state", "get_query_status",
    "get_sql_api_query_status", "describe_statement", "get_query_execution",
    "describe_training_job", "describe_execution", "get_job_run_status", "get_job_runs",
})

# Operators that poll unless told otherwise, keyed by class name: the argument that turns the
# poll off. Generic arguments cover the rest.
_WAIT_OFF_DEFAULT = {"EmrAddStepsOperator": "wait_for_completion", "LivyOperator": "polling_interval"}

# Official operators that ship ResumableJobMixin on their synchronous path.
OFFICIAL_DURABLE = frozenset({"DatabricksSubmitRunOperator", "DatabricksRunNowOperator"})

JOB_ID_KEY_RE = re.compile(
    r"(job|run|batch|step|query|statement|execution|application|app|cluster|submission|driver|"
    r"operation|workflow|external)[_-]?(run[_-]?)?(id|ids|arn)$",
    re.IGNORECASE,
)


def is_submit_call(call: ast.Call) -> bool:
    if isinstance(call.func, ast.Attribute):
        method = call.func.attr
        if method in SUBMIT_METHODS:
            return True
        receiver = ast.unparse(call.func.value).lower()
        if method == "query" and ("bigquery" in receiver or "bq" in receiver):
            return True
        if method == "submit" and receiver.endswith("jobs"):      # databricks-sdk w.jobs.submit
            return True
    return any(path in literal_text(arg) for arg in call.args for path in SUBMIT_PATHS)


def is_wait_call(call: ast.Call) -> bool:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else (
        call.func.id if isinstance(call.func, ast.Name) else "")
    return name in WAIT_METHODS or name.startswith(("wait_for", "wait_until")) or name == "get_waiter"


def is_status_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in STATUS_METHODS


def fire_and_forget_arg(cls: str | None, call: ast.Call) -> ast.AST | None:
    """The argument (or the call itself) that makes an operator return on acceptance."""
    kw = kwargs(call)
    for name in ("wait_for_termination", "wait_for_completion"):
        if is_false(kw.get(name)):
            return kw[name]
    for name in ("asynchronous", "nowait"):
        if is_true(kw.get(name)):
            return kw[name]
    off = _WAIT_OFF_DEFAULT.get(last(cls))
    if off == "wait_for_completion" and not is_true(kw.get(off)):
        return call
    if off == "polling_interval":               # LivyOperator: 0 (the default) means no polling
        value = kw.get(off)
        if value is None:
            return call
        if int_value(value) == 0:
            return value
    return None


def is_sensor_class(cls: str | None) -> bool:
    return last(cls).endswith("Sensor") or last(cls).endswith("SensorOperator")


def is_operator_class(cls: str | None) -> bool:
    name = last(cls)
    return name.endswith(("Operator", "Sensor")) or name == "BaseOperator"


def is_durable_class(cls: str | None) -> bool:
    """Our operators, and the official ones that checkpoint on their sync path."""
    if not cls:
        return False
    if cls.startswith("durable_jobs.operators."):
        return last(cls).endswith("Operator")
    return last(cls) in OFFICIAL_DURABLE and (
        cls.startswith("airflow.providers.databricks") or "." not in cls
    )

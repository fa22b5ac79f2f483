"""AWS DAGs for the compatibility subset (Batch, Glue, EMR Serverless, Athena), run against moto behind our fault
proxy (``durable_jobs.testing.emulators.aws_env``); parsed by dag.test() on Airflow 2.11, 3.2 and 3.3 alike.

Resource names match ``aws_env``; the EMR Serverless application id comes from the Variable that the
``aws`` fixture sets (``AIRFLOW_VAR_DURABLE_EMR_APPLICATION_ID``), as in tests/integration.
"""

from __future__ import annotations

from datetime import timedelta

from compat_dags import _dag, _RecordDeferrals

from durable_jobs.providers.amazon.aws.operators.athena import AthenaOperator
from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator
from durable_jobs.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator
from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator

ROLE_ARN = "arn:aws:iam::123456789012:role/durable-jobs-role"
FAST = {"retries": 1, "retry_delay": timedelta(0)}


class Batch(_RecordDeferrals, BatchOperator):
    pass


class Glue(_RecordDeferrals, GlueJobOperator):
    pass


class EmrServerless(_RecordDeferrals, EmrServerlessStartJobOperator):
    pass


class Athena(_RecordDeferrals, AthenaOperator):
    pass


def _batch(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        Batch(task_id="run", job_name="compat-etl", job_queue="durable-queue", job_definition="durable-job-def",
              poll_interval=0.2, **FAST, **kwargs)
    return dag


def _glue(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        Glue(task_id="run", job_name="compat-glue-etl", script_location="s3://durable-bucket/scripts/etl.py",
             iam_role_arn=ROLE_ARN, s3_bucket="durable-bucket", job_poll_interval=0.2, waiter_delay=0.2,
             concurrent_run_limit=5, **FAST, **kwargs)
    return dag


def _emr(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        EmrServerless(task_id="run", application_id="{{ var.value.durable_emr_application_id }}",
                      execution_role_arn=ROLE_ARN, waiter_delay=1, name="compat-emr-run",
                      job_driver={"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}},
                      **FAST, **kwargs)
    return dag


def _athena(dag_id: str, **kwargs):
    with _dag(dag_id) as dag:
        Athena(task_id="run", query="SELECT * FROM compat_events", database="analytics",
               workgroup="durable-athena", sleep_time=0.2, **FAST, **kwargs)
    return dag


batch_sync = _batch("compat_aws_batch_sync")
batch_deferrable = _batch("compat_aws_batch_deferrable", deferrable=True)
glue_sync = _glue("compat_aws_glue_sync")
glue_deferrable = _glue("compat_aws_glue_deferrable", deferrable=True)
emr_sync = _emr("compat_aws_emr_sync")
emr_deferrable = _emr("compat_aws_emr_deferrable", deferrable=True)
athena_sync = _athena("compat_aws_athena_sync")
athena_deferrable = _athena("compat_aws_athena_deferrable", deferrable=True)
# EMR Serverless waits only with wait_for_completion=True, deferrable or not (Batch and Glue always
# wait when deferrable, as the official operators do).
emr_fire_and_forget = _emr("compat_aws_emr_fire_and_forget", deferrable=True, wait_for_completion=False)

SYNC = [batch_sync, glue_sync, emr_sync, athena_sync]
DEFERRABLE = [batch_deferrable, glue_deferrable, emr_deferrable, athena_deferrable]

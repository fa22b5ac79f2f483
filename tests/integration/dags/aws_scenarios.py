"""DAGs for the AWS integration tests (run through Airflow against moto behind our fault proxy).

``batch()``, ``glue()``, ``emr()`` and ``athena()`` build one-task DAGs; a test can build an *edited* copy
(same dag_id, different request), the way a redeployed DAG file is parsed between two tries.
Resource names match ``durable_jobs.testing.emulators.aws_env``.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.amazon.aws.operators.athena import AthenaOperator as OfficialAthenaOperator
from airflow.providers.amazon.aws.operators.batch import BatchOperator as OfficialBatchOperator
from airflow.providers.amazon.aws.operators.glue import GlueJobOperator as OfficialGlueJobOperator
from airflow.sdk import DAG

from durable_jobs.providers.amazon.aws.operators.athena import AthenaOperator
from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator
from durable_jobs.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator
from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator

START = pendulum.datetime(2026, 1, 1, tz="UTC")
RETRIES = dict(retries=2, retry_delay=timedelta(0))
ROLE_ARN = "arn:aws:iam::123456789012:role/durable-jobs-role"
EMR_APP = "{{ var.value.durable_emr_application_id }}"


def _dag(dag_id: str, operator, **kwargs) -> DAG:
    with DAG(dag_id, schedule=None, start_date=START, catchup=False) as dag:
        operator(task_id="run", **{**RETRIES, **kwargs})
    return dag


def batch(dag_id: str, *, operator=BatchOperator, **kwargs) -> DAG:
    args = dict(job_name="nightly-etl", job_queue="durable-queue", job_definition="durable-job-def",
                poll_interval=0.2)
    return _dag(dag_id, operator, **{**args, **kwargs})


def glue(dag_id: str, *, operator=GlueJobOperator, **kwargs) -> DAG:
    args = dict(job_name="durable-glue-etl", script_location="s3://durable-bucket/scripts/etl.py",
                iam_role_arn=ROLE_ARN, s3_bucket="durable-bucket", job_poll_interval=0.2, waiter_delay=0.2,
                concurrent_run_limit=5)
    return _dag(dag_id, operator, **{**args, **kwargs})


def emr(dag_id: str, **kwargs) -> DAG:
    args = dict(application_id=EMR_APP, execution_role_arn=ROLE_ARN, waiter_delay=1, name="durable-emr-run",
                job_driver={"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}})
    return _dag(dag_id, EmrServerlessStartJobOperator, **{**args, **kwargs})


def athena(dag_id: str, *, operator=AthenaOperator, **kwargs) -> DAG:
    args = dict(query="SELECT day, count(*) FROM sales WHERE day = DATE '{{ ds }}' GROUP BY day",
                database="analytics", workgroup="durable-athena", sleep_time=0.2)
    return _dag(dag_id, operator, **{**args, **kwargs})


batch_sync = batch("aws_batch_sync")
batch_deferrable = batch("aws_batch_deferrable", deferrable=True)
batch_fails = batch("aws_batch_fails", job_definition="durable-job-def-fails", retries=1)
batch_fails_deferrable = batch("aws_batch_fails_deferrable", job_definition="durable-job-def-fails",
                               retries=1, deferrable=True)
batch_tagged = batch("aws_batch_tagged", tags={"team": "data", "cost-center": "42"})
batch_keep_on_clear = batch("aws_batch_keep_on_clear", fresh_on_clear=False)
batch_nowait = batch("aws_batch_nowait", wait_for_completion=False)
# The official operators, for the duplicate that botocore's own retry makes of a lost reply.
batch_official = batch("aws_batch_official", operator=OfficialBatchOperator, wait_for_completion=False)

glue_sync = glue("aws_glue_sync")
glue_deferrable = glue("aws_glue_deferrable", deferrable=True)
glue_official = glue("aws_glue_official", operator=OfficialGlueJobOperator, wait_for_completion=False)
glue_fails = glue("aws_glue_fails", script_location="s3://durable-bucket/scripts/fail.py", retries=1,
                  job_name="durable-glue-fails")

emr_sync = emr("aws_emr_sync")
emr_deferrable = emr("aws_emr_deferrable", deferrable=True)
emr_fails = emr("aws_emr_fails", retries=1,
                job_driver={"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/fail.py"}})
emr_user_token = emr("aws_emr_user_token", client_request_token="nightly-{{ ds_nodash }}")

athena_sync = athena("aws_athena_sync")
athena_deferrable = athena("aws_athena_deferrable", deferrable=True)
athena_fails = athena("aws_athena_fails", query="SELECT * FROM fail_table", retries=1)
athena_fails_deferrable = athena("aws_athena_fails_deferrable", query="SELECT * FROM fail_table", retries=1,
                                 deferrable=True)
athena_user_token = athena("aws_athena_user_token", client_request_token="nightly-report")  # not a template field
athena_output = athena("aws_athena_output", workgroup="primary", output_location="s3://durable-athena-results/adhoc/")
athena_official = athena("aws_athena_official", operator=OfficialAthenaOperator)

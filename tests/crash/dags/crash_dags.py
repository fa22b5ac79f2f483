"""One DAG per crash-test cell (scenario x operator x mode), read from $DJ_CRASH_CELLS.

``airflow`` + ``DAG`` appear in this file so the DAG processor's heuristic picks it up. Each cell's
DAG has one task, ``submit``, talking to that cell's own emulator through its own connection id.
"""

from __future__ import annotations

import json
import os
import time
from datetime import timedelta

import pendulum
from airflow.providers.databricks.operators import databricks as official
from airflow.sdk import DAG, get_parsing_context

from durable_jobs import vendors
from durable_jobs.providers.databricks.operators import databricks as ours

TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]


class ReadsOutputOnComplete:
    """The usual subclass: read the run's output when the trigger fires (one runs/get-output call).

    Used by W5 (deferrable) so the worker can be held, and killed, inside ``execute_complete``.
    """

    def execute_complete(self, context, event=None):
        run_id = (event or {}).get("run_id") or (event or {}).get("job_id")
        self._hook.get_run_output(run_id)
        return super().execute_complete(context, event)


class ReadsStatementResultOnComplete:
    """The SQL statements twin: read the first result chunk when the trigger fires (one GET .../result/chunks/0),
    so that W5 (deferrable) can hold, and kill, the worker inside ``execute_complete``."""

    def execute_complete(self, context, event=None):
        statement_id = (event or {}).get("statement_id") or (event or {}).get("job_id")
        self._hook._do_api_call(("GET", f"2.0/sql/statements/{statement_id}/result/chunks/0"))
        return super().execute_complete(context, event)


class OursReadsOutput(ReadsOutputOnComplete, ours.DatabricksSubmitRunOperator):
    pass


class OfficialReadsOutput(ReadsOutputOnComplete, official.DatabricksSubmitRunOperator):
    pass


OPERATORS = {
    ("ours", False): ours.DatabricksSubmitRunOperator,
    ("official", False): official.DatabricksSubmitRunOperator,
    ("ours", True): OursReadsOutput,
    ("official", True): OfficialReadsOutput,
}


class OursRunNowReadsOutput(ReadsOutputOnComplete, ours.DatabricksRunNowOperator):
    pass


class OfficialRunNowReadsOutput(ReadsOutputOnComplete, official.DatabricksRunNowOperator):
    pass


#: tests/crash/crash_runnow.py: the job every RunNow cell triggers (seeded on its emulator by the driver)
RUN_NOW_JOB_ID = 4242
RUN_NOW_OPERATORS = {
    ("ours", False): ours.DatabricksRunNowOperator,
    ("official", False): official.DatabricksRunNowOperator,
    ("ours", True): OursRunNowReadsOutput,
    ("official", True): OfficialRunNowReadsOutput,
}


def _cells() -> list[dict]:
    """The session's cells; only the one being run when a task runner parses this file for its DAG.

    Airflow's parsing context names the DAG a worker parses the file for (its documented optimisation for
    generated DAGs): building only that one keeps each task from importing every vendor's provider (google's
    alone costs seconds of CPU per task on 2 cores). The DAG processor parses them all.
    """
    path = os.environ.get("DJ_CRASH_CELLS")
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        cells = json.load(f)
    wanted = get_parsing_context().dag_id
    return [c for c in cells if c["dag_id"] == wanted] if wanted else cells


#: Resource names of durable_jobs.testing.emulators.aws_env (the shared moto's Batch queue, Athena workgroup, IAM role).
ROLE_ARN = "arn:aws:iam::123456789012:role/durable-jobs-role"
SCRIPT = "s3://durable-bucket/scripts/etl.py"


class AwsReadsOnComplete:
    """One read the worker makes inside ``execute_complete`` before the operator's own (W5, AWS, deferrable).

    ``glue:GetJob`` / ``emr-serverless:GetApplication``: operations the trigger never calls, so the cell
    can hold this read (tests/crash/crash_aws_rows.py) and SIGKILL the worker inside ``execute_complete``.
    """

    def execute_complete(self, context, event=None):
        if hasattr(self, "application_id"):
            self.hook.conn.get_application(applicationId=self.application_id)
        else:
            self.hook.conn.get_job(JobName=self.job_name)
        return super().execute_complete(context, event)


def _reads_on_complete(op: type) -> type:
    return type(op.__name__, (AwsReadsOnComplete, op), {"__module__": __name__})


def _aws_task(cell: dict) -> None:
    """The cell's AWS task, ours or the official one, on its own connection (its own proxy).

    Each cell's jobs carry its DAG id (Batch job name, Glue job, EMR Serverless run name, Athena query
    text), which is how tests/crash/crash_aws.py counts them in the shared moto.
    """
    from airflow.providers.amazon.aws.operators import athena as official_athena
    from airflow.providers.amazon.aws.operators import batch as official_batch
    from airflow.providers.amazon.aws.operators import emr as official_emr
    from airflow.providers.amazon.aws.operators import glue as official_glue

    from durable_jobs.providers.amazon.aws.operators import athena as ours_aws_athena
    from durable_jobs.providers.amazon.aws.operators import batch as ours_aws_batch
    from durable_jobs.providers.amazon.aws.operators import emr as ours_aws_emr
    from durable_jobs.providers.amazon.aws.operators import glue as ours_aws_glue

    ours = cell["operator"] == "ours"
    common = dict(task_id="submit", aws_conn_id=cell["conn_id"], deferrable=cell["mode"] == "deferrable",
                  **_task_args(cell))
    if ours:
        common["cancel_on_kill"] = cell.get("cancel_on_kill", "user")
    if cell["vendor"] == "athena":  # the query names the cell: moto's listing is counted per cell by it
        op = ours_aws_athena.AthenaOperator if ours else official_athena.AthenaOperator
        op(query=f"SELECT '{cell['dag_id']}' AS cell", database="analytics", workgroup="durable-athena",
           sleep_time=1, **common)
        return
    if cell["vendor"] == "glue":  # one Glue job per cell, created by the operator on its first try
        op = ours_aws_glue.GlueJobOperator if ours else official_glue.GlueJobOperator
        op = _reads_on_complete(op) if cell.get("reads_output") else op  # tests/crash/crash_aws_rows.py W5
        op(job_name=cell["dag_id"], script_location=SCRIPT, iam_role_arn=ROLE_ARN, s3_bucket="durable-bucket",
           concurrent_run_limit=5, job_poll_interval=1, waiter_delay=1, waiter_max_attempts=600, **common)
        return
    if cell["vendor"] == "emr_serverless":  # the shared application; the run is named after the cell
        op = ours_aws_emr.EmrServerlessStartJobOperator if ours else official_emr.EmrServerlessStartJobOperator
        if ours:
            common["cancel_on_kill"] = True  # its official boolean (True: a user's kill cancels)
        op = _reads_on_complete(op) if cell.get("reads_output") else op  # tests/crash/crash_aws_rows.py W5
        op(application_id=os.environ.get("DJ_CRASH_EMR_APPLICATION", ""), execution_role_arn=ROLE_ARN,
           name=cell["dag_id"], job_driver={"sparkSubmit": {"entryPoint": SCRIPT}}, waiter_delay=1,
           waiter_max_attempts=600, **common)
        return
    if cell["vendor"] == "stepfunctions":  # tests/crash/crash_sfn_rows.py; the input names the cell
        _sfn_task(cell, common)
        return
    if cell["vendor"] == "ecs":  # tests/crash/crash_ecs_rows.py; the task group names the cell
        _ecs_task(cell, common)
        return
    if cell["vendor"] == "emr_containers":  # tests/crash/crash_emr_containers_rows.py; the run names the cell
        _emr_containers_task(cell, common)
        return
    if cell["vendor"] == "emr_steps":  # tests/crash/crash_emr_steps_rows.py; the step's name is the cell
        _emr_steps_task(cell, common)
        return
    if cell["vendor"] == "redshift_data":  # tests/crash/crash_redshift_data_rows.py; the SQL names the cell
        _redshift_data_task(cell, common)
        return
    if cell["vendor"].startswith("sagemaker"):  # tests/crash/crash_sagemaker_rows.py; a "cell" tag names the cell
        _sagemaker_task(cell, common)
        return
    op = ours_aws_batch.BatchOperator if cell["operator"] == "ours" else official_batch.BatchOperator
    op(job_name=cell["dag_id"], job_queue="durable-queue", job_definition="durable-job-def", poll_interval=1,
       max_retries=600, **common)


#: durable_jobs.testing.emulators.aws_env.STATE_MACHINE_ARN: the shared moto's one state machine
STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:durable-state-machine"


class SfnReadsAfterStart:
    """One ``DescribeStateMachine`` the worker makes once the execution has started (W5, Step Functions):
    after ``execute`` returns on the synchronous path (which does not wait, as upstream), inside
    ``execute_complete`` on the deferrable one. The trigger never calls it, so the cell can hold it."""

    def _crash_cell_read(self) -> None:  # not `_read`: DurableJobMixin has one
        self.hook.conn.describe_state_machine(stateMachineArn=self.state_machine_arn)

    def execute(self, context):
        result = super().execute(context)
        self._crash_cell_read()
        return result

    def execute_complete(self, context, event=None):
        self._crash_cell_read()
        return super().execute_complete(context, event)


def _sfn_task(cell: dict, common: dict) -> None:
    from airflow.providers.amazon.aws.operators import step_function as official_sfn

    from durable_jobs.providers.amazon.aws.operators import step_function as ours_aws_step_function

    op = ours_aws_step_function.StepFunctionStartExecutionOperator if cell["operator"] == "ours" else (
        official_sfn.StepFunctionStartExecutionOperator)
    if cell.get("reads_output"):
        op = type(op.__name__, (SfnReadsAfterStart, op), {"__module__": __name__})
    op(state_machine_arn=STATE_MACHINE_ARN, state_machine_input={"cell": cell["dag_id"]}, waiter_delay=1,
       waiter_max_attempts=600, **common)


class EcsReadsOnComplete:
    """One ``DescribeClusters`` the worker makes inside ``execute_complete`` (W5, ECS, deferrable): the trigger
    never calls it, so the cell can hold it (tests/crash/crash_ecs_rows.py)."""

    def execute_complete(self, context, event=None):
        self.client.describe_clusters(clusters=[self.cluster])
        return super().execute_complete(context, event)


def _ecs_task(cell: dict, common: dict) -> None:
    """Amazon ECS: ours or the official ``EcsRunTaskOperator``; the task ``group`` names the cell."""
    from airflow.providers.amazon.aws.operators import ecs as official_ecs

    from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

    op = EcsRunTaskOperator if cell["operator"] == "ours" else official_ecs.EcsRunTaskOperator
    if cell.get("reads_output"):
        op = type(op.__name__, (EcsReadsOnComplete, op), {"__module__": __name__})
    op(cluster="durable-cluster", task_definition="durable-task", launch_type="FARGATE", overrides={},
       group=cell["dag_id"], waiter_delay=1, waiter_max_attempts=600, **common)


class RedshiftDataReadsOnComplete:
    """One ``GetStatementResult`` the worker makes inside ``execute_complete`` (W5, Redshift Data, deferrable): the
    trigger never calls it, so the cell can hold it (tests/crash/crash_redshift_data_rows.py)."""

    def execute_complete(self, context, event=None):
        statement_id = (event or {}).get("statement_id") or (event or {}).get("job_id")
        self.hook.conn.get_statement_result(Id=statement_id)
        return super().execute_complete(context, event)


def _redshift_data_task(cell: dict, common: dict) -> None:
    """Amazon Redshift Data API: ours or the official ``RedshiftDataOperator``; the SQL names the cell."""
    from airflow.providers.amazon.aws.operators import redshift_data as official_rsd

    from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

    op = RedshiftDataOperator if cell["operator"] == "ours" else official_rsd.RedshiftDataOperator
    if cell.get("reads_output"):
        op = type(op.__name__, (RedshiftDataReadsOnComplete, op), {"__module__": __name__})
    op(cluster_identifier="durable-cluster", database="dev", db_user="airflow",
       sql=f"SELECT '{cell['dag_id']}' AS cell", poll_interval=1, **common)


def _snowflake_task(cell: dict) -> None:
    """The cell's SQL API task, ours or the official one, on its own connection (its own emulator)."""
    from airflow.providers.snowflake.operators import snowflake as official_snowflake

    from durable_jobs.providers.snowflake.operators import snowflake as ours_snowflake

    ours = cell["operator"] == "ours"
    op = ours_snowflake.SnowflakeSqlApiOperator if ours else official_snowflake.SnowflakeSqlApiOperator
    kwargs = dict(task_id="submit", snowflake_conn_id=cell["conn_id"], statement_count=1, poll_interval=1,
                  sql=f"INSERT INTO crash_cells SELECT '{cell['dag_id']}'", deferrable=cell["mode"] == "deferrable",
                  **_task_args(cell))
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


def _bigquery_task(cell: dict) -> None:
    """The cell's BigQuery insert job, ours or the official one, on its own connection (its own project)."""
    from airflow.providers.google.cloud.operators import bigquery as official_bigquery

    from durable_jobs.providers.google.cloud.operators import bigquery as ours_bigquery

    ours = cell["operator"] == "ours"
    op = ours_bigquery.BigQueryInsertJobOperator if ours else official_bigquery.BigQueryInsertJobOperator
    kwargs = dict(task_id="submit", gcp_conn_id=cell["conn_id"], location="US", poll_interval=1,
                  configuration={"query": {"query": f"INSERT INTO crash.cells SELECT '{cell['dag_id']}'",
                                           "useLegacySql": False}},
                  deferrable=cell["mode"] == "deferrable", **_task_args(cell))
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


def _dataproc_task(cell: dict) -> None:
    """The cell's Dataproc job, ours or the official one, on its own connection (its own project)."""
    from airflow.providers.google.cloud.operators import dataproc as official_dataproc

    from durable_jobs.providers.google.cloud.operators import dataproc as ours_dataproc

    ours = cell["operator"] == "ours"
    op = ours_dataproc.DataprocSubmitJobOperator if ours else official_dataproc.DataprocSubmitJobOperator
    # the cell's project, named as crash_dataproc.project_of names it (the official trigger's async hook cannot
    # fall back to the connection's project: provider 22.8 raises AttributeError 'project_id' there)
    project = "crash-" + cell["dag_id"].removeprefix("crash__").lower().replace("_", "-")
    kwargs = dict(task_id="submit", gcp_conn_id=cell["conn_id"], region="europe-west1", polling_interval_seconds=1,
                  project_id=project,
                  job={"placement": {"cluster_name": "crash"}, "pyspark_job": {
                      "main_python_file_uri": "gs://crash/job.py", "args": [cell["dag_id"]]}},
                  deferrable=cell["mode"] == "deferrable", **_task_args(cell))
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


def _dataproc_batch_task(cell: dict) -> None:
    """The cell's Dataproc Serverless batch, ours or the official one, on its own connection (its own project)."""
    from airflow.providers.google.cloud.operators import dataproc as official_dataproc

    from durable_jobs.providers.google.cloud.operators import dataproc as ours_dataproc

    ours = cell["operator"] == "ours"
    op = ours_dataproc.DataprocCreateBatchOperator if ours else official_dataproc.DataprocCreateBatchOperator
    project = "crash-" + cell["dag_id"].removeprefix("crash__").lower().replace("_", "-")
    kwargs = dict(task_id="submit", gcp_conn_id=cell["conn_id"], region="europe-west1", polling_interval_seconds=1,
                  project_id=project, batch={"pyspark_batch": {"main_python_file_uri": "gs://crash/job.py"}},
                  deferrable=cell["mode"] == "deferrable", **_task_args(cell))
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


class EmrContainersReadsOnComplete:
    """One ``DescribeVirtualCluster`` the worker makes inside ``execute_complete`` (W5, EMR on EKS, deferrable):
    the trigger never calls it, so the cell can hold it (tests/crash/crash_emr_containers_rows.py)."""

    def execute_complete(self, context, event=None):
        self.hook.conn.describe_virtual_cluster(id=self.virtual_cluster_id)
        return super().execute_complete(context, event)


class EmrStepsReadsOnComplete:
    """One ``DescribeCluster`` the worker makes inside ``execute_complete`` (W5, EMR steps, deferrable): the trigger
    never calls it, so the cell can hold it (tests/crash/crash_emr_steps_rows.py)."""

    def execute_complete(self, context, event=None):
        self.hook.conn.describe_cluster(ClusterId=context["ti"].xcom_pull(task_ids=self.task_id, key="job_flow_id"))
        return super().execute_complete(context, event)


def _emr_steps_task(cell: dict, common: dict) -> None:
    """Amazon EMR steps: ours or the official ``EmrAddStepsOperator``, one step named after the cell on the shared
    long-running cluster (found by name, as ``job_flow_name`` does)."""
    from airflow.providers.amazon.aws.operators import emr as official_emr

    from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

    op = EmrAddStepsOperator if cell["operator"] == "ours" else official_emr.EmrAddStepsOperator
    if cell.get("reads_output"):
        op = type(op.__name__, (EmrStepsReadsOnComplete, op), {"__module__": __name__})
    op(job_flow_name="durable-emr-cluster", cluster_states=["WAITING", "RUNNING"], wait_for_completion=True,
       steps=[{"Name": cell["dag_id"], "ActionOnFailure": "CONTINUE",
               "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", SCRIPT]}}],
       waiter_delay=1, waiter_max_attempts=600, **common)


def _emr_containers_task(cell: dict, common: dict) -> None:
    """Amazon EMR on EKS: ours or the official ``EmrContainerOperator``; the run's ``name`` is the cell."""
    from airflow.providers.amazon.aws.operators import emr as official_emr

    from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator

    op = EmrContainerOperator if cell["operator"] == "ours" else official_emr.EmrContainerOperator
    if cell.get("reads_output"):
        op = type(op.__name__, (EmrContainersReadsOnComplete, op), {"__module__": __name__})
    op(name=cell["dag_id"], virtual_cluster_id=os.environ.get("DJ_CRASH_EMR_VIRTUAL_CLUSTER", ""),
       execution_role_arn=ROLE_ARN, release_label="emr-7.0.0-latest",
       job_driver={"sparkSubmitJobDriver": {"entryPoint": SCRIPT}}, poll_interval=1, **common)


class SageMakerReadsOnComplete:
    """One ``List<Type>Jobs`` the worker makes inside ``execute_complete`` (W5, SageMaker, deferrable): the trigger
    never calls it, so the cell can hold it (tests/crash/crash_sagemaker_rows.py)."""

    sagemaker_job_type = "Training"

    def execute_complete(self, context, event=None):
        getattr(self.hook.conn, f"list_{self.sagemaker_job_type.lower()}_jobs")(MaxResults=1)
        return super().execute_complete(context, event)




def _job_type(service: vendors.Service, op: vendors.Operator) -> str:
    """The <Type> of the operator's submit call in the registry, ``sagemaker:Create<Type>Job``."""
    calls = service.calls_of(op)
    return calls.submit.partition(":Create")[2].removesuffix("Job") if calls else ""


#: each SageMaker crash vendor key -> its job type (Training, Processing, Transform)
SAGEMAKER_JOB_TYPES = {op.crash: _job_type(vendors.service("sagemaker"), op)
                       for op in vendors.service("sagemaker").operators if op.crash}
#: the crash vendor keys of every AWS operator in the registry (tests/crash/crash_aws.py SERVICES)
AWS_VENDORS = frozenset(op.crash for op in vendors.family("aws").operators if op.crash)
SAGEMAKER_IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgb:1"


def _sagemaker_config(job_type: str, name: str, tags: list[dict]) -> dict:
    """The ``config`` of one SageMaker job of ``job_type``, named ``name``, tagged with ``tags``."""
    if job_type == "Training":
        return {
            "TrainingJobName": name, "RoleArn": ROLE_ARN,
            "AlgorithmSpecification": {"TrainingImage": SAGEMAKER_IMAGE, "TrainingInputMode": "File"},
            "OutputDataConfig": {"S3OutputPath": "s3://durable-bucket/model/"},
            "ResourceConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 5},
            "StoppingCondition": {"MaxRuntimeInSeconds": 3600}, "Tags": tags,
        }
    if job_type == "Processing":
        return {
            "ProcessingJobName": name, "RoleArn": ROLE_ARN,
            "AppSpecification": {"ImageUri": SAGEMAKER_IMAGE},
            "ProcessingResources": {"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large",
                                                      "VolumeSizeInGB": 5}},
            "StoppingCondition": {"MaxRuntimeInSeconds": 3600}, "Tags": tags,
        }
    # Transform: the model is named, not created (no "Model" in config): the rows count transform jobs
    return {"Transform": {
        "TransformJobName": name, "ModelName": "durable-crash-model",  # crash_aws.SAGEMAKER_MODEL
        "TransformInput": {"DataSource": {"S3DataSource": {
            "S3DataType": "S3Prefix", "S3Uri": "s3://durable-data/batch/"}}},  # aws_env.SAGEMAKER_DATA_BUCKET
        "TransformOutput": {"S3OutputPath": "s3://durable-data/scores/"},
        "TransformResources": {"InstanceType": "ml.m5.large", "InstanceCount": 1}, "Tags": tags,
    }}


def _sagemaker_task(cell: dict, common: dict) -> None:
    """Amazon SageMaker: ours or the official training, processing or transform operator; a "cell" tag names the
    cell (job names take no underscores: the name is the DAG id with hyphens, and "fail" shortened to "fl", since
    the emulator ends a job whose name holds it Failed: ``aws_moto_sagemaker.FAIL_MARKER``)."""
    import re

    from airflow.providers.amazon.aws.operators import sagemaker as official_sm

    from durable_jobs.providers.amazon.aws.operators import sagemaker as ours_sm

    job_type = SAGEMAKER_JOB_TYPES[cell["vendor"]]
    op = getattr(ours_sm if cell["operator"] == "ours" else official_sm, f"SageMaker{job_type}Operator")
    if cell.get("reads_output"):
        op = type(op.__name__, (SageMakerReadsOnComplete, op),
                  {"__module__": __name__, "sagemaker_job_type": job_type})
    name = re.sub(r"(?i)fail", "fl", re.sub(r"[^a-zA-Z0-9-]", "-", cell["dag_id"]))[:63].strip("-")
    config = _sagemaker_config(job_type, name, [{"Key": "cell", "Value": cell["dag_id"]}])
    extra = {} if job_type == "Transform" else {"print_log": False}
    op(config=config, check_interval=1, max_attempts=600, **extra, **common)


def _cloud_batch_task(cell: dict) -> None:
    """The cell's Cloud Batch job, ours or the official one, on its own connection (its own project), under a
    fixed ``job_name`` as a user's would be (tests/crash/crash_cloud_batch.py)."""
    from airflow.providers.google.cloud.operators import cloud_batch as official_cloud_batch

    from durable_jobs.providers.google.cloud.operators import cloud_batch as ours_cloud_batch

    ours = cell["operator"] == "ours"
    op = ours_cloud_batch.CloudBatchSubmitJobOperator if ours else official_cloud_batch.CloudBatchSubmitJobOperator
    project = "crash-" + cell["dag_id"].removeprefix("crash__").lower().replace("_", "-")
    kwargs = dict(task_id="submit", gcp_conn_id=cell["conn_id"], region="europe-west1", project_id=project,
                  job_name="crash-cell", polling_period_seconds=1,
                  job={"task_groups": [{"task_spec": {"runnables": [{"script": {"text": f"echo {cell['dag_id']}"}}]}}]},
                  deferrable=cell["mode"] == "deferrable", **_task_args(cell))
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


def _cloud_run_task(cell: dict) -> None:
    """The cell's Cloud Run execution, ours or the official one, on its own connection (its own project, whose
    job ``crash-cell`` the fleet defined; tests/crash/crash_cloud_run.py)."""
    from airflow.providers.google.cloud.operators import cloud_run as official_cloud_run

    from durable_jobs.providers.google.cloud.operators import cloud_run as ours_cloud_run

    ours = cell["operator"] == "ours"
    op = ours_cloud_run.CloudRunExecuteJobOperator if ours else official_cloud_run.CloudRunExecuteJobOperator
    project = "crash-" + cell["dag_id"].removeprefix("crash__").lower().replace("_", "-")
    kwargs = dict(task_id="submit", gcp_conn_id=cell["conn_id"], region="europe-west1", project_id=project,
                  job_name="crash-cell", polling_period_seconds=1,
                  overrides={"container_overrides": [{"env": [{"name": "CELL", "value": cell["dag_id"]}]}]},
                  deferrable=cell["mode"] == "deferrable", **_task_args(cell))
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


def _dataflow_task(cell: dict) -> None:
    """The cell's Dataflow template job, ours or the official one, on its own connection (its own project;
    tests/crash/crash_dataflow.py)."""
    from airflow.providers.google.cloud.operators import dataflow as official_dataflow

    from durable_jobs.providers.google.cloud.operators import dataflow as ours_dataflow

    ours = cell["operator"] == "ours"
    module = ours_dataflow if ours else official_dataflow
    project = "crash-" + cell["dag_id"].removeprefix("crash__").lower().replace("_", "-")
    kwargs = dict(task_id="submit", gcp_conn_id=cell["conn_id"], project_id=project, location="us-central1",
                  poll_sleep=1, deferrable=cell["mode"] == "deferrable", **_task_args(cell))
    if cell["vendor"] == "dataflow_flex":
        op = module.DataflowStartFlexTemplateOperator
        kwargs["body"] = {"launchParameter": {"jobName": "crash-cell", "containerSpecGcsPath": "gs://crash/spec.json",
                                              "parameters": {"cell": cell["dag_id"]}}}
    else:
        op = module.DataflowTemplatedJobStartOperator
        kwargs.update(template="gs://crash/templates/word-count", job_name="crash-cell",
                      parameters={"cell": cell["dag_id"]})
    if ours and "cancel_on_kill" in cell:
        kwargs["cancel_on_kill"] = cell["cancel_on_kill"]
    op(**kwargs)


def _fan_out_tasks(cell: dict, dag) -> None:  # noqa: ANN001
    """tests/crash_scale: ``fan_out`` Databricks tasks in one DAG, each its own run (a triggerer killed under load)."""
    dag.max_active_tasks = cell["fan_out"]
    op = OPERATORS[(cell["operator"], False)]
    for i in range(cell["fan_out"]):
        kwargs = dict(task_id=f"submit_{i:03d}", run_name=f"{cell['dag_id']}.{i:03d}", tasks=TASKS,
                      databricks_conn_id=cell["conn_id"], polling_period_seconds=cell.get("poll_seconds", 5),
                      databricks_retry_limit=3, databricks_retry_delay=0.5, deferrable=True, **_task_args(cell))
        if cell["operator"] == "ours":
            kwargs["cancel_on_kill"] = cell.get("cancel_on_kill", "user")
        op(**kwargs)


def _task_args(cell: dict) -> dict:
    """Retries, execution_timeout and a slow success callback as the scenario sets them
    (crash_scenarios.Scenario.task)."""
    args = dict(retries=cell.get("retries", 2), retry_delay=timedelta(seconds=0))
    if cell.get("execution_timeout"):
        args["execution_timeout"] = timedelta(seconds=cell["execution_timeout"])
    if cell.get("success_callback_seconds"):
        args["on_success_callback"] = SlowSuccessCallback(cell["success_callback_seconds"])
    return args


class SlowSuccessCallback:
    """A success callback as slow as a notifier can be: it keeps the task process alive after the try reported
    success, past ``[core] task_success_overtime`` (5 s on the crash stack), so Airflow's supervisor SIGTERMs it."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __call__(self, context) -> None:
        time.sleep(self.seconds)


for cell in _cells():
    with DAG(
        cell["dag_id"], schedule=None, start_date=pendulum.datetime(2025, 1, 1), catchup=False,
        max_active_runs=1, tags=["durable-jobs-crash"],
    ) as dag:
        if cell.get("vendor") in AWS_VENDORS:  # crash_aws.py SERVICES
            _aws_task(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") == "bigquery":  # tests/crash/crash_bigquery.py
            _bigquery_task(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") in ("dataproc_jobs", "dataproc_batches"):  # tests/crash/crash_dataproc.py
            (_dataproc_task if cell["vendor"] == "dataproc_jobs" else _dataproc_batch_task)(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") == "cloud_batch":  # tests/crash/crash_cloud_batch.py
            _cloud_batch_task(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") == "cloud_run":  # tests/crash/crash_cloud_run.py
            _cloud_run_task(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") in ("dataflow_templated", "dataflow_flex"):  # tests/crash/crash_dataflow.py
            _dataflow_task(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") == "snowflake":  # tests/crash/crash_snowflake.py
            _snowflake_task(cell)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") in ("databricks_notebook", "databricks_task"):  # tests/crash/crash_notebook.py
            ours_nb = cell["operator"] == "ours"
            name = "DatabricksNotebookOperator" if cell["vendor"] == "databricks_notebook" else "DatabricksTaskOperator"
            op = getattr(ours if ours_nb else official, name)
            if cell.get("reads_output"):
                op = type(op.__name__, (ReadsOutputOnComplete, op), {"__module__": __name__})
            python_task = {"spark_python_task": {"python_file": "dbfs:/etl.py", "parameters": ["{{ run_id }}"]}}
            what = (dict(notebook_path="/Shared/etl", source="WORKSPACE") if name == "DatabricksNotebookOperator"
                    else dict(task_config=python_task))
            kwargs = dict(task_id="submit", **what, existing_cluster_id="crash-cluster",
                          databricks_conn_id=cell["conn_id"],
                          polling_period_seconds=0.5, databricks_retry_limit=3, databricks_retry_delay=0.5,
                          deferrable=cell["mode"] == "deferrable", **_task_args(cell))
            if ours_nb:
                kwargs["cancel_on_kill"] = cell.get("cancel_on_kill", "user")
            op(**kwargs)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") == "databricks_sql":  # tests/crash/crash_databricks_sql.py
            ours_sql = cell["operator"] == "ours"
            op = ours.DatabricksSQLStatementsOperator if ours_sql else official.DatabricksSQLStatementsOperator
            if cell.get("reads_output"):
                op = type(op.__name__, (ReadsStatementResultOnComplete, op), {"__module__": __name__})
            kwargs = dict(task_id="submit", statement="MERGE INTO crash.t USING crash.s ON t.k = s.k "
                          "WHEN NOT MATCHED THEN INSERT *", warehouse_id="crash-warehouse",
                          databricks_conn_id=cell["conn_id"], polling_period_seconds=0.5, databricks_retry_limit=3,
                          databricks_retry_delay=0.5, deferrable=cell["mode"] == "deferrable", **_task_args(cell))
            if ours_sql:
                kwargs["cancel_on_kill"] = cell.get("cancel_on_kill", "user")
            op(**kwargs)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("vendor") == "databricks_run_now":  # tests/crash/crash_runnow.py
            op = RUN_NOW_OPERATORS[(cell["operator"], bool(cell.get("reads_output")))]
            kwargs = dict(task_id="submit", job_id=RUN_NOW_JOB_ID, databricks_conn_id=cell["conn_id"],
                          polling_period_seconds=0.5, databricks_retry_limit=3, databricks_retry_delay=0.5,
                          deferrable=cell["mode"] == "deferrable", **_task_args(cell))
            if cell["operator"] == "ours":
                kwargs["cancel_on_kill"] = cell.get("cancel_on_kill", "user")
            op(**kwargs)
            globals()[cell["dag_id"]] = dag
            continue
        if cell.get("fan_out"):  # tests/crash_scale/scale_scenarios.py: many deferred tasks in one DAG
            _fan_out_tasks(cell, dag)
            globals()[cell["dag_id"]] = dag
            continue
        op = OPERATORS[(cell["operator"], bool(cell.get("reads_output")))]
        kwargs = dict(
            task_id="submit", run_name=cell["dag_id"], tasks=TASKS,
            databricks_conn_id=cell["conn_id"], polling_period_seconds=0.5,
            databricks_retry_limit=3, databricks_retry_delay=0.5,
            deferrable=cell["mode"] == "deferrable", **_task_args(cell),
        )
        if cell["operator"] == "ours":
            kwargs["cancel_on_kill"] = cell.get("cancel_on_kill", "user")
        op(**kwargs)
    globals()[cell["dag_id"]] = dag

"""One AWS test environment: moto (with the gap rules) behind our fault proxy, with Batch, Glue, EMR
Serverless and Athena resources ready, and the Airflow connection ``aws_default`` pointing at the proxy.

Used by the tests, the example DAGs' runs and ``durable-jobs demo``. Both servers listen on
127.0.0.1 and are stopped by ``stop()`` (no process is left behind: they are threads of this one).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from durable_jobs.testing.emulators.aws_moto import MotoAws
from durable_jobs.testing.emulators.aws_proxy import AwsFaultProxy

REGION = "us-east-1"
ACCOUNT = "123456789012"
JOB_QUEUE = "durable-queue"
JOB_DEFINITION = "durable-job-def"
ROLE_NAME = "durable-jobs-role"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{ROLE_NAME}"
#: An Athena workgroup whose configuration names the query result location (so a query needs none).
ATHENA_WORKGROUP = "durable-athena"
ATHENA_OUTPUT = "s3://durable-athena-results/queries/"
#: A Step Functions state machine (STANDARD; moto runs no definition, see MOTO_GAPS["stepfunctions-life-cycle"]).
STATE_MACHINE = "durable-state-machine"
STATE_MACHINE_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{STATE_MACHINE}"
#: An ECS cluster and task definitions (``-fails``: its container's command is ``["false"]``, exit code 1).
ECS_CLUSTER = "durable-cluster"
ECS_TASK_DEFINITION = "durable-task"
#: An EMR on EKS virtual cluster (moto draws its id: ``AwsTestEnv.virtual_cluster_id``) and a release it accepts.
EMR_VIRTUAL_CLUSTER = "durable-virtual-cluster"
EMR_RELEASE_LABEL = "emr-7.0.0-latest"
#: A long-running EMR cluster (kept WAITING between steps) for ``EmrAddStepsOperator``; moto draws its id
#: (``AwsTestEnv.emr_cluster_id``), DAGs find it by name (``job_flow_name``).
EMR_CLUSTER = "durable-emr-cluster"
#: The S3 inputs SageMaker jobs read (the official hook checks that an input exists before it creates a job:
#: ``check_s3_url``): one object under each prefix.
SAGEMAKER_DATA_BUCKET = "durable-data"
SAGEMAKER_INPUT_PREFIXES = ("train/", "batch/", "raw/")
CONN_ENV = "AIRFLOW_CONN_AWS_DEFAULT"
#: Small consistency window for tests and the demo (production default: 15 s).
CONSISTENCY_ENV = "AIRFLOW__DURABLE_JOBS__AWS_LIST_CONSISTENCY_SECONDS"


class AwsTestEnv:
    """moto + proxy + resources; ``reset()`` between tests, ``stop()`` at the end."""

    def __init__(self, step_seconds: float = 0.2, consistency_seconds: float = 1.0):
        self.moto = MotoAws(step_seconds=step_seconds)
        self.proxy: AwsFaultProxy | None = None
        self.consistency_seconds = consistency_seconds
        self.application_id: str | None = None
        self.virtual_cluster_id: str | None = None
        self.emr_cluster_id: str | None = None
        self._saved_env: dict[str, str | None] = {}
        self._releases_off = threading.Event()

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> AwsTestEnv:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self.moto.start()
        self.proxy = AwsFaultProxy(self.moto.url).start()
        self._set_env(CONN_ENV, self.moto.airflow_conn_uri(self.proxy.url, REGION))
        self._set_env(CONSISTENCY_ENV, str(self.consistency_seconds))
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            self._set_env(name, "testing")
        self._set_env("AWS_DEFAULT_REGION", REGION)
        self.create_resources()
        return self

    def stop(self) -> None:
        self._drop_releases()
        try:
            if self.proxy is not None:
                self.proxy.stop()
                self.proxy = None
        finally:
            self.moto.stop()
            for name, value in self._saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            self._saved_env.clear()

    def reset(self) -> None:
        """Fresh moto state, no faults, default progression, resources re-created, pending releases dropped."""
        assert self.proxy is not None
        self._drop_releases()
        self.proxy.clear()
        self.moto._post("/moto-api/reset", None)
        self.moto._post("/moto-api/config", {"batch": {"use_docker": False}})
        self.moto.progress()
        self.create_resources()

    def __enter__(self) -> AwsTestEnv:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _set_env(self, name: str, value: str) -> None:
        self._saved_env.setdefault(name, os.environ.get(name))
        os.environ[name] = value

    # ----------------------------------------------------------------- job progression
    def hold_for(self, seconds: float, *models: str) -> None:
        """Keep jobs where they are (RUNNING stays RUNNING) for ``seconds``, then let them progress."""
        self._hold_then_release(lambda: False, seconds, models)

    def hold_until_trigger_polls(self, operation: str, *models: str, timeout: float = 120.0) -> None:
        """Keep jobs where they are until the deferrable path's trigger (aiobotocore) has called ``operation``
        once, then let them progress (``timeout`` bounds the wait).

        A fixed delay races the DAG's start-up on a loaded machine: the job can end before the task defers,
        and the trigger is never exercised. This waits for the evidence instead.
        """
        proxy = self.proxy
        assert proxy is not None
        self._hold_then_release(lambda: proxy.async_calls.get(operation, 0) >= 1, timeout, models)

    def _hold_then_release(self, ready: Callable[[], bool], timeout: float, models: tuple[str, ...]) -> None:
        self.moto.hold(*models)
        off = self._releases_off

        def release() -> None:
            deadline = time.monotonic() + timeout
            while not ready() and time.monotonic() < deadline:
                if off.wait(0.05):
                    return  # reset or stopped: the next test owns the progression
            self.moto.progress(*models)

        threading.Thread(target=release, name="aws-env-release", daemon=True).start()

    def _drop_releases(self) -> None:
        self._releases_off.set()
        self._releases_off = threading.Event()

    # ----------------------------------------------------------------- clients and resources
    def client(self, service: str, *, direct: bool = False):
        """A boto3 client through the proxy (``direct=True``: straight to moto, for assertions)."""
        import boto3

        url = self.moto.url if direct else self.proxy.url  # type: ignore[union-attr]
        return boto3.client(service, endpoint_url=url, region_name=REGION, aws_access_key_id="testing",
                            aws_secret_access_key="testing")

    def create_resources(self) -> None:
        iam = self.client("iam", direct=True)
        iam.create_role(RoleName=ROLE_NAME, AssumeRolePolicyDocument="{}")
        batch = self.client("batch", direct=True)
        env = batch.create_compute_environment(
            computeEnvironmentName="durable-ce", type="UNMANAGED", state="ENABLED", serviceRole=ROLE_ARN,
        )["computeEnvironmentArn"]
        batch.create_job_queue(jobQueueName=JOB_QUEUE, state="ENABLED", priority=1,
                               computeEnvironmentOrder=[{"order": 1, "computeEnvironment": env}])
        for name, command in ((JOB_DEFINITION, ["true"]), (JOB_DEFINITION + "-fails", ["false"])):
            batch.register_job_definition(
                jobDefinitionName=name, type="container",
                containerProperties={"image": "busybox", "vcpus": 1, "memory": 128, "command": command},
            )
        s3 = self.client("s3", direct=True)
        s3.create_bucket(Bucket=ATHENA_OUTPUT.split("/")[2])
        s3.create_bucket(Bucket=SAGEMAKER_DATA_BUCKET)
        for prefix in SAGEMAKER_INPUT_PREFIXES:
            s3.put_object(Bucket=SAGEMAKER_DATA_BUCKET, Key=f"{prefix}part-0.csv", Body=b"1,2,3\n")
        self.client("athena", direct=True).create_work_group(
            Name=ATHENA_WORKGROUP, Configuration={"ResultConfiguration": {"OutputLocation": ATHENA_OUTPUT}},
        )
        emr = self.client("emr-serverless", direct=True)
        self.application_id = emr.create_application(
            name="durable-app", releaseLabel="emr-7.0.0", type="SPARK"
        )["applicationId"]
        self.client("stepfunctions", direct=True).create_state_machine(
            name=STATE_MACHINE, roleArn=ROLE_ARN, type="STANDARD",
            definition=json.dumps({"StartAt": "Run", "States": {"Run": {"Type": "Pass", "End": True}}}),
        )

        ecs = self.client("ecs", direct=True)
        ecs.create_cluster(clusterName=ECS_CLUSTER)
        for family, command in ((ECS_TASK_DEFINITION, ["true"]), (ECS_TASK_DEFINITION + "-fails", ["false"])):
            ecs.register_task_definition(family=family, containerDefinitions=[
                {"name": "main", "image": "busybox", "memory": 128, "command": command}])

        self.virtual_cluster_id = self.client("emr-containers", direct=True).create_virtual_cluster(
            name=EMR_VIRTUAL_CLUSTER,
            containerProvider={"id": "durable-eks", "type": "EKS", "info": {"eksInfo": {"namespace": "durable"}}},
        )["id"]
        self.emr_cluster_id = self.client("emr", direct=True).run_job_flow(
            Name=EMR_CLUSTER, ReleaseLabel="emr-7.0.0", JobFlowRole="EMR_EC2_DefaultRole",
            ServiceRole="EMR_DefaultRole",
            Instances={"InstanceCount": 1, "MasterInstanceType": "m5.xlarge", "KeepJobFlowAliveWhenNoSteps": True},
        )["JobFlowId"]

    # ----------------------------------------------------------------- assertions
    def emr_container_runs(self) -> list[dict[str, Any]]:
        """Every job run of the test virtual cluster (straight to moto), oldest first."""
        emr = self.client("emr-containers", direct=True)
        return sorted(emr.list_job_runs(virtualClusterId=self.virtual_cluster_id)["jobRuns"],
                      key=lambda r: r["createdAt"])

    def ecs_tasks(self) -> list[dict[str, Any]]:
        """Every task of the test cluster, running or stopped (straight to moto), oldest first, with tags."""
        ecs = self.client("ecs", direct=True)
        arns = [a for status in ("RUNNING", "STOPPED")
                for a in ecs.list_tasks(cluster=ECS_CLUSTER, desiredStatus=status)["taskArns"]]
        tasks = ecs.describe_tasks(cluster=ECS_CLUSTER, tasks=arns, include=["TAGS"])["tasks"] if arns else []
        return sorted(tasks, key=lambda t: t["createdAt"])

    def batch_jobs(self, name_prefix: str = "") -> list[dict[str, Any]]:
        batch = self.client("batch", direct=True)
        jobs = batch.list_jobs(jobQueue=JOB_QUEUE, filters=[{"name": "JOB_NAME", "values": [name_prefix + "*"]}])
        return jobs["jobSummaryList"]

    def glue_runs(self, job_name: str) -> list[dict[str, Any]]:
        glue = self.client("glue", direct=True)
        try:
            return glue.get_job_runs(JobName=job_name)["JobRuns"]
        except glue.exceptions.EntityNotFoundException:
            return []

    def emr_runs(self) -> list[dict[str, Any]]:
        emr = self.client("emr-serverless", direct=True)
        return emr.list_job_runs(applicationId=self.application_id)["jobRuns"]

    def sfn_executions(self) -> list[dict[str, Any]]:
        """Every execution of the test state machine (straight to moto), oldest first."""
        sfn = self.client("stepfunctions", direct=True)
        executions = sfn.list_executions(stateMachineArn=STATE_MACHINE_ARN)["executions"]
        return sorted(executions, key=lambda e: e["startDate"])

    def athena_queries(self, containing: str = "") -> list[dict[str, Any]]:
        """Every query moto holds whose text contains ``containing`` (straight to moto), oldest first."""
        athena = self.client("athena", direct=True)
        ids = athena.list_query_executions()["QueryExecutionIds"]
        queries = [athena.get_query_execution(QueryExecutionId=i)["QueryExecution"] for i in ids]
        return sorted((q for q in queries if containing in q["Query"]), key=lambda q: q["Status"]["SubmissionDateTime"])

"""One vendor per target: how to start a job on its emulator, inject each case, and count jobs.

A target never touches our code: it arms faults on the emulator (or the fault proxy in front of
moto) and reads the vendor side's own ledger. The suite then runs our real code paths against it.
"""

from __future__ import annotations

import json
from typing import Any

from durable_jobs import vendors
from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import JobClient
from durable_jobs.testing.emulators.aws_proxy import state_rewrite
from durable_jobs.testing.emulators.databricks import DatabricksEmulator
from durable_jobs.testing.emulators.snowflake import SnowflakeEmulator, route_hooks

TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]
#: The HTTP timeout the suite's connections set, and a "slow" reply that outlasts it.
TIMEOUT = 1.0
SLOW = 2.5
#: How many status reads show the unknown state in the "unknown-state" case: counted in reads, not seconds, so
#: the operator sees the state end after its second read however slowly the machine runs (one poll interval
#: between the two reads, against an ``unknown_state_budget`` many times longer).
UNKNOWN_READS = 2


def calls(service: str) -> vendors.Calls:
    """The registry's calls of ``service``: the submit and status calls a target arms its faults on."""
    found = vendors.service(service).calls
    if found is None:
        raise LookupError(f"the registry names no calls for {service}")
    return found


def arm_emulator(emu: Any, case: str, get: str, submit: str, *, unknown: dict[str, Any], auth_count: int,
                 seconds: float) -> None:
    """Arm ``case`` on one of our HTTP emulators (Databricks, Snowflake: the same fault rules), on its status
    route ``get`` or its submit route ``submit``; ``unknown`` is the reply patch of a state no table lists."""
    rules = {
        "throttled-retry-after": dict(path=get, status=429, count=2, retry_after=1),
        "throttled": dict(path=get, status=429, count=3, retry_after=None),
        "server-error": dict(path=get, status=503, count=-1, seconds=seconds),
        "reset": dict(path=get, mode="reset", count=3),
        "timeout": dict(path=get, mode="slow", delay=SLOW, count=2),
        "not-json": dict(path=get, mode="garbage", count=2),
        "unknown-state": dict(path=get, mode="rewrite", count=UNKNOWN_READS, patch=unknown),
        "unknown-state-too-long": dict(path=get, mode="rewrite", count=-1, patch=unknown),
        "outage": dict(path=get, status=503, count=-1),
        "auth": dict(path=get, status=403, count=auth_count),
        "submit-throttled": dict(path=submit, status=429, count=2, retry_after=1),
        "submit-lost-reply": dict(path=submit, status=500, mode="lose_reply", count=2),
        "submit-reset": dict(path=submit, mode="reset", count=1),
        "submit-timeout": dict(path=submit, mode="slow", delay=SLOW, count=1),
        "submit-not-json": dict(path=submit, mode="garbage", count=1),
        "submit-auth": dict(path=submit, status=403, count=-1),
    }
    if case == "deleted":
        return  # done by the target's delete() once the job runs
    rule = dict(rules[case])  # retry_after=None: a 429 without the header
    path = rule.pop("path")
    status = rule.pop("status", 500)
    emu.add_fault(path, status, **rule)


class DatabricksTarget:
    """The Databricks emulator, with a connection whose ``timeout_seconds`` extra is short."""

    service = "databricks"
    status_route = calls(service).status
    submit_route = calls(service).submit

    def __init__(self, emulator: DatabricksEmulator, conn_id: str = "dbx_faults"):
        self.emu = emulator
        self.conn_id = conn_id

    def conn_env(self) -> dict[str, str]:
        conn = {**self.emu.connection_dict(), "extra": json.dumps({"timeout_seconds": TIMEOUT})}
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn)}

    def broken_conn_env(self, host: str, port: int) -> dict[str, str]:
        """The same connection, with a host and port where no Databricks answers (a wrong setup case)."""
        conn = {**self.emu.connection_dict(), "host": host, "port": port,
                "extra": json.dumps({"timeout_seconds": TIMEOUT})}
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn)}

    def reset(self, running_seconds: float = 2.0) -> None:
        self.emu.reset()
        self.emu.configure(pending_seconds=0.1, running_seconds=running_seconds, terminating_seconds=0.05)

    # ------------------------------------------------------------------ our code, pointed here
    def operator(self, **kwargs: Any):
        from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

        return DatabricksSubmitRunOperator(
            task_id="faults", tasks=TASKS, databricks_conn_id=self.conn_id, polling_period_seconds=0.2,
            databricks_retry_limit=2, databricks_retry_delay=0.05, **kwargs,
        )

    def request(self, op) -> dict[str, Any]:
        return {"run_name": "faults", "tasks": TASKS}

    def start(self, client: JobClient) -> Any:
        return client.submit({"run_name": "faults", "tasks": TASKS}, client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        return int(self.emu.ledger()["runs_created"])

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        """Inject ``case`` (tests/faults/cases.py) on this vendor's status or submit call."""
        unknown = {"state": {"life_cycle_state": "HIBERNATING", "result_state": None}}
        arm_emulator(self.emu, case, self.status_route, self.submit_route, unknown=unknown, auth_count=1,
                     seconds=seconds)

    def delete(self, job_id: Any) -> None:
        # runs/delete refuses an active run (Jobs API: "Deletes a non-active run"); what makes a run
        # vanish under a watcher is its history being purged: the emulator's expire().
        self.emu.expire(job_id)


# ---------------------------------------------------------------------------------------------- AWS
def _unknown_state(service: str) -> Any:
    """A rewrite of the service's status reply that reports a state no table lists (at the registry's
    ``Calls.state_field``)."""
    return state_rewrite(calls(service).state_field, "HIBERNATING")


def _vanished(body: dict[str, Any]) -> dict[str, Any]:
    """DescribeJobs for an id Batch does not know: an empty list (AWS Batch API reference)."""
    return {**body, "jobs": []}


class AwsTarget:
    """One AWS service behind a fault proxy of its own, in front of the session's shared moto.

    moto's state is process-wide, so a target never resets it: each cell's jobs are the ones its
    own proxy saw created. The connection sets botocore's timeouts through the ``config_kwargs``
    extra, as a user of the official AWS hooks would.
    """

    #: what each service answers for an id it does not know (its API reference)
    MISSING = {
        "glue": dict(status=400, code="EntityNotFoundException", message="Job run not found"),
        "emr_serverless": dict(status=404, code="ResourceNotFoundException", message="Job run not found"),
        "emr_containers": dict(status=404, code="ResourceNotFoundException", message="Job run not found"),
        "athena": dict(status=400, code="InvalidRequestException", message="QueryExecution was not found"),
        "stepfunctions": dict(status=400, code="ExecutionDoesNotExist", message="Execution Does Not Exist"),
        "redshift_data": dict(status=400, code="ResourceNotFoundException", message="Query does not exist."),
        "emr_steps": dict(status=400, code="InvalidRequestException", message="Cluster id 'j-X' is not valid."),
        # DescribeTrainingJob's one listed error, "Resource being access is not found." (HTTP 400); moto answers
        # ValidationException, as the official operator expects: the hook reads both as "no such job"
        "sagemaker": dict(status=400, code="ResourceNotFound", message="Resource being access is not found."),
    }
    #: ECS answers an unknown task in the reply, not with an error ("API failure reasons": MISSING)
    MISSING_REWRITE = {"ecs": lambda body: {**body, "tasks": [], "failures": [
        {"arn": "unknown", "reason": "MISSING"}]}}

    def __init__(self, env: Any, service: str, cell: str):
        from durable_jobs.testing.emulators.aws_proxy import AwsFaultProxy

        self.env = env
        self.service = service
        self.cell = cell
        self.conn_id = f"aws_{cell.replace('-', '_')}"
        self.proxy = AwsFaultProxy(env.moto.url).start()
        self.submit_op, self.status_op = calls(service).submit, calls(service).status
        self.name = f"faults-{cell}"
        if service == "glue":
            env.client("glue", direct=True).create_job(
                Name=self.name, Role="durable-jobs-role", MaxCapacity=2, ExecutionProperty={"MaxConcurrentRuns": 50},
                Command={"Name": "glueetl", "ScriptLocation": "s3://durable-bucket/scripts/etl.py"},
            )

    def stop(self) -> None:
        self.proxy.stop()

    def conn_env(self) -> dict[str, str]:
        from durable_jobs.testing.emulators.aws_env import REGION

        extra = {"region_name": REGION, "endpoint_url": self.proxy.url,
                 "config_kwargs": {"read_timeout": TIMEOUT, "connect_timeout": TIMEOUT}}
        conn = {"conn_type": "aws", "login": "testing", "password": "testing", "extra": extra}
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn)}

    def broken_conn_env(self, host: str, port: int) -> dict[str, str]:
        """The same connection, with an ``endpoint_url`` where no AWS answers (a wrong setup case)."""
        name, value = next(iter(self.conn_env().items()))
        conn = json.loads(value)
        conn["extra"]["endpoint_url"] = f"http://{host}:{port}"
        return {name: json.dumps(conn)}

    def reset(self) -> None:
        self.proxy.clear()

    # ------------------------------------------------------------------ our code, pointed here
    def operator(self, **kwargs: Any):
        from durable_jobs.providers.amazon.aws.operators import athena as aws_athena
        from durable_jobs.providers.amazon.aws.operators import batch as aws_batch
        from durable_jobs.providers.amazon.aws.operators import emr as aws_emr
        from durable_jobs.providers.amazon.aws.operators import glue as aws_glue
        from durable_jobs.providers.amazon.aws.operators import step_function as aws_step_function
        from durable_jobs.testing.emulators.aws_env import ATHENA_WORKGROUP, JOB_DEFINITION, JOB_QUEUE, ROLE_ARN

        common = dict(task_id="faults", aws_conn_id=self.conn_id, **kwargs)
        if self.service == "batch":
            return aws_batch.BatchOperator(job_name=self.name, job_queue=JOB_QUEUE, job_definition=JOB_DEFINITION,
                                     poll_interval=0.2, **common)
        if self.service == "glue":
            return aws_glue.GlueJobOperator(job_name=self.name, job_poll_interval=0.2, waiter_delay=0.2, **common)
        if self.service == "emr_serverless":
            return aws_emr.EmrServerlessStartJobOperator(
                application_id=self.env.application_id, execution_role_arn=ROLE_ARN, waiter_delay=1,
                waiter_max_attempts=1000, name=self.name,
                job_driver={"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}}, **common)
        if self.service == "stepfunctions":
            from durable_jobs.testing.emulators.aws_env import STATE_MACHINE_ARN

            return aws_step_function.StepFunctionStartExecutionOperator(
                state_machine_arn=STATE_MACHINE_ARN, state_machine_input={"cell": self.name}, waiter_delay=0.2,
                waiter_max_attempts=1000, **common)
        if self.service == "emr_containers":
            from durable_jobs.providers.amazon.aws.operators.emr import EmrContainerOperator
            from durable_jobs.testing.emulators.aws_env import EMR_RELEASE_LABEL

            return EmrContainerOperator(
                name=self.name, virtual_cluster_id=self.env.virtual_cluster_id, execution_role_arn=ROLE_ARN,
                release_label=EMR_RELEASE_LABEL, poll_interval=0.2,
                job_driver={"sparkSubmitJobDriver": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}}, **common)
        if self.service == "ecs":
            from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator
            from durable_jobs.testing.emulators.aws_env import ECS_CLUSTER, ECS_TASK_DEFINITION

            return EcsRunTaskOperator(cluster=ECS_CLUSTER, task_definition=ECS_TASK_DEFINITION, launch_type="FARGATE",
                                      overrides={}, group=self.name, waiter_delay=0.2, **common)
        if self.service == "emr_steps":
            from durable_jobs.providers.amazon.aws.operators.emr import EmrAddStepsOperator

            return EmrAddStepsOperator(job_flow_id=self.env.emr_cluster_id, wait_for_completion=True, waiter_delay=0.2,
                                       waiter_max_attempts=1000, steps=self.request(None)["Steps"], **common)
        if self.service == "sagemaker":
            from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator

            return SageMakerTrainingOperator(config=self.request(None), check_interval=0.2, max_attempts=1000,
                                             print_log=False, **common)
        if self.service == "redshift_data":
            from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

            return RedshiftDataOperator(cluster_identifier="durable-cluster", database="dev", db_user="airflow",
                                        sql=f"SELECT 1 -- {self.name}", poll_interval=0.2, **common)
        if self.service == "athena":
            return aws_athena.AthenaOperator(query=f"SELECT 1 -- {self.name}", workgroup=ATHENA_WORKGROUP,
                                             sleep_time=0.2, **common)
        raise LookupError(f"the fault suite builds no operator for the AWS service {self.service!r}: add it here")

    def request(self, op: Any) -> dict[str, Any]:
        from durable_jobs.testing.emulators.aws_env import ATHENA_WORKGROUP, JOB_DEFINITION, JOB_QUEUE, ROLE_ARN

        if self.service == "batch":
            return {"jobName": self.name, "jobQueue": JOB_QUEUE, "jobDefinition": JOB_DEFINITION}
        if self.service == "glue":
            return {"JobName": self.name, "Arguments": {}}
        if self.service == "emr_serverless":
            return {"applicationId": self.env.application_id, "executionRoleArn": ROLE_ARN, "name": self.name,
                    "jobDriver": {"sparkSubmit": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}}}
        if self.service == "stepfunctions":
            from durable_jobs.testing.emulators.aws_env import STATE_MACHINE_ARN

            return {"stateMachineArn": STATE_MACHINE_ARN, "input": json.dumps({"cell": self.name})}
        if self.service == "emr_containers":
            from durable_jobs.testing.emulators.aws_env import EMR_RELEASE_LABEL

            return {"name": self.name, "virtualClusterId": self.env.virtual_cluster_id, "executionRoleArn": ROLE_ARN,
                    "releaseLabel": EMR_RELEASE_LABEL,
                    "jobDriver": {"sparkSubmitJobDriver": {"entryPoint": "s3://durable-bucket/scripts/etl.py"}}}
        if self.service == "ecs":
            from durable_jobs.testing.emulators.aws_env import ECS_CLUSTER, ECS_TASK_DEFINITION

            return {"cluster": ECS_CLUSTER, "taskDefinition": ECS_TASK_DEFINITION, "launchType": "FARGATE",
                    "group": self.name, "startedBy": "airflow", "overrides": {}}
        if self.service == "emr_steps":
            return {"JobFlowId": self.env.emr_cluster_id, "Steps": [{"Name": self.name, "ActionOnFailure": "CONTINUE",
                    "HadoopJarStep": {"Jar": "command-runner.jar", "Args": ["spark-submit", "etl.py"]}}]}
        if self.service == "sagemaker":  # no InputDataConfig: nothing for the hook's S3 check to find
            return {"TrainingJobName": self.name, "RoleArn": ROLE_ARN,
                    "AlgorithmSpecification": {"TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgb:1",
                                               "TrainingInputMode": "File"},
                    "OutputDataConfig": {"S3OutputPath": "s3://durable-bucket/model/"},
                    "ResourceConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 5},
                    "StoppingCondition": {"MaxRuntimeInSeconds": 3600}}
        if self.service == "redshift_data":
            return {"ClusterIdentifier": "durable-cluster", "Database": "dev", "DbUser": "airflow",
                    "Sql": f"SELECT 1 -- {self.name}"}
        if self.service == "athena":
            return {"QueryString": f"SELECT 1 -- {self.name}", "WorkGroup": ATHENA_WORKGROUP}
        raise LookupError(f"the fault suite builds no request for the AWS service {self.service!r}: add it here")

    def start(self, client: JobClient) -> Any:
        return client.submit(self.request(None), client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        return len(self.proxy.jobs_created(self.submit_op))

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        p, get, submit = self.proxy, self.status_op, self.submit_op
        if case == "throttled-retry-after":
            rule = p.throttle(get, count=2)
            rule.retry_after = 1
        elif case == "throttled":
            p.throttle(get, count=3)
        elif case == "server-error":
            p.fault(get, status=503, code="ServiceUnavailableException", count=-1, seconds=seconds)
        elif case == "reset":
            p.fault(get, mode="reset", count=3)
        elif case == "timeout":
            p.fault(get, mode="slow", delay=SLOW, count=2)
        elif case == "not-json":
            p.fault(get, mode="garbage", count=2)
        elif case == "unknown-state":
            p.fault(get, mode="rewrite", rewrite=_unknown_state(self.service), count=UNKNOWN_READS)
        elif case == "unknown-state-too-long":
            p.fault(get, mode="rewrite", rewrite=_unknown_state(self.service), count=-1)
        elif case == "outage":
            p.fault(get, status=503, code="ServiceUnavailableException", count=-1)
        elif case == "auth":
            p.deny(get, f"{get}", count=-1)
        elif case == "submit-throttled":
            p.throttle(submit, count=2)
        elif case == "submit-lost-reply":
            p.fault(submit, mode="lose_reply", status=500, count=2)
        elif case == "submit-reset":
            p.fault(submit, mode="reset", count=1)
        elif case == "submit-timeout":
            p.fault(submit, mode="slow", delay=SLOW, count=1)
        elif case == "submit-not-json":
            p.fault(submit, mode="garbage", count=1)
        elif case == "submit-auth":
            p.deny(submit, submit, count=-1)
        elif case != "deleted":
            raise KeyError(case)

    def delete(self, job_id: Any) -> None:
        if self.service == "batch":
            self.proxy.fault(self.status_op, mode="rewrite", rewrite=_vanished, count=-1)
        elif self.service in self.MISSING_REWRITE:
            self.proxy.fault(self.status_op, mode="rewrite", rewrite=self.MISSING_REWRITE[self.service], count=-1)
        else:
            self.proxy.fault(self.status_op, count=-1, **self.MISSING[self.service])


# ---------------------------------------------------------------------------------------------- Snowflake
class SnowflakeTarget:
    """The SQL API emulator, one per cell, under an account of the cell's own (routes are per account).

    The SQL API's state is the HTTP code of the status reply: an unknown state is a code the API does not
    document (203); a job that vanished is one the emulator forgot (404). The hook's own retries of a
    status call (429, 503, 504, resets) are made fast through ``snowflake_api_retry_args`` on the
    synchronous path; the trigger rebuilds the hook with the official defaults, as it would in Airflow."""

    service = "snowflake_sql_api"
    status_route = calls(service).status
    submit_route = calls(service).submit
    SQL = "INSERT INTO faults SELECT 1"

    def __init__(self, cell: str):
        self.cell = cell
        self.conn_id = f"sf_{cell.replace('-', '_')}"
        self.emu = SnowflakeEmulator(account=f"faults-{cell}").start()
        self._route = self.emu.routed()
        self._route.__enter__()
        self._wrong_route: Any = None

    def stop(self) -> None:
        if self._wrong_route is not None:
            self._wrong_route.__exit__(None, None, None)
        self._route.__exit__(None, None, None)
        self.emu.stop()

    def conn_env(self) -> dict[str, str]:
        return self.emu.airflow_conn_env(self.conn_id)

    def broken_conn_env(self, host: str, port: int) -> dict[str, str]:
        """The connection with another account, whose URL is ``host:port`` (a wrong setup case): the hook
        builds its URL from the account, so a mistyped account is what sends it to the wrong host."""
        account = f"{self.emu.account}-wrong"
        if self._wrong_route is not None:
            self._wrong_route.__exit__(None, None, None)
        self._wrong_route = route_hooks(f"http://{host}:{port}", account)
        self._wrong_route.__enter__()
        conn = self.emu.connection_dict()
        conn["extra"] = json.dumps({**json.loads(conn["extra"]), "account": account})
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn)}

    def reset(self) -> None:
        self.emu.reset()
        self.emu.configure(run_seconds=2.0)

    # ------------------------------------------------------------------ our code, pointed here
    def operator(self, **kwargs: Any):
        from tenacity import stop_after_attempt, wait_fixed

        from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

        return SnowflakeSqlApiOperator(
            task_id="faults", sql=self.SQL, statement_count=1, snowflake_conn_id=self.conn_id, poll_interval=0.2,
            snowflake_api_retry_args={"stop": stop_after_attempt(2), "wait": wait_fixed(0.05)},
            hook_params={"http_request_kwargs": {"timeout": TIMEOUT}}, **kwargs,
        )

    def request(self, op) -> dict[str, Any]:
        return {"sql": self.SQL, "statement_count": 1}

    def start(self, client: JobClient) -> Any:
        return client.submit(self.request(None), client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        return int(self.emu.ledger()["executions"])

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        unknown = {"__status__": 203, "message": "Statement is hibernating."}
        arm_emulator(self.emu, case, self.status_route, self.submit_route, unknown=unknown, auth_count=-1,
                     seconds=seconds)

    def delete(self, job_id: Any) -> None:
        for handle in job_id:
            self.emu.forget(handle)


class DatabricksSqlTarget(DatabricksTarget):
    """The Databricks emulator's SQL statement endpoints (``DatabricksSQLStatementsOperator``)."""

    service = "databricks_sql"
    status_route = calls(service).status
    submit_route = calls(service).submit
    BODY = {"statement": "SELECT 1", "warehouse_id": "faults-warehouse", "wait_timeout": "0s"}

    def reset(self, running_seconds: float = 2.0) -> None:
        self.emu.reset()
        self.emu.configure(pending_seconds=0.1, running_seconds=running_seconds)

    def operator(self, **kwargs: Any):
        from durable_jobs.providers.databricks.operators.databricks import DatabricksSQLStatementsOperator

        return DatabricksSQLStatementsOperator(
            task_id="faults", statement="SELECT 1", warehouse_id="faults-warehouse", databricks_conn_id=self.conn_id,
            polling_period_seconds=0.2, databricks_retry_limit=2, databricks_retry_delay=0.05, **kwargs,
        )

    def request(self, op) -> dict[str, Any]:
        return dict(self.BODY)

    def start(self, client: JobClient) -> Any:
        return client.submit(dict(self.BODY), client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        return int(self.emu.ledger()["statements_created"])

    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        arm_emulator(self.emu, case, self.status_route, self.submit_route, unknown={"status": {"state": "HIBERNATING"}},
                     auth_count=1, seconds=seconds)

    def delete(self, job_id: Any) -> None:
        # "After at least 12 hours in terminal state, the statement is removed from the warehouse and further
        # calls will receive an HTTP 404 response": the emulator's expire_statement() is that removal.
        self.emu.expire_statement(job_id)

"""AWS services for the crash suite: one moto server in the test process, one fault proxy per cell.

moto's backends and its state manager are process-wide, so every AWS cell shares one moto (the
``AwsTestEnv``: Batch queue and job definition, Athena workgroup, IAM role); each cell gets its own
``AwsFaultProxy`` in front of it and its own Airflow connection (``AIRFLOW_CONN_AWS_<CELL>``), so a
hold armed by one cell never parks another cell's request and each cell's jobs are counted on its own
proxy's ledger (what moto answered to the submit call), cross-checked against moto's own listing of
the cell's jobs (Batch: the job name; Athena: the query text, which names the cell).

A service is data (:class:`AwsService`), built from the registry for every AWS operator with crash rows
(``Operator.crash``, the crash matrix's vendor key: "batch", "glue", "sagemaker_processing", ...): its submit,
status and cancel operations and where its status reply holds the state (``Calls``), its active states (its
client's state table), the operator's state-store keys (its ``external_id_key``). What is this suite's own is
how moto lists one cell's jobs (``LISTERS``, by service key).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from durable_jobs import vendors
from durable_jobs.providers.amazon.aws.clients.base import KEY_TAG
from durable_jobs.providers.amazon.aws.clients.emr_steps import key_of_name, user_name
from durable_jobs.providers.amazon.aws.clients.glue import KEY_ARGUMENT as GLUE_KEY_ARGUMENT
from durable_jobs.testing.emulators.aws_env import CONN_ENV, CONSISTENCY_ENV, JOB_QUEUE, REGION, ROLE_ARN, AwsTestEnv
from durable_jobs.testing.emulators.aws_proxy import AwsFaultProxy, Fault, Hold, state_rewrite

#: What the Airflow processes read the shared EMR Serverless application's id from (crash_dags.py).
EMR_APPLICATION_ENV = "DJ_CRASH_EMR_APPLICATION"
#: A state no vendor's table lists, for the replies an outage scenario rewrites.
UNKNOWN_STATE = "HIBERNATING"


@dataclass(frozen=True)
class AwsService:
    key: str
    name: str
    submit: str
    describe: str
    cancel_ops: tuple[str, ...]
    active: frozenset[str]
    #: the durable operator's ``external_id_key`` (the bare id) and its record beside it
    raw_key: str
    #: one cell's jobs as moto lists them, oldest first: ``{"id", "status", "token"}`` each
    list_jobs: Callable[[AwsVendor], list[dict[str, Any]]]
    #: the status reply (``describe``'s JSON) with every job in it reported in ``UNKNOWN_STATE``
    unknown_state: Callable[[dict[str, Any]], dict[str, Any]]

    @property
    def checkpoint_key(self) -> str:
        return f"{self.raw_key}_durable"


def _batch_jobs(vendor: AwsVendor) -> list[dict[str, Any]]:
    summaries = vendor.env.batch_jobs(vendor.job_name)
    if not summaries:
        return []
    described = vendor.env.client("batch", direct=True).describe_jobs(jobs=[s["jobId"] for s in summaries])["jobs"]
    return [{"id": j["jobId"], "status": j["status"], "token": (j.get("tags") or {}).get(KEY_TAG)}
            for j in sorted(described, key=lambda j: j["createdAt"])]


def _athena_queries(vendor: AwsVendor) -> list[dict[str, Any]]:
    # moto does not return a query's ClientRequestToken: the token is the one this cell's proxy saw.
    tokens = {e["id"]: e.get("token") for e in vendor.proxy.jobs_created(vendor.service.submit)}
    return [{"id": q["QueryExecutionId"], "status": q["Status"]["State"], "token": tokens.get(q["QueryExecutionId"])}
            for q in vendor.env.athena_queries(containing=vendor.job_name)]


def _glue_runs(vendor: AwsVendor) -> list[dict[str, Any]]:
    runs = sorted(vendor.env.glue_runs(vendor.job_name), key=lambda r: r["StartedOn"])
    return [{"id": r["Id"], "status": r["JobRunState"], "token": (r.get("Arguments") or {}).get(GLUE_KEY_ARGUMENT)}
            for r in runs]


def _emr_serverless_runs(vendor: AwsVendor) -> list[dict[str, Any]]:
    # The application is shared: a cell's runs are the ones named after it (the operator's `name`).
    emr = vendor.env.client("emr-serverless", direct=True)
    pages = emr.get_paginator("list_job_runs").paginate(applicationId=vendor.env.application_id)
    runs = sorted((r for page in pages for r in page["jobRuns"] if r.get("name") == vendor.job_name),
                  key=lambda r: r["createdAt"])
    tokens = {e["id"]: e.get("token") for e in vendor.proxy.jobs_created(vendor.service.submit)}
    return [{"id": r["id"], "status": r["state"], "token": tokens.get(r["id"])} for r in runs]


def _sfn_executions(vendor: AwsVendor) -> list[dict[str, Any]]:
    # One state machine for every cell: a cell's executions are the ones whose input names it.
    sfn = vendor.env.client("stepfunctions", direct=True)
    described = [sfn.describe_execution(executionArn=e["executionArn"]) for e in vendor.env.sfn_executions()]
    return [{"id": d["executionArn"], "status": d["status"], "token": d["name"]}
            for d in described if vendor.job_name in (d.get("input") or "")]


def _ecs_tasks(vendor: AwsVendor) -> list[dict[str, Any]]:
    # One cluster for every cell: a cell's tasks are the ones whose group is its DAG id; the token is the
    # clientToken this cell's proxy saw (DescribeTasks does not return it).
    from durable_jobs.testing.emulators.aws_env import ECS_CLUSTER

    tokens = {e["id"]: e.get("token") for e in vendor.proxy.jobs_created(vendor.service.submit)}
    return [{"id": t["taskArn"], "status": t["lastStatus"], "token": tokens.get(t["taskArn"])}
            for t in vendor.env.ecs_tasks() if t.get("group") == vendor.job_name and ECS_CLUSTER in t["clusterArn"]]


def _redshift_data_statements(vendor: AwsVendor) -> list[dict[str, Any]]:
    # One moto for every cell: a cell's statements are the ones whose SQL names its DAG id (moto has no
    # ListStatements: its backend, in this process, lists them; DescribeStatement reads each, as AWS would be
    # asked); the token is the ClientToken this cell's proxy saw.
    from moto.redshiftdata.models import redshiftdata_backends

    from durable_jobs.testing.emulators.aws_env import ACCOUNT

    tokens = {e["id"]: e.get("token") for e in vendor.proxy.jobs_created(vendor.service.submit)}
    statements = [s for s in list(redshiftdata_backends[ACCOUNT][REGION].statements.values())
                  if vendor.job_name in str(s.query_string)]
    rsd = vendor.env.client("redshift-data", direct=True)
    return [{"id": s.id, "status": rsd.describe_statement(Id=s.id)["Status"], "token": tokens.get(s.id)}
            for s in sorted(statements, key=lambda s: s.created_at)]


def _emr_containers_runs(vendor: AwsVendor) -> list[dict[str, Any]]:
    # One virtual cluster for every cell: a cell's runs are the ones named after it (the operator's `name`);
    # the token is the run's own clientToken (DescribeJobRun returns it).
    emr = vendor.env.client("emr-containers", direct=True)
    runs = [emr.describe_job_run(virtualClusterId=vendor.env.virtual_cluster_id, id=r["id"])["jobRun"]
            for r in vendor.env.emr_container_runs() if r.get("name") == vendor.job_name]
    return [{"id": r["id"], "status": r["state"], "token": r.get("clientToken")} for r in runs]


#: What the Airflow processes read the shared EMR on EKS virtual cluster's id from (crash_dags.py).
EMR_VIRTUAL_CLUSTER_ENV = "DJ_CRASH_EMR_VIRTUAL_CLUSTER"


def job_type(submit: str) -> str:
    """The kind of job a ``<service>:Create<Type>Job`` call makes (SageMaker: Training, Processing, Transform)."""
    return submit.partition(":Create")[2].removesuffix("Job")


def _sagemaker_jobs(vendor: AwsVendor) -> list[dict[str, Any]]:
    """One cell's SageMaker jobs of its operator's job type (Training, Processing, Transform), oldest first."""
    # One moto for every cell: a cell's jobs carry a "cell" tag naming its DAG (the job name is the cell's for the
    # official operator, <cell name>-<key> for ours); Describe<Type>Job reads each.
    from moto.sagemaker.models import sagemaker_backends

    from durable_jobs.testing.emulators.aws_env import ACCOUNT

    kind = job_type(vendor.service.submit)
    store, name_attr = f"{kind.lower()}_jobs", f"{kind.lower()}_job_name"
    found = [j for j in list(getattr(sagemaker_backends[ACCOUNT][REGION], store).values())
             if {"Key": "cell", "Value": vendor.job_name} in (j.tags or [])]
    sm = vendor.env.client("sagemaker", direct=True)
    describe = getattr(sm, f"describe_{kind.lower()}_job")
    names = [getattr(j, name_attr) for j in sorted(found, key=lambda j: j.creation_time)]
    return [{"id": n, "token": n, "status": describe(**{f"{kind}JobName": n})[f"{kind}JobStatus"]} for n in names]


def _emr_steps(vendor: AwsVendor) -> list[dict[str, Any]]:
    # One cluster for every cell: a cell's steps are the ones whose name (less our key suffix) is its DAG id; the
    # token is the key in the name (None for the official operator's, which carry none).
    emr = vendor.env.client("emr", direct=True)
    pages = emr.get_paginator("list_steps").paginate(ClusterId=vendor.env.emr_cluster_id)
    steps = [s for page in pages for s in page["Steps"] if user_name(s.get("Name", "")) == vendor.job_name]
    steps.sort(key=lambda s: s["Status"]["Timeline"]["CreationDateTime"])
    return [{"id": s["Id"], "status": s["Status"]["State"], "token": (key_of_name(s["Name"]) or (None,))[0]}
            for s in steps]


#: How moto lists one cell's jobs, by the registry's service key: what this suite must add for an AWS service.
LISTERS: dict[str, Callable[[AwsVendor], list[dict[str, Any]]]] = {
    "batch": _batch_jobs, "glue": _glue_runs, "emr_serverless": _emr_serverless_runs, "athena": _athena_queries,
    "stepfunctions": _sfn_executions, "ecs": _ecs_tasks, "redshift_data": _redshift_data_statements,
    "emr_containers": _emr_containers_runs, "emr_steps": _emr_steps, "sagemaker": _sagemaker_jobs,
}


def _load(classpath: str) -> Any:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _aws_service(service: vendors.Service, op: vendors.Operator) -> AwsService:
    """The crash suite's view of one AWS operator, from the registry."""
    calls = service.calls_of(op)
    if calls is None or op.crash is None:
        raise LookupError(f"the registry names no calls or crash key for {op.name}")
    # an operator with calls of its own is named after the job its submit makes: "Amazon SageMaker (processing)"
    name = service.name if op.calls is None else f"{service.name} ({job_type(calls.submit).lower()})"
    return AwsService(op.crash, name, calls.submit, calls.status, calls.cancel, _load(service.client).states.active,
                      _load(op.classpath).external_id_key, LISTERS[service.key],
                      state_rewrite(calls.state_field, UNKNOWN_STATE))


#: Every AWS operator with crash rows, by its crash key (the registry's ``Operator.crash``).
SERVICES: dict[str, AwsService] = {op.crash: _aws_service(service, op) for service in vendors.family("aws").services
                                   for op in service.operators if op.crash}
#: The crash key of each SageMaker job type (training keeps the plain key its rows were first recorded under).
SAGEMAKER_KEYS = {job_type(s.submit): key for key, s in SERVICES.items() if s.submit.startswith("sagemaker:")}
#: The model every transform cell names: created once per fleet, since both operators describe it when the
#: job has ended (upstream's ``serialize_result``), and a transform job of a missing model fails the task. Its
#: input is the loopback AWS's own (``aws_env.SAGEMAKER_DATA_BUCKET``, ``batch/``).
SAGEMAKER_MODEL = {"ModelName": "durable-crash-model", "ExecutionRoleArn": ROLE_ARN,
                   "PrimaryContainer": {"Image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/xgb:1"}}


class AwsVendor:
    """One cell's view of an AWS service: its own proxy in front of the shared moto."""

    def __init__(self, env: AwsTestEnv, service: AwsService, job_name: str):
        self.env = env
        self.service = service
        self.job_name = job_name
        self.proxy = AwsFaultProxy(env.moto.url).start()
        self.proxy.watch(*service.cancel_ops)  # a cancel in a cell is named: client, time, request
        self._hold: Hold | None = None

    def conn(self) -> str:
        return json.dumps({
            "conn_type": "aws", "login": "testing", "password": "testing",
            "extra": {"region_name": REGION, "endpoint_url": self.proxy.url},
        })

    def hold_submit(self) -> None:
        self._hold = self.proxy.hold(self.service.submit)

    def held(self) -> bool:
        return bool(self._hold and self._hold.parked.is_set())

    def release(self, abandon: bool = False) -> int:
        self.proxy.release()
        return 1

    def created(self) -> list[str]:
        """Ids moto returned to this cell's submit calls."""
        return [e["id"] for e in self.proxy.jobs_created(self.service.submit)]

    def calls(self, op: str) -> int:
        return self.proxy.calls.get(op, 0)

    def cancel_calls(self) -> list[dict[str, Any]]:
        """Every cancel call this cell's proxy forwarded: op, Unix time, client (``Botocore/...``: a worker or
        the DAG processor; ``aiobotocore/...``: a trigger) and request body."""
        return list(self.proxy.watched)

    def outage(self, outage_seconds: float, unknown_seconds: float) -> list[Fault]:
        """The status call answers 503 for ``outage_seconds``, then reports ``UNKNOWN_STATE`` for
        ``unknown_seconds`` counted from the first reply so rewritten (the rules claim requests in order)."""
        describe = self.service.describe
        return [
            self.proxy.fault(describe, status=503, code="ServiceUnavailableException", count=-1,
                             seconds=outage_seconds),
            self.proxy.fault(describe, mode="rewrite", rewrite=self.service.unknown_state, count=-1,
                             seconds=unknown_seconds, seconds_from="first"),
        ]

    def status_faults(self) -> list[tuple[float, str]]:
        """(Unix time, "503" | "unknown") of every injected answer to this cell's status calls."""
        return [(f["ts"], "unknown" if f["mode"] == "rewrite" else str(f["status"]))
                for f in list(self.proxy.fired) if f["op"] == self.service.describe]

    def jobs(self) -> list[dict[str, Any]]:
        """moto's own view of this cell's jobs, oldest first."""
        return self.service.list_jobs(self)

    def stop(self) -> None:
        self.proxy.stop()


#: A service whose official operator polls with another call on one path: service key -> {cell-name suffix:
#: the service as that cell sees it} (Amazon EMR steps: the official synchronous wait is DescribeStep's waiter).
CELL_SERVICES: dict[str, dict[str, AwsService]] = {}


def cell_service(service: str, job_name: str) -> AwsService:
    overrides = CELL_SERVICES.get(service, {})
    return next((s for suffix, s in overrides.items() if job_name.endswith(suffix)), SERVICES[service])


class AwsFleet:
    """The shared moto + resources, and one ``AwsVendor`` per AWS cell."""

    def __init__(self, cells: dict[str, tuple[str, str]]):
        """``cells``: cell key -> (service key, job name)."""
        self.env = AwsTestEnv(consistency_seconds=1.0).start()
        self.env.client("sagemaker", direct=True).create_model(**SAGEMAKER_MODEL)
        self.vendors = {key: AwsVendor(self.env, cell_service(service, name), name)
                        for key, (service, name) in cells.items()}

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        """What the Airflow processes need: one connection per cell, credentials, the consistency window."""
        out = {f"AIRFLOW_CONN_{conn_id.upper()}": self.vendors[key].conn() for conn_id, key in conn_ids.items()}
        out[CONN_ENV] = self.env.moto.airflow_conn_uri(self.env.proxy.url, REGION)
        out[CONSISTENCY_ENV] = str(self.env.consistency_seconds)
        out[EMR_APPLICATION_ENV] = str(self.env.application_id)
        out[EMR_VIRTUAL_CLUSTER_ENV] = str(self.env.virtual_cluster_id)
        out.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_DEFAULT_REGION": REGION})
        return out

    def stop(self) -> None:
        try:
            for vendor in self.vendors.values():
                vendor.stop()
        finally:
            self.env.stop()


__all__ = ["AwsFleet", "AwsService", "AwsVendor", "EMR_APPLICATION_ENV", "JOB_QUEUE", "SERVICES", "UNKNOWN_STATE"]

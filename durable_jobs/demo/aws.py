"""The AWS section of ``durable-jobs demo``: the example DAGs against moto + our fault proxy on 127.0.0.1.

``run_aws_demo(print_fn)`` starts moto (server mode, with the rules in ``MOTO_GAPS``) and the fault
proxy on 127.0.0.1, drives the example DAGs (``example_dags/aws_*.py``) through Airflow's own
machinery (``durable_jobs.demo.runner``: scheduling, retries, the in-process triggerer), counts the
jobs AWS received, and stops everything. Airflow must be configured first (the demo's private
AIRFLOW_HOME); when it is not yet imported, the demo prepares one. Returns one row per run:
``{"scenario", "operator", "jobs", "outcome"}``. Without moto installed it prints why and returns [].
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

#: The example DAGs, from the installed package (the repository's example_dags/ in a checkout).
EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
OFFICIAL = Path(__file__).resolve().parent / "dags" / "aws_official_dags.py"
#: (file, task id, attribute → fast value for the loopback run)
EXAMPLE_TASKS = {
    "batch": ("aws_batch", "nightly_batch", {"poll_interval": 0.2, "retry_delay": timedelta(0)}),
    "glue": ("aws_glue", "nightly_glue", {"waiter_delay": 0.2, "job_poll_interval": 0.2,
                                          "retry_delay": timedelta(0)}),
    "emr-serverless": ("aws_emr_serverless", "nightly_spark", {"waiter_delay": 1, "retry_delay": timedelta(0)}),
    "athena": ("aws_athena", "nightly_report", {"sleep_time": 0.2, "retry_delay": timedelta(0)}),
}
SCENARIOS = {
    "happy": "the job runs to success on the deferrable path",
    "lost_reply": "the job is created but the reply to the submit call is lost (HTTP 500)",
    "poll_failure": "polling fails while the job runs (expired token); Airflow retries the task",
}
SUBMIT_OP = {"batch": "batch:SubmitJob", "glue": "glue:StartJobRun", "emr-serverless": "emr-serverless:StartJobRun",
             "athena": "athena:StartQueryExecution"}
POLL_OP = {"batch": "batch:DescribeJobs", "glue": "glue:GetJobRun", "emr-serverless": "emr-serverless:GetJobRun",
           "athena": "athena:GetQueryExecution"}
# AWS Step Functions
EXAMPLE_TASKS["stepfunctions"] = ("aws_stepfunctions", "nightly_workflow",
                                  {"waiter_delay": 0.2, "retry_delay": timedelta(0)})
SUBMIT_OP["stepfunctions"] = "states:StartExecution"
POLL_OP["stepfunctions"] = "states:DescribeExecution"
# Amazon ECS
EXAMPLE_TASKS["ecs"] = ("aws_ecs", "nightly_container", {"waiter_delay": 0.2, "retry_delay": timedelta(0)})
SUBMIT_OP["ecs"] = "ecs:RunTask"
POLL_OP["ecs"] = "ecs:DescribeTasks"
# Amazon EMR on EKS
EXAMPLE_TASKS["emr-containers"] = ("aws_emr_containers", "nightly_spark_on_eks",
                                   {"poll_interval": 0.2, "retry_delay": timedelta(0)})
SUBMIT_OP["emr-containers"] = "emr-containers:StartJobRun"
POLL_OP["emr-containers"] = "emr-containers:DescribeJobRun"
# Amazon Redshift Data API
EXAMPLE_TASKS["redshift-data"] = ("aws_redshift_data", "nightly_load",
                                  {"poll_interval": 0.2, "retry_delay": timedelta(0)})
SUBMIT_OP["redshift-data"] = "redshift-data:BatchExecuteStatement"
POLL_OP["redshift-data"] = "redshift-data:DescribeStatement"
# Amazon EMR steps (AddJobFlowSteps on the demo's long-running cluster)
EXAMPLE_TASKS["emr-steps"] = ("aws_emr_steps", "nightly_report", {"waiter_delay": 0.2, "retry_delay": timedelta(0)})
SUBMIT_OP["emr-steps"] = "elasticmapreduce:AddJobFlowSteps"
POLL_OP["emr-steps"] = "elasticmapreduce:ListSteps"
# Amazon SageMaker: training, processing and batch transform (one client, a job type each)
for _service, _example, _task, _type in (("sagemaker", "aws_sagemaker", "nightly_training", "Training"),
                                         ("sagemaker-processing", "aws_sagemaker_processing", "nightly_features",
                                          "Processing"),
                                         ("sagemaker-transform", "aws_sagemaker_transform", "nightly_scoring",
                                          "Transform")):
    EXAMPLE_TASKS[_service] = (_example, _task, {"check_interval": 0.2, "retry_delay": timedelta(0)})
    SUBMIT_OP[_service] = f"sagemaker:Create{_type}Job"
    POLL_OP[_service] = f"sagemaker:Describe{_type}Job"


def _moto_available() -> bool:
    return importlib.util.find_spec("moto") is not None


def _official_dag(service: str):
    """The same task with the official operator (Batch, Glue: no idempotency token of their own)."""
    from durable_jobs.demo import runner

    module = runner.load_module(OFFICIAL.stem, OFFICIAL.parent)
    return {"batch": module.batch_dag, "glue": module.glue_dag}[service]


def _arm(env, service: str, scenario: str) -> None:
    env.reset()  # also drops the previous scenario's pending release
    os.environ["AIRFLOW_VAR_EMR_SERVERLESS_APPLICATION_ID"] = env.application_id
    os.environ["AIRFLOW_VAR_EMR_CONTAINERS_VIRTUAL_CLUSTER_ID"] = str(env.virtual_cluster_id)
    if scenario == "lost_reply":
        env.proxy.fault(SUBMIT_OP[service], mode="lose_reply", status=500)
    elif scenario == "poll_failure":
        skip = 2 if service == "batch" else 1  # Batch also describes the job for its links before polling
        # An expired session token is an auth fault: the try fails at once and the retry reconnects.
        env.proxy.fault(POLL_OP[service], status=400, code="ExpiredTokenException", skip=skip, count=1)
        env.hold_for(4.0)


def _jobs(env) -> int:
    return len(env.proxy.jobs_created())


def run_aws_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each AWS scenario with the example DAGs (and the official operator where it differs)."""
    if not _moto_available():
        print_fn("AWS demo skipped: moto is not installed (pip install 'airflow-durable-jobs[amazon,test]').")
        return []
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    missing = _missing_from_dags_folder()
    if missing:
        print_fn(f"AWS demo skipped: Airflow's DAGs folder lacks {', '.join(missing)}; link them from {EXAMPLES} "
                 "into it (or call run_aws_demo before Airflow is imported).")
        return []
    from durable_jobs.demo import runner
    from durable_jobs.emulators.aws_env import AwsTestEnv

    rows: list[dict] = []
    with AwsTestEnv() as env:
        for service, (module_name, task_id, fast) in EXAMPLE_TASKS.items():
            dag = _example_dag(runner, module_name)
            for name, value in fast.items():
                setattr(dag.task_dict[task_id], name, value)
            plays = [(scenario, "durable", dag) for scenario in SCENARIOS]
            if service in ("batch", "glue"):
                plays.insert(2, ("lost_reply", "official", _official_dag(service)))
            for scenario, operator, target in plays:
                print_fn(f"[{service}] {SCENARIOS[scenario]} — {operator} operator ...")
                _arm(env, service, scenario)
                dr = runner.run(target)
                result = runner.task_result(dr, task_id)
                row = {"scenario": f"{service}:{scenario}", "operator": operator, "jobs": _jobs(env),
                       "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      jobs submitted: {row['jobs']}  task: {row['outcome']}")
    return rows


def example_files() -> list[Path]:
    """The example DAG files the AWS demo runs; the demo's DAGs folder must hold them (links are fine)."""
    return [EXAMPLES / f"{module}.py" for module, _, _ in EXAMPLE_TASKS.values()]


def _missing_from_dags_folder() -> list[str]:
    from airflow.configuration import conf

    folder = Path(conf.get("core", "dags_folder"))
    return [f.name for f in [*example_files(), OFFICIAL] if not (folder / f.name).exists()]


def _example_dag(runner, module_name: str):
    module = runner.load_module(module_name, EXAMPLES)
    from airflow.sdk import DAG

    return next(v for v in vars(module).values() if isinstance(v, DAG))


def render(rows: list[dict]) -> str:
    width = max([len("scenario"), *(len(r["scenario"]) for r in rows)])
    header = f"{'scenario':<{width}} {'operator':<9} {'jobs':>4}  outcome"
    lines = [header, "-" * len(header)]
    lines += [f"{r['scenario']:<{width}} {r['operator']:<9} {r['jobs']:>4}  {r['outcome']}" for r in rows]
    return "\n".join(lines)


def section() -> list[dict]:
    """The AWS section of ``durable-jobs demo``: prints its table, returns the rows where ours missed."""
    print()
    print(f"AWS ({len(EXAMPLE_TASKS)} services: {', '.join(EXAMPLE_TASKS)}) on moto (127.0.0.1) behind our fault "
          "proxy:")
    rows = run_aws_demo()
    if rows:
        print()
        print(render(rows))
        print("Jobs are counted by the proxy in front of moto (what AWS received).")
    return [r for r in rows if r["operator"] == "durable" and r["jobs"] != 1]


if __name__ == "__main__":
    print(render(run_aws_demo()))

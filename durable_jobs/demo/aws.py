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
from typing import Any

from durable_jobs import vendors

#: The example DAGs, from the installed package (the repository's example_dags/ in a checkout).
EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
OFFICIAL = Path(__file__).resolve().parent / "dags" / "aws_official_dags.py"


def _rows() -> dict[str, tuple[vendors.Example, vendors.Calls]]:
    """Every AWS operator of the registry with an example DAG, in registry order, by its demo label: the example's
    name without ``aws_`` (``aws_emr_serverless.py`` plays ``emr-serverless``)."""
    rows = {}
    for service in vendors.family("aws").services:
        for op in service.operators:
            calls = service.calls_of(op)
            if op.example is not None and calls is not None:
                rows[op.example.dag.removeprefix("aws_").replace("_", "-")] = (op.example, calls)
    return rows


ROWS = _rows()
#: label -> (example DAG, task id, attribute -> fast value for the loopback run)
EXAMPLE_TASKS: dict[str, tuple[str, str, dict[str, Any]]] = {
    label: (example.dag, example.task, {**dict(example.fast), "retry_delay": timedelta(0)})
    for label, (example, _) in ROWS.items()
}
#: label -> the calls that create its job (a lost reply is armed on each) and the call that polls it
SUBMIT_OPS = {label: calls.submits for label, (_, calls) in ROWS.items()}
POLL_OP = {label: calls.status for label, (_, calls) in ROWS.items()}
SCENARIOS = {
    "happy": "the job runs to success on the deferrable path",
    "lost_reply": "the job is created but the reply to the submit call is lost (HTTP 500)",
    "poll_failure": "polling fails while the job runs (expired token); Airflow retries the task",
}


def _moto_available() -> bool:
    return importlib.util.find_spec("moto") is not None


def _official_dag(runner, label: str):
    """The same task with the official operator, where ``demo/dags/aws_official_dags.py`` has it as
    ``<label>_dag`` (Batch, Glue: no idempotency token of their own); else None."""
    module = runner.load_module(OFFICIAL.stem, OFFICIAL.parent)
    return getattr(module, f"{label.replace('-', '_')}_dag", None)


def _arm(env, label: str, scenario: str) -> None:
    env.reset()  # also drops the previous scenario's pending release
    os.environ["AIRFLOW_VAR_EMR_SERVERLESS_APPLICATION_ID"] = env.application_id
    os.environ["AIRFLOW_VAR_EMR_CONTAINERS_VIRTUAL_CLUSTER_ID"] = str(env.virtual_cluster_id)
    example, calls = ROWS[label]
    if scenario == "lost_reply":
        for op in calls.submits:  # whichever the example's request makes (Redshift Data: a batch of statements)
            env.proxy.fault(op, mode="lose_reply", status=500)
    elif scenario == "poll_failure":
        # An expired session token is an auth fault: the try fails at once and the retry reconnects. The status
        # calls the operator makes before it waits go through (Batch also describes the job for its links).
        env.proxy.fault(calls.status, status=400, code="ExpiredTokenException", skip=example.status_reads, count=1)
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
    from durable_jobs.testing.emulators.aws_env import AwsTestEnv

    rows: list[dict] = []
    with AwsTestEnv() as env:
        for service, (module_name, task_id, fast) in EXAMPLE_TASKS.items():
            dag = _example_dag(runner, module_name)
            for name, value in fast.items():
                setattr(dag.task_dict[task_id], name, value)
            plays = [(scenario, "durable", dag) for scenario in SCENARIOS]
            official = _official_dag(runner, service)
            if official is not None:
                plays.insert(2, ("lost_reply", "official", official))
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

"""The Cloud Batch part of the Google section of ``durable-jobs demo``: the example DAG against the Cloud Batch gRPC
emulator on 127.0.0.1.

The example DAG (``example_dags/google_cloud_batch.py``) and the official ``CloudBatchSubmitJobOperator`` with the
same job and ``job_name`` play the same faults through Airflow's own machinery (``durable_jobs.demo.runner``); the
emulator's ledger counts the jobs "Cloud Batch" created. With a lost reply the official operator does not
duplicate the job: its retry fails with ALREADY_EXISTS (its job id is the job name), which the table shows.
"""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
EXAMPLE, TASK = "google_cloud_batch", "nightly_render"
OFFICIAL = Path(__file__).resolve().parent / "dags" / "cloud_batch_official_dags.py"
FAST: dict[str, Any] = {"polling_period_seconds": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the job runs to success on the deferrable path", "1 job, success"),
    "lost_reply": ("Cloud Batch creates the job but the reply is lost (UNAVAILABLE)", "1 job, success"),
    "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while the job runs; Airflow retries",
                     "1 job, success"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{EXAMPLE}.py"]


def _arm(emu, scenario: str) -> None:
    if scenario == "lost_reply":
        emu.inject("CreateJob", "UNAVAILABLE", after=True)
    elif scenario == "poll_failure":
        emu.inject("GetJob", "PERMISSION_DENIED")


def _dags(runner) -> dict[str, Any]:
    from airflow.sdk import DAG

    module = runner.load_module(EXAMPLE, EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = runner.load_module(OFFICIAL.stem, OFFICIAL.parent).official_dag
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[TASK], name, value)
    return {"durable": durable, "official": official}


def run_cloud_batch_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours, each on a fresh emulator; one row per run."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    import os

    from durable_jobs.demo import runner
    from durable_jobs.emulators.cloud_batch import CloudBatchEmulator

    rows: list[dict] = []
    saved = os.environ.get("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT")
    try:
        dags = None
        for scenario, (story, wanted) in SCENARIOS.items():
            for operator in ("official", "durable"):
                print_fn(f"[cloud batch] {story} — {operator} operator ...")
                with CloudBatchEmulator(run_seconds=1.0) as emu, emu.routed():
                    os.environ.update(emu.airflow_conn_env())
                    dags = dags or _dags(runner)
                    _arm(emu, scenario)
                    dr = runner.run(dags[operator])
                    result = runner.task_result(dr, TASK)
                    row = {"scenario": scenario, "operator": operator, "jobs": emu.created("job"), "wanted": wanted,
                           "state": result.state, "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      jobs: {row['jobs']}  task: {row['outcome']}")
    finally:
        if saved is None:
            os.environ.pop("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT", None)
        else:
            os.environ["AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT"] = saved
    return rows


def render(rows: list[dict]) -> str:
    header = f"{'scenario':<13} {'expected':<15} {'official operator':<26} {'durable-jobs':<26}"
    lines = [header, "-" * len(header)]
    for scenario, (_, wanted) in SCENARIOS.items():
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        lines.append(f"{scenario:<13} {wanted:<15} {str(off['jobs']) + ' job(s), ' + off['outcome']:<26} "
                     f"{str(dur['jobs']) + ' job(s), ' + dur['outcome']:<26}")
    return "\n".join(lines)


def section() -> list[dict]:
    """Cloud Batch's table in the Google section: prints it, returns the rows where ours missed."""
    print()
    print("Google Cloud Batch on the bundled gRPC emulator (127.0.0.1), the official CloudBatchSubmitJobOperator "
          "vs ours:")
    rows = run_cloud_batch_demo()
    print()
    print(render(rows))
    print("Jobs are counted by the emulator's ledger (a create refused with ALREADY_EXISTS is not one).")
    return [r for r in rows if r["operator"] == "durable" and (r["jobs"] != 1 or r["state"] != "success")]


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)

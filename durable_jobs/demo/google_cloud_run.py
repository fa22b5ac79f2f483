"""The Cloud Run part of the Google section of ``durable-jobs demo``: the example DAG against the Cloud Run gRPC
emulator on 127.0.0.1.

The example DAG (``example_dags/google_cloud_run.py``) and the official ``CloudRunExecuteJobOperator`` with the same
job and ``overrides`` play the same faults through Airflow's own machinery (``durable_jobs.demo.runner``); the
emulator's ledger counts the executions "Cloud Run" started. ``RunJob`` has no request id: after a lost reply the
official operator's retry starts a second execution; ours finds the first by the key in its overrides.
"""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
EXAMPLE, TASK = "google_cloud_run", "nightly_export"
OFFICIAL = Path(__file__).resolve().parent / "dags" / "cloud_run_official_dags.py"
FAST: dict[str, Any] = {"polling_period_seconds": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the execution runs to success on the deferrable path", "1 execution"),
    "lost_reply": ("Cloud Run starts the execution but the RunJob reply is lost (UNAVAILABLE)", "1 execution"),
    "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while it runs; Airflow retries",
                     "1 execution"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{EXAMPLE}.py"]


def _arm(emu, scenario: str) -> None:
    if scenario == "lost_reply":
        emu.inject("RunJob", "UNAVAILABLE", after=True)
    elif scenario == "poll_failure":  # the official operator polls the operation, ours the execution
        emu.inject("GetOperation", "PERMISSION_DENIED")
        emu.inject("GetExecution", "PERMISSION_DENIED")


def _dags(runner) -> dict[str, Any]:
    from airflow.sdk import DAG

    module = runner.load_module(EXAMPLE, EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = runner.load_module(OFFICIAL.stem, OFFICIAL.parent).official_dag
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[TASK], name, value)
    return {"durable": durable, "official": official}


def run_cloud_run_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours, each on a fresh emulator; one row per run."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    import os

    from durable_jobs.demo import runner
    from durable_jobs.emulators.cloud_run import CloudRunEmulator

    rows: list[dict] = []
    saved = os.environ.get("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT")
    try:
        dags = None
        for scenario, (story, wanted) in SCENARIOS.items():
            for operator in ("official", "durable"):
                print_fn(f"[cloud run] {story} — {operator} operator ...")
                with CloudRunEmulator(run_seconds=1.0) as emu, emu.routed():
                    os.environ.update(emu.airflow_conn_env())
                    emu.add_job("nightly-export")
                    dags = dags or _dags(runner)
                    _arm(emu, scenario)
                    dr = runner.run(dags[operator])
                    result = runner.task_result(dr, TASK)
                    row = {"scenario": scenario, "operator": operator, "jobs": emu.created(), "wanted": wanted,
                           "state": result.state, "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      executions: {row['jobs']}  task: {row['outcome']}")
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
        lines.append(f"{scenario:<13} {wanted:<15} {str(off['jobs']) + ' exec., ' + off['outcome']:<26} "
                     f"{str(dur['jobs']) + ' exec., ' + dur['outcome']:<26}")
    return "\n".join(lines)


def section() -> list[dict]:
    """Cloud Run's table in the Google section: prints it, returns the rows where ours missed."""
    print()
    print("Google Cloud Run jobs on the bundled gRPC emulator (127.0.0.1), the official CloudRunExecuteJobOperator "
          "vs ours:")
    rows = run_cloud_run_demo()
    print()
    print(render(rows))
    print("Executions are counted by the emulator's ledger of RunJob calls.")
    return [r for r in rows if r["operator"] == "durable" and (r["jobs"] != 1 or r["state"] != "success")]


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)

"""The Dataproc part of the Google section of ``durable-jobs demo``: the example DAG against the Dataproc gRPC
emulator on 127.0.0.1.

The example DAG (``example_dags/google_dataproc.py``) and the official ``DataprocSubmitJobOperator`` with the
same job play the same faults, through Airflow's own machinery (``durable_jobs.demo.runner``); the emulator's
ledger counts the jobs "Dataproc" created. The official twin drops the example's fixed job id: with it, the
official operator fails its own retry with ALREADY_EXISTS instead of showing the duplicate. Returns one row per
run.
"""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
EXAMPLE = ("google_dataproc", "aggregate_sales")
OFFICIAL = Path(__file__).resolve().parent / "dags" / "dataproc_official_dags.py"
FAST: dict[str, Any] = {"polling_interval_seconds": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the job runs to success on the deferrable path", "1 job"),
    "lost_reply": ("Dataproc creates the job but the reply is lost (UNAVAILABLE)", "1 job"),
    "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while the job runs; Airflow retries",
                     "1 job"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{EXAMPLE[0]}.py"]


def _arm(emu, scenario: str) -> None:
    if scenario == "lost_reply":  # the client library resends SubmitJob itself on UNAVAILABLE
        emu.inject("SubmitJob", "UNAVAILABLE", after=True)
    elif scenario == "poll_failure":
        emu.inject("GetJob", "PERMISSION_DENIED")


def _dags(runner) -> dict[str, Any]:
    """The example DAG and its official twin (``demo/dags/dataproc_official_dags.py``), with fast timings."""
    from airflow.sdk import DAG

    module = runner.load_module(EXAMPLE[0], EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = runner.load_module(OFFICIAL.stem, OFFICIAL.parent).official_dag
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[EXAMPLE[1]], name, value)
    return {"durable": durable, "official": official}


def run_dataproc_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours, each on a fresh emulator; one row per run."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    import os

    from durable_jobs.demo import runner
    from durable_jobs.emulators.dataproc import DataprocEmulator

    rows: list[dict] = []
    saved = os.environ.get("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT")
    try:
        dags = None
        for scenario, (story, wanted) in SCENARIOS.items():
            for operator in ("official", "durable"):
                print_fn(f"[dataproc] {story} — {operator} operator ...")
                with DataprocEmulator(run_seconds=1.0) as emu, emu.routed():
                    os.environ.update(emu.airflow_conn_env())
                    dags = dags or _dags(runner)
                    _arm(emu, scenario)
                    dr = runner.run(dags[operator])
                    result = runner.task_result(dr, EXAMPLE[1])
                    row = {"scenario": scenario, "operator": operator, "jobs": emu.created("job"),
                           "wanted": wanted, "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      jobs: {row['jobs']}  task: {row['outcome']}")
    finally:
        if saved is None:
            os.environ.pop("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT", None)
        else:
            os.environ["AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT"] = saved
    return rows


def render(rows: list[dict]) -> str:
    header = f"{'scenario':<13} {'expected':<10} {'official operator':<28} {'durable-jobs':<28}"
    lines = [header, "-" * len(header)]
    for scenario, (_, wanted) in SCENARIOS.items():
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        lines.append(f"{scenario:<13} {wanted:<10} {str(off['jobs']) + ' job(s), ' + off['outcome']:<28} "
                     f"{str(dur['jobs']) + ' job(s), ' + dur['outcome']:<28}")
    return "\n".join(lines)


def section() -> list[dict]:
    """Dataproc's table in the Google section: prints it, returns the rows where ours missed."""
    print()
    print("Google Cloud Dataproc on the bundled gRPC emulator (127.0.0.1), the official DataprocSubmitJobOperator "
          "vs ours:")
    rows = run_dataproc_demo()
    print()
    print(render(rows))
    print("Jobs are counted by the emulator's ledger (what Dataproc created; a resent request_id is not one).")
    return [r for r in rows if r["operator"] == "durable" and r["jobs"] != 1]


if __name__ == "__main__":
    print(render(run_dataproc_demo()))

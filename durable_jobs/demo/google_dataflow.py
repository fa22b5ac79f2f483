"""The Dataflow part of the Google section of ``durable-jobs demo``: the example DAG against the Dataflow REST
emulator on 127.0.0.1.

The example DAG (``example_dags/google_dataflow.py``) and the official ``DataflowTemplatedJobStartOperator`` with
the same template, job name and parameters play the same faults through Airflow's own machinery
(``durable_jobs.demo.runner``); the emulator's ledger counts the jobs "Dataflow" launched. Upstream names each try's
job ``<job_name>-<new uuid>``: after a lost launch reply or a refused status call its retry launches a second job;
ours re-attaches to the first under its key-derived name. Played on the synchronous path: the refused status call
is armed on the REST ``jobs.get`` the worker polls (the official deferrable trigger polls the emulator's gRPC
``GetJob``, where no fault is armed).
"""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
EXAMPLE, TASK = "google_dataflow", "word_count"
OFFICIAL = Path(__file__).resolve().parent / "dags" / "dataflow_official_dags.py"
FAST: dict[str, Any] = {"poll_sleep": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the job runs to success", "1 job"),
    "lost_reply": ("Dataflow launches the job but the templates.launch reply is lost (503)", "1 job"),
    "poll_failure": ("the status call is refused once (403) while it runs; Airflow retries", "1 job"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{EXAMPLE}.py"]


def _arm(emu, scenario: str) -> None:
    if scenario == "lost_reply":  # the job is created, then the reply is replaced by a 503
        emu.add_fault("templates/launch", 503, mode="lose_reply", count=1)
    elif scenario == "poll_failure":
        emu.add_fault("jobs/get", 403, count=1)


def _dags(runner) -> dict[str, Any]:
    from airflow.sdk import DAG

    module = runner.load_module(EXAMPLE, EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = runner.load_module(OFFICIAL.stem, OFFICIAL.parent).official_dag
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[TASK], name, value)
    return {"durable": durable, "official": official}


def run_dataflow_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours, each on a fresh emulator; one row per run."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    import os

    from durable_jobs.demo import runner
    from durable_jobs.emulators.dataflow import DataflowEmulator

    rows: list[dict] = []
    saved = {k: os.environ.get(k) for k in ("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT",
                                            "AIRFLOW__DURABLE_JOBS__DATAFLOW_LIST_CONSISTENCY_SECONDS")}
    # the emulator lists a job at once: a short listing window keeps the lost-reply row quick
    os.environ["AIRFLOW__DURABLE_JOBS__DATAFLOW_LIST_CONSISTENCY_SECONDS"] = "1"
    try:
        dags = None
        for scenario, (story, wanted) in SCENARIOS.items():
            for operator in ("official", "durable"):
                print_fn(f"[dataflow] {story} — {operator} operator ...")
                with DataflowEmulator() as emu, emu.routed():
                    emu.configure(pending_seconds=0.1, run_seconds=1.0)
                    os.environ.update(emu.airflow_conn_env())
                    dags = dags or _dags(runner)
                    _arm(emu, scenario)
                    dr = runner.run(dags[operator])
                    result = runner.task_result(dr, TASK)
                    row = {"scenario": scenario, "operator": operator, "jobs": emu.created(), "wanted": wanted,
                           "state": result.state, "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      jobs: {row['jobs']}  task: {row['outcome']}")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return rows


def render(rows: list[dict]) -> str:
    header = f"{'scenario':<13} {'expected':<9} {'official operator':<26} {'durable-jobs':<26}"
    lines = [header, "-" * len(header)]
    for scenario, (_, wanted) in SCENARIOS.items():
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        lines.append(f"{scenario:<13} {wanted:<9} {str(off['jobs']) + ' job(s), ' + off['outcome']:<26} "
                     f"{str(dur['jobs']) + ' job(s), ' + dur['outcome']:<26}")
    return "\n".join(lines)


def section() -> list[dict]:
    """Dataflow's table in the Google section: prints it, returns the rows where ours missed."""
    print()
    try:
        import airflow.providers.apache.beam.hooks.beam  # noqa: F401 - what the official Dataflow hook imports
    except ImportError:
        print("Dataflow demo skipped: the official Dataflow hook needs the Apache Beam provider "
              "(pip install 'airflow-durable-jobs[google-dataflow]').")
        return []
    print("Google Cloud Dataflow templates on the bundled REST emulator (127.0.0.1), the official "
          "DataflowTemplatedJobStartOperator vs ours:")
    rows = run_dataflow_demo()
    print()
    print(render(rows))
    print("Jobs are counted by the emulator's ledger of templates.launch calls that created one.")
    return [r for r in rows if r["operator"] == "durable" and (r["jobs"] != 1 or r["state"] != "success")]


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)

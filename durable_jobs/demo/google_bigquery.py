"""The BigQuery part of the Google section of ``durable-jobs demo``: the example DAG against the BigQuery jobs
emulator on 127.0.0.1.

The example DAG (``example_dags/google_bigquery.py``) and the official ``BigQueryInsertJobOperator`` with the
same job play the same faults, through Airflow's own machinery (``durable_jobs.demo.runner``); the emulator's
ledger counts the jobs "BigQuery" created. Airflow must be configured first (the demo's private AIRFLOW_HOME,
whose DAGs folder links the example). Returns one row per run.
"""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
EXAMPLE = ("google_bigquery", "merge_sales_daily")
OFFICIAL = Path(__file__).resolve().parent / "dags" / "bigquery_official_dags.py"
FAST: dict[str, Any] = {"poll_interval": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the job runs to success on the deferrable path", "1 job"),
    "lost_reply": ("BigQuery creates the job but the connection drops before the reply", "1 job"),
    "poll_failure": ("the status calls are refused once (HTTP 403) while the job runs; Airflow retries", "1 job"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{EXAMPLE[0]}.py"]


def _arm(emu, scenario: str) -> None:
    emu.reset()
    if scenario == "lost_reply":  # google-cloud-bigquery resends the insert itself: BigQuery answers 409
        emu.add_fault("jobs/insert", 503, mode="reset", count=1)
    elif scenario == "poll_failure":
        emu.configure(run_seconds=3.0)
        emu.add_fault("jobs/get", 403, count=1, skip=1)


def _dags(runner) -> dict[str, Any]:
    """The example DAG and its official twin (``demo/dags/bigquery_official_dags.py``), with fast timings."""
    from airflow.sdk import DAG

    module = runner.load_module(EXAMPLE[0], EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = runner.load_module(OFFICIAL.stem, OFFICIAL.parent).official_dag
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[EXAMPLE[1]], name, value)
    return {"durable": durable, "official": official}


def run_bigquery_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours; one row per (scenario, operator)."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    import os

    from durable_jobs.demo import runner
    from durable_jobs.emulators.bigquery import BigQueryEmulator

    rows: list[dict] = []
    saved = {k: os.environ.get(k) for k in ("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT", "BIGQUERY_EMULATOR_HOST")}
    try:
        with BigQueryEmulator() as emu, emu.routed():
            os.environ.update(emu.airflow_conn_env())
            dags = _dags(runner)
            for scenario, (story, wanted) in SCENARIOS.items():
                for operator in ("official", "durable"):
                    print_fn(f"[bigquery] {story} — {operator} operator ...")
                    _arm(emu, scenario)
                    dr = runner.run(dags[operator])
                    result = runner.task_result(dr, EXAMPLE[1])
                    row = {"scenario": scenario, "operator": operator, "jobs": emu.ledger()["created"],
                           "wanted": wanted, "outcome": f"{result.state} (try {result.try_number})"}
                    rows.append(row)
                    print_fn(f"      jobs: {row['jobs']}  task: {row['outcome']}")
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
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
    """BigQuery's table in the Google section: prints it, returns the rows where ours missed."""
    print()
    print("Google BigQuery on the bundled jobs emulator (127.0.0.1), the official BigQueryInsertJobOperator vs ours:")
    rows = run_bigquery_demo()
    print()
    print(render(rows))
    print("Jobs are counted by the emulator's ledger (what BigQuery created; a 409 on a resent insert is not one).")
    return [r for r in rows if r["operator"] == "durable" and r["jobs"] != 1]


if __name__ == "__main__":
    print(render(run_bigquery_demo()))

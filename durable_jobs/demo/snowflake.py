"""The Snowflake section of ``durable-jobs demo``: the example DAG against the SQL API emulator on 127.0.0.1.

The example DAG (``example_dags/snowflake_sql_api.py``) and the official ``SnowflakeSqlApiOperator`` with
the same SQL play the same faults, through Airflow's own machinery (``durable_jobs.demo.runner``); the
emulator's ledger counts what "Snowflake" executed. Airflow must be configured first (the demo's private
AIRFLOW_HOME, whose DAGs folder links the example). Returns one row per run.
"""

from __future__ import annotations

import importlib.resources
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
EXAMPLE = ("snowflake_sql_api", "load_sales_daily")
OFFICIAL = Path(__file__).resolve().parent / "dags" / "snowflake_official_dags.py"
FAST: dict[str, Any] = {"poll_interval": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the batch runs to success on the deferrable path", "1 execution"),
    "lost_reply": ("Snowflake executes the batch but the reply to the POST is lost (HTTP 500)", "1 execution"),
    "poll_failure": ("the status calls are refused once (HTTP 401) while the batch runs; Airflow retries",
                     "1 execution"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{EXAMPLE[0]}.py"]


def _arm(emu, scenario: str) -> None:
    emu.reset()
    if scenario == "lost_reply":
        emu.add_fault("statements", 500, mode="lose_reply", count=1)
    elif scenario == "poll_failure":
        emu.configure(run_seconds=3.0)
        emu.add_fault("statements/status", 401, count=1)


def _dags(runner) -> dict[str, Any]:
    """The example DAG and its official twin (``demo/dags/snowflake_official_dags.py``), with fast timings."""
    from airflow.sdk import DAG

    module = runner.load_module(EXAMPLE[0], EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = runner.load_module(OFFICIAL.stem, OFFICIAL.parent).official_dag
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[EXAMPLE[1]], name, value)
    return {"durable": durable, "official": official}


def run_snowflake_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours; one row per (scenario, operator)."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    import os

    from durable_jobs.demo import runner
    from durable_jobs.emulators.snowflake import SnowflakeEmulator

    rows: list[dict] = []
    with SnowflakeEmulator() as emu, emu.routed():
        os.environ.update(emu.airflow_conn_env())
        dags = _dags(runner)
        for scenario, (story, wanted) in SCENARIOS.items():
            for operator in ("official", "durable"):
                print_fn(f"[snowflake] {story} — {operator} operator ...")
                _arm(emu, scenario)
                dr = runner.run(dags[operator])
                result = runner.task_result(dr, EXAMPLE[1])
                row = {"scenario": scenario, "operator": operator, "executions": emu.ledger()["executions"],
                       "wanted": wanted, "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      executions: {row['executions']}  task: {row['outcome']}")
    return rows


def render(rows: list[dict]) -> str:
    header = f"{'scenario':<13} {'expected':<12} {'official operator':<32} {'durable-jobs':<32}"
    lines = [header, "-" * len(header)]
    for scenario, (_, wanted) in SCENARIOS.items():
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        lines.append(f"{scenario:<13} {wanted:<12} {str(off['executions']) + ' execution(s), ' + off['outcome']:<32} "
                     f"{str(dur['executions']) + ' execution(s), ' + dur['outcome']:<32}")
    return "\n".join(lines)


def section() -> list[dict]:
    """The Snowflake section of ``durable-jobs demo``: prints its table, returns the rows where ours missed."""
    print()
    print("Snowflake SQL API on the bundled emulator (127.0.0.1), the official SnowflakeSqlApiOperator vs ours:")
    rows = run_snowflake_demo()
    print()
    print(render(rows))
    print("Executions are counted by the emulator's ledger (what Snowflake ran; a retry=true resend is not one).")
    return [r for r in rows if r["operator"] == "durable" and r["executions"] != 1]


if __name__ == "__main__":
    print(render(run_snowflake_demo()))

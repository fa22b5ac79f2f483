"""Run the demo: three failure scenarios, the official operator and ours, counted by the vendor.

Everything runs here, with no cloud credentials: a private AIRFLOW_HOME with a SQLite metadata
DB, the Databricks emulator on 127.0.0.1, and Airflow itself driving each DAG run (scheduling,
retries, deferral and clears through Airflow's own code). The numbers come from the emulator's
ledger, i.e. what "Databricks" received.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

DAGS_FOLDER = Path(__file__).resolve().parent / "dags"

SCENARIOS = [
    (
        "deferrable",
        "Deferrable task: Databricks answers HTTP 500 right after the submit, before the trigger takes over",
        "1 run",
    ),
    (
        "lost_reply",
        "The run is created but the replies to the submit are lost (HTTP 500)",
        "1 run",
    ),
    (
        "clear",
        "A user clears a task that already succeeded, to run the job again",
        "2 runs",
    ),
    (
        "notebook",
        "DatabricksNotebookOperator: the run is created but the replies to the submit are lost (HTTP 500)",
        "1 run",
    ),
    (
        "task",
        "DatabricksTaskOperator: the run is created but the replies to the submit are lost (HTTP 500)",
        "1 run",
    ),
    (
        "sql",
        "DatabricksSQLStatementsOperator: the statement runs, its status reads answer HTTP 500 for a while "
        "(a statement counts as a run)",
        "1 run",
    ),
]


def prepare_airflow_home(home: Path | None = None) -> Path:
    """A throwaway AIRFLOW_HOME (SQLite), set before Airflow loads.

    Its DAGs folder links the demo's DAGs and the example DAGs the AWS section and the emulated sections
    (Snowflake, Google) run.
    """
    if "airflow.configuration" in sys.modules:
        raise RuntimeError("the demo must configure Airflow before it is imported")
    from durable_jobs.demo import emulated
    from durable_jobs.demo.aws import example_files

    home = home or Path(tempfile.mkdtemp(prefix="durable-jobs-demo-"))
    dags = home / "dags"
    dags.mkdir(exist_ok=True)
    for source in dict.fromkeys([*sorted(DAGS_FOLDER.glob("[!_]*.py")), *example_files(), *emulated.example_files()]):
        (dags / source.name).symlink_to(source)
    os.environ.update(
        AIRFLOW_HOME=str(home),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__CORE__DAGS_FOLDER=str(dags),
        AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=f"sqlite:///{home / 'airflow.db'}",
        AIRFLOW__LOGGING__LOGGING_LEVEL=os.environ.get("DURABLE_JOBS_DEMO_LOG_LEVEL", "CRITICAL"),
    )
    subprocess.run(
        [sys.executable, "-m", "airflow", "db", "migrate"], check=True, env=os.environ.copy(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return home


def _arm(emu, scenario: str, flavour: str) -> None:
    """The same fault for both operators: nothing in it knows which operator is running."""
    emu.reset()
    if scenario == "deferrable":
        emu.configure(running_seconds=2.0)
        # The third runs/get of the try fails twice (both hook attempts): after the submit, before defer.
        emu.add_fault("jobs/runs/get", status=500, count=2, skip=2)
    elif scenario == "lost_reply":
        emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")
    elif scenario in ("notebook", "task"):  # the same fault, the runs/submit task operators (upstream sends no
        # idempotency_token)
        emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")
    elif scenario == "sql":  # the second status read fails on both hook attempts, the statement running on
        emu.add_fault("sql/statements/get", status=500, count=2, skip=1)


def _play(scenario: str, dag, runner) -> tuple[str, int]:
    if scenario == "clear":
        dr = runner.run(dag)
        runner.clear(dr, ["nightly_etl"])
        dr = runner.drive(dag, dr)
    else:
        dr = runner.run(dag)
    result = runner.task_result(dr, "nightly_etl")
    return f"{result.state} (try {result.try_number})", result.try_number


def run_demo(print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play every scenario with both operators; return one row per (scenario, operator)."""
    prepare_airflow_home()
    from durable_jobs.demo import runner
    from durable_jobs.testing.emulators.databricks import DatabricksEmulator

    module = runner.load_module("demo_dags", DAGS_FOLDER)
    rows: list[dict] = []
    with DatabricksEmulator() as emu:
        os.environ.update(emu.airflow_conn_env())
        for number, (scenario, story, wanted) in enumerate(SCENARIOS, 1):
            print_fn(f"[{number}/{len(SCENARIOS)}] {story} ...")
            for flavour in ("official", "durable"):
                _arm(emu, scenario, flavour)
                started = time.monotonic()
                outcome, _ = _play(scenario, module.DAGS[f"demo_{scenario}_{flavour}"], runner)
                ledger = emu.ledger()
                received = ledger["runs_created"] + ledger["statements_created"]  # a SQL statement is a run here
                rows.append(
                    {
                        "scenario": scenario, "operator": flavour, "runs": received,
                        "wanted": wanted, "outcome": outcome, "seconds": round(time.monotonic() - started, 1),
                    }
                )
                print_fn(f"      {flavour:<8} runs received: {received}  task: {outcome}")
    return rows


def render(rows: list[dict]) -> str:
    header = f"{'scenario':<11} {'expected':<9} {'official operator':<30} {'durable-jobs':<30}"
    lines = [header, "-" * len(header)]
    for scenario, _, wanted in SCENARIOS:
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        lines.append(
            f"{scenario:<11} {wanted:<9} {str(off['runs']) + ' run(s), ' + off['outcome']:<30} "
            f"{str(dur['runs']) + ' run(s), ' + dur['outcome']:<30}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import importlib

    from durable_jobs import vendors
    from durable_jobs.cli import command_parser

    sections = {f.key: f.demo for f in vendors.families(supported=True) if f.demo}
    parser = command_parser("durable-jobs demo", __doc__)
    parser.add_argument("--only", choices=sorted(sections), help="run one vendor family's section only")
    args = parser.parse_args(argv)
    wrong: list[dict] = []
    for key, target in sections.items():
        if args.only in (None, key):
            module, _, function = target.partition(":")
            wrong += getattr(importlib.import_module(module), function)()
    return 1 if wrong else 0


def databricks_section() -> list[dict]:
    """The Databricks section: prints its table, returns the rows where ours missed the expectation."""
    print("durable-jobs demo: the official DatabricksSubmitRunOperator vs ours, on the bundled emulator")
    rows = run_demo()
    print()
    print(render(rows))
    print()
    print("Runs are counted by the emulator (what Databricks received). 'expected' is what the DAG's")
    print("author wanted: one run per retry-survived submission, a fresh run after a deliberate clear.")
    return [r for r in rows if r["operator"] == "durable" and f"{r['runs']} run" not in r["wanted"]]


if __name__ == "__main__":
    raise SystemExit(main())

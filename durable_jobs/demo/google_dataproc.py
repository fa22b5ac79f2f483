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
#: kind -> (example module, task id, the official twin's attribute, the submit call a fault hits)
KINDS = {"job": (*EXAMPLE, "official_dag", "SubmitJob", "GetJob"),
         "batch": ("google_dataproc_batch", "sales_report", "official_batch_dag", "CreateBatch", "GetBatch")}
OFFICIAL = Path(__file__).resolve().parent / "dags" / "dataproc_official_dags.py"
FAST: dict[str, Any] = {"polling_interval_seconds": 0.2, "retry_delay": timedelta(0)}
SCENARIOS = {
    "happy": ("the job runs to success on the deferrable path", "1 job"),
    "lost_reply": ("Dataproc creates the job but the reply is lost (UNAVAILABLE)", "1 job"),
    "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while the job runs; Airflow retries",
                     "1 job"),
}


def example_files() -> list[Path]:
    return [EXAMPLES / f"{module}.py" for module, *_ in KINDS.values()]


def _arm(emu, scenario: str, kind: str) -> None:
    submit, get = KINDS[kind][3:]
    if scenario == "lost_reply":  # the job client resends SubmitJob itself on UNAVAILABLE; the batch is found
        emu.inject(submit, "UNAVAILABLE", after=True)
    elif scenario == "poll_failure":
        emu.inject(get, "PERMISSION_DENIED")


def _dags(runner, kind: str) -> dict[str, Any]:
    """The example DAG and its official twin (``demo/dags/dataproc_official_dags.py``), with fast timings."""
    from airflow.sdk import DAG

    module_name, task_id, twin = KINDS[kind][:3]
    module = runner.load_module(module_name, EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    official = getattr(runner.load_module(OFFICIAL.stem, OFFICIAL.parent), twin)
    for dag in (durable, official):
        for name, value in FAST.items():
            setattr(dag.task_dict[task_id], name, value)
    return {"durable": durable, "official": official}


def run_dataproc_demo(print_fn: Callable[[str], None] = print, kind: str = "job") -> list[dict]:
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
                print_fn(f"[dataproc {kind}] {story.replace('job', kind)} — {operator} operator ...")
                with DataprocEmulator(run_seconds=1.0) as emu, emu.routed():
                    os.environ.update(emu.airflow_conn_env())
                    dags = dags or _dags(runner, kind)
                    _arm(emu, scenario, kind)
                    dr = runner.run(dags[operator])
                    result = runner.task_result(dr, KINDS[kind][1])
                    row = {"scenario": scenario, "operator": operator, "jobs": emu.created(kind),
                           "wanted": wanted, "outcome": f"{result.state} (try {result.try_number})"}
                rows.append(row)
                print_fn(f"      jobs: {row['jobs']}  task: {row['outcome']}")
    finally:
        if saved is None:
            os.environ.pop("AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT", None)
        else:
            os.environ["AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT"] = saved
    return rows


def render(rows: list[dict], kind: str = "job") -> str:
    header = f"{'scenario':<13} {'expected':<10} {'official operator':<28} {'durable-jobs':<28}"
    lines = [header, "-" * len(header)]
    for scenario, (_, wanted) in SCENARIOS.items():
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        unit = f" {kind}(s), " if kind == "job" else f" {kind}(es), "
        lines.append(f"{scenario:<13} {wanted.replace('job', kind):<10} {str(off['jobs']) + unit + off['outcome']:<28} "
                     f"{str(dur['jobs']) + unit + dur['outcome']:<28}")
    return "\n".join(lines)


def section() -> list[dict]:
    """Dataproc's table in the Google section: prints it, returns the rows where ours missed."""
    wrong: list[dict] = []
    for kind, name in (("job", "DataprocSubmitJobOperator"), ("batch", "DataprocCreateBatchOperator")):
        print()
        print(f"Google Cloud Dataproc on the bundled gRPC emulator (127.0.0.1), the official {name} vs ours:")
        rows = run_dataproc_demo(kind=kind)
        print()
        print(render(rows, kind))
        wrong += [r for r in rows if r["operator"] == "durable" and r["jobs"] != 1]
    print("Jobs and batches are counted by the emulator's ledger (what Dataproc created; a resent request_id is not "
          "one).")
    return wrong


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)

"""Run the scale cells (scale_scenarios.py) on one ScaleStack, one cell at a time.

Every cell kills or shuts down a whole Celery worker (or Postgres, Redis, a triggerer) that all cells share,
so none runs beside another. ``python tests/crash_scale/scale_lab.py SCALE-W2-ours-sync --keep`` runs a few
by hand (``--keep`` keeps AIRFLOW_HOME with every component's log).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CRASH = HERE.parent / "crash"
for _path in (str(CRASH), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from crash_aws import SERVICES as AWS_SERVICES  # noqa: E402
from crash_aws import AwsFleet  # noqa: E402
from crash_lab import matrix_data  # noqa: E402
from crash_scenarios import Cell, Outcome  # noqa: E402
from crash_stack import Emulator, EmulatorFleet, wait_for  # noqa: E402
from scale_scenarios import SCALE, run_scale_cell, scale_cells  # noqa: E402
from scale_stack import ScaleStack  # noqa: E402

DAGS = CRASH / "dags"
VENDOR_ROUTE = CRASH / "vendor_route"


def run_scale_session(cells: list[Cell], *, keep: bool = False, log=print) -> dict[str, Any]:
    """Start the emulators and the scale stack, run ``cells`` one by one, stop everything by PID."""
    home = Path(tempfile.mkdtemp(prefix="durable-jobs-scale-"))
    started = time.monotonic()
    fleet = stack = aws_fleet = bq_fleet = None
    outcomes: dict[str, Outcome] = {}
    ready = started
    try:
        (home / "cells.json").write_text(json.dumps([c.dag_spec() for c in cells], indent=1))
        dbx = [c for c in cells if c.scenario.vendor == "databricks"]
        aws = [c for c in cells if c.scenario.vendor in AWS_SERVICES]
        bigquery = [c for c in cells if c.scenario.vendor == "bigquery"]
        fleet = EmulatorFleet([c.key for c in dbx], home / "emulators")
        env = fleet.conn_env({c.conn_id: c.key for c in dbx})
        if aws:
            aws_fleet = AwsFleet({c.key: (c.scenario.vendor, c.dag_id) for c in aws})
            env.update(aws_fleet.conn_env({c.conn_id: c.key for c in aws}))
        if bigquery:
            from crash_bigquery import BigQueryFleet

            bq_fleet = BigQueryFleet([c.key for c in bigquery])
            env.update(bq_fleet.conn_env({c.conn_id: c.key for c in bigquery}))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(VENDOR_ROUTE), os.environ.get("PYTHONPATH", "")) if p)
        env["DJ_CRASH_CELLS"] = str(home / "cells.json")
        fan_out = max([int(c.scenario.task.get("fan_out", 0)) for c in cells] + [0])
        # capacity below the fan-out cell's job count: its triggers must be spread over both triggerers
        stack = ScaleStack(home, DAGS, env, triggerer_capacity=max(10, (fan_out * 3) // 4) if fan_out else 1000)
        log(f"crash-scale: starting Postgres, Redis and Airflow (CeleryExecutor) (AIRFLOW_HOME {home})")
        stack.start()
        wanted = {c.dag_id for c in cells}
        wait_for("the crash DAGs to be parsed", lambda: wanted <= stack.dag_ids(), 240, 0.5)
        ready = time.monotonic()
        log(f"crash-scale: stack up in {ready - started:.0f}s; running {len(cells)} cells one by one")
        emulators: dict[str, Any] = {c.id: Emulator(fleet.urls[c.key]) for c in dbx}
        emulators.update({c.id: aws_fleet.vendors[c.key] for c in aws})  # type: ignore[union-attr]
        emulators.update({c.id: bq_fleet.tenants[c.key] for c in bigquery})  # type: ignore[union-attr]
        for cell in cells:
            outcome = run_scale_cell(stack, emulators[cell.id], cell)
            outcomes[cell.id] = outcome
            mark = "error" if outcome.error else "deviation" if outcome.deviations else "ok"
            log(f"crash-scale: {cell.id}: {mark} ({outcome.runs_created} created, {outcome.cancels} cancels, "
                f"{outcome.final_state} try {outcome.try_number}, {outcome.seconds}s)")
    finally:
        cells_done = time.monotonic()
        for part in (stack, fleet, aws_fleet, bq_fleet):
            if part is not None:
                part.stop()
        failed = any(o.error for o in outcomes.values()) or len(outcomes) < len(cells)
        if keep or failed or os.environ.get("DJ_CRASH_KEEP") == "1":
            log(f"crash-scale: stack home kept for inspection: {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    data = matrix_data(cells, outcomes, total=time.monotonic() - started, stack_start=ready - started,
                       cells_time=cells_done - ready)
    data["scenarios"] = {s.name: {"title": s.title, "vendor": s.vendor, "expect": data["scenarios"].get(s.name, {})
                                  .get("expect") or _expect(s)} for s in SCALE.values()}
    data["stack"] = ("Postgres (metadata DB, task_state_store) + Redis (Celery broker) + CeleryExecutor: two Celery "
                     "workers, scheduler, api-server, dag-processor, two triggerers, all on 127.0.0.1")
    data["concurrency"] = 1
    return data


def _expect(s) -> dict[str, Any]:
    return {"runs": s.expect_runs, "cancels": s.expect_cancels, "state": s.expect_state,
            "min_try": s.expect_min_try, "max_try": s.expect_max_try}


def main(argv: list[str]) -> int:
    keep = "--keep" in argv
    names = [a for a in argv if not a.startswith("--")]
    cells = [c for c in scale_cells() if not names or c.id in names]
    data = run_scale_session(cells, keep=keep, log=lambda m: print(m, file=sys.stderr))
    print(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

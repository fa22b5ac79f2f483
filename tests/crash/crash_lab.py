"""Run crash cells on one shared stack in phases: the concurrent cells, the quiet ones, the exclusive ones
one by one, then the hub cells one by one (every triggerer restarted with the shared poller on).

Cells that mostly wait on the vendor's clock (``Scenario.waits``, a poll a second) run on a pool of their
own beside the busy cells', so their waiting overlaps the others' work instead of holding the busy pool's
slots. Cells whose proof reads a wall-clock bound (``Scenario.quiet``: execution_timeout, the outage
windows) run after the busy cells, together: beside 6 busy cells on 2 CPUs, a task could take longer to
reach its window than the bound lasts (three fresh-clone runs of 2026-12-01 missed them that way).

Used by ``conftest.py``; also runnable by hand, e.g.
``python tests/crash/crash_lab.py W2-ours-deferrable W3-official-sync --keep`` (``--keep`` keeps the
temporary AIRFLOW_HOME with every component's and task's log; so does ``DJ_CRASH_KEEP=1``, and a
cell the harness could not drive).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from crash_aws import SERVICES as AWS_SERVICES  # noqa: E402
from crash_aws import AwsFleet  # noqa: E402
from crash_scenarios import ABORT, SCENARIOS, Cell, Outcome, all_cells, run_cell  # noqa: E402
from crash_snowflake import SnowflakeFleet  # noqa: E402
from crash_stack import AirflowStack, Emulator, EmulatorFleet, wait_for  # noqa: E402
from known_bugs import STACK_HAZARDS  # noqa: E402

DAGS = HERE / "dags"
ROUTE_DIR = HERE / "vendor_route"
#: cells run at once; each holds one supervisor + task runner (or a trigger) at a time. 6, not 8: with the
#: 235 ours-cells of 2026-12-01 beside the integration lane, 8 starved the stack on 2 CPUs (the TIMEOUT and
#: BATCH-OUTAGE cells' timing missed twice in a row: a sync execution_timeout that never fired, a terminal
#: state the supervisor never got); the crash lane has minutes to spare against the integration lane.
CONCURRENCY = int(os.environ.get("DJ_CRASH_CONCURRENCY", "6"))
#: waiting cells (``Scenario.waits``) run at once beside them
WAITING_CONCURRENCY = int(os.environ.get("DJ_CRASH_WAITING_CONCURRENCY", "6"))
#: seconds between the starts of the first waiting cells
WAITING_STAGGER = 2.0


def preimports(cells: list[Cell]) -> list[str]:
    """The modules the cells' tasks and triggers import, for the scheduler and triggerer to import first.

    Their forked children (task processes, the trigger runner) then find them loaded instead of importing the
    vendor SDKs again each time (vendor_route/sitecustomize.py). Read from the registry: a vendor key that no
    registered operator's ``crash`` names contributes nothing.
    """
    from durable_jobs.vendors import crash_vendor

    names = {"durable_jobs.core.trigger"}
    for vendor in sorted({c.scenario.vendor for c in cells}):
        try:
            service, op = crash_vendor(vendor)
        except KeyError:
            continue
        names |= {op.module, op.official.rpartition(".")[0], service.hook_module}
    return sorted(names)


def run_session(cells: list[Cell], *, keep: bool = False, log=print) -> dict[str, Any]:
    """Start emulators and the stack, run ``cells``, stop everything by PID; return the matrix data."""
    home = Path(tempfile.mkdtemp(prefix="durable-jobs-crash-"))
    started = time.monotonic()
    fleet = stack = aws_fleet = sf_fleet = bq_fleet = dp_fleet = None
    cb_fleet: Any = None  # issue 16: the Cloud Batch gRPC emulator (tests/crash/crash_cloud_batch.py)
    cr_fleet: Any = None  # issue 16: the Cloud Run gRPC emulator (tests/crash/crash_cloud_run.py)
    df_fleet: Any = None  # issue 16: the Dataflow REST emulator (tests/crash/crash_dataflow.py)
    outcomes: dict[str, Outcome] = {}
    ready = started
    try:
        (home / "cells.json").write_text(json.dumps([c.dag_spec() for c in cells], indent=1))
        # + crash_runnow.py, crash_notebook.py, crash_databricks_sql.py: Databricks emulator cells too
        dbx = [c for c in cells if c.scenario.vendor in ("databricks", "databricks_run_now", "databricks_notebook",
                                                         "databricks_task", "databricks_sql")]
        aws = [c for c in cells if c.scenario.vendor in AWS_SERVICES]
        snowflake = [c for c in cells if c.scenario.vendor == "snowflake"]
        fleet = EmulatorFleet([c.key for c in dbx], home / "emulators")
        env = fleet.conn_env({c.conn_id: c.key for c in dbx})
        if aws:  # moto + one fault proxy per cell, threads of this process on 127.0.0.1
            aws_fleet = AwsFleet({c.key: (c.scenario.vendor, c.dag_id) for c in aws})
            env.update(aws_fleet.conn_env({c.conn_id: c.key for c in aws}))
        if snowflake:  # one SQL API emulator per cell, threads of this process; the hook routed by sitecustomize
            sf_fleet = SnowflakeFleet([c.key for c in snowflake])
            env.update(sf_fleet.conn_env({c.conn_id: c.key for c in snowflake}))
        bigquery = [c for c in cells if c.scenario.vendor == "bigquery"]
        if bigquery:  # one BigQuery emulator, a project per cell (tests/crash/crash_bigquery.py)
            from crash_bigquery import BigQueryFleet

            bq_fleet = BigQueryFleet([c.key for c in bigquery])
            env.update(bq_fleet.conn_env({c.conn_id: c.key for c in bigquery}))
        dataproc = [c for c in cells if c.scenario.vendor in ("dataproc_jobs", "dataproc_batches")]
        if dataproc:  # one Dataproc gRPC emulator, a project per cell (tests/crash/crash_dataproc.py)
            from crash_dataproc import DataprocFleet

            dp_fleet = DataprocFleet({c.key: c.scenario.vendor for c in dataproc})
            env.update(dp_fleet.conn_env({c.conn_id: c.key for c in dataproc}))
        cloud_batch = [c for c in cells if c.scenario.vendor == "cloud_batch"]
        if cloud_batch:  # one Cloud Batch gRPC emulator, a project per cell (tests/crash/crash_cloud_batch.py)
            from crash_cloud_batch import CloudBatchFleet

            cb_fleet = CloudBatchFleet([c.key for c in cloud_batch])
            env.update(cb_fleet.conn_env({c.conn_id: c.key for c in cloud_batch}))
        cloud_run = [c for c in cells if c.scenario.vendor == "cloud_run"]
        if cloud_run:  # one Cloud Run gRPC emulator, a project and a job per cell (tests/crash/crash_cloud_run.py)
            from crash_cloud_run import CloudRunFleet

            cr_fleet = CloudRunFleet([c.key for c in cloud_run],
                                     lagged=[c.key for c in cloud_run if c.scenario.name == "CLOUD-RUN-LIST-LAG"])
            env.update(cr_fleet.conn_env({c.conn_id: c.key for c in cloud_run}))
        dataflow = [c for c in cells if c.scenario.vendor in ("dataflow_templated", "dataflow_flex")]
        if dataflow:  # one Dataflow REST emulator, a project per cell (tests/crash/crash_dataflow.py)
            from crash_dataflow import DataflowFleet

            df_fleet = DataflowFleet([c.key for c in dataflow])
            env.update(df_fleet.conn_env({c.conn_id: c.key for c in dataflow}))
        # Every Airflow process imports tests/crash/vendor_route/sitecustomize.py, which routes each vendor's hook
        # whose environment variable the fleets above set (one file: only the first sitecustomize is imported).
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROUTE_DIR), os.environ.get("PYTHONPATH", "")) if p)
        env["DJ_CRASH_CELLS"] = str(home / "cells.json")
        env["DJ_CRASH_PREIMPORT"] = ",".join(preimports(cells))
        stack = AirflowStack(home, DAGS, env, parallelism=2 * CONCURRENCY + WAITING_CONCURRENCY + 4)
        log(f"crash: starting Airflow on 127.0.0.1:{stack.port} (AIRFLOW_HOME {home})")
        stack.start()
        wanted = {c.dag_id for c in cells}
        wait_for("the crash DAGs to be parsed", lambda: wanted <= stack.dag_ids(), 180, 0.5)
        ready = time.monotonic()
        log(f"crash: stack up in {ready - started:.0f}s; running {len(cells)} cells")
        emulators = {c.id: Emulator(fleet.urls[c.key]) for c in dbx}
        emulators.update({c.id: aws_fleet.vendors[c.key] for c in aws})
        emulators.update({c.id: sf_fleet.emulators[c.key] for c in snowflake})
        emulators.update({c.id: bq_fleet.tenants[c.key] for c in bigquery})  # type: ignore[union-attr]
        emulators.update({c.id: dp_fleet.tenants[c.key] for c in dataproc})  # type: ignore[union-attr,misc]
        emulators.update({c.id: cb_fleet.tenants[c.key] for c in cloud_batch})
        emulators.update({c.id: cr_fleet.tenants[c.key] for c in cloud_run})
        emulators.update({c.id: df_fleet.tenants[c.key] for c in dataflow})
        outcomes = run_cells(stack, emulators, cells)
    finally:
        cells_done = time.monotonic()
        if stack is not None:
            stack.stop()
        if fleet is not None:
            fleet.stop()
        if aws_fleet is not None:
            aws_fleet.stop()
        if sf_fleet is not None:
            sf_fleet.stop()
        if bq_fleet is not None:
            bq_fleet.stop()
        if dp_fleet is not None:
            dp_fleet.stop()
        if cb_fleet is not None:
            cb_fleet.stop()
        if cr_fleet is not None:
            cr_fleet.stop()
        if df_fleet is not None:
            df_fleet.stop()
        # Deviations carry their task-log tail in the outcome; the whole home is kept for harness errors.
        failed = any(o.error for o in outcomes.values()) or len(outcomes) < len(cells)
        if keep or failed or os.environ.get("DJ_CRASH_KEEP") == "1":
            log(f"crash: stack home kept for inspection: {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    return matrix_data(cells, outcomes, total=time.monotonic() - started, stack_start=ready - started,
                       cells_time=cells_done - ready, stack_events=stack.events if stack is not None else [])


def run_cells(stack: AirflowStack, emulators: dict[str, Emulator], cells: list[Cell],
              concurrency: int = CONCURRENCY, waiting_concurrency: int = WAITING_CONCURRENCY) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    # Batch cells first: the official BatchOperator's sync wait sleeps 1-10 s at random between polls,
    # so its cells are the longest; started first, they overlap the Databricks cells instead of trailing.
    shared = [c for c in cells if not c.scenario.exclusive and c.id not in STACK_HAZARDS]
    quiet = [c for c in shared if c.scenario.quiet]
    shared = [c for c in shared if not c.scenario.quiet]
    busy = sorted((c for c in shared if not c.scenario.waits), key=lambda c: c.scenario.vendor != "batch")
    waiting = [c for c in shared if c.scenario.waits]
    # cells that stop, pause or add the triggerer every deferred task shares, or may deadlock it (known_bugs.py)
    alone = [c for c in cells if (c.scenario.exclusive or c.id in STACK_HAZARDS) and not c.scenario.hub]
    # last, one by one: the cells whose triggers watch through the shared poller (every triggerer restarted)
    hub = [c for c in cells if c.scenario.hub]
    ABORT.clear()
    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="cell") as pool, \
                ThreadPoolExecutor(max_workers=max(1, waiting_concurrency), thread_name_prefix="waiting") as beside:
            # The first wave of waiting cells starts a little apart: task starts are the CPU-heavy part.
            futures = {c.id: beside.submit(_after, WAITING_STAGGER * i if i < waiting_concurrency else 0.0, run_cell,
                                           stack, emulators[c.id], c) for i, c in enumerate(waiting)}
            futures.update({c.id: pool.submit(run_cell, stack, emulators[c.id], c) for c in busy})
            for cell in busy + waiting:  # the suite's order
                outcomes[cell.id] = futures[cell.id].result()
            futures = {c.id: beside.submit(_after, WAITING_STAGGER * i if i < waiting_concurrency else 0.0, run_cell,
                                           stack, emulators[c.id], c) for i, c in enumerate(quiet)}
            for cell in quiet:
                outcomes[cell.id] = futures[cell.id].result()
        for cell in alone:
            outcomes[cell.id] = run_cell(stack, emulators[cell.id], cell)
        if hub:
            stack.share_poller()
        for cell in hub:
            outcomes[cell.id] = run_cell(stack, emulators[cell.id], cell)
    except BaseException:
        ABORT.set()  # every cell's next wait raises, so the pool ends and the stack can be stopped
        raise
    return outcomes


def _after(seconds: float, fn, *args):
    if ABORT.wait(seconds):
        raise RuntimeError("the crash session was aborted")
    return fn(*args)


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def matrix_data(cells: list[Cell], outcomes: dict[str, Outcome], *, total: float, stack_start: float,
                cells_time: float, stack_events: list[dict[str, str]] | None = None) -> dict[str, Any]:
    from durable_jobs import vendors

    return {
        "generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "versions": {d: _version(d) for d in ("apache-airflow", *(f.provider for f in vendors.families(supported=True)),
                                             "airflow-durable-jobs")},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "system": platform.system()},
        "wall_seconds": {"total": round(total, 1), "stack_start": round(stack_start, 1),
                         "cells": round(cells_time, 1)},
        "concurrency": CONCURRENCY,
        "waiting_concurrency": WAITING_CONCURRENCY,
        "scenarios": {s.name: {"title": s.title, "vendor": s.vendor, "expect": _expect(s)}
                      for s in SCENARIOS.values()},
        "cells": [outcomes[c.id].to_json() for c in cells if c.id in outcomes],
        "stack_events": list(stack_events or []),
    }


def _expect(scenario) -> dict[str, Any]:
    return {"runs": scenario.expect_runs, "cancels": scenario.expect_cancels, "state": scenario.expect_state,
            "min_try": scenario.expect_min_try, "max_try": scenario.expect_max_try}


def main(argv: list[str]) -> int:
    keep = "--keep" in argv
    names = [a for a in argv if not a.startswith("--")]
    cells = [c for c in all_cells() if not names or c.id in names]
    data = run_session(cells, keep=keep, log=lambda m: print(m, file=sys.stderr))
    print(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The fault suite: every case of cases.py, for every vendor target, run concurrently once per session.

Each cell gets its own emulator (or its own fault proxy in front of the shared moto), so faults
armed for one cell never reach another. ``make faults`` (``DJ_FAULT_ARTIFACTS=1``) writes
``artifacts/fault-matrix.json``, from which the docs page "When the vendor misbehaves" is rendered.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from cases import CASES, POLL, SETUP, case_for  # noqa: E402
from harness import ERROR_BUDGET, UNKNOWN_STATE_BUDGET, run_cell  # noqa: E402

from durable_jobs import vendors  # noqa: E402

PATHS = ("sync", "deferrable")
#: every service of the registry, in registry order (each needs a target: tests/faults/targets*.py)
VENDORS = tuple(service.key for _, service in vendors.services())
#: cells at once, in this one process (their clients, the shared emulators' server threads and moto share its
#: GIL). 8, not 16: beside two integration lanes and the compat job's pip installs, 16 left single calls waiting
#: past the suite's 1 s deadline for 15 s and more (10 cells failed that way in a fresh-clone run, 2026-12-02).
CONCURRENCY = 8
#: the families with wrong setup cells
SETUP_FAMILIES = ("databricks", "aws", "snowflake", "google")
#: (family or service, case) left out. The official AWS hook reads a connection id that is not defined as "use
#: boto3's own credential chain" (an instance role, the environment), so a missing ``aws_default`` is no wrong
#: setup. ECS, Redshift Data and SageMaker submit through the SDK's own retries (their key makes a resend
#: idempotent), and the Glue, EMR Serverless and EMR steps operators call the service before their submit, as
#: the official ones do (the Glue job, the application, the cluster), through the SDK's retries: botocore's legacy
#: mode tries a refused or unresolvable endpoint five times (6-15 s measured on a loaded 2-CPU machine), past the
#: 5 s these cells demand.
_SDK_RETRIES = ("ecs", "redshift_data", "sagemaker", "glue", "emr_serverless", "emr_steps")
#: The Google targets reach their emulators through process-wide routes shared by the concurrent cells, not
#: through the connection, so a cell cannot point its own connection at a wrong host (``broken_conn_env``).
SETUP_NOT_APPLICABLE = {("aws", "setup-no-connection"), ("google", "setup-unresolvable"), ("google", "setup-refused"),
                        *((s, c) for s in _SDK_RETRIES for c in ("setup-unresolvable", "setup-refused"))}


def cells() -> list[tuple[str, str, str, str]]:
    """(cell id, vendor, case key, path) for the whole suite."""
    out = []
    family_of = {service.key: family.key for family, service in vendors.services()}
    for vendor in VENDORS:
        for case in CASES:
            if case.phase == SETUP and (family_of[vendor] not in SETUP_FAMILIES
                                        or (family_of[vendor], case.key) in SETUP_NOT_APPLICABLE
                                        or (vendor, case.key) in SETUP_NOT_APPLICABLE):
                continue
            for path in PATHS if case.phase == POLL else ("sync",):
                out.append((f"{vendor}-{case.key}-{path}", vendor, case.key, path))
    return out


def _targets(ids: list[tuple[str, str, str, str]]):
    from targets import AwsTarget, DatabricksSqlTarget, DatabricksTarget, SnowflakeTarget

    from durable_jobs.testing.emulators.databricks import DatabricksEmulator

    made, stop = {}, []
    aws_env = None
    for cell, vendor, _, _ in ids:
        if vendor in ("databricks", "databricks_sql"):
            emulator = DatabricksEmulator().start()
            stop.append(emulator.stop)
            kind = DatabricksTarget if vendor == "databricks" else DatabricksSqlTarget
            made[cell] = kind(emulator, conn_id=f"dbx_{cell.replace('-', '_')}")
            continue
        if vendor == "bigquery":
            from targets_bigquery import BigQueryTarget

            made[cell] = BigQueryTarget(cell)
            stop.append(made[cell].stop)
            continue
        if vendor in ("dataproc_jobs", "dataproc_batches"):
            from targets_dataproc import DataprocBatchesTarget, DataprocJobsTarget

            made[cell] = (DataprocJobsTarget if vendor == "dataproc_jobs" else DataprocBatchesTarget)(cell)
            stop.append(made[cell].stop)
            continue
        if vendor == "cloud_batch":
            from targets_cloud_batch import CloudBatchTarget

            made[cell] = CloudBatchTarget(cell)
            stop.append(made[cell].stop)
            continue
        if vendor == "cloud_run":
            from targets_cloud_run import CloudRunTarget

            made[cell] = CloudRunTarget(cell)
            stop.append(made[cell].stop)
            continue
        if vendor == "google_dataflow":
            from targets_dataflow import DataflowTarget

            made[cell] = DataflowTarget(cell)
            stop.append(made[cell].stop)
            continue
        if vendor == "snowflake_sql_api":
            target = SnowflakeTarget(cell)
            stop.append(target.stop)
            made[cell] = target
            continue
        if aws_env is None:
            from durable_jobs.testing.emulators.aws_env import AwsTestEnv

            aws_env = AwsTestEnv(consistency_seconds=1.0).start()
        target = AwsTarget(aws_env, vendor, cell)
        stop.append(target.stop)
        made[cell] = target
    if aws_env is not None:
        stop.append(aws_env.stop)
    return made, stop


@pytest.fixture(scope="session")
def fault_matrix(request: pytest.FixtureRequest) -> dict:
    wanted = {item.callspec.params["cell_id"] for item in request.session.items
              if getattr(item, "callspec", None) and "cell_id" in item.callspec.params}
    chosen = [c for c in cells() if c[0] in wanted]
    targets, stoppers = _targets(chosen)
    saved = {k: os.environ.get(k) for k in ("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET",
                                            "AIRFLOW__DURABLE_JOBS__UNKNOWN_STATE_BUDGET")}
    os.environ["AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET"] = str(ERROR_BUDGET)
    os.environ["AIRFLOW__DURABLE_JOBS__UNKNOWN_STATE_BUDGET"] = str(UNKNOWN_STATE_BUDGET)
    for target in targets.values():
        os.environ.update(target.conn_env())
    try:
        with ThreadPoolExecutor(CONCURRENCY) as pool:
            futures = {cell: pool.submit(run_cell, targets[cell], case_for(vendor, case), path, cell)
                       for cell, vendor, case, path in chosen}
            outcomes = {cell: f.result().to_json() for cell, f in futures.items()}
    finally:
        for stop in stoppers:
            stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    data = {
        "generated": datetime.now(tz=timezone.utc).isoformat(timespec="seconds"),
        "versions": {d: version(d) for d in ("apache-airflow", *(f.provider for f in vendors.families(supported=True)),
                                             "moto")},
        "budgets": {"poll_error_budget": ERROR_BUDGET, "unknown_state_budget": UNKNOWN_STATE_BUDGET},
        "cases": [c.__dict__ for c in CASES], "cells": list(outcomes.values()),
    }
    if len(chosen) == len(cells()) and os.environ.get("DJ_FAULT_ARTIFACTS") == "1":
        (ROOT / "artifacts" / "fault-matrix.json").write_text(json.dumps(data, indent=1) + "\n")
    return outcomes

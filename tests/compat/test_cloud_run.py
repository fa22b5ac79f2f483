"""CloudRunExecuteJobOperator through Airflow itself (dag.test) against the Cloud Run gRPC emulator, with the
google provider pinned for 3.3: one execution per task, on every Airflow version (the key in its overrides where
the state store exists; below 3.3 the shim submits fresh, still with a per-try key)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.google", reason="add google to COMPAT_EXTRAS")

import compat_cloud_run_dags as dags  # noqa: E402
from compat_support import DEFERRALS, run_dag  # noqa: E402


@pytest.fixture
def cloud_run_emulator(monkeypatch):
    from durable_jobs.testing.emulators.cloud_run import CloudRunEmulator

    emulator = CloudRunEmulator(run_seconds=3.0).start()  # still running when a deferrable task defers
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        emulator.add_job("compat")
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.mark.parametrize("dag", [dags.sync, dags.deferrable], ids=lambda d: d.dag_id)
def test_one_execution_per_task(cloud_run_emulator, dag):
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    assert cloud_run_emulator.created() == 1
    [(_, execution_state)] = cloud_run_emulator.job_states().items()
    [key] = cloud_run_emulator.execution_keys().values()
    assert execution_state == "SUCCEEDED" and len(key) == 32
    assert DEFERRALS == ([dag.dag_id] if dag is dags.deferrable else [])

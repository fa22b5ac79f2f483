"""CloudBatchSubmitJobOperator through Airflow itself (dag.test) against the Cloud Batch gRPC emulator, with the
google provider pinned for 3.3: one job per task, under the job id ``<job_name>-<key>``, on every Airflow version."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.google", reason="add google to COMPAT_EXTRAS")

import compat_cloud_batch_dags as dags  # noqa: E402
from compat_support import DEFERRALS, run_dag  # noqa: E402


@pytest.fixture
def cloud_batch_emulator(monkeypatch):
    from durable_jobs.testing.emulators.cloud_batch import CloudBatchEmulator

    emulator = CloudBatchEmulator(run_seconds=3.0).start()  # still running when a deferrable task defers
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.mark.parametrize("dag", [dags.sync, dags.deferrable], ids=lambda d: d.dag_id)
def test_one_job_per_task(cloud_batch_emulator, dag):
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    assert cloud_batch_emulator.created("job") == 1
    [(job_id, job_state)] = cloud_batch_emulator.job_states().items()
    assert job_state == "SUCCEEDED" and job_id.startswith("compat-")
    assert DEFERRALS == ([dag.dag_id] if dag is dags.deferrable else [])

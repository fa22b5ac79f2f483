"""DataprocSubmitJobOperator through Airflow itself (dag.test) against the Dataproc gRPC emulator, with the
google provider pinned for 3.3: one job per task, a lost reply to SubmitJob included (the same request_id
resent by the client library, the first job returned), on every Airflow version."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.google", reason="add google to COMPAT_EXTRAS")

import compat_dataproc_dags as dags  # noqa: E402
from compat_support import DEFERRALS, run_dag, xcom  # noqa: E402


@pytest.fixture
def dataproc_emulator(monkeypatch):
    from durable_jobs.testing.emulators.dataproc import DataprocEmulator

    emulator = DataprocEmulator(run_seconds=3.0).start()  # still running when a deferrable task defers
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.mark.parametrize("lost_reply", [False, True], ids=["plain", "lost-reply"])
@pytest.mark.parametrize("dag", [dags.sync, dags.deferrable], ids=lambda d: d.dag_id)
def test_one_job_per_task(dataproc_emulator, dag, lost_reply):
    if lost_reply:
        dataproc_emulator.inject("SubmitJob", "UNAVAILABLE", after=True)
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    submits = [e for e in dataproc_emulator.ledger() if e["op"] == "SubmitJob"]
    assert dataproc_emulator.created("job") == 1 and len(submits) == (2 if lost_reply else 1)
    [job_id] = dataproc_emulator.job_states()
    assert dataproc_emulator.job_states()[job_id] == "DONE"
    assert xcom(dag.dag_id, "run", "return_value") == job_id
    assert DEFERRALS == ([dag.dag_id] if dag is dags.deferrable else [])


@pytest.mark.parametrize("lost_reply", [False, True], ids=["plain", "lost-reply"])
@pytest.mark.parametrize("dag", [dags.batch_sync, dags.batch_deferrable], ids=lambda d: d.dag_id)
def test_one_batch_per_task(dataproc_emulator, dag, lost_reply):
    if lost_reply:  # the batch is created, the reply lost: found again by its key-derived batch id
        dataproc_emulator.inject("CreateBatch", "UNAVAILABLE", after=True)
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    assert dataproc_emulator.created("batch") == 1
    [(batch_id, batch_state)] = dataproc_emulator.batch_states().items()
    assert batch_state == "SUCCEEDED" and batch_id.startswith("airflow-")
    assert DEFERRALS == ([dag.dag_id] if dag is dags.batch_deferrable else [])

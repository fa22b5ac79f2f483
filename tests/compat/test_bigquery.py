"""BigQueryInsertJobOperator through Airflow itself (dag.test) against the BigQuery jobs emulator, with the
google provider pinned for 3.3: one job per task, a lost reply to jobs.insert included (the same job id
resent by google-cloud-bigquery, BigQuery's 409, the job fetched), on every Airflow version."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("airflow.providers.google", reason="add google to COMPAT_EXTRAS")

import compat_bigquery_dags as dags  # noqa: E402
from compat_support import DEFERRALS, run_dag, xcom  # noqa: E402


@pytest.fixture
def bigquery_emulator(monkeypatch):
    from durable_jobs.testing.emulators.bigquery import BigQueryEmulator

    emulator = BigQueryEmulator().start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.mark.parametrize("lost_reply", [False, True], ids=["plain", "lost-reply"])
@pytest.mark.parametrize("dag", [dags.sync, dags.deferrable], ids=lambda d: d.dag_id)
def test_one_job_per_task(bigquery_emulator, dag, lost_reply):
    bigquery_emulator.configure(run_seconds=3.0)  # still running when a deferrable task defers
    if lost_reply:
        bigquery_emulator.add_fault("jobs/insert", 503, mode="reset", count=1)
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    ledger = bigquery_emulator.ledger()
    assert ledger["created"] == 1 and ledger["duplicates_detected"] == (1 if lost_reply else 0)
    [job_id] = ledger["jobs"]
    assert xcom(dag.dag_id, "run", "return_value") == job_id
    assert DEFERRALS == ([dag.dag_id] if dag is dags.deferrable else [])


def test_the_google_provider_is_the_3_3_pin():
    """The same provider version on every Airflow, pinned by constraints-3.3-py3.11.txt."""
    pins_file = Path(__file__).resolve().parents[2] / "constraints" / "constraints-3.3-py3.11.txt"
    pins = {re.sub(r"[-_.]+", "-", n).lower(): v for n, _, v in
            (line.strip().partition("==") for line in pins_file.read_text().splitlines() if "==" in line)}
    assert version("apache-airflow-providers-google") == pins["apache-airflow-providers-google"]

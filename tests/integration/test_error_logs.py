"""What a run logs at error level: nothing the official operator does not log for the same run.

Airflow builds every extra link when a task ends, and a link that looks up an XCom never pushed has the Task
SDK log "XCom not found" at error level; our failure callback reads the XCom copy of our record. Airflow runs
the DAGs (ours and the official operator's) against the emulators, and the task log it printed is read back.
"""

from __future__ import annotations

import re

import pytest

from . import driver, store

#: A Task SDK "XCom not found" line at error level, and the key it names.
NOT_FOUND = re.compile(r"\[error\s*\] XCom not found\b.*?\skey=([A-Za-z_][\w.-]*)")


def not_found_keys(capfd) -> list[str]:
    """The keys of the "XCom not found" errors logged since the last call."""
    seen = capfd.readouterr()
    return NOT_FOUND.findall(seen.out + seen.err)


def xcom(dr, key: str, task_id: str = "run"):
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        row = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id,
                                                 key=key).one_or_none()
        return None if row is None else XComModel.deserialize_value(row)


@pytest.fixture
def bq(monkeypatch):
    from durable_jobs.testing.emulators.bigquery import BigQueryEmulator

    emulator = BigQueryEmulator().start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.mark.parametrize(("ours", "official"), [("bq_sync", "bq_official"),
                                                ("bq_deferrable", "bq_official_deferrable")])
def test_a_successful_bigquery_run_logs_no_missing_xcom(bq, capfd, ours, official):
    """A DML statement names no table: the official run logs the table link's missing XCom, ours does not."""
    dags = driver.load("bigquery_scenarios")
    capfd.readouterr()
    theirs = driver.run(getattr(dags, official))
    assert driver.task_result(theirs, "run").state == "success"
    assert "bigquery_table" in not_found_keys(capfd)  # what the log capture is here to see

    dr = driver.run(getattr(dags, ours))

    assert driver.task_result(dr, "run").state == "success"
    assert not_found_keys(capfd) == []
    assert xcom(dr, "bigquery_table") == xcom(theirs, "bigquery_table") == ""  # the same (empty) table link


@pytest.mark.parametrize("mode", [{}, {"deferrable": True}], ids=str)
def test_a_failed_databricks_run_logs_no_missing_xcom(databricks_conn_env, capfd, mode):
    """The run fails at Databricks on the last try: the failure callback reads our record's copy, which is there."""
    dags = driver.load("parity_dags")
    emu = databricks_conn_env
    capfd.readouterr()
    for flavour in ("official", "durable"):
        emu.configure(outcomes=["FAILED"])
        dr = driver.run(dags.DAGS[(flavour, str(sorted(mode.items())))])
        assert driver.task_result(dr, "run").state == "failed"
        assert not_found_keys(capfd) == [], flavour


def test_a_databricks_try_failing_before_its_job_logs_only_what_the_official_one_logs(databricks_conn_env,
                                                                                      capfd):
    """Ours fails its last try before recording a job (an untrustworthy record), the official one on a refused
    submit: both have no run, hence no ``run_page_url`` for the link; ours has no record copy either, and its
    failure callback must not have Airflow say so at error level."""
    emu = databricks_conn_env
    capfd.readouterr()
    emu.add_fault("jobs/runs/submit", status=400, count=1)
    theirs = driver.run(driver.load("parity_dags").DAGS[("official", "[]")])
    assert driver.task_result(theirs, "run").state == "failed"
    official = not_found_keys(capfd)
    assert "run_page_url" in official  # what the log capture is here to see

    dag = driver.load("databricks_scenarios").build("dj_submit_sync", retries=0)
    dr = driver.start(dag)
    store.put(dr, store.RECORD_KEY, {"v": 1, "nonce": "not-a-nonce"})
    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run").state == "failed"
    assert emu.ledger()["runs_created"] == 0
    assert set(not_found_keys(capfd)) <= set(official)


def test_a_mapped_databricks_try_failing_before_its_job_logs_no_missing_record(databricks_conn_env, capfd):
    """A mapped task's record copy can only be read by its map index: the try that ran knows it wrote none."""
    from airflow.sdk import DAG

    from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

    scenarios = driver.load("databricks_scenarios")
    with DAG("dj_submit_mapped", schedule=None, start_date=scenarios.START, catchup=False) as dag:
        DatabricksSubmitRunOperator.partial(task_id="run", **{**scenarios.FAST, "retries": 0}).expand(
            tasks=[scenarios.notebook("/Shared/a")])
    dr = driver.start(dag)
    store.put(dr, store.RECORD_KEY, {"v": 1, "nonce": "not-a-nonce"}, map_index=0)
    capfd.readouterr()

    dr = driver.drive(dag, dr)

    assert driver.task_result(dr, "run", map_index=0).state == "failed"
    assert databricks_conn_env.ledger()["runs_created"] == 0
    assert store.RECORD_KEY not in not_found_keys(capfd)

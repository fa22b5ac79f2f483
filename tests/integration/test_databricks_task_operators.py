"""DatabricksNotebookOperator and DatabricksTaskOperator end to end: Airflow runs the DAGs, the official
hook talks to the Databricks emulator over loopback HTTP, the emulator's ledger counts the runs.

Nothing of ours is patched: faults are the emulator's (a ``runs/submit`` whose reply is lost after the run
was created, a run that ends FAILED).
"""

from __future__ import annotations

import pytest

from . import driver, store

pytestmark = pytest.mark.usefixtures("databricks_conn_env")

KEY = "databricks_run_id_durable"


@pytest.fixture
def emu(databricks_conn_env):
    return databricks_conn_env


@pytest.fixture(scope="module")
def dags():
    return driver.load("databricks_task_scenarios")


def submissions(emu) -> list[dict]:
    return emu.ledger()["submissions"]


def record(dr) -> dict:
    return store.get(dr, KEY)


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows if not row.key.startswith("_")}


@pytest.mark.parametrize("dag_name", ["notebook_sync", "notebook_deferrable"])
def test_notebook_run_is_submitted_once_under_the_key_with_the_official_payload(emu, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [sub] = submissions(emu)
    payload = sub["payload"]
    # the official _get_run_json, plus the epoch's key as idempotency_token
    task = payload["notebook_task"]
    assert (task["notebook_path"], task["source"]) == ("/Shared/etl", "WORKSPACE")
    assert set(task["base_parameters"]) == {"day"} and "{{" not in task["base_parameters"]["day"]  # rendered
    assert payload["existing_cluster_id"] == "cluster-1" and payload["timeout_seconds"] == 0
    saved = record(dr)
    assert sub["idempotency_token"] == saved["key"] and saved["id"] == sub["run_id"]
    assert saved["status"] == "SUCCEEDED"
    pushed = xcoms(dr)
    assert pushed["run_id"] == sub["run_id"]
    assert pushed["run_page_url"].startswith(emu.url) and str(sub["run_id"]) in pushed["run_page_url"]


@pytest.mark.parametrize("dag_name", ["task_sync", "task_deferrable"])
def test_task_run_lost_reply_every_attempt_of_try_one_resends_the_same_key(emu, dags, dag_name, monkeypatch):
    """Try 1 loses every runs/submit reply (the run exists; as a crash inside the window leaves it):
    try 2 resends the same token and Databricks hands back the run it already made."""
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "0")  # try 1 gives up at once
    emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")  # beats the hook's 2 attempts

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1
    assert len({s["idempotency_token"] for s in submissions(emu)}) == 1
    assert any(s["deduplicated"] for s in submissions(emu))
    assert submissions(emu)[0]["payload"]["spark_python_task"]["python_file"] == "dbfs:/etl.py"


def test_official_task_operator_makes_a_second_run_for_the_same_lost_reply(emu, dags, monkeypatch):
    """The comparison: upstream sends no idempotency_token, so the same fault costs a duplicate run."""
    emu.add_fault("jobs/runs/submit", status=500, count=2, mode="lose_reply")

    dr = driver.run(dags.official_task_sync)

    assert driver.task_result(dr, "run").state == "success"
    assert emu.ledger()["runs_created"] >= 2
    assert all(s["idempotency_token"] is None for s in submissions(emu))


@pytest.mark.parametrize("dag_name", ["notebook_sync", "task_deferrable"])
def test_failed_run_fails_the_try_and_the_retry_makes_a_new_run_under_a_new_key(emu, dags, dag_name):
    emu.configure(outcomes=["FAILED", "SUCCESS"])

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    first, second = submissions(emu)
    assert first["idempotency_token"] != second["idempotency_token"]
    assert record(dr)["id"] == second["run_id"]


def test_retry_reconnects_to_the_running_run(emu, dags):
    """Try 1 fails while watching (one runs/get answers 403, an error the fault policy does not bear); try 2
    finds the run in the record, running, and watches it instead of submitting again."""
    emu.add_fault("jobs/runs/get", status=403, count=1, skip=1)

    dr = driver.run(dags.notebook_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["runs_created"] == 1 and len(submissions(emu)) == 1


def test_notebook_example_dag_submits_one_run_per_task(emu):
    from datetime import timedelta

    dag = driver.load("databricks_notebook", driver.EXAMPLES).dag
    for task in dag.tasks:  # only the intervals shortened; everything else as written
        task.polling_period_seconds, task.retry_delay = 0.2, timedelta(0)
    emu.add_fault("jobs/runs/submit", status=500, count=1, mode="lose_reply")  # the first reply is lost

    dr = driver.run(dag)

    for task_id in ("prepare_orders", "publish_orders"):
        result = driver.task_result(dr, task_id)
        assert (result.state, result.try_number) == ("success", 1), task_id
        assert store.get(dr, KEY, task_id=task_id)["status"] == "SUCCEEDED"
    assert emu.ledger()["runs_created"] == 2  # the lost reply's resend was deduplicated by its token
    assert sum(s["deduplicated"] for s in submissions(emu)) == 1


@pytest.mark.parametrize("flavour", ["sync", "deferrable"])
def test_same_xcoms_and_return_value_as_the_official_notebook_operator(emu, dags, flavour):
    import re

    seen = {}
    for name in (f"official_notebook_{flavour}", f"notebook_{flavour}"):
        dr = driver.run(getattr(dags, name))
        assert driver.task_result(dr, "run").state == "success"
        pushed = {k: v for k, v in xcoms(dr).items() if not k.endswith("_durable")}
        run_id = pushed["run_id"]
        seen[name.startswith("official")] = {
            k: "<run>" if v == run_id else re.sub(r"#job/\d+/run/\d+", "#job/<job>/run/<run>", str(v))
            for k, v in pushed.items()
        }
    assert seen[False] == seen[True] and {"run_id", "run_page_url"} <= set(seen[True])

"""DatabricksSQLStatementsOperator end to end: Airflow runs the DAGs, the official hook talks to the Databricks
emulator's Statement Execution endpoints over loopback HTTP, the emulator's ledger counts the statements.

Nothing of ours is patched: faults are the emulator's. The API has no idempotency field, so the tests show
both halves honestly: what reconnects (the id was stored) and what runs twice (the POST's reply was lost).
"""

from __future__ import annotations

import pytest

from . import driver, store

pytestmark = pytest.mark.usefixtures("databricks_conn_env")

KEY = "statement_id_durable"
POST = "sql/statements"
GET = "sql/statements/get"


@pytest.fixture
def emu(databricks_conn_env):
    return databricks_conn_env


@pytest.fixture(scope="module")
def dags():
    return driver.load("databricks_sql_scenarios")


def submissions(emu) -> list[dict]:
    return emu.ledger()["statement_submissions"]


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows if not row.key.startswith("_")}


@pytest.mark.parametrize("dag_name", ["sql_sync", "sql_deferrable"])
def test_statement_runs_once_with_the_official_payload_and_its_id_is_kept(emu, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [sub] = submissions(emu)
    payload = sub["payload"]
    assert payload["statement"].startswith("MERGE INTO sales.daily") and payload["warehouse_id"] == "wh-1"
    assert (payload["catalog"], payload["schema"], payload["wait_timeout"]) == ("main", "sales", "0s")
    tags = {t["key"]: t["value"] for t in payload["query_tags"]}
    assert tags["team"] == dr.dag_id and tags["airflow_task_id"] == "run" and tags["airflow_try_number"] == "1"
    saved = store.get(dr, KEY)
    assert saved["id"] == sub["statement_id"] and saved["status"] == "SUCCEEDED"
    assert xcoms(dr)["statement_id"] == sub["statement_id"]
    assert emu.ledger()["statements"][sub["statement_id"]]["state"] == "SUCCEEDED"


@pytest.mark.parametrize("dag_name", ["sql_sync", "sql_deferrable"])
def test_retry_reconnects_to_the_running_statement(emu, dags, dag_name):
    """Try 1 fails while watching (a status read answers 403, which the fault policy does not bear); try 2
    finds the id in the record, the statement still running, and watches it instead of running it again."""
    emu.configure(running_seconds=3.0)
    emu.add_fault(GET, status=403, count=1, skip=1)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["statements_created"] == 1 and len(submissions(emu)) == 1
    assert emu.ledger()["calls"][POST] == 1


def test_lost_post_reply_runs_the_statement_again_on_the_retry_the_open_window(emu, dags):
    """W2, as a fault: Databricks ran the statement but its reply was lost. No idempotency field, nothing to
    find it by: try 1 fails without resending (one POST), try 2 runs the SQL again. Two statements."""
    emu.add_fault(POST, status=500, count=1, mode="lose_reply")

    dr = driver.run(dags.sql_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert emu.ledger()["calls"][POST] == 2  # one POST per try: never resent inside a try
    assert emu.ledger()["statements_created"] == 2
    assert store.get(dr, KEY)["id"] == submissions(emu)[1]["statement_id"]


def test_official_operator_resends_the_post_inside_the_try(emu, dags):
    """The comparison: the official hook retries the POST on a 5xx, so the same lost reply runs the statement
    twice within try 1."""
    emu.add_fault(POST, status=500, count=1, mode="lose_reply")

    dr = driver.run(dags.official_sql_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert emu.ledger()["statements_created"] == 2


def test_failed_statement_fails_the_try_and_the_retry_runs_anew(emu, dags):
    emu.configure(statement_outcomes=["FAILED", "SUCCEEDED"])

    dr = driver.run(dags.sql_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    first, second = submissions(emu)
    assert store.get(dr, KEY)["id"] == second["statement_id"] != first["statement_id"]


def test_timeout_cancels_the_statement_as_upstream_does(emu, dags):
    emu.configure(running_seconds=30.0)

    dr = driver.run(dags.sql_timeout)

    assert driver.task_result(dr, "run").state == "failed"
    [cancel] = [c for c in emu.ledger()["statement_cancels"] if c["was_active"]]  # later cancels find it ended
    assert emu.ledger()["statements_created"] == 1
    assert emu.ledger()["statements"][cancel["statement_id"]]["state"] == "CANCELED"


@pytest.mark.parametrize("flavour", ["sync", "deferrable"])
def test_same_xcoms_and_return_value_as_the_official_operator(emu, dags, flavour):
    seen = {}
    for name in (f"official_sql_{flavour}", f"sql_{flavour}"):
        dr = driver.run(getattr(dags, name))
        assert driver.task_result(dr, "run").state == "success"
        pushed = {k: v for k, v in xcoms(dr).items() if not k.endswith("_durable")}
        statement_id = pushed["statement_id"]
        seen[name.startswith("official")] = {k: "<id>" if v == statement_id else v for k, v in pushed.items()}
    assert seen[False] == seen[True] == {"statement_id": "<id>"}


def test_sql_example_dag_runs_each_statement_once(emu):
    from datetime import timedelta

    dag = driver.load("databricks_sql_statements", driver.EXAMPLES).dag
    for task in dag.tasks:  # only the intervals shortened; everything else as written
        task.polling_period_seconds, task.retry_delay = 0.2, timedelta(0)

    dr = driver.run(dag)

    for task in dag.tasks:
        result = driver.task_result(dr, task.task_id)
        assert (result.state, result.try_number) == ("success", 1), task.task_id
        assert store.get(dr, KEY, task_id=task.task_id)["status"] == "SUCCEEDED"
    assert emu.ledger()["statements_created"] == len(dag.tasks)

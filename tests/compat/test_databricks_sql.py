"""DatabricksSQLStatementsOperator's submit/poll/result cycle through Airflow itself (dag.test) against the
Databricks emulator's statement endpoints, on every supported Airflow."""

from __future__ import annotations

import compat_databricks_sql_dags as dags
import pytest
from compat_support import DEFERRALS, run_dag, xcom


@pytest.mark.parametrize("dag", [dags.sql_sync, dags.sql_deferrable], ids=lambda d: d.dag_id)
def test_statement_runs_once_and_its_id_is_pushed(emulator, dag):
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"][0] == "success"
    ledger = emulator.ledger()
    assert ledger["statements_created"] == 1, ledger["statements"]
    (statement_id, statement), = ledger["statements"].items()
    assert statement["state"] == "SUCCEEDED" and statement["statement"] == "SELECT 1"
    assert xcom(dag.dag_id, "run", "statement_id") == statement_id
    assert ledger["runs_created"] == 0
    assert DEFERRALS == ([dag.dag_id] if "deferrable" in dag.dag_id else [])

"""Near miss for DJ092: durable=False in a test file (under a tests/ directory) is expected."""

from __future__ import annotations

from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator


def test_operator_without_durability():
    op = DatabricksSubmitRunOperator(task_id="t", json={"run_name": "x"}, durable=False, retries=1)
    assert op.durable is False

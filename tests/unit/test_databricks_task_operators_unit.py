"""The failure messages of the durable DatabricksNotebookOperator / DatabricksTaskOperator: the official
``_handle_terminal_run_state`` texts first (``Task failed. Final state ...`` / ``Databricks job failed with
state ...``), then what a retry does. Built from a status as the client reports it; nothing is mocked."""

from __future__ import annotations

import pytest

from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.databricks.operators.databricks import DatabricksNotebookOperator, DatabricksTaskOperator


@pytest.mark.parametrize("cls,args", [
    (DatabricksNotebookOperator, {"notebook_path": "/n", "source": "WORKSPACE"}),
    (DatabricksTaskOperator, {"task_config": {"spark_python_task": {"python_file": "dbfs:/x.py"}}}),
])
def test_failure_messages_are_the_official_ones(cls, args):
    op = cls(task_id="t", existing_cluster_id="c", **args)
    failed = JobStatus(JobPhase.FAILED, "TERMINATED:FAILED", "boom", raw={"errors": ["e1"]})
    text = str(op.failure_error({}, 7, failed))
    assert text.startswith("Task failed. Final state FAILED. Reason: boom. Errors: ['e1']")
    assert text.endswith("A retry submits a new run.")
    internal = JobStatus(JobPhase.FAILED, "INTERNAL_ERROR:", "driver lost", raw={"errors": ["e2"]})
    assert str(op.failure_error({}, 7, internal)).startswith(
        "Databricks job failed with state INTERNAL_ERROR. Message: driver lost. Errors: ['e2']")


def test_request_is_the_official_run_json_and_has_no_token_of_its_own():
    op = DatabricksNotebookOperator(task_id="t", notebook_path="/n", source="WORKSPACE", new_cluster={"x": 1})
    request = op.prepare_request({}, fresh_key=True)
    assert request == op._get_run_json() and "idempotency_token" not in request
    assert request["new_cluster"] == {"x": 1} and request["notebook_task"]["notebook_path"] == "/n"
    with pytest.raises(ValueError, match="Must specify either existing_cluster_id or new_cluster"):
        DatabricksTaskOperator(task_id="u", task_config={}).prepare_request({}, fresh_key=True)

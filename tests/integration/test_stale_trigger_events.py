"""An earlier try's trigger event reaching a later try's deferral.

Airflow resumes the task instances deferred on the trigger row an event names; a metadata DB may give a new
trigger the id of a deleted one (SQLite does). The crash suite's TIMEOUT-HUB cell saw it: try 1 timed out and
cancelled its run, try 2 submitted a new one and deferred on a trigger with try 1's old id, and try 1's trigger,
still running, told it "cancelled" — try 2 failed and recorded its own running job as failed, and try 3 submitted
a third run. The operator now watches the job its checkpoint records and ignores the other job's event.

The runs are real (the Databricks emulator) and the event is our trigger's own; the checkpoint is read and
written through ``AirflowLikeStore``, which has the interface of Airflow's ``task_state_store`` accessor
(``get(key)``, ``set(key, value, retention=...)``) over a dict.
"""

from __future__ import annotations

from typing import Any

import pytest
from airflow.providers.common.compat.sdk import TaskDeferred

from durable_jobs.core.checkpoint import STATUS_SUCCEEDED, CheckpointRecord, new_nonce
from durable_jobs.core.status import JobPhase
from durable_jobs.core.trigger import JobTrigger
from durable_jobs.providers.databricks.operators import databricks
from tests.integration.test_switching_imports import DBX, TASKS, our_trigger_event, wait_for


class AirflowLikeStore:
    """``task_state_store``'s interface over a dict (values as the accessor hands them back)."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        return self.values.get(key)

    def set(self, key: str, value: Any, retention: Any = None) -> None:
        self.values[key] = value


def store_naming(op, job_id: Any) -> AirflowLikeStore:
    """A store holding the checkpoint this try's submit left: an epoch whose job is ``job_id``."""
    record = CheckpointRecord.start_epoch(request_fingerprint="f", fields={}, try_number=2, max_tries=3, retries=2,
                                          client=op.job_client.classpath(), client_kwargs=op.job_client.serialize())
    record.id = job_id
    store = AirflowLikeStore()
    store.set(op.checkpoint_key, record.to_json())
    return store


def submit(op) -> Any:
    return op.job_client.submit({"run_name": "x", "tasks": TASKS}, op.job_client.format_key(new_nonce()))


def test_an_earlier_trys_event_does_not_end_this_try(databricks_conn_env, capfd):
    databricks_conn_env.configure(running_seconds=30)
    op = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    earlier = submit(op)
    op.job_client.cancel(earlier)  # try 1's execution_timeout cancelled it
    wait_for(op.job_client, earlier, JobPhase.FAILED)
    stale = our_trigger_event(op, earlier)  # try 1's trigger, still running, hears the cancel
    current = submit(op)  # try 2's run
    store = store_naming(op, current)

    with pytest.raises(TaskDeferred) as deferred:
        op.execute_complete({"task_state_store": store}, stale)

    assert isinstance(deferred.value.trigger, JobTrigger) and deferred.value.trigger.job_id == current
    assert store.get(op.checkpoint_key).get("status") is None, store.values  # not recorded as failed
    assert databricks_conn_env.ledger()["runs_created"] == 2
    assert op.job_client.status(current).phase is JobPhase.ACTIVE  # nobody cancelled this try's run
    said = "".join(capfd.readouterr())
    assert f"about Databricks run {earlier} (failed)" in said and f"Ignoring it and watching run {current}" in said


def test_an_event_about_the_recorded_job_still_ends_the_try(databricks_conn_env):
    """The same check lets the recorded job's own event through (an id read back from the store as a string)."""
    op = databricks.DatabricksSubmitRunOperator(task_id="t", **DBX)
    current = submit(op)
    wait_for(op.job_client, current, JobPhase.SUCCEEDED)
    store = store_naming(op, str(current))

    assert op.execute_complete({"task_state_store": store}, our_trigger_event(op, current)) is None
    assert store.get(op.checkpoint_key)["status"] == STATUS_SUCCEEDED

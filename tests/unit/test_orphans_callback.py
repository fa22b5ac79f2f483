"""durable_jobs.core.orphans: the failure callback every durable operator carries, and the deferral's bound.

The callback is called here as Airflow's DAG processor calls it (``_execute_task_callbacks``): with a
context whose ``task`` is the operator parsed from the DAG file and whose ``ti`` answers ``xcom_pull``
(the one per-task read that process serves). The vendor is the Databricks emulator on 127.0.0.1.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone

import pendulum
import pytest
from airflow.sdk import DAG

from durable_jobs.core.checkpoint import CheckpointRecord, new_nonce
from durable_jobs.core.orphans import cancel_orphaned_job, chain_failure_callbacks, deferral_timeout
from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient
from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

REQUEST = {"run_name": "unit", "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/p"}}]}
TASKS = REQUEST["tasks"]


def mine(context):
    pass


def theirs(context):
    pass


# ------------------------------------------------------------------ chaining
@pytest.mark.parametrize(("given", "expected"), [
    (None, [cancel_orphaned_job]),
    ([], [cancel_orphaned_job]),
    (mine, [cancel_orphaned_job, mine]),
    ([mine, theirs], [cancel_orphaned_job, mine, theirs]),
    ((mine,), [cancel_orphaned_job, mine]),
    ([cancel_orphaned_job, mine], [cancel_orphaned_job, mine]),
])
def test_ours_goes_first_and_once(given, expected):
    assert chain_failure_callbacks(given) == expected


def test_the_operator_chains_the_users_callbacks_however_they_arrive():
    with DAG("chain", schedule=None, start_date=pendulum.datetime(2025, 1, 1),
             default_args={"on_failure_callback": theirs}):
        from_defaults = DatabricksSubmitRunOperator(task_id="a", tasks=TASKS)
        given = DatabricksSubmitRunOperator(task_id="b", tasks=TASKS, on_failure_callback=[mine, theirs])
    assert from_defaults.on_failure_callback == [cancel_orphaned_job, theirs]
    assert given.on_failure_callback == [cancel_orphaned_job, mine, theirs]
    given.on_failure_callback = mine  # assigned after construction: still chained (BaseOperator's converter)
    assert given.on_failure_callback == [cancel_orphaned_job, mine]
    assert copy.deepcopy(given).on_failure_callback == [cancel_orphaned_job, mine]
    assert given.has_on_failure_callback


# ------------------------------------------------------------------ the deferral's bound
def test_the_deferral_gets_what_is_left_of_execution_timeout():
    now = datetime.now(timezone.utc)
    assert deferral_timeout(None, now) is None
    assert deferral_timeout(timedelta(seconds=30), None) == timedelta(seconds=30)
    left = deferral_timeout(timedelta(seconds=30), now - timedelta(seconds=10))
    assert left is not None and timedelta(seconds=19) < left <= timedelta(seconds=20)
    assert deferral_timeout(timedelta(seconds=5), now - timedelta(minutes=1)) == timedelta(0)
    naive = (now - timedelta(seconds=10)).replace(tzinfo=None)
    assert deferral_timeout(timedelta(seconds=30), naive) <= timedelta(seconds=20)


# ------------------------------------------------------------------ the callback, as the DAG processor runs it
class ProcessorTI:
    """What the DAG processor's task instance offers the callback: identity and ``xcom_pull``."""

    def __init__(self, xcoms: dict):
        self.dag_id, self.run_id, self.task_id, self.map_index = "d", "r", "run", -1
        self.xcoms = xcoms
        self.pulls: list[dict] = []

    def xcom_pull(self, **kwargs):
        self.pulls.append(kwargs)
        return self.xcoms.get(kwargs["key"])


def _said(capfd) -> str:
    """What the callback logged (the operator's own logger: the task log, or the DAG processor's)."""
    out = capfd.readouterr()
    return out.out + out.err


def _task(**kwargs) -> DatabricksSubmitRunOperator:
    return DatabricksSubmitRunOperator(task_id="run", tasks=TASKS, retries=0, **kwargs)


def _recorded(client: DatabricksJobClient, run_id, **changes) -> dict:
    record = CheckpointRecord.start_epoch(request_fingerprint="f", fields={}, try_number=1, max_tries=0, retries=0,
                                          client=client.classpath(), client_kwargs=client.serialize())
    record.id = run_id
    data = record.to_json()
    data.update(changes)
    return data


@pytest.fixture
def client(databricks_conn_env):
    return DatabricksJobClient(retry_limit=2, retry_delay=0.01)


def _submit(emu, client, seconds: float = 60.0):
    emu.configure(running_seconds=seconds, pending_seconds=0.0, terminating_seconds=0.0)
    return client.submit(REQUEST, client.format_key(new_nonce()))


def test_an_active_job_of_a_task_failed_for_good_is_cancelled(databricks_conn_env, client, capfd):
    run_id = _submit(databricks_conn_env, client)
    task = (_task())
    ti = ProcessorTI({task.checkpoint_key: _recorded(client, run_id)})

    cancel_orphaned_job({"task": task, "ti": ti})

    assert [c["run_id"] for c in databricks_conn_env.ledger()["cancels"]] == [run_id]
    # no map index: all of an unmapped task's (one) copy, where a missing one is an empty answer, not an error line
    assert ti.pulls == [{"task_ids": "run", "key": "databricks_run_id_durable"}]
    said = _said(capfd)
    assert "failed for good (no retry left)" in said and f"run {run_id}" in said


def test_a_mapped_task_instance_reads_the_copy_of_its_own_map_index(databricks_conn_env, client):
    run_id = _submit(databricks_conn_env, client)
    task = _task()
    ti = ProcessorTI({task.checkpoint_key: _recorded(client, run_id)})
    ti.map_index = 2

    cancel_orphaned_job({"task": task, "ti": ti})

    assert ti.pulls == [{"task_ids": "run", "key": "databricks_run_id_durable", "map_indexes": 2}]
    assert [c["run_id"] for c in databricks_conn_env.ledger()["cancels"]] == [run_id]


@pytest.mark.parametrize("case", ["outcome recorded", "no record", "not durable", "finished", "legacy"])
def test_nothing_to_cancel(databricks_conn_env, client, case):
    emu = databricks_conn_env
    run_id = _submit(emu, client, seconds=0.0 if case == "finished" else 60.0)
    task = _task(durable=case != "not durable")
    record = {"outcome recorded": _recorded(client, run_id, status="FAILED"), "no record": None,
              "legacy": run_id}.get(case, _recorded(client, run_id))
    ti = ProcessorTI({task.checkpoint_key: record} if record is not None else {})

    cancel_orphaned_job({"task": task, "ti": ti})

    assert emu.ledger()["cancels"] == []


def test_cancel_on_kill_never_leaves_it_and_says_so(databricks_conn_env, client, capfd):
    run_id = _submit(databricks_conn_env, client)
    task = (_task(cancel_on_kill="never"))

    cancel_orphaned_job({"task": task, "ti": ProcessorTI({task.checkpoint_key: _recorded(client, run_id)})})

    assert databricks_conn_env.ledger()["cancels"] == []
    assert "cancel_on_kill='never' leaves it running" in _said(capfd)


def test_a_failed_cancel_is_logged_with_the_way_out_never_raised(databricks_conn_env, client, capfd):
    run_id = _submit(databricks_conn_env, client)
    databricks_conn_env.add_fault("jobs/runs/cancel", status=403, count=-1)
    task = (_task())

    cancel_orphaned_job({"task": task, "ti": ProcessorTI({task.checkpoint_key: _recorded(client, run_id)})})

    assert "durable-jobs reconcile --cancel" in _said(capfd)


def test_an_unreadable_record_is_logged_not_raised(databricks_conn_env, capfd):
    task = (_task())
    cancel_orphaned_job({"task": task, "ti": ProcessorTI({task.checkpoint_key: {"v": 99}})})
    assert "could not be read" in _said(capfd)

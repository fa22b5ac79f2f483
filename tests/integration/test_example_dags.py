"""Every example DAG runs through Airflow (against the emulator where it talks to Databricks).

Only the polling intervals are shortened, on the operator objects, so the suite stays quick;
everything else runs as written.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from . import driver, store


def quick(dag) -> None:
    for task in dag.tasks:
        if hasattr(task, "polling_period_seconds"):
            task.polling_period_seconds = 0.2
        if hasattr(task, "poll_seconds"):
            task.poll_seconds = 0.2
        if getattr(task, "mode", None) == "reschedule":
            task.poke_interval = 0.2
        task.retry_delay = timedelta(0)


def load(name: str):
    return driver.load(name, driver.EXAMPLES)


@pytest.mark.parametrize(
    ("module", "dag_attr", "task_id"),
    [
        ("databricks_submit_sync", "dag", "nightly_etl"),
        ("databricks_submit_deferrable", "dag", "nightly_etl"),
        ("databricks_not_durable", "dag", "smoke_test"),
    ],
)
def test_databricks_examples_submit_one_run(databricks_conn_env, module, dag_attr, task_id):
    dag = getattr(load(module), dag_attr)
    quick(dag)
    dr = driver.run(dag)
    result = driver.task_result(dr, task_id)
    assert (dr.state, result.state, result.try_number) == ("success", "success", 1)
    assert databricks_conn_env.ledger()["runs_created"] == 1
    durable = module != "databricks_not_durable"
    assert (store.record(dr, task_id) is not None) is durable


def test_run_now_example_resolves_the_job_by_name(databricks_conn_env):
    databricks_conn_env.seed_job(job_id=77, name="refresh_marts")
    dag = load("databricks_run_now").dag
    quick(dag)
    dr = driver.run(dag)
    assert driver.task_result(dr, "refresh_marts").state == "success"
    [run] = databricks_conn_env.ledger()["runs"].values()
    assert run["job_id"] == 77
    assert databricks_conn_env.ledger()["cancels"] == []  # cancel_previous_runs had nothing to cancel


def test_split_example_downstream_waits_for_the_sensor(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=1.0)
    dag = load("databricks_split_reschedule_sensor").dag
    quick(dag)
    dr = driver.run(dag)
    states = {t: driver.task_result(dr, t).state for t in ("submit_backfill", "wait_for_backfill", "publish")}
    assert states == {"submit_backfill": "success", "wait_for_backfill": "success", "publish": "success"}
    assert databricks_conn_env.ledger()["runs_created"] == 1
    assert store.record(dr, "submit_backfill")["id"] is not None  # the submit task is checkpointed
    assert "publish" in dag.get_task("wait_for_backfill").downstream_task_ids
    assert dag.get_task("submit_backfill").downstream_task_ids == {"wait_for_backfill"}


def test_split_example_sensor_reports_a_failed_run(databricks_conn_env):
    databricks_conn_env.configure(default_outcome="FAILED")
    dag = load("databricks_split_reschedule_sensor").dag
    quick(dag)
    for t in dag.tasks:
        t.retries = 0
    dr = driver.run(dag)
    assert driver.task_result(dr, "submit_backfill").state == "success"  # accepted, not succeeded
    assert driver.task_result(dr, "wait_for_backfill").state == "failed"
    assert driver.task_result(dr, "publish").state == "upstream_failed"


def test_custom_mixin_first_operator_checkpoints_its_run(databricks_conn_env):
    dag = load("custom_resumable_operator").dag
    quick(dag)
    dr = driver.run(dag)
    assert driver.task_result(dr, "run_notebook").state == "success"
    [run_id] = [int(r) for r in databricks_conn_env.ledger()["runs"]]
    assert store.get(dr, "notebook_run_id", task_id="run_notebook") == run_id


def test_task_state_store_checkpoint_example_keeps_its_cursor():
    dag = load("task_state_store_checkpoint").dag
    dr = driver.run(dag)
    assert driver.task_result(dr, "process_records").state == "success"
    assert store.get(dr, "last_cursor", task_id="process_records") == 20


def test_mapped_example_keeps_one_cursor_per_index():
    dag = load("task_state_store_mapped").dag
    dr = driver.run(dag)
    cursors = [store.get(dr, "cursor", task_id="process_partition", map_index=i) for i in range(4)]
    assert cursors == [5, 3, 7, 1]


def test_asset_state_store_examples_share_the_watermark_across_dags():
    from airflow.sdk import timezone

    module = load("asset_state_store_watermark")
    dags = {d.dag_id: d for d in (module.producer, module.consumer, module.mapped_producer)}
    before = timezone.utcnow()
    producer = driver.run(dags["example_asset_state_producer"])
    assert driver.task_result(producer, "load").state == "success"
    consumer = driver.run(dags["example_asset_state_consumer"])
    assert driver.task_result(consumer, "consume").state == "success"
    mapped = driver.run(dags["example_asset_state_mapped_producer"])
    assert all(driver.task_result(mapped, "load_partition", i).state == "success" for i in range(3))

    import json
    from datetime import datetime

    from airflow._shared.state import AssetScope  # noqa: F401  (the API the server uses)
    from airflow.state import get_state_backend

    backend = get_state_backend()
    watermark = json.loads(_asset_value(backend, "orders/daily", "watermark"))
    assert datetime.fromisoformat(watermark) >= before  # timezone-aware, written this run
    assert json.loads(_asset_value(backend, "orders/daily", "last_run_summary"))["rows_loaded"] == 3
    assert [json.loads(_asset_value(backend, "orders/partitioned", f"offset_{i}")) for i in range(3)] == [100, 200, 300]


def _asset_value(backend, name: str, key: str):
    from airflow import settings
    from airflow._shared.state import AssetScope
    from airflow.models.asset import AssetModel

    with settings.Session() as session:
        asset_id = session.query(AssetModel.id).filter_by(name=name).scalar()
    return backend.get(AssetScope(asset_id=asset_id), key)

"""Every snippet the guide shows from docs/snippets/ runs here, and the claims around it hold.

The guide's pages include these files (never copies), so what a reader sees is what ran: the
DAGs through Airflow itself (the databricks ones against the emulator), the plain modules with
runpy. The Airflow-3.3.2-differs notes are checked against the installed Airflow too.
"""

from __future__ import annotations

import inspect
import runpy
from datetime import datetime, timedelta, timezone

from durable_jobs.demo.runner import load_module, run, task_result

from .conftest import SNIPPETS


def _quick(dag) -> None:
    """Poll the emulator every 0.2 s instead of the operators' default 30 s (nothing else changes)."""
    for task in dag.tasks:
        if hasattr(task, "polling_period_seconds"):
            task.polling_period_seconds = 0.2


def _xcom(dr, task_id: str):
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        row = session.query(XComModel).filter_by(
            dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id, key="return_value"
        ).one()
        return XComModel.deserialize_value(row)


def _rows(dr, task_id: str) -> dict[str, datetime | None]:
    from airflow import settings
    from airflow.models.task_state_store import TaskStateStoreModel

    with settings.Session() as session:
        rows = session.query(TaskStateStoreModel).filter_by(
            dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id
        ).all()
        return {row.key: row.expires_at for row in rows}


def test_task_state_store_api_and_each_keys_expiry(snippet_dags):
    from airflow.configuration import conf

    dag = load_module("task_state_store_api", snippet_dags).dag
    before = datetime.now(tz=timezone.utc)
    dr = run(dag)
    assert task_result(dr, "write_keys").state == "success"
    assert task_result(dr, "clear_everything").state == "success"
    rows = _rows(dr, "write_keys")
    assert set(rows) == {"last_cursor", "batch", "spark_job_id"}  # "scratch" was deleted
    days = conf.getint("state_store", "default_retention_days")
    assert days == 30

    def expires_in(key: str) -> timedelta:
        value = rows[key]
        value = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return value - before

    assert timedelta(days=days) - timedelta(minutes=5) < expires_in("last_cursor") < timedelta(days=days, minutes=5)
    assert timedelta(days=7) - timedelta(minutes=5) < expires_in("batch") < timedelta(days=7, minutes=5)
    assert rows["spark_job_id"] is None  # NEVER_EXPIRE: no expiry at all
    assert _rows(dr, "clear_everything") == {}


def test_clearing_every_map_index_through_the_rest_api(rest_api):
    from tests.integration import driver, store

    from .conftest import ROOT

    dag = load_module("task_state_store_mapped", ROOT / "example_dags").dag
    dr = driver.run(dag)
    cursor = lambda i: store.get(dr, "cursor", task_id="process_partition", map_index=i)  # noqa: E731
    assert [cursor(i) for i in range(4)] == [5, 3, 7, 1]
    clear_all_map_indices = runpy.run_path(str(SNIPPETS / "clear_all_map_indices.py"))["clear_all_map_indices"]
    clear_all_map_indices(rest_api, dr.dag_id, dr.run_id, "process_partition")
    assert [cursor(i) for i in range(4)] == [None, None, None, None]


def test_asset_state_store_injection_forms(snippet_dags):
    from airflow.sdk.execution_time.context import AssetStateStoreAccessor

    dag = load_module("asset_state_store_injection", snippet_dags).dag
    dr = run(dag)
    assert {t: task_result(dr, t).state for t in dag.task_ids} == dict.fromkeys(dag.task_ids, "success")
    written = _xcom(dr, "by_keyword")
    assert datetime.fromisoformat(written).tzinfo is not None  # timezone-aware
    assert _xcom(dr, "by_context") == written  # the context key reads the same store
    assert _xcom(dr, "combined") is False  # the named argument took it out of **context
    assert "retention" not in inspect.signature(AssetStateStoreAccessor.set).parameters  # no TTL


def test_mixin_order_snippet(capsys):
    namespace = runpy.run_path(str(SNIPPETS / "mixin_order.py"))
    assert "TypeError: object.__init__() takes exactly one argument" in capsys.readouterr().out
    assert namespace["operator"].durable is True


def test_durable_off_snippet_never_touches_the_store(snippet_dags, databricks_conn_env):
    from tests.integration import store

    dag = load_module("durable_off", snippet_dags).dag
    assert dag.get_task("smoke_test").durable is False
    _quick(dag)
    dr = run(dag)
    assert task_result(dr, "smoke_test").state == "success"
    assert databricks_conn_env.ledger()["runs_created"] == 1
    assert store.record(dr, "smoke_test") is None
    assert store.get(dr, "databricks_run_id", task_id="smoke_test") is None


def test_migrating_snippet_keeps_the_official_behaviour_it_asks_for(snippet_dags, databricks_conn_env):
    from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator as Official

    from tests.integration import store

    module = load_module("migrating", snippet_dags)
    op = module.dag.get_task("nightly_etl")
    assert isinstance(op, Official)
    assert (op.fresh_on_clear, op.cancel_on_kill) == (False, "always")
    _quick(module.dag)
    dr = run(module.dag)
    assert task_result(dr, "nightly_etl").state == "success"
    assert databricks_conn_env.ledger()["runs_created"] == 1
    assert store.record(dr, "nightly_etl")["id"] is not None


def test_airflow_3_3_2_differs_notes_hold():
    """The corrections the guide states about Airflow 3.3.2, checked on the installed Airflow."""
    import airflow.state.metastore as metastore
    from airflow.cli import cli_config
    from airflow.configuration import conf

    assert conf.get("state_store", "backend") == "airflow.state.metastore.MetastoreBackend"
    assert not hasattr(metastore, "MetastoreStateStoreBackend")
    [group] = [g for g in cli_config.core_commands if getattr(g, "name", "") == "state-store"]
    assert [c.name for c in group.subcommands] == ["clean"]  # no "clear every map index" command


def test_every_snippet_file_is_run_here():
    source = inspect.getsource(inspect.getmodule(test_every_snippet_file_is_run_here))
    for path in SNIPPETS.glob("*.py"):
        assert f'"{path.stem}' in source or f"{path.name}" in source, f"{path.name} is not run by this module"

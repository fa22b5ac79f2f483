"""Drop-in parity with the official operators (databricks 7.23, amazon 9.39, snowflake 6.20): same surface,
XComs, link.

The only differences allowed are the two documented keyword arguments durable-jobs adds
(``cancel_on_kill``, ``fresh_on_clear``) where the official operator lacks them, ``durable`` where it is not
resumable, and
one XCom: a copy of the checkpoint record under its own key (``<external_id_key>_durable``), which the
failure callback reads when Airflow fails a killed task for good (durable_jobs/core/orphans.py).
"""

from __future__ import annotations

import inspect
import re

import pytest
from airflow.providers.amazon.aws.operators import athena as official_athena
from airflow.providers.databricks.operators import databricks as official
from airflow.providers.snowflake.operators import snowflake as official_snowflake

from durable_jobs.providers.amazon.aws.operators import athena as durable_aws_athena
from durable_jobs.providers.databricks.operators import databricks as durable
from durable_jobs.providers.snowflake.operators import snowflake as durable_snowflake

from . import driver

PAIRS = [
    (durable.DatabricksSubmitRunOperator, official.DatabricksSubmitRunOperator),
    (durable.DatabricksRunNowOperator, official.DatabricksRunNowOperator),
    (durable_aws_athena.AthenaOperator, official_athena.AthenaOperator),
    (durable_snowflake.SnowflakeSqlApiOperator, official_snowflake.SnowflakeSqlApiOperator),
    (durable_snowflake.SnowflakeNotebookOperator, official_snowflake.SnowflakeNotebookOperator),
    (durable.DatabricksNotebookOperator, official.DatabricksNotebookOperator),
    (durable.DatabricksTaskOperator, official.DatabricksTaskOperator),
    (durable.DatabricksSQLStatementsOperator, official.DatabricksSQLStatementsOperator),
]
OUR_EXTRA_ARGS = {"cancel_on_kill", "fresh_on_clear"}


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=lambda c: c.__name__)
def test_constructor_signature_is_the_official_one_plus_our_two_arguments(ours, theirs):
    mine = inspect.signature(ours.__init__).parameters
    official_params = inspect.signature(theirs.__init__).parameters
    # `durable` too where the official operator lacks it (it is not resumable upstream: Athena); the official
    # Snowflake operator has its own boolean `cancel_on_kill` (ours maps True -> "user", False -> "never")
    assert set(mine) - set(official_params) == (OUR_EXTRA_ARGS | {"durable"}) - set(official_params)
    for name, param in official_params.items():
        assert mine[name].kind == param.kind and mine[name].default == param.default, name


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("attr", ["template_fields", "template_ext", "template_fields_renderers", "ui_color"])
def test_class_attributes_match(ours, theirs, attr):
    assert getattr(ours, attr) == getattr(theirs, attr)


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=lambda c: c.__name__)
def test_extra_links_match(ours, theirs):
    assert [(type(link).__name__, link.name) for link in ours.operator_extra_links] == [
        (type(link).__name__, link.name) for link in theirs.operator_extra_links
    ]
    pairs = zip(ours.operator_extra_links, theirs.operator_extra_links, strict=True)
    assert all(isinstance(mine, type(link)) for mine, link in pairs)


def test_mixin_comes_first_in_the_bases():
    from durable_jobs.core.mixin import DurableJobMixin

    for ours, _ in PAIRS:
        mro = ours.__mro__
        assert mro.index(DurableJobMixin) < mro.index(official.BaseOperator)


def _ids(value, run_id):
    if isinstance(value, str):
        return re.sub(r"#job/\d+/run/\d+", "#job/<job>/run/<run>", value)
    if value == run_id:
        return "<run>"
    return "<job>" if isinstance(value, int) else value


def _outcome(dr):
    """The task's XComs, without our record's copy (checked here: the outcome as the record says it)."""
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id="run").all()
        pushed = {r.key: XComModel.deserialize_value(r) for r in rows}
    records = [k for k in pushed if k.endswith("_durable")]
    if "official" not in dr.dag_id:
        assert len(records) == 1 and pushed[records[0]]["v"] == 1, pushed
    for key in records:
        pushed.pop(key)
    return pushed


@pytest.mark.parametrize("mode", [{}, {"deferrable": True}, {"wait_for_termination": False}], ids=str)
def test_same_xcoms_return_value_and_link_url_as_the_official_operator(databricks_conn_env, rest_api, mode):
    dags = driver.load("parity_dags")
    results = {}
    for flavour in ("official", "durable"):
        dag = dags.DAGS[(flavour, str(sorted(mode.items())))]
        dr = driver.run(dag)
        assert driver.task_result(dr, "run").state == "success"
        pushed = _outcome(dr)
        run_id = pushed["run_id"]
        links = rest_api.get(
            f"/api/v2/dags/{dr.dag_id}/dagRuns/{dr.run_id}/taskInstances/run/links"
        ).json()["extra_links"]
        # Both flavours run on one emulator, so ids differ; everything else must be identical.
        normalised = {k: _ids(v, run_id) for k, v in pushed.items()}
        results[flavour] = (normalised, {k: _ids(v, run_id) for k, v in links.items()})
    assert results["durable"] == results["official"]
    assert results["official"][1] == {"See Databricks Job Run": results["official"][0]["run_page_url"]}


def _athena_ids(value, query_id):
    if isinstance(value, dict):
        return {k: _athena_ids(v, query_id) for k, v in value.items()}
    if isinstance(value, str):
        return value.replace(query_id, "<query>")
    return value


@pytest.mark.parametrize("mode", [{}, {"deferrable": True}], ids=str)
def test_athena_same_xcoms_return_value_and_link_url_as_the_official_operator(aws, rest_api, mode):
    dags = driver.load("parity_dags")
    results = {}
    for flavour in ("official", "durable"):
        dag = dags.ATHENA_DAGS[(flavour, str(sorted(mode.items())))]
        dr = driver.run(dag)
        assert driver.task_result(dr, "run").state == "success"
        pushed = _outcome(dr)
        query_id = pushed["return_value"]
        links = rest_api.get(
            f"/api/v2/dags/{dr.dag_id}/dagRuns/{dr.run_id}/taskInstances/run/links"
        ).json()["extra_links"]
        results[flavour] = (_athena_ids(pushed, query_id), _athena_ids(links, query_id))
    assert results["durable"] == results["official"]
    assert set(results["official"][0]) == {"return_value", "_athena_query_results", "_link_AthenaQueryResultsLink"}
    assert results["official"][1] == {
        "Query Results": "https://console.aws.amazon.com/athena/home?region=us-east-1#/query-editor/history/<query>"
    }
    queries = aws.athena_queries()
    assert len(queries) == 2 and queries[0]["QueryExecutionContext"] == queries[1]["QueryExecutionContext"]
    assert queries[0]["Query"] == queries[1]["Query"]


def _handles(value, handles):
    if isinstance(value, list):
        return [_handles(v, handles) for v in value]
    return f"<handle {handles.index(value)}>" if value in handles else value


@pytest.mark.parametrize("mode", [{}, {"deferrable": True}], ids=str)
def test_snowflake_same_xcoms_and_return_value_as_the_official_operators(snowflake_emulator, mode):
    dags = driver.load("parity_dags")
    results = {}
    for flavour in ("official", "durable"):
        dr = driver.run(dags.SNOWFLAKE_DAGS[(flavour, str(sorted(mode.items())))])
        outcome = {}
        for task_id in ("run", "notebook"):
            assert driver.task_result(dr, task_id).state == "success"
            pushed = _task_outcome(dr, task_id)
            outcome[task_id] = {k: _handles(v, pushed["query_ids"]) for k, v in pushed.items()}
        results[flavour] = outcome
    assert results["durable"] == results["official"]
    assert results["official"]["run"] == {"query_ids": ["<handle 0>"]}  # no return_value: both return None
    statements = sorted(s["statement"] for s in snowflake_emulator.ledger()["submits"])
    assert len(statements) == 4 and statements[0] == statements[1] and statements[2] == statements[3]


def _task_outcome(dr, task_id):
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        pushed = {r.key: XComModel.deserialize_value(r) for r in rows}
    records = [k for k in pushed if k.endswith("_durable")]
    assert len(records) == (0 if "official" in dr.dag_id else 1), pushed
    for key in records:
        pushed.pop(key)
    return pushed

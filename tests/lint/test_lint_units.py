"""Focused cases for the analysis pieces the corpus exercises only in passing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from durable_jobs.lint import lint_source
from durable_jobs.lint.engine import is_test_path
from durable_jobs.lint.version import has_state_store, parse_version
from tests.lint.helpers import pairs


def lint(source: str) -> set[tuple[str, int]]:
    return pairs(lint_source(textwrap.dedent(source).lstrip("\n"), "dag.py"))


SPLIT_HEAD = """
from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, cross_downstream

with DAG("d"):
    add = EmrAddStepsOperator(task_id="add", job_flow_id="j-1", steps=[])
    watch = EmrStepSensor(task_id="watch", job_flow_id="j-1",
                          step_id="{{ task_instance.xcom_pull(task_ids='add')[0] }}")
    done = EmptyOperator(task_id="done")
"""


@pytest.mark.parametrize(("wiring", "expected"), [
    ("watch << add\n    done << add", {("DJ051", 7), ("DJ052", 12)}),
    ("add.set_downstream(watch)\n    add.set_downstream(done)", {("DJ051", 7), ("DJ052", 12)}),
    ("cross_downstream([add], [watch, done])", {("DJ051", 7), ("DJ052", 11)}),
    ("add >> watch >> done", {("DJ051", 7)}),
])
def test_dependency_forms(wiring: str, expected: set[tuple[str, int]]) -> None:
    source = textwrap.dedent(SPLIT_HEAD).lstrip("\n") + "    " + wiring + "\n"
    assert pairs(lint_source(source, "dag.py")) == expected


def test_emr_add_steps_waiting_is_not_a_split() -> None:
    source = textwrap.dedent(SPLIT_HEAD).lstrip("\n").replace(
        'steps=[])', 'steps=[], wait_for_completion=True)') + "    add >> watch >> done\n"
    assert pairs(lint_source(source, "dag.py")) == set()


def test_parse_error_is_reported_not_raised() -> None:
    assert lint("x = 1\ndef broken(:\n    pass\n") == {("DJ000", 2)}


def test_async_store_methods_and_compat_mixin_import() -> None:
    assert lint("""
        from airflow.providers.common.compat.sdk import BaseOperator, ResumableJobMixin
        from airflow.sdk import task

        @task
        async def pages(task_state_store=None):
            await task_state_store.aset("page", None)

        class Op(BaseOperator, ResumableJobMixin):
            external_id_key = "op_job_id"
            def execute(self, context):
                return self.execute_resumable(context)
    """) == {("DJ081", 6), ("DJ074", 8)}


def test_calling_another_task_does_not_pull_its_body_in() -> None:
    assert lint("""
        from airflow.sdk import Variable, dag, task

        @dag()
        def d():
            @task
            def writer():
                Variable.set("cursor", 1)

            @task
            def reader():
                print(Variable.get("cursor"), writer)

            writer() >> reader()
        d()
    """) == {("DJ011", 7)}


def test_deferrable_wait_for_completion_variant_and_livy_default() -> None:
    assert lint("""
        from airflow.providers.apache.livy.operators.livy import LivyOperator
        from airflow.providers.amazon.aws.operators.batch import BatchOperator
        from airflow.providers.standard.sensors.python import PythonSensor
        from airflow.sdk import DAG

        with DAG("d"):
            batch = BatchOperator(task_id="b", job_name="n", job_queue="q", job_definition="d",
                                  deferrable=True, wait_for_completion=False)
            livy = LivyOperator(task_id="livy", file="app.py")
            check = PythonSensor(task_id="check", python_callable=len, op_args=[livy.output])
            batch >> livy >> check
    """) == {("DJ061", 8), ("DJ051", 9)}


@pytest.mark.parametrize(("rel", "expected"), [
    ("dags/etl.py", False), ("tests/dags/etl.py", True), ("test_etl.py", True),
    ("etl_test.py", True), ("conftest.py", True), ("dags/testing_utils.py", False),
])
def test_is_test_path(rel: str, expected: bool) -> None:
    assert is_test_path(Path(rel)) is expected


@pytest.mark.parametrize(("text", "version", "modern"), [
    ("3.3.2", (3, 3), True), ("3.4.0rc1", (3, 4), True), ("2.11", (2, 11), False),
    ("3", (3, 0), False), ("3.2.1", (3, 2), False),
])
def test_version_parsing(text: str, version: tuple[int, int], modern: bool) -> None:
    assert parse_version(text) == version
    assert has_state_store(version) is modern

"""Every durable operator that imports on this Airflow runs in a compat DAG, synchronously and deferred."""

from __future__ import annotations

import importlib
import pkgutil

import compat_dags
import pytest

import durable_jobs.providers as providers_pkg
from durable_jobs.core.mixin import DurableJobMixin


def _operator_modules() -> tuple[list[type], list[str]]:
    """(durable operator classes, modules skipped because their vendor's provider is not installed)."""
    classes, skipped = [], []
    for info in pkgutil.walk_packages(providers_pkg.__path__, prefix=f"{providers_pkg.__name__}.",
                                      onerror=lambda name: None):
        name = info.name  # durable_jobs.providers.google.cloud.operators.bigquery
        if info.ispkg or ".operators." not in name:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if (err.name or "").startswith("airflow.providers."):
                skipped.append(f"{name} (needs {err.name})")
                continue
            raise
        classes += [
            obj for attr, obj in vars(module).items()
            if isinstance(obj, type) and issubclass(obj, DurableJobMixin) and obj.__module__ == name
            and not attr.startswith("_") and hasattr(obj, "template_fields")
        ]
    return classes, skipped


def _compat_dag_modules() -> list:
    """compat_dags, plus each vendor's compat DAG module whose provider is installed here."""
    import importlib

    modules = [compat_dags]
    for name in ("compat_aws_dags", "compat_snowflake_dags", "compat_bigquery_dags", "compat_dataproc_dags",
                 "compat_sfn_dags", "compat_ecs_dags", "compat_cloud_batch_dags", "compat_cloud_run_dags",
                 "compat_redshift_data_dags", "compat_emr_containers_dags",
                 "compat_emr_steps_dags", "compat_databricks_sql_dags", "compat_sagemaker_dags"):
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as err:
            if not (err.name or "").startswith("airflow.providers."):
                raise
    return modules


def _compat_tasks() -> list:
    return [task for module in _compat_dag_modules() for dag in vars(module).values()
            if hasattr(dag, "task_dict") for task in dag.tasks]


def test_every_operator_has_a_sync_and_a_deferrable_compat_dag():
    classes, _ = _operator_modules()
    assert classes, "no durable operator imports on this Airflow"
    tasks = _compat_tasks()
    for cls in classes:
        modes = {bool(getattr(t, "deferrable", False)) for t in tasks if isinstance(t, cls)}
        assert modes == {False, True}, f"{cls.__module__}.{cls.__qualname__} needs sync and deferrable compat DAGs"


def test_operator_modules_whose_provider_is_missing_here():
    _, skipped = _operator_modules()
    if skipped:
        pytest.skip("not covered by this compat venv (add the extra to COMPAT_EXTRAS): " + ", ".join(skipped))

"""``clear_db_*`` helpers (devel-common's names): empty the tables a test's DAGs, runs and bundles live in."""

from __future__ import annotations


def _delete(*models: type) -> None:
    from airflow.utils.session import create_session
    from sqlalchemy import delete

    with create_session() as session:
        for model in models:
            session.execute(delete(model))


def clear_db_runs() -> None:
    """Task instances, their XComs and the DAG runs."""
    from airflow.models import DagRun, TaskInstance
    from airflow.models.xcom import XComModel

    _delete(XComModel, TaskInstance, DagRun)


def clear_db_xcom() -> None:
    from airflow.models.xcom import XComModel

    _delete(XComModel)


def clear_db_dags() -> None:
    """The DAG rows, their serialized forms and versions (runs first: they refer to the versions)."""
    from airflow.models import DagModel
    from airflow.models.dag_version import DagVersion
    from airflow.models.serialized_dag import SerializedDagModel

    clear_db_runs()
    _delete(SerializedDagModel, DagVersion, DagModel)


def clear_db_dag_bundles() -> None:
    from airflow.models.dagbundle import DagBundleModel

    clear_db_dags()
    _delete(DagBundleModel)


__all__ = ["clear_db_dag_bundles", "clear_db_dags", "clear_db_runs", "clear_db_xcom"]

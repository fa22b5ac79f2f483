"""The fixtures the selected official tests ask for, for Airflow 3.3 (the providers' ``tests/conftest.py``
loads this module as ``tests_common.pytest_plugin``).

Set up before Airflow is imported: a private ``AIRFLOW_HOME`` with a SQLite metadata database, migrated
with ``airflow db migrate`` the first time a test needs the database (``session``, ``db_test`` ...).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

_HOME = Path(tempfile.mkdtemp(prefix="official-tests-airflow-"))
os.environ["AIRFLOW_HOME"] = str(_HOME)
os.environ["AIRFLOW__CORE__UNIT_TEST_MODE"] = "True"
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(_HOME / "dags")
os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = f"sqlite:///{_HOME / 'airflow.db'}"
os.environ.setdefault("AIRFLOW__LOGGING__LOGGING_LEVEL", "INFO")

MARKERS = {
    "db_test": "the test uses the metadata database",
    "need_serialized_dag": "the test wants serialized DAGs (dag_maker)",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


@pytest.fixture(scope="session")
def _airflow_db() -> None:
    """The metadata database, migrated by Airflow's own CLI (once per session)."""
    subprocess.run(
        [str(Path(sys.executable).with_name("airflow")), "db", "migrate"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy(),
    )
    from airflow import settings

    settings.configure_orm()


@pytest.fixture(autouse=True)
def _db_for_db_tests(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("db_test") is not None:
        request.getfixturevalue("_airflow_db")


@pytest.fixture
def session(_airflow_db: None) -> Iterator[Any]:
    from airflow.utils.session import create_session

    with create_session() as session:
        yield session
        session.rollback()


def _clear_dags_runs_bundles() -> None:
    from airflow.models import DagModel, DagRun, TaskInstance
    from airflow.models.dag_version import DagVersion
    from airflow.models.dagbundle import DagBundleModel
    from airflow.models.serialized_dag import SerializedDagModel
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import delete

    with create_session() as session:
        for model in (XComModel, TaskInstance, DagRun, SerializedDagModel, DagVersion, DagModel, DagBundleModel):
            session.execute(delete(model))


@pytest.fixture
def clean_dags_dagruns_and_dagbundles(_airflow_db: None) -> Iterator[None]:
    """No DAGs, runs or bundles before the test, and none left after it."""
    _clear_dags_runs_bundles()
    yield
    _clear_dags_runs_bundles()


@pytest.fixture
def testing_dag_bundle(_airflow_db: None) -> None:
    """The ``testing`` DAG bundle row that ``sync_dag_to_db`` writes DAGs under."""
    from airflow.models.dagbundle import DagBundleModel
    from airflow.utils.session import create_session
    from sqlalchemy import func, select

    with create_session() as session:
        if not session.scalar(select(func.count()).where(DagBundleModel.name == "testing")):
            session.add(DagBundleModel(name="testing"))


@pytest.fixture
def create_task_instance_of_operator(
    request: pytest.FixtureRequest, _airflow_db: None
) -> Iterator[Callable[..., Any]]:
    """``create(OperatorClass, dag_id=..., **operator_kwargs)`` -> the task instance of a new manual DAG run.

    The DAG is written to the database as the dag processor writes it, the run is created by Airflow's
    scheduler-side ``create_dagrun``; the task instance returned is the ORM object, with
    ``ti.render_templates()`` rendering the SDK task's template fields in the runner's context.
    """
    from airflow.sdk import DAG, timezone
    from airflow.utils.state import DagRunState
    from airflow.utils.types import DagRunTriggeredByType, DagRunType

    from tests_common.test_utils.dag import sync_dag_to_db
    from tests_common.test_utils.taskinstance import TaskInstanceWrapper

    created: list[str] = []

    def create(operator_class: type, *, dag_id: str, logical_date: Any = None, session: Any = None,
               **operator_kwargs: Any) -> Any:
        from airflow.utils.session import create_session

        start = getattr(request.module, "DEFAULT_DATE", None) or timezone.datetime(2016, 1, 1)
        with DAG(dag_id, schedule=timedelta(days=1), start_date=start) as dag:
            task = operator_class(**operator_kwargs)
        created.append(dag_id)
        when = timezone.coerce_datetime(logical_date or start)
        with create_session() as own:
            db = session or own
            scheduler_dag = sync_dag_to_db(dag, bundle_name="dag_maker", session=db)
            run = scheduler_dag.create_dagrun(
                run_id="test", logical_date=when,
                data_interval=scheduler_dag.timetable.infer_manual_data_interval(run_after=when),
                run_after=when, run_type=DagRunType.MANUAL, triggered_by=DagRunTriggeredByType.TEST,
                state=DagRunState.RUNNING, start_date=start, session=db,
            )
            (ti,) = run.task_instances
            db.flush()
        wrapper = TaskInstanceWrapper(ti, task)
        ti.__dict__["render_templates"] = wrapper.render_templates
        ti.__dict__["get_template_context"] = wrapper.get_template_context
        return ti

    yield create
    if created:
        _clear_dags_runs_bundles()


@pytest.fixture
def create_connection_without_db(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``create(connection)``: the connection, as an ``AIRFLOW_CONN_<ID>`` variable for this test (no DB row)."""

    def create(connection: Any, session: Any = None) -> None:
        monkeypatch.setenv(f"AIRFLOW_CONN_{connection.conn_id.upper()}", connection.as_json())

    return create

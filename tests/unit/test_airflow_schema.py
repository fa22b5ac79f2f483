"""The Airflow tables ``durable-jobs reconcile`` (and the Airflow 2 cancel check) query, on the installed Airflow
and in Airflow 3.4's shape.

A rename upstream (3.4.0's migration 0144 renamed ``task_state_store.map_index`` to ``region_index``) must fail
here, not in a user's ``reconcile``.
"""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Session

from durable_jobs.reconcile import map_index_of, same_task_instance

#: every column of Airflow's models that our code names, per model (the index column: either name)
STORE_COLUMNS = ("dag_id", "run_id", "task_id", "key", "value", "updated_at")
TI_COLUMNS = ("dag_id", "run_id", "task_id", "map_index", "state")


def test_the_columns_we_query_exist_on_the_installed_airflow():
    from airflow.models.task_state_store import TaskStateStoreModel
    from airflow.models.taskinstance import TaskInstance

    missing = [f"TaskStateStoreModel.{c}" for c in STORE_COLUMNS if not hasattr(TaskStateStoreModel, c)]
    missing += [f"TaskInstance.{c}" for c in TI_COLUMNS if not hasattr(TaskInstance, c)]
    if not hasattr(TaskStateStoreModel, "map_index") and not hasattr(TaskStateStoreModel, "region_index"):
        missing.append("TaskStateStoreModel.map_index (3.3) or .region_index (3.4)")
    assert not missing, f"Airflow renamed or dropped columns durable-jobs queries: {missing}"


def test_the_join_compiles_against_the_installed_models():
    from airflow.models.task_state_store import TaskStateStoreModel
    from airflow.models.taskinstance import TaskInstance

    sql = str(same_task_instance(TaskInstance, TaskStateStoreModel))
    index = "region_index" if hasattr(TaskStateStoreModel, "region_index") else "map_index"
    assert f"task_state_store.{index}" in sql and "task_instance.dag_id = task_state_store.dag_id" in sql


# Airflow 3.4.0b2's columns, as its models declare them (airflow/models/task_state_store.py and taskinstance.py:
# ``region_index`` Integer, server default -1; ``region_id`` a UUID, a sentinel by default; the task instance's
# ``map_index = synonym("region_index")``).
class _Base(DeclarativeBase):
    pass


SENTINEL = uuid.UUID(int=0)


class _Store34(_Base):
    __tablename__ = "task_state_store"
    id = sa.Column(sa.Integer, primary_key=True)
    dag_id = sa.Column(sa.String)
    run_id = sa.Column(sa.String)
    task_id = sa.Column(sa.String)
    region_index = sa.Column(sa.Integer, nullable=False, server_default="-1")
    region_id = sa.Column(sa.Uuid, nullable=False, default=SENTINEL)
    key = sa.Column(sa.String)
    value = sa.Column(sa.Text)


class _TI34(_Base):
    __tablename__ = "task_instance"
    id = sa.Column(sa.Integer, primary_key=True)
    dag_id = sa.Column(sa.String)
    run_id = sa.Column(sa.String)
    task_id = sa.Column(sa.String)
    region_index = sa.Column(sa.Integer, nullable=False, server_default="-1")
    map_index = sa.orm.synonym("region_index")
    region_id = sa.Column(sa.Uuid, nullable=False, default=SENTINEL)
    state = sa.Column(sa.String)


@pytest.fixture
def db34():
    engine = sa.create_engine("sqlite://")
    _Base.metadata.create_all(engine)
    with Session(engine) as session:
        yield session
    engine.dispose()


def test_on_airflow_3_4_a_record_joins_its_own_mapped_task_instance(db34):
    other_region = uuid.UUID(int=7)
    db34.add_all([
        _TI34(dag_id="d", run_id="r", task_id="t", region_index=0, state="running"),
        _TI34(dag_id="d", run_id="r", task_id="t", region_index=1, state="failed"),
        _TI34(dag_id="d", run_id="r", task_id="t", region_index=1, region_id=other_region, state="success"),
        _Store34(dag_id="d", run_id="r", task_id="t", region_index=1, key="run_id_durable", value="{}"),
    ])
    db34.commit()

    rows = db34.query(_Store34, _TI34.state).outerjoin(_TI34, same_task_instance(_TI34, _Store34)).all()

    assert [(map_index_of(row), state) for row, state in rows] == [(1, "failed")]

"""Drive one DAG run through Airflow's own machinery, a try at a time when a test needs it.

``dag.test()`` runs a DAG run to its end with Airflow's scheduling code (``DagRun.update_state``)
and its in-process task runner (tasks, retries and triggers for real, through the Execution
API and the metadata DB). Tests of clears and edited DAGs need to stop between tries and go on
with the *same* run id, so this module reuses those same pieces: ``start`` creates and serialises
the run as ``dag.test()`` does, ``drive`` runs the same loop with a stop condition, and ``clear``
calls Airflow's ``clear_task_instances``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from airflow import settings
from airflow.models.dagrun import DagRun, get_or_create_dagrun
from airflow.models.taskinstance import TaskInstance, clear_task_instances
from airflow.sdk import timezone
from airflow.sdk.definitions.dag import _run_task
from airflow.utils.state import DagRunState, TaskInstanceState
from airflow.utils.types import DagRunTriggeredByType, DagRunType

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

FINISHED = frozenset(
    {TaskInstanceState.SUCCESS, TaskInstanceState.FAILED, TaskInstanceState.SKIPPED,
     TaskInstanceState.UPSTREAM_FAILED, TaskInstanceState.REMOVED}
)


def load_module(name: str, folder: Path) -> ModuleType:
    """Import a DAG file by path under a unique module name (each call builds fresh DAG objects)."""
    path = folder / f"{name}.py"
    module_name = f"_dj_dags_{name}_{len(sys.modules)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load DAG file {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _session() -> Session:
    """A session of Airflow's ORM (configured when ``airflow`` is imported with a metadata DB)."""
    if settings.Session is None:
        raise RuntimeError("Airflow's ORM is not configured (airflow.settings.Session is None)")
    return settings.Session()


@dataclass
class TaskResult:
    state: str | None
    try_number: int
    max_tries: int


def task_result(dr: DagRun, task_id: str, map_index: int = -1) -> TaskResult:
    with _session() as session:
        ti = session.query(TaskInstance).filter_by(
            dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id, map_index=map_index
        ).one()
        return TaskResult(state=ti.state, try_number=ti.try_number, max_tries=ti.max_tries)


def start(dag) -> DagRun:
    """Create the run as ``dag.test()`` does (serialised DAG, MANUAL run, fresh task instances)."""
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.dagbag import BundleDagBag, sync_bag_to_db
    from airflow.serialization.serialized_objects import DagSerialization

    session = _session()
    manager = DagBundlesManager()
    manager.sync_bundles_to_db(session=session)
    session.commit()
    for bundle in manager.get_all_dag_bundles():
        if not bundle.is_initialized:
            bundle.initialize()
        bag = BundleDagBag(dag_folder=bundle.path, bundle_path=bundle.path, bundle_name=bundle.name)
        sync_bag_to_db(bag, bundle.name, bundle.version)
    scheduler_dag = DagSerialization.deserialize_dag(DagSerialization.serialize_dag(dag))
    now = timezone.utcnow()
    dr = get_or_create_dagrun(
        dag=scheduler_dag, run_id=DagRun.generate_run_id(run_type=DagRunType.MANUAL, logical_date=now,
                                                           run_after=now),
        logical_date=now, data_interval=None, run_after=now, conf=None, start_date=now,
        triggered_by=DagRunTriggeredByType.TEST, triggering_user_name="durable-jobs-tests", session=session,
    )
    session.commit()
    return _reload(session, dr.dag_id, dr.run_id)


def drive(dag, dr: DagRun, *, max_tries: int | None = None, stall_seconds: float = 60) -> DagRun:
    """Run ``dr`` with ``dag``'s operators until it ends, or until ``max_tries`` task tries have run.

    Passing a different ``dag`` object (same dag_id) between calls is how a test edits the DAG
    between two tries of the same run.
    """
    from airflow.serialization.serialized_objects import DagSerialization

    session = _session()
    dr = session.query(DagRun).filter_by(dag_id=dr.dag_id, run_id=dr.run_id).one()  # the DB's view, not ours
    dr.dag = DagSerialization.deserialize_dag(DagSerialization.serialize_dag(dag))
    ran = 0
    last_progress = time.monotonic()
    while dr.state == DagRunState.RUNNING:
        session.expire_all()
        if max_tries is not None and ran >= max_tries:
            break
        schedulable, _ = dr.update_state(session=session)
        for ti in schedulable:
            if ti.state != TaskInstanceState.UP_FOR_RESCHEDULE:
                ti.try_number += 1
            ti.state = TaskInstanceState.SCHEDULED
            ti.scheduled_dttm = timezone.utcnow()
        session.commit()
        scheduled = [t for t in dr.get_task_instances(session=session) if t.state == TaskInstanceState.SCHEDULED]
        if not scheduled:
            unfinished = [t for t in dr.get_task_instances(session=session) if t.state not in FINISHED]
            if not unfinished:
                dr.update_state(session=session)
                session.commit()
                continue
            if max_tries is not None:
                break
            # Waiting for a reschedule or retry date, as dag.test() does; give up when nothing moves.
            if time.monotonic() - last_progress > stall_seconds:
                raise RuntimeError(f"run stuck with {[(t.task_id, t.state) for t in unfinished]}")
            time.sleep(0.1)
            continue
        last_progress = time.monotonic()
        for ti in scheduled:
            if max_tries is not None and ran >= max_tries:
                break
            try:
                _run_task(ti=ti, task=dag.task_dict[ti.task_id], run_triggerer=True)
            except Exception:  # the task's own failure: Airflow has recorded it on the TI
                pass
            ran += 1
    return _reload(session, dr.dag_id, dr.run_id)


def _reload(session, dag_id: str, run_id: str) -> DagRun:
    session.expire_all()
    fresh = session.query(DagRun).filter_by(dag_id=dag_id, run_id=run_id).one()
    session.expunge(fresh)
    session.close()
    return fresh


def clear(dr: DagRun, task_ids: list[str]) -> None:
    """A user's clear of ``task_ids`` in this run, through Airflow's ``clear_task_instances``."""
    session = _session()
    tis = session.query(TaskInstance).filter(
        TaskInstance.dag_id == dr.dag_id, TaskInstance.run_id == dr.run_id, TaskInstance.task_id.in_(task_ids)
    ).all()
    clear_task_instances(tis, session, dag_run_state=DagRunState.RUNNING)
    session.commit()
    session.close()


def run(dag) -> DagRun:
    """Start and drive to the end (like ``dag.test()``, on our own run id)."""
    return drive(dag, start(dag))

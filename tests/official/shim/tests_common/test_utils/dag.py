"""Write an SDK DAG to the metadata database as the dag processor would (bundle, DAG rows, serialized DAG)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow.utils.session import NEW_SESSION, provide_session

if TYPE_CHECKING:
    from airflow.sdk import DAG
    from airflow.serialization.definitions.dag import SerializedDAG
    from sqlalchemy.orm import Session


@provide_session
def sync_dag_to_db(
    dag: DAG, bundle_name: str = "testing", bundle_version: str | None = None, session: Session = NEW_SESSION
) -> SerializedDAG:
    """Store ``dag`` (DagModel, its serialized form and a DagVersion); return the scheduler's view of it."""
    from airflow.models.dagbundle import DagBundleModel
    from airflow.models.serialized_dag import SerializedDagModel
    from airflow.serialization.definitions.dag import SerializedDAG
    from airflow.serialization.serialized_objects import LazyDeserializedDAG

    session.merge(DagBundleModel(name=bundle_name))
    session.flush()
    SerializedDAG.bulk_write_to_db(bundle_name, bundle_version, [dag], session=session)
    SerializedDagModel.write_dag(LazyDeserializedDAG.from_dag(dag), bundle_name, bundle_version, session=session)
    session.flush()
    stored = SerializedDagModel.get(dag.dag_id, session=session)
    if stored is None:
        raise RuntimeError(f"serialized DAG {dag.dag_id!r} was not written")
    return stored.dag


__all__ = ["sync_dag_to_db"]

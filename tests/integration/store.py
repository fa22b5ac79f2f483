"""Read and write a task instance's ``task_state_store`` the way Airflow's API server does."""

from __future__ import annotations

import json
from typing import Any

from airflow._shared.state import TaskScope
from airflow.state import get_state_backend

RECORD_KEY = "databricks_run_id_durable"
BARE_KEY = "databricks_run_id"


def scope(dr, task_id: str = "run", map_index: int = -1) -> TaskScope:
    return TaskScope(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id, map_index=map_index)


def get(dr, key: str, task_id: str = "run", map_index: int = -1) -> Any:
    raw = get_state_backend().get(scope(dr, task_id, map_index), key)
    return None if raw is None else json.loads(raw)


def put(dr, key: str, value: Any, task_id: str = "run", map_index: int = -1) -> None:
    get_state_backend().set(scope(dr, task_id, map_index), key, json.dumps(value), expires_at=None)


def record(dr, task_id: str = "run", map_index: int = -1, key: str = RECORD_KEY) -> dict | None:
    return get(dr, key, task_id, map_index)

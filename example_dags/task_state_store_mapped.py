"""Mapped tasks: each map index has its own ``task_state_store`` namespace (seed section 3).

``clear()`` inside a task clears only its own index. To wipe the state of every index, call the
REST API from outside the mapped task: ``DELETE /api/v2/dags/{dag_id}/dagRuns/{run_id}/
taskInstances/{task_id}/state-store?all_map_indices=true`` (Airflow 3.3.2 has no CLI command).
"""

from __future__ import annotations

import pendulum
from airflow.sdk import dag, task

PARTITIONS = {0: 5, 1: 3, 2: 7, 3: 1}


@dag(
    dag_id="example_task_state_store_mapped",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    schedule=None,
    catchup=False,
    tags=["durable-jobs", "task_state_store"],
)
def partitions_with_cursors():
    @task(retries=2)
    def process_partition(partition_id: int, **context) -> int:
        task_state_store = context["task_state_store"]
        # Scoped to THIS index only: other indices have their own copy.
        cursor = task_state_store.get("cursor", default=0)
        for offset in range(cursor, PARTITIONS[partition_id]):
            task_state_store.set("cursor", offset + 1)
        return task_state_store.get("cursor", default=0)

    process_partition.expand(partition_id=list(PARTITIONS))


dag = partitions_with_cursors()

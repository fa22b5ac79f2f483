"""Clear the ``task_state_store`` of every map index of a task, through Airflow 3.3.2's REST API.

``task_state_store.clear()`` inside a mapped task clears only its own index, and Airflow 3.3.2
has no CLI command for this (``airflow state-store`` only has ``clean``, for expired rows). Call
this from outside the mapped task - a script, or a downstream task holding an API token. Run by
tests/docs/test_snippets.py against the example DAG ``task_state_store_mapped``.
"""

from __future__ import annotations


# [START clear_all_map_indices]
def clear_all_map_indices(client, dag_id: str, dag_run_id: str, task_id: str) -> None:
    """``client``: a requests.Session / httpx.Client whose base URL is the API server, with auth."""
    response = client.delete(
        f"/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/state-store",
        params={"all_map_indices": "true"},
    )
    response.raise_for_status()  # 204 No Content
# [END clear_all_map_indices]

"""Fixtures for the docs tests: the snippet DAGs in Airflow's DAGs folder, and the REST API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SNIPPETS = DOCS / "snippets"
#: snippet files that define a DAG (the others are plain modules, run with runpy)
SNIPPET_DAGS = ("task_state_store_api", "asset_state_store_injection", "durable_off", "migrating")


@pytest.fixture(scope="module")
def snippet_dags():
    """Link the snippet DAGs into the test DAGs folder (Airflow runs only DAGs it has parsed)."""
    folder = Path(os.environ["AIRFLOW__CORE__DAGS_FOLDER"])
    links = []
    for name in SNIPPET_DAGS:
        link = folder / f"docs_snippet_{name}.py"
        if not link.exists():
            link.symlink_to(SNIPPETS / f"{name}.py")
            links.append(link)
    yield SNIPPETS
    for link in links:
        link.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def rest_api():
    """Airflow's public REST API app, served through Starlette's TestClient, everyone an admin."""
    os.environ["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS"] = "True"
    from airflow.api_fastapi.app import create_app
    from fastapi.testclient import TestClient

    with TestClient(create_app("core")) as client:
        yield client

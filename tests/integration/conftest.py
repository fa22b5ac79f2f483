"""Fixtures for tests that go through Airflow's own REST API (in-process, no server needed)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def rest_api():
    """Airflow's public REST API app, served through Starlette's TestClient, everyone an admin."""
    import os

    os.environ["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS"] = "True"
    from airflow.api_fastapi.app import create_app
    from fastapi.testclient import TestClient

    with TestClient(create_app("core")) as client:
        yield client

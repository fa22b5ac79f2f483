"""pytest fixtures for the emulators.

Register with ``pytest_plugins = ["durable_jobs.emulators.pytest_plugin"]`` in a conftest.py.

* ``databricks_emulator`` — a fresh, started :class:`DatabricksEmulator` per test, stopped after it.
* ``databricks_conn_env`` — the same emulator, with ``AIRFLOW_CONN_DATABRICKS_DEFAULT`` pointing at
  it for the duration of the test (monkeypatch), so ``DatabricksHook()`` needs no arguments.
* :func:`use_databricks_emulator` — the helper behind it, for other conn ids.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from durable_jobs.emulators.databricks import DatabricksEmulator


def use_databricks_emulator(
    monkeypatch: pytest.MonkeyPatch, emulator: DatabricksEmulator, conn_id: str = "databricks_default"
) -> DatabricksEmulator:
    """Point Airflow connection ``conn_id`` at ``emulator`` until the test ends."""
    for name, value in emulator.airflow_conn_env(conn_id).items():
        monkeypatch.setenv(name, value)
    return emulator


@pytest.fixture
def databricks_emulator() -> Iterator[DatabricksEmulator]:
    emulator = DatabricksEmulator().start()
    try:
        yield emulator
    finally:
        emulator.stop()


@pytest.fixture
def databricks_conn_env(
    databricks_emulator: DatabricksEmulator, monkeypatch: pytest.MonkeyPatch
) -> DatabricksEmulator:
    return use_databricks_emulator(monkeypatch, databricks_emulator)

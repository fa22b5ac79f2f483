"""pytest fixtures that run your DAGs' vendor calls against the bundled emulators, on 127.0.0.1.

Install the extra (``pip install "airflow-durable-jobs[testing]"``) and register the plugin in
your ``conftest.py``::

    pytest_plugins = ["durable_jobs.testing.pytest_plugin"]

Databricks (the emulator is standard library only):

* ``databricks_emulator`` — a fresh, started :class:`~durable_jobs.testing.emulators.databricks.DatabricksEmulator`
  per test, stopped after it; its ledger counts every run submitted.
* ``databricks_conn_env`` — the same emulator, with ``AIRFLOW_CONN_DATABRICKS_DEFAULT`` pointing at
  it for the test (monkeypatch), so ``DatabricksHook()`` needs no arguments.
* :func:`use_databricks_emulator` — the helper behind it, for other connection ids.

AWS (moto in server mode behind our fault proxy; needs moto, from the ``[testing]`` extra):

* ``aws_server`` — one :class:`~durable_jobs.testing.emulators.aws_env.AwsTestEnv` per test module (moto + the
  fault proxy, a Batch queue and job definitions, an EMR Serverless application), with the
  Airflow connection ``aws_default`` pointing at the proxy; stopped at the module's end.
* ``aws`` — the same environment, reset for each test (fresh moto state, no faults), with the
  ``durable_emr_application_id`` Airflow Variable naming its EMR Serverless application and
  ``durable_emr_virtual_cluster_id`` naming its EMR on EKS virtual cluster (and ``durable_emr_cluster_id``
  its long-running EMR cluster, named ``durable-emr-cluster``). ``aws.hold_until_trigger_polls(op)`` keeps
  jobs RUNNING until the deferrable trigger has called ``op`` (proof the trigger polled, without racing the
  DAG's start-up); ``aws.hold_for(seconds)`` keeps them RUNNING for a while.

Snowflake (the SQL API v2 emulator is standard library only; routing needs the snowflake provider):

* ``snowflake_emulator`` — a fresh :class:`~durable_jobs.testing.emulators.snowflake.SnowflakeEmulator` per test,
  with every ``SnowflakeHook``'s REST URL routed to it (``SnowflakeEmulator.routed``) and
  ``AIRFLOW_CONN_SNOWFLAKE_DEFAULT`` pointing at it (a programmatic access token); its ledger counts every
  execution.

Every server listens on 127.0.0.1 only and is stopped by the fixture that started it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from durable_jobs.testing.emulators.databricks import DatabricksEmulator
from durable_jobs.testing.emulators.snowflake import SnowflakeEmulator

if TYPE_CHECKING:
    from durable_jobs.testing.emulators.aws_env import AwsTestEnv


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


@pytest.fixture(scope="module")
def aws_server() -> Iterator[AwsTestEnv]:
    from durable_jobs.testing.emulators.aws_env import AwsTestEnv

    env = AwsTestEnv().start()
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def aws(aws_server: AwsTestEnv, monkeypatch: pytest.MonkeyPatch) -> AwsTestEnv:
    aws_server.reset()
    monkeypatch.setenv("AIRFLOW_VAR_DURABLE_EMR_APPLICATION_ID", str(aws_server.application_id))
    monkeypatch.setenv("AIRFLOW_VAR_DURABLE_EMR_VIRTUAL_CLUSTER_ID", str(aws_server.virtual_cluster_id))
    monkeypatch.setenv("AIRFLOW_VAR_DURABLE_EMR_CLUSTER_ID", str(aws_server.emr_cluster_id))
    return aws_server


@pytest.fixture
def snowflake_emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[SnowflakeEmulator]:
    emulator = SnowflakeEmulator().start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()

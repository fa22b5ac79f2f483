"""pytest fixtures for the AWS tests: import them into a test module (``from ... import aws, aws_server``).

* ``aws_server`` — one :class:`~durable_jobs.emulators.aws_env.AwsTestEnv` (moto + fault proxy on
  127.0.0.1) per test module, stopped at the module's end.
* ``aws`` — the same environment, reset for each test (fresh moto state, no faults), with the
  ``durable_emr_application_id`` Airflow Variable pointing at its EMR Serverless application.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from durable_jobs.emulators.aws_env import AwsTestEnv


@pytest.fixture(scope="module")
def aws_server() -> Iterator[AwsTestEnv]:
    env = AwsTestEnv().start()
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def aws(aws_server: AwsTestEnv, monkeypatch: pytest.MonkeyPatch) -> AwsTestEnv:
    aws_server.reset()
    monkeypatch.setenv("AIRFLOW_VAR_DURABLE_EMR_APPLICATION_ID", aws_server.application_id)
    return aws_server

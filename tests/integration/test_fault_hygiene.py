"""What the user sees when vendors misbehave: no credential anywhere, and small logs.

Airflow runs the DAGs (sync and deferrable, succeeding and failing under injected faults) against the
Databricks emulator and moto behind the fault proxy, with connections whose secrets are unmistakable.
Then every place a secret could surface is read back: everything the runs logged, the XComs, the
trigger rows and the resume payloads (``next_kwargs``) in Airflow's database, and the errors.
"""

from __future__ import annotations

import json
import logging
import uuid

import pytest

from durable_jobs.testing.emulators.databricks import DatabricksEmulator

from . import driver

DBX_TOKEN = f"dapiS3CR3T{uuid.uuid4().hex}"
AWS_KEY_ID = "AKIAS3CR3TKEYID12345"
AWS_SECRET = f"s3cr3t/{uuid.uuid4().hex}+KEY"
#: The access key *id* is not among them: botocore's DEBUG log prints it in every SigV4 header (AWS calls
#: it an identifier); the secret key signs and never travels.
SECRETS = (DBX_TOKEN, AWS_SECRET)


@pytest.fixture
def emulator(monkeypatch):
    emu = DatabricksEmulator(token=DBX_TOKEN).start()
    try:
        emu.configure(pending_seconds=0.1, running_seconds=1.0, terminating_seconds=0.05)
        for name, value in emu.airflow_conn_env("dbx_hygiene").items():
            monkeypatch.setenv(name, value)
        yield emu
    finally:
        emu.stop()


@pytest.fixture
def aws_secret_conn(aws, monkeypatch):
    """aws_default, through the fault proxy, with secret-looking credentials (moto takes any)."""
    from durable_jobs.testing.emulators.aws_env import REGION

    conn = {"conn_type": "aws", "login": AWS_KEY_ID, "password": AWS_SECRET,
            "extra": {"region_name": REGION, "endpoint_url": aws.proxy.url}}
    monkeypatch.setenv("AIRFLOW_CONN_AWS_HYGIENE", json.dumps(conn))
    return aws


def airflow_rows(dag_ids: list[str]) -> str:
    """Every XCom, trigger row and resume payload of these DAGs' runs, as text."""
    from airflow import settings
    from airflow.models.taskinstance import TaskInstance
    from airflow.models.trigger import Trigger
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        xcoms = session.query(XComModel).filter(XComModel.dag_id.in_(dag_ids)).all()
        tis = session.query(TaskInstance).filter(TaskInstance.dag_id.in_(dag_ids)).all()
        triggers = session.query(Trigger).all()
        parts = [json.dumps(XComModel.deserialize_value(x), default=str) for x in xcoms]
        parts += [json.dumps(ti.next_kwargs, default=str) for ti in tis if ti.next_kwargs]
        parts += [f"{t.classpath} {json.dumps(t.kwargs, default=str)}" for t in triggers]
    assert parts, "nothing was stored: the check would prove nothing"
    return "\n".join(parts)


@pytest.fixture(scope="module")
def dags():
    return driver.load("hygiene_dags")


def run_all(dags) -> list:
    return [driver.run(dag) for dag in dags]


def test_no_databricks_token_in_logs_xcoms_trigger_rows_or_errors(emulator, dags, monkeypatch, capfd, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "2")
    dags = [dags.hyg_dbx_sync, dags.hyg_dbx_deferrable, dags.hyg_dbx_auth, dags.hyg_dbx_outage_deferrable]
    runs = run_all(dags[:2])
    emulator.add_fault("jobs/runs/get", 403, count=1, skip=1)
    runs += run_all(dags[2:3])
    emulator.add_fault("jobs/runs/get", 503, count=-1, skip=1)
    runs += run_all(dags[3:])

    assert [driver.task_result(dr, "run").state for dr in runs] == ["success", "success", "failed", "failed"]
    seen = capfd.readouterr()
    text = "\n".join([seen.out, seen.err, caplog.text, airflow_rows([d.dag_id for d in dags])])
    assert "was refused (HTTP 403" in text and "kept failing for" in text  # the failures were reported
    for secret in SECRETS:
        assert secret not in text


def test_no_aws_credential_in_logs_xcoms_trigger_rows_or_errors(aws_secret_conn, dags, monkeypatch, capfd,
                                                                 caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "2")
    aws = aws_secret_conn
    dags = [dags.hyg_batch_sync, dags.hyg_batch_deferrable, dags.hyg_athena_auth]
    runs = run_all(dags[:2])
    aws.proxy.deny("athena:GetQueryExecution", "athena:GetQueryExecution")
    runs += run_all(dags[2:])

    assert [driver.task_result(dr, "run").state for dr in runs] == ["success", "success", "failed"]
    seen = capfd.readouterr()
    text = "\n".join([seen.out, seen.err, caplog.text, airflow_rows([d.dag_id for d in dags])])
    assert "was refused" in text and "aws_hygiene" in text
    for secret in SECRETS:
        assert secret not in text


def test_a_huge_request_is_not_repeated_by_failures(emulator, dags, monkeypatch, capfd, caplog):
    """A 5 MB parameter, a run that fails and a poll that gives up: the log stays small."""
    caplog.set_level(logging.INFO)
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "2")
    emulator.configure(outcomes=["FAILED"])
    failed = driver.run(dags.hyg_huge_fails)
    emulator.add_fault("jobs/runs/get", 503, count=-1, skip=1)
    outage = driver.run(dags.hyg_huge_outage)
    blob = [s for s in emulator.ledger()["submissions"]][0]
    assert len(json.dumps(blob)) > 5 * 1024 * 1024  # the 5 MB parameter did reach the vendor

    assert driver.task_result(failed, "run").state == driver.task_result(outage, "run").state == "failed"
    assert emulator.ledger()["runs_created"] == 2
    seen = capfd.readouterr()
    logged = len(seen.out) + len(seen.err) + len(caplog.text)
    assert "failed with terminal state" in caplog.text + seen.out + seen.err
    assert logged < 512 * 1024, f"{logged} characters logged for two failed tries"

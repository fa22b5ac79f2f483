"""A wrong setup fails the try at once before anything was submitted, and only then.

The operator runs its whole protocol (checkpoint, decision, submit) through the official Databricks hook
against the Databricks emulator on 127.0.0.1; the checkpoint lives in ``AirflowLikeStore`` (the
``task_state_store`` accessor's interface over a dict). A host under the reserved ``.invalid`` TLD does not
resolve; a 127.0.0.1 port bound and closed refuses. Once a submit may have reached the vendor, the same
errors ride ``poll_error_budget`` as any outage.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from airflow.exceptions import AirflowNotFoundException

from durable_jobs.core.checkpoint import STATUS_UNSENT, CheckpointRecord, fingerprint, new_nonce, parse_record
from durable_jobs.core.exceptions import JobSubmitError, VendorCallError, WrongSetupError
from durable_jobs.core.resend import submit_once
from durable_jobs.providers.databricks.operators import databricks
from tests.integration.test_stale_trigger_events import AirflowLikeStore

CONN = "wrong_setup_dbx"
TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]
BUDGET = 2.0


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def point_at(monkeypatch: pytest.MonkeyPatch, host: str, port: int, token: str = "t") -> None:
    conn = {"conn_type": "databricks", "host": host, "port": port, "schema": "http", "password": token,
            "extra": json.dumps({"timeout_seconds": 1.0})}
    monkeypatch.setenv(f"AIRFLOW_CONN_{CONN.upper()}", json.dumps(conn))


def operator() -> Any:
    return databricks.DatabricksSubmitRunOperator(
        task_id="wrong_setup", tasks=TASKS, databricks_conn_id=CONN, polling_period_seconds=0.1,
        databricks_retry_limit=1, databricks_retry_delay=0.05, retries=3,
    )


def context(store: AirflowLikeStore, try_number: int) -> dict[str, Any]:
    ti = SimpleNamespace(try_number=try_number, max_tries=3, xcom_push=lambda **kwargs: None)
    return {"ti": ti, "task_state_store": store}


def failing(call) -> tuple[BaseException, float]:
    started = time.monotonic()
    try:
        call()
    except Exception as err:  # noqa: BLE001 - the error is the subject
        return err, time.monotonic() - started
    raise AssertionError("the call did not fail")


@pytest.fixture(autouse=True)
def short_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", str(BUDGET))


@pytest.mark.parametrize("where", ["unresolvable", "refused"])
def test_a_wrong_host_fails_the_first_try_at_once_and_the_fixed_retry_submits_once(
        where, databricks_emulator, monkeypatch):
    host, port = ("nothere.invalid", 443) if where == "unresolvable" else ("127.0.0.1", closed_port())
    point_at(monkeypatch, host, port)
    store = AirflowLikeStore()
    op = operator()
    err, took = failing(lambda: op.execute(context(store, 1)))
    assert isinstance(err, WrongSetupError), err
    assert took < 5.0, took
    message = str(err)
    assert f"connection {CONN!r}" in message and f"{host}:{port}" in message and "Nothing was submitted" in message
    record = parse_record(store.get(op.checkpoint_key), key=op.checkpoint_key)
    assert record is not None and record.status == STATUS_UNSENT and record.id is None

    # the same wrong setup on the next try fails as fast: the unsent record needs no lookup
    err, took = failing(lambda: operator().execute(context(store, 2)))
    assert isinstance(err, WrongSetupError) and took < 5.0, (err, took)

    databricks_emulator.configure(pending_seconds=0.05, running_seconds=0.1, terminating_seconds=0.05)
    point_at(monkeypatch, databricks_emulator.host, databricks_emulator.port, databricks_emulator.token)
    operator().execute(context(store, 3))
    assert databricks_emulator.ledger()["runs_created"] == 1
    record = parse_record(store.get(op.checkpoint_key), key=op.checkpoint_key)
    assert record is not None and record.id is not None and record.status != STATUS_UNSENT


def test_a_connection_that_is_not_defined(monkeypatch):
    monkeypatch.delenv(f"AIRFLOW_CONN_{CONN.upper()}", raising=False)
    store = AirflowLikeStore()
    err, took = failing(lambda: operator().execute(context(store, 1)))
    assert isinstance(err, AirflowNotFoundException), err
    assert str(err).startswith(f"connection {CONN!r} is not defined: nothing was submitted"), err
    assert took < 5.0


def test_a_refused_vendor_after_an_intent_rides_the_budget(databricks_emulator, monkeypatch):
    """A record with an intent and no id: the submit may have reached Databricks before the crash. Only
    Databricks can say whether a run exists, so an unreachable Databricks is an outage, not a wrong setup."""
    op = operator()
    digest, fields = fingerprint(op._durable_raw_request)
    record = CheckpointRecord.start_epoch(request_fingerprint=digest, fields=fields, try_number=1, max_tries=3,
                                          retries=3, client=op.job_client.classpath())
    record.key = op.job_client.format_key(record.nonce or new_nonce())
    store = AirflowLikeStore()
    store.set(op.checkpoint_key, record.to_json())
    point_at(monkeypatch, "127.0.0.1", closed_port())
    err, took = failing(lambda: op.execute(context(store, 2)))
    assert isinstance(err, (VendorCallError, JobSubmitError)) and not isinstance(err, WrongSetupError), err
    assert "kept failing" in str(err) and took >= BUDGET, (err, took)


@pytest.fixture
def resets_then_refuses() -> Iterator[int]:
    """A server that reads one request and resets the connection, then stops listening: the first submit
    left (its reply was lost), every later connect is refused."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()
        listener.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    thread.join(timeout=5)
    listener.close()


def test_refused_after_a_lost_reply_rides_the_budget(resets_then_refuses, monkeypatch):
    point_at(monkeypatch, "127.0.0.1", resets_then_refuses)
    op = operator()
    client = op.job_client
    key = client.format_key(new_nonce())
    err, took = failing(lambda: submit_once(client, {"run_name": "x", "tasks": TASKS}, key, op.poll_policy(),
                                            log=op.log, first_contact=True))
    assert isinstance(err, JobSubmitError) and not isinstance(err, WrongSetupError), err
    assert took >= BUDGET, took


def test_a_wrong_setup_met_while_preparing_the_request_fails_at_once(monkeypatch):
    """Glue looks its job up before the submit (``get_or_create_glue_job``, as the official operator does): that
    call meets the refused port first, and nothing was submitted either. SDK retries are one attempt through the
    connection's ``config_kwargs``, as a user sets them."""
    from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator

    port = closed_port()
    extra = {"region_name": "us-east-1", "endpoint_url": f"http://127.0.0.1:{port}",
             "config_kwargs": {"retries": {"total_max_attempts": 1}, "connect_timeout": 1}}
    monkeypatch.setenv("AIRFLOW_CONN_WRONG_SETUP_AWS", json.dumps(
        {"conn_type": "aws", "login": "testing", "password": "testing", "extra": extra}))
    op = GlueJobOperator(task_id="wrong_setup", job_name="wrong-setup", aws_conn_id="wrong_setup_aws",
                         job_poll_interval=0.1, retries=3)
    store = AirflowLikeStore()
    err, took = failing(lambda: op.execute(context(store, 1)))
    assert isinstance(err, WrongSetupError), err
    assert f"127.0.0.1:{port}" in str(err) and "Nothing was submitted" in str(err) and took < 5.0, (err, took)
    record = parse_record(store.get(op.checkpoint_key), key=op.checkpoint_key)
    assert record is not None and record.status == STATUS_UNSENT

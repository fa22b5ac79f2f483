"""The Databricks JobClient through the real DatabricksHook against the emulator."""

from __future__ import annotations

import asyncio
import re

import pytest

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import load_client
from durable_jobs.core.exceptions import DurableJobConfigError, IdempotencyKeyBurnedError
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.databricks.clients.databricks import (
    LIFE_CYCLE_ACTIVE,
    LIFE_CYCLE_TERMINAL,
    MAX_TOKEN_LENGTH,
    RESULT_STATES,
    DatabricksJobClient,
    run_phase,
)

REQUEST = {"run_name": "unit", "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/p"}}]}


@pytest.fixture
def client(databricks_conn_env):
    return DatabricksJobClient(retry_limit=2, retry_delay=0.01)


@pytest.mark.parametrize(
    "user_token",
    [None, "", "nightly", "x" * 31, "y" * 32, "z" * 200, "tok with spaces {{ ds }}"],
)
def test_keys_fit_databricks_rules_and_keep_the_nonce(user_token):
    nonce = new_nonce()
    key = DatabricksJobClient().format_key(nonce, user_token)
    assert len(key) <= MAX_TOKEN_LENGTH
    assert key.endswith(nonce)
    if user_token and len(user_token) <= 31:
        assert key == f"{user_token}-{nonce}"


def test_a_long_user_token_is_shortened_deterministically():
    nonce = new_nonce()
    client = DatabricksJobClient()
    assert client.format_key(nonce, "z" * 200) == client.format_key(nonce, "z" * 200)
    assert client.format_key(nonce, "z" * 200) != client.format_key(nonce, "w" * 200)
    assert re.fullmatch(r"[0-9a-f]{31}-[0-9a-f]{32}", client.format_key(nonce, "z" * 200))


def test_same_key_returns_the_same_run(client, databricks_conn_env):
    key = client.format_key(new_nonce())
    first = client.submit(REQUEST, key)
    again = client.submit(REQUEST, key)
    assert first == again
    assert databricks_conn_env.ledger()["runs_created"] == 1
    assert client.status(first).phase is JobPhase.ACTIVE


def test_burned_key_is_reported_as_such(client, databricks_conn_env):
    key = client.format_key(new_nonce())
    run_id = client.submit(REQUEST, key)
    client.cancel(run_id)
    client.hook.delete_run(run_id)
    with pytest.raises(IdempotencyKeyBurnedError, match=key):
        client.submit(REQUEST, key)


@pytest.mark.parametrize("not_found_status", [404, 400])
def test_missing_runs_are_missing_not_errors(client, databricks_conn_env, not_found_status):
    databricks_conn_env.configure(not_found_status=not_found_status)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    databricks_conn_env.expire(run_id)
    assert client.status(run_id).phase is JobPhase.MISSING
    assert asyncio.run(_astatus(client, run_id)).phase is JobPhase.MISSING


async def _astatus(client, run_id):
    try:
        return await client.astatus(run_id)
    finally:
        await client.aclose()


def test_async_status_follows_the_run_to_success(client, databricks_conn_env):
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    databricks_conn_env.advance(60)
    status = asyncio.run(_astatus(client, run_id))
    assert (status.phase, status.state) == (JobPhase.SUCCEEDED, "TERMINATED:SUCCESS")


def test_serialize_round_trip_rebuilds_an_equivalent_client():
    client = DatabricksJobClient("dbx", mode="run-now", retry_limit=4, retry_delay=2.5, caller="X")
    again = load_client(client.classpath(), client.serialize())
    assert type(again) is DatabricksJobClient and again.serialize() == client.serialize()


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [({"mode": "runs"}, "mode"), ({"retry_limit": 0}, "databricks_retry_limit"),
     ({"retry_delay": -1}, "databricks_retry_delay")],
)
def test_bad_arguments_name_the_argument(kwargs, argument):
    with pytest.raises(DurableJobConfigError, match=argument):
        DatabricksJobClient(**kwargs)


def test_state_table_covers_every_documented_state():
    # Databricks Jobs API 2.2: RunLifeCycleState and RunResultState.
    documented_life = {"QUEUED", "PENDING", "RUNNING", "TERMINATING", "TERMINATED", "SKIPPED",
                       "INTERNAL_ERROR", "BLOCKED", "WAITING_FOR_RETRY"}
    documented_result = {"SUCCESS", "FAILED", "TIMEDOUT", "CANCELED", "MAXIMUM_CONCURRENT_RUNS_REACHED",
                         "EXCLUDED", "SUCCESS_WITH_FAILURES", "UPSTREAM_FAILED", "UPSTREAM_CANCELED", "DISABLED"}
    assert LIFE_CYCLE_ACTIVE | LIFE_CYCLE_TERMINAL == documented_life
    assert documented_result <= RESULT_STATES.all_states
    from airflow.providers.databricks.hooks.databricks import RunState

    assert set(RunState.RUN_LIFE_CYCLE_STATES) == documented_life  # the hook agrees


@pytest.mark.parametrize(
    ("life", "result", "phase"),
    [("RUNNING", None, JobPhase.ACTIVE), ("TERMINATED", "SUCCESS", JobPhase.SUCCEEDED),
     ("TERMINATED", "FAILED", JobPhase.FAILED), ("TERMINATED", "CANCELED", JobPhase.FAILED),
     ("INTERNAL_ERROR", "", JobPhase.FAILED), ("SKIPPED", "", JobPhase.FAILED)],
)
def test_run_phase(life, result, phase):
    assert run_phase(life, result) is phase


def test_unknown_life_cycle_state_is_watched_never_taken_as_an_end():
    assert run_phase("HIBERNATING", None) is JobPhase.UNKNOWN
    # result_state is Databricks' own signal that the run ended: only SUCCESS is success
    assert run_phase("HIBERNATING", "SUCCESS") is JobPhase.SUCCEEDED
    assert run_phase("TERMINATED", "MYSTERY") is JobPhase.FAILED


def test_missing_connection_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("AIRFLOW_CONN_NO_SUCH_CONN", raising=False)
    client = DatabricksJobClient("no_such_conn")
    with pytest.raises(Exception, match="no_such_conn"):
        client.status(1)

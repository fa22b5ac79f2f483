"""The SQL statements half of the Databricks emulator (docs/emulators/databricks.md, "SQL statements") and the
durable ``DatabricksSQLStatementsOperator``'s client, through the REAL official ``DatabricksHook`` over loopback
HTTP. Nothing of ours is patched; the emulator clock is frozen (``speed=0``) and stepped with ``advance``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tenacity import stop_after_attempt, wait_fixed

from durable_jobs.core.exceptions import JobSubmitError
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.databricks.clients.databricks_sql import DatabricksStatementClient
from durable_jobs.providers.databricks.operators.databricks import DatabricksSQLStatementsOperator

BODY = {"statement": "SELECT 1", "warehouse_id": "wh-1", "catalog": None, "schema": None, "parameters": None,
        "wait_timeout": "0s"}


@pytest.fixture
def emu(databricks_conn_env):
    databricks_conn_env.configure(speed=0, pending_seconds=1, running_seconds=2)
    yield databricks_conn_env
    assert databricks_conn_env.server_errors == []


@pytest.fixture
def hook(emu) -> Any:
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    return DatabricksHook(retry_limit=2, retry_delay=0.01,
                          retry_args={"stop": stop_after_attempt(2), "wait": wait_fixed(0.01)})


@pytest.fixture
def client(emu) -> DatabricksStatementClient:
    return DatabricksStatementClient(retry_limit=2, retry_delay=0.01)


# -- the emulator's contract -----------------------------------------------------------------------
def test_statement_life_cycle_on_the_emulator_clock(emu, hook):
    statement_id = hook.post_sql_statement(dict(BODY))
    assert hook.get_sql_statement_state(statement_id).state == "PENDING"
    emu.advance(1.5)
    assert hook.get_sql_statement_state(statement_id).state == "RUNNING"
    emu.advance(2)
    assert hook.get_sql_statement_state(statement_id).is_successful
    ledger = emu.ledger()
    assert ledger["statements_created"] == 1 and ledger["statement_submissions"][0]["payload"] == BODY
    assert ledger["calls"] == {"sql/statements": 1, "sql/statements/get": 3}


def test_every_post_is_a_new_statement_there_is_no_idempotency_field(emu, hook):
    first, second = hook.post_sql_statement(dict(BODY)), hook.post_sql_statement(dict(BODY))
    assert first != second and emu.ledger()["statements_created"] == 2


def test_planned_failure_carries_an_error_code_and_message(emu, hook):
    emu.configure(statement_outcomes=["FAILED"])
    statement_id = hook.post_sql_statement(dict(BODY))
    emu.advance(5)
    state = hook.get_sql_statement_state(statement_id)
    assert (state.state, state.error_code) == ("FAILED", "BAD_REQUEST") and "planned" in state.error_message


def test_cancel_freezes_an_active_statement_at_canceled_and_is_recorded(emu, hook):
    statement_id = hook.post_sql_statement(dict(BODY))
    hook.cancel_sql_statement(statement_id)
    emu.advance(10)
    assert hook.get_sql_statement_state(statement_id).state == "CANCELED"
    hook.cancel_sql_statement(statement_id)  # a finished statement: accepted, nothing changes
    assert [c["was_active"] for c in emu.ledger()["statement_cancels"]] == [True, False]


@pytest.mark.parametrize("body,field", [
    ({"warehouse_id": "wh"}, "statement"), ({"statement": "SELECT 1"}, "warehouse_id"),
    ({**BODY, "wait_timeout": "3s"}, "wait_timeout"), ({**BODY, "wait_timeout": "51s"}, "wait_timeout"),
])
def test_invalid_requests_are_refused_with_400(emu, hook, body, field):
    with pytest.raises(Exception) as excinfo:
        hook._do_api_call(("POST", "2.0/sql/statements"), body)
    assert excinfo.value.http_status_code == 400 and field in str(excinfo.value)
    assert emu.ledger()["statements_created"] == 0


def test_unknown_statement_is_404_and_statements_live_under_2_0_only(emu, hook):
    with pytest.raises(Exception) as excinfo:
        hook.get_sql_statement_state("nope")
    assert excinfo.value.http_status_code == 404
    with pytest.raises(Exception) as excinfo:
        hook._do_api_call(("POST", "2.1/sql/statements"), dict(BODY))
    assert excinfo.value.http_status_code == 404 and emu.ledger()["statements_created"] == 0


def test_unknown_planned_outcome_is_refused(emu):
    from durable_jobs.testing.emulators._http import ApiError

    with pytest.raises(ApiError, match="statement outcome"):
        emu.configure(statement_outcomes=["DONE"])


# -- the client ------------------------------------------------------------------------------------
def test_client_reads_every_documented_state_and_a_vanished_statement(emu, client):
    statement_id = client.submit(dict(BODY), "key-ignored")
    assert client.status(statement_id).phase is JobPhase.ACTIVE
    emu.advance(5)
    assert client.status(statement_id).phase is JobPhase.SUCCEEDED

    async def read() -> JobStatus:
        try:
            return await client.astatus(statement_id)
        finally:
            await client.aclose()

    assert asyncio.run(read()).state == "SUCCEEDED"
    assert client.status("gone").phase is JobPhase.MISSING
    assert client.find("key-ignored") is None  # nothing to find a statement by
    assert "key-ignored" not in str(emu.ledger()["statement_submissions"][0]["payload"])  # the key is never sent


def test_state_the_table_does_not_list_is_unknown_not_an_end(emu, client):
    statement_id = client.submit(dict(BODY), "k")
    # the official SQLStatementState refuses the state; the client reads the reply once more, raw
    emu.add_fault("sql/statements/get", mode="rewrite", count=2, patch={"status": {"state": "HIBERNATING"}})
    status = client.status(statement_id)
    assert (status.phase, status.state) == (JobPhase.UNKNOWN, "HIBERNATING")
    assert emu.ledger()["calls"]["sql/statements/get"] == 2


def test_lost_reply_is_never_resent_inside_a_try(emu, client):
    """The hook would resend a 5xx POST (retry_limit=2): ours makes exactly one, and says the statement may run."""
    emu.add_fault("sql/statements", status=500, mode="lose_reply", count=1)
    with pytest.raises(JobSubmitError, match="may have started.*no idempotency field"):
        client.submit(dict(BODY), "k")
    assert emu.ledger()["calls"]["sql/statements"] == 1 and emu.ledger()["statements_created"] == 1


def test_refused_post_is_raised_as_the_hook_raised_it(emu, client):
    emu.add_fault("sql/statements", status=403, count=1)
    with pytest.raises(Exception) as excinfo:
        client.submit(dict(BODY), "k")
    assert not isinstance(excinfo.value, JobSubmitError) and excinfo.value.http_status_code == 403
    assert emu.ledger()["statements_created"] == 0


def test_official_trigger_event_is_read(client):
    """A task deferred by the official operator resumes with ours: its event's state is understood."""
    from airflow.providers.databricks.hooks.databricks import SQLStatementState

    event = {"statement_id": "s-1", "state": SQLStatementState("FAILED", "E1", "boom").to_json(), "error": {}}
    back = client.status_from_official_event(event)
    assert (back.phase, back.state, back.message, back.raw["error_code"]) == (JobPhase.FAILED, "FAILED", "boom", "E1")
    assert client.status_from_official_event({"state": "not json"}) is None
    assert client.official_event_fields("s-1", back, {}) == {}  # "state" is our event's own key: one-way


# -- the operator ----------------------------------------------------------------------------------
def op(**kwargs: Any) -> DatabricksSQLStatementsOperator:
    return DatabricksSQLStatementsOperator(task_id="t", statement="SELECT 1", warehouse_id="wh", **kwargs)


def test_failure_messages_are_the_official_ones():
    failed = JobStatus(JobPhase.FAILED, "FAILED", "boom", raw={"error_code": "E1", "error_message": "boom"})
    text = str(op().failure_error({}, "s", failed))
    assert text.startswith("t failed with terminal state: FAILED and with the error code E1 and error message boom")
    assert text.endswith("A retry runs the statement again.")
    text = str(op(deferrable=True).failure_error({}, "s", failed))
    assert text.startswith("SQL Statement execution failed with terminal state: {'state': 'FAILED'")
    assert "and with the error {'error_code': 'E1', 'error_message': 'boom'}" in text


def test_request_is_the_official_body_without_context_tags_when_there_is_no_context():
    request = op(catalog="c", schema="s", parameters=[{"name": "x", "value": "1"}],
                 query_tags={"team": "a", "drop": None}).prepare_request(None, fresh_key=True)  # type: ignore[arg-type]
    assert request == {"statement": "SELECT 1", "warehouse_id": "wh", "catalog": "c", "schema": "s",
                       "parameters": [{"name": "x", "value": "1"}], "wait_timeout": "0s",
                       "query_tags": [{"key": "team", "value": "a"}]}


def test_timeout_is_counted_in_polls_and_the_fingerprint_is_the_written_request():
    assert op(timeout=10, polling_period_seconds=2).max_polls() == 5
    assert op(timeout=1, polling_period_seconds=30).max_polls() == 1
    raw = op(catalog="c")._raw_request()
    assert raw["statement"] == "SELECT 1" and raw["catalog"] == "c" and "schema" not in raw


def test_result_chunk_after_success_only(emu, hook):
    statement_id = hook.post_sql_statement(dict(BODY))
    with pytest.raises(Exception) as excinfo:
        hook._do_api_call(("GET", f"2.0/sql/statements/{statement_id}/result/chunks/0"))
    assert excinfo.value.http_status_code == 400
    emu.advance(5)
    chunk = hook._do_api_call(("GET", f"2.0/sql/statements/{statement_id}/result/chunks/0"))
    assert chunk == {"chunk_index": 0, "row_offset": 0, "row_count": 0, "data_array": []}
    assert emu.ledger()["calls"]["sql/statements/result"] == 2


def test_closed_is_a_success_for_the_retry_as_the_reference_defines_it(emu, client):
    """"CLOSED: execution successful, and statement closed": a retry finding it must not run the SQL again."""
    emu.configure(statement_outcomes=["CLOSED"])
    statement_id = client.submit(dict(BODY), "k")
    emu.advance(5)
    assert client.status(statement_id).phase is JobPhase.SUCCEEDED


def test_removed_statement_answers_404(emu, hook, client):
    statement_id = hook.post_sql_statement(dict(BODY))
    emu.expire_statement(statement_id)
    with pytest.raises(Exception) as excinfo:
        hook.get_sql_statement_state(statement_id)
    assert excinfo.value.http_status_code == 404
    assert client.status(statement_id).phase is JobPhase.MISSING
    assert emu.ledger()["statements"][statement_id]["removed"]

"""The Snowflake client's rules, checked against the official hook and the SQL API's documented shapes.

Nothing of ours is patched: faults are real ``requests`` / ``aiohttp`` exceptions carrying real responses,
and the hook is the official class (our subclass adds only the requestId and the unlisted codes).
"""

from __future__ import annotations

import json
import uuid

import pytest
import requests

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import load_client
from durable_jobs.core.faults import FaultKind, UnreadableReplyError
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.snowflake.clients.snowflake_sql_api import (
    STATEMENT_STATES,
    SnowflakeSqlApiJobClient,
    keyed_hook_class,
    request_id,
)


def _http_error(status: int, body: str = "", headers: dict | None = None) -> requests.HTTPError:
    response = requests.Response()
    response.status_code = status
    response._content = body.encode()
    response.headers.update(headers or {})
    return requests.HTTPError(f"{status} error", response=response)


def test_the_state_table_is_what_the_official_hook_reports():
    """``_process_response``'s verdicts for the documented codes, and nothing else, are in the table."""
    from airflow.providers.snowflake.hooks.sql_api import SnowflakeSqlApiHook

    hook = SnowflakeSqlApiHook("snowflake_default")
    running = hook._process_response(202, {})["status"]
    success = hook._process_response(200, {"message": "ok", "statementHandle": "h"})["status"]
    error = hook._process_response(422, {"message": "boom"})["status"]
    assert (running, success, error) == ("running", "success", "error")
    assert STATEMENT_STATES.active == {running}
    assert STATEMENT_STATES.succeeded == {success}
    assert STATEMENT_STATES.failed == {error, "timeout"}


def test_an_undocumented_code_is_a_state_the_table_does_not_list():
    hook = keyed_hook_class()("snowflake_default")
    reply = hook._process_response(203, {"message": "hibernating"})
    assert reply == {"status": "HTTP 203", "message": "hibernating"}
    assert SnowflakeSqlApiJobClient().phase_of(reply["status"]) is JobPhase.UNKNOWN
    assert hook._process_response(422, {"message": "boom", "code": "1"})["status"] == "error"  # upstream's


def test_the_request_id_is_the_nonce_as_a_uuid():
    nonce = new_nonce()
    key = SnowflakeSqlApiJobClient().format_key(nonce)
    assert key == str(uuid.UUID(hex=nonce)) and uuid.UUID(key).hex == nonce
    with_user = request_id(nonce, "nightly")
    assert uuid.UUID(with_user).version == 5 and with_user == request_id(nonce, "nightly") != key


@pytest.mark.parametrize(("err", "kind", "retry_after"), [
    (_http_error(429, "{}", {"Retry-After": "7"}), FaultKind.THROTTLED, 7.0),
    (_http_error(503), FaultKind.TRANSIENT, None),
    (_http_error(504), FaultKind.TRANSIENT, None),
    (_http_error(401), FaultKind.AUTH, None),
    (_http_error(403), FaultKind.AUTH, None),
    (_http_error(404), FaultKind.NOT_FOUND, None),
    (_http_error(400), FaultKind.REJECTED, None),
    (requests.ConnectionError("reset"), FaultKind.TRANSIENT, None),
    (requests.ReadTimeout("slow"), FaultKind.TRANSIENT, None),
    (json.JSONDecodeError("Expecting value", "<html>", 0), FaultKind.BAD_REPLY, None),
    (UnreadableReplyError("no statementHandle"), FaultKind.BAD_REPLY, None),
    (ValueError("Snowflake REST API authentication requires an OAuth access token, ..."), FaultKind.AUTH, None),
    (ValueError("Invalid Snowflake account 'a/b': only letters, ..."), FaultKind.REJECTED, None),
])
def test_classify_sorts_the_hooks_exceptions(err, kind, retry_after):
    fault = SnowflakeSqlApiJobClient().classify(err)
    assert fault.kind is kind
    assert fault.retry_after == retry_after


def test_the_client_crosses_to_the_triggerer_without_secrets_or_objects():
    from tenacity import stop_after_attempt

    client = SnowflakeSqlApiJobClient(
        "sf_conn", token_life_time=600, token_renewal_delta=300,
        api_retry_args={"stop": stop_after_attempt(2), "reraise": True},
        hook_params={"warehouse": "WH", "session_parameters": {"QUERY_TAG": "x"}, "odd": object()},
    )
    kwargs = client.serialize()
    assert json.loads(json.dumps(kwargs)) == kwargs
    assert kwargs["api_retry_args"] == {"reraise": True} and set(kwargs["hook_params"]) == {
        "warehouse", "session_parameters"}
    again = load_client(client.classpath(), kwargs)
    assert isinstance(again, SnowflakeSqlApiJobClient) and again.serialize() == kwargs


def test_every_call_gets_a_timeout_unless_the_user_gave_one():
    client = SnowflakeSqlApiJobClient(hook_params={"http_request_kwargs": {"timeout": 5, "verify": False}})
    hook = client.hook
    assert hook.http_request_kwargs == {"timeout": 5, "verify": False}
    assert hook.aiohttp_request_kwargs["timeout"].total == 60.0  # [durable_jobs] http_timeout_seconds default
    assert SnowflakeSqlApiJobClient().hook.http_request_kwargs == {"timeout": 60.0}

"""The SQL API emulator's contract rules that the hook-level tests do not reach (docs/emulators/snowflake.md)."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
import requests

from durable_jobs.testing.emulators.snowflake import SnowflakeEmulator


@pytest.fixture
def emu():
    with SnowflakeEmulator() as emulator:
        yield emulator


def _post(emu, body, *, token="emulator-token", kind="PROGRAMMATIC_ACCESS_TOKEN", **params):
    headers = {"Authorization": f"Bearer {token}"}
    if kind:
        headers["X-Snowflake-Authorization-Token-Type"] = kind
    params.setdefault("requestId", str(uuid.uuid4()))
    return requests.post(f"{emu.url}/emulator.snowflakecomputing.com/api/v2/statements", params=params,
                         json=body, headers=headers, timeout=5)


def _jwt(payload: dict) -> str:
    part = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
    return f"eyJhbGciOiJSUzI1NiJ9.{part}.c2ln"


@pytest.mark.parametrize(("token", "kind", "status"), [
    ("emulator-token", "PROGRAMMATIC_ACCESS_TOKEN", 202),
    ("oauth-emulator-token", "OAUTH", 202),
    ("oauth-emulator-token", None, 202),  # no token type: OAUTH is assumed
    (_jwt({"iss": "A.U.SHA256:x", "sub": "A.U", "exp": 9999999999}), "KEYPAIR_JWT", 202),
    (_jwt({"iss": "A.U.SHA256:x"}), "KEYPAIR_JWT", 401),  # not the claims a key-pair JWT carries
    ("emulator-token", "OAUTH", 401),
    ("wrong", "PROGRAMMATIC_ACCESS_TOKEN", 401),
])
def test_auth(emu, token, kind, status):
    assert _post(emu, {"statement": "SELECT 1"}, token=token, kind=kind).status_code == status
    assert emu.ledger()["executions"] == (1 if status == 202 else 0)


def test_multi_statement_count_must_match(emu):
    body = {"statement": "SELECT 1; SELECT 2", "parameters": {"MULTI_STATEMENT_COUNT": 3}}
    assert _post(emu, body).status_code == 400
    assert _post(emu, {**body, "parameters": {"MULTI_STATEMENT_COUNT": 0}}).status_code == 202
    assert emu.ledger()["statements_executed"] == 2


def test_cancel_leaves_a_finished_statement_as_it_is(emu):
    emu.configure(run_seconds=0)
    handle = _post(emu, {"statement": "SELECT 1"}).json()["statementHandle"]
    headers = {"Authorization": "Bearer emulator-token",
               "X-Snowflake-Authorization-Token-Type": "PROGRAMMATIC_ACCESS_TOKEN"}
    assert requests.post(f"{emu.url}/api/v2/statements/{handle}/cancel", headers=headers, timeout=5).status_code == 200
    status = requests.get(f"{emu.url}/api/v2/statements/{handle}", headers=headers, timeout=5)
    assert status.status_code == 200 and emu.ledger()["cancelled_running"] == []


def test_a_rewrite_can_change_the_status_code(emu):
    emu.configure(run_seconds=30)
    handle = _post(emu, {"statement": "SELECT 1"}).json()["statementHandle"]
    emu.add_fault("statements/status", mode="rewrite", count=1, patch={"__status__": 203, "message": "odd"})
    headers = {"Authorization": "Bearer emulator-token",
               "X-Snowflake-Authorization-Token-Type": "PROGRAMMATIC_ACCESS_TOKEN"}
    first = requests.get(f"{emu.url}/api/v2/statements/{handle}", headers=headers, timeout=5)
    second = requests.get(f"{emu.url}/api/v2/statements/{handle}", headers=headers, timeout=5)
    assert (first.status_code, first.json()["message"], second.status_code) == (203, "odd", 202)
    assert "__status__" not in first.json()

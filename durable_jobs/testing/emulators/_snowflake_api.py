"""The Snowflake SQL API v2 rules the emulator models (contract: ``docs/emulators/snowflake.md``).

Statements "execute" on the emulator's clock: each request runs for ``run_seconds`` and then
succeeds, or fails when its text matches ``fail_pattern`` (a SQL error, HTTP 422). Nothing is parsed
beyond splitting a batch on ``;``. The ledger counts every POST and every *execution*: a request
handed back under its ``requestId`` with ``retry=true`` is not executed again.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from durable_jobs.testing.emulators._faults import Clock, FaultSet, HoldSet
from durable_jobs.testing.emulators._http import ApiError, Request

DEFAULT_CONFIG: dict[str, Any] = {
    "run_seconds": 0.5,  # how long a request's statements run on the emulator clock
    "fail_pattern": r"(?i)\bfail\b",  # statements matching it end in a SQL error (422)
    "speed": 1.0,
}
#: Bearer token types the SQL API names in ``X-Snowflake-Authorization-Token-Type``.
TOKEN_TYPES = ("KEYPAIR_JWT", "OAUTH", "PROGRAMMATIC_ACCESS_TOKEN")
RUNNING_MESSAGE = ("Asynchronous execution in progress. Use provided query id to perform query monitoring and "
                   "management.")


@dataclass
class Statement:
    handle: str
    sql: str
    request_id: str
    started: float
    finish_at: float
    fails: bool
    children: list[str] = field(default_factory=list)
    cancelled: bool = False

    def state(self, now: float) -> str:
        if self.cancelled:
            return "cancelled"
        if now < self.finish_at:
            return "running"
        return "failed" if self.fails else "succeeded"


class SnowflakeApp:
    """Statements, their ``requestId`` index, faults, holds and the ledger; one lock guards them."""

    def __init__(self, tokens: dict[str, str]):
        self.tokens = tokens  # token type -> the token accepted (KEYPAIR_JWT: any well-formed JWT)
        self.lock = threading.RLock()
        self.clock = Clock()
        self.faults = FaultSet()
        self.holds = HoldSet()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.config = dict(DEFAULT_CONFIG)
            self.clock.set_speed(1.0)
            self.statements: dict[str, Statement] = {}
            self.by_request: dict[str, list[str]] = {}
            self.calls: Counter[str] = Counter()
            self.submits: list[dict[str, Any]] = []
            self.executions = 0
            self.statements_executed = 0
            self.duplicates = 0
            self.cancels: list[str] = []
            #: every cancel call: the statement and its Unix time
            self.cancel_calls: list[dict[str, Any]] = []
            self.cancelled_running: list[str] = []
            self.tokens_seen: Counter[str] = Counter()
            self._seq = itertools.count(1)
        self.faults.clear()
        self.holds.clear()

    def ledger(self) -> dict[str, Any]:
        with self.lock:
            now = self.clock.now()
            return {
                "requests": len(self.submits), "executions": self.executions,
                "statements_executed": self.statements_executed, "duplicates_detected": self.duplicates,
                "cancels": list(self.cancels), "cancelled_running": list(self.cancelled_running),
                "cancel_calls": list(self.cancel_calls),
                "calls": dict(self.calls), "tokens_seen": dict(self.tokens_seen),
                "submits": list(self.submits),
                "statements": {h: {"state": s.state(now), "request_id": s.request_id, "sql": s.sql[:200],
                                   "children": list(s.children)} for h, s in self.statements.items()},
            }

    # ------------------------------------------------------------------ auth
    def authenticate(self, request: Request) -> None:
        """``Authorization: Bearer <token>`` of the type named in ``X-Snowflake-Authorization-Token-Type``
        (OAUTH when absent, as Snowflake assumes); a key-pair JWT needs ``iss``, ``sub`` and ``exp``."""
        auth = str(request.headers.get("Authorization") or "")
        kind = str(request.headers.get("X-Snowflake-Authorization-Token-Type") or "OAUTH").upper()
        token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else ""
        ok = bool(token) and kind in TOKEN_TYPES and (
            _jwt_ok(token) if kind == "KEYPAIR_JWT" else token == self.tokens.get(kind)
        )
        if not ok:
            raise ApiError(401, "390303", f"Invalid {kind} token.")
        with self.lock:
            self.tokens_seen[kind] += 1

    # ------------------------------------------------------------------ the API
    def submit(self, request: Request) -> tuple[int, dict[str, Any]]:
        """``POST /api/v2/statements?requestId=..&retry=..``: execute, or hand back the original request."""
        body = request.body if isinstance(request.body, dict) else {}
        request_id = str(request.params.get("requestId") or uuid.uuid4())
        try:
            uuid.UUID(request_id)
        except ValueError:
            raise ApiError(400, "391918", f"requestId {request_id!r} is not a UUID") from None
        retry = str(request.params.get("retry", "")).lower() == "true"
        sql = str(body.get("statement") or "")
        with self.lock:
            entry = {"request_id": request_id, "retry": retry, "statement": sql[:200]}
            known = self.by_request.get(request_id)
            if known is not None and retry:
                self.duplicates += 1
                self.submits.append({**entry, "executed": False, "handles": list(known)})
                return self.status_reply(known[0])
            if not sql.strip():
                raise ApiError(400, "391911", "The statement field is required.")
            parts = [p for p in sql.split(";") if p.strip()]
            wanted = int((body.get("parameters") or {}).get("MULTI_STATEMENT_COUNT", 1) or 0)
            if wanted not in (0, len(parts)):
                raise ApiError(400, "000008", f"Actual statement count {len(parts)} did not match the desired "
                                              f"statement count {wanted}.")
            now = self.clock.now()
            finish = now + float(self.config["run_seconds"])
            fails = bool(re.search(str(self.config["fail_pattern"]), sql))
            handle = self._handle()
            parent = Statement(handle, sql, request_id, now, finish, fails)
            if len(parts) > 1:
                for part in parts:
                    child = Statement(self._handle(), part.strip(), request_id, now, finish,
                                      bool(re.search(str(self.config["fail_pattern"]), part)))
                    self.statements[child.handle] = child
                    parent.children.append(child.handle)
            self.statements[handle] = parent
            self.by_request[request_id] = [handle]
            self.executions += 1
            self.statements_executed += len(parts)
            self.submits.append({**entry, "executed": True, "handles": [handle]})
            return self.status_reply(handle)

    def status_reply(self, handle: str) -> tuple[int, dict[str, Any]]:
        """``GET /api/v2/statements/{handle}``: 202 QueryStatus, 200 ResultSet, 422 QueryFailureStatus."""
        with self.lock:
            statement = self.statements.get(handle)
            if statement is None:
                raise ApiError(404, "000709", f"Statement {handle} not found")
            state = statement.state(self.clock.now())
            base = {"statementHandle": handle, "statementStatusUrl": f"/api/v2/statements/{handle}",
                    "createdOn": int(statement.started * 1000)}
            if state == "running":
                return 202, {**base, "code": "333334", "message": RUNNING_MESSAGE}
            if state == "cancelled":
                return 422, {**base, "code": "000604", "sqlState": "57014", "message": "SQL execution canceled"}
            if state == "failed":
                return 422, {**base, "code": "002003", "sqlState": "02000",
                             "message": f"SQL compilation error: statement failed: {statement.sql[:200]}"}
            reply = {**base, "code": "090001", "sqlState": "00000",
                     "message": "Statement executed successfully.",
                     "resultSetMetaData": {"numRows": 1, "format": "jsonv2", "partitionInfo": [{"rowCount": 1}],
                                           "rowType": [{"name": "status", "type": "text", "nullable": True}]},
                     "data": [["ok"]]}
            if statement.children:
                reply.update(message="Multiple statements executed successfully.",
                             statementHandles=list(statement.children), data=[["Multiple statements executed "
                                                                                "successfully."]])
            return 200, reply

    def cancel(self, handle: str) -> tuple[int, dict[str, Any]]:
        """``POST /api/v2/statements/{handle}/cancel``: a running statement (and its children) is cancelled."""
        with self.lock:
            statement = self.statements.get(handle)
            if statement is None:
                raise ApiError(404, "000709", f"Statement {handle} not found")
            self.cancels.append(handle)
            self.cancel_calls.append({"id": handle, "ts": time.time()})
            now = self.clock.now()
            if statement.state(now) == "running":
                self.cancelled_running.append(handle)
            for h in [handle, *statement.children]:
                if self.statements[h].state(now) == "running":
                    self.statements[h].cancelled = True
            return 200, {"statementHandle": handle, "code": "000604", "sqlState": "00000",
                         "message": "successfully canceled", "statementStatusUrl": f"/api/v2/statements/{handle}"}

    def _handle(self) -> str:
        return f"01b{next(self._seq):05d}-0000-{uuid.uuid4().hex[:4]}-0000-{uuid.uuid4().hex[:12]}"


def _jwt_ok(token: str) -> bool:
    """A JWT the SQL API would look at: three base64url parts, a payload naming ``iss``, ``sub``, ``exp``."""
    parts = token.split(".")
    if len(parts) != 3:
        return False
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return False
    return isinstance(payload, dict) and {"iss", "sub", "exp"} <= set(payload)

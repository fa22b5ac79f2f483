"""The SQL Statement Execution half of the Databricks emulator: the three calls ``DatabricksHook`` makes.

``POST /api/2.0/sql/statements`` (``post_sql_statement``), ``GET /api/2.0/sql/statements/{id}``
(``get_sql_statement_state`` / ``a_get_sql_statement_state``) and ``POST .../{id}/cancel``
(``cancel_sql_statement``), plus ``GET .../{id}/result/chunks/{n}`` (an empty chunk: what a DAG reading its
result calls; the crash suite holds it inside ``execute_complete``). Every rule, with its quote or "the docs
are silent", is in ``docs/emulators/databricks.md``. A statement's state is computed from the emulator
clock: PENDING for ``pending_seconds``, RUNNING for ``running_seconds``, then its planned end
(``statement_outcomes``, FIFO, else SUCCEEDED). There is no idempotency field to honour: every accepted POST
is a new statement.
"""

from __future__ import annotations

import itertools
import re
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from durable_jobs.testing.emulators._http import ApiError, Request

if TYPE_CHECKING:
    from durable_jobs.testing.emulators._databricks_api import DatabricksApp

STATEMENT_OUTCOMES = ("SUCCEEDED", "FAILED", "CANCELED", "CLOSED")
#: ``wait_timeout``: "0s" (asynchronous) or 5 to 50 seconds (the API reference).
WAIT_TIMEOUT = re.compile(r"^(0|[5-9]|[1-4][0-9]|50)s$")
#: ``/api/2.0/sql/statements/{id}`` and ``.../{id}/cancel`` become these routes (faults and holds use them).
GET_ROUTE = "sql/statements/get"
CANCEL_ROUTE = "sql/statements/cancel"
RESULT_ROUTE = "sql/statements/result"
_BY_ID = re.compile(r"^sql/statements/([^/]+?)(/cancel|/result/chunks/([^/]+))?$")


def normalize(route: str, params: dict[str, Any]) -> str:
    """Map a path with a statement id to its route name, moving the id into ``params``."""
    match = _BY_ID.match(route)
    if match is None or route == "sql/statements":
        return route
    params["statement_id"] = match.group(1)
    if match.group(3) is not None:
        params["chunk_index"] = match.group(3)
        return RESULT_ROUTE
    return CANCEL_ROUTE if match.group(2) else GET_ROUTE


@dataclass
class Statement:
    statement_id: str
    statement: str
    warehouse_id: str
    payload: dict[str, Any]
    outcome: str
    started: float
    pending_seconds: float
    running_seconds: float
    cancelled_at: float | None = None
    removed: bool = False  # "removed from the warehouse": 404 from now on (expire_statement)

    def state(self, now: float) -> str:
        if self.cancelled_at is not None:
            return "CANCELED"
        age = now - self.started
        if age < self.pending_seconds:
            return "PENDING"
        if age < self.pending_seconds + self.running_seconds:
            return "RUNNING"
        return self.outcome

    def render(self, now: float) -> dict[str, Any]:
        state = self.state(now)
        status: dict[str, Any] = {"state": state}
        if state == "FAILED":
            status["error"] = {"error_code": "BAD_REQUEST",
                               "message": "Statement failed (planned by the emulator)"}
        return {"statement_id": self.statement_id, "status": status}


class StatementsApi:
    """Statements state, kept under the app's lock and measured on the app's clock."""

    def __init__(self, app: DatabricksApp):
        self.app = app
        self.reset()

    def reset(self) -> None:
        self.statements: dict[str, Statement] = {}
        self.submissions: list[dict[str, Any]] = []
        self.cancels: list[dict[str, Any]] = []
        self.seq = itertools.count(1)

    def routes(self) -> dict[str, tuple[str, Any]]:
        return {"sql/statements": ("POST", self.execute), GET_ROUTE: ("GET", self.get),
                CANCEL_ROUTE: ("POST", self.cancel), RESULT_ROUTE: ("GET", self.result_chunk)}

    @staticmethod
    def validate_outcomes(entries: list[Any]) -> None:
        for entry in entries:
            if str(entry).upper() not in STATEMENT_OUTCOMES:
                raise ApiError(400, "INVALID_PARAMETER_VALUE",
                               f"statement outcome {entry!r} is not one of {STATEMENT_OUTCOMES}")

    def execute(self, req: Request, version: str) -> dict[str, Any]:
        body = req.body if isinstance(req.body, dict) else {}
        for name in ("statement", "warehouse_id"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise ApiError(400, "INVALID_PARAMETER_VALUE", f"Missing required field: {name}")
        wait = body.get("wait_timeout")
        if wait is not None and not WAIT_TIMEOUT.match(str(wait)):
            raise ApiError(400, "INVALID_PARAMETER_VALUE",
                           f"wait_timeout must be 0s or between 5s and 50s, got {wait!r}")
        app = self.app
        with app.lock:
            queue = app.config["statement_outcomes"]
            outcome = str(queue.pop(0) if queue else "SUCCEEDED").upper()
            statement = Statement(
                statement_id=f"01f0{next(self.seq):04x}-{uuid.uuid4().hex[:4]}-{uuid.uuid4().hex[:12]}",
                statement=body["statement"], warehouse_id=body["warehouse_id"], payload=dict(body),
                outcome=outcome, started=app.now(), pending_seconds=float(app.config["pending_seconds"]),
                running_seconds=float(app.config["running_seconds"]),
            )
            self.statements[statement.statement_id] = statement
            self.submissions.append({"seq": len(self.submissions) + 1, "statement_id": statement.statement_id,
                                     "payload": dict(body), "ts": time.time()})
            # wait_timeout "0s": "the call is asynchronous and responds immediately with a statement ID"
            return statement.render(app.now())

    def _find(self, req: Request) -> Statement:
        statement_id = str(req.params.get("statement_id") or "")
        found = self.statements.get(statement_id)
        # removed (S6: 404 after 12 hours); an id that never existed: the docs are silent, the same 404
        if found is None or found.removed:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", f"Statement {statement_id} does not exist.")
        return found

    def get(self, req: Request, version: str) -> dict[str, Any]:
        with self.app.lock:
            return self._find(req).render(self.app.now())

    def result_chunk(self, req: Request, version: str) -> dict[str, Any]:
        """An empty chunk of a SUCCEEDED statement (no rows are modelled); before that: 400, the docs silent."""
        with self.app.lock:
            statement = self._find(req)
            state = statement.state(self.app.now())
        if state != "SUCCEEDED":
            raise ApiError(400, "INVALID_STATE", f"Statement {statement.statement_id} is {state}, not SUCCEEDED.")
        try:
            index = int(req.params.get("chunk_index") or 0)
        except ValueError:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "chunk_index must be an integer") from None
        return {"chunk_index": index, "row_offset": 0, "row_count": 0, "data_array": []}

    def cancel(self, req: Request, version: str) -> dict[str, Any]:
        with self.app.lock:
            statement = self._find(req)
            now = self.app.now()
            was_active = statement.state(now) in ("PENDING", "RUNNING")
            if was_active:
                statement.cancelled_at = now
            self.cancels.append({"statement_id": statement.statement_id, "ts": time.time(),
                                 "was_active": was_active})
        return {}

    def expire(self, statement_id: str) -> str:
        """Remove a statement as the warehouse does after 12 hours in a terminal state: 404 from then on."""
        with self.app.lock:
            found = self.statements.get(statement_id)
            if found is None:
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", f"Statement {statement_id} does not exist.")
            found.removed = True
        return statement_id

    def ledger(self, now: float) -> dict[str, Any]:
        return {
            "statements": {s.statement_id: {"state": s.state(now), "statement": s.statement,
                                            "warehouse_id": s.warehouse_id, "removed": s.removed}
                           for s in self.statements.values()},
            "statements_created": len(self.statements),
            "statement_submissions": [dict(s) for s in self.submissions],
            "statement_cancels": [dict(c) for c in self.cancels],
        }

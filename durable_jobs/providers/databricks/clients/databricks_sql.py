"""Databricks SQL statements (Statement Execution API) through the official ``DatabricksHook``.

No idempotency: ``POST /api/2.0/sql/statements`` documents no idempotency or request-id field, and no
call lists statements by anything a caller chose (the Query History API filters by user, warehouse,
status and start time only, and its reference does not say how soon a statement appears there). So:

* the key is *not* sent (the request stays the official operator's, byte for byte) and ``find()``
  answers None: a try that died between the POST and the store write (W2) runs the statement
  again on the retry — that window stays open, and the crash matrix shows it;
* the POST is made **once** per try (the hook's own retries are off for it): a resend after a lost
  reply would run the statement twice inside one try. An ambiguous failure fails the try with a
  message that says the statement may have run;
* everything after the id reached the store (W3-W5: crash while polling, deferred, after success)
  reconnects with ``GET /api/2.0/sql/statements/{id}`` — within the reference's retention: "After at least
  12 hours in terminal state, the statement is removed from the warehouse and further calls will receive an
  HTTP 404 response" (a success already recorded in the store is not asked again).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.client import JobClient
from durable_jobs.core.exceptions import JobSubmitError
from durable_jobs.core.faults import FaultKind, cap
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.core.wrong_setup import wrong_setup
from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient, is_not_found_error

#: ``status.state`` of a statement. The reference: "SUCCEEDED: execution was successful, result data available
#: for fetch", "CLOSED: execution successful, and statement closed; result no longer available for fetch". So
#: CLOSED is a success here (a retry that finds its statement CLOSED must not run it again); the official
#: ``SQLStatementState.is_successful`` reads it as a failure (a documented difference).
STATEMENT_STATES = StateTable(
    vendor="Databricks SQL statement",
    active=frozenset({"PENDING", "RUNNING"}),
    succeeded=frozenset({"SUCCEEDED", "CLOSED"}),
    failed=frozenset({"FAILED", "CANCELED"}),
)
STATEMENTS_ENDPOINT = "2.0/sql/statements"


class DatabricksStatementClient(DatabricksJobClient):
    """One SQL statement per epoch; the key stays in the task state store only (see the module docstring)."""

    vendor: ClassVar[str] = "Databricks"
    states: ClassVar[StateTable] = STATEMENT_STATES
    status_endpoint: ClassVar[str] = "GET sql/statements/{statement_id}"

    @property
    def submit_endpoint(self) -> str:
        return "POST sql/statements"

    def phase_of(self, state: str) -> JobPhase:
        if state == "NOT_FOUND":
            return JobPhase.MISSING
        return STATEMENT_STATES.phase(state)

    def submit(self, request: Mapping[str, Any], key: str) -> str:  # type: ignore[override]  # ids are text
        """One POST: the hook's own retries are off for it (a resend could run the statement twice)."""
        from tenacity import stop_after_attempt

        hook = self.hook
        saved = hook.retry_limit, hook.retry_args
        hook.retry_limit, hook.retry_args = 1, {**hook.retry_args, "stop": stop_after_attempt(1)}
        try:
            return str(hook.post_sql_statement(dict(request)))
        except Exception as err:
            fault = self.classify(err)
            if fault.kind is FaultKind.AUTH or not fault.transient or wrong_setup(err) is not None:
                raise  # refused, or never sent: nothing ran (the resend policy names the connection or the fix)
            raise JobSubmitError(
                f"Databricks POST sql/statements failed ({fault}). The statement may have started: the Statement "
                "Execution API has no idempotency field, so it is not sent again in this try. A retry of the "
                "task runs it again (durable-jobs cannot find a statement by key)."
            ) from err
        finally:
            hook.retry_limit, hook.retry_args = saved

    def _to_status(self, reply: Mapping[str, Any]) -> JobStatus:
        status = reply.get("status") or {}
        state = str(status.get("state") or "")
        error = status.get("error") or {}
        message = str(error.get("message") or "")
        return JobStatus(STATEMENT_STATES.phase(state), state, message,
                         raw={"error_code": error.get("error_code", ""), "error_message": message})

    def status(self, job_id: Any) -> JobStatus:
        """The official ``get_sql_statement_state``; a state it refuses is read raw and kept as UNKNOWN."""
        from airflow.providers.databricks.hooks.databricks import SQLStatementState

        try:
            state = self.hook.get_sql_statement_state(job_id)
        except Exception as err:
            if is_not_found_error(err):
                return self._missing(err)
            if "Unexpected SQL statement life cycle state" not in str(err):
                raise
            return self._to_status(self.hook._do_api_call(("GET", f"{STATEMENTS_ENDPOINT}/{job_id}")))
        if not isinstance(state, SQLStatementState):  # a stand-in (a test's mock): read as the official loop does
            if not state.is_terminal:
                return JobStatus(JobPhase.ACTIVE, "RUNNING")
            return JobStatus(JobPhase.SUCCEEDED, "SUCCEEDED") if state.is_successful else JobStatus(
                JobPhase.FAILED, "FAILED", str(getattr(state, "error_message", "") or ""))
        return JobStatus(STATEMENT_STATES.phase(state.state), state.state, state.error_message or "",
                         raw={"error_code": state.error_code, "error_message": state.error_message})

    async def astatus(self, job_id: Any) -> JobStatus:
        hook = await self._async_hook()
        try:
            reply = await hook._a_do_api_call(("GET", f"{STATEMENTS_ENDPOINT}/{job_id}"))
        except Exception as err:
            if is_not_found_error(err):
                return self._missing(err)
            raise
        return self._to_status(reply)

    async def astatuses(self, job_ids: Iterable[Any]) -> Mapping[Any, JobStatus | Exception]:
        return await JobClient.astatuses(self, job_ids)  # no batch read of statements: one GET each

    def cancel(self, job_id: Any) -> None:
        self.hook.cancel_sql_statement(job_id)

    def find(self, key: str, *, since: datetime | None = None) -> None:
        # Nothing to look a statement up by (module docstring): the W2 window stays open.
        return None

    def url(self, job_id: Any) -> str | None:
        return None

    def status_from_official_event(self, event: Mapping[str, Any]) -> JobStatus | None:
        """``DatabricksSQLStatementExecutionTrigger``'s event: ``state`` is ``SQLStatementState.to_json()``."""
        from airflow.providers.databricks.hooks.databricks import SQLStatementState

        try:
            state = SQLStatementState.from_json(event["state"])
        except Exception:  # noqa: BLE001 - not the official event's shape: ask Databricks instead
            return None
        return JobStatus(STATEMENT_STATES.phase(state.state), state.state, state.error_message or "",
                         raw={"error_code": state.error_code, "error_message": state.error_message})

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """None: the official trigger's event keeps the statement's state under "state", the key our event uses
        for its own, so an operator switched back to the official class while deferred by ours fails its
        execute_complete (switching back is one-way while a task is deferred)."""
        return {}


def describe_error(status: JobStatus) -> str:
    """``error_code`` / message of a failed statement, capped for a log line."""
    return cap(f"{status.raw.get('error_code', '')}: {status.message}", 500)

"""Drop-in durable ``SnowflakeSqlApiOperator`` and ``SnowflakeNotebookOperator``.

Change one import line::

    from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator
    from durable_jobs.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

Same constructor arguments, template fields, XCom (``query_ids``), return value (None) and hook-level
lineage as the official snowflake-provider 6.20 operators. Each statement batch is submitted exactly
once on the synchronous *and* the deferrable path: the epoch's key is the request's ``requestId``
(a UUID), and a resend after a lost or failed reply carries the same ``requestId`` with ``retry=true``
(``durable_jobs.providers.snowflake.clients.snowflake_sql_api``).

Differences from the official operators, on purpose:

* The official ``requestId`` is a new uuid4 per call and ``retry=true`` is never sent, so a lost reply
  runs the SQL again; ours resends under the same id.
* The official deferrable path keeps no record; ours checkpoints before ``defer()``.
* ``cancel_on_kill``: the official boolean maps True → "user" (cancel when a user stopped the task;
  an infrastructure kill leaves the statements running for the retry, which reconnects), False → "never".
* A failed batch fails with the official text ("error: <message>") and says that a retry submits anew; the
  error is a ``RuntimeError`` as upstream's (``SnowflakeStatementError``, also a ``JobFailedError``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.providers.snowflake.operators import snowflake as _official

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.snowflake.clients.snowflake_sql_api import SnowflakeSqlApiJobClient

if TYPE_CHECKING:
    from airflow.sdk import Context

XCOM_QUERY_IDS_KEY = "query_ids"


class SnowflakeStatementError(JobFailedError, RuntimeError):
    """A statement of the batch failed: a ``RuntimeError``, as the official operator raises, and ours."""


class _SnowflakeDurableMixin(DurableJobMixin):
    """The client, the ``query_ids`` XCom, the official log lines and errors."""

    if TYPE_CHECKING:  # what the official SnowflakeSqlApiOperator defines
        snowflake_conn_id: str
        sql: str
        statement_count: int
        bindings: dict[str, Any] | None
        timeout: int | None
        token_life_time: Any
        token_renewal_delta: Any
        snowflake_api_retry_args: dict[str, Any]
        hook_params: dict[str, Any]
        query_ids: list[str]
        deferrable: bool

        @property
        def _hook(self) -> Any: ...

    poll_interval_argument = "poll_interval"
    durable_request_fields = ("statement_count", "bindings", "timeout")

    def make_job_client(self) -> SnowflakeSqlApiJobClient:
        return SnowflakeSqlApiJobClient(
            self.snowflake_conn_id, token_life_time=self.token_life_time.total_seconds(),
            token_renewal_delta=self.token_renewal_delta.total_seconds(),
            api_retry_args=self.snowflake_api_retry_args, hook_params=self.hook_params,
        )

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.log.info("Executing: %s", self.sql)
        return {"sql": self.sql, "statement_count": self.statement_count, "bindings": self.bindings,
                "timeout": self.timeout, "retry": not fresh_key}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.query_ids = list(job_id) if not isinstance(job_id, str) else [job_id]
        self.log.info("List of query ids %s", self.query_ids)
        self._hook.query_ids = self.query_ids  # OpenLineage reads the operator's hook
        if self.do_xcom_push and context is not None:  # the official operator accepts context=None
            context["ti"].xcom_push(key=XCOM_QUERY_IDS_KEY, value=self.query_ids)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        if status.phase is JobPhase.ACTIVE:
            self.log.info("checking : %s", status.raw.get("handle", job_id))

    def job_result(self, context: Context, job_id: Any) -> None:
        self.query_ids = list(job_id) if not isinstance(job_id, str) else [job_id]
        self._hook.query_ids = self.query_ids
        # The official deferrable path logs the statements' output only after a deferral (execute_complete);
        # a batch already done before defer() ends without it. The synchronous path always logs it.
        if not self.deferrable or getattr(self, "_durable_resumed", False):
            self.call_vendor(job_id, lambda: self._hook.check_query_output(self.query_ids))
        self.log.info("%s completed successfully.", self.task_id)
        return None

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        """The SDK mixin's method, as upstream: the ``query_ids`` XCom is pushed before polling (a failing
        statement still leaves the handles for the user), and the output is logged on success."""
        self.on_job_known(context, external_id, reconnected=True)
        super().poll_until_complete(external_id, context)
        self.job_result(context, external_id)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official text ("error: <message>"), then what a retry does."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        return SnowflakeStatementError(
            f"{status.state}: {cap(status.message, 2000)}. A retry submits the statements anew.",
            job_id=job_id, state=status.state,
        )

    official_event_id_keys = ("statement_query_ids",)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        # The official trigger's error event names no handles: fail as the official operator does.
        if isinstance(event, dict) and "client" not in event and event.get("status") == "error":
            raise RuntimeError(f"{event['status']}: {event.get('message')}")
        if event is None:  # the official execute_complete takes None as success
            self.log.info("%s completed successfully.", self.task_id)
            return None
        self._durable_resumed = True
        return super().execute_complete(context, event)

    # The SDK mixin's methods, answering as the official operator does ("running", "success", ...).
    def get_job_status(self, external_id: Any, context: Context) -> str:
        status = self.job_client.status(external_id)
        return "not_found" if status.phase is JobPhase.MISSING else status.state

    def is_job_active(self, status: str) -> bool:
        return status == "running"

    def is_job_succeeded(self, status: str) -> bool:
        return status == "success"


# type-ignore: our execute_complete takes our trigger's event; cancel_on_kill is mapped to our policy.
class SnowflakeSqlApiOperator(_SnowflakeDurableMixin, _official.SnowflakeSqlApiOperator):  # type: ignore[misc]
    """The official ``SnowflakeSqlApiOperator``, running each statement batch exactly once."""

    __init__ = with_official_signature(_official.SnowflakeSqlApiOperator)


class SnowflakeNotebookOperator(SnowflakeSqlApiOperator, _official.SnowflakeNotebookOperator):  # type: ignore[misc]
    """The official ``SnowflakeNotebookOperator`` (``EXECUTE NOTEBOOK``), run exactly once; like upstream, a
    subclass of the (durable) ``SnowflakeSqlApiOperator``."""

    __init__ = with_official_signature(_official.SnowflakeNotebookOperator)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.sql = self._build_execute_notebook_query()  # from the rendered notebook fields, as upstream
        return super().prepare_request(context, fresh_key=fresh_key)


__all__ = ["SnowflakeNotebookOperator", "SnowflakeSqlApiOperator", "SnowflakeStatementError"]

"""Drop-in durable ``AthenaOperator``: each query is started exactly once (``ClientRequestToken``).

Change one import line::

    from airflow.providers.amazon.aws.operators.athena import AthenaOperator
    from durable_jobs.providers.amazon.aws.operators.athena import AthenaOperator

Same constructor arguments, template fields, return value (the query execution id) and extra links as the
official amazon-provider 9.39 operator, plus the mixin's ``cancel_on_kill`` and ``fresh_on_clear``; sync and
deferrable (``durable_jobs.providers.amazon.aws.clients.athena`` says how the token is used).

Differences from the official operator, on purpose:

* The official operator stops its query on any kill, and never when deferred; ours stops it when a *user*
  stopped the task (``cancel_on_kill="user"``), on both paths.
* ``max_polling_attempts`` bounds the synchronous wait only (``execution_timeout`` bounds both paths), and a
  retry after it reconnects to the query instead of starting another; a failed query fails the deferrable
  path with the synchronous path's message ("Final state of Athena job is FAILED, ...").
"""


from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.hooks.athena import query_params_to_string
from airflow.providers.amazon.aws.links.athena import AthenaQueryResultsLink
from airflow.providers.amazon.aws.operators import athena as _athena

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.athena import AthenaJobClient
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


class AthenaOperator(AwsDurableMixin, _athena.AthenaOperator):
    """The official ``AthenaOperator``, starting each query exactly once (``ClientRequestToken``)."""

    __init__ = with_official_signature(_athena.AthenaOperator)
    external_id_key = "athena_query_execution_id"
    durable_request_fields = ("query_execution_context", "result_configuration", "client_request_token")
    poll_interval_argument = "sleep_time"
    user_token_argument = "client_request_token"

    @property
    def wait_for_termination(self) -> bool:
        return True  # the official operator always waits (polling, or deferred)

    def make_job_client(self) -> AthenaJobClient:
        return AthenaJobClient(self.aws_conn_id, **self._client_kwargs())

    def _query_request(self) -> dict[str, Any]:
        """The official ``execute``'s request: the query context and result location filled in."""
        if self.database:
            self.query_execution_context["Database"] = self.database
        self.query_execution_context["Catalog"] = self.catalog
        if self.output_location:
            self.result_configuration["OutputLocation"] = self.output_location
        return {"QueryString": self.query, "QueryExecutionContext": self.query_execution_context,
                "ResultConfiguration": self.result_configuration, "WorkGroup": self.workgroup}

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        request = self._query_request()
        if self.log_query:
            self.log.info("Running Query with params:\n%s", query_params_to_string(request))
        return request

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        from airflow.providers.common.sql.hooks.lineage import send_sql_hook_lineage

        if reconnected:
            self._query_request()  # the same attributes as after a submit (OpenLineage reads them)
        self.query_execution_id = job_id
        self.log.info("Query execution id: %s", job_id)
        send_sql_hook_lineage(context=self.hook, sql=self.query, job_id=job_id)  # as the hook's run_query
        AthenaQueryResultsLink.persist(
            context=context, operator=self, region_name=self.hook.conn_region_name,
            aws_partition=self.hook.conn_partition, query_execution_id=job_id,
        )

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.query_execution_id = job_id
        return job_id

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official message first, with the reason Athena gives (``StateChangeReason``)."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        return JobFailedError(
            f"Final state of Athena job is {status.state}, query_execution_id is {job_id}. "
            f"Error: {cap(status.message, 2000) or None}. A retry starts a new query.", job_id=job_id,
            state=status.state,
        )

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        self.log.info("Query execution id: %s, Query is still in non-terminal state: %s", job_id, status.state)

    def max_polls(self) -> int:
        """The official contract: ``max_polling_attempts`` status checks (default 999999), then fail."""
        return max(1, int(self.max_polling_attempts))

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        state = self.job_client.status(job_id).state
        raise AirflowException(
            f"Final state of Athena job is {state}. Max tries of poll status exceeded, "
            f"query_execution_id is {job_id}."
        )


__all__ = ["AthenaOperator"]

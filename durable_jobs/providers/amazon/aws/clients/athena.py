"""Amazon Athena queries through the official ``AthenaHook``.

The epoch's key goes into ``StartQueryExecution``'s ``ClientRequestToken`` (32–128 characters).
The Athena API reference (StartQueryExecution, ``ClientRequestToken``): "A unique case-sensitive
string used to ensure the request to create the query is idempotent (executes only once). If another
StartQueryExecution request is received, the same response is returned and another query is not
created. An error is returned if a parameter, such as QueryString, has changed." A lost reply, or a
crash inside the submit→persist window, is therefore recovered by sending the same request under the
same token. Athena has no lookup by token (``ListQueryExecutions`` returns bare ids): ``find()``
answers None and the protocol resends the same token, as for Databricks; no listing is scanned, so
no consistency window applies.

The reference is silent on how long a token is remembered (a same-key resend comes from the task's
own retries, normally minutes later; a token Athena had forgotten would start a second query), on
which parameters besides ``QueryString`` count as "changed", and on the error code for either case (a
same-key resend repeats the request it was written for). It is also silent on what
``GetQueryExecution`` answers for an unknown id: only an ``InvalidRequestException`` saying the
execution "was not found" is read as MISSING; any other error is raised, never guessed.

A user's own ``client_request_token`` is combined with the key (``<token>-<key>``, the token
shortened to a digest when the whole would pass 128 characters): a query that genuinely failed then
gets a new query on retry, instead of Athena handing back the failed one for a token it has seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from durable_jobs.core.pacing import pace_call
from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, chunked, error_code
from durable_jobs.providers.amazon.aws.clients.tokens import token_with_prefix

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.athena import AthenaHook

#: ``QueryExecutionState`` (Athena API reference, QueryExecutionStatus), as the official hook sorts
#: it. "For queries that experience certain transient errors, the state transitions from RUNNING back
#: to QUEUED. The FAILED state is always terminal with no automatic retry."
ATHENA_STATES = StateTable(
    vendor="Amazon Athena",
    active=frozenset({"QUEUED", "RUNNING"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"FAILED", "CANCELLED"}),
)
MIN_TOKEN_LENGTH = 32
MAX_TOKEN_LENGTH = 128
#: ``BatchGetQueryExecution``: "Array Members: Minimum number of 1 item. Maximum number of 50 items."
BATCH_GET_LIMIT = 50


def format_request_token(nonce: str, user_token: str | None = None) -> str:
    """The nonce (32 hex characters: Athena's minimum), or ``<user token>-<nonce>`` within 128."""
    return token_with_prefix(nonce, user_token, max_length=MAX_TOKEN_LENGTH)


def is_not_found(err: BaseException) -> bool:
    return error_code(err) == "InvalidRequestException" and "not found" in str(err).lower()


class AthenaJobClient(AwsJobClient):
    """``StartQueryExecution`` under ``ClientRequestToken``; ``find`` answers None (no lookup by token)."""

    vendor: ClassVar[str] = "Amazon Athena"
    states: ClassVar[StateTable] = ATHENA_STATES
    status_endpoint: ClassVar[str] = "athena:GetQueryExecution"

    def _make_hook(self) -> AthenaHook:
        from airflow.providers.amazon.aws.hooks.athena import AthenaHook

        return AthenaHook(**self._hook_kwargs())

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return format_request_token(nonce, user_token)

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        response = self.submit_client.start_query_execution(**{**request, "ClientRequestToken": key})
        return str(self.field(response, "QueryExecutionId", "StartQueryExecution"))

    def _scan(self, key: str, since: datetime | None) -> None:
        return None

    def find(self, key: str, *, since: datetime | None = None) -> None:
        # No lookup by token exists; resending the same token returns the same query.
        return None

    # ------------------------------------------------------------------ status
    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official trigger's event carries the id as "value"; its ``execute_complete`` reads it there."""
        return {"value": job_id}

    def _describe(self, client: Any, job_id: Any) -> Any:
        return client.get_query_execution(QueryExecutionId=job_id)

    def _is_missing(self, err: BaseException) -> bool:
        return is_not_found(err)

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        return self._execution_status(self.field(response, "QueryExecution", "GetQueryExecution") or {})

    def _execution_status(self, execution: Mapping[str, Any]) -> JobStatus:
        status = execution.get("Status") or {}
        return self._status_from(status.get("State", ""), status.get("StateChangeReason", ""), execution)

    async def astatuses(self, job_ids: Iterable[Any]) -> dict[Any, JobStatus]:
        """``BatchGetQueryExecution``, 50 ids a call. An id Athena leaves unprocessed is asked alone
        (``GetQueryExecution``): the reference does not say which ``ErrorCode`` means "not found"."""
        ids = list(job_ids)
        client = await self._async_client()
        result: dict[Any, JobStatus] = {}
        for chunk in chunked(ids, BATCH_GET_LIMIT):
            await pace_call()
            response = await client.batch_get_query_execution(QueryExecutionIds=chunk)
            for execution in self.field(response, "QueryExecutions", "BatchGetQueryExecution") or []:
                result[execution.get("QueryExecutionId")] = self._execution_status(execution)
            for job_id in chunk:
                if job_id not in result:
                    await pace_call()
                    result[job_id] = await self.astatus(job_id)
        return result

    def cancel(self, job_id: Any) -> None:
        self.client.stop_query_execution(QueryExecutionId=job_id)

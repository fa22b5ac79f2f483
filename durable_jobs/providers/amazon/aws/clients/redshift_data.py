"""Amazon Redshift Data API statements (``ExecuteStatement``, ``BatchExecuteStatement``) through the official
``RedshiftDataHook``.

Both calls take a ``ClientToken``: the epoch's key goes there. The Redshift Data API reference
(ExecuteStatement and BatchExecuteStatement, ``ClientToken``): "A unique, case-sensitive identifier that you
provide to ensure the idempotency of the request." Length 1-64 (the key: 32 hex characters). A lost reply,
or a crash inside the submit→persist window, is therefore recovered by sending the same request under the
same token. The reference says no more: not how long a token is remembered, nor what a token resent with
other parameters gets (ours never does: the key belongs to one epoch, and a changed request starts a new one).

The Data API has no lookup by token (``ListStatements`` does not return it): ``find()`` answers None and the
protocol resends the same token, as for Athena; no listing is scanned, so no consistency window applies.
Since the token makes a resend idempotent, the submit goes through the ordinary client with the SDK's
retries on (as ECS ``RunTask``). The official operator sends no token: botocore fills one in (the member is an
``idempotencyToken``) and reuses it on its own retries within one call, but a new try is a new statement.

States (``DescribeStatement`` ``Status``): "SUBMITTED - The query was submitted, but not yet processed",
"PICKED - The query has been chosen to be run", "STARTED - The query run has started", "FINISHED - The query
has finished running", "FAILED - The query run failed", "ABORTED - The query run was stopped by the user".
A batch's id describes the whole batch; its ``SubStatements`` carry ids with a ":<n>" suffix. An unknown id:
the reference lists ``ResourceNotFoundException`` ("failed due to a missing resource") and
``ValidationException`` ("failed due to invalid input") without saying which an expired statement gets; both
read as MISSING, as the official operator's own ``get_job_status`` reads them ("a missing/expired statement
degrades to NOT_FOUND"). Any other error is raised, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, log

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook

#: ``StatementStatusString`` (DescribeStatement ``Status``), as the official hook sorts it
#: (``RUNNING_STATES``, ``FINISHED_STATE``, ``FAILURE_STATES``).
REDSHIFT_DATA_STATES = StateTable(
    vendor="Amazon Redshift Data API",
    active=frozenset({"SUBMITTED", "PICKED", "STARTED"}),
    succeeded=frozenset({"FINISHED"}),
    failed=frozenset({"FAILED", "ABORTED"}),
)
#: ``ClientToken``'s length constraints in the API model: 1 to 64 characters.
MAX_TOKEN_LENGTH = 64
MISSING_CODES = frozenset({"ResourceNotFoundException", "ValidationException"})


class RedshiftDataJobClient(AwsJobClient):
    """``ExecuteStatement`` / ``BatchExecuteStatement`` under ``ClientToken``; ``find`` answers None."""

    vendor: ClassVar[str] = "Amazon Redshift Data API"
    states: ClassVar[StateTable] = REDSHIFT_DATA_STATES
    status_endpoint: ClassVar[str] = "redshift-data:DescribeStatement"
    missing_codes: ClassVar[frozenset[str]] = MISSING_CODES

    def __init__(self, aws_conn_id: str | None = "aws_default", **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        #: statement id -> the ``SessionId`` its submit answered (the operator's ``session_id`` XCom)
        self.session_ids: dict[str, str] = {}

    def _make_hook(self) -> RedshiftDataHook:
        from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook

        return RedshiftDataHook(**self._hook_kwargs())

    @property
    def submit_client(self):
        """The hook's client: a resend under the same ``ClientToken`` is idempotent, so the SDK may retry it."""
        return self.client

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = {**request, "ClientToken": key}
        if "Sqls" in args:
            response = self.submit_client.batch_execute_statement(**args)
            operation = "BatchExecuteStatement"
        else:
            response = self.submit_client.execute_statement(**args)
            operation = "ExecuteStatement"
        statement_id = str(self.field(response, "Id", operation))
        if response.get("SessionId"):
            self.session_ids[statement_id] = str(response["SessionId"])
        return statement_id

    def _scan(self, key: str, since: datetime | None) -> None:
        return None

    def find(self, key: str, *, since: datetime | None = None) -> None:
        # No lookup by token exists; resending the same token returns the same statement.
        return None

    # ------------------------------------------------------------------ status
    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official ``RedshiftDataTrigger``'s event names the statement (its ``execute_complete`` reads it)."""
        return {"statement_id": job_id}

    def _describe(self, client: Any, job_id: Any) -> Any:
        return client.describe_statement(Id=job_id)

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        return self._status_from(self.field(response, "Status", "DescribeStatement"), response.get("Error") or "",
                                 response)

    def cancel(self, job_id: Any) -> None:
        """``CancelStatement`` ("To be canceled, a query must be running"); ``Status`` False: declined."""
        response = self.client.cancel_statement(Id=job_id)
        if not response.get("Status"):
            log.warning("Amazon Redshift Data API declined to cancel statement %s; it may have already finished",
                        job_id)

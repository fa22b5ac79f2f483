"""Drop-in durable ``RedshiftDataOperator``: each SQL statement (or batch) runs exactly once (``ClientToken``).

Change one import line::

    from airflow.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator
    from durable_jobs.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator

Same arguments, template fields, XComs (``session_id`` when the Data API answers one) and return value as
amazon-provider 9.39's: the statement ids (a batch's sub-statement ids), or with ``return_sql_result`` the
``GetStatementResult`` of each. ``cancel_on_kill`` keeps upstream's boolean (True → cancel on a user's kill,
False → never) and also takes the mixin's policies. How the key travels:
``durable_jobs.providers.amazon.aws.clients.redshift_data``.

Differences from the official operator, on purpose:

* The official operator checkpoints the statement id on its synchronous path only (``ResumableJobMixin``,
  after ``ExecuteStatement`` answered); ours writes the key before the call and covers the deferrable path
  too. On reconnect ours re-pushes ``session_id`` and returns the result (upstream: the result, no XCom).
* ``on_kill`` cancels only when a *user* stopped the Airflow task, on both paths; upstream cancels on any
  kill of the synchronous path (eviction included) and on a user's kill while deferred.
* A failed or aborted statement raises upstream's ``RedshiftDataQueryFailedError`` /
  ``RedshiftDataQueryAbortedError`` on both paths (upstream's deferred path raises an ``AirflowException``
  that prints the whole task context).
"""

from __future__ import annotations

from pprint import pformat
from typing import TYPE_CHECKING, Any, cast

from airflow.providers.amazon.aws.operators import redshift_data as _rsd
from airflow.providers.amazon.aws.utils import trim_none_values

from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.redshift_data import RedshiftDataJobClient
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


# The official ``cancel_on_kill`` is a bool; the mixin maps it to our policy (``core.cancel.validate_policy``).
class RedshiftDataOperator(AwsDurableMixin, _rsd.RedshiftDataOperator):  # type: ignore[misc]
    """The official ``RedshiftDataOperator``, running each statement exactly once."""

    __init__ = with_official_signature(_rsd.RedshiftDataOperator)
    external_id_key = "redshift_statement_id"
    official_event_id_keys = ("statement_id",)
    poll_interval_argument = "poll_interval"
    durable_request_fields = ("secret_arn", "with_event", "session_keep_alive_seconds")

    @property
    def wait_for_termination(self) -> bool:
        return bool(self.wait_for_completion)  # upstream ignores deferrable when it does not wait

    def make_job_client(self) -> RedshiftDataJobClient:
        return RedshiftDataJobClient(self.aws_conn_id, **self._client_kwargs())

    # ----------------------------------------------------------------- the request and what follows it
    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """Upstream ``RedshiftDataHook.execute_query``'s request and checks (the token is the client's)."""
        from uuid import UUID

        from pendulum import duration

        self.log.info("Executing statement: %s", self.sql)
        if sum(x is not None for x in (self.cluster_identifier, self.workgroup_name, self.session_id)) != 1:
            raise ValueError("Exactly one of cluster_identifier, workgroup_name, or session_id must be provided")
        if self.session_id is not None:
            msg = "session_id must be a valid UUID4"
            try:
                if UUID(self.session_id).version != 4:
                    raise ValueError(msg)
            except ValueError:
                raise ValueError(msg) from None
        keep = self.session_keep_alive_seconds
        if keep is not None and (keep < 0 or duration(seconds=keep).hours > 24):
            raise ValueError("Session keep alive duration must be between 0 and 86400 seconds.")
        request: dict[str, Any] = {
            "ClusterIdentifier": self.cluster_identifier, "Database": self.database, "DbUser": self.db_user,
            "Parameters": self.parameters, "WithEvent": self.with_event, "SecretArn": self.secret_arn,
            "StatementName": self.statement_name, "WorkgroupName": self.workgroup_name,
            "SessionId": self.session_id, "SessionKeepAliveSeconds": keep,
        }
        request["Sqls" if isinstance(self.sql, list) else "Sql"] = self.sql
        return trim_none_values(request)

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """Upstream's ``statement_id`` (for ``on_kill``), its lineage call and its ``session_id`` XCom."""
        from airflow.providers.common.sql.hooks.lineage import send_sql_hook_lineage

        self.statement_id = job_id
        self.log.info("Redshift Data API statement %s: %s", "reconnected" if reconnected else "submitted", job_id)
        session = cast(RedshiftDataJobClient, self.job_client).session_ids.get(job_id)
        if session is None and reconnected and (self.session_id or self.session_keep_alive_seconds is not None):
            described = self.call_vendor(job_id, lambda: self.hook.conn.describe_statement(Id=job_id))
            session = described.get("SessionId")
        if not reconnected:
            sql = self.sql
            send_sql_hook_lineage(  # as the hook's execute_query, after the statement was accepted
                context=self.hook, sql="; ".join(sql) if isinstance(sql, list) else sql,
                sql_parameters=self.parameters or None, job_id=job_id, default_db=self.database,
                extra={"cluster_identifier": self.cluster_identifier, "workgroup_name": self.workgroup_name,
                       "session_id": self.session_id or session},
            )
        if session and context:
            context["ti"].xcom_push(key="session_id", value=session)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        self.log.info("Polling statement %s", job_id)
        self.log.info("Query status: %s", status.state)

    def job_result(self, context: Context, job_id: Any) -> Any:
        """Upstream's return value: the statement ids (a batch's sub-statements), or their results."""
        self.statement_id = job_id
        return self.call_vendor(job_id, lambda: self.get_sql_results(
            statement_id=job_id, return_sql_result=self.return_sql_result))

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        """Upstream returns the same value when it does not wait (the statement may still be running)."""
        return self.job_result(context, job_id)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Upstream's event check (``validate_execute_complete_event``) and success line around ours."""
        if event is None:
            from airflow.providers.amazon.aws.utils import validate_execute_complete_event

            validate_execute_complete_event(event)  # raises upstream's "Trigger error: event is None"
        result = super().execute_complete(context, event)
        self.log.info("%s completed successfully.", self.task_id)
        return result

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """Upstream's exceptions and text (``RedshiftDataHook.parse_statement_response``)."""
        from airflow.providers.amazon.aws.hooks.redshift_data import (
            ABORTED_STATE,
            RedshiftDataQueryAbortedError,
            RedshiftDataQueryFailedError,
        )

        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        raw = dict(status.raw) or self.call_vendor(job_id, lambda: self.hook.conn.describe_statement(Id=job_id))
        raw.pop("ResponseMetadata", None)
        kind = RedshiftDataQueryAbortedError if status.state == ABORTED_STATE else RedshiftDataQueryFailedError
        return kind(f"Statement {job_id} terminated with status {status.state}. Response details: "
                    f"{cap(pformat(raw), 2000)}. A retry runs a new statement.")

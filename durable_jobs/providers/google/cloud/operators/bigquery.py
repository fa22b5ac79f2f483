"""Drop-in durable ``BigQueryInsertJobOperator``.

Change one import line::

    from airflow.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator
    from durable_jobs.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator

Same constructor arguments, template fields, return value (the job id), XComs (``job_id_path``, with the
official deprecation warning), extra links (``BigQueryTableLink``, ``BigQueryJobDetailLink``) and
OpenLineage as the official google-provider 22.8 operator. Each job is inserted exactly once on the
synchronous *and* the deferrable path: the epoch's key is the BigQuery job id (``<prefix>_<nonce>``), so a
resend answers 409 and the job is fetched (``durable_jobs.providers.google.cloud.clients.bigquery``).

What the official arguments mean here (``docs/google/bigquery.md``):

* ``job_id``: the prefix of the job id (upstream: a prefix too, suffixed with a config hash or a uuid); without
  it, upstream's ``airflow_<dag_id>_<task_id>``. It must already be a valid job id.
* ``force_rerun``: a retry after a crash reattaches and a genuinely failed job is retried as a new one either
  way (the nonce, not a hash, makes the id). ``force_rerun=False`` also means "never run this again for this
  run": a *clear* reattaches to (or returns) the job instead of starting a new one (``fresh_on_clear=False``,
  unless given), where upstream finds the job by its hash and fails on a DONE one.
* ``reattach_states``: accepted and kept; ours always reattaches to its own job (the id carries this epoch's
  nonce, so it can be no one else's) and a DONE job that succeeded is success, not upstream's "Job is already
  in state DONE" error.
* ``cancel_on_kill``: True → cancel when a *user* stopped the task ("user"), False → "never".
* A dry run (``configuration.dryRun``) creates no job: it runs as upstream does, without a record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.providers.google.cloud.operators import bigquery as _official

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.google.cloud.clients.bigquery import BigQueryJobClient, check_user_job_id, default_prefix

if TYPE_CHECKING:
    from airflow.sdk import Context


def _names_a_table(job: Any) -> bool:
    """Whether the official ``_persist_job_links`` persists a table link for ``job`` (its configuration names
    a source or destination table)."""
    configuration = job.to_api_repr().get("configuration") or {}
    return any(isinstance(part, dict) and ("sourceTable" in part or "destinationTable" in part)
               for part in configuration.values())


class BigQueryJobError(JobFailedError):
    """A BigQuery job ended with ``errorResult``: an ``AirflowException``, as the official operator raises."""


def _bigquery_init(official: type) -> Any:
    base = with_official_signature(official)

    def __init__(self: Any, **kwargs: Any) -> None:
        if "fresh_on_clear" not in kwargs and kwargs.get("force_rerun") is False:
            kwargs["fresh_on_clear"] = False  # force_rerun=False: a clear does not run the job again
        base(self, **kwargs)

    __init__.__signature__ = base.__signature__  # type: ignore[attr-defined]
    __init__.__doc__ = base.__doc__
    return __init__


# type-ignore: our execute_complete takes our trigger's event; cancel_on_kill is mapped to our policy.
class BigQueryInsertJobOperator(DurableJobMixin, _official.BigQueryInsertJobOperator):  # type: ignore[misc]
    """The official ``BigQueryInsertJobOperator``, inserting each job exactly once."""

    __init__ = _bigquery_init(_official.BigQueryInsertJobOperator)

    if TYPE_CHECKING:  # what the official operator defines
        configuration: dict[str, Any]
        project_id: str
        location: str | None
        job_id: str | None
        gcp_conn_id: str
        impersonation_chain: Any
        result_timeout: float | None
        result_retry: Any
        deferrable: bool
        hook: Any
        _job: Any
        _configured_job_id: str | None

    poll_interval_argument = "poll_interval"
    user_token_argument = "job_id"
    durable_request_fields = ("location",)

    def make_job_client(self) -> BigQueryJobClient:
        return BigQueryJobClient(self.gcp_conn_id, project_id=self.project_id, location=self.location,
                                 impersonation_chain=self.impersonation_chain)

    def user_idempotency_token(self) -> str | None:
        """The job id's prefix: the user's rendered ``job_id`` (checked), else ``airflow_<dag_id>_<task_id>``."""
        given = self._configured_job_id if self._configured_job_id is not None else None
        if given:
            return check_user_job_id(str(given))
        return default_prefix(self.dag_id, self.task_id)

    def execute(self, context: Context) -> Any:
        self._configured_job_id = self.job_id
        if isinstance(self.configuration, dict) and self.configuration.get("dryRun"):
            return self._dry_run(context)
        return super().execute(context)

    def _dry_run(self, context: Context) -> Any:
        """Upstream's path: nothing is created, so there is nothing to record or reattach to."""
        self.log.info("configuration.dryRun is set: BigQuery validates and estimates; no job runs, no record kept")
        self.job_id = _official.BigQueryInsertJobOperator.submit_job(self, context)
        self._handle_job_error(self._job)
        return self.job_id

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """The official ``submit_job`` up to the insert: hook, project, labels, the log lines."""
        client = self.job_client
        assert isinstance(client, BigQueryJobClient)
        self.hook = client.hook
        if not self.project_id:
            self.project_id = client.project_id
        self._add_job_labels(self.hook)
        self.log.info("Executing: %s", self.configuration)
        if self.sql:
            self.log.info("SQL query:\n%s", self.sql)
        return {"configuration": self.configuration, "project_id": self.project_id, "location": self.location,
                "timeout": self.result_timeout, "retry": self.result_retry}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """What the official ``submit_job`` does with the job: ``self._job``, the links and ``job_id_path``."""
        client = self.job_client
        assert isinstance(client, BigQueryJobClient)
        self.hook = client.hook
        if not self.project_id:
            self.project_id = self.call_vendor(job_id, lambda: client.project_id)
        self._job = self.call_vendor(job_id, lambda: client.job(str(job_id)))
        if reconnected:
            self.log.info("Reattaching to existing Job %s in state %s", job_id, self._job.state)
        if context is not None:
            self._persist_job_links(self._job, context)
        self.job_id = str(job_id)

    def _persist_job_links(self, job: Any, context: Any) -> None:
        """The official links, and an empty table link where the job names no table (a DML statement, a
        script): Airflow builds every extra link when the task ends, and the official table link's lookup of an
        XCom never pushed has Airflow log "XCom not found" at error level on a run that went well. The link
        is the empty one either way."""
        super()._persist_job_links(job, context)
        if not (self.project_id and _names_a_table(job)):
            context["ti"].xcom_push(key=_official.BigQueryTableLink.key, value="")

    def job_result(self, context: Context, job_id: Any) -> str:
        self.job_id = str(job_id)
        self.log.info("Job %s is completed. Checking the job status", self.job_id)
        return self.job_id

    def accepted_result(self, context: Context, job_id: Any) -> str:
        return str(job_id)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official text ("BigQuery job <id> failed: <errorResult>"), then what a retry does."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        error = status.raw.get("error") or status.message
        job = getattr(self.job_client, "jobs", {}).get(str(job_id))
        for problem in getattr(job, "errors", None) or []:  # as the official _handle_job_error logs them
            self.log.error("BigQuery Job Error: %s", problem)
        return BigQueryJobError(
            f"BigQuery job {job_id} failed: {cap(error, 2000)}. A retry submits a new job.",
            job_id=job_id, state=status.state,
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        # The official trigger's event: as the official execute_complete reads it.
        if isinstance(event, dict) and "client" not in event and event.get("status") == "error":
            from airflow.exceptions import AirflowException

            raise AirflowException(event.get("message"))
        result = super().execute_complete(context, event)
        if isinstance(event, dict):
            self.log.info("%s completed with response %s ", self.task_id, event.get("message"))
        return result

    # The SDK mixin's methods, answering as the official operator does ("success", "error", "not_found").
    def get_job_status(self, external_id: Any, context: Context) -> str:
        client = self.job_client
        assert isinstance(client, BigQueryJobClient)
        self.hook = client.hook  # as upstream resolves the hook and the project here too
        if not self.project_id:
            self.project_id = client.project_id
        status = client.status(external_id)
        if status.phase is JobPhase.MISSING:
            return "not_found"
        return {"SUCCESS": "success", "FAILURE": "error"}.get(status.state, status.state)

    def is_job_active(self, status: str) -> bool:
        return status not in ("success", "error", "not_found")

    def is_job_succeeded(self, status: str) -> bool:
        return status == "success"


__all__ = ["BigQueryInsertJobOperator", "BigQueryJobError"]

"""Drop-in durable ``DatabricksSubmitRunOperator``, ``DatabricksRunNowOperator``, ``DatabricksNotebookOperator``,
``DatabricksTaskOperator`` and ``DatabricksSQLStatementsOperator``.

Change one import line::

    from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
    from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

Same constructor arguments, template fields, XComs (``run_id``, ``run_page_url``, and ``job_id``
on the deferrable path) and extra link as the official 7.23 operators, plus ``cancel_on_kill``
and ``fresh_on_clear``. The run is submitted exactly once on the synchronous *and* the
deferrable path; the key travels in ``idempotency_token``. A user-supplied
``idempotency_token`` is combined with the epoch's key (``<token>-<nonce>``), so a run that
genuinely failed is retried with a new run rather than handed back by Databricks.

The notebook and task operators submit through ``runs/submit`` too (upstream sends no token there).
``DatabricksSQLStatementsOperator`` keeps its statement id and reconnects (W3-W5 closed). The Statement
Execution API documents no idempotency field and nothing to find a statement by, so a statement whose POST
reply is lost, or whose worker dies after the POST and before the id is stored, runs again on the retry:
that window (W2) stays open, and the class docstring says what to do about it.
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.providers.databricks.hooks.databricks import RunState, SQLStatementState
from airflow.providers.databricks.operators import databricks as _official
from airflow.providers.databricks.utils.databricks import extract_failed_task_errors, normalise_json_content
from airflow.providers.databricks.utils.query_tags import build_query_tags, dict_to_query_tag_list
from airflow.providers.databricks.utils.retry import validate_deferrable_databricks_retry_args

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.databricks.clients.databricks import LIFE_CYCLE_ACTIVE, DatabricksJobClient
from durable_jobs.providers.databricks.clients.databricks_sql import DatabricksStatementClient

if TYPE_CHECKING:
    from airflow.providers.databricks.hooks.databricks import DatabricksHook
    from airflow.sdk import Context

XCOM_RUN_ID_KEY = _official.XCOM_RUN_ID_KEY
XCOM_RUN_PAGE_URL_KEY = _official.XCOM_RUN_PAGE_URL_KEY
XCOM_JOB_ID_KEY = _official.XCOM_JOB_ID_KEY
XCOM_STATEMENT_ID_KEY = _official.XCOM_STATEMENT_ID_KEY


class DatabricksJobRunLink(_official.DatabricksJobRunLink):
    """The official "See Databricks Job Run" link, registered under this provider."""


class _DatabricksDurableMixin(DurableJobMixin):
    """What both Databricks operators share: the client, XComs, the official log lines and errors."""

    if TYPE_CHECKING:  # what both official Databricks operators define
        databricks_conn_id: str
        databricks_retry_limit: int
        databricks_retry_delay: int
        databricks_retry_args: dict[Any, Any] | None
        deferrable: bool
        run_id: int | None
        polling_period_seconds: int

        @property
        def _hook(self) -> DatabricksHook: ...

    _client_mode = "submit"
    poll_interval_argument = "polling_period_seconds"
    user_token_argument = "idempotency_token"

    def validate_for_deferral(self) -> None:
        # The official trigger refuses retry arguments that cannot cross to the triggerer (tenacity
        # objects); ours would silently lose them. Same check, same message, same moment (before defer()).
        validate_deferrable_databricks_retry_args(self.databricks_retry_args, owner=type(self).__name__)

    def make_job_client(self) -> DatabricksJobClient:
        return DatabricksJobClient(
            self.databricks_conn_id, mode=self._client_mode, retry_limit=self.databricks_retry_limit,
            retry_delay=self.databricks_retry_delay, retry_args=self.databricks_retry_args,
            caller=type(self).__name__,
        )

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.run_id = job_id
        # one runs/get, as the official operator makes (under the fault policy: the run is fine), unless a
        # trigger's event brought the URL along
        if getattr(self, "_run_page_url", None) is None:
            self._run_page_url = self.call_vendor(job_id, lambda: self.job_client.url(job_id))
        if self.do_xcom_push and context is not None:  # the official operators accept context=None
            ti = context["ti"]
            if self.deferrable:  # as the official deferrable path does
                ti.xcom_push(key=XCOM_JOB_ID_KEY, value=self.call_vendor(job_id, lambda: self._hook.get_job_id(job_id)))
            ti.xcom_push(key=XCOM_RUN_ID_KEY, value=job_id)
            ti.xcom_push(key=XCOM_RUN_PAGE_URL_KEY, value=self._run_page_url)
        self.log.info("View run status, Spark UI, and logs at %s", self._run_page_url)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        """The official operator's lines for each poll of a running run."""
        if status.phase is JobPhase.UNKNOWN:
            return  # the fault policy has already said what it does about a state it does not know
        self.log.info("%s in run state: %s", self.task_id, _run_state(status))
        self.log.info("View run status, Spark UI, and logs at %s", getattr(self, "_run_page_url", None))
        self.log.info("Sleeping for %s seconds.", self.polling_period_seconds)

    def job_result(self, context: Context, job_id: Any) -> Any:
        if self.deferrable:
            self.log.info("Job run completed successfully.")
        else:
            self.log.info("%s completed successfully.", self.task_id)
        return None

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official operator's message first (with the failed tasks' errors), then what a retry does."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        run_state = _run_state(status)
        errors: Any = list(status.raw.get("errors") or [])  # the official trigger's event carries them
        if not errors and isinstance(run_state, RunState) and run_state.result_state == "FAILED":
            try:
                run_info = status.raw or self._hook.get_run(job_id)
                errors = extract_failed_task_errors(self._hook, dict(run_info), run_state)
            except Exception as err:  # noqa: BLE001 - the failure itself is what must be reported
                self.log.warning("Could not read the failed tasks' errors of run %s: %s", job_id, cap(err, 300))
        if self.deferrable:
            text = f"Job run failed with terminal state: {run_state} and with the errors {errors}"
        elif errors:
            text = f"{self.task_id} failed with terminal state: {run_state} and with the errors {errors}"
        else:
            text = f"{self.task_id} failed with terminal state: {run_state} and with the error {status.message}"
        return JobFailedError(f"{cap(text, 4000)}. A retry submits a new run.", job_id=job_id, state=status.state)

    def trigger_echo(self) -> dict[str, Any]:
        return {"repair_run": bool(getattr(self, "repair_run", False)),
                "run_page_url": getattr(self, "_run_page_url", None)}

    # The SDK mixin's methods, answering exactly as the official operators do ("LIFE_CYCLE:RESULT").
    def get_job_status(self, external_id: Any, context: Context) -> str:
        status = self.job_client.status(external_id)
        if status.phase is JobPhase.MISSING:
            return "NOT_FOUND:"
        state = status.raw.get("state") or {}
        return f"{state.get('life_cycle_state')}:{state.get('result_state')}"

    def is_job_active(self, status: str) -> bool:
        return status.split(":", 1)[0] in LIFE_CYCLE_ACTIVE

    def is_job_succeeded(self, status: str) -> bool:
        return status == "TERMINATED:SUCCESS"

    def restore_from_echo(self, echo: dict[str, Any]) -> None:
        # A run already repaired once (before the last deferral) is not repaired again; the official
        # trigger's event carries the same flag, and both carry the run's page.
        if "repair_run" in echo and hasattr(self, "repair_run"):
            self.repair_run = bool(echo["repair_run"])
        if echo.get("run_page_url"):
            self._run_page_url = echo["run_page_url"]


# type-ignore: our execute_complete takes our trigger's event (context typed as Context, event optional).
class DatabricksSubmitRunOperator(  # type: ignore[misc]
    _DatabricksDurableMixin, _official.DatabricksSubmitRunOperator
):
    """The official ``DatabricksSubmitRunOperator`` (``runs/submit``), submitting each run exactly once."""

    __init__ = with_official_signature(_official.DatabricksSubmitRunOperator)
    operator_extra_links = (DatabricksJobRunLink(),)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        json = self._prepare_submit_json(context)
        json.pop("idempotency_token", None)
        return json


class DatabricksRunNowOperator(_DatabricksDurableMixin, _official.DatabricksRunNowOperator):
    """The official ``DatabricksRunNowOperator`` (``run-now``), triggering each run exactly once."""

    __init__ = with_official_signature(_official.DatabricksRunNowOperator)
    operator_extra_links = (DatabricksJobRunLink(),)
    _client_mode = "run-now"

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        # cancel_previous_runs runs only before a *fresh* key's first submit: on a same-key resend
        # the run created by the lost reply is ours, and cancelling it would hand us a cancelled run.
        if fresh_key:
            json = self._prepare_run_now_json(context)
        else:
            json = self._build_run_now_payload(context)
            self._merged_json = json
        json = dict(json)
        json.pop("idempotency_token", None)
        return json

    def on_failed_job(self, context: Context, job_id: Any, status: JobStatus) -> bool:
        """``repair_run``: repair the failed run in place (same epoch, same run id) and wait again."""
        if not self.repair_run or status.phase is JobPhase.MISSING:
            return False
        run_state = _run_state(status)
        if not isinstance(run_state, RunState) or (
            self.databricks_repair_reason_new_settings
            and not _official.is_repair_reason_match_exist(self, run_state)
        ):
            return False
        run_id = job_id
        self.log.warning("Run %s ended %s; repair_run is set, repairing all failed tasks", run_id, run_state)
        self.repair_run = False
        hook = self._hook
        _official.update_job_for_repair(self, hook, hook.get_job_id(run_id), run_state)
        repair_json: dict[str, Any] = {"run_id": run_id, "rerun_all_failed_tasks": True}
        if (latest := hook.get_latest_repair_id(run_id)) is not None:
            repair_json["latest_repair_id"] = latest
        merged = self._inject_run_now_job_parameters(copy.deepcopy(self._get_merged_json()), context)
        if "job_parameters" in merged:
            repair_json["job_parameters"] = normalise_json_content(merged["job_parameters"])
        hook.repair_run(repair_json)
        return True


def _run_state(status: JobStatus) -> RunState | str:
    """The official ``RunState`` of a status (its ``str`` is what the official messages show)."""
    life, _, result = status.state.partition(":")
    try:
        return RunState(life, result, status.message)
    except Exception:  # noqa: BLE001 - a life-cycle state the hook does not know either
        return f"{status.state} ({status.message})" if status.message else status.state


class _DatabricksTaskRunMixin(_DatabricksDurableMixin):
    """``DatabricksNotebookOperator`` / ``DatabricksTaskOperator`` standalone: one task through ``runs/submit``.

    The official operators submit without an ``idempotency_token`` and keep nothing; ours submit the same
    run JSON (``_get_run_json``) under the epoch's key, so a retry after a crash reconnects. They watch the
    submit run, as the official ``_monitor_submit_run`` does: it holds exactly this one task, so its end is
    the task's. Inside a ``DatabricksWorkflowTaskGroup`` nothing is submitted here (the group's launch task
    submitted the workflow run), so the official path runs unchanged.
    """

    if TYPE_CHECKING:  # what the official DatabricksTaskBaseOperator defines
        databricks_run_id: int | None
        wait_for_termination: bool

        @property
        def _databricks_workflow_task_group(self) -> Any: ...

        def _get_run_json(self) -> dict[str, Any]: ...

    external_id_key = "databricks_run_id"
    user_token_argument = None  # type: ignore[assignment]  # upstream has no token argument
    durable_request_fields: ClassVar[tuple[str, ...]] = ("existing_cluster_id", "job_cluster_key", "new_cluster")

    def _in_workflow(self) -> bool:
        return self._databricks_workflow_task_group is not None

    def execute(self, context: Context) -> Any:
        if self._in_workflow():
            return _official.DatabricksTaskBaseOperator.execute(self, context)  # type: ignore[arg-type]
        return super().execute(context)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if self._in_workflow():
            return _official.DatabricksTaskBaseOperator.execute_complete(self, context, event)  # type: ignore[arg-type]
        return super().execute_complete(context, event)

    def on_kill(self) -> None:
        if self._in_workflow():
            return _official.DatabricksTaskBaseOperator.on_kill(self)  # type: ignore[arg-type]
        return super().on_kill()

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        return self._get_run_json()

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """What the official ``_launch_job`` does once it has the run: its log line and its two XComs."""
        self.databricks_run_id = job_id
        if getattr(self, "_run_page_url", None) is None:
            self._run_page_url = self.call_vendor(job_id, lambda: self.job_client.url(job_id))
        self.log.info("Check the job run in Databricks: %s", self._run_page_url)
        if self.do_xcom_push and context is not None:
            context["ti"].xcom_push(key=XCOM_RUN_ID_KEY, value=job_id)
            context["ti"].xcom_push(key=XCOM_RUN_PAGE_URL_KEY, value=self._run_page_url)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        if status.phase is not JobPhase.UNKNOWN:
            self.log.info("Current state of the databricks run %s is %s", job_id, status.state.partition(":")[0])

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.log.info("Task succeeded. Final state %s.", "SUCCESS")
        return None

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official ``_handle_terminal_run_state`` messages, then what a retry does."""
        if status.phase is JobPhase.MISSING:
            return DurableJobMixin.failure_error(self, context, job_id, status)
        run_state = _run_state(status)
        errors: Any = list(status.raw.get("errors") or [])
        if not errors and isinstance(run_state, RunState) and run_state.result_state == "FAILED":
            try:
                errors = extract_failed_task_errors(self._hook, dict(status.raw or self._hook.get_run(job_id)),
                                                    run_state)
            except Exception as err:  # noqa: BLE001 - the failure itself is what must be reported
                self.log.warning("Could not read the failed tasks' errors of run %s: %s", job_id, cap(err, 300))
        life, _, result = status.state.partition(":")
        if life != "TERMINATED":
            text = f"Databricks job failed with state {life}. Message: {status.message}. Errors: {errors}"
        else:
            text = f"Task failed. Final state {result}. Reason: {status.message}. Errors: {errors}"
        return JobFailedError(f"{cap(text, 4000)}. A retry submits a new run.", job_id=job_id, state=status.state)


class DatabricksNotebookOperator(  # type: ignore[misc,metaclass]
    _DatabricksTaskRunMixin, _official.DatabricksNotebookOperator
):
    """The official ``DatabricksNotebookOperator`` (``runs/submit``), submitting each notebook run exactly once."""

    __init__ = with_official_signature(_official.DatabricksNotebookOperator)
    durable_request_fields = (*_DatabricksTaskRunMixin.durable_request_fields, "notebook_path", "source",
                              "notebook_packages")


class DatabricksTaskOperator(_DatabricksTaskRunMixin, _official.DatabricksTaskOperator):  # type: ignore[misc,metaclass]
    """The official ``DatabricksTaskOperator`` (``runs/submit``), submitting each task run exactly once."""

    __init__ = with_official_signature(_official.DatabricksTaskOperator)


class DatabricksSQLStatementsOperator(
    DurableJobMixin, _official.DatabricksSQLStatementsOperator
):
    """The official ``DatabricksSQLStatementsOperator`` (``POST /api/2.0/sql/statements``), reconnecting to
    its statement after a crash. Same arguments, template fields, XCom (``statement_id``), messages and
    return value (None) as the official 7.23 operator.

    * closed: the statement id reaches the task state store right after the POST, on both paths; a retry
      after a crash while polling, while deferred or after success (W3-W5), or a SIGTERM, reconnects;
    * closed: the POST is never resent inside a try (the official hook resends it on a 5xx or a reset);
    * **open (W2)**: a worker that dies after Databricks accepted the POST and before the id was stored, or
      a POST whose reply is lost, leaves only the intent record; the retry cannot tell whether the
      statement ran and runs it again, with a WARNING saying so. Where a second run matters, write the
      statement to be idempotent (``MERGE``, ``CREATE OR REPLACE``, ``INSERT OVERWRITE``).
    """

    __init__ = with_official_signature(_official.DatabricksSQLStatementsOperator)

    if TYPE_CHECKING:  # what the official operator defines
        statement_id: str | None

    external_id_key = "statement_id"
    poll_interval_argument = "polling_period_seconds"
    #: The official trigger's event names the statement so (a task deferred by the official class resumes here).
    official_event_id_keys: ClassVar[tuple[str, ...]] = ("statement_id",)
    #: Part of the request as the user wrote it, besides the template fields (conn id, query_tags).
    durable_request_fields: ClassVar[tuple[str, ...]] = (
        "statement", "warehouse_id", "catalog", "schema", "parameters",
    )

    def make_job_client(self) -> DatabricksStatementClient:
        return DatabricksStatementClient(
            self.databricks_conn_id, retry_limit=self.databricks_retry_limit,
            retry_delay=self.databricks_retry_delay, retry_args=self.databricks_retry_args,
            caller=type(self).__name__,
        )

    def validate_for_deferral(self) -> None:
        # the official trigger's own check, at the same moment (before defer())
        validate_deferrable_databricks_retry_args(self.databricks_retry_args, owner=type(self).__name__)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """The official ``execute``'s body (Airflow query tags per try); a same-key resend says what it risks."""
        if not fresh_key:
            self.log.warning(
                "durable-jobs: the previous try of %s stopped after it may have sent this statement and before "
                "its statement_id was stored. The Statement Execution API has no idempotency field and no way "
                "to find the statement, so it runs again now: if the first one ran, it ran twice.", self.task_id,
            )
        json: dict[str, Any] = {
            "statement": self.statement, "warehouse_id": self.warehouse_id, "catalog": self.catalog,
            "schema": self.schema, "parameters": self.parameters, "wait_timeout": "0s",
        }
        tags = build_query_tags(context, self.query_tags, self.include_airflow_query_tags)
        if tags:
            json["query_tags"] = dict_to_query_tag_list(tags)
        return json

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """The official XCom and log line, on submit and on reconnect alike."""
        self.statement_id = job_id
        if self.do_xcom_push and context is not None:
            context["ti"].xcom_push(key=XCOM_STATEMENT_ID_KEY, value=job_id)
        if reconnected:
            self.log.info("Reconnected to SQL Statement with statement_id: %s", job_id)
        else:
            self.log.info("SQL Statement submitted with statement_id: %s", job_id)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        if status.phase is JobPhase.UNKNOWN:
            return
        self.log.info("%s in run state: %s", self.task_id, status.state)
        self.log.info("Sleeping for %s seconds.", self.polling_period_seconds)

    def job_result(self, context: Context, job_id: Any) -> Any:
        if self.deferrable:
            self.log.info("SQL Statement with ID %s completed successfully.", job_id)
        else:
            self.log.info("%s completed successfully.", self.task_id)
        return None

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official message first, then what a retry does."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        code, message = status.raw.get("error_code", ""), status.raw.get("error_message", status.message)
        if self.deferrable:
            try:
                state: Any = SQLStatementState(status.state, code or "", message or "")
            except Exception:  # noqa: BLE001 - a state the hook does not know
                state = status.state
            error = {"error_code": code, "error_message": message} if code else {}
            text = f"SQL Statement execution failed with terminal state: {state} and with the error {error}"
        else:
            text = (f"{self.task_id} failed with terminal state: {status.state} and with the error code {code} "
                    f"and error message {message}")
        return JobFailedError(f"{cap(text, 4000)}. A retry runs the statement again.", job_id=job_id,
                              state=status.state)

    def max_polls(self) -> int | None:
        """The official ``timeout`` (seconds), as status checks of ``polling_period_seconds`` each."""
        return max(1, math.ceil(float(self.timeout) / max(float(self.polling_period_seconds), 1e-3)))

    def on_poll_limit(self, job_id: Any) -> None:
        """Upstream cancels a statement that outlived ``timeout`` (no "zombie" queries), then fails."""
        try:
            self.job_client.cancel(job_id)
        except Exception as err:  # noqa: BLE001 - the timeout is what must be reported
            self.log.warning("Could not cancel SQL statement %s after the timeout: %s", job_id, cap(err, 300))
        raise JobFailedError(f"{self.task_id} timed out after {self.timeout} seconds; statement {job_id} was "
                             "cancelled. A retry runs the statement again.", job_id=job_id, state="TIMEOUT")

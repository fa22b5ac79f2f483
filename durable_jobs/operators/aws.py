"""Drop-in durable ``BatchOperator``, ``GlueJobOperator``, ``EmrServerlessStartJobOperator`` and ``AthenaOperator``.

Change one import line::

    from airflow.providers.amazon.aws.operators.batch import BatchOperator
    from durable_jobs.operators.aws import BatchOperator

Same constructor arguments, template fields, XComs (return value: the job / run / query execution
id; Glue also ``glue_job_run_id``) and extra links as the official amazon-provider 9.39 operators,
plus the mixin's ``cancel_on_kill`` and ``fresh_on_clear``. Each job is submitted exactly once on the
synchronous and the deferrable path. How the key travels per service (job name and tag, a Glue
argument, ``clientToken``, Athena's ``ClientRequestToken``) is in the ``durable_jobs.hooks.aws_*``
modules.

Differences from the official operators, on purpose:

* ``on_kill`` cancels only when a *user* stopped the task (``cancel_on_kill="user"``), on both paths.
  Glue's ``stop_job_run_on_kill`` (official default False: a killed task leaves its run going) is
  superseded by ``cancel_on_kill``; EMR Serverless's boolean ``cancel_on_kill`` maps True → "user",
  False → "never". The official Athena operator stops its query on any kill, and never when deferred.
* The synchronous Batch path polls every ``poll_interval`` seconds (the official one ignores it there
  and sleeps 1–10 s at random); Glue's synchronous path keeps the official loop (``verbose`` logs).
* Athena: ``max_polling_attempts`` bounds the synchronous wait only (the shared ``JobTrigger`` has no
  attempt limit; ``execution_timeout`` bounds both paths), and a retry after it reconnects to the
  query instead of starting another; a failed query fails the deferrable path with the synchronous
  path's message ("Final state of Athena job is FAILED, ...").
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.hooks.athena import query_params_to_string
from airflow.providers.amazon.aws.links.athena import AthenaQueryResultsLink
from airflow.providers.amazon.aws.links.batch import BatchJobDetailsLink
from airflow.providers.amazon.aws.operators import athena as _athena
from airflow.providers.amazon.aws.operators import batch as _batch
from airflow.providers.amazon.aws.operators import emr as _emr
from airflow.providers.amazon.aws.operators import glue as _glue
from airflow.providers.amazon.aws.utils import trim_none_values

from durable_jobs.exceptions import JobFailedError
from durable_jobs.faults import cap
from durable_jobs.hooks.aws_athena import AthenaJobClient
from durable_jobs.hooks.aws_batch import BatchJobClient
from durable_jobs.hooks.aws_emr_serverless import EmrServerlessJobClient
from durable_jobs.hooks.aws_glue import GlueJobClient
from durable_jobs.hooks.base import JobPhase, JobStatus
from durable_jobs.operators.base import DurableJobMixin
from durable_jobs.operators.signature import with_official_signature

if TYPE_CHECKING:
    from airflow.sdk import Context


class _AwsDurableMixin(DurableJobMixin):
    """What the AWS operators share: connection arguments, and the id as the return value."""

    if TYPE_CHECKING:  # set by the official operators this is mixed into (AwsBaseOperator and its subclasses)
        region_name: str | None
        verify: bool | str | None
        botocore_config: dict[str, Any] | None
        deferrable: bool
        wait_for_completion: bool

    def _client_kwargs(self) -> dict[str, Any]:
        return {
            "region_name": self.region_name, "verify": self.verify,
            "botocore_config": self.botocore_config if isinstance(self.botocore_config, dict) else None,
        }

    @property
    def wait_for_termination(self) -> bool:
        # The official Batch and Glue operators always wait when deferrable.
        return bool(self.wait_for_completion or self.deferrable)

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        return job_id  # the official operators return the id without waiting, too


class BatchOperator(_AwsDurableMixin, _batch.BatchOperator):
    """The official ``BatchOperator``, submitting each AWS Batch job exactly once."""

    __init__ = with_official_signature(_batch.BatchOperator)
    external_id_key = "batch_job_id"
    durable_request_fields = ("share_identifier", "scheduling_priority_override", "submit_job_timeout")
    poll_interval_argument = "poll_interval"

    def make_job_client(self) -> BatchJobClient:
        return BatchJobClient(
            self.aws_conn_id, job_queue=self.job_queue, job_name=self.job_name, **self._client_kwargs()
        )

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.log.info(
            "Running AWS Batch job - job definition: %s - on queue %s", self.job_definition, self.job_queue
        )
        args = {
            "jobName": self.job_name, "jobQueue": self.job_queue, "jobDefinition": self.job_definition,
            "arrayProperties": self.array_properties, "parameters": self.parameters, "tags": self.tags,
            "containerOverrides": self.container_overrides,
            "ecsPropertiesOverride": self.ecs_properties_override,
            "eksPropertiesOverride": self.eks_properties_override, "nodeOverrides": self.node_overrides,
            "retryStrategy": self.retry_strategy, "shareIdentifier": self.share_identifier,
            "schedulingPriorityOverride": self.scheduling_priority_override,
        }
        if self.submit_job_timeout:
            args["timeout"] = {"attemptDurationSeconds": self.submit_job_timeout}
        return trim_none_values(args)

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.job_id = job_id
        BatchJobDetailsLink.persist(
            context=context, operator=self, region_name=self.hook.conn_region_name,
            aws_partition=self.hook.conn_partition, job_id=job_id,
        )
        # DescribeJobs, for the job queue/definition links: under the fault policy (the job is fine)
        self.call_vendor(job_id, lambda: self._persist_links(context))

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.job_id = job_id
        if self.awslogs_enabled:
            self._print_awslogs(job_id)
        self.call_vendor(job_id, lambda: self._persist_cloudwatch_link(context))
        return job_id

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official texts: the hook's ``check_job_success`` (sync) or the deferred path's."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        if self.deferrable:
            text = f"Error while running job: {job_id} is in {status.state} state"
        else:
            text = f"AWS Batch job ({job_id}) failed: {cap(dict(status.raw), 2000)}"
        return JobFailedError(f"{text}. A retry submits a new job.", job_id=job_id, state=status.state)

    def _print_awslogs(self, job_id: str) -> None:
        try:
            fetcher = self._get_batch_log_fetcher(job_id)
            for message in fetcher.get_last_log_messages(10000) if fetcher else []:
                self.log.info(message)
        except Exception:  # noqa: BLE001 - logs are a courtesy, as in the official operator
            self.log.warning("Unable to retrieve CloudWatch logs for AWS Batch job: %s", job_id, exc_info=True)


class GlueJobOperator(_AwsDurableMixin, _glue.GlueJobOperator):
    """The official ``GlueJobOperator``, starting each Glue job run exactly once."""

    __init__ = with_official_signature(_glue.GlueJobOperator)

    @property
    def poll_interval_argument(self) -> str:
        return "waiter_delay" if self.deferrable else "job_poll_interval"

    def make_job_client(self) -> GlueJobClient:
        return GlueJobClient(self.aws_conn_id, job_name=self.job_name, **self._client_kwargs())

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        script_args = self._build_script_args(context)
        self.log.info("Initializing AWS Glue Job: %s. Wait for completion: %s", self.job_name,
                      self.wait_for_completion)
        # The Glue *job* (the definition, not a run): get-or-create is idempotent.
        hook = self.hook
        job_name = hook.create_or_update_glue_job() if self.update_config else hook.get_or_create_glue_job()
        return {"JobName": job_name, "Arguments": script_args, **(self.run_job_kwargs or {})}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self._job_run_id = None  # let the official helper push the XCom and link again on this try
        self._set_job_run_id(context, job_id)

    def max_polls(self) -> int | None:
        """Deferred, the official trigger gives up after ``waiter_max_attempts``; synchronously it waits."""
        return max(1, int(self.waiter_max_attempts)) if self.deferrable else None

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        raise AirflowException(
            f"Error in glue job: run {job_id} of {self.job_name} still running after {self.waiter_max_attempts} "
            "checks (waiter_max_attempts). The run may still be running: the next try reconnects to it."
        )

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        """The official loop's lines (``GlueJobHook.job_completion``), and its CloudWatch logs when verbose."""
        if self.verbose:
            if getattr(self, "_log_tokens", None) is None:
                self._log_tokens = self.hook.LogContinuationTokens()
            self.hook.print_job_logs(job_name=self.job_name, run_id=job_id, continuation_tokens=self._log_tokens)
        self.log.info("Polling for AWS Glue Job %s current run state with status %s", self.job_name, status.state)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        # The official texts: FAILED/TIMEOUT from the hook's loop, any other end from poll_until_complete.
        if status.state in ("FAILED", "TIMEOUT"):
            text = f"Exiting Job {job_id} Run State: {status.state}"
        else:
            text = (f"Glue job run {job_id} for job {self.job_name} ended in state {status.state!r} "
                    "instead of succeeding")
        detail = f" ({cap(status.message, 2000)})" if status.message else ""
        return JobFailedError(f"{text}{detail}. A retry submits a new job run.", job_id=job_id, state=status.state)

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.log.info("AWS Glue Job: %s status: SUCCEEDED. Run Id: %s", self.job_name, job_id)
        if not self.deferrable and self.sleep_before_return:
            time.sleep(self.sleep_before_return)
        return job_id


# The official ``cancel_on_kill`` is a bool; the mixin maps it to our policy (``durable_jobs.cancel.validate_policy``).
class EmrServerlessStartJobOperator(_AwsDurableMixin, _emr.EmrServerlessStartJobOperator):  # type: ignore[misc]
    """The official ``EmrServerlessStartJobOperator``, starting each job run exactly once."""

    __init__ = with_official_signature(_emr.EmrServerlessStartJobOperator)
    external_id_key = "emr_serverless_job_run_id"
    official_event_id_keys = ("job_details.job_id", "job_id")
    poll_interval_argument = "waiter_delay"
    user_token_argument = "client_request_token"

    @property
    def wait_for_termination(self) -> bool:
        return bool(self.wait_for_completion)  # the official operator returns early when False, deferrable or not

    def make_job_client(self) -> EmrServerlessJobClient:
        return EmrServerlessJobClient(
            self.aws_conn_id, application_id=self.application_id, **self._client_kwargs()
        )

    def execute(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if event is None:
            self._start_application()  # may defer, coming back here with the trigger's event
        return self.execute_resumable(context)

    def _start_application(self) -> None:
        from datetime import timedelta

        from airflow.providers.amazon.aws.hooks.emr import EmrServerlessHook
        from airflow.providers.amazon.aws.triggers.emr import EmrServerlessStartApplicationTrigger
        from airflow.providers.amazon.aws.utils.waiter_with_logging import wait

        state = self.hook.conn.get_application(applicationId=self.application_id)["application"]["state"]
        if state in EmrServerlessHook.APPLICATION_SUCCESS_STATES:
            return
        self.log.info("Application state is %s; starting application %s", state, self.application_id)
        self.hook.conn.start_application(applicationId=self.application_id)
        if self.deferrable:
            self.defer(
                trigger=EmrServerlessStartApplicationTrigger(
                    application_id=self.application_id, waiter_delay=self.waiter_delay,
                    waiter_max_attempts=self.waiter_max_attempts, aws_conn_id=self.aws_conn_id,
                    region_name=self.region_name, verify=self.verify, botocore_config=self.botocore_config,
                ),
                method_name="execute", timeout=timedelta(seconds=self.waiter_max_attempts * self.waiter_delay),
            )
        wait(
            waiter=self.hook.get_waiter("serverless_app_started"), waiter_max_attempts=self.waiter_max_attempts,
            waiter_delay=self.waiter_delay, args={"applicationId": self.application_id},
            failure_message="Serverless Application failed to start", status_message="Serverless Application status is",
            status_args=["application.state", "application.stateDetails"],
        )

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.log.info("Starting job on Application: %s", self.application_id)
        config = dict(self.config or {})
        config.pop("clientToken", None)
        self.name = self.name or config.pop("name", None) or f"emr_serverless_job_airflow_{uuid.uuid4()}"
        config.pop("name", None)
        overrides = self.configuration_overrides
        if self.openlineage_inject_parent_job_info:
            overrides = _emr.inject_parent_job_information_into_emr_serverless_properties(overrides, context)
        if self.openlineage_inject_transport_info:
            overrides = _emr.inject_transport_information_into_emr_serverless_properties(overrides, context)
        args = {
            "applicationId": self.application_id, "executionRoleArn": self.execution_role_arn,
            "jobDriver": self.job_driver, "name": self.name, **config,
        }
        if overrides is not None:
            args["configurationOverrides"] = overrides
        return args

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.job_id = job_id
        self.log.info("EMR serverless job %s: %s", "reconnected" if reconnected else "started", job_id)
        self.persist_links(context)

    def max_polls(self) -> int:
        """The official waiter's contract: ``waiter_max_attempts`` polls, then cancel and fail."""
        return max(1, self.waiter_max_attempts)

    def on_official_event(self, context: Context, event: dict[str, Any], job_id: Any) -> None:
        """The official trigger's error event means its waiter gave up: cancel the run and fail, as upstream."""
        if event.get("status") != "success":
            self._cancel_and_fail(job_id, "", "EMR Serverless job failed or timed out in deferrable mode")

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official texts: the waiter's ``failure_message`` (sync) or the deferred path's."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        detail = f"{status.state}: {cap(status.message, 2000)}" if status.message else status.state
        if self.deferrable:
            text = f"EMR Serverless job failed or timed out in deferrable mode ({job_id} {detail})"
        else:
            text = f"Serverless Job failed: {job_id} {detail}"
        return JobFailedError(f"{text}. A retry submits a new job run.", job_id=job_id, state=status.state)

    def on_poll_limit(self, job_id: Any) -> None:
        self._cancel_and_fail(job_id, " due to max waiter attempts reached",
                              "Serverless Job failed: Waiter error: max attempts reached")

    def _cancel_and_fail(self, job_id: Any, why: str, message: str) -> None:
        """What the official operator does when its waiter gives up: cancel the run (reporting a failed
        cancel), then fail with its message."""
        from airflow.providers.common.compat.sdk import AirflowException

        self.log.info("Cancelling EMR Serverless job %s%s", job_id, why)
        try:
            self.job_client.cancel(job_id)
        except Exception:  # noqa: BLE001 - as the official operator: report, then fail
            self.log.exception("Failed to cancel EMR Serverless job %s", job_id)
        raise AirflowException(message)

    def job_result(self, context: Context, job_id: Any) -> Any:
        return job_id


class AthenaOperator(_AwsDurableMixin, _athena.AthenaOperator):
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


#: Operators that live in their own modules (which import ``_AwsDurableMixin`` from here), re-exported lazily
#: (PEP 562) so that importing either module first works. Add a line per operator.
_SUBMODULE_EXPORTS: dict[str, str] = {
    "StepFunctionStartExecutionOperator": "durable_jobs.operators.aws_stepfunctions",
    "EcsRunTaskOperator": "durable_jobs.operators.aws_ecs",
    "EmrContainerOperator": "durable_jobs.operators.aws_emr_containers",
    "RedshiftDataOperator": "durable_jobs.operators.aws_redshift_data",
    "EmrAddStepsOperator": "durable_jobs.operators.aws_emr_steps",
    "SageMakerTrainingOperator": "durable_jobs.operators.aws_sagemaker",
    "SageMakerProcessingOperator": "durable_jobs.operators.aws_sagemaker",
    "SageMakerTransformOperator": "durable_jobs.operators.aws_sagemaker",
}


def __getattr__(name: str) -> Any:
    module = _SUBMODULE_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = ["AthenaOperator", "BatchOperator", "EmrServerlessStartJobOperator", "GlueJobOperator",
           *_SUBMODULE_EXPORTS]

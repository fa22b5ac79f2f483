"""Drop-in durable Amazon EMR operators: ``EmrServerlessStartJobOperator``, ``EmrContainerOperator`` (EMR on
EKS) and ``EmrAddStepsOperator``, each starting its job run (or adding its steps) exactly once.

Change one import line::

    from airflow.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator
    from durable_jobs.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator

Same constructor arguments, template fields, XComs, return values and extra links as amazon-provider 9.39's,
plus the mixin's ``cancel_on_kill`` and ``fresh_on_clear``; sync and deferrable. How each carries the key is in
its client (``durable_jobs.providers.amazon.aws.clients.emr_serverless``, ``.emr_containers``, ``.emr_steps``);
each class says where it differs from the official one on purpose.
"""


from __future__ import annotations

import ast
import uuid
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators import emr as _emr

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.emr_containers import EmrContainersJobClient
from durable_jobs.providers.amazon.aws.clients.emr_serverless import EmrServerlessJobClient
from durable_jobs.providers.amazon.aws.clients.emr_steps import EmrStepsJobClient, make_job_id, split_job_id
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


# The official ``cancel_on_kill`` is a bool; the mixin maps it to our policy (``core.cancel.validate_policy``).
class EmrServerlessStartJobOperator(AwsDurableMixin, _emr.EmrServerlessStartJobOperator):  # type: ignore[misc]
    """The official ``EmrServerlessStartJobOperator``, starting each job run exactly once.

    Differences from the official operator, on purpose:

    * The official ``cancel_on_kill`` is a bool: True maps to "user", False to "never" (the run is cancelled
      only when a *user* stopped the task, on both paths).
    """

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


# The official ``cancel_on_kill`` is a bool; the mixin maps it to our policy (``core.cancel.validate_policy``).
class EmrContainerOperator(AwsDurableMixin, _emr.EmrContainerOperator):  # type: ignore[misc]
    """The official ``EmrContainerOperator``, starting each EMR on EKS job run exactly once.

    Differences from the official operator, on purpose:

    * ``client_request_token``: upstream sends the user's token unchanged, so EMR on EKS may hand a retry the
      run that already *failed* under it (the provider's docstring: "task retries return that run instead of
      starting a new one"). Ours sends ``<token>-<key>`` (shortened to a digest past 64 characters), as the
      Databricks operators combine ``idempotency_token``: crash recovery within an epoch, a new run after a
      genuine failure. Without a token upstream draws a fresh UUID per try (a crash starts a second run); ours
      keeps one key per epoch.
    * ``cancel_on_kill`` (upstream: a bool for the deferred path; its synchronous ``on_kill`` cancels on any
      kill) maps True → "user", False → "never": the run is cancelled (``CancelJobRun``) only when a *user*
      stopped the task, on both paths.
    * ``max_polling_attempts`` bounds the wait on both paths with upstream's synchronous message ("Max tries of
      poll status exceeded"); upstream's deferred path gives up with "Error while running job", and bounds the
      deferral by ``max_polling_attempts * poll_interval`` where ours uses ``execution_timeout``. A failed run
      fails both paths with upstream's synchronous message ("EMR Containers job failed. Final state is ...").
    * A status call that fails is retried under the shared fault policy; upstream's synchronous loop counts it
      as a poll of state None.
    """

    __init__ = with_official_signature(_emr.EmrContainerOperator)
    external_id_key = "emr_containers_job_id"
    durable_request_fields = ("client_request_token", "tags", "job_retry_max_attempts")
    official_event_id_keys = ("job_id",)
    poll_interval_argument = "poll_interval"
    user_token_argument = "client_request_token"

    def make_job_client(self) -> EmrContainersJobClient:
        return EmrContainersJobClient(self.aws_conn_id, virtual_cluster_id=self.virtual_cluster_id,
                                      **self._client_kwargs())

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """Upstream ``execute`` and ``EmrContainerHook.submit_job``'s parameters (the token is the client's)."""
        overrides = self.configuration_overrides
        if self.openlineage_inject_parent_job_info:
            self.log.info("Injecting OpenLineage parent job information into EMR on EKS configuration.")
            overrides = _emr.inject_parent_job_information_into_emr_serverless_properties(overrides, context)
        if self.openlineage_inject_transport_info:
            self.log.info("Injecting OpenLineage transport information into EMR on EKS configuration.")
            overrides = _emr.inject_transport_information_into_emr_serverless_properties(overrides, context)
        request: dict[str, Any] = {
            "name": self.name, "virtualClusterId": self.virtual_cluster_id,
            "executionRoleArn": self.execution_role_arn, "releaseLabel": self.release_label,
            "jobDriver": self.job_driver, "configurationOverrides": overrides or {}, "tags": self.tags or {},
        }
        if self.job_retry_max_attempts:
            request["retryPolicyConfiguration"] = {"maxAttempts": self.job_retry_max_attempts}
        return request

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.job_id = job_id
        self.log.info("EMR on EKS job run %s: %s (virtual cluster %s)",
                      "reconnected" if reconnected else "started", job_id, self.virtual_cluster_id)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        self.log.info("Job run %s is still in non-terminal state - %s", job_id, status.state)

    def max_polls(self) -> int | None:
        """Upstream: ``max_polling_attempts`` status checks (None: until the run ends)."""
        return max(1, int(self.max_polling_attempts)) if self.max_polling_attempts else None

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        state = self.call_vendor(job_id, lambda: self.job_client.status(job_id)).state
        raise AirflowException(
            f"Final state of EMR Containers job is {state}. Max tries of poll status exceeded, "
            f"query_execution_id is {job_id}. The run may still be running: the next try reconnects to it."
        )

    def on_official_event(self, context: Context, event: dict[str, Any], job_id: Any) -> None:
        """The official ``EmrContainerTrigger``'s error event (its waiter saw FAILED/CANCELLED or gave up) fails
        the task with upstream's message, as upstream's ``execute_complete`` does (a task deferred by the
        official operator that resumes with ours)."""
        from airflow.providers.common.compat.sdk import AirflowException

        if event.get("status") != "success":
            raise AirflowException(f"Error while running job: {cap(event, 2000)}")

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """Upstream's ``check_failure`` text (its error: ``<failureReason> - <stateDetails>``)."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        return JobFailedError(
            f"EMR Containers job failed. Final state is {status.state}. query_execution_id is {job_id}. "
            f"Error: {cap(status.message, 2000) or None}. A retry starts a new job run.",
            job_id=job_id, state=status.state,
        )

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.job_id = job_id
        return job_id


class EmrAddStepsOperator(AwsDurableMixin, _emr.EmrAddStepsOperator):
    """The official ``EmrAddStepsOperator``, adding each call's steps exactly once.

    Differences from the official operator, on purpose:

    * Step names get a suffix ``" [durable-jobs <key> <i>/<n>]"`` (a name too long for EMR's 256 characters is cut,
      with a WARNING). Steps, sensors or scripts that match a step by its exact name must allow for it.
    * A crash or lost reply after ``AddJobFlowSteps`` does not add the steps again; on reconnect ours re-pushes
      the XComs and returns the step ids (upstream: a new try adds new steps).
    * ``on_kill`` cancels the steps (``CancelSteps``) when a *user* stopped the Airflow task, on both paths;
      upstream has no ``on_kill``: a killed task leaves its steps running.
    * ``waiter_max_attempts`` bounds the whole wait on both paths (upstream's synchronous wait gives each step
      ``waiter_max_attempts`` polls, one step after another); INTERRUPTED fails the synchronous path too (upstream's
      ``step_complete`` waiter has no acceptor for it and polls on until its attempts run out).
    """

    __init__ = with_official_signature(_emr.EmrAddStepsOperator)
    external_id_key = "emr_steps_job_id"
    official_event_id_keys = ("value",)
    poll_interval_argument = "waiter_delay"
    #: The cluster this try adds to (``job_flow_id``, or the one ``job_flow_name`` names), set in ``execute``
    _dj_cluster: str | None = None

    def make_job_client(self) -> EmrStepsJobClient:
        return EmrStepsJobClient(self.aws_conn_id, cluster_id=self._dj_cluster or self.job_flow_id or "",
                                 **self._client_kwargs())

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        return split_job_id(job_id)[1]  # upstream returns the step ids without waiting, too

    # ----------------------------------------------------------------- the cluster, as upstream finds it
    def _resolve_cluster(self) -> str:
        from airflow.providers.common.compat.sdk import AirflowException

        if self._dj_cluster is None:
            cluster = self.job_flow_id or self.hook.get_cluster_id_by_name(str(self.job_flow_name),
                                                                           self.cluster_states)
            if not cluster:
                raise AirflowException(f"No cluster found for name: {self.job_flow_name}")
            self._dj_cluster = cluster
            self.__dict__.pop("job_client", None)  # find() lists this cluster's steps
        return self._dj_cluster

    def execute(self, context: Context) -> Any:
        """Upstream's ``execute`` up to ``AddJobFlowSteps`` (cluster lookup, XCom, links), then the protocol."""
        from airflow.providers.amazon.aws.links.emr import EmrClusterLink, EmrLogsLink, get_log_uri

        job_flow_id = self._resolve_cluster()
        if self.do_xcom_push:
            context["ti"].xcom_push(key="job_flow_id", value=job_flow_id)
        EmrClusterLink.persist(context=context, operator=self, region_name=self.hook.conn_region_name,
                               aws_partition=self.hook.conn_partition, job_flow_id=job_flow_id)
        EmrLogsLink.persist(context=context, operator=self, region_name=self.hook.conn_region_name,
                            aws_partition=self.hook.conn_partition, job_flow_id=self.job_flow_id,
                            log_uri=get_log_uri(emr_client=self.hook.conn, job_flow_id=job_flow_id))
        self.log.info("Adding steps to %s", job_flow_id)
        return self.execute_resumable(context)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """Upstream's request (``EmrHook.add_job_flow_steps``): the steps as given, a string parsed, OpenLineage
        parent information injected; the key goes into the names (the client's)."""
        steps = self.steps
        if isinstance(steps, str):
            steps = ast.literal_eval(steps)
        if self.openlineage_inject_parent_job_info:
            self.log.info("Injecting OpenLineage parent job information into EMR Spark steps.")
            steps = self._inject_openlineage_parent_job_information(steps, context)
        request: dict[str, Any] = {"JobFlowId": self._resolve_cluster(), "Steps": list(steps or [])}
        if self.execution_role_arn:
            request["ExecutionRoleArn"] = self.execution_role_arn
        return request

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.log.info("Steps %s %s JobFlow", split_job_id(job_id)[1], "found in" if reconnected else "added to")

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        self.log.info("EMR Step status is: %s (steps %s)", status.state, split_job_id(job_id)[1])

    def max_polls(self) -> int:
        return max(1, int(self.waiter_max_attempts))

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.amazon.aws.exceptions import WaiterMaxAttemptsError

        raise WaiterMaxAttemptsError(
            f"Waiter error: max attempts reached (EMR steps {split_job_id(job_id)[1]} still running after "
            f"{self.waiter_max_attempts} checks). The steps may still be running: the next try reconnects to them."
        )

    def job_result(self, context: Context, job_id: Any) -> Any:
        return split_job_id(job_id)[1]

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """Upstream's texts: the ``step_complete`` waiter's (sync) or ``execute_complete``'s (deferred)."""
        from airflow.providers.amazon.aws.exceptions import WaiterTerminalFailure

        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        steps = split_job_id(job_id)[1]
        detail = cap(status.message, 2000)
        if self.deferrable:
            return JobFailedError(f"Error while running steps: {steps} ended {status.state} ({detail}). A retry "
                                  "adds the steps again.", job_id=job_id, state=status.state)
        self.log.error("EMR Steps failed: %s", detail)
        return WaiterTerminalFailure(f"EMR Steps failed: {detail}. A retry adds the steps again.",
                                     last_response=dict(status.raw))

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Upstream's event check and success line around ours."""
        if event is None:
            from airflow.providers.amazon.aws.utils import validate_execute_complete_event

            validate_execute_complete_event(event)  # raises upstream's "Trigger error: event is None"
        result = super().execute_complete(context, event)
        self.log.info("Steps completed successfully")
        return result

    def _resume_official_event(self, context: Context, event: dict[str, Any]) -> Any:
        """The official trigger's event carries the step ids only: ours name their cluster too."""
        value = event.get("value")
        if isinstance(value, list) and value:
            event = {**event, "value": make_job_id(self._resolve_cluster(), [str(v) for v in value])}
        return super()._resume_official_event(context, event)


__all__ = ["EmrServerlessStartJobOperator", "EmrContainerOperator", "EmrAddStepsOperator"]

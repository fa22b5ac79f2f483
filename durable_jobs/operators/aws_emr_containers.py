"""Drop-in durable ``EmrContainerOperator`` (EMR on EKS): each job run is started exactly once.

Change one import line::

    from airflow.providers.amazon.aws.operators.emr import EmrContainerOperator
    from durable_jobs.operators.aws import EmrContainerOperator

Same arguments, template fields and return value (the job run id, also when not waiting) as amazon-provider
9.39's, plus ``durable`` and ``fresh_on_clear``; sync and deferrable. The epoch's key travels in
``StartJobRun``'s ``clientToken`` (how, and what the API reference leaves unsaid: ``durable_jobs.hooks.
aws_emr_containers``; docs/emulators/aws-emr-containers.md).

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

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators import emr as _emr

from durable_jobs.exceptions import JobFailedError
from durable_jobs.faults import cap
from durable_jobs.hooks.aws_emr_containers import EmrContainersJobClient
from durable_jobs.hooks.base import JobPhase, JobStatus
from durable_jobs.operators.aws import _AwsDurableMixin
from durable_jobs.operators.signature import with_official_signature

if TYPE_CHECKING:
    from airflow.sdk import Context


# The official ``cancel_on_kill`` is a bool; the mixin maps it to our policy (``durable_jobs.cancel.validate_policy``).
class EmrContainerOperator(_AwsDurableMixin, _emr.EmrContainerOperator):  # type: ignore[misc]
    """The official ``EmrContainerOperator``, starting each EMR on EKS job run exactly once."""

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

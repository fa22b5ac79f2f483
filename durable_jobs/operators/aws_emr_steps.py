"""Drop-in durable ``EmrAddStepsOperator``: the steps of one call are added to the cluster exactly once.

Change one import line::

    from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
    from durable_jobs.operators.aws import EmrAddStepsOperator

Same arguments, template fields, XComs (``job_flow_id`` when ``do_xcom_push``; the cluster and logs links),
``job_flow_name`` lookup (``cluster_states``) and return value (the step ids) as amazon-provider 9.39's, plus
``durable``, ``cancel_on_kill`` and ``fresh_on_clear``. ``AddJobFlowSteps`` has no idempotency token: each
step's ``Name`` carries the key, and a retry finds the steps with ``ListSteps`` (``durable_jobs.hooks.aws_emr_steps``).

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

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators import emr as _emr

from durable_jobs.exceptions import JobFailedError
from durable_jobs.faults import cap
from durable_jobs.hooks.aws_emr_steps import EmrStepsJobClient, make_job_id, split_job_id
from durable_jobs.hooks.base import JobPhase, JobStatus
from durable_jobs.operators.aws import _AwsDurableMixin
from durable_jobs.operators.signature import with_official_signature

if TYPE_CHECKING:
    from airflow.sdk import Context


class EmrAddStepsOperator(_AwsDurableMixin, _emr.EmrAddStepsOperator):
    """The official ``EmrAddStepsOperator``, adding each call's steps exactly once."""

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

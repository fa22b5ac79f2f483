"""Drop-in durable ``StepFunctionStartExecutionOperator``.

Change one import line::

    from airflow.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator
    from durable_jobs.providers.amazon.aws.operators.step_function import StepFunctionStartExecutionOperator

Same arguments, template fields, return value (the execution ARN) and links (State Machine Details,
State Machine Executions Details) as the official operator of amazon-provider 9.39. As upstream, the
synchronous path returns once the execution has started and the deferrable path waits for it in the
triggerer (``waiter_delay``, ``waiter_max_attempts``). How the key travels (the execution name, or a
redrive's ``clientToken``) is in ``durable_jobs.providers.amazon.aws.clients.stepfunctions``.

Differences from the official operator, on purpose: the execution's name is ``<name>-<key>`` (or the key
alone when no ``name`` is given; upstream lets AWS pick a UUID), so that a retry after a crash finds the
execution and a retry after a failure starts a new one — upstream's retry of a named execution fails with
``ExecutionAlreadyExists``; a user's kill stops the execution (``cancel_on_kill="user"``; upstream never
stops it).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.links.step_function import (
    StateMachineDetailsLink,
    StateMachineExecutionsDetailsLink,
)
from airflow.providers.amazon.aws.operators import step_function as _sfn

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.stepfunctions import RESEND, StepFunctionsJobClient
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


class StepFunctionStartExecutionOperator(AwsDurableMixin, _sfn.StepFunctionStartExecutionOperator):
    """The official ``StepFunctionStartExecutionOperator``, starting each execution exactly once."""

    __init__ = with_official_signature(_sfn.StepFunctionStartExecutionOperator)
    external_id_key = "step_function_execution_arn"
    official_event_id_keys = ("execution_arn",)
    poll_interval_argument = "waiter_delay"
    user_token_argument = "name"

    @property
    def wait_for_termination(self) -> bool:
        return bool(self.deferrable)  # the official synchronous path returns once the execution started

    def make_job_client(self) -> StepFunctionsJobClient:
        return StepFunctionsJobClient(
            self.aws_conn_id, state_machine_arn=self.state_machine_arn,
            redrive=bool(self.is_redrive_execution), **self._client_kwargs(),
        )

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """The official hook's ``start_execution`` request, without the name (the key is the name)."""
        from airflow.providers.common.compat.sdk import AirflowFailException

        args: dict[str, Any] = {"stateMachineArn": self.state_machine_arn}
        if self.is_redrive_execution:
            if not self.name:
                raise AirflowFailException(
                    f"Execution name is required to start RedriveExecution for {self.state_machine_arn}: "
                    "pass `name`, the name of the execution to redrive."
                )
            args["name"] = self.name
            args[RESEND] = not fresh_key
            return args
        if isinstance(self.state_machine_input, str):
            args["input"] = self.state_machine_input
        elif isinstance(self.state_machine_input, dict):
            args["input"] = json.dumps(self.state_machine_input)
        self.log.info("Executing Step Function State Machine: %s", self.state_machine_arn)
        return args

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        hook = self.hook
        StateMachineDetailsLink.persist(
            context=context, operator=self, region_name=hook.conn_region_name, aws_partition=hook.conn_partition,
            state_machine_arn=self.state_machine_arn,
        )
        StateMachineExecutionsDetailsLink.persist(
            context=context, operator=self, region_name=hook.conn_region_name, aws_partition=hook.conn_partition,
            execution_arn=job_id,
        )
        self.log.info("%s State Machine execution for %s: %s", "Reconnected to" if reconnected else "Started",
                      self.state_machine_arn, job_id)

    def job_result(self, context: Context, job_id: Any) -> Any:
        if self.deferrable:
            self.log.info("State Machine execution completed successfully")
        return job_id

    def max_polls(self) -> int:
        """The official trigger's waiter: ``waiter_max_attempts`` checks, then it gives up."""
        return max(1, int(self.waiter_max_attempts))

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        raise AirflowException(
            f"Waiter error: max attempts reached. Step function execution {job_id} is still running after "
            f"{self.waiter_max_attempts} checks (waiter_max_attempts); the next try reconnects to it."
        )

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        self.log.info("Status of step function execution is: %s", status.state)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official waiter's ``failure_message`` first, then the execution's error and cause."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        detail = f" {cap(status.message, 2000)}" if status.message else ""
        return JobFailedError(
            f"Step function failed: {job_id} {status.state}{detail}. A retry starts a new execution.",
            job_id=job_id, state=status.state,
        )


__all__ = ["StepFunctionStartExecutionOperator"]

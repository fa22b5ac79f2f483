"""AWS Step Functions executions through the official ``StepFunctionHook``.

The execution ``name`` is the idempotency key. The Step Functions API reference (StartExecution):
"``StartExecution`` is idempotent for ``STANDARD`` workflows. For a ``STANDARD`` workflow, if you call
``StartExecution`` with the same name and input as a running execution, the call succeeds and return the
same response as the original request. If the execution is closed or if the input is different, it
returns a ``400 ExecutionAlreadyExists`` error. You can reuse the name 90 days after it closes." Names
are 1–80 characters.

So the epoch's key is the execution name: the nonce alone, or ``<name>-<nonce>`` when the user gave a
``name`` (the user's part trimmed so the whole fits in 80), so that a genuinely failed execution is
retried as a new one instead of answering ``ExecutionAlreadyExists``. A same-key resend returns the
running execution; ``ExecutionAlreadyExists`` under our own key means the execution this epoch started
has closed already (or a template rendered its input differently on this try): it is that execution.

The execution ARN follows from the state machine and the name (IAM, resource type ``execution``:
``arn:${Partition}:states:${Region}:${Account}:execution:${StateMachineName}:${ExecutionId}``), so
``find(key)`` asks ``DescribeExecution`` for that one ARN — no listing. "This operation is eventually
consistent. The results are best effort and may not reflect very recent updates and changes." — so an
``ExecutionDoesNotExist`` is no proof of absence until the consistency window has passed (as for the
listings of Batch, Glue and EMR Serverless).

``is_redrive_execution=True`` restarts the named execution with ``RedriveExecution``, whose
``clientToken`` (1–64 characters) is the key: "The API will return idempotent responses for the last 10
client tokens used to successfully redrive the execution. These client tokens are valid for up to 15
minutes after they are first used." The redriven execution keeps its ARN; a resend after the 15 minutes
that AWS refuses (``ExecutionNotRedrivable``) because the execution is running again, or — on a resend of
this epoch's key only — has succeeded since, is that redrive.

Silent in the reference, and taken on the side that cannot duplicate: which error an unknown ARN gets
(only ``ExecutionDoesNotExist`` reads as missing). Not covered: ``EXPRESS`` state machines — "``StartExecution``
isn't idempotent for ``EXPRESS`` workflows" and ``DescribeExecution`` does not support them, so neither the
name nor a lookup can close the window; use ``durable=False`` for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, error_code, log
from durable_jobs.providers.amazon.aws.clients.tokens import name_with_prefix

#: ``ExecutionStatus`` (Step Functions API reference, DescribeExecution). PENDING_REDRIVE: a redrive was
#: accepted and the execution is about to run again.
STEP_FUNCTIONS_STATES = StateTable(
    vendor="AWS Step Functions",
    active=frozenset({"RUNNING", "PENDING_REDRIVE"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"FAILED", "TIMED_OUT", "ABORTED"}),
)
#: ``StartExecution`` ``name``: "Length Constraints: Minimum length of 1. Maximum length of 80."
MAX_NAME_LENGTH = 80
#: ``RedriveExecution`` ``clientToken``: 1–64 characters.
MAX_CLIENT_TOKEN_LENGTH = 64
NOT_FOUND_CODES = frozenset({"ExecutionDoesNotExist"})
#: Set in a redrive request when it resends this epoch's key (never sent to AWS).
RESEND = "durable_jobs_resend"


def execution_name_for(nonce: str, user_name: str | None = None) -> str:
    """The nonce, or ``<name>-<nonce>`` within 80 characters (the user's part is trimmed)."""
    return name_with_prefix(nonce, user_name, max_length=MAX_NAME_LENGTH)


def execution_arn_for(state_machine_arn: str, name: str) -> str:
    """The ARN of execution ``name`` of a state machine (version and alias qualifiers dropped)."""
    head, sep, tail = str(state_machine_arn).partition(":stateMachine:")
    if not sep or not tail:
        raise DurableJobConfigError(
            f"state_machine_arn {state_machine_arn!r} is not a state machine ARN "
            "(arn:<partition>:states:<region>:<account>:stateMachine:<name>)"
        )
    machine = tail.split(":", 1)[0].split("/", 1)[0]
    return f"{head}:execution:{machine}:{name}"


class StepFunctionsJobClient(AwsJobClient):
    """``StartExecution`` named by the key (``RedriveExecution`` under ``clientToken``); ``find`` describes it."""

    vendor: ClassVar[str] = "AWS Step Functions"
    states: ClassVar[StateTable] = STEP_FUNCTIONS_STATES
    status_endpoint: ClassVar[str] = "states:DescribeExecution"
    missing_codes: ClassVar[frozenset[str]] = NOT_FOUND_CODES
    service_fields = ("state_machine_arn", "redrive")

    def __init__(self, aws_conn_id: str | None = "aws_default", *, state_machine_arn: str = "",
                 redrive: bool = False, **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.state_machine_arn = state_machine_arn
        self.redrive = bool(redrive)

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.step_function import StepFunctionHook

        return StepFunctionHook(**self._hook_kwargs())

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        """The execution name; for a redrive, the ``clientToken`` (the name is the execution's own)."""
        return nonce if self.redrive else execution_name_for(nonce, user_token)

    # ------------------------------------------------------------------ submit
    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        if self.redrive:
            return self._redrive(request, key)
        args = {**request, "name": key}
        try:
            response = self.submit_client.start_execution(**args)
        except Exception as err:
            if error_code(err) != "ExecutionAlreadyExists":
                raise
            # Only this epoch sends this name: the execution it started has closed, or its input rendered
            # differently on this try. Either way it is the one execution of this key.
            arn = execution_arn_for(args.get("stateMachineArn") or self.state_machine_arn, key)
            log.warning("AWS Step Functions already has execution %s under key %s (%s): using it", arn, key, err)
            return arn
        return str(self.field(response, "executionArn", "StartExecution"))

    def _redrive(self, request: Mapping[str, Any], key: str) -> str:
        arn = execution_arn_for(request.get("stateMachineArn") or self.state_machine_arn, request["name"])
        try:
            self.submit_client.redrive_execution(executionArn=arn, clientToken=key)
        except Exception as err:
            if error_code(err) != "ExecutionNotRedrivable":
                raise
            # AWS no longer answers for the token (15 minutes) and the execution is not redrivable: it runs
            # again, or (only on a same-key resend: this epoch redrove it) it has already succeeded since.
            state = self.status(arn).state
            if state not in self.states.active and not (request.get(RESEND) and state in self.states.succeeded):
                raise
            log.warning("AWS Step Functions execution %s is %s (%s): it is this redrive", arn, state, err)
        return arn

    # ------------------------------------------------------------------ find
    def _scan(self, key: str, since: datetime | None) -> str | None:
        if self.redrive:
            return None  # the execution exists anyway; a same-token resend decides (15 minutes)
        arn = execution_arn_for(self.state_machine_arn, key)
        return arn if self.status(arn).state != "NOT_FOUND" else None

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        if self.redrive:
            return None
        return super().find(key, since=since)

    # ------------------------------------------------------------------ status
    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official trigger's event carries the ARN as "execution_arn"; its ``execute_complete`` reads it."""
        return {"execution_arn": job_id}

    def _describe(self, client: Any, job_id: Any) -> Any:
        return client.describe_execution(executionArn=job_id)

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        state = str(self.field(response, "status", "DescribeExecution"))
        message = ": ".join(str(response[k]) for k in ("error", "cause") if response.get(k))
        return self._status_from(state, message, response)

    def cancel(self, job_id: Any) -> None:
        # No error/cause: "A caller can stop an execution without using any KMS permissions in the execution
        # role if the caller provides a null value for both error and cause fields".
        self.client.stop_execution(executionArn=job_id)

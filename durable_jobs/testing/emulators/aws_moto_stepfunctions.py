"""The AWS Step Functions rules moto 5.2.5 lacks, installed by ``aws_moto.install_gap_rules``.

Kept apart from ``aws_moto`` (which merges ``GAPS`` into ``MOTO_GAPS`` and calls ``install``) so that this
service's emulator rules read in one place. Nothing here imports Airflow.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from durable_jobs.testing.emulators._moto_state import graft_managed_state

MODEL = "stepfunctions::execution"
#: An execution whose input contains this ends FAILED (``stepfunctions-life-cycle``): a key and value, so that
#: an input merely naming something "failed" (a crash cell's dag id) runs normally.
FAIL_MARKER = '"step": "fail"'
REDRIVABLE = ("FAILED", "ABORTED", "TIMED_OUT")
#: "The API will return idempotent responses for the last 10 client tokens used to successfully redrive".
REDRIVE_TOKENS = 10

GAPS: dict[str, str] = {
    "stepfunctions-life-cycle": (
        "moto starts every execution RUNNING and nothing ever ends it. Ours run RUNNING -> SUCCEEDED/FAILED on "
        "moto's state manager (model 'stepfunctions::execution'); an execution whose input contains '\"step\": "
        "\"fail\"' ends FAILED with an error and a cause, as DescribeExecution reports them."
    ),
    "stepfunctions-name-idempotency": (
        "Not a gap: moto models AWS's rule ('StartExecution is idempotent for STANDARD workflows. For a STANDARD "
        "workflow, if you call StartExecution with the same name and input as a running execution, the call "
        "succeeds and return the same response as the original request. If the execution is closed or if the "
        "input is different, it returns a 400 ExecutionAlreadyExists error.'), and ExecutionDoesNotExist for an "
        "unknown ARN. moto does not make DescribeExecution lag ('This operation is eventually consistent'): the "
        "proxy's lag() does not reach it either, so find()'s consistency window is exercised by the listing "
        "vendors' tests only. moto models no EXPRESS idempotency difference (the name is idempotent there too)."
    ),
    "stepfunctions-redrive": (
        "moto has no RedriveExecution. Ours restarts a FAILED, ABORTED or TIMED_OUT execution (PENDING_REDRIVE -> "
        "RUNNING -> SUCCEEDED: a redrive in the emulator always succeeds), answers ExecutionNotRedrivable for "
        "any other state, and returns the same answer for a clientToken among the last 10 that redrove the "
        "execution (AWS: 'The API will return idempotent responses for the last 10 client tokens used to "
        "successfully redrive the execution. These client tokens are valid for up to 15 minutes after they are "
        "first used.'; the 15 minutes are not modelled: ours remembers them until moto is reset)."
    ),
}


def install(patch: Callable[[Any, str, Any], None]) -> None:
    """Add the rules in ``GAPS`` through ``patch(owner, name, value)`` (undone by ``aws_moto``)."""
    from moto.core.exceptions import AWSError
    from moto.core.responses import ActionResult
    from moto.moto_api._internal.managed_state_model import ManagedState
    from moto.stepfunctions.models import Execution
    from moto.stepfunctions.responses import StepFunctionResponse

    class ExecutionNotRedrivable(AWSError):
        TYPE = "ExecutionNotRedrivable"
        STATUS = 400

    original_init = Execution.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        failing = FAIL_MARKER in str(self.execution_input)
        ManagedState.__init__(self, MODEL, [("RUNNING", "FAILED" if failing else "SUCCEEDED")])
        if failing:
            self.error, self.cause = "States.TaskFailed", "the task failed (the emulator's 'fail' marker)"
        else:
            self.output = "{}"

    def _record_stop(self: Any, status: str) -> None:
        if status != "RUNNING" and status != "PENDING_REDRIVE" and self.__dict__.get("stop_date") is None:
            self.__dict__["stop_date"] = datetime.now(tz=timezone.utc)

    def redrive_execution(self: StepFunctionResponse) -> ActionResult:
        arn = self._get_param("executionArn")
        token = self._get_param("clientToken") or ""
        execution = self.stepfunction_backend.describe_execution(arn)  # ExecutionDoesNotExist for an unknown ARN
        tokens: list[tuple[str, str]] = execution.__dict__.setdefault("_dj_redrive_tokens", [])
        for seen, date in tokens:
            if token and seen == token:
                return ActionResult({"redriveDate": date})
        if execution.status not in REDRIVABLE:
            raise ExecutionNotRedrivable(f"Execution {arn} is {execution.status} and cannot be redriven")
        state: Any = execution  # a ManagedState since __init__ above
        state._transitions = [("PENDING_REDRIVE", "RUNNING"), ("RUNNING", "SUCCEEDED")]
        state._status = "PENDING_REDRIVE"
        execution.error = execution.cause = None
        execution.output = "{}"
        execution.__dict__["stop_date"] = None
        date = datetime.now(tz=timezone.utc).isoformat()
        tokens.append((token, date))
        del tokens[:-REDRIVE_TOKENS]
        return ActionResult({"redriveDate": date})

    patch(Execution, "__init__", __init__)
    graft_managed_state(patch, Execution, "status", plain_key="_plain_status", on_read=_record_stop)
    patch(StepFunctionResponse, "redrive_execution", redrive_execution)

"""AWS Step Functions crash rows: W2, W5, SIGTERM (sync and deferrable) and MARK-FAILED while deferred.

The official ``StepFunctionStartExecutionOperator`` waits only when deferrable; its synchronous path
returns once the execution has started. So on the synchronous path there is no polling to kill: W5-sync
kills the worker after the execution started and its ARN was returned (ours: stored) but before the task
succeeded — a read the cell's DAG makes after ``execute`` (``dags/crash_dags.SfnReadsAfterStart``) is
held there — and SIGTERM-sync evicts the worker while ``StartExecution``'s reply is in flight (the only
stretch of that path once the execution exists). The deferrable rows are the shared AWS drivers
(``crash_aws_rows``): the execution is pinned in moto as any AWS job is.
"""

from __future__ import annotations

from crash_aws_rows import (
    COMPLETE_READS,
    _active,
    _peek,
    _pinned_job,
    _unpin,
    _wait_trigger_polling,
    aws_sigterm_deferrable,
    aws_w5_deferrable,
)
from crash_scenarios import AwsCellRun, Scenario, aws_w2
from crash_stack import StackError

KEY = "stepfunctions"
LABEL = "STEP-FUNCTIONS"


def sfn_w5_sync(run: AwsCellRun) -> None:
    """The execution started and the task has its ARN; the worker is SIGKILLed before the task succeeds."""
    read = COMPLETE_READS[KEY]
    held = run.emu.proxy.hold(read)
    run.trigger()
    run.wait(f"{read} parked (the worker after StartExecution returned)", held.parked.is_set, 120)
    created = run.emu.created()
    if len(created) != 1:
        raise StackError(f"{run.cell.id}: {len(created)} executions created before the held {read}")
    if run.ours and run.stored_id() != created[0]:
        raise StackError(f"{run.cell.id} window missed: the store names {run.stored_id()!r}, not {created[0]}")
    run.proof(f"vendor: execution {created[0]} {run.emu.jobs()[0]['status']}; worker after StartExecution "
              f"returned ({read} held)")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def sfn_mark_failed_deferred(run: AwsCellRun) -> None:
    """The user marks the task failed while it is deferred (the execution pinned: running). The execution is
    let go only once the cell has seen what the trigger's ``on_kill`` sent (ours: ``StopExecution``; it runs
    after the trigger has ended), so that the cancel meets a running execution and is counted."""
    job = _pinned_job(run)
    ti = _wait_trigger_polling(run)
    run.proof(f"vendor: execution {_active(run, job)}")
    run.mark_failed("deferred")
    run.wait_kill_handled(ti["trigger"]["triggerer_id"])
    stop = run.emu.service.cancel_ops[0]
    if run.ours:
        run.wait(f"{stop} from the trigger's on_kill", lambda: run.emu.calls(stop) >= 1, 60)
    run.proof(f"vendor: {stop} x{run.emu.calls(stop)}; execution {_peek(job)}")
    _unpin(job)


SFN_SCENARIOS: list[Scenario] = [
    Scenario(f"{LABEL}-W2", "AWS Step Functions: worker SIGKILL after AWS accepted StartExecution, before the "
             "ARN reached the store", {"sync": aws_w2, "deferrable": aws_w2}, vendor=KEY),
    Scenario(f"{LABEL}-W5", "AWS Step Functions: worker SIGKILL after the execution started and its ARN was "
             "returned (sync, which does not wait, as upstream) / after it succeeded, in execute_complete "
             "(deferrable)", {"sync": sfn_w5_sync, "deferrable": aws_w5_deferrable}, vendor=KEY,
             task={"reads_output": True}),
    Scenario(f"{LABEL}-SIGTERM", "AWS Step Functions: worker SIGTERM (eviction), 4 s grace, then SIGKILL, with "
             "StartExecution's reply in flight (sync: the path's only stretch once the execution exists; "
             "deferrable: before defer())",
             {"sync": aws_sigterm_deferrable, "deferrable": aws_sigterm_deferrable}, vendor=KEY),
    Scenario(f"{LABEL}-MARK-FAILED", "AWS Step Functions: user marks the task failed while it is deferred "
             "(the execution pinned: running)", {"deferrable": sfn_mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=KEY),
]

"""Crash rows for ``DatabricksNotebookOperator`` and ``DatabricksTaskOperator`` (one task through ``runs/submit``),
ours next to the official ones.

The cells run on a Databricks emulator of their own with the SubmitRun rows' drivers where those fit. The
official notebook operator keeps nothing in the task state store, so the synchronous drivers that waited for
the run id in the store wait here for the task's polling instead (``runs/get`` calls on the emulator), which
both operators do once the run exists. The vendor keys ``databricks_notebook`` and
``databricks_task`` are the registry's ``Operator.crash`` of the two operators.
"""

from __future__ import annotations

from crash_scenarios import (
    GET,
    SUBMIT,
    CellRun,
    Scenario,
    _run_but_no_id,
    kill_in_window,
    mark_failed_deferred,
    sigterm_deferrable,
    w5_deferrable,
)
from crash_stack import StackError

VENDOR = "databricks_notebook"


def _polling(run: CellRun) -> int:
    """The run's id, once the task polls it (``runs/get`` x3) with the emulator clock frozen."""
    run.wait_polling()
    runs = run.ledger()["runs"]
    if len(runs) != 1:
        raise StackError(f"{run.cell.id}: {len(runs)} runs created")
    run.proof(run.describe_store())
    return int(next(iter(runs)))


def w5_sync_polled(run: CellRun) -> None:
    """The run succeeds while the worker's next status read is held; the worker is SIGKILLed there."""
    run.freeze()
    run.trigger()
    run_id = _polling(run)
    run.arm(GET, "before")
    run.wait_held(GET, "before")
    run.emu.clock(advance=3600)
    state = run.ledger()["runs"][str(run_id)]
    if state["result_state"] != "SUCCESS":
        raise StackError(f"W5 window missed: run {run_id} is {state}")
    run.proof(f"vendor: run {run_id} TERMINATED/SUCCESS while the worker's poll is held")
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def sigterm_sync_polled(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    _polling(run)
    run.evict_worker()
    run.thaw()


def mark_failed_sync_polled(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    _polling(run)
    procs = run.task_procs()
    run.mark_failed("running")
    run.wait("the killed try's task runner to exit", lambda: not procs[1].is_running(), 60)
    run.thaw()


def task_run_rows(vendor: str, label: str, name: str) -> list[Scenario]:
    """W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, for one ``runs/submit`` task operator."""
    return [
        Scenario(f"{label}-W2", f"{name}: worker SIGKILL after Databricks accepted runs/submit, before the id "
                 "reached the store", {"sync": kill_in_window(SUBMIT, "after", store_check=_run_but_no_id),
                                       "deferrable": kill_in_window(SUBMIT, "after", store_check=_run_but_no_id)},
                 vendor=vendor),
        Scenario(f"{label}-W5", f"{name}: worker SIGKILL after the run succeeded (sync: last poll held; deferrable: "
                 "in execute_complete)", {"sync": w5_sync_polled, "deferrable": w5_deferrable},
                 vendor=vendor, task={"reads_output": True}),
        Scenario(f"{label}-SIGTERM", f"{name}: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
                 {"sync": sigterm_sync_polled, "deferrable": sigterm_deferrable}, vendor=vendor),
        Scenario(f"{label}-MARK-FAILED", f"{name}: user marks the task failed (sync: while polling; deferrable: "
                 "while deferred)", {"sync": mark_failed_sync_polled, "deferrable": mark_failed_deferred},
                 expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=vendor),
    ]


NOTEBOOK_SCENARIOS: list[Scenario] = task_run_rows(VENDOR, "NOTEBOOK", "Notebook")
#: ``DatabricksTaskOperator`` (a ``spark_python_task`` in ``task_config``): the same ``runs/submit`` path, its
#: own rows (the registry's ``Operator.crash`` is per operator).
TASK_SCENARIOS: list[Scenario] = task_run_rows("databricks_task", "DBTASK", "DatabricksTaskOperator")

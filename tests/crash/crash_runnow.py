"""Crash rows for ``DatabricksRunNowOperator`` (``jobs/run-now``), ours next to the official one.

The cells run on a Databricks emulator of their own, as the SubmitRun rows do, with the same drivers
(crash_scenarios): only the submit path differs (``jobs/run-now`` instead of ``jobs/runs/submit``),
and the job the operator triggers must exist first. Each driver seeds it (``POST /_emulator/jobs``,
job id ``RUN_NOW_JOB_ID``, one task) before it triggers the DAG run; the DAG (dags/crash_dags.py)
names that job id. The vendor key ``databricks_run_now`` is the registry's ``Operator.crash`` of
``DatabricksRunNowOperator``, so the matrix shows these rows under that operator.
"""

from __future__ import annotations

from collections.abc import Callable

from crash_scenarios import (
    CellRun,
    Scenario,
    _run_but_no_id,
    kill_in_window,
    mark_failed_deferred,
    mark_failed_sync,
    sigterm_deferrable,
    sigterm_sync,
    w5_deferrable,
    w5_sync,
)

VENDOR = "databricks_run_now"
RUN_NOW = "jobs/run-now"
#: the job every RunNow cell triggers (each cell has its own emulator, so one id serves all)
RUN_NOW_JOB_ID = 4242
#: the official DatabricksRunNowOperator's external_id_key (ours keeps its record beside it, ``<key>_durable``)
RAW_KEY = "databricks_run_now_id"
JOB_SETTINGS = {"name": "crash-run-now", "tasks": [{"task_key": "etl", "notebook_task": {"notebook_path": "/etl"}}]}


def seeded(driver: Callable[[CellRun], None]) -> Callable[[CellRun], None]:
    """``driver``, after the job the cell's RunNow task triggers was created on its emulator; the cell reads
    the store under RunNow's own key."""

    def run(cell_run: CellRun) -> None:
        cell_run.raw_key = RAW_KEY
        job_id = cell_run.emu._call("POST", "jobs", {"job_id": RUN_NOW_JOB_ID, "settings": JOB_SETTINGS})["job_id"]
        cell_run.note(f"job {job_id} created on the emulator before the DAG run")
        driver(cell_run)

    return run


RUN_NOW_SCENARIOS: list[Scenario] = [
    Scenario("RUNNOW-W2", "RunNow: worker SIGKILL after Databricks accepted jobs/run-now, before the id reached "
             "the store",
             {"sync": seeded(kill_in_window(RUN_NOW, "after", store_check=_run_but_no_id)),
              "deferrable": seeded(kill_in_window(RUN_NOW, "after", store_check=_run_but_no_id))},
             vendor=VENDOR),
    Scenario("RUNNOW-W5", "RunNow: worker SIGKILL after the run succeeded (sync: last poll held; deferrable: in "
             "execute_complete)", {"sync": seeded(w5_sync), "deferrable": seeded(w5_deferrable)},
             vendor=VENDOR, task={"reads_output": True}),
    Scenario("RUNNOW-SIGTERM", "RunNow: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": seeded(sigterm_sync), "deferrable": seeded(sigterm_deferrable)}, vendor=VENDOR),
    Scenario("RUNNOW-MARK-FAILED", "RunNow: user marks the task failed (sync: while polling; deferrable: while "
             "deferred)", {"sync": seeded(mark_failed_sync), "deferrable": seeded(mark_failed_deferred)},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
]

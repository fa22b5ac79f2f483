"""Cloud Run cells of the crash suite: one gRPC emulator for every cell, one project (and Cloud Run job) per cell.

Built on the Dataproc cells (``crash_dataproc.py``): the Cloud Run emulator subclasses the Dataproc one, so the same
tenant (holds, clock, ledger of the cell's project), cell run and drivers apply, with Cloud Run's calls: the submit
is ``RunJob``; the status call is ``GetExecution`` for ours and ``GetOperation`` for the official operator, which
polls ``RunJob``'s long-running operation (sync: ``operation.result()``; deferrable: ``CloudRunJobFinishedTrigger``).
The stack's Airflow processes reach the emulator through the Cloud Run section of
``tests/crash/vendor_route/sitecustomize.py`` (``DURABLE_JOBS_CLOUD_RUN_EMULATOR_ADDRESS``).

``RunJob`` has no request id: the official operator's retry after a kill inside the window starts a second
execution. Ours finds the first by listing the job's executions for the key in its overrides, over the
consistency window (``[durable_jobs] cloud_run_list_consistency_seconds``, 15 s by default, unchanged here). The
row CLOUD-RUN-LIST-LAG measures the window that stays open: the cell's project lists a new execution only
``LIST_LAG`` seconds after ``RunJob`` made it, longer than the window, and ours then starts a second execution too.
"""

from __future__ import annotations

from crash_dataproc import (
    DataprocCellRun,
    DataprocTenant,
    mark_failed_deferred,
    mark_failed_sync,
    sigterm_deferrable,
    sigterm_sync,
    w2,
    w5_deferrable,
    w5_sync,
)
from crash_scenarios import Scenario, StackError
from crash_tenant import google_conn_env, project_of

from durable_jobs.testing.emulators.cloud_run import REGION, ROUTE_ENV, CloudRunEmulator

VENDOR = "cloud_run"
#: The Cloud Run job every cell executes (in the cell's own project).
JOB = "crash-cell"
#: CLOUD-RUN-LIST-LAG: seconds before the cell's project lists a new execution (the window is 15 s).
LIST_LAG = 300.0
WINDOW = 15.0


class CloudRunTenant(DataprocTenant):
    """One cell's view of the shared Cloud Run emulator."""

    def __init__(self, emulator: CloudRunEmulator, project: str, official: bool):
        self.emulator, self.project = emulator, project  # type: ignore[assignment]
        self.submit, self.get, self.raw_key, self.done, self.kind = (
            "RunJob", "GetOperation" if official else "GetExecution", "cloud_run_execution_name", "SUCCEEDED", "job")

    def ledger(self) -> list[dict]:
        return [e for e in self.emulator.ledger() if e.get("project") == self.project]

    def lists(self) -> int:
        return self.emulator.calls_by_project.get(("ListExecutions", self.project), 0)


class CloudRunFleet:
    """The one emulator (127.0.0.1, port 0), a tenant and a Cloud Run job per cell."""

    def __init__(self, keys: list[str], lagged: list[str] = ()):
        self.emulator = CloudRunEmulator(run_seconds=3.0).start()
        self.tenants = {}
        for key in keys:
            project = project_of(key)
            self.emulator.add_job(JOB, project=project, region=REGION)
            self.tenants[key] = CloudRunTenant(self.emulator, project, official="_official_" in key)
        for key in lagged:
            self.emulator.set_list_lag(LIST_LAG, project_of(key))

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        return {ROUTE_ENV: self.emulator.address, **google_conn_env(conn_ids)}

    def stop(self) -> None:
        self.emulator.stop()


class CloudRunCellRun(DataprocCellRun):
    """A cell on Cloud Run: executions are the jobs; a cancel Cloud Run accepted (CANCELLING) is ending."""

    def collect(self) -> None:
        super().collect()
        jobs = self.emu.jobs()
        ending = ("SUCCEEDED", "FAILED", "CANCELLED", "CANCELLING")
        self.outcome.active_jobs = sum(1 for s in jobs.values() if s not in ending)
        self.outcome.cancels = sum(1 for e in self.emu.ledger() if e["op"] == "CancelExecution")
        keys = [e["request_id"] for e in self.emu.ledger() if e["op"] == "RunJob"]
        if self.ours and keys:
            self.proof(f"vendor: {len(keys)} execution(s), DURABLE_JOBS_KEY {', '.join(k[:8] + '…' for k in keys)}")


def list_lag(run: CloudRunCellRun) -> None:
    """W2 with the project's listing lagging ``LIST_LAG`` s behind RunJob, longer than the 15 s window."""
    w2(run)
    run.wait("the retry's RunJob (a second execution)", lambda: len(run.emu.jobs()) >= 2, 240)
    lists = run.emu.lists()  # type: ignore[attr-defined]
    if run.ours and lists == 0:
        raise StackError("LIST-LAG: the retry never listed the job's executions")
    run.proof(f"vendor: the first execution is listed only {LIST_LAG:.0f} s after RunJob; the retry listed the "
              f"job's executions {lists} time(s) over the {WINDOW:.0f} s window, saw none, and ran RunJob again")


CLOUD_RUN_SCENARIOS: list[Scenario] = [
    Scenario("CLOUD-RUN-W2", "Cloud Run: worker SIGKILL after RunJob started the execution, before its name reached "
             "the store", {"sync": w2, "deferrable": w2}, vendor=VENDOR),
    Scenario("CLOUD-RUN-W5", "Cloud Run: worker SIGKILL after the execution succeeded (sync: last poll held; "
             "deferrable: the resumed try)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=VENDOR),
    Scenario("CLOUD-RUN-SIGTERM", "Cloud Run: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=VENDOR),
    Scenario("CLOUD-RUN-MARK-FAILED", "Cloud Run: user marks the task failed (sync: while polling; deferrable: "
             "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
    # The window that stays open, measured: RunJob has no request id, and an execution listed later than the
    # consistency window is not found by the retry. Ours runs a second execution here, as documented.
    Scenario("CLOUD-RUN-LIST-LAG", "Cloud Run: W2 while ListExecutions lags RunJob by longer than the 15 s "
             "consistency window (the open window: a second execution)", {"sync": list_lag},
             expect_runs=2, vendor=VENDOR, operators=("ours",)),
]


__all__ = ["CLOUD_RUN_SCENARIOS", "CloudRunCellRun", "CloudRunFleet"]

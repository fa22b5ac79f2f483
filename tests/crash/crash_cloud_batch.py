"""Cloud Batch cells of the crash suite: one gRPC emulator for every cell, one project per cell.

Built on the Dataproc cells (``crash_dataproc.py``): the Batch emulator subclasses the Dataproc one, so the same
tenant (holds, clock, ledger of the cell's project), cell run and drivers apply, with Batch's calls (``CreateJob``,
``GetJob``). The stack's Airflow processes reach the emulator through the Cloud Batch section of
``tests/crash/vendor_route/sitecustomize.py`` (``DURABLE_JOBS_CLOUD_BATCH_EMULATOR_ADDRESS``).

The official operator keeps no state store record and uses the user's ``job_name`` as the job id: after a kill
inside the window its retry's ``CreateJob`` answers ALREADY_EXISTS, so its cells end failed with one job (not two);
the matrix shows that next to ours.
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
from crash_scenarios import Scenario
from crash_tenant import google_conn_env, project_of

from durable_jobs.testing.emulators.cloud_batch import ROUTE_ENV, CloudBatchEmulator

VENDOR = "cloud_batch"


class CloudBatchTenant(DataprocTenant):
    """One cell's view of the shared Batch emulator."""

    def __init__(self, emulator: CloudBatchEmulator, project: str):
        self.emulator, self.project = emulator, project  # type: ignore[assignment]
        self.submit, self.get, self.raw_key, self.done, self.kind = (
            "CreateJob", "GetJob", "cloud_batch_job_id", "SUCCEEDED", "job")


class CloudBatchFleet:
    """The one emulator (127.0.0.1, port 0) and a tenant per cell."""

    def __init__(self, keys: list[str]):
        self.emulator = CloudBatchEmulator(run_seconds=3.0).start()
        self.tenants = {key: CloudBatchTenant(self.emulator, project_of(key)) for key in keys}

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        return {ROUTE_ENV: self.emulator.address, **google_conn_env(conn_ids)}

    def stop(self) -> None:
        self.emulator.stop()


class CloudBatchCellRun(DataprocCellRun):
    """A cell on Cloud Batch: a cancel Batch accepted (CANCELLATION_IN_PROGRESS) is ending, not an orphan."""

    def collect(self) -> None:
        super().collect()
        jobs = self.emu.jobs()
        ending = ("SUCCEEDED", "FAILED", "CANCELLED", "CANCELLATION_IN_PROGRESS", "DELETION_IN_PROGRESS")
        self.outcome.active_jobs = sum(1 for s in jobs.values() if s not in ending)
        refused = [e for e in self.emu.ledger() if e["op"] == "CreateJob" and e.get("error")]
        if refused:
            self.proof(f"vendor: {len(refused)} CreateJob refused with {refused[0]['error']}")


CLOUD_BATCH_SCENARIOS: list[Scenario] = [
    Scenario("CLOUD-BATCH-W2", "Cloud Batch: worker SIGKILL after CreateJob created the job, before its id reached "
             "the store", {"sync": w2, "deferrable": w2}, vendor=VENDOR),
    Scenario("CLOUD-BATCH-W5", "Cloud Batch: worker SIGKILL after the job succeeded (sync: last poll held; "
             "deferrable: the resumed try)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=VENDOR),
    Scenario("CLOUD-BATCH-SIGTERM", "Cloud Batch: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=VENDOR),
    Scenario("CLOUD-BATCH-MARK-FAILED", "Cloud Batch: user marks the task failed (sync: while polling; deferrable: "
             "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
]


__all__ = ["CLOUD_BATCH_SCENARIOS", "CloudBatchCellRun", "CloudBatchFleet"]

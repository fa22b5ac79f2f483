"""BigQuery cells of the crash suite: one BigQuery jobs emulator for every cell, one project per cell.

The stack's Airflow processes share one environment, and both BigQuery client libraries take the emulator
from the one ``BIGQUERY_EMULATOR_HOST``: so the cells share one emulator (a thread of the test process) and
each cell's connection names a project of its own. Holds, the clock and the ledger are the cell's project's
(``BigQueryTenant``). gcloud-aio (the official trigger's cancel) is routed by ``sitecustomize`` in
``tests/crash/vendor_route/``. Windows are proved by a request parked on a hold with the client connected,
and by the state store.
"""

from __future__ import annotations

from typing import Any

from crash_scenarios import (  # noqa: F401 - _reassigned for drivers
    CellRun,
    Scenario,
    StackError,
    _reassigned,
    mark_failed_deferred,  # the generic MARK-FAILED drivers: a user's kill needs nothing vendor-specific
    mark_failed_sync,
)
from crash_tenant import ProjectTenant, google_conn_env, project_of

from durable_jobs.testing.emulators.bigquery import HOST_ENV, BigQueryEmulator

SUBMIT = "jobs/insert"
GET = "jobs/get"
RAW_KEY = "bigquery_job_id"
VENDOR = "bigquery"


class BigQueryTenant(ProjectTenant):
    """One cell's view of the shared emulator: its project's holds, clock and ledger."""


class BigQueryFleet:
    """The one emulator (127.0.0.1, port 0) and a tenant per cell."""

    def __init__(self, keys: list[str]):
        self.emulator = BigQueryEmulator().start()
        self.emulator.configure(pending_seconds=0.2, run_seconds=3.0)
        self.tenants = {key: BigQueryTenant(self.emulator, project_of(key)) for key in keys}

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        return {HOST_ENV: self.emulator.url, **google_conn_env(conn_ids)}

    def stop(self) -> None:
        self.emulator.stop()


class BigQueryCellRun(CellRun):
    """A cell on BigQuery: ``self.emu`` is the cell's ``BigQueryTenant``."""

    emu: BigQueryTenant  # type: ignore[assignment]

    raw_key = RAW_KEY

    def freeze(self) -> None:
        self.emu.speed(0)

    def thaw(self) -> None:
        self.emu.speed(1)

    def _gets(self) -> int:
        """jobs.get calls that reached this cell's jobs."""
        with self.emu.emulator.app.lock:
            return sum(j.gets for j in self.emu.emulator.app.jobs.values() if j.project == self.emu.project)

    def arm(self, path: str, phase: str) -> None:
        self.emu.add_hold(path, phase)

    def wait_held(self, path: str, phase: str) -> dict[str, Any]:
        full = f"{self.emu.project}/{path}"

        def held() -> dict[str, Any] | None:
            return next((h for h in self.emu.holds() if h["path"] == full and h["phase"] == phase
                         and h["client_connected"]), None)

        found = self.wait(f"a request held at {path}/{phase}", held)
        self.proof(f"held {path} ({phase}) with the client connected")
        return found

    def wait_deferred_and_polled(self) -> dict[str, Any]:
        ti = self.wait("the task deferred, its trigger assigned", lambda: self._deferred_assigned())
        calls = self._gets()
        self.wait("the trigger polling jobs.get", lambda: self._gets() > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} polling")
        return ti

    def wait_polling(self, calls: int = 3) -> None:
        self.wait(f"{calls} status calls (the task polling)", lambda: self._gets() >= calls)
        self.proof(f"task polling (jobs.get x{self._gets()})")

    def cancel_times(self) -> list[float]:
        return [c["ts"] for c in self.emu.ledger()["cancel_calls"]]

    def collect(self) -> None:
        ledger = self.emu.ledger()
        created = [i for i in ledger["inserts"] if i["created"]]
        self.outcome.submit_calls = ledger["requests"]
        self.outcome.deduplicated = ledger["duplicates_detected"]
        self.outcome.runs_created = ledger["created"]
        self.outcome.cancels = len(ledger["cancelled_running"])
        self.outcome.tokens = [i["job_id"] for i in created]
        jobs = ledger["jobs"]
        self.outcome.run_results = [("FAILURE" if jobs[i["job_id"]]["error"] else "SUCCESS")
                                    if jobs[i["job_id"]]["state"] == "DONE" else jobs[i["job_id"]]["state"]
                                    for i in created if i["job_id"] in jobs]
        self.outcome.active_jobs = sum(1 for j in jobs.values() if j["state"] != "DONE")


# ====================================================================== drivers
def w2(run: BigQueryCellRun) -> None:
    """jobs.insert parked *after* the emulator created the job; the worker SIGKILLed with the reply unsent."""
    run.arm(SUBMIT, "after")
    run.trigger()
    run.wait_held(SUBMIT, "after")
    if run.emu.ledger()["created"] != 1:
        raise StackError("W2 window missed: the job was not created")
    if run.stored_id() is not None:
        raise StackError("W2 window missed: the job id already reached the store")
    if run.ours and not run.record():
        raise StackError("W2 window missed: no intent record before jobs.insert")
    run.proof("vendor: job created; its id has not reached the store")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def w3(run: BigQueryCellRun) -> None:
    """The worker's first jobs.get parked: the job id is in the store (ours; the official sync path)."""
    run.freeze()
    run.arm(GET, "before")
    run.trigger()
    run.wait_held(GET, "before")
    if run.stored_id() is None:
        raise StackError("W3 window missed: no job id in the store yet")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_sync(run: BigQueryCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait("the job id in the state store", run.stored_id)
    run.arm(GET, "before")
    run.wait_held(GET, "before")
    run.emu.finish_all()
    states = [j["state"] for j in run.emu.ledger()["jobs"].values()]
    if states != ["DONE"]:
        raise StackError(f"W5 window missed: jobs {states}")
    run.proof("vendor: job DONE (success) while the worker's status call is held")
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_deferrable(run: BigQueryCellRun) -> None:
    """The trigger saw success; the resumed try SIGKILLed as soon as it runs (execute_complete makes no vendor
    call, ours or the official one, so there is nothing to park it on)."""
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    run.emu.finish_all()
    run.thaw()
    run.wait("the trigger to fire (the task no longer deferred)", lambda: run.ti()["state"] != "deferred", 60)
    run.proof("vendor: job DONE (success); the trigger fired; the resumed try is killed as it starts")
    run.kill_worker()


def sigterm_sync(run: BigQueryCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait("the job id in the state store", run.stored_id)
    run.proof(run.describe_store())
    run.evict_worker()
    run.thaw()


def sigterm_deferrable(run: BigQueryCellRun) -> None:
    """Evicted inside jobs.insert (the job created, the reply parked): the official deferrable path keeps no
    record at all, so this is its window too."""
    run.arm(SUBMIT, "after")
    run.trigger()
    run.wait_held(SUBMIT, "after")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)


BIGQUERY_SCENARIOS: list[Scenario] = [
    Scenario("BIGQUERY-W2", "BigQuery: worker SIGKILL after jobs.insert created the job, before its id reached the "
             "store", {"sync": w2, "deferrable": w2}, ci=("deferrable",), vendor=VENDOR),
    Scenario("BIGQUERY-W3", "BigQuery: worker SIGKILL after the checkpoint, at the first jobs.get",
             {"sync": w3}, vendor=VENDOR),
    Scenario("BIGQUERY-W3-DEFER", "BigQuery: worker SIGKILL after the checkpoint, at the jobs.get before defer() "
             "(the official deferrable path makes none and keeps no record)", {"deferrable": w3}, vendor=VENDOR,
             operators=("ours",)),
    Scenario("BIGQUERY-W5", "BigQuery: worker SIGKILL after the job succeeded (sync: last poll held; deferrable: "
             "the resumed try)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=VENDOR),
    Scenario("BIGQUERY-SIGTERM", "BigQuery: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=VENDOR),
    Scenario("BIGQUERY-MARK-FAILED", "BigQuery: user marks the task failed (sync: while polling; deferrable: "
             "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
]

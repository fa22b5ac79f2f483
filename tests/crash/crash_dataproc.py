"""Dataproc jobs cells of the crash suite: one gRPC emulator for every cell, one project per cell.

The stack's Airflow processes reach the emulator through ``tests/crash/vendor_route/sitecustomize.py`` (its
Dataproc section routes the hooks' client factories from ``DURABLE_JOBS_DATAPROC_EMULATOR_ADDRESS``), so the
cells share one emulator (a thread of the test process) and each cell's connection names a project of its
own. Holds, the clock and the ledger are the cell's project's (``DataprocTenant``). Windows are proved by a
call parked on a hold with the client connected, and by the state store.
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
from crash_tenant import google_conn_env, project_of

from durable_jobs.testing.emulators.dataproc import REGION, ROUTE_ENV, DataprocEmulator

VENDOR = "dataproc_jobs"
BATCHES = "dataproc_batches"
#: per vendor: (submit method, status method, bare store key, the state a success ends in, kind)
CALLS = {VENDOR: ("SubmitJob", "GetJob", "dataproc_job_id", "DONE", "job"),
         BATCHES: ("CreateBatch", "GetBatch", "dataproc_batch_id", "SUCCEEDED", "batch")}


class DataprocTenant:
    """One cell's view of the shared emulator: its project's holds, clock and ledger."""

    def __init__(self, emulator: DataprocEmulator, project: str, vendor: str = VENDOR):
        self.emulator, self.project = emulator, project
        self.submit, self.get, self.raw_key, self.done, self.kind = CALLS[vendor]

    def add_hold(self, method: str, phase: str) -> None:
        self.emulator.add_hold(method, phase, self.project)

    def holds(self) -> list[dict[str, Any]]:
        return [h for h in self.emulator.holds() if h["project"] == self.project]

    def release(self, abandon: bool = False) -> None:
        for held in self.holds():
            self.emulator.release(held["id"], abandon)

    def ledger(self) -> list[dict[str, Any]]:
        return [e for e in self.emulator.ledger() if e.get("project") == self.project
                or (e["op"] in ("CancelJob", "CancelOperation") and e["id"] in self.jobs())]

    def jobs(self) -> dict[str, str]:
        """This cell's jobs (or batches) and their states."""
        model = self.emulator.model
        with model.lock:
            pool = model.jobs.values() if self.kind == "job" else model.batches.values()
            return {v.id: model.state_of(v) for v in pool if v.project == self.project}

    def gets(self) -> int:
        return self.emulator.calls_by_project.get((self.get, self.project), 0)

    def finish_all(self) -> None:
        self.emulator.finish_project(self.project, self.done, self.kind)


class DataprocFleet:
    """The one emulator (127.0.0.1, port 0) and a tenant per cell."""

    def __init__(self, keys: dict[str, str]):
        """``keys``: cell key -> vendor (``dataproc_jobs`` / ``dataproc_batches``)."""
        self.emulator = DataprocEmulator(run_seconds=3.0).start()
        self.tenants = {key: DataprocTenant(self.emulator, project_of(key), vendor) for key, vendor in keys.items()}

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        return {ROUTE_ENV: self.emulator.address, **google_conn_env(conn_ids)}

    def stop(self) -> None:
        self.emulator.stop()


class DataprocCellRun(CellRun):
    """A cell on Dataproc: ``self.emu`` is the cell's ``DataprocTenant``."""

    emu: DataprocTenant  # type: ignore[assignment]

    @property
    def raw_key(self) -> str:  # type: ignore[override]  # per service (jobs, batches)
        return self.emu.raw_key

    def wait_stored_id(self) -> Any:
        """Ours: the id in the state store; the official operator keeps none there, so: the job submitted."""
        if self.ours:
            return super().wait_stored_id()
        jobs = self.wait("the job to be submitted", lambda: self.emu.jobs())
        self.proof(f"vendor: job {next(iter(jobs))} submitted; {self.describe_store()}")
        return next(iter(jobs))

    def freeze(self) -> None:
        self.emu.emulator.freeze(self.emu.project)

    def thaw(self) -> None:
        self.emu.emulator.freeze(self.emu.project, False)

    def arm(self, path: str, phase: str) -> None:
        self.emu.add_hold(path, phase)

    def wait_held(self, method: str, phase: str) -> dict[str, Any]:
        def held() -> dict[str, Any] | None:
            return next((h for h in self.emu.holds() if h["method"] == method and h["phase"] == phase
                         and h["client_connected"]), None)

        found = self.wait(f"a call held at {method}/{phase}", held)
        self.proof(f"held {method} ({phase}) with the client connected")
        return found

    def wait_deferred_and_polled(self) -> dict[str, Any]:
        ti = self.wait("the task deferred, its trigger assigned", lambda: self._deferred_assigned())
        calls = self.emu.gets()
        self.wait("the trigger polling GetJob", lambda: self.emu.gets() > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} polling")
        return ti

    def wait_polling(self, calls: int = 2) -> None:
        self.wait(f"{calls} status calls (the task polling)", lambda: self.emu.gets() >= calls)
        self.proof(f"task polling (GetJob x{self.emu.gets()})")

    def cancel_times(self) -> list[float]:
        """CancelJob, CancelOperation (batches) and the subclasses' CancelJob (Batch), CancelExecution (Cloud Run)."""
        return [e["ts"] for e in self.emu.ledger() if e["op"].startswith("Cancel")]

    def collect(self) -> None:
        ledger = self.emu.ledger()
        submits = [e for e in ledger if e["op"] == self.emu.submit]
        created = [e for e in submits if e["created"]]
        jobs = self.emu.jobs()
        self.outcome.submit_calls = len(submits)
        self.outcome.deduplicated = sum(1 for e in submits if not e["created"])
        self.outcome.runs_created = len(created)
        self.outcome.cancels = sum(1 for e in ledger if e["op"] in ("CancelJob", "CancelOperation"))
        self.outcome.tokens = [e["request_id"] or None for e in created]
        results = {"DONE": "SUCCESS", "SUCCEEDED": "SUCCESS", "ERROR": "FAILURE", "FAILED": "FAILURE"}
        self.outcome.run_results = [results.get(jobs.get(e["id"], ""), jobs.get(e["id"])) for e in created]
        # a job whose cancel Dataproc accepted (CANCEL_PENDING / CANCEL_STARTED / CANCELLING) is ending, not an orphan
        ending = ("DONE", "ERROR", "CANCELLED", "CANCEL_PENDING", "CANCEL_STARTED", "SUCCEEDED", "FAILED", "CANCELLING")
        self.outcome.active_jobs = sum(1 for s in jobs.values() if s not in ending)


# ====================================================================== drivers
def w2(run: DataprocCellRun) -> None:
    """SubmitJob parked *after* the emulator created the job; the worker SIGKILLed with the reply unsent."""
    run.arm(run.emu.submit, "after")
    run.trigger()
    run.wait_held(run.emu.submit, "after")
    if len(run.emu.jobs()) != 1:
        raise StackError("W2 window missed: the job was not created")
    if run.stored_id() is not None:
        raise StackError("W2 window missed: the job id already reached the store")
    if run.ours and not run.record():
        raise StackError(f"W2 window missed: no intent record before {run.emu.submit}")
    run.proof("vendor: job created; its id has not reached the store")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def w3(run: DataprocCellRun) -> None:
    """The worker's first GetJob parked: the job id is in the store (ours; the official sync path has none)."""
    run.freeze()
    run.arm(run.emu.get, "before")
    run.trigger()
    run.wait_held(run.emu.get, "before")
    if run.ours and run.stored_id() is None:
        raise StackError("W3 window missed: no job id in the store yet")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_sync(run: DataprocCellRun) -> None:
    """The job succeeded while the worker's status call is parked; the worker SIGKILLed."""
    run.freeze()
    run.trigger()
    run.wait("the job to be submitted", lambda: run.emu.jobs())
    run.arm(run.emu.get, "before")
    run.wait_held(run.emu.get, "before")
    run.emu.finish_all()
    states = list(run.emu.jobs().values())
    if states != [run.emu.done]:
        raise StackError(f"W5 window missed: jobs {states}")
    run.proof("vendor: job DONE while the worker's status call is held")
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_deferrable(run: DataprocCellRun) -> None:
    """The trigger saw success; the resumed try SIGKILLed as soon as it runs."""
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    run.emu.finish_all()
    run.thaw()
    run.wait("the trigger to fire (the task no longer deferred)", lambda: run.ti()["state"] != "deferred", 60)
    run.proof("vendor: job DONE; the trigger fired; the resumed try is killed as it starts")
    run.kill_worker()


def sigterm_sync(run: DataprocCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait("the job to be submitted", lambda: run.emu.jobs())
    run.wait_polling(1)
    run.proof(run.describe_store())
    run.evict_worker()
    run.thaw()


def sigterm_deferrable(run: DataprocCellRun) -> None:
    """Evicted inside SubmitJob (the job created, the reply parked): the official deferrable path keeps no
    record at all, so this is its window too."""
    run.arm(run.emu.submit, "after")
    run.trigger()
    run.wait_held(run.emu.submit, "after")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)


DATAPROC_SCENARIOS: list[Scenario] = [
    Scenario("DATAPROC-W2", "Dataproc: worker SIGKILL after SubmitJob created the job, before its id reached the "
             "store", {"sync": w2, "deferrable": w2}, ci=("deferrable",), vendor=VENDOR),
    Scenario("DATAPROC-W3", "Dataproc: worker SIGKILL after the checkpoint, at the first GetJob",
             {"sync": w3, "deferrable": w3}, vendor=VENDOR),
    Scenario("DATAPROC-W5", "Dataproc: worker SIGKILL after the job succeeded (sync: last poll held; deferrable: "
             "the resumed try)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=VENDOR),
    Scenario("DATAPROC-SIGTERM", "Dataproc: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=VENDOR),
    Scenario("DATAPROC-MARK-FAILED", "Dataproc: user marks the task failed (sync: while polling; deferrable: "
             "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
]

DATAPROC_SCENARIOS += [
    Scenario("DATAPROC-BATCH-W2", "Dataproc batches: worker SIGKILL after CreateBatch created the batch, before its "
             "id reached the store", {"sync": w2, "deferrable": w2}, vendor=BATCHES),
    Scenario("DATAPROC-BATCH-W3", "Dataproc batches: worker SIGKILL after the checkpoint, at the first GetBatch",
             {"sync": w3, "deferrable": w3}, vendor=BATCHES, operators=("ours",)),
    Scenario("DATAPROC-BATCH-W5", "Dataproc batches: worker SIGKILL after the batch succeeded (sync: last poll held; "
             "deferrable: the resumed try)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=BATCHES),
    Scenario("DATAPROC-BATCH-SIGTERM", "Dataproc batches: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=BATCHES),
    Scenario("DATAPROC-BATCH-MARK-FAILED", "Dataproc batches: user marks the task failed (sync: while polling; "
             "deferrable: while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=BATCHES),
]

__all__ = ["DATAPROC_SCENARIOS", "REGION", "DataprocCellRun", "DataprocFleet"]

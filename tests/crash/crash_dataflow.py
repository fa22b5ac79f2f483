"""Dataflow cells of the crash suite: one Dataflow REST emulator for every cell, one project per cell.

Built on the BigQuery cells (``crash_bigquery.py``): the stack's Airflow processes share one environment, so the
cells share one emulator (a thread of the test process, reached through the Dataflow section of
``tests/crash/vendor_route/sitecustomize.py``: ``DURABLE_JOBS_DATAFLOW_EMULATOR_URL``) and each cell's
connection names a project of its own; holds, the clock and the ledger are the cell's project's
(``DataflowTenant``). The submit is ``templates.launch`` (``flexTemplates.launch`` for the flex rows), the status
call ``jobs.get`` (REST; for the official
deferrable trigger, ``AsyncDataflowHook``, the emulator's gRPC ``JobsV1Beta3.GetJob``, counted as the same call:
``DURABLE_JOBS_DATAFLOW_EMULATOR_GRPC_ADDRESS``).

The official operator keeps no record in the state store (google 22.8's Dataflow operators do not use the SDK's
``ResumableJobMixin``): where a driver waits for "the job id in the store", the official cell waits for the
job the emulator created instead. Its retry launches under a new name (upstream appends a new uuid per try).
"""

from __future__ import annotations

from typing import Any

from crash_scenarios import (
    CellRun,
    Scenario,
    StackError,
    mark_failed_deferred,  # the generic MARK-FAILED drivers: a user's kill needs nothing vendor-specific
    mark_failed_sync,
)
from crash_tenant import ProjectTenant, google_conn_env, project_of

from durable_jobs.testing.emulators.dataflow import GRPC_ROUTE_ENV, ROUTE_ENV, DataflowEmulator

GET = "jobs/get"
RAW_KEY = "dataflow_job_id"
VENDOR = "dataflow_templated"
FLEX = "dataflow_flex"
#: the registry's crash key -> the launch route its operator calls
SUBMITS = {VENDOR: "templates/launch", FLEX: "flexTemplates/launch"}
ENDED = ("JOB_STATE_DONE", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_DRAINED", "JOB_STATE_UPDATED",
         "JOB_STATE_CANCELLING", "JOB_STATE_DRAINING")  # a stop Dataflow accepted is ending


class DataflowTenant(ProjectTenant):
    """One cell's view of the shared emulator: its project's holds, clock, calls and ledger."""

    def calls(self, route: str) -> int:
        with self.emulator.app.lock:
            return int(self.emulator.app.calls.get(f"{self.project}/{route}", 0))

    def ledger(self) -> dict[str, Any]:
        return {**self.emulator.ledger(self.project), "calls": {GET: self.calls(GET)}}


class DataflowFleet:
    """The one emulator (127.0.0.1, port 0) and a tenant per cell."""

    def __init__(self, keys: list[str]):
        self.emulator = DataflowEmulator().start()
        self.emulator.configure(pending_seconds=0.2, run_seconds=3.0)
        self.tenants = {key: DataflowTenant(self.emulator, project_of(key)) for key in keys}

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        return {ROUTE_ENV: self.emulator.url, GRPC_ROUTE_ENV: self.emulator.grpc.address, **google_conn_env(conn_ids)}

    def stop(self) -> None:
        self.emulator.stop()


class DataflowCellRun(CellRun):
    """A cell on Dataflow: ``self.emu`` is the cell's ``DataflowTenant``."""

    emu: DataflowTenant  # type: ignore[assignment]

    raw_key = RAW_KEY

    def freeze(self) -> None:
        self.emu.speed(0)

    def thaw(self) -> None:
        self.emu.speed(1)

    @property
    def submit(self) -> str:
        return SUBMITS[self.cell.scenario.vendor]

    def created(self) -> int:
        return int(self.emu.ledger()["created"])

    def wait_stored_id(self) -> Any:
        """Ours: the job id in the store. The official operator keeps none: the job the emulator launched."""
        if self.ours:
            return super().wait_stored_id()
        self.wait("the official operator's launch (it keeps no record)", lambda: self.created() >= 1)
        job_id = next(iter(self.emu.ledger()["jobs"]))
        self.proof(f"vendor: job {job_id} launched; {self.describe_store()}")
        return job_id

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
        calls = self.emu.calls(GET)
        self.wait("the trigger polling jobs.get", lambda: self.emu.calls(GET) > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} polling")
        return ti

    def wait_polling(self, calls: int = 3) -> None:
        self.wait(f"{calls} status calls (the task polling)", lambda: self.emu.calls(GET) >= calls)
        self.proof(f"task polling (jobs.get x{self.emu.calls(GET)})")

    def cancel_times(self) -> list[float]:
        """The first stop request of each job (``jobs.update`` with a ``requestedState``)."""
        return [j["requested_ts"] for j in self.emu.ledger()["jobs"].values() if j["requested_ts"] is not None]

    def collect(self) -> None:
        ledger = self.emu.ledger()
        launches, jobs = ledger["launches"], ledger["jobs"]
        self.outcome.submit_calls = len(launches)
        self.outcome.deduplicated = sum(1 for e in launches if not e["created"])
        self.outcome.runs_created = ledger["created"]
        self.outcome.cancels = sum(1 for j in jobs.values() if j["requested"] in ("JOB_STATE_CANCELLED",
                                                                                 "JOB_STATE_DRAINED"))
        self.outcome.tokens = [e["name"] for e in launches if e["created"]]
        self.outcome.run_results = [{"JOB_STATE_DONE": "SUCCESS", "JOB_STATE_FAILED": "FAILURE"}.get(
            j["state"], j["state"]) for j in jobs.values()]
        self.outcome.active_jobs = sum(1 for j in jobs.values() if j["state"] not in ENDED)
        if self.ours and launches:
            self.proof(f"vendor: {ledger['created']} job(s) under {len({e['name'] for e in launches})} name(s) "
                       f"({', '.join(sorted({e['name'][-40:] for e in launches}))})")


# ====================================================================== drivers
def w2(run: DataflowCellRun) -> None:
    """The launch parked *after* the emulator created the job; the worker SIGKILLed with the reply unsent."""
    run.arm(run.submit, "after")
    run.trigger()
    run.wait_held(run.submit, "after")
    if run.created() != 1:
        raise StackError("W2 window missed: the job was not created")
    if run.stored_id() is not None:
        raise StackError("W2 window missed: the job id already reached the store")
    if run.ours and not run.record():
        raise StackError(f"W2 window missed: no intent record before {run.submit}")
    run.proof("vendor: job created; its id has not reached the store")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def w5_sync(run: DataflowCellRun) -> None:
    """The job succeeded while the worker's status call is held; the worker SIGKILLed before it saw it."""
    run.freeze()
    run.trigger()
    run.wait_stored_id()
    run.arm(GET, "before")
    run.wait_held(GET, "before")
    run.emu.finish_all()
    states = [j["state"] for j in run.emu.ledger()["jobs"].values()]
    if states != ["JOB_STATE_DONE"]:
        raise StackError(f"W5 window missed: jobs {states}")
    run.proof("vendor: job DONE (success) while the worker's status call is held")
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_deferrable(run: DataflowCellRun) -> None:
    """The trigger saw success; the resumed try SIGKILLed as soon as it runs."""
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    run.emu.finish_all()
    run.thaw()
    run.wait("the trigger to fire (the task no longer deferred)", lambda: run.ti()["state"] != "deferred", 60)
    run.proof("vendor: job DONE (success); the trigger fired; the resumed try is killed as it starts")
    run.kill_worker()


def sigterm_sync(run: DataflowCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait_stored_id()
    run.wait_polling(1)
    run.evict_worker()
    run.thaw()


def sigterm_deferrable(run: DataflowCellRun) -> None:
    """Evicted inside the launch (the job created, the reply parked)."""
    run.arm(run.submit, "after")
    run.trigger()
    run.wait_held(run.submit, "after")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)


def _rows(prefix: str, label: str, vendor: str) -> list[Scenario]:
    launch = SUBMITS[vendor].replace("/", ".")
    return [
        Scenario(f"{prefix}-W2", f"{label}: worker SIGKILL after {launch} created the job, before its id "
                 "reached the store", {"sync": w2, "deferrable": w2}, vendor=vendor),
        Scenario(f"{prefix}-W5", f"{label}: worker SIGKILL after the job succeeded (sync: last poll held; "
                 "deferrable: the resumed try)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=vendor),
        Scenario(f"{prefix}-SIGTERM", f"{label}: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
                 {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=vendor),
        Scenario(f"{prefix}-MARK-FAILED", f"{label}: user marks the task failed (sync: while polling; deferrable: "
                 "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
                 expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=vendor),
    ]


DATAFLOW_SCENARIOS: list[Scenario] = [*_rows("DATAFLOW", "Dataflow (templated)", VENDOR),
                                       *_rows("DATAFLOW-FLEX", "Dataflow (flex)", FLEX)]


__all__ = ["DATAFLOW_SCENARIOS", "DataflowCellRun", "DataflowFleet"]

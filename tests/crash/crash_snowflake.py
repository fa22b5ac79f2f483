"""Snowflake SQL API cells of the crash suite: one SQL API emulator per cell, in the test process.

Each cell's emulator answers under an account of the cell's own (its key); the Airflow processes reach
it through the official ``SnowflakeSqlApiHook`` unchanged, its URL routed by ``sitecustomize`` in
``tests/crash/vendor_route/`` (on the stack's PYTHONPATH: ``route_from_env()`` once the hook module is
imported, from ``DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL`` = ``{account: url}``). Windows are proved as for
Databricks: a request parked on the emulator's hold with the client connected, and the state store.
The ledger counts *executions* (a ``retry=true`` resend handed back is not one).
"""

from __future__ import annotations

import json
from typing import Any

from crash_scenarios import (  # noqa: F401 - _reassigned for drivers
    CellRun,
    Scenario,
    StackError,
    _reassigned,
    mark_failed_deferred,  # the generic MARK-FAILED drivers: a user's kill needs nothing vendor-specific
    mark_failed_sync,
)
from crash_stack import Emulator  # noqa: F401 - the generic type the lab passes

from durable_jobs.testing.emulators.snowflake import ROUTE_ENV, SnowflakeEmulator

SUBMIT = "statements"
GET = "statements/status"
RAW_KEY = "snowflake_query_ids"
VENDOR = "snowflake"


class SnowflakeFleet:
    """One started emulator per Snowflake cell (threads of this process, 127.0.0.1, port 0)."""

    def __init__(self, keys: list[str]):
        self.emulators = {key: SnowflakeEmulator(account=key.replace("_", "-")).start() for key in keys}
        for emu in self.emulators.values():
            emu.configure(run_seconds=3.0)

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        out = {}
        for conn_id, key in conn_ids.items():
            out.update(self.emulators[key].airflow_conn_env(conn_id))
        out[ROUTE_ENV] = json.dumps({emu.account: emu.url for emu in self.emulators.values()})
        return out

    def stop(self) -> None:
        for emu in self.emulators.values():
            emu.stop()


class SnowflakeCellRun(CellRun):
    """A cell on the Snowflake SQL API: ``self.emu`` is the cell's ``SnowflakeEmulator`` (called directly)."""

    emu: SnowflakeEmulator

    raw_key = RAW_KEY

    def freeze(self) -> None:
        self.emu.configure(speed=0)

    def thaw(self) -> None:
        self.emu.configure(speed=1)

    def calls(self, route: str) -> int:
        return int(self.emu.ledger()["calls"].get(route, 0))

    def arm(self, path: str, phase: str) -> None:
        self.emu.add_hold(path, phase)

    def wait_held(self, path: str, phase: str) -> dict[str, Any]:
        def held() -> dict[str, Any] | None:
            return next((h for h in self.emu.holds()["held"] if h["path"] == path and h["client_connected"]), None)

        found = self.wait(f"a request held at {path}/{phase}", held)
        self.proof(f"held {path} ({phase}) with the client connected")
        return found

    def wait_deferred_and_polled(self) -> dict[str, Any]:
        ti = self.wait("the task deferred, its trigger assigned", lambda: self._deferred_assigned())
        calls = self.calls(GET)
        self.wait("the trigger polling GET /api/v2/statements/{handle}", lambda: self.calls(GET) > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} polling")
        return ti

    def wait_polling(self, calls: int = 3) -> None:
        self.wait(f"{calls} status calls (the task polling)", lambda: self.calls(GET) >= calls)
        self.proof(f"task polling (GET statements x{self.calls(GET)})")

    def cancel_times(self) -> list[float]:
        return [c["ts"] for c in self.emu.ledger()["cancel_calls"]]

    def collect(self) -> None:
        ledger = self.emu.ledger()
        executed = [s for s in ledger["submits"] if s["executed"]]
        self.outcome.submit_calls = ledger["calls"].get(SUBMIT, 0)
        self.outcome.deduplicated = ledger["duplicates_detected"]
        self.outcome.runs_created = ledger["executions"]
        self.outcome.cancels = len(ledger["cancelled_running"])
        self.outcome.tokens = [s["request_id"] for s in executed]
        states = [ledger["statements"][s["handles"][0]]["state"] for s in executed]
        self.outcome.run_results = states
        self.outcome.active_jobs = sum(1 for state in states if state == "running")


# ====================================================================== drivers
def w2(run: SnowflakeCellRun) -> None:
    """The POST parked *after* the emulator executed it; the worker SIGKILLed with the reply unsent."""
    run.arm(SUBMIT, "after")
    run.trigger()
    run.wait_held(SUBMIT, "after")
    if run.emu.ledger()["executions"] != 1:
        raise StackError("W2 window missed: the statements were not executed")
    if run.stored_id() is not None:
        raise StackError("W2 window missed: the handles already reached the store")
    if run.ours and not run.record():
        raise StackError("W2 window missed: no intent record before the POST")
    run.proof("vendor: statements executed; their handles have not reached the store")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def w3(run: SnowflakeCellRun) -> None:
    """The first status call parked: the handles are in the store (ours, and the official sync path)."""
    run.freeze()
    run.arm(GET, "before")
    run.trigger()
    run.wait_held(GET, "before")
    if (run.ours or run.cell.mode == "sync") and run.stored_id() is None:
        raise StackError("W3 window missed: no handles in the store yet")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_sync(run: SnowflakeCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait("the handles in the state store", run.stored_id)
    run.arm(GET, "before")
    run.wait_held(GET, "before")
    run.emu.advance(3600)
    states = [s["state"] for s in run.emu.ledger()["statements"].values()]
    if states != ["succeeded"]:
        raise StackError(f"W5 window missed: statements {states}")
    run.proof("vendor: statement succeeded while the worker's status call is held")
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_deferrable(run: SnowflakeCellRun) -> None:
    """The trigger saw success; the worker's execute_complete (its check_query_output GET) is held."""
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    run.emu.advance(3600)
    run.thaw()
    run.wait("the trigger to fire (the task no longer deferred)", lambda: run.ti()["state"] != "deferred", 60)
    run.arm(GET, "before")
    run.wait_held(GET, "before")
    run.proof("vendor: statement succeeded; worker inside execute_complete (its GET held)")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def sigterm_sync(run: SnowflakeCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait("the handles in the state store", run.stored_id)
    run.proof(run.describe_store())
    run.evict_worker()
    run.thaw()


def sigterm_deferrable(run: SnowflakeCellRun) -> None:
    run.freeze()
    run.arm(GET, "before")
    run.trigger()
    run.wait_held(GET, "before")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)
    run.thaw()


SNOWFLAKE_SCENARIOS: list[Scenario] = [
    Scenario("SNOWFLAKE-W2", "Snowflake: worker SIGKILL after the SQL API executed the POST, before the handles "
             "reached the store", {"sync": w2, "deferrable": w2}, vendor=VENDOR),
    Scenario("SNOWFLAKE-W3", "Snowflake: worker SIGKILL after the checkpoint, at the first status call",
             {"sync": w3, "deferrable": w3}, vendor=VENDOR),
    Scenario("SNOWFLAKE-W5", "Snowflake: worker SIGKILL after the statements succeeded (sync: last poll held; "
             "deferrable: in execute_complete)", {"sync": w5_sync, "deferrable": w5_deferrable}, vendor=VENDOR),
    Scenario("SNOWFLAKE-SIGTERM", "Snowflake: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=VENDOR),
    Scenario("SNOWFLAKE-MARK-FAILED", "Snowflake: user marks the task failed (sync: while polling; deferrable: "
             "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
]

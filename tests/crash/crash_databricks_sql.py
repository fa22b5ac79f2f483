"""Crash rows for ``DatabricksSQLStatementsOperator`` (``/api/2.0/sql/statements``), ours next to the official one.

The cells run on a Databricks emulator of their own (the SubmitRun rows' emulator fleet); the ledger counts
*statements*. The official operator keeps nothing in the task state store, so the synchronous drivers wait
for the task's polling (``GET sql/statements/{id}`` on the emulator), which both operators do once the
statement exists. The vendor key ``databricks_sql`` is the registry's ``Operator.crash``.

``SQL-W2`` is the window this operator leaves **open** (the API has no idempotency field and nothing to find
a statement by): its expectation is two statements, for ours as for the official operator, so the matrix
shows the duplicate rather than hiding it. Every other row expects one statement of ours.
"""

from __future__ import annotations

from typing import Any

from crash_scenarios import CellRun, Scenario, mark_failed_deferred
from crash_stack import StackError

VENDOR = "databricks_sql"
SUBMIT = "sql/statements"
GET = "sql/statements/get"
RESULT = "sql/statements/result"


class DatabricksSqlCellRun(CellRun):
    """A cell on the emulator's statement endpoints: the SubmitRun cell run, counting statements."""

    raw_key = "statement_id"  # ours keeps its record under statement_id_durable; upstream keeps nothing

    @property
    def status_op(self) -> str:
        return GET

    def calls(self, route: str) -> int:
        return int(self.ledger()["calls"].get(route, 0))

    def wait_polling(self, calls: int = 3) -> None:
        self.wait(f"{calls} status calls (the task polling)", lambda: self.calls(GET) >= calls)
        self.proof(f"task polling (GET sql/statements/{{id}} x{self.calls(GET)})")

    def wait_deferred_and_polled(self) -> dict[str, Any]:
        ti = self.wait("the task deferred, its trigger assigned", lambda: self._deferred_assigned())
        calls = self.calls(GET)
        self.wait("the trigger polling GET sql/statements/{id}", lambda: self.calls(GET) > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} polling")
        return ti

    def vendor_jobs(self) -> list[str]:
        return [s["state"] for s in self.ledger()["statements"].values()]

    def cancel_times(self) -> list[float]:
        return [c["ts"] for c in self.ledger()["statement_cancels"]]

    def collect(self) -> None:
        ledger = self.ledger()
        self.outcome.submit_calls = ledger["calls"].get(SUBMIT, 0)
        self.outcome.deduplicated = 0  # nothing to deduplicate on
        self.outcome.runs_created = ledger["statements_created"]
        self.outcome.cancels = sum(1 for c in ledger["statement_cancels"] if c["was_active"])
        states = [s["state"] for s in ledger["statements"].values()]
        self.outcome.tokens = [None] * len(states)  # no idempotency field
        self.outcome.run_results = states
        self.outcome.active_jobs = sum(1 for state in states if state in ("PENDING", "RUNNING"))


def _one_statement(run: DatabricksSqlCellRun) -> str:
    statements = run.ledger()["statements"]
    if len(statements) != 1:
        raise StackError(f"{run.cell.id}: {len(statements)} statements created")
    return next(iter(statements))


# ====================================================================== drivers
def w2(run: DatabricksSqlCellRun) -> None:
    """The POST parked *after* the emulator created the statement; the worker SIGKILLed with the reply unsent."""
    run.arm(SUBMIT, "after")
    run.trigger()
    run.wait_held(SUBMIT, "after")
    statement_id = _one_statement(run)
    if run.stored_id() is not None:
        raise StackError("W2 window missed: the statement id already reached the store")
    if run.ours and not run.record():
        raise StackError("W2 window missed: no intent record before the POST")
    run.proof(f"vendor: statement {statement_id} created; its id has not reached the store")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def w5_sync(run: DatabricksSqlCellRun) -> None:
    """The statement succeeds while the worker's next status read is held; the worker is SIGKILLed there."""
    run.freeze()
    run.trigger()
    run.wait_polling()
    statement_id = _one_statement(run)
    run.proof(run.describe_store())
    run.arm(GET, "before")
    run.wait_held(GET, "before")
    run.emu.clock(advance=3600)
    state = run.ledger()["statements"][statement_id]["state"]
    if state != "SUCCEEDED":
        raise StackError(f"W5 window missed: statement {statement_id} is {state}")
    run.proof(f"vendor: statement {statement_id} SUCCEEDED while the worker's poll is held")
    run.kill_worker()
    run.emu.release(abandon=True)
    run.thaw()


def w5_deferrable(run: DatabricksSqlCellRun) -> None:
    """The trigger saw success; the worker's execute_complete (the DAG's read of the result) is held."""
    run.arm(RESULT, "before")
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    run.emu.clock(advance=3600)
    run.thaw()
    run.wait_held(RESULT, "before")
    statement_id = _one_statement(run)
    run.proof(f"vendor: statement {statement_id} SUCCEEDED; worker inside execute_complete (its result read held)")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def sigterm_sync(run: DatabricksSqlCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait_polling()
    run.proof(run.describe_store())
    run.evict_worker()
    run.thaw()


def sigterm_deferrable(run: DatabricksSqlCellRun) -> None:
    """SIGTERM while the worker is about to defer: its status read before defer() held (the process is alive)."""
    run.freeze()
    run.arm(GET, "before")
    run.trigger()
    run.wait_held(GET, "before")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)
    run.thaw()


def mark_failed_sync(run: DatabricksSqlCellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait_polling()
    procs = run.task_procs()
    run.mark_failed("running")
    run.wait("the killed try's task runner to exit", lambda: not procs[1].is_running(), 60)
    run.thaw()


SQL_SCENARIOS: list[Scenario] = [
    Scenario("SQL-W2", "SQL statements: worker SIGKILL after Databricks accepted the POST, before the id reached "
             "the store — the OPEN window: no idempotency field, the retry runs the statement again",
             {"sync": w2, "deferrable": w2}, expect_runs=2, vendor=VENDOR),
    Scenario("SQL-W5", "SQL statements: worker SIGKILL after the statement succeeded (sync: last poll held; "
             "deferrable: in execute_complete)", {"sync": w5_sync, "deferrable": w5_deferrable},
             vendor=VENDOR, task={"reads_output": True}),
    Scenario("SQL-SIGTERM", "SQL statements: worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, vendor=VENDOR),
    Scenario("SQL-MARK-FAILED", "SQL statements: user marks the task failed (sync: while polling; deferrable: "
             "while deferred)", {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=VENDOR),
]

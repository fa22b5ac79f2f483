"""Crash scenarios: each drives one DAG run on the real stack and kills a real process in a window.

A window is *proved* before anything is killed: the emulator shows the request parked on its
hold with the client still connected (GET /_emulator/holds), and the task state store (REST API)
shows what the window means (an intent without an id, or an id). Other sync points are observable
state only: TI and trigger rows (REST API), the emulator's ledger and frozen clock, Airflow's own
trigger log lines ("invoking on_kill", "trigger completed"), a request held at the Execution API
proxy, a process's kernel wait channel. No sleeps stand in for synchronisation; the only timed
wait is the SIGTERM grace period, which is what a kubelet gives an evicted pod.

Each cell records, from the vendor's side: runs created, cancels of active runs, idempotency
tokens; and from Airflow: the final task state and try number. A MARK-FAILED cell also records how
long the cancel took to reach the vendor after the user's REST call (over 5 s fails a cell of ours),
and a deferrable one fails when the triggerer logs a heartbeat stall while the trigger handles the kill.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil
from crash_aws import SERVICES as AWS_SERVICES
from crash_aws import UNKNOWN_STATE, AwsVendor
from crash_stack import AirflowStack, Emulator, StackDied, StackError, wait_for

from durable_jobs import vendors
from durable_jobs.testing.emulators._databricks_model import TERMINAL_LIFE_CYCLES

OPERATORS = ("ours", "official")
RAW_KEY = "databricks_run_id"
SUBMIT = "jobs/runs/submit"
GET = "jobs/runs/get"
GET_OUTPUT = "jobs/runs/get-output"
#: the shared poller's status calls for Databricks runs (durable_jobs.core.hub: one listing for many runs)
LIST = "jobs/runs/list"
#: The last line of a JobTrigger.on_kill that leaves the job alone (durable_jobs/core/trigger.py, _kill)
KEPT_LINES = ("leaving the job running for the retry", "the task owns the job; nothing to cancel")
TERMINAL = ("success", "failed")
#: kubelet's grace period between SIGTERM and SIGKILL, shortened for the test.
SIGTERM_GRACE = 4.0
KILLED_TASK_CLEANUP_TIME = 5  # the stack's [core] killed_task_cleanup_time
STEP_TIMEOUT = 90.0
#: A user's kill must reach the vendor this soon: seconds from the REST call that marks the task failed to the
#: vendor-side cancel call, as the emulator or proxy records it.
CANCEL_DELAY_LIMIT = 5.0
#: What the triggerer's supervisor logs when its heartbeat went longer than [triggerer]
#: triggerer_health_check_threshold without a write (airflow/jobs/job.py): long enough for its triggers to move.
HEARTBEAT_STALL = "Heartbeat recovered after"
#: The outage scenarios (issue 11): status calls answer 503 this long after the submit, then report a
#: state no table lists for UNKNOWN_SECONDS, counted from the first such reply the task got.
OUTAGE_SECONDS = 20.0
UNKNOWN_SECONDS = 10.0
#: The Databricks run of an outage cell outlasts the faults: RUNNING this long after its submit.
OUTAGE_RUN_SECONDS = 45.0
#: set when the session is interrupted: every cell's next wait raises instead of waiting on
ABORT = threading.Event()


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    #: mode ("sync" / "deferrable") -> the driver that runs the scenario in that mode
    drivers: dict[str, Callable[[CellRun], None]]
    #: runs alone: it stops, pauses or adds a triggerer that every deferred task shares
    exclusive: bool = False
    #: mostly waits on the vendor's clock (tens of seconds): runs beside the pool of busy cells
    waits: bool = False
    #: its proof reads wall-clock bounds (an execution_timeout, a fault window): runs in the quiet phase, after
    #: the busy cells, where a starved stack cannot move the bound past the window
    quiet: bool = False
    #: runs in the hub phase, last, one cell at a time: every triggerer restarted with ``[durable_jobs]
    #: shared_poller`` on, so our trigger watches its job through the shared poller (issue 14)
    hub: bool = False
    #: what our operator must do: runs created, cancels, final state, try-number check
    expect_runs: int = 1
    expect_cancels: int | None = 0
    expect_state: str = "success"
    expect_min_try: int = 2
    expect_max_try: int | None = None
    expect_distinct_tokens: int | None = None
    ci: tuple[str, ...] = ()  # modes that belong to the `crash_ci` subset
    #: the vendor the cell's job runs on ("databricks": emulator subprocess; an AWS service key of
    #: ``crash_aws.SERVICES``, "batch" or "athena": moto + a proxy per cell), the registry's ``Operator.crash``
    vendor: str = "databricks"
    #: the cell's task arguments beyond the defaults (tests/crash/dags/crash_dags.py): ``retries``,
    #: ``execution_timeout`` (seconds), ``cancel_on_kill`` (ours)
    task: dict[str, Any] = field(default_factory=dict)
    #: whose cells the scenario has (a scenario about one of our tools has no official cell)
    operators: tuple[str, ...] = ("ours", "official")


@dataclass
class Cell:
    scenario: Scenario
    operator: str
    mode: str

    @property
    def id(self) -> str:
        return f"{self.scenario.name}-{self.operator}-{self.mode}"

    @property
    def key(self) -> str:
        return self.id.replace("-", "_")

    @property
    def dag_id(self) -> str:
        return f"crash__{self.key}"

    @property
    def conn_id(self) -> str:
        vendor = self.scenario.vendor
        prefix = "aws" if vendor in AWS_SERVICES else "sf" if vendor == "snowflake" else "dbx"
        return f"{prefix}_{self.key}"

    def dag_spec(self) -> dict[str, Any]:
        return {
            "dag_id": self.dag_id, "operator": self.operator, "mode": self.mode, "conn_id": self.conn_id,
            "vendor": self.scenario.vendor,
            "reads_output": self.scenario.name == "W5" and self.mode == "deferrable",
            **self.scenario.task,
        }


@dataclass
class Outcome:
    cell: str
    scenario: str
    title: str
    operator: str
    mode: str
    runs_created: int | None = None
    submit_calls: int | None = None
    deduplicated: int | None = None
    cancels: int | None = None
    tokens: list[str | None] = field(default_factory=list)
    run_results: list[str | None] = field(default_factory=list)
    #: jobs the vendor still reports active when the cell ended (issue 19: none for a failed task of ours)
    active_jobs: int | None = None
    final_state: str | None = None
    try_number: int | None = None
    window: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    deviations: list[str] = field(default_factory=list)
    error: str | None = None
    log_tail: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the machine's load average (1, 5, 15 min) and CPUs when the cell ended: a failure under load says so
    load: list[float] = field(default_factory=list)
    #: a MARK-FAILED cell: seconds from the user's REST call to the first vendor-side cancel call after it
    cancel_delay: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class CellRun:
    """Everything a scenario driver needs for one cell: the stack, its emulator, its DAG run."""

    run_id = "crash"
    task_id = "submit"

    def __init__(self, stack: AirflowStack, emulator: Emulator, cell: Cell):
        self.stack = stack
        self.emu = emulator
        self.cell = cell
        self.outcome = Outcome(cell.id, cell.scenario.name, cell.scenario.title, cell.operator, cell.mode)
        #: what the scenario's own checks found (beyond runs, cancels, state and try)
        self.deviations: list[str] = []
        #: a MARK-FAILED cell: the Unix time of the user's REST call, and the triggerer log's size then
        self.marked_failed_at: float | None = None
        self._triggerer_log_at = 0

    # -------------------------------------------------------------- small helpers
    @property
    def ours(self) -> bool:
        return self.cell.operator == "ours"

    def proof(self, text: str) -> None:
        self.outcome.window.append(text)

    def note(self, text: str) -> None:
        self.outcome.notes.append(text)

    def wait(self, what: str, predicate: Callable[[], Any], timeout: float = STEP_TIMEOUT,
             interval: float = 0.1) -> Any:
        def checked():
            if ABORT.is_set():
                raise StackDied("the crash session was aborted")
            self.stack.check_alive()
            return predicate()

        return wait_for(f"{self.cell.id}: {what}", checked, timeout, interval)

    def trigger(self) -> None:
        self.stack.trigger(self.cell.dag_id, self.run_id)

    def ti(self) -> dict[str, Any]:
        return self.stack.ti(self.cell.dag_id, self.run_id, self.task_id)

    def store(self) -> dict[str, Any]:
        return self.stack.state_store(self.cell.dag_id, self.run_id, self.task_id)

    #: The official operator's key for the bare id in the state store; ours keeps its record beside it
    #: (``<raw_key>_durable``). Each vendor's cell run names its own.
    raw_key: str = RAW_KEY

    @property
    def checkpoint_key(self) -> str:
        return f"{self.raw_key}_durable"

    def record(self) -> dict[str, Any] | None:
        value = self.store().get(self.checkpoint_key)
        return value if isinstance(value, dict) else None

    def stored_id(self) -> Any:
        """The job id the store names (ours: the record's id; official: the bare value), or None."""
        store = self.store()
        record = store.get(self.checkpoint_key)
        if isinstance(record, dict):
            return record.get("id")
        return store.get(self.raw_key)

    def describe_store(self) -> str:
        store = self.store()
        record = store.get(self.checkpoint_key)
        if isinstance(record, dict):
            if record.get("id") is None:
                return f"store: intent without id (nonce {record['nonce'][:8]}…)"
            return f"store: id {record['id']} (status {record.get('status')})"
        if self.raw_key in store:
            return f"store: bare id {store[self.raw_key]}"
        return "store: empty"

    def ledger(self) -> dict[str, Any]:
        return self.emu.ledger()

    def cancel_times(self) -> list[float]:
        """Unix times of the vendor-side cancel calls, as the emulator records them (Databricks: runs/cancel)."""
        return [c["ts"] for c in self.ledger()["cancels"]]

    # -------------------------------------------------------------- a user's kill
    def mark_failed(self, while_: str) -> None:
        """The user's action: PATCH the task instance to failed over the REST API. The cancel's delay counts from
        the call (``time_the_cancel``), a heartbeat stall from the triggerer's log as it was then."""
        log = self.stack.procs["triggerer"].log_path
        self._triggerer_log_at = log.stat().st_size if log.exists() else 0
        self.marked_failed_at = time.time()
        self.stack.call("PATCH", f"/dags/{self.cell.dag_id}/dagRuns/{self.run_id}/taskInstances/{self.task_id}",
                        {"new_state": "failed"})
        self.note(f"PATCH taskInstances new_state=failed while {while_}")

    def wait_kill_handled(self, triggerer_job: int) -> None:
        """A deferred task marked failed: until its trigger ended on ``triggerer_job``, through ``on_kill``; the
        triggerer's heartbeat must not have stalled meanwhile (a stall that long lets triggers move)."""
        events = self.wait_trigger_ended(triggerer_job)
        if not any("invoking on_kill" in e for e in events):
            raise StackError("the triggerer ended the trigger without calling on_kill")
        self.proof("triggerer: 'Trigger cancelled by user action, invoking on_kill', then 'trigger completed'")
        with self.stack.procs["triggerer"].log_path.open("rb") as log:
            log.seek(self._triggerer_log_at)
            since = log.read().decode(errors="replace").splitlines()
        for line in since:
            if HEARTBEAT_STALL in line:
                self.deviations.append(f"the triggerer's heartbeat stalled while the trigger handled the kill: "
                                       f"{_event_text(line)[:200]}")

    def time_the_cancel(self) -> None:
        """A MARK-FAILED cell: the seconds from the user's REST call to the vendor's first cancel call after it;
        past ``CANCEL_DELAY_LIMIT`` the cell deviates. No cancel at all is the cancel count's to report."""
        if self.marked_failed_at is None:
            return
        after = [ts for ts in self.cancel_times() if ts >= self.marked_failed_at]
        if not after:
            return
        delay = self.outcome.cancel_delay = round(min(after) - self.marked_failed_at, 2)
        self.note(f"the cancel reached the vendor {delay:.2f} s after the user's REST call")
        if delay > CANCEL_DELAY_LIMIT:
            self.deviations.append(f"the cancel reached the vendor {delay:.1f} s after the user marked the task "
                                   f"failed (limit {CANCEL_DELAY_LIMIT:.0f} s)")

    # -------------------------------------------------------------- the vendor, for the outage driver
    @property
    def status_op(self) -> str:
        return GET

    def hold_submit(self) -> None:
        self.arm(SUBMIT, "after")

    def wait_submit_held(self) -> str:
        """The submit parked after the vendor created the job; the job's id, from the vendor's side."""
        self.wait_held(SUBMIT, "after")
        runs = self.ledger()["runs"]
        if len(runs) != 1:
            raise StackError(f"{self.cell.id}: {len(runs)} runs created at the held submit")
        return f"run {next(iter(runs))}"

    def release_submit(self) -> None:
        self.emu.release()

    def arm_outage(self) -> None:
        """Two rules on runs/get, claimed in order: 503 for OUTAGE_SECONDS from now, then the unknown
        state for UNKNOWN_SECONDS from the first reply it rewrote (the sync and the async hook alike)."""
        self.emu._call("POST", "faults", [
            {"path": GET, "status": 503, "count": -1, "seconds": OUTAGE_SECONDS},
            {"path": GET, "mode": "rewrite", "count": -1, "seconds": UNKNOWN_SECONDS, "seconds_from": "first",
             "patch": {"state": {"life_cycle_state": UNKNOWN_STATE, "result_state": None}}},
        ])

    def status_faults(self) -> list[tuple[float, str]]:
        """(Unix time, "503" | "unknown") of every injected answer to the status call."""
        return [(f["ts"], "unknown" if f["mode"] == "rewrite" else str(f["status"]))
                for f in self.ledger()["faults_fired"] if f["path"] == GET]

    def vendor_jobs(self) -> list[str]:
        """Each job's state on the vendor's side, oldest first."""
        runs = sorted(self.ledger()["runs"].items(), key=lambda kv: int(kv[0]))
        return [f"{r['state']}/{r['result_state']}" if r["result_state"] else r["state"] for _, r in runs]

    # -------------------------------------------------------------- windows
    def arm(self, path: str, phase: str) -> None:
        self.emu.hold(path, phase)

    def wait_held(self, path: str, phase: str) -> dict[str, Any]:
        held = self.wait(f"a request held at {path}/{phase}", lambda: self.emu.held(path))
        self.proof(f"held {path} ({phase}) with the client connected")
        return held

    def wait_deferred_and_polled(self) -> dict[str, Any]:
        ti = self.wait("the task deferred, its trigger assigned", lambda: self._deferred_assigned())
        calls = self.status_calls()
        self.wait("the trigger polling the vendor", lambda: self.status_calls() > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} polling")
        return ti

    def status_calls(self) -> int:
        """runs/get calls, and runs/list calls (the shared poller's way of asking) on this cell's emulator."""
        calls = self.ledger()["calls"]
        return calls.get(GET, 0) + calls.get(LIST, 0)

    def _deferred_assigned(self) -> dict[str, Any] | None:
        ti = self.ti()
        if ti["state"] == "deferred" and ti.get("trigger") and ti["trigger"].get("triggerer_id"):
            return ti
        return None

    def wait_stored_id(self) -> Any:
        run = self.wait("the run id in the state store", self.stored_id)
        self.proof(self.describe_store())
        return run

    def wait_polling(self, calls: int = 3) -> None:
        """The sync task is in its poll loop (sleep + runs/get), past the XCom pushes that precede it."""
        self.wait(f"{calls} runs/get calls (the task polling)", lambda: self.ledger()["calls"].get(GET, 0) >= calls)
        self.proof(f"task polling (runs/get x{self.ledger()['calls'].get(GET, 0)})")

    def trigger_log(self, triggerer_job: int, try_number: int = 1) -> list[str]:
        """Events of this task's trigger log written by one triggerer job (Airflow's own log lines)."""
        path = (self.stack.home / "logs" / f"dag_id={self.cell.dag_id}" / f"run_id={self.run_id}"
                / f"task_id={self.task_id}" / f"attempt={try_number}.log.trigger.{triggerer_job}.log")
        events = []
        try:
            lines = path.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return []
        for line in lines:
            try:
                events.append(str(json.loads(line).get("event") or ""))
            except ValueError:
                events.append(line)
        return events

    def trigger_logs_of_try(self, try_number: int) -> list[Path]:
        """Every triggerer's log file of this task's trigger for one try (one per triggerer job that ran it)."""
        folder = (self.stack.home / "logs" / f"dag_id={self.cell.dag_id}" / f"run_id={self.run_id}"
                  / f"task_id={self.task_id}")
        return list(folder.glob(f"attempt={try_number}.log.trigger.*.log"))

    def wait_trigger_ended(self, triggerer_job: int, timeout: float = 60, *, or_kept: bool = False) -> list[str]:
        """Until the trigger on ``triggerer_job`` logged "trigger completed" (on_kill, if any, is over).

        Airflow writes that line to the trigger's own log file and to the triggerer's output; the file
        sometimes misses it (seen once in a full run: on_kill's lines in the file, "trigger completed"
        only in the output), so the triggerer's output counts too. Every trigger that waits here runs on
        the stack's first triggerer (the one named "triggerer").

        ``or_kept``: our on_kill's own last line, that it leaves the job running (``KEPT_LINES``), ends the
        wait too. After it on_kill returns without a vendor call; Airflow's "trigger completed" follows
        through the triggerer's supervisor, which a SIGSTOP/SIGCONT (TRIGGER-MOVE) once left silent for
        more than 90 s on a loaded CI machine. What the cell proves — no cancel — is counted at the vendor."""

        def ended() -> list[str] | None:
            events = self.trigger_log(triggerer_job)
            if events and ("trigger completed" in events or self._triggerer_said_completed()):
                return events
            if or_kept and any(kept in e for e in events for kept in KEPT_LINES):
                return events
            return None

        return self.wait(f"the trigger on triggerer job {triggerer_job} to end", ended, timeout)

    def _triggerer_said_completed(self) -> bool:
        name = f"{self.cell.dag_id}/{self.run_id}/{self.task_id}/"
        text = self.stack.procs["triggerer"].log_path.read_text(errors="replace")
        return any("trigger completed" in line and name in line for line in text.splitlines())

    def freeze(self) -> None:
        """Stop the emulator clock: runs stay active until thaw(), so a window cannot close by itself."""
        self.emu.clock(speed=0)

    def thaw(self) -> None:
        self.emu.clock(speed=1)

    # -------------------------------------------------------------- processes
    def task_procs(self) -> list[psutil.Process]:
        """Supervisor and task runner of the try that is running now."""

        def found():
            ti = self.ti()
            if ti["state"] != "running":
                return None
            return self.stack.task_processes(ti["id"]) or None

        return self.wait("the task's supervisor and runner processes", found)

    def kill_worker(self, sig: signal.Signals = signal.SIGKILL) -> None:
        """SIGKILL the worker: the supervisor (the LocalExecutor worker) and the task runner child."""
        procs = self.task_procs()
        try_number = self.ti()["try_number"]
        for proc in procs:
            try:
                proc.send_signal(sig)
            except psutil.NoSuchProcess:
                pass
        gone, alive = psutil.wait_procs(procs, timeout=10)
        if alive:
            raise StackError(f"{self.cell.id}: processes survived {sig.name}: {alive}")
        self.note(f"{sig.name} supervisor pid {procs[0].pid} + runner pid {procs[1].pid} in try {try_number}")

    def evict_worker(self) -> None:
        """As a kubelet evicts a pod: SIGTERM the worker, grace period, then SIGKILL what is left."""
        supervisor, runner = self.task_procs()
        supervisor.send_signal(signal.SIGTERM)
        _, alive = psutil.wait_procs([runner], timeout=SIGTERM_GRACE)
        forwarded = [line for line in self.stack.procs["scheduler"].log_path.read_text(errors="replace").splitlines()
                     if "Received signal, forwarding to task subprocess" in line and f"pid={runner.pid}" in line]
        if forwarded:
            self.proof(f"supervisor logged 'Received signal, forwarding to task subprocess' (runner pid {runner.pid})")
        if alive:  # the pod's time is up: SIGKILL the supervisor and the task runner it still waits on
            for proc in (supervisor, runner):
                try:
                    proc.kill()
                except psutil.NoSuchProcess:
                    pass
            psutil.wait_procs([supervisor, runner], timeout=10)
            self.note(f"SIGTERM to supervisor pid {supervisor.pid}; task still running after the "
                      f"{SIGTERM_GRACE:.0f}s grace: SIGKILL")
        else:  # the try ended by itself; the LocalExecutor worker process is reused, leave it be
            self.note(f"SIGTERM to supervisor pid {supervisor.pid}; the try ended within the grace")

    def overtime_sigterm_logged(self, ti_id: str) -> bool:
        """Airflow's supervisor (in the LocalExecutor's worker, logging to the scheduler's log) ended this task
        instance's process for outliving its terminal state by ``[core] task_success_overtime``."""
        text = self.stack.procs["scheduler"].log_path.read_text(errors="replace")
        return any("Task success overtime reached" in line and ti_id in line for line in text.splitlines())

    def scheduler_saw_exit(self, try_number: int) -> bool:
        """The scheduler logged the executor's event for this try's process (it exited, e.g. deferred)."""
        key = (f"TaskInstanceKey(dag_id='{self.cell.dag_id}', task_id='{self.task_id}', run_id='{self.run_id}', "
               f"try_number={try_number},")
        text = self.stack.procs["scheduler"].log_path.read_text(errors="replace")
        return any("Received executor event with state" in line and key in line for line in text.splitlines())

    def procs_of_ti(self, ti_id: str) -> list[psutil.Process]:
        return self.stack.task_processes(ti_id)

    # -------------------------------------------------------------- outcome
    def finish(self, timeout: float = 240.0, interval: float = 0.1) -> None:
        def done():
            ti = self.ti()
            if ti["state"] not in TERMINAL:
                return None
            if self.procs_of_ti(ti["id"]):
                return None  # the try's process is still finishing (on_kill, log upload)
            return ti

        ti = self.wait("a final task state", done, timeout, interval)
        self.outcome.final_state = ti["state"]
        self.outcome.try_number = ti["try_number"]

    def task_log_tail(self, lines: int = 25) -> list[str]:
        """The last lines of each try's task log, for a failing cell's message."""
        folder = (self.stack.home / "logs" / f"dag_id={self.cell.dag_id}" / f"run_id={self.run_id}"
                  / f"task_id={self.task_id}")
        out = []
        for path in sorted(folder.glob("attempt=*.log*")):
            out.append(f"--- {path.name}")
            for line in path.read_text(errors="replace").splitlines()[-lines:]:
                try:
                    entry = json.loads(line)
                    stamp = entry.get("timestamp", "")[11:23]
                    out.append(f"{stamp} {entry.get('level', '')} {entry.get('event', '')}"[:300])
                except ValueError:
                    out.append(line[:300])
        return out

    def collect(self) -> None:
        ledger = self.ledger()
        subs = [s for s in ledger["submissions"] if s["status"] == 200]
        self.outcome.submit_calls = len(ledger["submissions"])
        self.outcome.deduplicated = sum(1 for s in subs if s["deduplicated"])
        self.outcome.runs_created = ledger["runs_created"]
        self.outcome.cancels = sum(1 for c in ledger["cancels"] if c["was_active"])
        runs = sorted(ledger["runs"].items(), key=lambda kv: int(kv[0]))
        self.outcome.tokens = [r["idempotency_token"] for _, r in runs]
        self.outcome.run_results = [r["result_state"] or r["state"] for _, r in runs]
        self.outcome.active_jobs = sum(1 for _, r in runs if r["state"] not in TERMINAL_LIFE_CYCLES)


# ====================================================================== drivers
def kill_in_window(path: str, phase: str, *, store_check: Callable[[CellRun], None] | None = None):
    def driver(run: CellRun) -> None:
        run.arm(path, phase)
        run.trigger()
        run.wait_held(path, phase)
        if store_check:
            store_check(run)
        run.proof(run.describe_store())
        run.kill_worker()
        run.emu.release(abandon=True)

    return driver


def _no_run_yet(run: CellRun) -> None:
    if run.ledger()["runs_created"] != 0:
        raise StackError("W1 window missed: the vendor already created a run")
    if run.ours and not (run.record() and run.record()["id"] is None):
        raise StackError("W1 window missed: no intent record before the submit")


def _run_but_no_id(run: CellRun) -> None:
    if run.ledger()["runs_created"] != 1:
        raise StackError("W2 window missed: the vendor has not created the run")
    if run.stored_id() is not None:
        raise StackError("W2 window missed: the id already reached the store")
    run.proof("vendor: run created; its id has not reached the store")


def _id_stored(run: CellRun) -> None:
    if run.ours or run.cell.mode == "sync":  # the official deferrable path stores nothing
        if run.stored_id() is None:
            raise StackError("W3 window missed: no id in the store yet")


def w4_triggerer_restart(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    stack = run.stack
    old = stack.procs["triggerer"]
    before = {j["id"] for j in stack.triggerer_jobs()}
    tree = [p for p in psutil.Process(old.pid).children(recursive=True)] + [psutil.Process(old.pid)]
    for proc in tree:
        proc.kill()
    psutil.wait_procs(tree, timeout=10)
    run.note(f"SIGKILL triggerer pid {old.pid} and its {len(tree) - 1} child process(es)")
    if run.ledger()["runs"] and all(r["state"] == "TERMINATED" for r in run.ledger()["runs"].values()):
        raise StackError("W4 window missed: the run ended before the triggerer was killed")
    stack.start_triggerer("triggerer")
    ti = run.wait("the trigger picked up by the restarted triggerer", lambda: _reassigned(run, before))
    run.proof(f"trigger re-assigned to new triggerer job {ti['trigger']['triggerer_id']}")
    run.thaw()


def _reassigned(run: CellRun, old_jobs: set[int]) -> dict[str, Any] | None:
    ti = run.ti()
    trig = ti.get("trigger") or {}
    if ti["state"] == "deferred" and trig.get("triggerer_id") and trig["triggerer_id"] not in old_jobs:
        return ti
    return None


HUB_LINE = "through the shared poller of its connection"


def hub_cell(driver: Callable[[CellRun], None]) -> Callable[[CellRun], None]:
    """``driver`` on a stack whose triggerers run the shared poller (``AirflowStack.share_poller``), with the
    proof that our trigger watched through it: its own log line, in the trigger log of try 1."""

    def run_through_the_hub(run: CellRun) -> None:
        if not run.stack.poller_shared:
            raise StackError(f"{run.cell.id}: the triggerers do not run the shared poller (the hub phase)")
        driver(run)

        def hub_said() -> dict[Path, list[str]]:
            return {path: [line for line in path.read_text(errors="replace").splitlines() if HUB_LINE in line]
                    for path in sorted(run.trigger_logs_of_try(1))}

        # A triggerer writes its trigger's log as it goes: right after a re-assignment the new triggerer's file
        # may not hold the line yet (or exist), and a SIGKILLed one may have left none. Wait for the event; only
        # a trigger that never went through the shared poller reaches the bound.
        def every_log_says() -> dict[Path, list[str]] | None:
            said = hub_said()
            return said if said and all(said.values()) else None

        try:
            said = run.wait(f"every trigger log of try 1 to say '{HUB_LINE}'", every_log_says)
        except TimeoutError:
            said = hub_said()
            silent = [path.name for path, lines in said.items() if not lines]
            raise StackError(f"{run.cell.id} window missed: trigger log(s) of try 1 without '{HUB_LINE}': "
                             f"{silent or 'no trigger log at all'}") from None
        first = next(iter(said.values()))[0]
        run.proof(f"each of the {len(said)} trigger log(s) of try 1 (one per triggerer that ran it): "
                  f"{_event_text(first)[:140]}")

    run_through_the_hub.__name__ = f"hub_{driver.__name__}"
    return run_through_the_hub


def _event_text(line: str) -> str:
    try:
        return str(json.loads(line).get("event") or line)
    except ValueError:
        return line


def w5_sync(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    run_id = run.wait_stored_id()
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


def w5_deferrable(run: CellRun) -> None:
    # The run is held PENDING until the scheduler has taken in the exit of the process that deferred:
    # a trigger that fires before that gets its resumed try failed by the scheduler ("finished with
    # state success, but the task instance's state attribute is queued"), an Airflow race that the
    # 1.3 s run lost under load, and then no execute_complete of try 1 is there to kill.
    run.arm(GET_OUTPUT, "before")
    run.freeze()
    run.trigger()
    run.wait_deferred_and_polled()
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    run.thaw()
    held = run.wait_held(GET_OUTPUT, "before")
    del held
    ledger = run.ledger()
    results = [r["result_state"] for r in ledger["runs"].values()]
    if results != ["SUCCESS"]:
        raise StackError(f"W5 window missed: runs {results}")
    run.proof("vendor: run SUCCESS; worker inside execute_complete (runs/get-output held)")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def w6_genuine_failure(run: CellRun) -> None:
    run.emu.config(outcomes=["FAILED"])
    run.trigger()
    run.wait("the first run to fail and a second run to start", lambda: run.ledger()["runs_created"] >= 2, 180)
    run.proof("vendor: first run FAILED (planned), a retry submitted again")


def sigterm_sync(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait_stored_id()
    run.evict_worker()
    run.thaw()


def sigterm_deferrable(run: CellRun) -> None:
    run.freeze()
    run.arm(GET, "before")
    run.trigger()
    run.wait_held(GET, "before")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)
    run.thaw()


def trigger_move(run: CellRun) -> None:
    """Two triggerers; the one running our trigger is paused until the trigger moves, then resumed."""
    stack = run.stack
    run.freeze()
    run.trigger()
    ti = run.wait_deferred_and_polled()
    home_job = ti["trigger"]["triggerer_id"]
    before = {j["id"] for j in stack.triggerer_jobs()}
    second = stack.start_triggerer("triggerer-2")
    try:
        new_job = run.wait("the second triggerer's heartbeat",
                           lambda: ({j["id"] for j in stack.triggerer_jobs()} - before) or None)
        first = stack.procs["triggerer"]
        tree = [psutil.Process(first.pid), *psutil.Process(first.pid).children(recursive=True)]
        for proc in tree:
            proc.suspend()
        run.note(f"second triggerer (job {min(new_job)}) up; SIGSTOP triggerer pid {first.pid} "
                 f"(+{len(tree) - 1} children), home of job {home_job}")
        try:
            moved = run.wait("the trigger to move to the second triggerer",
                             lambda: _reassigned(run, {home_job}), 120)
            run.proof(f"trigger moved from triggerer job {home_job} to {moved['trigger']['triggerer_id']}")
            polls = run.status_calls()
            run.wait("the second triggerer polling", lambda: run.status_calls() > polls)
        finally:
            for proc in tree:
                proc.resume()
        run.note(f"SIGCONT triggerer pid {first.pid}")
        events = run.wait_trigger_ended(home_job, 90, or_kept=True)
        if any("invoking on_kill" in e for e in events):
            run.proof("resumed triggerer: 'Trigger cancelled by user action, invoking on_kill' on its moved copy")
        else:
            run.proof("resumed triggerer ended its moved copy without on_kill")
        if "trigger completed" not in events:
            run.note("the moved copy's on_kill left the job running; Airflow's 'trigger completed' not yet logged")
        run.thaw()
        run.finish()
    finally:
        stack.procs.pop("triggerer-2", None)
        second.stop(grace=8)


def mark_failed_sync(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    run.wait_stored_id()
    run.wait_polling()
    procs = run.task_procs()
    run.mark_failed("running")
    run.wait("the killed try's task runner to exit", lambda: not procs[1].is_running(), 60)
    run.thaw()


def mark_failed_deferred(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    ti = run.wait_deferred_and_polled()
    run.mark_failed("deferred")
    run.wait_kill_handled(ti["trigger"]["triggerer_id"])
    run.thaw()


def _wchan(proc: psutil.Process) -> str:
    try:
        return open(f"/proc/{proc.pid}/wchan").read().strip()
    except OSError:
        return ""


def mark_failed_in_call(run: CellRun) -> None:
    """The user's kill lands while the task runner waits on the supervisor (a state-store write).

    The supervisor's heartbeat is held at the Execution API proxy, so the runner's next request to
    Airflow (writing the run id to the store, right after runs/submit returns) stays unanswered;
    the user marks the task failed; the heartbeat is released, answers 409 and the supervisor
    SIGTERMs the runner, whose on_kill now runs *inside* that pending call.
    """
    run.freeze()
    run.arm(SUBMIT, "after")
    run.trigger()
    run.wait_held(SUBMIT, "after")
    supervisor, runner = run.task_procs()
    heartbeat = f"/execution/task-instances/{run.ti()['id']}/heartbeat"
    run.stack.proxy.hold("PUT", heartbeat)
    run.wait("the supervisor's heartbeat held at the Execution API proxy",
             lambda: run.stack.proxy.held(heartbeat))
    run.proof("supervisor inside its heartbeat call (held at the Execution API proxy)")
    run.emu.release()
    run.wait("the task runner blocked on a reply from its supervisor",
             lambda: _wchan(runner) == "unix_stream_read_generic")
    run.proof(f"runner pid {runner.pid} blocked on its supervisor socket (wchan unix_stream_read_generic); "
              + run.describe_store())
    run.mark_failed("its runner waits on its supervisor")
    run.stack.proxy.release(heartbeat)
    released = time.monotonic()
    run.wait("the task runner to exit", lambda: not runner.is_running(), 120)
    run.note(f"PATCH new_state=failed, heartbeat released: runner exited after {time.monotonic() - released:.1f}s "
             f"(SIGKILL comes at [core] killed_task_cleanup_time = {KILLED_TASK_CLEANUP_TIME}s)")
    run.thaw()


def clear_running(run: CellRun) -> None:
    run.freeze()
    run.trigger()
    first = run.wait_stored_id()
    run.wait_polling()
    procs = run.task_procs()
    run.stack.call("POST", f"/dags/{run.cell.dag_id}/clearTaskInstances", {
        "dry_run": False, "dag_run_id": run.run_id, "task_ids": [run.task_id], "only_failed": False,
        "reset_dag_runs": True,
    })
    run.note(f"clearTaskInstances while running (run {first})")
    run.wait("the cleared try's task runner to exit", lambda: not procs[1].is_running(), 60)
    run.thaw()


def _fmt_ts(ts: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ts, timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def _during(ts: float, tries: dict[int, dict[str, Any]]) -> str:
    """Which try ran at Unix time ``ts`` (start to end, as Airflow recorded them), for a cell's notes."""
    spans = []
    for number, t in sorted(tries.items()):
        start, end = _when(t.get("start_date")), _when(t.get("end_date"))
        if start is not None and start <= ts and (end is None or ts <= end):
            return f"during try {number}, {t.get('state')}"
        spans.append(f"try {number} {_fmt_ts(start) if start else '?'}-{_fmt_ts(end) if end else '...'}")
    return "outside every try: " + ", ".join(spans) if spans else "no try recorded"


def _when(stamp: str | None) -> float | None:
    """Unix time of an Airflow API timestamp (ISO 8601), or None."""
    if not stamp:
        return None
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def outage(run: CellRun) -> None:
    """Issue 11 on the real stack: right after the submit, the status call answers 503 for
    OUTAGE_SECONDS, then reports a state no table lists for UNKNOWN_SECONDS (counted from the first
    such reply the task got), then answers normally; the job runs on to success.

    The submit's reply is held until both rules are armed, so the job provably exists on the
    vendor's side and every status call the task makes after it meets the outage first.
    Databricks: the run stays RUNNING for OUTAGE_RUN_SECONDS, past the faults. AWS: moto's
    progression is process-wide (a job moves on only when moto is read, so not during the 503s);
    a job may end while its replies say it is in the unknown state.
    """
    if not isinstance(run, AwsCellRun):
        run.emu.config(running_seconds=OUTAGE_RUN_SECONDS)
    run.hold_submit()
    run.trigger()
    job = run.wait_submit_held()
    run.arm_outage()
    armed = time.time()
    run.release_submit()
    run.proof(f"vendor: {job} created; the submit's reply held until the faults were armed on {run.status_op}")
    # These cells wait tens of seconds and run beside the busy ones: they ask Airflow's REST API
    # once a second (not ten times), so that the shared api-server keeps up with everyone.
    run.wait(f"{run.status_op} answered 503", lambda: any(k == "503" for _, k in run.status_faults()), 60, 0.25)
    run.wait(f"{run.status_op} reporting {UNKNOWN_STATE} (or the task ending)",
             lambda: any(k == "unknown" for _, k in run.status_faults()) or run.ti()["state"] in TERMINAL,
             OUTAGE_SECONDS + 150, 1.0)
    unknown = [t for t, k in run.status_faults() if k == "unknown"]
    if unknown:  # what the vendor holds when the faults are over (a note: the outcome is what counts)
        closes = unknown[0] + UNKNOWN_SECONDS
        run.wait("the unknown-state window to close", lambda: time.time() > closes, UNKNOWN_SECONDS + 30, 0.25)
        run.note(f"vendor when the unknown-state window closed ({closes - armed:+.1f} s): "
                 f"{', '.join(run.vendor_jobs())}")
    run.finish(interval=1.0)
    _judge_outage(run, armed)


def _judge_outage(run: CellRun, armed: float) -> None:
    """Prove, from the vendor's ledger, that the faults reached the running task; find an unknown
    state taken as an end (the task ending while the vendor still reported it)."""
    faults = run.status_faults()
    errors = [t for t, k in faults if k == "503"]
    unknown = [t for t, k in faults if k == "unknown"]
    ti = run.ti()
    tn, start, end = ti["try_number"], _when(ti.get("start_date")), _when(ti.get("end_date"))

    def at(t: float) -> str:
        return f"{t - armed:+.1f} s"

    op = run.status_op
    run.proof(f"{op} answered 503 x{len(errors)}, from {at(errors[0])} to {at(errors[-1])} after arming")
    if unknown:
        run.proof(f"{op} reported {UNKNOWN_STATE} x{len(unknown)}, from {at(unknown[0])} to {at(unknown[-1])}, "
                  f"then normal replies")
    else:
        run.deviations.append(f"{op} never reported {UNKNOWN_STATE}: no status call reached it after the outage")
    if start is None or end is None:
        return
    if all(start <= t <= end for t in errors + unknown):
        run.proof(f"all of them answered try {tn} while it ran ({at(start)} to {at(end)})")
    else:
        run.note(f"try {tn} ran {at(start)} to {at(end)}; earlier tries met the faults it did not")
    if unknown and run.outcome.final_state in TERMINAL and end < unknown[0] + UNKNOWN_SECONDS:
        run.deviations.append(
            f"try {tn} ended ({run.outcome.final_state}) at {at(end)}, while the vendor still reported "
            f"{UNKNOWN_STATE} (until {at(unknown[0] + UNKNOWN_SECONDS)}): an unknown state taken as an end")


def outage_title(unit: str, service: str = "", op: str = "") -> str:
    what = f"{service}: {op} fails" if op else "status calls fail"
    return (f"{what} for {OUTAGE_SECONDS:.0f} s (HTTP 503), then {'reports' if op else 'report'} an unknown state "
            f"for {UNKNOWN_SECONDS:.0f} s, while the {unit} goes on to succeed")

SCENARIOS: dict[str, Scenario] = {s.name: s for s in [
    Scenario("W1", "worker SIGKILL before submit (runs/submit held before the vendor)",
             {"sync": kill_in_window(SUBMIT, "before", store_check=_no_run_yet),
              "deferrable": kill_in_window(SUBMIT, "before", store_check=_no_run_yet)}),
    Scenario("W2", "worker SIGKILL after the vendor accepted, before the id reached the store",
             {"sync": kill_in_window(SUBMIT, "after", store_check=_run_but_no_id),
              "deferrable": kill_in_window(SUBMIT, "after", store_check=_run_but_no_id)},
             ci=("deferrable",)),
    Scenario("W3", "worker SIGKILL after the checkpoint: before defer() / while polling",
             {"sync": kill_in_window(GET, "before", store_check=_id_stored),
              "deferrable": kill_in_window(GET, "before", store_check=_id_stored)},
             ci=("deferrable",)),
    Scenario("W4", "triggerer SIGKILL while deferred, then restarted (costs no try)",
             {"deferrable": w4_triggerer_restart}, exclusive=True, expect_min_try=1, expect_max_try=1),
    Scenario("W5", "worker SIGKILL after the run succeeded (sync: last poll held; deferrable: in execute_complete)",
             {"sync": w5_sync, "deferrable": w5_deferrable}),
    Scenario("W6", "the run genuinely fails, then a retry",
             {"sync": w6_genuine_failure, "deferrable": w6_genuine_failure},
             expect_runs=2, expect_distinct_tokens=2),
    Scenario("SIGTERM", "worker SIGTERM (eviction/deploy), 4 s grace, then SIGKILL",
             {"sync": sigterm_sync, "deferrable": sigterm_deferrable}, ci=("sync", "deferrable")),
    Scenario("TRIGGER-MOVE", "two triggerers; the one running the trigger SIGSTOPped until it moves, then SIGCONT",
             {"deferrable": trigger_move}, exclusive=True, expect_min_try=1, expect_max_try=1),
    Scenario("MARK-FAILED", "user marks the task failed (sync: while polling; deferrable: while deferred)",
             {"sync": mark_failed_sync, "deferrable": mark_failed_deferred},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1),
    Scenario("W4-HUB", "as W4, the trigger watching through the shared poller",
             {"deferrable": hub_cell(w4_triggerer_restart)}, exclusive=True, hub=True, operators=("ours",),
             expect_min_try=1, expect_max_try=1),
    Scenario("TRIGGER-MOVE-HUB", "as TRIGGER-MOVE, both triggerers polling through the shared poller",
             {"deferrable": hub_cell(trigger_move)}, exclusive=True, hub=True, operators=("ours",),
             expect_min_try=1, expect_max_try=1),
    Scenario("MARK-FAILED-HUB", "as MARK-FAILED while deferred, the trigger watching through the shared poller",
             {"deferrable": hub_cell(mark_failed_deferred)}, exclusive=True, hub=True, operators=("ours",),
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1),
    Scenario("OUTAGE-HUB", "as OUTAGE deferrable, the trigger watching through the shared poller",
             {"deferrable": hub_cell(outage)}, hub=True, operators=("ours",), expect_min_try=1, expect_max_try=1),
    Scenario("MARK-FAILED-IN-CALL", "user marks the task failed while its runner waits on Airflow (state-store write)",
             {"sync": mark_failed_in_call},
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1),
    Scenario("CLEAR", "user clears the running task (a fresh run is wanted)",
             {"sync": clear_running}, expect_runs=2, expect_cancels=1, expect_min_try=2),
    Scenario("OUTAGE", outage_title("run"), {"sync": outage, "deferrable": outage},
             expect_min_try=1, expect_max_try=1, waits=True, quiet=True, ci=("deferrable",)),
]}

# Issue 19's rows (execution_timeout, the last try, reconcile); their drivers build on CellRun above.
from crash_orphans import ORPHAN_SCENARIOS  # noqa: E402

SCENARIOS.update({s.name: s for s in ORPHAN_SCENARIOS})


class AwsCellRun(CellRun):
    """A cell on an AWS service: ``self.emu`` is the cell's ``AwsVendor`` (its proxy in front of moto)."""

    emu: AwsVendor

    @property
    def raw_key(self) -> str:  # type: ignore[override]  # per service: the official operator's key
        return self.emu.service.raw_key

    def freeze(self) -> None:
        """moto's state manager is process-wide: only exclusive cells may freeze AWS jobs."""
        self.emu.env.moto.hold()

    def thaw(self) -> None:
        self.emu.env.moto.progress()

    def wait_deferred_and_polled(self) -> dict[str, Any]:
        describe = self.emu.service.describe
        ti = self.wait("the task deferred, its trigger assigned", lambda: self._deferred_assigned())
        calls = self.emu.calls(describe)
        self.wait(f"the trigger polling {describe}", lambda: self.emu.calls(describe) > calls)
        self.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} "
                   f"polling {describe}")
        return ti

    # -------------------------------------------------------------- the vendor, for the outage driver
    @property
    def status_op(self) -> str:
        return self.emu.service.describe

    def hold_submit(self) -> None:
        self.emu.hold_submit()

    def wait_submit_held(self) -> str:
        submit = self.emu.service.submit
        self.wait(f"{submit} parked after moto created the job", self.emu.held)
        created = self.emu.created()
        if len(created) != 1:
            raise StackError(f"{self.cell.id}: {len(created)} jobs created at the held {submit}")
        unit = vendors.crash_vendor(self.cell.scenario.vendor)[0].unit
        return f"{self.emu.service.name} {unit} {created[0]}"

    def release_submit(self) -> None:
        self.emu.release()

    def arm_outage(self) -> None:
        self.emu.outage(OUTAGE_SECONDS, UNKNOWN_SECONDS)

    def status_faults(self) -> list[tuple[float, str]]:
        return self.emu.status_faults()

    def vendor_jobs(self) -> list[str]:
        return [j["status"] for j in self.emu.jobs()]

    def cancel_times(self) -> list[float]:
        """As the cell's proxy forwarded the service's cancel calls to moto."""
        return [call["ts"] for call in self.emu.cancel_calls()]

    def collect(self) -> None:
        service = self.emu.service
        created = self.emu.created()
        jobs = self.emu.jobs()
        self.outcome.submit_calls = self.emu.calls(service.submit)
        self.outcome.deduplicated = 0
        self.outcome.runs_created = len(jobs)
        if len(jobs) != len(created):
            self.note(f"moto lists {len(jobs)} {service.name} jobs of {self.emu.job_name}, the proxy saw "
                      f"{len(created)} created")
        self.outcome.cancels = sum(self.emu.calls(op) for op in service.cancel_ops)
        cancels = self.emu.cancel_calls()
        tries = ({t["try_number"]: t for t in self.stack.tries(self.cell.dag_id, self.run_id, self.task_id)}
                 if cancels else {})  # the shared api-server is asked only when there is a cancel to place
        for call in cancels:
            self.note(f"{call['op']} by {call['agent']} at {_fmt_ts(call['ts'])} ({_during(call['ts'], tries)}): "
                      f"{call['request'][:200]}")
        self.outcome.tokens = [j["token"] for j in jobs]
        self.outcome.run_results = [j["status"] for j in jobs]
        self.outcome.active_jobs = sum(1 for j in jobs if j["status"] in service.active)


def aws_w2(run: AwsCellRun) -> None:
    """The submit parked at the proxy *after* moto created the job; the worker is SIGKILLed there."""
    name, submit = run.cell.scenario.name, run.emu.service.submit
    run.emu.hold_submit()
    run.trigger()
    run.wait(f"{submit} parked after moto created the job", run.emu.held)
    created = run.emu.created()
    if len(created) != 1:
        raise StackError(f"{name} window missed: {len(created)} jobs created")
    if run.stored_id() is not None:
        raise StackError(f"{name} window missed: the id already reached the store")
    if run.ours and not run.record():
        raise StackError(f"{name} window missed: no intent record before the submit")
    run.proof(f"held {submit} (after AWS created job {created[0]}) with the reply unsent")
    run.proof("vendor: job created; its id has not reached the store")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def aws_w4(run: AwsCellRun) -> None:
    """As W4: the job is kept active (moto held) while the triggerer is SIGKILLed and restarted."""
    run.freeze()
    try:
        run.trigger()
        run.wait_deferred_and_polled()
        stack = run.stack
        old = stack.procs["triggerer"]
        before = {j["id"] for j in stack.triggerer_jobs()}
        tree = [p for p in psutil.Process(old.pid).children(recursive=True)] + [psutil.Process(old.pid)]
        for proc in tree:
            proc.kill()
        psutil.wait_procs(tree, timeout=10)
        run.note(f"SIGKILL triggerer pid {old.pid} and its {len(tree) - 1} child process(es)")
        states = [j["status"] for j in run.emu.jobs()]
        if not states or any(s not in run.emu.service.active for s in states):
            raise StackError(f"{run.cell.scenario.name} window missed: jobs {states} when the triggerer was killed")
        run.proof(f"vendor: job {states[0]} (moto held) when the triggerer was killed")
        stack.start_triggerer("triggerer")
        ti = run.wait("the trigger picked up by the restarted triggerer", lambda: _reassigned(run, before))
        run.proof(f"trigger re-assigned to new triggerer job {ti['trigger']['triggerer_id']}")
        run.emu.env.moto.finish()  # the window is over: the job ends at its next read (cell runs alone)
        run.finish()
    finally:
        run.thaw()


def success_overtime(run: AwsCellRun) -> None:
    """The try succeeds; its success callback outlives ``[core] task_success_overtime`` (5 s on this stack), so
    Airflow's supervisor SIGTERMs the task process and the Task SDK's handler calls ``on_kill`` — after the job
    ended. Nothing in the harness signals anything: Airflow does, as it does on a loaded worker."""
    run.trigger()
    # the try's own id (Airflow 3 gives each try a new one), read as the log is
    run.wait("the supervisor's overtime SIGTERM", lambda: run.overtime_sigterm_logged(run.ti()["id"]),
             timeout=120.0, interval=0.5)
    run.proof("supervisor logged 'Task success overtime reached; terminating process' for the try (after its "
              "success, inside its slow success callback)")
    run.finish()


AWS_SCENARIOS: list[Scenario] = [
    Scenario("BATCH-W2", "AWS Batch: worker SIGKILL after AWS accepted SubmitJob, before the id reached the store",
             {"sync": aws_w2, "deferrable": aws_w2}, ci=("deferrable",), vendor="batch"),
    Scenario("BATCH-W4", "AWS Batch: triggerer SIGKILL while deferred, then restarted (costs no try)",
             {"deferrable": aws_w4}, exclusive=True, expect_min_try=1, expect_max_try=1, vendor="batch"),
    Scenario("BATCH-OVERTIME", "AWS Batch: the try succeeded, its success callback outlived task_success_overtime: "
             "Airflow's supervisor SIGTERMs the task process, whose handler calls on_kill",
             {"sync": success_overtime, "deferrable": success_overtime}, waits=True, expect_min_try=1,
             expect_max_try=1, vendor="batch", task={"success_callback_seconds": 15}),
    Scenario("ATHENA-W2", "Amazon Athena: worker SIGKILL after AWS accepted StartQueryExecution, before the id "
             "reached the store", {"sync": aws_w2, "deferrable": aws_w2}, ci=("deferrable",), vendor="athena"),
    # the AWS services whose outage rows the matrix records, each labelled after its crash key (BATCH-OUTAGE, ...)
    *(Scenario(f"{key.upper().replace('_', '-')}-OUTAGE",
               outage_title(unit, AWS_SERVICES[key].name, AWS_SERVICES[key].describe.split(":")[1]),
               {"sync": outage, "deferrable": outage}, expect_min_try=1, expect_max_try=1, waits=True, quiet=True,
               vendor=key)
      for key in ("batch", "glue", "emr_serverless", "athena")
      for unit in [vendors.crash_vendor(key)[0].unit]),
]
SCENARIOS.update({s.name: s for s in AWS_SCENARIOS})

from crash_snowflake import SNOWFLAKE_SCENARIOS, SnowflakeCellRun  # noqa: E402 - builds on CellRun above

SCENARIOS.update({s.name: s for s in SNOWFLAKE_SCENARIOS})

from crash_bigquery import BIGQUERY_SCENARIOS, BigQueryCellRun  # noqa: E402 - builds on CellRun above

#: The Google rows are part of the default matrix; DJ_CRASH_GOOGLE=0 leaves them out (a quicker local run).
#: They were left out while the shared triggerer stalled in the full matrix: every task and the trigger runner
#: re-imported the Google SDKs (12-19 s of CPU each on 2 cores) until the scheduler and the triggerer
#: pre-imported them for their forked children (crash_lab.preimports, vendor_route/sitecustomize.py).
GOOGLE_ROWS = __import__("os").environ.get("DJ_CRASH_GOOGLE", "1") != "0"
if GOOGLE_ROWS:
    SCENARIOS.update({s.name: s for s in BIGQUERY_SCENARIOS})

from crash_dataproc import DATAPROC_SCENARIOS, DataprocCellRun  # noqa: E402 - builds on CellRun above

if GOOGLE_ROWS:
    SCENARIOS.update({s.name: s for s in DATAPROC_SCENARIOS})

from crash_cloud_batch import CLOUD_BATCH_SCENARIOS, CloudBatchCellRun  # noqa: E402 - builds on crash_dataproc

if GOOGLE_ROWS:  # issue 16: Cloud Batch rows, behind the same gate as the other Google rows
    SCENARIOS.update({s.name: s for s in CLOUD_BATCH_SCENARIOS})

from crash_cloud_run import CLOUD_RUN_SCENARIOS, CloudRunCellRun  # noqa: E402 - builds on crash_dataproc

if GOOGLE_ROWS:  # issue 16: Cloud Run rows, behind the same gate as the other Google rows
    SCENARIOS.update({s.name: s for s in CLOUD_RUN_SCENARIOS})

from crash_dataflow import DATAFLOW_SCENARIOS, DataflowCellRun  # noqa: E402 - builds on crash_bigquery's pattern

if GOOGLE_ROWS:  # issue 16: Dataflow rows (templated and flex), behind the same gate as the other Google rows
    SCENARIOS.update({s.name: s for s in DATAFLOW_SCENARIOS})

# Issue 15: DatabricksRunNowOperator's rows, and W2/W5/SIGTERM/MARK-FAILED for AWS Glue and EMR Serverless.
from crash_aws_rows import AWS_ROW_SCENARIOS  # noqa: E402 - builds on AwsCellRun above
from crash_notebook import NOTEBOOK_SCENARIOS, TASK_SCENARIOS  # noqa: E402 - builds on the drivers above
from crash_runnow import RUN_NOW_SCENARIOS  # noqa: E402 - builds on the drivers above

SCENARIOS.update({s.name: s for s in RUN_NOW_SCENARIOS})
SCENARIOS.update({s.name: s for s in NOTEBOOK_SCENARIOS})
SCENARIOS.update({s.name: s for s in TASK_SCENARIOS})
SCENARIOS.update({s.name: s for s in AWS_ROW_SCENARIOS})

# Issue 15: AWS Step Functions rows (W2, W5, SIGTERM; MARK-FAILED while deferred).
from crash_sfn_rows import SFN_SCENARIOS  # noqa: E402 - builds on crash_aws_rows above

SCENARIOS.update({s.name: s for s in SFN_SCENARIOS})

# Issue 15: Amazon ECS rows (W2, W5, SIGTERM, MARK-FAILED; sync and deferrable).
from crash_ecs_rows import ECS_SCENARIOS  # noqa: E402 - builds on crash_aws_rows above

SCENARIOS.update({s.name: s for s in ECS_SCENARIOS})

# Issue 15: Amazon Redshift Data API rows (W2, W5, SIGTERM, MARK-FAILED; sync and deferrable).
from crash_redshift_data_rows import REDSHIFT_DATA_SCENARIOS  # noqa: E402 - builds on crash_aws_rows above

SCENARIOS.update({s.name: s for s in REDSHIFT_DATA_SCENARIOS})

# Issue 15: Amazon EMR on EKS rows (W2, W5, SIGTERM, MARK-FAILED; sync and deferrable).
from crash_emr_containers_rows import EMR_CONTAINERS_SCENARIOS  # noqa: E402 - builds on crash_aws_rows above

SCENARIOS.update({s.name: s for s in EMR_CONTAINERS_SCENARIOS})

# Issue 15: Amazon EMR steps rows (W2, W5, SIGTERM, MARK-FAILED; sync and deferrable).
from crash_emr_steps_rows import EMR_STEPS_SCENARIOS  # noqa: E402 - builds on crash_aws_rows above

SCENARIOS.update({s.name: s for s in EMR_STEPS_SCENARIOS})

# Issue 15: Amazon SageMaker training rows (W2, W5, SIGTERM, MARK-FAILED; sync and deferrable).
from crash_sagemaker_rows import SAGEMAKER_SCENARIOS  # noqa: E402 - builds on crash_aws_rows above

SCENARIOS.update({s.name: s for s in SAGEMAKER_SCENARIOS})

from crash_databricks_sql import SQL_SCENARIOS, DatabricksSqlCellRun  # noqa: E402 - builds on CellRun above

SCENARIOS.update({s.name: s for s in SQL_SCENARIOS})


def all_cells() -> list[Cell]:
    return [Cell(s, op, mode) for s in SCENARIOS.values() for mode in s.drivers for op in OPERATORS
            if op in s.operators]


def run_cell(stack: AirflowStack, emulator: Emulator, cell: Cell) -> Outcome:
    vendor = cell.scenario.vendor
    kind = AwsCellRun if vendor in AWS_SERVICES else SnowflakeCellRun if vendor == "snowflake" else CellRun
    kind = BigQueryCellRun if vendor == "bigquery" else kind
    kind = DataprocCellRun if vendor in ("dataproc_jobs", "dataproc_batches") else kind
    kind = CloudBatchCellRun if vendor == "cloud_batch" else kind
    kind = CloudRunCellRun if vendor == "cloud_run" else kind
    kind = DataflowCellRun if vendor in ("dataflow_templated", "dataflow_flex") else kind
    kind = DatabricksSqlCellRun if vendor == "databricks_sql" else kind
    run = kind(stack, emulator, cell)
    started = time.monotonic()
    try:
        cell.scenario.drivers[cell.mode](run)
        if run.outcome.final_state is None:
            run.finish()
    except Exception as err:  # recorded, and the cell's test fails with it
        run.outcome.error = f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=6)}"
        try:
            ti = run.ti()
            run.outcome.final_state, run.outcome.try_number = ti["state"], ti["try_number"]
        except Exception:
            pass
    try:
        run.collect()
        run.time_the_cancel()
    except Exception as err:
        run.outcome.error = (run.outcome.error or "") + f"\ncollect failed: {err!r}"
    run.outcome.seconds = round(time.monotonic() - started, 1)
    run.outcome.load = [*(round(x, 2) for x in os.getloadavg()), float(os.cpu_count() or 1)]
    run.outcome.deviations = violations(run.outcome, cell.scenario) + run.deviations
    if run.outcome.error or (run.ours and run.outcome.deviations):
        run.outcome.log_tail = run.task_log_tail()
    return run.outcome


def violations(outcome: Outcome, scenario: Scenario) -> list[str]:
    """Where an outcome differs from what the scenario demands of an exactly-once operator."""
    bad = []
    if outcome.runs_created != scenario.expect_runs:
        bad.append(f"{outcome.runs_created} runs created, expected {scenario.expect_runs}")
    if scenario.expect_cancels is not None and outcome.cancels != scenario.expect_cancels:
        bad.append(f"{outcome.cancels} cancels, expected {scenario.expect_cancels}")
    if outcome.final_state != scenario.expect_state:
        bad.append(f"final state {outcome.final_state}, expected {scenario.expect_state}")
    tn = outcome.try_number or 0
    if tn < scenario.expect_min_try or (scenario.expect_max_try is not None and tn > scenario.expect_max_try):
        want = (f"{scenario.expect_min_try}" if scenario.expect_max_try == scenario.expect_min_try
                else f">= {scenario.expect_min_try}")
        bad.append(f"try_number {tn}, expected {want}")
    if outcome.final_state == "failed" and outcome.active_jobs:
        bad.append(f"the task failed while {outcome.active_jobs} of its jobs still ran on the vendor's side: "
                   "an orphan")
    if scenario.expect_distinct_tokens is not None and outcome.operator == "ours":
        tokens = {t for t in outcome.tokens if t}
        if len(tokens) != scenario.expect_distinct_tokens:
            bad.append(f"{len(tokens)} distinct idempotency tokens, expected {scenario.expect_distinct_tokens}")
    return bad

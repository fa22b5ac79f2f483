"""Crash cells for issue 19, no orphaned jobs: the task's own bound, the last try, and reconcile.

* TIMEOUT / TIMEOUT-LAST: ``execution_timeout`` (40 s) while the run would take ten minutes, with a
  retry left and on the last try. The deferrable bound is the trigger timeout the scheduler enforces
  (``__fail__``), which Airflow 3.3.2 sets only when ``defer()`` is given a ``timeout``.
* LAST-SIGTERM: an eviction (SIGTERM, grace, SIGKILL) on the last try.
* LAST-SIGKILL: SIGKILL on the last try; Airflow fails the task for lack of heartbeats and the DAG
  processor runs the task's ``on_failure_callback`` (durable_jobs/core/orphans.py for ours).
* RECONCILE: orphans planted on the stack (``cancel_on_kill="never"``), next to jobs that are not
  orphans; ``durable-jobs reconcile`` runs as a subprocess on the stack's metadata DB.

Every cell also meets the matrix-wide demand (``crash_scenarios.violations``): a task of ours that
ends failed leaves no job active on the vendor's side.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import requests
from crash_scenarios import (
    GET,
    TERMINAL,
    CellRun,
    Scenario,
    _event_text,
    _when,
    hub_cell,
    sigterm_deferrable,
    sigterm_sync,
)
from crash_stack import VENV_BIN, StackError

#: execution_timeout of the TIMEOUT cells, seconds. It bounds the deferral from the try's start (a loaded 2-CPU
#: stack can take seconds to reach defer()), and try 2 of TIMEOUT must end inside it too (a new SECOND_RUN s run:
#: submit, defer, trigger, resume): several times what either takes beside the other test lanes.
EXECUTION_TIMEOUT = 40
#: Seconds try 2's run takes (TIMEOUT): see timeout_cell.
SECOND_RUN = 10.0
#: how long the first run of a TIMEOUT cell would run: only the bound (or a cancel) ends it in the cell
LONG_RUN = 600.0


# ---------------------------------------------------------------------------------------- helpers
def _active_cancels(run: CellRun) -> list[dict[str, Any]]:
    return [c for c in run.ledger()["cancels"] if c["was_active"]]


def _task_log_events(run: CellRun, try_number: int) -> list[str]:
    path = (run.stack.home / "logs" / f"dag_id={run.cell.dag_id}" / f"run_id={run.run_id}"
            / f"task_id={run.task_id}" / f"attempt={try_number}.log")
    try:
        lines = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    events = []
    for line in lines:
        try:
            events.append(str(json.loads(line).get("event") or ""))
        except ValueError:
            events.append(line)
    return events


def _processor_lines(run: CellRun, *needles: str) -> list[str]:
    """Lines of the DAG processor's logs (its own and its file processors') holding every needle."""
    paths = [run.stack.procs["dag-processor"].log_path,
             *sorted((run.stack.home / "logs" / "dag_processor").rglob("*.log"))]
    found = []
    for path in paths:
        try:
            text = Path(path).read_text(errors="replace")
        except OSError:
            continue
        found += [line for line in text.splitlines() if all(n in line for n in needles)]
    return found


def _wait_failed(run: CellRun, what: str, timeout: float = 150.0) -> dict[str, Any]:
    return run.wait(what, lambda: (ti := run.ti())["state"] in TERMINAL and ti, timeout, 0.5)


# ---------------------------------------------------------------------------------------- TIMEOUT
def timeout_cell(run: CellRun) -> None:
    """The first run would take LONG_RUN s; execution_timeout (EXECUTION_TIMEOUT s) ends try 1 while it runs.

    Proof of the window: the run RUNNING on the vendor's side while the try polls it (sync) or is deferred
    with its trigger polling (deferrable); then Airflow's own end of try 1, and the cancel (was it active).
    """
    # Try 2's run lasts long enough for the scheduler to drain the executor's success of try 2's defer() exit
    # before its trigger fires: Airflow 3.3.2 fails a resumed try that is already queued or running when that
    # stale success arrives (apache/airflow#72716, "state mismatch"; the guard covers only a scheduled one),
    # which a loaded machine hits with a 1 s run. That race is Airflow's, not the one this cell measures.
    run.emu.config(outcomes=[{"outcome": "SUCCESS", "running_seconds": LONG_RUN},
                             {"outcome": "SUCCESS", "running_seconds": SECOND_RUN}])
    run.trigger()
    run.wait("the first run created", lambda: run.ledger()["runs_created"] >= 1, interval=0.25)
    if run.cell.mode == "sync":
        run.wait_polling()
    else:
        run.wait_deferred_and_polled()
    first = min(run.ledger()["runs"], key=int)
    ti = run.ti()
    started = _when(ti["start_date"]) or time.time()
    run.proof(f"vendor: run {first} {run.ledger()['runs'][first]['state']} (planned {LONG_RUN:.0f} s) while try 1 "
              f"is {ti['state']}; execution_timeout {EXECUTION_TIMEOUT} s")
    bound = started + EXECUTION_TIMEOUT + 20

    def try_one_over() -> dict[str, Any] | None:
        now = run.ti()
        if now["try_number"] > 1 or now["state"] in (*TERMINAL, "up_for_retry"):
            return now
        if time.time() > bound:
            return {**now, "unbounded": True}
        return None

    over = run.wait("try 1 to end (execution_timeout)", try_one_over, EXECUTION_TIMEOUT + 90, 0.5)
    if over.get("unbounded"):
        run.note(f"try 1 still {over['state']} {time.time() - started:.0f} s after it started: the deferral is not "
                 f"bounded by execution_timeout (Airflow 3.3.2 sets no trigger timeout unless defer() is given one); "
                 f"the emulator clock is moved on so the run ends")
        run.emu.clock(advance=LONG_RUN + 60)
    else:
        tries = {t["try_number"]: t for t in run.stack.tries(run.cell.dag_id, run.run_id, run.task_id)}
        one = tries.get(1, {})
        start, end = _when(one.get("start_date")), _when(one.get("end_date"))
        span = f", {end - start:.1f} s after it started" if start and end else ""
        run.proof(f"Airflow ended try 1 ({one.get('state') or over['state']}{span})")
        cancels = [c for c in _active_cancels(run) if str(c["run_id"]) == str(first)]
        if cancels:
            run.proof(f"vendor: run {first} cancelled while active, {cancels[0]['ts'] - started:.1f} s after try 1 "
                      f"started")
        said = [e for e in _task_log_events(run, 1) if "execution_timeout" in e and "cancelling" in e]
        if said:
            run.proof(f"try 1 log: {said[0][:160]}")
    run.finish()


# ---------------------------------------------------------------------------------------- LAST-SIGTERM
def last_sigterm(run: CellRun) -> None:
    """The SIGTERM cell's eviction (SIGTERM, grace, SIGKILL) on the last try; then what the vendor saw."""
    (sigterm_sync if run.cell.mode == "sync" else sigterm_deferrable)(run)
    for cancel in _active_cancels(run):
        run.proof(f"vendor: run {cancel['run_id']} cancelled while active")
    said = [e for e in _task_log_events(run, 1) if "on_kill on the last try" in e]
    if said:
        run.proof(f"try 1 log: {said[0][:160]}")


# ---------------------------------------------------------------------------------------- LAST-SIGKILL
def last_sigkill(run: CellRun) -> None:
    """SIGKILL the worker on the last try; Airflow fails the task for lack of heartbeats, then the DAG
    processor runs the task's failure callbacks. Sync: while polling. Deferrable: in execute, after the
    checkpoint, with the status call before defer() held (the worker exists only there or in
    execute_complete)."""
    run.freeze()
    if run.cell.mode == "sync":
        run.trigger()
        run.wait_stored_id()
        run.wait_polling()
    else:
        run.arm(GET, "before")
        run.trigger()
        run.wait_held(GET, "before")
        run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)
    ti = _wait_failed(run, "Airflow to fail the task (heartbeat timeout, no retry left)")
    seen = time.time()
    states = run.vendor_jobs()
    run.proof(f"Airflow marked the task {ti['state']} (try {ti['try_number']}); the vendor then: {', '.join(states)}")
    if any(_processor_lines(run, "heartbeat", run.cell.dag_id)) or any(
            "without a heartbeat" in line and run.cell.dag_id in line
            for line in run.stack.procs["scheduler"].log_path.read_text(errors="replace").splitlines()):
        run.proof("scheduler: 'Detected a task instance without a heartbeat' for this task")
    end = _when(ti.get("end_date")) or seen
    if run.ours:
        cancel = run.wait("the run cancelled by the failure callback (DAG processor)",
                          lambda: _active_cancels(run), 120, 0.5)[0]
        if cancel["ts"] >= end:
            run.proof(f"vendor: run {cancel['run_id']} cancelled {cancel['ts'] - end:.1f} s after the task's end_date")
        else:
            run.note(f"run {cancel['run_id']} cancelled {end - cancel['ts']:.1f} s before the task's end_date was "
                     "written (the scheduler sends the callback request before it records the failure)")
        said = run.wait("the DAG processor's log of the callback",
                        lambda: _processor_lines(run, "failed for good", run.cell.dag_id), 60, 0.5)
        run.proof(f"DAG processor: {_event_text(said[0])[:200]}")
    else:
        said = run.wait("the DAG processor to run the task's failure callbacks",
                        lambda: _processor_lines(run, "Callback requested but no callback found", run.cell.dag_id)
                        or _processor_lines(run, "Executing Task callback", run.cell.dag_id), 90, 0.5)
        run.proof(f"DAG processor: {_event_text(said[0])[:160]}; vendor then: {', '.join(run.vendor_jobs())}")
    run.finish()


# ---------------------------------------------------------------------------------------- RECONCILE
def _reconcile(run: CellRun, *args: str) -> tuple[int, list[dict[str, Any]]]:
    """``durable-jobs reconcile`` as a user runs it: a subprocess with the stack's AIRFLOW_HOME and config."""
    argv = [str(VENV_BIN / "durable-jobs"), "reconcile", "--dag-id", run.cell.dag_id, "--format", "json", *args]
    done = subprocess.run(argv, env=run.stack.env, capture_output=True, text=True, timeout=240)
    try:  # stdout is the report alone (log lines go to stderr)
        findings = json.loads(done.stdout)
    except ValueError as err:
        raise StackError(f"reconcile's stdout is not one JSON document (exit {done.returncode}): "
                         f"{done.stdout[-800:]} {done.stderr[-1500:]}") from err
    return done.returncode, findings


def _plant(run: CellRun, run_id: str) -> None:
    run.run_id = run_id
    run.trigger()


def _patch_state(run: CellRun, state: str) -> None:
    run.stack.call("PATCH", f"/dags/{run.cell.dag_id}/dagRuns/{run.run_id}/taskInstances/{run.task_id}",
                   {"new_state": state})


def reconcile_cell(run: CellRun) -> None:
    """Plant two orphans and three jobs that are not, then ask ``durable-jobs reconcile`` (dry run, --cancel,
    dry run again) for this cell's DAG; every task runs with ``cancel_on_kill="never"`` and no retry.

    Orphans: ``crash`` (SIGKILL on the last try, failed by Airflow; the failure callback leaves it, as
    "never" says) and ``marked-success`` (a user marks the deferred task success). Not orphans: ``done``
    (succeeded), ``console-cancelled`` (marked failed, then cancelled on the vendor's side) and ``deferred``
    (still deferred: something still watches it)."""
    ids: dict[str, str] = {}

    def newest() -> str:
        return max(run.ledger()["runs"], key=int)

    run.emu.config(running_seconds=1.0)
    _plant(run, "done")
    run.finish()
    ids["done"] = newest()
    run.freeze()  # from here on every run stays active until the cell ends or someone cancels it

    run.arm(GET, "before")
    _plant(run, "crash")
    run.wait_held(GET, "before")
    ids["crash"] = str(run.stored_id())
    run.kill_worker()
    run.emu.release(abandon=True)
    _wait_failed(run, "Airflow to fail the SIGKILLed task (heartbeat timeout)")
    said = run.wait("the failure callback to leave the run (cancel_on_kill='never')",
                    lambda: _processor_lines(run, "cancel_on_kill='never' leaves it", run.cell.dag_id), 90, 0.5)
    run.proof(f"crash: SIGKILL on the last try, failed by Airflow; DAG processor: {_event_text(said[0])[:120]}")

    _plant(run, "marked-success")
    trig = run.wait_deferred_and_polled()
    ids["marked-success"] = newest()
    _patch_state(run, "success")
    events = run.wait_trigger_ended(trig["trigger"]["triggerer_id"])
    run.proof(f"marked-success: deferred, marked success by a user; its trigger ended "
              f"({'on_kill invoked' if any('invoking on_kill' in e for e in events) else 'without on_kill'}), "
              f"run {ids['marked-success']} left {run.ledger()['runs'][ids['marked-success']]['state']}")

    _plant(run, "console-cancelled")
    trig = run.wait_deferred_and_polled()
    ids["console-cancelled"] = newest()
    _patch_state(run, "failed")
    run.wait_trigger_ended(trig["trigger"]["triggerer_id"])
    resp = requests.post(f"{run.emu.url}/api/2.1/jobs/runs/cancel", json={"run_id": int(ids["console-cancelled"])},
                         headers={"Authorization": "Bearer emulator-token"}, timeout=10)
    resp.raise_for_status()
    run.proof(f"console-cancelled: deferred, marked failed, then run {ids['console-cancelled']} cancelled on the "
              "vendor's side (POST runs/cancel, as from its console)")

    _plant(run, "deferred")
    run.wait_deferred_and_polled()
    ids["deferred"] = newest()
    jobs = {name: run.ledger()["runs"][rid]["state"] for name, rid in ids.items()}
    run.proof(f"planted (task run -> vendor run state): {', '.join(f'{n} -> {ids[n]} {s}' for n, s in jobs.items())}")

    want = {("crash", ids["crash"]), ("marked-success", ids["marked-success"])}
    code, found = _reconcile(run)
    listed = {(f["run_id"], str(f["job_id"])) for f in found}
    if listed != want or {f["verdict"] for f in found} != {"orphan"} or code != 1:
        run.deviations.append(f"reconcile (dry run) listed {sorted(listed)} (exit {code}), expected {sorted(want)}")
    else:
        listed_as = ", ".join(f"{f['run_id']} is {f['ti_state']}" for f in found)
        run.proof(f"reconcile --format json: exactly the 2 orphans ({listed_as}), exit 1, nothing cancelled")
    before = len(_active_cancels(run))
    code, found = _reconcile(run, "--cancel")
    cancelled = {str(c["run_id"]) for c in _active_cancels(run)[before:]}
    if {(f["run_id"], str(f["job_id"]), f["verdict"]) for f in found} != {(r, j, "cancelled") for r, j in want} \
            or cancelled != {j for _, j in want} or code != 0:
        run.deviations.append(f"reconcile --cancel: findings {found} (exit {code}); vendor cancels {sorted(cancelled)}")
    else:
        run.proof(f"reconcile --cancel: runs {', '.join(sorted(cancelled))} cancelled on the vendor's side, exit 0")
    code, found = _reconcile(run)
    if found or code != 0:
        run.deviations.append(f"reconcile after --cancel still lists {found} (exit {code})")
    else:
        run.proof("reconcile again: nothing listed, exit 0")

    run.thaw()
    run.finish()  # the still-deferred task's run goes on to success
    run.run_id = "crash"
    run.finish()


ORPHAN_SCENARIOS: list[Scenario] = [
    Scenario("TIMEOUT", f"execution_timeout ({EXECUTION_TIMEOUT} s) while the run is long, a retry left",
             {"sync": timeout_cell, "deferrable": timeout_cell}, task={"execution_timeout": EXECUTION_TIMEOUT},
             quiet=True, expect_runs=2, expect_cancels=1, expect_min_try=2, expect_max_try=2),
    Scenario("TIMEOUT-HUB", "as TIMEOUT deferrable, the trigger watching through the shared poller",
             {"deferrable": hub_cell(timeout_cell)}, task={"execution_timeout": EXECUTION_TIMEOUT}, hub=True,
             operators=("ours",), expect_runs=2, expect_cancels=1, expect_min_try=2, expect_max_try=2),
    Scenario("TIMEOUT-LAST", f"execution_timeout ({EXECUTION_TIMEOUT} s) while the run is long, on the last try",
             {"sync": timeout_cell, "deferrable": timeout_cell},
             task={"execution_timeout": EXECUTION_TIMEOUT, "retries": 0}, quiet=True,
             expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1),
    Scenario("LAST-SIGTERM", "worker SIGTERM (eviction/deploy) on the last try, 4 s grace, then SIGKILL "
             "(deferrable: in execute, before defer())", {"sync": last_sigterm, "deferrable": last_sigterm},
             task={"retries": 0}, expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1),
    Scenario("LAST-SIGKILL", "worker SIGKILL on the last try (deferrable: in execute, before defer()); Airflow "
             "fails the task for lack of heartbeats", {"sync": last_sigkill, "deferrable": last_sigkill},
             task={"retries": 0}, expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1),
    Scenario("RECONCILE", "durable-jobs reconcile on the stack's metadata DB: 2 orphans planted (SIGKILL on the last "
             "try, deferred task marked success; cancel_on_kill='never') beside a succeeded, a vendor-cancelled and a "
             "still-deferred task", {"deferrable": reconcile_cell}, operators=("ours",),
             task={"retries": 0, "cancel_on_kill": "never"},
             expect_runs=5, expect_cancels=3, expect_state="failed", expect_min_try=1, expect_max_try=1),
]

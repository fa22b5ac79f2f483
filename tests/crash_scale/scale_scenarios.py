"""Crash cells on the scale stack (issue 17): the crash suite's windows, with a whole Celery worker killed.

The drivers are the crash suite's own (``tests/crash``): the window is proved the same way (a request parked on
the vendor's hold with the client connected, and the task state store). What changes is what dies: on the
CeleryExecutor the task's supervisor is a pool process of a Celery worker, so a crash here SIGKILLs the *whole*
worker (main process, pool, supervisors, task runners) and an eviction is the worker's warm shutdown: SIGTERM to
its main process, as a kubelet sends to a pod's PID 1, then SIGKILL after the grace period. The killed worker
stays down until the task ends, so the retry can only land on the other worker; Airflow's own record of each try
(its ``hostname``, which each worker answers through ``[core] hostname_callable``) shows that it did.
"""

from __future__ import annotations

import datetime as dt
import signal
import time
import traceback
from typing import Any

import crash_scenarios  # noqa: F401 - first: crash_bigquery imports crash_scenarios, which imports it back
import psutil

# isort: split
from crash_aws_rows import _wait_sync_polling
from crash_bigquery import BigQueryCellRun
from crash_bigquery import sigterm_sync as bq_sigterm_sync
from crash_bigquery import w2 as bq_w2
from crash_bigquery import w3 as bq_w3
from crash_scenarios import (
    GET,
    HUB_LINE,
    SIGTERM_GRACE,
    SUBMIT,
    AwsCellRun,
    Cell,
    CellRun,
    Outcome,
    Scenario,
    StackError,
    _id_stored,
    _run_but_no_id,
    aws_w2,
    kill_in_window,
    violations,
)
from crash_stack import wait_for
from scale_stack import TRIGGERERS, WORKERS, ScaleStack


class ScaleRun:
    """Mixin over a vendor's CellRun: kill or evict the whole Celery worker that runs the task."""

    stack: ScaleStack
    #: the worker this cell killed (restarted once the task has ended)
    downed: str | None = None

    def running_on(self) -> tuple[str, list[psutil.Process]]:
        """(worker name, [supervisor, runner]) of the try running now."""

        def found():
            ti = self.ti()
            if ti["state"] != "running":
                return None
            name, procs = self.stack.task_processes_on(ti["id"])
            return (name, procs) if name and len(procs) == 2 else None

        return self.wait("the task's Celery worker, supervisor and runner", found)  # type: ignore[attr-defined]

    def kill_worker(self, sig: signal.Signals = signal.SIGKILL) -> None:
        name, (supervisor, runner) = self.running_on()
        try_number = self.ti()["try_number"]  # type: ignore[attr-defined]
        main = self.stack.procs[name]
        tree = self.stack.kill_worker(name, sig)
        self.stack.retire(name)  # killed on purpose: not a stack failure
        self.downed = name
        _, alive = psutil.wait_procs(tree, timeout=15)
        if alive:
            raise StackError(f"{self.cell.id}: processes of {name} survived {sig.name}: {alive}")  # type: ignore[attr-defined]
        self.note(f"{sig.name} Celery worker {name}: main pid {main.pid}, {len(tree)} processes "  # type: ignore[attr-defined]
                  f"(supervisor {supervisor.pid}, runner {runner.pid}) in try {try_number}")

    def evict_worker(self) -> None:
        """Warm shutdown: SIGTERM the worker's main process, grace period, then SIGKILL what is left."""
        name, (supervisor, runner) = self.running_on()
        try_number = self.ti()["try_number"]  # type: ignore[attr-defined]
        main = self.stack.procs[name]
        tree = [psutil.Process(main.pid), *psutil.Process(main.pid).children(recursive=True)]
        self.stack.retire(name)
        self.downed = name
        psutil.Process(main.pid).send_signal(signal.SIGTERM)
        _, alive = psutil.wait_procs([runner], timeout=SIGTERM_GRACE)
        log = main.log_path.read_text(errors="replace")
        if "Warm shutdown" in log:
            self.proof(f"Celery worker {name} logged 'Warm shutdown' (SIGTERM to main pid {main.pid})")  # type: ignore[attr-defined]
        else:
            raise StackError(f"{self.cell.id}: {name} did not begin a warm shutdown on SIGTERM")  # type: ignore[attr-defined]
        if alive:
            left = [p for p in tree if p.is_running()]
            for proc in left:
                try:
                    proc.kill()
                except psutil.NoSuchProcess:
                    pass
            psutil.wait_procs(left, timeout=15)
            self.note(f"try {try_number} still running after the {SIGTERM_GRACE:.0f}s grace: SIGKILL "  # type: ignore[attr-defined]
                      f"{len(left)} processes of {name}")
        else:
            self.note(f"the try ended within the grace; {name} finished its warm shutdown")  # type: ignore[attr-defined]
            psutil.wait_procs(tree, timeout=30)

    def finish(self, timeout: float = 240.0, interval: float = 0.1) -> None:
        super().finish(timeout, interval)  # type: ignore[misc]
        try:
            if self.downed:
                self._judge_workers()
        finally:
            if self.downed:
                self.stack.start_worker(self.downed)
                self.wait(f"{self.downed} restarted and ready", lambda: self.stack.worker_ready(self.downed),  # type: ignore[attr-defined]
                          180, 0.5)

    def _judge_workers(self) -> None:
        tries = sorted(self.stack.tries(self.cell.dag_id, self.run_id, self.task_id),  # type: ignore[attr-defined]
                       key=lambda t: t["try_number"])
        hosts = [(t["try_number"], t.get("hostname") or "?") for t in tries if t.get("hostname")]
        self.note("tries on " + ", ".join(f"try {n}: {h}" for n, h in hosts))  # type: ignore[attr-defined]
        later = [h for n, h in hosts[1:]]
        if hosts and hosts[0][1] != self.downed:
            self.deviations.append(f"try {hosts[0][0]} ran on {hosts[0][1]}, not on the killed {self.downed}")  # type: ignore[attr-defined]
        if later and all(h != self.downed and h in WORKERS for h in later):
            self.proof(f"the retry ran on the other worker ({later[-1]}), {self.downed} being down")  # type: ignore[attr-defined]
        elif later:
            self.deviations.append(f"a retry ran on {later}, the killed worker was {self.downed}")  # type: ignore[attr-defined]


class ScaleDatabricksRun(ScaleRun, CellRun):
    pass


class ScaleAwsRun(ScaleRun, AwsCellRun):
    pass


class ScaleBigQueryRun(ScaleRun, BigQueryCellRun):
    pass


def warm_shutdown_polling(run: Any) -> None:
    """The sync task is polling a running job (its id in the store) when its worker is told to shut down."""
    run.freeze()
    run.trigger()
    run.wait("the job id in the state store", run.stored_id)
    run.proof(run.describe_store())
    run.wait_polling()
    run.evict_worker()
    run.thaw()


def aws_warm_shutdown_polling(run: Any) -> None:
    """AWS: the sync task polls the job AWS created when its worker is told to shut down. No wait on the store:
    the official operator keeps no id there (the crash suite's AWS driver pins the job through a moto lookup
    that Batch lacks; moto held here keeps it active instead)."""
    run.freeze()
    run.trigger()
    created = run.wait("AWS to create the job", lambda: run.emu.created())
    run.proof(f"vendor: job {created[0]} created; " + run.describe_store())
    _wait_sync_polling(run)
    run.evict_worker()
    run.thaw()


def warm_shutdown_deferring(run: Any) -> None:
    """Deferrable: the worker is told to shut down while the task is in its status call before defer()."""
    run.freeze()
    run.arm(GET, "before")
    run.trigger()
    run.wait_held(GET, "before")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)
    run.thaw()


_W2 = kill_in_window(SUBMIT, "after", store_check=_run_but_no_id)
_W3 = kill_in_window(GET, "before", store_check=_id_stored)
_WORKER = "a Celery worker SIGKILLed (main, pool, supervisor, runner)"

SCALE_SCENARIOS: list[Scenario] = [
    Scenario("SCALE-W2", f"{_WORKER} after the vendor accepted, before the id reached the store; retry on the "
             "other worker", {"sync": _W2, "deferrable": _W2}),
    Scenario("SCALE-W3", f"{_WORKER} after the checkpoint (sync: first poll; deferrable: before defer()); retry on "
             "the other worker", {"sync": _W3, "deferrable": _W3}),
    Scenario("SCALE-SIGTERM", "Celery warm shutdown (SIGTERM to the worker, as a pod eviction) while polling, "
             f"{SIGTERM_GRACE:.0f} s grace, then SIGKILL; the retry re-attaches",
             {"sync": warm_shutdown_polling, "deferrable": warm_shutdown_deferring}),
    Scenario("SCALE-BATCH-W2", f"AWS Batch: {_WORKER} after AWS accepted SubmitJob, before the id reached the "
             "store; retry on the other worker", {"sync": aws_w2, "deferrable": aws_w2}, vendor="batch"),
    Scenario("SCALE-BATCH-SIGTERM", "AWS Batch: Celery warm shutdown while polling, then SIGKILL; the retry "
             "re-attaches", {"sync": aws_warm_shutdown_polling}, vendor="batch"),
    Scenario("SCALE-BIGQUERY-W2", f"BigQuery: {_WORKER} after jobs.insert created the job, before its id reached "
             "the store; retry on the other worker", {"sync": bq_w2, "deferrable": bq_w2}, vendor="bigquery"),
    Scenario("SCALE-BIGQUERY-W3", f"BigQuery: {_WORKER} after the checkpoint, at the first jobs.get",
             {"sync": bq_w3}, vendor="bigquery"),
    Scenario("SCALE-BIGQUERY-SIGTERM", "BigQuery: Celery warm shutdown while polling, then SIGKILL; the retry "
             "re-attaches", {"sync": bq_sigterm_sync}, vendor="bigquery"),
]
SCALE = {s.name: s for s in SCALE_SCENARIOS}


def scale_cells() -> list[Cell]:
    return [Cell(s, op, mode) for s in SCALE_SCENARIOS for mode in s.drivers for op in s.operators]


def run_kind(cell: Cell) -> type[CellRun]:
    vendor = cell.scenario.vendor
    if cell.scenario.task.get("fan_out"):
        return FanOutRun
    if vendor == "bigquery":
        return ScaleBigQueryRun
    if vendor == "databricks":
        return ScaleDatabricksRun
    return ScaleAwsRun



def run_scale_cell(stack: ScaleStack, emulator: Any, cell: Cell) -> Outcome:
    """crash_scenarios.run_cell, with the scale stack's CellRun of the cell's vendor."""
    run = run_kind(cell)(stack, emulator, cell)
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
        _restore_worker(stack, run)
    try:
        run.collect()
    except Exception as err:
        run.outcome.error = (run.outcome.error or "") + f"\ncollect failed: {err!r}"
    run.outcome.seconds = round(time.monotonic() - started, 1)
    run.outcome.deviations = violations(run.outcome, cell.scenario) + run.deviations
    if run.outcome.error or (run.ours and run.outcome.deviations):
        run.outcome.log_tail = run.task_log_tail()
    return run.outcome


def _restore_worker(stack: ScaleStack, run: Any) -> None:
    """After a harness error, bring back what the cell took down (a worker, a component that exited)."""
    if not stack.postgres.ready_quietly():
        stack.postgres.restart()
    if stack.redis.proc is None or not stack.redis.proc.alive():
        stack.redis.restart()
    revived = stack.revive()
    if revived:
        run.note(f"after the error: started again {', '.join(revived)}")
    for name in WORKERS:
        if name not in stack.procs:
            stack.start_worker(name)
            wait_for(f"{name} restarted", lambda n=name: stack.worker_ready(n), 180, 0.5)


# ====================================================================== the database, the broker, the triggerers
STORE = "/execution/store/ti/"


def pg_restart_in_write(run: Any) -> None:
    """Postgres SIGKILLed while the job id's state-store write is in flight, then restarted.

    The submit's reply is parked at the vendor (the job exists, the id is not stored); then the write of the id
    (PUT on the Execution API) is parked at the stack's proxy, Postgres is SIGKILLed (postmaster and backends),
    the write is let through to an api-server with no database, and Postgres is started again on the same data
    directory (crash recovery). Components that exited meanwhile are started again, as a process manager would.
    """
    stack: ScaleStack = run.stack
    run.arm(SUBMIT, "after")
    run.trigger()
    run.wait_held(SUBMIT, "after")
    run.proof(run.describe_store())
    key = run.checkpoint_key if run.ours else run.raw_key
    path = f"{STORE}{run.ti()['id']}/{key}"
    stack.proxy.hold("PUT", path)
    run.emu.release()
    run.wait("the job id's state-store write held at the Execution API proxy", lambda: stack.proxy.held(path))
    run.proof(f"the write of the job id (PUT .../{key}) in flight, held at the Execution API proxy")
    pid = stack.postgres.kill()
    run.proof(f"Postgres SIGKILLed (postmaster pid {pid} and its backends) with the write in flight")
    released = time.time()
    stack.proxy.release(path)

    def id_writes() -> list[dict[str, Any]]:
        return [r for r in stack.proxy.of(path) if r["method"] == "PUT" and float(r["ended"]) >= released]

    first = wait_for("the write to be answered", id_writes, 120, 0.1)[0]
    run.proof(f"the write answered HTTP {first['status']} after {float(first['seconds']):.1f}s, Postgres down")
    stack.postgres.restart()
    revived: list[str] = []

    def ended() -> dict[str, Any] | None:  # as a process manager would: what exits is started again
        revived.extend(stack.revive())
        ti = run.ti()
        return ti if ti["state"] in ("success", "failed") and not run.procs_of_ti(ti["id"]) else None

    ti = wait_for(f"{run.cell.id}: a final task state, Postgres back", ended, 300, 0.5)
    revived.extend(stack.settle())
    run.outcome.final_state, run.outcome.try_number = ti["state"], ti["try_number"]
    statuses = [str(r["status"]) for r in id_writes()]
    run.note(f"Postgres restarted (crash recovery) on the same port; writes of the id after the kill answered "
             f"{', '.join(statuses)}; components that exited and were started again: {', '.join(revived) or 'none'}")


def redis_restart_queued(run: Any) -> None:
    """Redis SIGKILLed and restarted while the task's message waits in the broker (both workers stopped).

    The workers are shut down, not SIGSTOPped: a stopped worker's pending BRPOP still takes the message off the
    list (Redis answers it; the reply waits in the socket), so the message would not be in the broker at all.
    """
    stack: ScaleStack = run.stack
    stopped = stack.stop_workers()
    run.note(f"Celery workers shut down before the trigger: {', '.join(stopped)}")
    try:
        run.trigger()
        depth = run.wait("the task queued and its message in Redis",
                         lambda: run.ti()["state"] == "queued" and stack.broker_depth(), 120, 0.2)
        run.proof(f"task queued; {depth} message(s) waiting in the broker, no Celery worker running")
        pid = stack.redis.kill()
        stack.redis.restart()
        after = stack.broker_depth()
        run.proof(f"Redis SIGKILLed (pid {pid}) and restarted: {after} message(s) in the broker after the restart")
        if after < depth:
            run.deviations.append(f"the broker lost {depth - after} message(s) in the restart")
    finally:
        for name in WORKERS:
            if name not in stack.procs:
                stack.start_worker(name)
        run.wait("both Celery workers started again and ready", stack.workers_ready, 180, 0.5)
    run.note("both Celery workers started again")


class FanOutRun(ScaleDatabricksRun):
    """A DAG of ``fan_out`` deferred tasks on one emulator; the outcome sums them."""

    def tis(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            page = self.stack.get(f"/dags/{self.cell.dag_id}/dagRuns/{self.run_id}/taskInstances", limit=100,
                                  offset=len(out))
            out += page["task_instances"]
            if not page["task_instances"] or len(out) >= page["total_entries"]:
                return out

    def ti(self) -> dict[str, Any]:  # the cell's "task": the worst of its tasks
        tis = self.tis()
        states = {t["state"] for t in tis}
        worst = next((t for t in tis if t["state"] not in ("success",)), tis[0] if tis else None)
        if worst is None:
            raise StackError("no task instances yet")
        return {**worst, "state": "success" if states == {"success"} and len(tis) == self.n else worst["state"],
                "try_number": max(t["try_number"] for t in tis)}

    @property
    def n(self) -> int:
        return int(self.cell.scenario.task["fan_out"])

    def finish(self, timeout: float = 900.0, interval: float = 2.0) -> None:
        def done():
            tis = self.tis()
            return tis if len(tis) == self.n and all(t["state"] in ("success", "failed") for t in tis) else None

        tis = self.wait(f"all {self.n} tasks to end", done, timeout, interval)
        states = {t["state"] for t in tis}
        self.outcome.final_state = "success" if states == {"success"} else ",".join(sorted(states))
        self.outcome.try_number = max(t["try_number"] for t in tis)

    def task_log_tail(self, lines: int = 25) -> list[str]:
        return []


def triggerer_kill_fan_out(run: FanOutRun) -> None:
    """``fan_out`` deferred jobs spread over both triggerers; the busier one SIGKILLed, its triggers move to the
    other (up to its capacity), then it is started again and takes the rest; then every job ends."""
    stack: ScaleStack = run.stack
    spread = _deferred_over_both_triggerers(run)
    victim_job = max(spread, key=lambda j: spread[j])
    jobs = {j["id"]: j for j in stack.triggerer_jobs()}
    victim = stack.triggerer_named(jobs, victim_job)
    tree = process_tree_of(stack.procs[victim].pid)
    for proc in tree:
        proc.kill()
    psutil.wait_procs(tree, timeout=15)
    stack.retire(victim)
    run.proof(f"SIGKILL {victim} (job {victim_job}, {spread[victim_job]} triggers, {len(tree)} processes)")
    survivor = next(j for j in spread if j != victim_job)
    moved = run.wait("the killed triggerer's triggers moving to the other",
                     lambda: (lambda s: s if s.get(survivor, 0) > spread[survivor] else None)(_spread(run.tis())),
                     120, 1.0)
    run.proof(f"{moved[survivor] - spread[survivor]} triggers moved to triggerer job {survivor} "
              f"(it now runs {moved[survivor]})")
    stack.start_triggerer(victim)
    run.wait(f"{victim} restarted and every trigger on a live triggerer",
             lambda: (lambda s: victim_job not in s and sum(s.values()) == run.n)(_spread(run.tis())), 180, 1.0)
    final = _spread(run.tis())
    run.note("after the restart: " + ", ".join(f"{n} on job {j}" for j, n in final.items()))
    _every_job_ends_with_one_event(run, stack)


def _deferred_over_both_triggerers(run: FanOutRun) -> dict[int, int]:
    """Freeze the runs, trigger the DAG, wait for every task deferred: triggerer job -> its triggers."""
    run.freeze()
    run.trigger()

    def all_deferred():
        tis = run.tis()
        ok = len(tis) == run.n and all(t["state"] == "deferred" and (t.get("trigger") or {}).get("triggerer_id")
                                       for t in tis)
        return tis if ok else None

    spread = _spread(run.wait(f"all {run.n} tasks deferred, their triggers assigned", all_deferred, 900, 2.0))
    if len(spread) < 2:
        raise StackError(f"the triggers are not spread over both triggerers: {spread}")
    run.proof(f"{run.n} tasks deferred: " + ", ".join(f"{n} on triggerer job {j}" for j, n in spread.items()))
    return spread


def _every_job_ends_with_one_event(run: FanOutRun, stack: ScaleStack) -> None:
    """Let every run end; each task's trigger fired exactly one event (a deviation otherwise)."""
    run.thaw()
    run.finish()
    fired = stack.trigger_events(run.cell.dag_id)
    dupes = {task: n for task, n in fired.items() if n > 1}
    missing = run.n - len(fired)
    run.proof(f"triggerers logged 'Trigger fired event' for {len(fired)} of {run.n} tasks, "
              f"{sum(fired.values())} events in all")
    if dupes:
        run.deviations.append(f"duplicate trigger events: {dupes}")
    if missing:
        run.deviations.append(f"{missing} tasks never had a trigger event")


def triggerer_stop_fan_out_hub(run: FanOutRun) -> None:
    """``fan_out`` deferred jobs over both triggerers, each running the shared poller (``[durable_jobs]
    shared_poller``); the busier one SIGSTOPped until its triggers move to the other (up to its capacity),
    then SIGCONT: it finds the moved triggers gone and takes the rest back; then every job ends. Proven through
    the hub by every task's trigger log line "through the shared poller of its connection"."""
    stack: ScaleStack = run.stack
    restarted = time.time()
    stack.share_poller()

    def both_up() -> set[str] | None:  # a triggerer job of each name started since (a SIGKILLed one stays "running")
        names = {j.get("hostname") for j in stack.triggerer_jobs() if _epoch(j.get("start_date")) > restarted}
        return names if len(names & set(TRIGGERERS)) == len(TRIGGERERS) else None

    run.wait("both triggerers restarted with the shared poller on", both_up, 120, 1.0)
    run.note("both triggerers restarted with [durable_jobs] shared_poller on")
    try:
        _stop_the_busier_triggerer(run, stack)
    finally:
        stack.triggerer_env = {}
        for name in [n for n in stack.procs if n.startswith("triggerer")]:
            stack.procs[name].stop(grace=8)
            stack.start_triggerer(name)
        run.note("both triggerers restarted with the shared poller off again (for the cells after this one)")


def _stop_the_busier_triggerer(run: FanOutRun, stack: ScaleStack) -> None:
    spread = _deferred_over_both_triggerers(run)
    hubbed = run.wait(f"every task's trigger log to say '{HUB_LINE}'",
                      lambda: (lambda h: h if len(h) == run.n else None)(_tasks_saying(stack, run, HUB_LINE)),
                      120, 2.0)
    run.proof(f"{len(hubbed)} of {run.n} trigger logs say they watch their run '{HUB_LINE}'")
    victim_job = max(spread, key=lambda j: spread[j])
    victim = stack.triggerer_named({j["id"]: j for j in stack.triggerer_jobs()}, victim_job)
    on_victim = {t["task_id"] for t in run.tis() if (t.get("trigger") or {}).get("triggerer_id") == victim_job}
    tree = process_tree_of(stack.procs[victim].pid)
    for proc in tree:
        proc.suspend()
    run.proof(f"SIGSTOP {victim} (job {victim_job}, {spread[victim_job]} triggers, {len(tree)} processes)")
    survivor = next(j for j in spread if j != victim_job)
    try:
        moved = run.wait("the stopped triggerer's triggers moving to the other",
                         lambda: (lambda s: s if s.get(survivor, 0) > spread[survivor] else None)(_spread(run.tis())),
                         120, 1.0)
        run.proof(f"{moved[survivor] - spread[survivor]} triggers moved to triggerer job {survivor} "
                  f"(it now runs {moved[survivor]})")
    finally:
        for proc in tree:
            try:
                proc.resume()
            except psutil.NoSuchProcess:
                pass
    resumed_at = time.time()
    run.proof(f"SIGCONT {victim}")
    run.wait("every trigger assigned to a triggerer again",
             lambda: (lambda s: sum(s.values()) == run.n)(_spread(run.tis())), 180, 1.0)
    tis = run.tis()
    final = _spread(tis)
    run.note("after the SIGCONT: " + ", ".join(f"{n} on job {j}" for j, n in final.items()))
    # The resumed triggerer still runs its moved triggers until its next sync with the database. As TRIGGER-MOVE
    # waits for its moved copy, the runs end only once the resumed triggerer runs no more than its own share: it
    # says how many it runs once a minute ("N triggers currently running"; no per-trigger line for the copies it
    # drops), so each job's end has one trigger left to report it.
    moved = on_victim & {t["task_id"] for t in tis if (t.get("trigger") or {}).get("triggerer_id") != victim_job}
    own = final.get(victim_job, 0)
    running = run.wait(f"{victim} to drop its copies of the {len(moved)} moved triggers (to run {own})",
                       lambda: _running_since(stack, victim, resumed_at, own), 150, 2.0)
    run.proof(f"{victim} after the SIGCONT: '{running} triggers currently running' ({len(moved)} moved away)")
    _every_job_ends_with_one_event(run, stack)


def _running_since(stack: ScaleStack, name: str, since: float, at_most: int) -> int | None:
    """The trigger count triggerer ``name`` last logged after ``since``, once it is ``at_most`` or fewer."""
    for line in reversed(stack.procs[name].log_path.read_text(errors="replace").splitlines()):
        if "triggers currently running" not in line:
            continue
        if _epoch(line.split(" ", 1)[0]) <= since:
            return None
        count = int(line.split("[info", 1)[1].split("]", 1)[1].split()[0])
        return count if count <= at_most else None
    return None


def _epoch(iso: str | None) -> float:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() if iso else 0.0


def _tasks_saying(stack: ScaleStack, run: FanOutRun, text: str) -> set[str]:
    """The tasks of the cell's DAG whose trigger log (any triggerer, any attempt) holds ``text``."""
    base = stack.home / "logs" / f"dag_id={run.cell.dag_id}"
    return {path.parent.name.removeprefix("task_id=")
            for path in base.glob("run_id=*/task_id=*/attempt=*.log.trigger.*.log")
            if text in path.read_text(errors="replace")}


def _spread(tis: list[dict[str, Any]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for t in tis:
        job = (t.get("trigger") or {}).get("triggerer_id")
        if t["state"] == "deferred" and job:
            out[job] = out.get(job, 0) + 1
    return out


def process_tree_of(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


FAN_OUT = int(__import__("os").environ.get("DJ_SCALE_FAN_OUT", "200"))

# The fan-out cell runs before the Postgres and Redis restarts: after Postgres was SIGKILLed and restarted under
# it, the api-server died of SIGSEGV while garbage-collecting (with or without uvloop) under the fan-out's load in
# three of three whole runs; run before them (one whole run, 2026-12-02) or alone (once), it did not.
SCALE_SCENARIOS += [
    Scenario(f"SCALE-TRIGGERER-{FAN_OUT}", f"{FAN_OUT} deferred jobs over two triggerers; the busier one SIGKILLed, "
             "then restarted: every job reported once, no duplicate event, no cancel",
             {"deferrable": triggerer_kill_fan_out}, expect_runs=FAN_OUT, expect_min_try=1, expect_max_try=1,
             task={"fan_out": FAN_OUT, "poll_seconds": 5}),
    Scenario(f"SCALE-TRIGGER-STOP-{FAN_OUT}-HUB", f"{FAN_OUT} deferred jobs over two triggerers running the "
             "shared poller; the busier one SIGSTOPped until its triggers move, then SIGCONT: every job reported "
             "once, no duplicate event, no cancel",
             {"deferrable": triggerer_stop_fan_out_hub}, expect_runs=FAN_OUT, expect_min_try=1, expect_max_try=1,
             task={"fan_out": FAN_OUT, "poll_seconds": 5}, operators=("ours",)),
    Scenario("SCALE-PG-RESTART", "Postgres SIGKILLed while the job id's state-store write is in flight, then "
             "restarted: the try fails or retries, never submits twice",
             {"sync": pg_restart_in_write}, expect_min_try=1),
    Scenario("SCALE-REDIS-RESTART", "Redis (the Celery broker) SIGKILLed and restarted while the task is queued",
             {"sync": redis_restart_queued}, expect_min_try=1, expect_max_try=1),
]
SCALE.update({s.name: s for s in SCALE_SCENARIOS})

"""Run one fault cell: a vendor target, a case, a path; return what happened, as the vendor saw it.

Our real code runs against the target's emulator: the operator's synchronous wait
(``DurableJobMixin.wait_for_job``), the trigger (``JobTrigger.run``) handed back to the operator's
``execute_complete``, or the submit under the fault policy (``durable_jobs.core.resend.submit_once``).
A wrong setup case runs the operator's whole ``execute`` twice over one checkpoint: a try with the cell's
connection broken, then a try with it fixed, which stops at its deferral (the job was submitted).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import traceback
from dataclasses import asdict, dataclass, field
from types import SimpleNamespace
from typing import Any

from airflow.providers.common.compat.sdk import TaskDeferred
from cases import SETUP, SUBMIT, VENDOR_CASES, Case
from tenacity import Retrying, stop_after_attempt, wait_fixed

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.resend import submit_once
from durable_jobs.core.status import JobPhase
from durable_jobs.core.trigger import JobTrigger

#: The budgets the whole fault session runs with (set in the environment by the conftest). Each is many times
#: what a recovering cell needs on an idle machine, so that a loaded one (three test lanes on 2 CPUs, calls
#: through the fault proxy taking seconds) still recovers inside it: a transient fault lasts ``WINDOW`` seconds
#: or a few calls (three 429s cost about 7 s of backoff), and an unknown state lasts two status reads
#: (targets.UNKNOWN_READS), one poll interval apart. The cells that must outlast a budget show their fault
#: without end, so they cannot pass early on a fast machine or late on a slow one.
ERROR_BUDGET = 25.0
UNKNOWN_STATE_BUDGET = 15.0
#: How long a transient fault lasts when it is a time window (well inside the budgets).
WINDOW = 2.0


@dataclass
class Outcome:
    cell: str
    vendor: str
    case: str
    phase: str
    path: str
    outcome: str = ""  # "succeeded", or the error class the task fails with
    first_line: str = ""
    jobs: int | None = None
    seconds: float = 0.0
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    #: set only where this service meets the case differently (cases.VENDOR_CASES): what was checked
    expect: str | None = None
    expect_jobs: int | None = None
    #: the machine's load average (1, 5, 15 min) and CPUs when the cell ended: a failure under load says so
    load: list[float] = field(default_factory=list)
    #: a wrong setup case: seconds the broken try took to fail, the vendor's jobs after it, the fixed try's end
    failed_after: float | None = None
    jobs_before_fix: int | None = None
    fixed_try: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def run_cell(target: Any, case: Case, path: str, cell: str) -> Outcome:
    out = Outcome(cell, target.service, case.key, case.phase, path)
    if (target.service, case.key) in VENDOR_CASES:
        out.expect, out.expect_jobs = case.expect, case.jobs
    started = time.monotonic()
    try:
        target.reset()
        if case.phase == SUBMIT:
            _submit(target, case, out)
        elif case.phase == SETUP:
            _setup(target, case, out)
        else:
            _poll(target, case, path, out)
        out.jobs = target.jobs_created()
    except Exception:  # the harness itself failed: the test reports it
        out.error = traceback.format_exc(limit=6)
    out.seconds = round(time.monotonic() - started, 2)
    out.load = [*(round(x, 2) for x in os.getloadavg()), float(os.cpu_count() or 1)]
    return out


def _record_error(out: Outcome, err: BaseException) -> None:
    out.outcome = type(err).__name__
    out.first_line = str(err).splitlines()[0] if str(err) else ""


def _submit(target: Any, case: Case, out: Outcome) -> None:
    op = target.operator()
    client = op.job_client
    key = client.format_key(new_nonce())
    target.arm(case.key, seconds=WINDOW)
    try:
        job_id = submit_once(client, target.request(op), key, op.poll_policy(), log=op.log)
    except Exception as err:
        _record_error(out, err)
        return
    status = _harness_status(client, job_id)
    out.outcome = "succeeded" if status.phase is not JobPhase.MISSING else "missing"
    out.notes.append(f"submit returned {job_id} ({status.state})")


class _Store:
    """``task_state_store``'s interface (``get``, ``set``) over a dict: the checkpoint both tries share."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        return self.values.get(key)

    def set(self, key: str, value: Any, retention: Any = None) -> None:
        self.values[key] = value


def _context(store: _Store, try_number: int) -> dict[str, Any]:
    ti = SimpleNamespace(try_number=try_number, max_tries=2, dag_id="faults", task_id="faults", run_id="faults",
                         map_index=-1, xcom_push=lambda *args, **kwargs: None)
    return {"ti": ti, "task_instance": ti, "task_state_store": store}


def _closed_port() -> int:
    """A 127.0.0.1 port bound and closed: a connect to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _setup(target: Any, case: Case, out: Outcome) -> None:
    fixed = target.conn_env()
    (name,) = [k for k in fixed if k.startswith("AIRFLOW_CONN_")]
    if case.key == "setup-no-connection":
        os.environ.pop(name, None)
    else:
        host, port = ("nothere.invalid", 443) if case.key == "setup-unresolvable" else ("127.0.0.1", _closed_port())
        os.environ.update(target.broken_conn_env(host, port))
    store = _Store()
    op = target.operator(deferrable=True, retries=2)
    started = time.monotonic()
    try:
        op.execute(_context(store, 1))
    except Exception as err:
        out.failed_after = round(time.monotonic() - started, 2)
        _record_error(out, err)
    else:
        out.outcome = "submitted"
    out.jobs_before_fix = target.jobs_created()
    os.environ.update(fixed)
    try:
        target.operator(deferrable=True, retries=2).execute(_context(store, 2))
    except TaskDeferred:
        out.fixed_try = "submitted"
    except Exception as err:
        out.fixed_try = f"{type(err).__name__}: {str(err)[:300]}"
    else:  # a job that ended before the deferral (a one-statement Snowflake query)
        out.fixed_try = "submitted"


def _harness_status(client: Any, job_id: Any) -> Any:
    """The harness's own look at the job after the cell (not the unit under test): the suite's clients carry
    a 1 s call deadline, which a loaded 2-CPU machine can outlast on an ordinary call (seen: a gRPC
    DeadlineExceeded here in a fresh-clone run), so the look is tried again rather than failing the cell."""
    return Retrying(stop=stop_after_attempt(5), wait=wait_fixed(1.0), reraise=True)(client.status, job_id)


class _Resending:
    """The cell's client, whose ``submit`` goes through the protocol's resend loop (``core.resend``) as the
    operator's does: the job a poll cell watches is started before any fault is armed, yet on a loaded machine
    its submit can outlast the suite's 1 s call deadline; the loop finds the job by key instead of failing the
    cell (or starting a second job)."""

    def __init__(self, op: Any):
        self._client, self._op = op.job_client, op

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def submit(self, request: Any, key: str) -> Any:
        return submit_once(self._client, request, key, self._op.poll_policy(), log=self._op.log)


def _poll(target: Any, case: Case, path: str, out: Outcome) -> None:
    op = target.operator(deferrable=path == "deferrable")
    job_id = target.start(_Resending(op))
    target.arm(case.key, seconds=WINDOW)
    if case.key == "deleted":
        target.delete(job_id)
    try:
        if path == "sync":
            status = op.wait_for_job({}, job_id)
            result = op._finish({}, None, None, job_id, status)
        else:
            result = op.execute_complete({}, _trigger_event(op, job_id))
    except Exception as err:
        _record_error(out, err)
        return
    out.outcome = "succeeded"
    out.notes.append(f"result {result!r}")


def _trigger_event(op: Any, job_id: Any) -> dict[str, Any]:
    client, policy = op.job_client, op.poll_policy()
    trigger = JobTrigger(
        client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
        poll_interval=policy.interval, jitter=policy.jitter, error_budget=policy.error_budget,
        unknown_state_budget=policy.unknown_state_budget,
    )

    async def first_event() -> dict[str, Any]:
        async for event in trigger.run():
            return dict(event.payload)
        raise AssertionError("the trigger ended without an event")

    return asyncio.run(first_event())

"""How a try ends early — a kill, Airflow's own timeout, the last try — leaving no orphaned job.

The protocol (``base.DurableJobMixin``) calls in here; nothing here decides reconnect-or-submit.

* **A kill** (``on_kill``): a user's stop cancels, the infrastructure's (eviction, deploy, heartbeat
  loss) leaves the job for the retry (``durable_jobs.cancel``) — except on the **last try**, where no
  retry would ever come back for it.
* **Airflow's timeout**: ``execution_timeout`` is the user's own bound on the task: the job it bounded is
  cancelled and recorded failed, so a retry starts a new one. Airflow calls ``on_kill`` inside its
  timeout handler (sync), or resumes a deferred task with ``__fail__`` when its trigger timed out.
* **After the try ended**: Airflow's supervisor SIGTERMs a task process still alive
  ``[core] task_success_overtime`` (20 s) after it reported success, a retry or a failure (its callbacks or
  listeners ran long, or the machine is loaded), and the Task SDK's handler calls ``on_kill``. That is not a
  kill of the try: the job has ended, or is left on purpose (``wait_for_completion=False``, a deferral, a
  retry to reconnect). Nothing is cancelled — but a try that raised on its last try may have left an active
  job (an error after the submit), and then only the usual last-try cancel runs.
* **The trigger gave up** under the fault policy: the error the synchronous path would have raised.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from durable_jobs.cancel import cancel_from_worker, no_retry_left
from durable_jobs.exceptions import (
    DurableJobError,
    PollBudgetExceededError,
    UnknownJobStateError,
    VendorAuthError,
    VendorCallError,
)
from durable_jobs.faults import cap
from durable_jobs.operators.checkpoint import STATUS_FAILED, CheckpointRecord
from durable_jobs.shims import TRIGGER_FAIL_METHOD, TRIGGER_TIMEOUT_ERRORS, AirflowTaskTimeout, TaskDeferred

if TYPE_CHECKING:
    from airflow.sdk import Context

    from durable_jobs.hooks.base import JobClient
    from durable_jobs.operators.base import DurableJobMixin

TIMEOUT_REASON = "execution_timeout, the task's own bound, was reached"
#: How a try's work ended (``DurableJobMixin._durable_try_over``).
TRY_RETURNED, TRY_DEFERRED, TRY_RAISED = "returned", "deferred", "raised"


#: How long a try that ends waits for its ``on_kill`` cancel still on its thread (Airflow SIGKILLs sooner).
KILL_JOIN_SECONDS = 60.0


@contextmanager
def the_try(op: DurableJobMixin) -> Iterator[None]:
    """Around ``execute`` and its resumption: remember how the try's work ended, for a late ``on_kill``; and
    do not let the try end (the Task SDK then leaves the process with ``os._exit``) under a cancel that
    ``on_kill`` left running on its thread."""
    try:
        yield
    except TaskDeferred:
        op._durable_try_over = TRY_DEFERRED
        raise
    except BaseException:
        op._durable_try_over = TRY_RAISED
        raise
    finally:
        await_kill(op)
    op._durable_try_over = TRY_RETURNED


def await_kill(op: DurableJobMixin) -> None:
    """Wait for the cancel ``on_kill`` started, if it still runs."""
    kill = op._durable_kill
    if kill is None or not kill.is_alive():
        return
    op.log.info("Waiting for on_kill's cancel to finish before this try ends")
    kill.join(KILL_JOIN_SECONDS)
    if kill.is_alive():
        op.log.error("on_kill's cancel did not finish within %.0f s: check %s %s %s in %s's console, or run "
                     "`durable-jobs reconcile`.", KILL_JOIN_SECONDS, op.job_client.vendor, op.job_client.unit,
                     op._job_id, op.job_client.vendor)


def on_kill(op: DurableJobMixin) -> None:
    job_id = op._job_id
    if job_id is None:
        op.log.info("on_kill: no external job was submitted by this try; nothing to cancel")
        return
    if op._durable_cancelled:
        return
    if isinstance(sys.exc_info()[1], AirflowTaskTimeout):  # Airflow calls on_kill inside its timeout handler
        cancel_orphan(op, job_id, op._durable_store, op._durable_record, TIMEOUT_REASON)
        return
    if op._durable_try_over is not None:
        ended_last_try = op._durable_try_over == TRY_RAISED and no_retry_left(op._durable_ti)
        if not ended_last_try:
            client = op.job_client
            op.log.info("on_kill after this try %s (Airflow stops a task process that outlives its terminal "
                        "state by [core] task_success_overtime): %s %s %s is not this kill's to cancel",
                        op._durable_try_over, client.vendor, client.unit, job_id)
            return
    op._durable_kill = cancel_from_worker(
        policy=op.cancel_on_kill, ti=op._durable_ti, job_id=job_id, client=op.job_client, logger=op.log,
        last_try=no_retry_left(op._durable_ti),
    )


def before_resume(op: DurableJobMixin, next_method: str, next_kwargs: dict[str, Any] | None, context: Context) -> None:
    """Airflow resumes a deferred task only to fail it when its trigger timed out (``execution_timeout``
    included) or crashed: the job is cancelled first if that bound was the user's, or no retry is left."""
    if next_method != TRIGGER_FAIL_METHOD:
        return
    timed_out = str((next_kwargs or {}).get("error", "")) in TRIGGER_TIMEOUT_ERRORS
    op._durable_ti = context.get("ti")
    if not (timed_out or no_retry_left(op._durable_ti)):
        return
    store = op._store(context)
    record = op._read(store) if store is not None else None
    if record is not None and record.id is not None and record.status is None:
        why = ("the deferral outlived execution_timeout (or its trigger timeout)" if timed_out
               else "the trigger failed on the last try")
        cancel_orphan(op, record.id, store, record, why)


def cancel_orphan(op: DurableJobMixin, job_id: Any, store: Any, record: CheckpointRecord | None, why: str) -> None:
    """This try fails while the job may still run, and nothing will come back for it: cancel it, and
    record it failed so that a later try (a retry after a timeout, a clear) starts a new job."""
    client = op.job_client
    if op.cancel_on_kill == "never":
        op.log.warning("%s; cancel_on_kill='never': %s %s %s is left running", why, client.vendor, client.unit,
                       job_id)
        return
    op.log.warning("%s: cancelling %s %s %s so that it is not left running; a later try starts a new %s.",
                   why, client.vendor, client.unit, job_id, client.unit)
    try:
        client.cancel(job_id)
    except Exception as err:
        op.log.error("Could not cancel %s %s %s (%s): cancel it in %s's console, or with `durable-jobs "
                     "reconcile --cancel`.", client.vendor, client.unit, job_id, cap(err, 300), client.vendor)
        return
    op._durable_cancelled = True
    if record is not None:
        op._record(store, record, STATUS_FAILED)


_VENDOR_ERRORS: dict[str, type[VendorCallError]] = {
    cls.__name__: cls for cls in (VendorCallError, VendorAuthError, PollBudgetExceededError)
}


def error_from_event(event: dict[str, Any], client: JobClient, job_id: Any) -> DurableJobError:
    """The trigger gave up under the fault policy: raise what the synchronous path would have raised."""
    message = str(event.get("message") or "the trigger stopped watching without a reason")
    name = event.get("error")
    if name == UnknownJobStateError.__name__:
        return UnknownJobStateError(message)
    if name is None:  # a trigger from 0.1.0: its message is the raw error
        message = (f"Could not watch {client.vendor} {client.unit} {job_id}: {cap(message, 500)}. The "
                   f"{client.unit} may still be running; the next try reconnects to it.")
    cls = _VENDOR_ERRORS.get(str(name), VendorCallError)
    return cls(message, vendor=client.vendor, endpoint=client.status_endpoint, job_id=job_id)

"""How a try ends early — a kill, Airflow's own timeout, the last try — leaving no orphaned job.

``TryEnding`` is a base class of ``DurableJobMixin`` (``core.mixin``): these are the mixin's own methods, kept
apart because nothing here decides reconnect-or-submit.

* **A kill** (``on_kill``): a user's stop cancels, the infrastructure's (eviction, deploy, heartbeat
  loss) leaves the job for the retry (``durable_jobs.core.cancel``) — except on the **last try**, where no
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

from durable_jobs.core.cancel import cancel_from_worker, no_retry_left
from durable_jobs.core.checkpoint import STATUS_FAILED, CheckpointRecord
from durable_jobs.core.exceptions import (
    DurableJobError,
    PollBudgetExceededError,
    UnknownJobStateError,
    VendorAuthError,
    VendorCallError,
)
from durable_jobs.core.faults import cap
from durable_jobs.shims import TRIGGER_FAIL_METHOD, TRIGGER_TIMEOUT_ERRORS, AirflowTaskTimeout, TaskDeferred

if TYPE_CHECKING:
    import threading

    from airflow.sdk import Context
    from airflow.sdk.types import RuntimeTaskInstanceProtocol

    from durable_jobs.core.client import JobClient

TIMEOUT_REASON = "execution_timeout, the task's own bound, was reached"
#: How a try's work ended (``TryEnding._durable_try_over``).
TRY_RETURNED, TRY_DEFERRED, TRY_RAISED = "returned", "deferred", "raised"


#: How long a try that ends waits for its ``on_kill`` cancel still on its thread (Airflow SIGKILLs sooner).
KILL_JOIN_SECONDS = 60.0


class TryEnding:
    """How a try of a durable operator ends early; the state it reads is set by ``DurableJobMixin``."""

    if TYPE_CHECKING:  # set by DurableJobMixin.__init__ and its protocol; provided by the operator it is mixed into
        log: Any
        cancel_on_kill: str
        _job_id: Any
        _durable_ti: RuntimeTaskInstanceProtocol | None
        _durable_store: Any
        _durable_record: CheckpointRecord | None
        _durable_cancelled: bool
        _durable_kill: threading.Thread | None
        _durable_try_over: str | None

        @property
        def job_client(self) -> JobClient: ...
        def _store(self, context: Context) -> Any: ...
        def _read(self, store: Any) -> CheckpointRecord | None: ...
        def _record(self, store: Any, record: CheckpointRecord, status: str) -> None: ...

    @contextmanager
    def _the_try(self) -> Iterator[None]:
        """Around ``execute`` and its resumption: remember how the try's work ended, for a late ``on_kill``; and
        do not let the try end (the Task SDK then leaves the process with ``os._exit``) under a cancel that
        ``on_kill`` left running on its thread."""
        try:
            yield
        except TaskDeferred:
            self._durable_try_over = TRY_DEFERRED
            raise
        except BaseException:
            self._durable_try_over = TRY_RAISED
            raise
        finally:
            self._await_kill()
        self._durable_try_over = TRY_RETURNED

    def _await_kill(self) -> None:
        """Wait for the cancel ``on_kill`` started, if it still runs."""
        kill = self._durable_kill
        if kill is None or not kill.is_alive():
            return
        self.log.info("Waiting for on_kill's cancel to finish before this try ends")
        kill.join(KILL_JOIN_SECONDS)
        if kill.is_alive():
            client = self.job_client
            self.log.error("on_kill's cancel did not finish within %.0f s: check %s %s %s in %s's console, or run "
                           "`durable-jobs reconcile`.", KILL_JOIN_SECONDS, client.vendor, client.unit, self._job_id,
                           client.vendor)

    def on_kill(self) -> None:
        job_id = self._job_id
        if job_id is None:
            self.log.info("on_kill: no external job was submitted by this try; nothing to cancel")
            return
        if self._durable_cancelled:
            return
        if isinstance(sys.exc_info()[1], AirflowTaskTimeout):  # Airflow calls on_kill inside its timeout handler
            self._cancel_orphan(job_id, self._durable_store, self._durable_record, TIMEOUT_REASON)
            return
        if self._durable_try_over is not None:
            ended_last_try = self._durable_try_over == TRY_RAISED and no_retry_left(self._durable_ti)
            if not ended_last_try:
                client = self.job_client
                self.log.info("on_kill after this try %s (Airflow stops a task process that outlives its terminal "
                              "state by [core] task_success_overtime): %s %s %s is not this kill's to cancel",
                              self._durable_try_over, client.vendor, client.unit, job_id)
                return
        self._durable_kill = cancel_from_worker(
            policy=self.cancel_on_kill, ti=self._durable_ti, job_id=job_id, client=self.job_client, logger=self.log,
            last_try=no_retry_left(self._durable_ti),
        )

    def _before_resume(self, next_method: str, next_kwargs: dict[str, Any] | None, context: Context) -> None:
        """Airflow resumes a deferred task only to fail it when its trigger timed out (``execution_timeout``
        included) or crashed: the job is cancelled first if that bound was the user's, or no retry is left."""
        if next_method != TRIGGER_FAIL_METHOD:
            return
        timed_out = str((next_kwargs or {}).get("error", "")) in TRIGGER_TIMEOUT_ERRORS
        self._durable_ti = context.get("ti")
        if not (timed_out or no_retry_left(self._durable_ti)):
            return
        store = self._store(context)
        record = self._read(store) if store is not None else None
        if record is not None and record.id is not None and record.status is None:
            why = ("the deferral outlived execution_timeout (or its trigger timeout)" if timed_out
                   else "the trigger failed on the last try")
            self._cancel_orphan(record.id, store, record, why)

    def _cancel_orphan(self, job_id: Any, store: Any, record: CheckpointRecord | None, why: str) -> None:
        """This try fails while the job may still run, and nothing will come back for it: cancel it, and
        record it failed so that a later try (a retry after a timeout, a clear) starts a new job."""
        client = self.job_client
        if self.cancel_on_kill == "never":
            self.log.warning("%s; cancel_on_kill='never': %s %s %s is left running", why, client.vendor, client.unit,
                             job_id)
            return
        self.log.warning("%s: cancelling %s %s %s so that it is not left running; a later try starts a new %s.",
                         why, client.vendor, client.unit, job_id, client.unit)
        try:
            client.cancel(job_id)
        except Exception as err:
            self.log.error("Could not cancel %s %s %s (%s): cancel it in %s's console, or with `durable-jobs "
                           "reconcile --cancel`.", client.vendor, client.unit, job_id, cap(err, 300), client.vendor)
            return
        self._durable_cancelled = True
        if record is not None:
            self._record(store, record, STATUS_FAILED)


_VENDOR_ERRORS: dict[str, type[VendorCallError]] = {
    cls.__name__: cls for cls in (VendorCallError, VendorAuthError, PollBudgetExceededError)
}


def error_from_event(event: dict[str, Any], client: JobClient, job_id: Any) -> DurableJobError:
    """The trigger gave up under the fault policy: raise what the synchronous path would have raised."""
    message = str(event.get("message") or "the trigger stopped watching without a reason")
    name = event.get("error")
    if name == UnknownJobStateError.__name__:
        return UnknownJobStateError(message)
    cls = _VENDOR_ERRORS.get(str(name), VendorCallError)
    return cls(message, vendor=client.vendor, endpoint=client.status_endpoint, job_id=job_id)

"""Watching a job: one policy for the synchronous wait and the trigger (docs/guide/vendor-faults.md).

A status call that fails (5xx, 429, a reset, a timeout, a reply that is not JSON) says nothing
about the job, which may be running. :class:`JobWatch` keeps polling with exponential backoff and
jitter, honouring Retry-After, for a *time* budget (``[durable_jobs] poll_error_budget``), and only
then fails the try with a message that names the vendor, the endpoint and the job and says the job
may still be running (the retry reconnects). Auth errors fail at once, naming the connection. A
state the vendor's table does not list is not terminal: keep watching, warn once per state, and
past ``unknown_state_budget`` fail the try, leaving the job running.

The watch does no I/O and never sleeps: the caller (``DurableJobMixin.wait_for_job`` with
``time.sleep``, ``JobTrigger.run`` with ``asyncio.sleep``) asks it what a status or an error
means and how long to wait, so both paths behave, and read, the same.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from durable_jobs.core.config import get_float
from durable_jobs.core.exceptions import (
    DurableJobConfigError,
    PollBudgetExceededError,
    UnknownJobStateError,
    VendorAuthError,
    VendorCallError,
)
from durable_jobs.core.faults import Fault, FaultKind
from durable_jobs.core.status import JobPhase, JobStatus

if TYPE_CHECKING:
    from durable_jobs.core.client import JobClient

DEFAULT_ERROR_BUDGET = 600.0
DEFAULT_UNKNOWN_STATE_BUDGET = 600.0
#: The longest pause between two status calls after errors (Retry-After may ask for more).
MAX_BACKOFF = 60.0
FIRST_BACKOFF = 1.0


@dataclass(frozen=True)
class PollPolicy:
    """How often to ask, and for how long to bear failures and unknown states (seconds)."""

    interval: float
    error_budget: float = DEFAULT_ERROR_BUDGET
    unknown_state_budget: float = DEFAULT_UNKNOWN_STATE_BUDGET
    jitter: float = 0.1

    def __post_init__(self) -> None:
        for name, argument in (("interval", "poll_interval"), ("error_budget", "error_budget"),
                               ("unknown_state_budget", "unknown_state_budget")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise DurableJobConfigError(f"{argument} must be a number of seconds >= 0, got {value!r}")
        if isinstance(self.jitter, bool) or not isinstance(self.jitter, (int, float)) or not 0 <= self.jitter < 1:
            raise DurableJobConfigError(f"jitter must be a fraction in [0, 1), got {self.jitter!r}")

    @classmethod
    def from_config(cls, interval: float) -> PollPolicy:
        """The budgets of ``[durable_jobs]`` (``poll_error_budget``, ``unknown_state_budget``)."""
        return cls(
            interval=interval, error_budget=get_float("poll_error_budget"),
            unknown_state_budget=get_float("unknown_state_budget"),
        )


def active_state(outcome: object) -> str | None:
    """The state of an active status; None for an end, a state the table does not list, or a failed call.
    A watch that read an active state changes nothing and logs nothing when it reads the same one again
    (:meth:`JobWatch.seen`, :meth:`JobWatch.changed`): the shared poller does not wake a trigger for it."""
    if isinstance(outcome, JobStatus) and outcome.phase is JobPhase.ACTIVE:
        return outcome.state
    return None


@dataclass
class JobWatch:
    """One job's watch: what each status or failed call means, and how long to wait next."""

    client: JobClient
    job_id: Any
    policy: PollPolicy
    log: Any
    clock: Callable[[], float] = time.monotonic
    rng: Callable[[], float] = random.random
    _errors: int = 0
    _error_since: float | None = None
    _last_fault: Fault | None = None
    _unknown_since: float | None = None
    _warned_states: set[str] = field(default_factory=set)
    _last_state: str | None = None

    # ----------------------------------------------------------------- statuses
    def seen(self, status: JobStatus) -> JobStatus | None:
        """The terminal status, or None to keep polling; raises past the unknown-state budget."""
        if self._errors:
            self.log.info(
                "%s %s answered again for %s %s after %d failed call(s) over %.0f s",
                self.client.vendor, self.client.status_endpoint, self.client.unit, self.job_id, self._errors,
                self.clock() - (self._error_since or self.clock()),
            )
        self._errors, self._error_since, self._last_fault = 0, None, None
        if status.phase is JobPhase.UNKNOWN:
            self._unknown(status)
            return None
        self._unknown_since = None
        self._last_state = status.state
        return None if status.phase is JobPhase.ACTIVE else status

    def _unknown(self, status: JobStatus) -> None:
        now = self.clock()
        if self._unknown_since is None:
            self._unknown_since = now
        if status.state not in self._warned_states:
            self._warned_states.add(status.state)
            self.log.warning(
                "%s reported %s %s in state %r, which durable-jobs' state table does not list (%s). Not "
                "treating it as an end: watching the %s for up to %.0f s for a state it knows.",
                self.client.vendor, self.client.unit, self.job_id, status.state, status.message or "no message",
                self.client.unit, self.policy.unknown_state_budget,
            )
        elapsed = now - self._unknown_since
        if elapsed > self.policy.unknown_state_budget:
            raise UnknownJobStateError(
                f"{self.client.vendor} has reported {self.client.unit} {self.job_id} in state {status.state!r}, "
                f"which durable-jobs does not know, for {elapsed:.0f} s "
                f"(known: {', '.join(sorted(self.client.states.all_states))}). The {self.client.unit} is left "
                f"running: this try fails and the next try reconnects to it. Raise [durable_jobs] "
                "unknown_state_budget to wait longer, and report the state so that the table learns it."
            )

    def changed(self, status: JobStatus) -> bool:
        """True when this status differs from the last one seen (for logs that say each state once)."""
        return status.state != self._last_state

    # ----------------------------------------------------------------- failed calls
    def failed(self, err: BaseException) -> float:
        """Seconds to wait before asking again; raises when the fault is final or the budget is spent."""
        fault = self.client.classify(err)
        vendor, endpoint, unit = self.client.vendor, self.client.status_endpoint, self.client.unit
        where = f"{vendor} {endpoint} for {unit} {self.job_id}"
        if fault.kind is FaultKind.AUTH:
            raise VendorAuthError(
                f"{where} was refused ({fault}): check the credentials and permissions of connection "
                f"{self.client.connection_id!r}. The {unit} may still be running: once the connection works, "
                "the next try reconnects to it.",
                vendor=vendor, endpoint=endpoint, job_id=self.job_id, fault=fault,
            ) from err
        if not fault.transient:
            raise VendorCallError(
                f"{where} failed ({fault}). The {unit} may still be running: the next try reconnects to it.",
                vendor=vendor, endpoint=endpoint, job_id=self.job_id, fault=fault,
            ) from err
        now = self.clock()
        if self._error_since is None:
            self._error_since = now
        self._errors += 1
        self._last_fault = fault
        elapsed = now - self._error_since
        if elapsed > self.policy.error_budget:
            raise PollBudgetExceededError(
                f"{where} kept failing for {elapsed:.0f} s ({self._errors} calls; last: {fault}). The {unit} may "
                f"still be running: this try fails and the next try reconnects to it. Raise [durable_jobs] "
                "poll_error_budget to wait longer.",
                vendor=vendor, endpoint=endpoint, job_id=self.job_id, fault=fault,
            ) from err
        backoff = min(max(MAX_BACKOFF, self.policy.interval), FIRST_BACKOFF * 2 ** min(self._errors - 1, 16))
        wait = self._jittered(backoff)
        if fault.retry_after is not None:
            wait = max(wait, fault.retry_after)
        wait = min(wait, max(0.0, self.policy.error_budget - elapsed) + FIRST_BACKOFF)
        if self._errors == 1 or self._errors % 10 == 0:
            self.log.warning(
                "%s failed (%s); %d failed call(s) in %.0f s. The %s may be running: asking again in %.1f s "
                "(for up to %.0f s in all).", where, fault, self._errors, elapsed, unit, wait, self.policy.error_budget,
            )
        return wait

    # ----------------------------------------------------------------- pacing
    def delay(self) -> float:
        """The pause before the next status call while all is well: the interval, jittered."""
        return self._jittered(self.policy.interval)

    def _jittered(self, seconds: float) -> float:
        spread = seconds * self.policy.jitter
        return max(0.0, seconds + (self.rng() * 2 - 1) * spread)

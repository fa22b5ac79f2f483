"""``JobTrigger``: watch any vendor's job from the triggerer until it ends.

It holds only serialisable data (client classpath and kwargs, the external id, the poll policy)
and rebuilds its client in the triggerer, so a triggerer restart simply starts watching again. It
yields exactly one event. Failed status calls and unknown states go through the same
:class:`~durable_jobs.core.polling.JobWatch` as the synchronous wait: the same budgets, backoff and
messages on both paths. The external job is cancelled in ``on_kill`` (a user's kill), never in
``cleanup`` (which also runs when triggers move between triggerers or the triggerer restarts).

In a triggerer, triggers of one vendor connection share a poller (``durable_jobs.core.hub``,
``[durable_jobs] shared_poller``): the hub fetches the statuses, each trigger still judges its own
with its own ``JobWatch`` and yields its own event. A trigger that ends, is cancelled or moves
leaves the hub before anything else.

A user's kill is cancelled at once, without asking Airflow anything. Airflow 3.3.2 calls ``on_kill`` for
every trigger no longer assigned to this triggerer (jobs/triggerer_job_runner.py:974-980, 1408-1411,
1655-1658): the user's kill, and the copy left behind by a move to another triggerer, which happens only
after this triggerer looked dead (models/trigger.py:402-412, 460). Asking for the task's state goes
through the triggerer's supervisor, whose one thread also writes the heartbeat: its first such answer
builds the in-process Execution API (seconds, during which every trigger's cancel and the heartbeat
wait). So the trigger reads the triggerer's pulse (``durable_jobs.core.pulse``) instead, and asks only
when a stall may have moved it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from durable_jobs.core import pulse
from durable_jobs.core.cancel import ati_state, decide_cancel, validate_policy
from durable_jobs.core.cancel_message import keep_cancel_message
from durable_jobs.core.client import JobClient, load_client
from durable_jobs.core.config import get_bool
from durable_jobs.core.exceptions import DurableJobConfigError, DurableJobError
from durable_jobs.core.hub import subscribe
from durable_jobs.core.polling import DEFAULT_ERROR_BUDGET, DEFAULT_UNKNOWN_STATE_BUDGET, JobWatch, PollPolicy
from durable_jobs.core.status import JobPhase, JobStatus

EVENT_SUCCESS = "success"
EVENT_FAILED = "failed"
EVENT_ERROR = "error"
#: The operator's own bound on the wait (``waiter_max_attempts``, ``max_polling_attempts``) was reached.
EVENT_POLL_LIMIT = "poll_limit"


#: Seconds ``on_kill`` still waits for its cancel to reach the vendor once Airflow cancels ``on_kill`` itself.
KILL_GRACE = 5.0
#: Seconds a kill after a stall waits for Airflow's answer (Airflow gives ``on_kill`` 30); none: infrastructure.
ASK_TIMEOUT = 20.0
#: Why a kill is not known to be a user's when the trigger never ran in this process.
NEVER_RAN = "the trigger never ran here"
#: Kills whose ``on_kill`` may have returned already: the loop keeps only weak references to tasks.
_KILLS_IN_FLIGHT: set[asyncio.Future[None]] = set()


def _forget_kill(kill: asyncio.Future[None]) -> None:
    _KILLS_IN_FLIGHT.discard(kill)
    if not kill.cancelled() and kill.exception() is not None:  # retrieved here, or asyncio warns at exit
        logging.getLogger(__name__).error("durable-jobs: cancelling the job on a user's kill failed",
                                          exc_info=kill.exception())


class JobTrigger(BaseTrigger):
    """Ask ``client_classpath(**client_kwargs).astatus(job_id)`` every ``poll_interval`` seconds."""

    def __init__(
        self,
        *,
        client_classpath: str,
        client_kwargs: dict[str, Any],
        job_id: Any,
        poll_interval: float = 30.0,
        jitter: float = 0.1,
        error_budget: float = DEFAULT_ERROR_BUDGET,
        unknown_state_budget: float = DEFAULT_UNKNOWN_STATE_BUDGET,
        cancel_on_kill: str = "user",
        echo: dict[str, Any] | None = None,
        max_polls: int | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow's BaseTrigger.__init__ is unannotated
        self.policy = PollPolicy(
            interval=poll_interval, jitter=jitter, error_budget=error_budget,
            unknown_state_budget=unknown_state_budget,
        )
        self.client_classpath = client_classpath
        self.client_kwargs = dict(client_kwargs)
        self.job_id = job_id
        self.cancel_on_kill = validate_policy(cancel_on_kill)
        self.echo = dict(echo or {})
        if max_polls is not None and (isinstance(max_polls, bool) or not isinstance(max_polls, int) or max_polls < 1):
            raise DurableJobConfigError(f"max_polls must be a whole number >= 1 or None, got {max_polls!r}")
        self.max_polls = max_polls
        self._client: JobClient | None = None
        #: the kind of event this trigger yielded, if any: from then on the resumed task owns the job
        self._fired: str | None = None
        #: when the watch ended: why this triggerer may have lost the trigger to another, or None (it cannot have)
        self._stalled: str | None = NEVER_RAN

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "client_classpath": self.client_classpath,
                "client_kwargs": self.client_kwargs,
                "job_id": self.job_id,
                "poll_interval": self.policy.interval,
                "jitter": self.policy.jitter,
                "error_budget": self.policy.error_budget,
                "unknown_state_budget": self.policy.unknown_state_budget,
                "cancel_on_kill": self.cancel_on_kill,
                "echo": self.echo,
                "max_polls": self.max_polls,
            },
        )

    @property
    def client(self) -> JobClient:
        if self._client is None:
            self._client = load_client(self.client_classpath, self.client_kwargs)
        return self._client

    def _event(self, kind: str, **extra: Any) -> TriggerEvent:
        # ``status`` is what the official ``execute_complete`` reads (a client's official fields may set
        # it to the official trigger's word, e.g. Snowflake's "error"); ``durable_status`` is ours.
        payload = {"status": kind, "job_id": self.job_id, "client": self.client_classpath, "echo": self.echo,
                   **extra, "durable_status": kind}
        return TriggerEvent(payload)

    async def run(self) -> AsyncIterator[TriggerEvent]:
        beat = pulse.join()
        try:
            if get_bool("shared_poller"):
                event = await self._watch_shared()
            else:
                event = await self._watch(self.client, self._ask_alone, alone=True)
            self._fired = str(event.payload.get("durable_status"))
            yield event
        finally:
            self._stalled = beat.verdict()  # a cancel lands here first: this is the pulse at the kill
            pulse.leave(beat)
            await self._close()

    async def _ask_alone(self) -> JobStatus | Exception:
        try:
            # A user's kill during the call must reach Airflow as one (durable_jobs.core.cancel_message).
            return await keep_cancel_message(self.client.astatus(self.job_id))
        except Exception as err:  # noqa: BLE001 - the watch decides what a failed call means
            return err

    async def _watch_shared(self) -> TriggerEvent:
        """Through the loop's hub for this connection; leaves it before the event is yielded."""
        # Only news wakes this trigger (the same running state again changes nothing in its watch), unless
        # it counts its polls.
        sub = subscribe(self.client_classpath, self.client_kwargs, self.job_id, self.policy.interval,
                        news_only=self.max_polls is None)
        self.log.info("Watching %s %s %s through the shared poller of its connection (%d job(s) watched)",
                      sub.hub.client.vendor, sub.hub.client.unit, self.job_id, sub.hub.watched)
        async with sub:
            return await self._watch(sub.hub.client, sub.next, alone=False)

    async def _watch(self, client: JobClient, ask: Callable[[], Awaitable[JobStatus | BaseException]],
                     *, alone: bool) -> TriggerEvent:
        """The job's event. Alone, this trigger paces its own calls; under a hub, the hub does."""
        watch = JobWatch(client, self.job_id, self.policy, log=self.log)
        polls = 0
        while True:
            outcome = await ask()
            try:
                if isinstance(outcome, BaseException):
                    wait = watch.failed(outcome)
                    if alone:
                        await asyncio.sleep(wait)
                    continue
                changed = watch.changed(outcome)
                final = watch.seen(outcome)
            except DurableJobError as gave_up:  # the policy's budget is spent, or the fault is final
                return self._event(EVENT_ERROR, phase=None, state=None, message=str(gave_up),
                                   error=type(gave_up).__name__)
            if final is None:
                if changed and outcome.phase is JobPhase.ACTIVE:
                    self.log.info("%s %s %s is %s", client.vendor, client.unit, self.job_id, outcome.state)
                polls += 1
                if self.max_polls is not None and polls >= self.max_polls:
                    return self._event(EVENT_POLL_LIMIT, phase=outcome.phase.value, state=outcome.state,
                                       message=f"still {outcome.state} after {polls} polls")
                if alone:
                    await asyncio.sleep(watch.delay())
                continue
            kind = EVENT_SUCCESS if final.phase is JobPhase.SUCCEEDED else EVENT_FAILED
            official = client.official_event_fields(self.job_id, final, self.echo)
            return self._event(kind, **official, phase=final.phase.value, state=final.state, message=final.message)

    async def _close(self) -> None:
        if self._client is not None:
            try:
                await self._client.aclose()
            except Exception:
                self.log.debug("closing the job client failed", exc_info=True)

    async def cleanup(self) -> None:
        """Local resources only: this also runs on triggerer restarts and moves."""
        await self._close()

    async def on_kill(self) -> None:
        """A user stopped the deferred task: cancel the job, unless the trigger merely moved.

        Airflow gives ``on_kill`` 30 s and drops it if the trigger's task is cancelled again meanwhile. A
        user's cancel must survive both, so the decision and the cancel run in a task of their own,
        shielded: ``on_kill`` returns when they are done, or leaves them to finish.
        """
        kill = asyncio.ensure_future(self._kill())
        _KILLS_IN_FLIGHT.add(kill)
        kill.add_done_callback(_forget_kill)
        try:
            await asyncio.shield(kill)
        except asyncio.CancelledError:
            # Cancelled again (Airflow re-sent the user's cancel, or its 30 s are up): give the cancel under
            # way a moment to reach the vendor before giving way; past that it goes on in the background.
            await asyncio.wait({kill}, timeout=KILL_GRACE)
            raise

    async def _kill(self) -> None:
        if self._fired is not None:
            # Airflow cancels a trigger whose row is gone; after the event that is the task moving on (its
            # state is no longer "deferred"), not a user's kill. The cancel can land while this generator
            # closes its client, after the event: the resumed task owns the job now, whatever its state.
            self.log.info("Trigger for %s job %s stopped after it fired its %s event: the task owns the job; "
                          "nothing to cancel", self.client.vendor, self.job_id, self._fired)
            return
        if self.cancel_on_kill == "user" and not await self._users_kill():
            return
        if self.cancel_on_kill == "never":
            self.log.info("Trigger for %s job %s stopped; cancel_on_kill='never': leaving the job running",
                          self.client.vendor, self.job_id)
            return
        await self.client.acancel(self.job_id)
        self.log.info("Cancelled %s job %s", self.client.vendor, self.job_id)

    async def _users_kill(self) -> bool:
        """Airflow's user-action cancel is a user's kill unless this triggerer stood still long enough to lose
        the trigger to another; only then is Airflow asked for the task's state."""
        ti = self.task_instance
        if ti is not None and self._stalled is None:
            self.log.info("Task stopped by a user (Airflow's user-action cancel; this triggerer has not stood "
                          "still long enough to lose the trigger): cancelling %s job %s",
                          self.client.vendor, self.job_id)
            return True
        current = None
        if ti is not None:
            self.log.info("Trigger for %s job %s cancelled after %s: it may have moved to another triggerer; "
                          "asking Airflow for the task's state", self.client.vendor, self.job_id, self._stalled)
            current = await ati_state(ti.dag_id, ti.run_id, ti.task_id, ti.map_index, timeout=ASK_TIMEOUT)
        if not decide_cancel("user", current, still_alive_state="deferred"):
            self.log.info(
                "Trigger for %s job %s stopped while the task is %s: leaving the job running for the retry",
                self.client.vendor, self.job_id, current,
            )
            return False
        self.log.info("Task stopped by a user (state %s): cancelling %s job %s",
                      current, self.client.vendor, self.job_id)
        return True

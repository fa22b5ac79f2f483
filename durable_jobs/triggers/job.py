"""``JobTrigger``: watch any vendor's job from the triggerer until it ends.

It holds only serialisable data (client classpath and kwargs, the external id, the poll policy)
and rebuilds its client in the triggerer, so a triggerer restart simply starts watching again. It
yields exactly one event. Failed status calls and unknown states go through the same
:class:`~durable_jobs.polling.JobWatch` as the synchronous wait: the same budgets, backoff and
messages on both paths. The external job is cancelled in ``on_kill`` (a user's kill), never in
``cleanup`` (which also runs when triggers move between triggerers or the triggerer restarts).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from durable_jobs.cancel import decide_cancel, ti_state, validate_policy
from durable_jobs.exceptions import DurableJobConfigError, DurableJobError
from durable_jobs.hooks.base import JobClient, JobPhase, load_client
from durable_jobs.polling import DEFAULT_ERROR_BUDGET, DEFAULT_UNKNOWN_STATE_BUDGET, JobWatch, PollPolicy

EVENT_SUCCESS = "success"
EVENT_FAILED = "failed"
EVENT_ERROR = "error"
#: The operator's own bound on the wait (``waiter_max_attempts``, ``max_polling_attempts``) was reached.
EVENT_POLL_LIMIT = "poll_limit"


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
        **legacy: Any,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow's BaseTrigger.__init__ is unannotated
        # Rows written by 0.1.0 carry `max_consecutive_errors` (now a time budget) and `run_page_url`.
        unknown = set(legacy) - {"max_consecutive_errors", "run_page_url"}
        if unknown:
            raise TypeError(f"JobTrigger got unexpected arguments {sorted(unknown)}")
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
        watch = JobWatch(self.client, self.job_id, self.policy, log=self.log)
        polls = 0
        try:
            while True:
                try:
                    try:
                        status = await self.client.astatus(self.job_id)
                    except Exception as err:
                        await asyncio.sleep(watch.failed(err))
                        continue
                    changed = watch.changed(status)
                    final = watch.seen(status)
                except DurableJobError as gave_up:  # the policy's budget is spent, or the fault is final
                    yield self._event(EVENT_ERROR, phase=None, state=None, message=str(gave_up),
                                      error=type(gave_up).__name__)
                    return
                if final is None:
                    if changed and status.phase is JobPhase.ACTIVE:
                        self.log.info("%s %s %s is %s", self.client.vendor, self.client.unit, self.job_id, status.state)
                    polls += 1
                    if self.max_polls is not None and polls >= self.max_polls:
                        yield self._event(EVENT_POLL_LIMIT, phase=status.phase.value, state=status.state,
                                          message=f"still {status.state} after {polls} polls")
                        return
                    await asyncio.sleep(watch.delay())
                    continue
                kind = EVENT_SUCCESS if final.phase is JobPhase.SUCCEEDED else EVENT_FAILED
                official = self.client.official_event_fields(self.job_id, final, self.echo)
                yield self._event(kind, **official, phase=final.phase.value, state=final.state, message=final.message)
                return
        finally:
            await self._close()

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
        """A user stopped the deferred task: cancel the job, unless the trigger merely moved."""
        current = None
        ti = self.task_instance
        if self.cancel_on_kill == "user" and ti is not None:
            from asgiref.sync import sync_to_async

            current = await sync_to_async(ti_state)(ti.dag_id, ti.run_id, ti.task_id, ti.map_index)
        if not decide_cancel(self.cancel_on_kill, current, still_alive_state="deferred"):
            self.log.info(
                "Trigger for %s job %s stopped while the task is %s: leaving the job running for the retry",
                self.client.vendor, self.job_id, current,
            )
            return
        self.log.info("Task stopped by a user (state %s): cancelling %s job %s",
                      current, self.client.vendor, self.job_id)
        await self.client.acancel(self.job_id)

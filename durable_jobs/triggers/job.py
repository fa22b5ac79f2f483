"""``JobTrigger``: poll any vendor's ``JobClient`` from the triggerer until the job ends.

It holds only serialisable data (client classpath and kwargs, the external id, intervals) and
rebuilds its client in the triggerer, so a triggerer restart simply starts polling again. It
yields exactly one event. The external job is cancelled in ``on_kill`` (a user's kill), never in
``cleanup`` (which also runs when triggers move between triggerers or the triggerer restarts).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from durable_jobs.cancel import decide_cancel, ti_state, validate_policy
from durable_jobs.exceptions import DurableJobConfigError
from durable_jobs.hooks.base import JobClient, JobPhase, load_client

EVENT_SUCCESS = "success"
EVENT_FAILED = "failed"
EVENT_ERROR = "error"


def validate_poll_args(
    poll_interval: Any, max_consecutive_errors: Any, jitter: Any, *, name: str = "poll_interval"
) -> None:
    if not isinstance(poll_interval, (int, float)) or isinstance(poll_interval, bool) or poll_interval <= 0:
        raise DurableJobConfigError(
            f"{name} must be a positive number of seconds (the polling interval), got {poll_interval!r}"
        )
    if not isinstance(max_consecutive_errors, int) or max_consecutive_errors < 1:
        raise DurableJobConfigError(
            f"max_consecutive_errors must be an integer >= 1, got {max_consecutive_errors!r}"
        )
    if not isinstance(jitter, (int, float)) or not 0 <= jitter < 1:
        raise DurableJobConfigError(f"jitter must be a fraction in [0, 1), got {jitter!r}")


class JobTrigger(BaseTrigger):
    """Poll ``client_classpath(**client_kwargs).astatus(job_id)`` every ``poll_interval`` seconds."""

    def __init__(
        self,
        *,
        client_classpath: str,
        client_kwargs: dict[str, Any],
        job_id: Any,
        poll_interval: float = 30.0,
        jitter: float = 0.1,
        max_consecutive_errors: int = 5,
        cancel_on_kill: str = "user",
        echo: dict[str, Any] | None = None,
        run_page_url: str | None = None,  # noqa: ARG002 - in triggers serialized by 0.1.0; unused
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow's BaseTrigger.__init__ is unannotated
        validate_poll_args(poll_interval, max_consecutive_errors, jitter)
        self.client_classpath = client_classpath
        self.client_kwargs = dict(client_kwargs)
        self.job_id = job_id
        self.poll_interval = poll_interval
        self.jitter = jitter
        self.max_consecutive_errors = max_consecutive_errors
        self.cancel_on_kill = validate_policy(cancel_on_kill)
        self.echo = dict(echo or {})
        self._client: JobClient | None = None

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "client_classpath": self.client_classpath,
                "client_kwargs": self.client_kwargs,
                "job_id": self.job_id,
                "poll_interval": self.poll_interval,
                "jitter": self.jitter,
                "max_consecutive_errors": self.max_consecutive_errors,
                "cancel_on_kill": self.cancel_on_kill,
                "echo": self.echo,
            },
        )

    @property
    def client(self) -> JobClient:
        if self._client is None:
            self._client = load_client(self.client_classpath, self.client_kwargs)
        return self._client

    def _sleep_seconds(self) -> float:
        spread = self.poll_interval * self.jitter
        return max(0.0, self.poll_interval + random.uniform(-spread, spread))

    def _event(self, kind: str, **extra: Any) -> TriggerEvent:
        payload = {
            "status": kind, "job_id": self.job_id, "client": self.client_classpath,
            "echo": self.echo, **extra,
        }
        return TriggerEvent(payload)

    async def run(self) -> AsyncIterator[TriggerEvent]:
        errors = 0
        try:
            while True:
                try:
                    status = await self.client.astatus(self.job_id)
                    errors = 0
                except Exception as err:  # the hook already retried 429/5xx; count what is left
                    errors += 1
                    self.log.warning(
                        "Polling %s job %s failed (%d/%d in a row): %s",
                        self.client.vendor, self.job_id, errors, self.max_consecutive_errors, err,
                    )
                    if errors >= self.max_consecutive_errors:
                        yield self._event(EVENT_ERROR, phase=None, state=None, message=str(err))
                        return
                    await asyncio.sleep(self._sleep_seconds())
                    continue
                if status.phase is JobPhase.ACTIVE:
                    self.log.info("%s job %s is %s", self.client.vendor, self.job_id, status.state)
                    await asyncio.sleep(self._sleep_seconds())
                    continue
                kind = EVENT_SUCCESS if status.phase is JobPhase.SUCCEEDED else EVENT_FAILED
                yield self._event(kind, phase=status.phase.value, state=status.state, message=status.message)
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

"""Could this triggerer have looked dead lately? A pulse in the trigger loop, read when a trigger is killed.

Airflow 3.3.2 hands a trigger to another triggerer only when this one's heartbeat looks older than
``[triggerer] triggerer_health_check_threshold`` (``Trigger.assign_unassigned``: models/trigger.py:402-412 and
460), and its ``update_triggers`` then cancels the copy left here like a user's kill: every trigger no longer
assigned here goes to the cancel queue (jobs/triggerer_job_runner.py:974-980), which ``cancel_triggers`` drains
with the user-action message (1408-1411) that makes ``run_trigger`` call ``on_kill`` (1655-1658). The heartbeat
is written by the triggerer's supervisor in the same loop that answers this process's requests (``run_once``,
697-709; ``heartbeat``, 711-730): it goes stale only while that loop, or this whole process, stands still.

So the pulse watches both from here, at no cost to either: every half second it notes how late the trigger loop
woke it, and how long the oldest request to the supervisor has waited for its answer (the Task SDK channel's
table of pending requests, read and never written). A kill after no stall that long is a user's.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any

#: Seconds between two looks.
PERIOD = 0.5


def _triggerer_option(name: str, default: float) -> float:
    try:
        from airflow.configuration import conf

        return float(conf.getfloat("triggerer", name, fallback=default))
    except Exception:  # noqa: BLE001 - no Airflow config: Airflow's defaults
        return default


def stall_bound() -> float:
    """Seconds of standing still that may cost this triggerer its triggers.

    A trigger moves once the heartbeat is older than the threshold. Without a stall the heartbeat is at most one
    heartbeat interval plus one supervisor iteration (~1 s) old, and the iteration that ends a stall adds another;
    the pulse sees a supervisor stall up to one runner iteration (~1 s) and two looks late. What is left of the
    threshold is the stall that may move a trigger; at or above it, the kill is checked with Airflow.
    """
    threshold = _triggerer_option("triggerer_health_check_threshold", 30.0)
    heartrate = _triggerer_option("job_heartbeat_sec", 5.0)
    return max(PERIOD, threshold - heartrate - 2.0 - 2 * PERIOD)


def stall_memory() -> float:
    """How long a stall still counts: a move it allowed reaches this loop a few supervisor iterations after the
    stall; twice the threshold leaves room for a loaded supervisor."""
    return 2 * _triggerer_option("triggerer_health_check_threshold", 30.0) + 10.0


def _supervisor_channel() -> Any:
    try:
        from airflow.sdk.execution_time import task_runner
    except ImportError:
        return None
    return getattr(task_runner, "SUPERVISOR_COMMS", None)


class Pulse:
    """The stalls one event loop has seen, while at least one trigger of ours runs in it."""

    def __init__(self, bound: float, memory: float) -> None:
        self.bound, self.memory = bound, memory
        self.users = 0
        self.last_look = time.monotonic()
        #: why the pulse cannot vouch for the supervisor (no channel it can read), or None
        self.blind: str | None = None
        #: the latest stall at or above ``bound``: (when seen, seconds, what stood still)
        self.stall: tuple[float, float, str] | None = None
        self._oldest: tuple[Any, float] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._beat(), name="durable-jobs-pulse")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(PERIOD)
            self.look(time.monotonic())

    def look(self, now: float) -> None:
        self._note(now, now - self.last_look - PERIOD, "the trigger loop stood still")
        self._note(now, self._supervisor_wait(now), "a request to the triggerer's supervisor waited")
        self.last_look = now

    def _note(self, now: float, seconds: float, what: str) -> None:
        if seconds >= self.bound:
            self.stall = (now, seconds, what)

    def _supervisor_wait(self, now: float) -> float:
        pending = getattr(_supervisor_channel(), "_pending", None)
        if not isinstance(pending, dict):
            self.blind = "the trigger process cannot see its requests to the triggerer's supervisor"
            return 0.0
        oldest = min(pending, default=None)
        if oldest is None:
            self._oldest = None
            return 0.0
        if self._oldest is None or self._oldest[0] != oldest:
            self._oldest = (oldest, now)
        return now - self._oldest[1]

    def verdict(self, now: float | None = None) -> str | None:
        """Why this triggerer may have lost a trigger to another lately, or None: it cannot have."""
        now = time.monotonic() if now is None else now
        late = now - self.last_look - PERIOD
        if late >= self.bound:  # the loop is only now running again: the pulse has not looked yet
            return f"the trigger loop stood still {late:.1f} s until now"
        if self.stall is not None and now - self.stall[0] <= self.memory:
            when, seconds, what = self.stall
            return f"{what} {seconds:.1f} s, {now - when:.0f} s ago"
        return self.blind


_PULSES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Pulse] = weakref.WeakKeyDictionary()


def join() -> Pulse:
    """The running loop's pulse, started for its first user."""
    loop = asyncio.get_running_loop()
    pulse = _PULSES.get(loop)
    if pulse is None or pulse.users == 0:
        pulse = _PULSES[loop] = Pulse(stall_bound(), stall_memory())
        pulse.start()
    pulse.users += 1
    return pulse


def leave(pulse: Pulse) -> None:
    """One user fewer; the last one stops the pulse."""
    pulse.users -= 1
    if pulse.users <= 0:
        pulse.stop()

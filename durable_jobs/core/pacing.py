"""Pacing the shared poller's vendor calls: a per-connection request budget, spread, Retry-After.

The hub (``durable_jobs.core.hub``) runs a client's ``astatuses`` inside :func:`paced`; every
vendor request the client makes first awaits :func:`pace_call`, which waits for the connection's
:class:`Pacer`. Outside a hub (the synchronous path, a bare ``astatuses`` in a test) ``pace_call``
does nothing. A context variable carries the pacer so that the clients' signatures stay as they
are and tasks started inside ``astatuses`` (``asyncio.gather``) inherit it.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_CURRENT: contextvars.ContextVar[Pacer | None] = contextvars.ContextVar("durable_jobs_pacer", default=None)

#: Requests spaced closer than this go out together on ticks (one a second at most): the same number a
#: second, but the event loop wakes once per tick, not once per request. Measured (benchmark, 100 Databricks jobs
#: polled every 5 s in a workspace with 10 times more foreign active runs, about 2 requests a second, one run
#: each): alone, each request cost about 1.7 ms of the triggerer's CPU against the official triggers' 0.4 ms in
#: their bursts (0.15 s against 0.36 s); on quarter-second ticks they still went alone (0.45 s apart), on
#: half-second ticks 0.13 s, on one-second ticks 0.10 s. A tick delays a request by less than itself.
TICK = 1.0
#: At most this many requests share a tick (the ticks are shorter when the spacing is): each one in flight
#: holds a socket, and a connection should hold a few, not dozens (measured: twelve a tick, 1,000 jobs polled
#: one by one at 50 requests/s, peaked at 34 open sockets).
MAX_TOGETHER = 5


class Pacer:
    """Spaces one connection's requests: at most ``budget`` a second, spread over a round, and none
    before a Retry-After the vendor asked for has passed."""

    def __init__(self, budget: float, clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget <= 0:
            raise ValueError(f"poll_requests_per_second must be a number > 0, got {budget!r}")
        self.budget = float(budget)
        self.clock = clock
        self.calls = 0
        self._spread_spacing = 0.0
        self._round_started, self._window, self._halfway_told = clock(), 0.0, True
        self._fit_calls, self._fit_spacing = 0, 0.0
        self._next = 0.0
        #: The latest tick a request was held back to (see :meth:`_take_slot`).
        self._released = -math.inf
        self._holds = 0

    def spread(self, expected_calls: int, window: float) -> None:
        """Space the next requests ``window / expected_calls`` apart (never closer than the budget allows).
        Requests beyond ``expected_calls`` (a round that needs more than the last one did) keep that spacing:
        the round runs over a little and the next one starts late, rather than a burst at the round's end."""
        self._spread_spacing = window / expected_calls if expected_calls > 0 else 0.0
        self._round_started, self._window, self._halfway_told = self.clock(), window, False
        self._fit_calls = 0

    def expect(self, calls: int) -> None:
        """The next ``calls`` requests are known to come (one status call for each of many jobs): if the round's
        spacing would carry them past what is left of its window — or past half a window, when less is left —
        they go closer together, so as to end there: a round that finds fifty ended jobs to read does not take
        fifty spacings, and a few gets at a round's end do not go out in a burst."""
        left = max(self._round_started + self._window - self.clock(), self._window / 2)
        self._fit_calls = max(0, calls)
        self._fit_spacing = left / calls if calls > 0 else 0.0

    def replan(self, calls: int) -> None:
        """The rest of the round is known to take about ``calls`` requests (a client that chose a cheaper kind of
        round than the last one): space them evenly over what is left of its window."""
        left = self._round_started + self._window - self.clock()
        if calls > 0 and left > 0:
            self._spread_spacing = left / calls

    def past_halfway(self) -> bool:
        """True once a round, on the first ask after half its window has passed (see :func:`halfway`)."""
        if self._halfway_told or self.clock() - self._round_started < self._window / 2:
            return False
        self._halfway_told = True
        return True

    @property
    def spacing(self) -> float:
        spacing = min(self._spread_spacing, self._fit_spacing) if self._fit_calls > 0 else self._spread_spacing
        return max(1.0 / self.budget, spacing)

    def hold_off(self, seconds: float) -> None:
        """The vendor said Retry-After ``seconds``: no request of this connection before then."""
        self._next = max(self._next, self.clock() + max(0.0, seconds))
        self._holds += 1

    async def wait(self) -> None:
        """Take the next request slot, in arrival order, and sleep until it: a slot in the future whose
        spacing is below a tick (:data:`TICK`, or :data:`MAX_TOGETHER` spacings when shorter) waits for the
        tick it falls in, with the others of that tick. A caller already late for its slot (the next page of a
        listing, after the last one's answer) goes at once. A Retry-After that arrives while a request waits
        sends it back for a slot after the hold."""
        at, holds = self._take_slot()
        self._fit_calls = max(0, self._fit_calls - 1)
        while True:
            delay = at - self.clock()
            if delay > 0:
                await asyncio.sleep(delay)
            if self._holds == holds:
                break
            at, holds = self._take_slot()  # a Retry-After came while this request waited
        self.calls += 1

    def _take_slot(self) -> tuple[float, int]:
        """The next slot's time (on its tick, when the spacing is below one) and the Retry-After count now.
        Within a tick of the last tick a request waited for, the slots of that tick not yet taken are still
        there: a caller that asks one request after another (the pages of a listing) goes at once on the tick
        it waited for, with the slots that passed while it waited, rather than one request a tick. Slots left
        unused while no one waited are not (a connection that was idle does not send a backlog at once)."""
        now = self.clock()
        spacing = self.spacing
        tick = min(TICK, spacing * MAX_TOGETHER) if spacing < TICK else 0.0
        earliest = self._released - tick if tick and now <= self._released + tick else now
        slot = max(self._next, earliest)
        self._next = slot + spacing
        if slot <= now:
            return now, self._holds
        if tick:
            slot = max(slot, math.ceil(slot / tick) * tick)
            self._released = max(self._released, slot)
        return slot, self._holds


async def pace_call() -> None:
    """Before one vendor request: wait for the hub's pacer, if a hub is asking."""
    pacer = _CURRENT.get()
    if pacer is not None:
        await pacer.wait()


def expect(calls: int) -> None:
    """Before ``calls`` requests a client is about to make (one per job): see :meth:`Pacer.expect`. Nothing
    outside a hub."""
    pacer = _CURRENT.get()
    if pacer is not None:
        pacer.expect(calls)


def plan(calls: int) -> None:
    """This round's remaining requests, when a client knows them better than the last round's count: see
    :meth:`Pacer.replan`. Nothing outside a hub."""
    pacer = _CURRENT.get()
    if pacer is not None:
        pacer.replan(calls)


def halfway() -> bool:
    """True once in a hub's round, when half of it has passed: a client whose round is long (many listing
    pages spread over the interval) reads the jobs that ended once more there, so an end waits about half an
    interval instead of a whole one. False outside a hub."""
    pacer = _CURRENT.get()
    return pacer is not None and pacer.past_halfway()


@contextmanager
def paced(pacer: Pacer) -> Iterator[Pacer]:
    token = _CURRENT.set(pacer)
    try:
        yield pacer
    finally:
        _CURRENT.reset(token)

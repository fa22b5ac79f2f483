"""Pacing the shared poller's vendor calls: a per-connection request budget, spread, Retry-After.

The hub (``durable_jobs.triggers.hub``) runs a client's ``astatuses`` inside :func:`paced`; every
vendor request the client makes first awaits :func:`pace_call`, which waits for the connection's
:class:`Pacer`. Outside a hub (the synchronous path, a bare ``astatuses`` in a test) ``pace_call``
does nothing. A context variable carries the pacer so that the clients' signatures stay as they
are and tasks started inside ``astatuses`` (``asyncio.gather``) inherit it.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_CURRENT: contextvars.ContextVar[Pacer | None] = contextvars.ContextVar("durable_jobs_pacer", default=None)


class Pacer:
    """Spaces one connection's requests: at most ``budget`` a second, spread over a round, and none
    before a Retry-After the vendor asked for has passed."""

    def __init__(self, budget: float, clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget <= 0:
            raise ValueError(f"poll_requests_per_second must be a number > 0, got {budget!r}")
        self.budget = float(budget)
        self.clock = clock
        self.calls = 0
        self._expected = 0
        self._spread_spacing = 0.0
        self._round_calls = 0
        self._next = 0.0
        self._lock = asyncio.Lock()

    def spread(self, expected_calls: int, window: float) -> None:
        """Spread the next ``expected_calls`` requests over ``window`` seconds; requests beyond them (a round
        that needs more than the last one did) go at the budget's pace."""
        self._expected = max(0, expected_calls)
        self._spread_spacing = window / expected_calls if expected_calls > 0 else 0.0
        self._round_calls = 0

    @property
    def spacing(self) -> float:
        if self._round_calls < self._expected:
            return max(1.0 / self.budget, self._spread_spacing)
        return 1.0 / self.budget

    def hold_off(self, seconds: float) -> None:
        """The vendor said Retry-After ``seconds``: no request of this connection before then."""
        self._next = max(self._next, self.clock() + max(0.0, seconds))

    async def wait(self) -> None:
        async with self._lock:  # one request slot at a time, in arrival order
            delay = self._next - self.clock()
            if delay > 0:
                await asyncio.sleep(delay)
            self._next = max(self._next, self.clock()) + self.spacing
            self.calls += 1
            self._round_calls += 1


async def pace_call() -> None:
    """Before one vendor request: wait for the hub's pacer, if a hub is asking."""
    pacer = _CURRENT.get()
    if pacer is not None:
        await pacer.wait()


@contextmanager
def paced(pacer: Pacer) -> Iterator[Pacer]:
    token = _CURRENT.set(pacer)
    try:
        yield pacer
    finally:
        _CURRENT.reset(token)

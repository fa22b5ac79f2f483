"""The shared poller: one hub per event loop and vendor connection (docs/guide/polling-at-scale.md).

A triggerer runs every trigger in one event loop. Polling each job alone costs one status call,
one wake-up and (with one client per trigger) one socket per job. Instead each ``JobTrigger``
subscribes its job id to the :class:`Hub` of its (client classpath, client kwargs): the hub owns
one ``JobClient`` (one session, one connection pool), and one task that asks, once per interval,
for every watched id with ``client.astatuses`` (the fewest calls the vendor allows), spreads those
calls over the interval under a per-connection request budget, and hands each subscriber its own
status. The hub only fetches: what a status or an error *means* (budgets, unknown states, auth)
stays with each trigger's own ``JobWatch``, so a trigger behaves as it does polling alone.

- A trigger that ends, is cancelled or moves leaves (``Subscription`` is a context manager); the
  hub closes its client when the last one leaves, and a later subscriber gets a fresh hub.
- A client that reads a job's end before its round is over reports it (``durable_jobs.core.news``):
  that job's triggers hear of it then, not when the round's last call returns.
- An exception from ``astatuses`` is a batch error: every subscriber of that round receives it
  (an auth error thus reaches each one at once); an exception the client returns for one id is
  that job's alone. Retry-After holds every call of the connection back.
- When a round's batched calls cost more than one call per job would (a workspace full of
  foreign active runs, say), the hub polls per job for a while, then tries batching again — unless the
  client chooses its rounds itself (``JobClient.adapts_own_rounds``: Databricks follows the ended runs).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import random
import time
import weakref
from collections.abc import Callable
from typing import Any

from durable_jobs.core.client import JobClient, load_client
from durable_jobs.core.config import get_float
from durable_jobs.core.news import reporting
from durable_jobs.core.pacing import Pacer, paced
from durable_jobs.core.polling import active_state
from durable_jobs.core.status import JobStatus, NotReadThisRound

log = logging.getLogger(__name__)

#: Share of the interval a round's calls are spread over. The whole of it: the load is even, and ends are not
#: heard later for it (a round's first call reads the ends, and a client reports each end as it reads it).
SPREAD = 1.0
#: Rounds polled per job after batching cost more than per-job polling, before batching is tried again.
PER_JOB_ROUNDS = 10
MAX_BACKOFF = 60.0

Outcome = JobStatus | BaseException
HubKey = tuple[str, str]


def hub_key(classpath: str, client_kwargs: dict[str, Any]) -> HubKey:
    """(client classpath, client identity): the kwargs name the connection, region, retry settings."""
    return classpath, json.dumps(client_kwargs, sort_keys=True, default=str)


class Subscription:
    """One trigger's seat at a hub: ``await next()`` gives the job's next status or error.

    ``news_only``: a status with the same active state as the one the trigger read last is not handed over
    (``repeats`` counts it), so the trigger's task is not woken a round for nothing; errors, unknown states,
    a new state and the end always are. A trigger that counts its polls (``max_polls``) asks for every status.
    """

    def __init__(self, hub: Hub, job_id: Any, interval: float, *, news_only: bool = False) -> None:
        self.hub = hub
        self.job_id = job_id
        self.interval = interval
        self.news_only = news_only
        self.repeats = 0
        self._outcome: Outcome | None = None
        #: The active state the trigger read last (None when it last read anything else).
        self._read_active: str | None = None
        self._ready = asyncio.Event()
        self.closed = False

    def deliver(self, outcome: Outcome) -> None:
        if isinstance(self._outcome, JobStatus) and self._outcome.is_terminal:
            return  # an end not yet read is never overwritten
        if self.news_only and self._outcome is None and self._read_active is not None \
                and active_state(outcome) == self._read_active:
            self.repeats += 1
            return
        self._outcome = outcome  # otherwise the latest wins: a trigger that was busy reads the newest news
        self._ready.set()

    async def next(self) -> Outcome:
        await self._ready.wait()
        self._ready.clear()
        outcome, self._outcome = self._outcome, None
        assert outcome is not None
        self._read_active = active_state(outcome)
        return outcome

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self.hub.leave(self)

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.shield(self.close())


class Hub:
    """One vendor connection's poller in one event loop."""

    def __init__(self, key: HubKey, client: JobClient, budget: float, *,
                 on_empty: Callable[[Hub], None], rng: Callable[[], float] = random.random) -> None:
        self.key = key
        self.client = client
        self.pacer = Pacer(budget)
        self._on_empty = on_empty
        self._rng = rng
        self._subs: dict[str, set[Subscription]] = {}
        self._ids: dict[str, Any] = {}
        #: Ids whose last status was an end: their triggers are leaving, no round asks for them again.
        self._ended: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._per_job_rounds = 0
        self._failures = 0
        self._last_calls: int | None = None
        self.rounds = 0
        self.closed = False
        self._wake = asyncio.Event()

    # ------------------------------------------------------------------ subscribers
    def join(self, job_id: Any, interval: float, *, news_only: bool = False) -> Subscription:
        if self.closed:
            raise RuntimeError("hub already closed")  # the registry never hands out a closed hub
        sub = Subscription(self, job_id, interval, news_only=news_only)
        self._subs.setdefault(str(job_id), set()).add(sub)
        self._ids[str(job_id)] = job_id
        self._ended.discard(str(job_id))
        if self._task is None:
            # A context of its own: not the first subscriber's (Airflow binds each trigger's log to its task).
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"durable-jobs hub {self.key[0]}", context=contextvars.Context())
        return sub

    async def leave(self, sub: Subscription) -> None:
        subs = self._subs.get(str(sub.job_id))
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[str(sub.job_id)]
                del self._ids[str(sub.job_id)]
                self._ended.discard(str(sub.job_id))
        if not self._subs and not self.closed:
            await self.close()

    @property
    def watched(self) -> int:
        return len(self._ids)

    @property
    def interval(self) -> float:
        return min((s.interval for subs in self._subs.values() for s in subs), default=30.0)

    async def close(self) -> None:
        """No one is left: leave the registry first (a new subscriber gets a new hub), then stop and close."""
        self.closed = True
        self._on_empty(self)
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
            except Exception:  # noqa: BLE001 - the poller's own failure: already delivered or logged
                log.debug("hub task ended with an error", exc_info=True)
        try:
            await self.client.aclose()
        except Exception:  # noqa: BLE001 - closing a session must not fail a trigger that ended
            log.debug("closing the hub's job client failed", exc_info=True)

    # ------------------------------------------------------------------ polling
    async def _run(self) -> None:
        await _portal()
        # A first round soon after the first subscriber (a short random offset keeps many hubs apart).
        await asyncio.sleep(min(1.0, self.interval) * 0.1 * self._rng())
        while self._subs:
            started = time.monotonic()
            try:
                wait = await self.poll_once()
            except Exception as err:  # noqa: BLE001 - a bug here must not leave every trigger waiting forever
                log.exception("the shared poller's round failed")
                wait = self._batch_failed(err, self.interval)
            await asyncio.sleep(max(0.0, started + wait - time.monotonic()))

    async def poll_once(self) -> float:
        """One round over every watched id; the seconds from this round's start to the next."""
        ids = [job_id for key, job_id in self._ids.items() if key not in self._ended]
        if not ids:
            return self.interval
        interval = self.interval
        before = self.pacer.calls
        per_job = self._per_job_rounds > 0
        self.pacer.spread(self._expected_calls(len(ids), per_job), interval * SPREAD)
        early: set[str] = set()
        try:
            with paced(self.pacer), reporting(lambda job_id, status: self._deliver_end(job_id, status, early)):
                if per_job:
                    self._per_job_rounds -= 1
                statuses = await self._ask(ids, per_job)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a batch error: every subscriber of the round hears it
            self.rounds += 1
            return self._batch_failed(err, interval)
        self.rounds += 1
        self._failures = 0
        calls = self.pacer.calls - before
        self._last_calls = calls
        if not per_job and calls > len(ids) + 1 and not self.client.adapts_own_rounds:
            # +1: a listing page that found every watched job ended
            log.info("%s: batched status calls cost %d calls for %d jobs; polling per job for %d rounds",
                     self.client.vendor, calls, len(ids), PER_JOB_ROUNDS)
            self._per_job_rounds = PER_JOB_ROUNDS
        retry_after = 0.0
        for job_id in ids:
            key = str(job_id)
            if key in early:
                continue  # its end reached its triggers mid-round
            outcome = statuses.get(key)
            if isinstance(outcome, NotReadThisRound):
                continue  # read in a later round: no news for its triggers now
            if outcome is None:
                outcome = RuntimeError(f"{self.client.vendor} status call returned nothing for {job_id}")
            if isinstance(outcome, BaseException):
                retry_after = max(retry_after, self._retry_after(outcome))
            elif outcome.is_terminal:
                self._ended.add(key)
            for sub in list(self._subs.get(key, ())):
                sub.deliver(outcome)
        if retry_after:
            self.pacer.hold_off(retry_after)
        return max(interval, retry_after)

    def _deliver_end(self, job_id: Any, status: JobStatus, early: set[str]) -> None:
        """A client read this job's end mid-round (``durable_jobs.core.news``): its triggers hear now."""
        key = str(job_id)
        if key in early or key not in self._subs:
            return
        early.add(key)
        self._ended.add(key)
        for sub in list(self._subs[key]):
            sub.deliver(status)

    async def _ask(self, ids: list[Any], per_job: bool) -> dict[str, Outcome]:
        """Statuses by ``str(job id)``. Ids that cannot key a dict (Snowflake's list of statement handles)
        are asked one by one, as are all ids in a per-job round."""
        if per_job or not all(_hashable(i) for i in ids):
            return {str(i): r for i, r in zip(ids, await self.client.astatus_each(ids))}
        statuses = await self.client.astatuses(ids)
        return {str(k): v for k, v in statuses.items()}

    def _expected_calls(self, n: int, per_job: bool) -> int:
        """What to spread this round over: one call per job in a per-job round; else the last round's count, or
        the client's fewest calls for ``n`` jobs when that is more (a first round, new subscribers)."""
        if per_job:
            return n
        return max(1, self.client.status_calls(n), self._last_calls or 0)

    def _retry_after(self, err: BaseException) -> float:
        try:
            fault = self.client.classify(err)
        except Exception:  # noqa: BLE001 - classify must not stop the poller
            return 0.0
        return float(fault.retry_after or 0.0)

    def _batch_failed(self, err: BaseException, interval: float) -> float:
        self._failures += 1
        retry_after = self._retry_after(err)
        if retry_after:
            self.pacer.hold_off(retry_after)
        for key, subs in list(self._subs.items()):
            if key in self._ended:
                continue
            for sub in list(subs):
                sub.deliver(err)
        backoff = min(MAX_BACKOFF, 2.0 ** min(self._failures - 1, 16))
        return max(retry_after, min(interval, backoff) * (0.9 + 0.2 * self._rng()))


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


async def _portal() -> None:
    """What Airflow's triggerer gives each trigger's task: a greenback portal, so that a hook's sync SDK call
    (``get_connection`` from the event loop's thread) works in the hub's task too."""
    if os.environ.get("AIRFLOW_DISABLE_GREENBACK_PORTAL", "").lower() == "true":
        return
    try:
        import greenback
    except ImportError:  # pragma: no cover - Airflow 3 depends on it
        return
    await greenback.ensure_portal()


# ---------------------------------------------------------------------- the registry
_HUBS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[HubKey, Hub]] = weakref.WeakKeyDictionary()


def hubs() -> dict[HubKey, Hub]:
    """The running loop's hubs (for tests and the benchmark)."""
    return _HUBS.setdefault(asyncio.get_running_loop(), {})


def request_budget() -> float:
    """``[durable_jobs] poll_requests_per_second``: one connection's status calls per second, at most."""
    return get_float("poll_requests_per_second")


def subscribe(classpath: str, client_kwargs: dict[str, Any], job_id: Any, interval: float,
              *, make_client: Callable[[], JobClient] | None = None, news_only: bool = False) -> Subscription:
    """Join the running loop's hub for this connection (created on first use)."""
    table = hubs()
    key = hub_key(classpath, client_kwargs)
    hub = table.get(key)
    if hub is None:
        client = make_client() if make_client is not None else load_client(classpath, client_kwargs)
        hub = Hub(key, client, request_budget(), on_empty=lambda h: _forget(table, h))
        table[key] = hub
    return hub.join(job_id, interval, news_only=news_only)


def _forget(table: dict[HubKey, Hub], hub: Hub) -> None:
    if table.get(hub.key) is hub:
        del table[hub.key]


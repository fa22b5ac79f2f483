"""The shared poller (``durable_jobs.core.hub``) through the Databricks emulator and moto behind the fault
proxy: the real hooks (aiohttp / aiobotocore) over loopback HTTP, the network boundary untouched.

The triggers run as Airflow's triggerer runs them: one event loop, each ``run()`` in its own task to the end.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from durable_jobs.core import hub as hub_module
from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.hub import Hub, hub_key, hubs, subscribe
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.core.trigger import JobTrigger
from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient


@pytest.fixture(autouse=True)
def shared_poller_on(monkeypatch):
    """The hub is opt-in (``[durable_jobs] shared_poller``, off by default): these tests turn it on."""
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__SHARED_POLLER", "True")

REQUEST = {"run_name": "hub", "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/p"}}]}
CLIENT = DatabricksJobClient(retry_limit=1, retry_delay=0.01)


def submit(n: int) -> list[int]:
    client = DatabricksJobClient(retry_limit=1, retry_delay=0.01)  # this test's emulator (its hook is cached)
    return [client.submit(REQUEST, client.format_key(new_nonce())) for _ in range(n)]


def trigger(job_id, interval: float = 0.3, **kw) -> JobTrigger:
    return JobTrigger(client_classpath=CLIENT.classpath(), client_kwargs=CLIENT.serialize(), job_id=job_id,
                      poll_interval=interval, jitter=0.0, **kw)


async def run_to_end(t: JobTrigger) -> dict:
    events = [e.payload async for e in t.run()]
    await t.cleanup()
    assert len(events) == 1, events
    return events[0]


def calls(emulator) -> dict[str, int]:
    return emulator.ledger()["calls"]


def spent_since(emulator, before: dict[str, int]) -> dict[str, int]:
    """The emulator's calls per path since ``before`` (a ``calls()`` snapshot)."""
    return {k: v - before.get(k, 0) for k, v in calls(emulator).items()}


async def each_next_then_close(subs) -> list:
    """What each subscription received next, in order; then every one leaves its hub."""
    got = [await s.next() for s in subs]
    for s in subs:
        await s.close()
    return got


async def delivered(subs, timeout: float = 10.0) -> list:
    """What each subscription received next; a round that delivered nothing to one of them fails the test."""
    return await asyncio.wait_for(asyncio.gather(*(s.next() for s in subs)), timeout)


async def parked(emulator, newer_than: int = 0) -> int:
    """The id of a request parked on one of the emulator's holds (one newer than hold ``newer_than``), once one is:
    its client waits for the reply while the test acts. Only a request that never comes reaches the bound."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        held = [h["id"] for h in emulator.holds()["held"] if h["id"] > newer_than]
        if held:
            return held[0]
        await asyncio.sleep(0.005)
    raise AssertionError(f"no request parked on a hold: {emulator.holds()}")


def hand_driven(ids, interval: float = 2.0):
    """Subscriptions for ``ids`` and their hub, its own polling task stopped: the test drives the rounds."""
    subs = [subscribe(CLIENT.classpath(), CLIENT.serialize(), i, interval) for i in ids]
    subs[0].hub._task.cancel()
    return subs, subs[0].hub


def one_round(ids, emulator) -> tuple[list, dict[str, int]]:
    """One hand-driven round of a hub watching ``ids``: what each subscription received, and the emulator calls
    it cost."""

    async def main():
        subs, the_hub = hand_driven(ids)
        before = dict(calls(emulator))
        await the_hub.poll_once()
        got = await each_next_then_close(subs)
        return got, spent_since(emulator, before)

    return asyncio.run(main())


@pytest.fixture(autouse=True)
def budget(monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_REQUESTS_PER_SECOND", "200")


def test_many_triggers_share_one_client_and_few_calls(databricks_conn_env):
    """30 runs ending at different times: every trigger gets its own right event; each round reads the runs
    that ended from one page of the completed-runs listing and the others from the active listing (2 pages of
    25), instead of 30 gets; a run is read by its own get only when it is the last one watched."""
    outcomes = [{"outcome": "FAILED" if i % 3 == 0 else "SUCCESS", "running_seconds": 0.5 + 0.05 * i}
                for i in range(30)]
    databricks_conn_env.configure(outcomes=outcomes)
    ids = submit(30)
    seen_hubs: list[Hub] = []

    async def main():
        tasks = [asyncio.create_task(run_to_end(trigger(i))) for i in ids]
        await asyncio.sleep(0.05)
        seen_hubs.extend(hubs().values())
        out = await asyncio.gather(*tasks)
        return out, dict(hubs())

    events, left = asyncio.run(main())

    assert [e["job_id"] for e in events] == ids
    for i, event in enumerate(events):
        assert event["status"] == ("failed" if i % 3 == 0 else "success"), event
    assert len(seen_hubs) == 1 and left == {}, "one hub for the connection, gone once no trigger is left"
    assert seen_hubs[0].closed and seen_hubs[0].client._ahook is None, "the shared session was closed"
    c = calls(databricks_conn_env)
    rounds = seen_hubs[0].rounds
    per_job_would = sum(1 for _ in range(rounds)) * 30  # an upper bound of what 30 triggers would ask
    assert c.get("jobs/runs/get", 0) <= rounds, c  # a round watching 1 run asks for it alone
    # a round: the completed page, two active pages, the completed page once more at its halfway
    assert c["jobs/runs/list"] <= 4 * rounds, c
    assert c.get("jobs/runs/get", 0) + c["jobs/runs/list"] < per_job_would / 3, (c, rounds)


def test_foreign_active_runs_make_the_hub_follow_the_ended_runs(databricks_conn_env):
    """Ours first, then 10x as many newer foreign runs: the active listing's first page shows none of ours, so
    the next rounds follow the completed listing (its first page at the round's start and halfway); each round,
    the first one included, reads one of the four runs by id (a tenth, at least one), the others hearing nothing
    until theirs is read, instead of four gets a round (more in tests/unit/test_hub_feed.py)."""
    databricks_conn_env.configure(running_seconds=60)
    ours = submit(4)
    submit(40)  # someone else's, newer: listed first

    async def main():
        table = hubs()
        sub = [subscribe(CLIENT.classpath(), CLIENT.serialize(), i, 2.0) for i in ours]
        the_hub = table[hub_key(CLIENT.classpath(), CLIENT.serialize())]
        the_hub._task.cancel()  # drive the rounds by hand
        spent = []
        for _ in range(4):
            before = dict(calls(databricks_conn_env))
            await the_hub.poll_once()
            spent.append(spent_since(databricks_conn_env, before))
        statuses = await delivered(sub)  # each read once by now
        for s in sub:
            await s.close()
        return spent, statuses, the_hub

    spent, statuses, the_hub = asyncio.run(main())

    assert spent[0].get("jobs/runs/list") == 2 and spent[0].get("jobs/runs/get") == 1, spent
    for round_ in spent[1:]:
        assert round_.get("jobs/runs/list") == 2 and round_.get("jobs/runs/get") == 1, spent
    assert all(isinstance(s, JobStatus) and s.phase is JobPhase.ACTIVE for s in statuses)
    assert the_hub.closed


def test_an_end_reaches_its_trigger_on_the_rounds_first_call(databricks_conn_env, monkeypatch):
    """One of ten runs has ended: the round's first call (the completed-runs listing) shows it, and its trigger
    hears of it then, while the round still has its active-runs page to read (spread: 0.5 s later)."""
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_REQUESTS_PER_SECOND", "4")
    databricks_conn_env.configure(outcomes=[{"outcome": "FAILED", "running_seconds": 0.05}]
                                  + [{"outcome": "SUCCESS", "running_seconds": 60}] * 9, pending_seconds=0.0)
    ids = submit(10)
    time.sleep(0.3)

    async def main():
        subs, the_hub = hand_driven(ids)
        before = calls(databricks_conn_env).get("jobs/runs/list", 0)
        round_ = asyncio.create_task(the_hub.poll_once())
        ended = await subs[0].next()
        lists_then, round_over_then = calls(databricks_conn_env)["jobs/runs/list"] - before, round_.done()
        await round_
        others = [await s.next() for s in subs[1:]]
        for s in subs:
            await s.close()
        return ended, lists_then, round_over_then, others

    ended, lists_then, round_over_then, others = asyncio.run(main())

    assert isinstance(ended, JobStatus) and ended.state == "TERMINATED:FAILED", ended
    assert lists_then == 1 and not round_over_then
    assert all(isinstance(o, JobStatus) and o.phase is JobPhase.ACTIVE for o in others), others
    assert calls(databricks_conn_env).get("jobs/runs/get", 0) == 0


def test_runs_that_end_while_the_round_lists_are_read_from_the_completed_listing(databricks_conn_env):
    """Five runs end between the round's completed-runs page and its active-runs page (the emulator's clock is
    stepped there): the active page no longer shows them, so the round asks the completed listing's first
    page again, where they now stand, instead of five runs/get."""
    databricks_conn_env.configure(speed=0, running_seconds=10, pending_seconds=0.0)
    ids = submit(5)

    async def main():
        subs, the_hub = hand_driven(ids)
        before = dict(calls(databricks_conn_env))
        round_ = asyncio.create_task(the_hub.poll_once())  # 2 calls expected over its 2 s: 1 s apart
        while calls(databricks_conn_env).get("jobs/runs/list", 0) - before.get("jobs/runs/list", 0) < 1:
            await asyncio.sleep(0.01)
        databricks_conn_env.advance(20)  # every run ends before the active page is read
        await round_
        got = await each_next_then_close(subs)
        return got, spent_since(databricks_conn_env, before)

    got, spent = asyncio.run(main())

    assert [g.state for g in got] == ["TERMINATED:SUCCESS"] * 5, got
    assert spent.get("jobs/runs/list") == 3 and spent.get("jobs/runs/get", 0) == 0, spent


def test_a_run_that_ends_mid_round_is_heard_at_the_rounds_halfway(databricks_conn_env):
    """60 runs, so a round reads the completed page and three active pages, spread over its interval. One run
    ends after the first active page (the emulator's clock is stepped there): the completed runs are listed
    again once half the round has passed, so its trigger hears of it then, before the last active page is
    asked, instead of after it."""
    databricks_conn_env.configure(speed=0, pending_seconds=0.0, outcomes=[{"outcome": "FAILED",
                                  "running_seconds": 5}] + [{"outcome": "SUCCESS", "running_seconds": 60}] * 59)
    ids = submit(60)

    async def main():
        subs, the_hub = hand_driven(ids, interval=5.0)  # 4 calls expected: 1.25 s apart (above a tick)
        before = dict(calls(databricks_conn_env))
        round_ = asyncio.create_task(the_hub.poll_once())
        while spent_since(databricks_conn_env, before).get("jobs/runs/list", 0) < 2:
            await asyncio.sleep(0.01)
        databricks_conn_env.advance(6)  # the first run ends after the first active page
        ended = await subs[0].next()
        then, round_over_then = spent_since(databricks_conn_env, before), round_.done()
        await round_
        others = await each_next_then_close(subs[1:])
        await subs[0].close()
        return ended, then, round_over_then, others, spent_since(databricks_conn_env, before)

    ended, then, round_over_then, others, spent = asyncio.run(main())

    assert isinstance(ended, JobStatus) and ended.state == "TERMINATED:FAILED", ended
    # completed, active 1, active 2, completed again at the halfway; active 3 not yet asked, no get
    assert then["jobs/runs/list"] == 4 and then.get("jobs/runs/get", 0) == 0 and not round_over_then, then
    assert spent["jobs/runs/list"] == 5, spent
    assert all(isinstance(o, JobStatus) and o.phase is JobPhase.ACTIVE for o in others), others


class VirtualTime:
    """A clock for a ``Pacer`` that its event loop keeps too (:meth:`run`): the loop never sleeps, it moves the
    clock on to its next timer. The pacer tests prove the pacer's arithmetic (its slots, ticks and groups), so they
    read times from this clock: on the wall clock a loaded machine wakes the loop late, by more than some of their
    bounds allow (0.1 s above the slowest slot). It starts at an arbitrary phase of the pacer's ticks, as a real
    monotonic clock does; every phase gives the same verdicts."""

    def __init__(self, start: float = 1000.37) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def run(self, coro):
        with asyncio.Runner(loop_factory=lambda: _VirtualTimeLoop(self)) as runner:
            return runner.run(coro)


class _VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: VirtualTime) -> None:
        super().__init__()
        self._virtual = clock
        select = self._selector.select

        def select_or_move_on(timeout=None):
            if timeout is None:  # no timer: only I/O (none in these tests) can wake the loop
                return select(None)
            events = select(0)
            if not events and timeout > 0:
                clock.now += timeout  # nothing to do before the next timer: it is due now
            return events

        self._selector.select = select_or_move_on

    def time(self) -> float:
        return self._virtual.now


def test_calls_beyond_what_a_round_expected_keep_its_spacing():
    """The pacer spreads 2 expected calls over 0.4 s: two more calls than expected keep the 0.2 s spacing (the
    round runs over) instead of following at the budget's pace in a burst."""
    from durable_jobs.core.pacing import Pacer

    async def main():
        pacer = Pacer(budget=1000)
        pacer.spread(2, 0.4)
        t0 = time.monotonic()
        for _ in range(4):
            await pacer.wait()
        return time.monotonic() - t0

    took = asyncio.run(main())

    assert took >= 0.55, took  # 3 gaps of 0.2 s; at the budget's pace the last two would take 2 ms


def test_many_calls_a_client_expects_end_within_the_round():
    """The pacer planned 2 calls over 1 s; a client then says 10 more come (one get per ended job): they fit in
    what is left of the round's window instead of taking ten 0.5 s spacings (and, past its window, in half a
    window: not in a burst)."""
    from durable_jobs.core.pacing import Pacer

    clock = VirtualTime()

    async def main():
        pacer = Pacer(budget=1000, clock=clock)
        pacer.spread(2, 1.0)
        t0 = clock()
        pacer.expect(10)
        for _ in range(10):
            await pacer.wait()
        return clock() - t0

    took = clock.run(main())

    assert 0.7 <= took < 1.5, took  # 9 gaps of 0.1 s; at the round's spacing they would take 4.5 s


def test_known_calls_past_the_rounds_window_take_half_a_window_not_a_burst():
    """The round's 1 s window is over when a client says 5 more calls come: they are spread over half a
    window (0.1 s apart), not sent at the budget's pace."""
    from durable_jobs.core.pacing import Pacer

    clock = VirtualTime()

    async def main():
        pacer = Pacer(budget=1000, clock=clock)
        pacer.spread(1, 1.0)
        await asyncio.sleep(1.1)
        pacer.expect(5)
        t0 = clock()
        for _ in range(5):
            await pacer.wait()
        return clock() - t0

    took = clock.run(main())

    assert 0.35 <= took < 1.0, took  # 4 gaps of 0.1 s; at the budget's pace, 4 ms


def released(pacer, clock: VirtualTime, calls: int, *, hold_after: int | None = None,
             hold: float = 0.0) -> list[float]:
    """The times ``calls`` concurrent ``pacer.wait()`` return (one per job, as ``astatus_each`` asks), from the
    first, on ``clock`` (the pacer's); after the ``hold_after``-th, the vendor asks to hold off ``hold`` seconds."""

    async def main():
        times: list[float] = []

        async def one():
            await pacer.wait()
            times.append(clock())
            if hold_after is not None and len(times) == hold_after:
                pacer.hold_off(hold)

        await asyncio.gather(*(one() for _ in range(calls)))
        return [t - times[0] for t in times]

    return clock.run(main())


def together(times: list[float]) -> list[int]:
    """The sizes of the groups of requests that left together (less than 20 ms apart)."""
    sizes = [1]
    for before, after in zip(times, times[1:]):
        if after - before < 0.02:
            sizes[-1] += 1
        else:
            sizes.append(1)
    return sizes


def test_requests_closer_than_a_tick_go_out_together_on_the_ticks():
    """20 requests spread over 1 s (0.05 s apart) leave together on the pacer's ticks, a few at a time: the same
    pace a second, a handful of loop wake-ups instead of twenty."""
    from durable_jobs.core.pacing import MAX_TOGETHER, Pacer

    clock = VirtualTime()
    pacer = Pacer(budget=1000, clock=clock)
    pacer.spread(20, 1.0)
    times = released(pacer, clock, 20)

    groups = together(times)
    assert len(groups) <= 7, groups  # the first at once, then a tick every 0.4 s; spaced alone: 20 groups of 1
    assert max(times) < 1.4, times  # no slower than the spread, give or take a tick
    # a few sockets at once, not the round's twenty (the median: a stalled loop may run two ticks together)
    assert sorted(groups)[len(groups) // 2] <= MAX_TOGETHER, groups


def test_at_most_a_few_requests_share_a_tick_however_close_their_spacing():
    """1,000 jobs polled one by one at 50 requests/s (0.02 s apart): ticks of a few requests each, not a
    second's fifty, so that a connection holds a few sockets at once."""
    from durable_jobs.core.pacing import MAX_TOGETHER, Pacer

    clock = VirtualTime()
    pacer = Pacer(budget=50, clock=clock)
    pacer.spread(1000, 5.0)
    times = released(pacer, clock, 30)

    groups = together(times)
    assert sorted(groups)[len(groups) // 2] <= MAX_TOGETHER, groups  # a one-second tick would hold 50
    assert len(groups) < 15, groups  # grouped: spaced alone it would be 30 wake-ups
    assert 0.45 < max(times) < 0.9, times  # 50 a second: 30 requests take about 0.6 s


def test_requests_spaced_a_tick_or_more_apart_keep_their_own_times():
    """1.2 s apart: each request at its own slot, never held back to a one-second tick (2 s, 3 s)."""
    from durable_jobs.core.pacing import TICK, Pacer

    assert TICK < 1.2
    clock = VirtualTime()
    pacer = Pacer(budget=1000, clock=clock)
    pacer.spread(3, 3.6)
    times = released(pacer, clock, 3)

    assert 1.18 <= times[1] < 1.35 and 2.38 <= times[2] < 2.55, times


def test_a_retry_after_reaches_requests_already_waiting_for_their_tick():
    """Ten requests wait for their ticks when the vendor says Retry-After 0.6 s after the first: none of the
    others goes before the hold is over."""
    from durable_jobs.core.pacing import Pacer

    clock = VirtualTime()
    pacer = Pacer(budget=1000, clock=clock)
    pacer.spread(10, 0.5)
    times = released(pacer, clock, 10, hold_after=1, hold=0.6)

    assert all(t >= 0.58 for t in times[1:]), times
    assert len(times) == 10 and pacer.calls == 10


def test_a_caller_late_for_its_slot_does_not_wait_for_a_tick():
    """The next page of a listing is asked after the last one's answer: when its slot has passed it goes at
    once, so a round of sequential pages is not stretched to a tick per page."""
    from durable_jobs.core.pacing import Pacer

    clock = VirtualTime()

    async def main():
        pacer = Pacer(budget=1000, clock=clock)
        pacer.spread(10, 0.5)  # 0.05 s apart
        waited = []
        for _ in range(5):
            t = clock()
            await pacer.wait()
            waited.append(clock() - t)
            await asyncio.sleep(0.08)  # the page's answer takes longer than the spacing
        return waited

    waited = clock.run(main())

    assert max(waited) < 0.03, waited


def test_one_request_after_another_keeps_the_spacing_on_few_ticks():
    """Ten requests asked one after another, 0.1 s apart (a listing's pages, answered at once): the one held
    back to a tick takes, when it goes, the slots that passed while it waited, so the ten keep the spacing's
    pace (about 0.9 s) in a few wake-ups, rather than two a tick (about 2.5 s)."""
    from durable_jobs.core.pacing import Pacer

    clock = VirtualTime()

    async def main():
        pacer = Pacer(budget=1000, clock=clock)
        pacer.spread(10, 1.0)  # 0.1 s apart: ticks of 0.5 s (MAX_TOGETHER spacings)
        times = []
        for _ in range(10):
            await pacer.wait()
            times.append(clock())
        return [t - times[0] for t in times]

    times = clock.run(main())

    assert 0.85 <= times[-1] < 1.5, times  # never before the tenth slot, at most a tick after it
    assert len(together(times)) <= 4, times  # the first at once, then a tick every 0.5 s


def test_a_connection_that_was_idle_sends_no_backlog():
    """Slots left unused while no request waited are not taken later: after an idle second, six requests at once
    send one at once and the others on the ticks after it, not six together."""
    from durable_jobs.core.pacing import Pacer

    clock = VirtualTime()
    pacer = Pacer(budget=1000, clock=clock)
    pacer.spread(10, 1.0)  # 0.1 s apart
    clock.run(pacer.wait())
    clock.sleep(1.2)
    times = released(pacer, clock, 6)

    assert together(times)[0] == 1 and times[1] >= 0.09, times

def test_foreign_runs_that_ended_later_cost_one_page_then_gets(databricks_conn_env):
    """Ours ended first, then 30 foreign runs ended: the completed listing's first page shows none of ours, so
    it stops there; the active listing shows none either, nor does the completed listing's first page asked
    again (for runs that ended while the round listed); each of ours is read by its own runs/get."""
    databricks_conn_env.configure(running_seconds=0.05, pending_seconds=0.0)
    ours = submit(3)
    time.sleep(0.2)
    submit(30)  # someone else's, ended after ours: listed first
    time.sleep(0.3)

    got, spent = one_round(ours, databricks_conn_env)

    assert [g.state for g in got] == ["TERMINATED:SUCCESS"] * 3, got
    assert spent.get("jobs/runs/list") == 3 and spent.get("jobs/runs/get") == 3, spent


def test_the_completed_listing_stops_at_its_first_page_without_ours(databricks_conn_env):
    """25 of ours ended after 100 foreign runs did; 5 of ours still run. The completed listing's first page shows
    our 25, its second none of ours: it stops there (older pages hold no newer end), however many it found
    before; one active page shows the 5. Three pages, no get."""
    databricks_conn_env.configure(speed=0, pending_seconds=0.0, outcomes=(
        [{"outcome": "SUCCESS", "running_seconds": 1}] * 100 + [{"outcome": "SUCCESS", "running_seconds": 10}] * 25
        + [{"outcome": "SUCCESS", "running_seconds": 600}] * 5))
    submit(100)  # someone else's, ended first
    ours = submit(30)
    databricks_conn_env.advance(20)

    got, spent = one_round(ours, databricks_conn_env)

    assert [g.state for g in got[:25]] == ["TERMINATED:SUCCESS"] * 25, got[:25]
    assert all(g.phase is JobPhase.ACTIVE for g in got[25:]), got[25:]
    assert spent.get("jobs/runs/list") == 3 and spent.get("jobs/runs/get", 0) == 0, spent


def test_a_run_that_slips_between_two_active_pages_keeps_its_status_a_round_without_a_get(databricks_conn_env):
    """60 runs (three active pages, newest first). In the second round the two newest end right after the first
    active page: the emulator pages by offset, so the next page starts two runs later and the two runs at the
    old page boundary are shown by no listing. They were active a round ago: each keeps that status this round
    (no runs/get), and the third round, whose pages do not move, shows them again."""
    databricks_conn_env.configure(speed=0, pending_seconds=0.0, outcomes=[{"outcome": "SUCCESS",
                                  "running_seconds": 60}] * 58 + [{"outcome": "SUCCESS", "running_seconds": 5}] * 2)
    ids = submit(60)  # the last two submitted are the newest: the first active page's head

    async def main():
        subs, the_hub = hand_driven(ids, interval=0.4)
        await the_hub.poll_once()
        first = await delivered(subs)
        before = dict(calls(databricks_conn_env))
        # The round's pages can go out back to back (slots that passed while one waited for its tick): the clock
        # is stepped while active page 1's reply is held, its page read, so that page 2 is read after it.
        databricks_conn_env.add_hold("jobs/runs/list", "after", count=2)  # the completed page, active page 1
        round_ = asyncio.create_task(the_hub.poll_once())
        completed_page = await parked(databricks_conn_env)
        databricks_conn_env.release(completed_page)
        await parked(databricks_conn_env, newer_than=completed_page)
        databricks_conn_env.advance(6)  # the two newest end
        databricks_conn_env.release()
        await round_
        second, second_spent = await delivered(subs), spent_since(databricks_conn_env, before)
        carried = set(the_hub.client.carried)  # the window: runs the second round's listings did not show
        before = dict(calls(databricks_conn_env))
        await the_hub.poll_once()
        third_spent = spent_since(databricks_conn_env, before)
        third = await delivered(subs[:58])
        for s in subs:
            await s.close()
        return first, second, second_spent, carried, third, third_spent

    first, second, second_spent, carried, third, third_spent = asyncio.run(main())

    assert all(f.phase is JobPhase.ACTIVE for f in first), first
    assert [s.state for s in second[58:]] == ["TERMINATED:SUCCESS"] * 2, second[58:]
    assert all(s.phase is JobPhase.ACTIVE for s in second[:58]), second
    assert second_spent.get("jobs/runs/get", 0) == 0, second_spent
    assert len(carried) == 2, "the two runs at the old page boundary were shown by no listing"
    assert all(t.phase is JobPhase.ACTIVE for t in third), third
    assert third_spent.get("jobs/runs/get", 0) == 0, third_spent


def test_a_run_no_listing_shows_two_rounds_in_a_row_is_read_by_id(databricks_conn_env):
    """Two of five runs vanish from every listing (their history expired): the round after, they keep the
    status the last listing gave them, without a call; the round after that, each is read by its own runs/get,
    which says it is gone."""
    databricks_conn_env.configure(running_seconds=60, pending_seconds=0.0)
    ids = submit(5)

    async def main():
        subs, the_hub = hand_driven(ids)
        got, spent = [], []
        for round_ in range(3):
            if round_ == 1:
                for gone in ids[:2]:
                    databricks_conn_env.expire(gone)
            before = dict(calls(databricks_conn_env))
            await the_hub.poll_once()
            spent.append(spent_since(databricks_conn_env, before))
            got.append(await delivered(subs))
        for s in subs:
            await s.close()
        return got, spent

    got, spent = asyncio.run(main())

    assert all(g.phase is JobPhase.ACTIVE for g in got[1]), got[1]
    assert spent[1].get("jobs/runs/get", 0) == 0, spent[1]
    assert [g.phase for g in got[2][:2]] == [JobPhase.MISSING] * 2, got[2]
    assert spent[2].get("jobs/runs/get") == 2, spent[2]
    assert all(g.phase is JobPhase.ACTIVE for g in got[2][2:]), got[2]


def test_a_trigger_cancelled_mid_batch_leaves_and_the_others_get_their_events(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=0.6)
    ids = submit(3)
    databricks_conn_env.add_hold("jobs/runs/list", count=1)

    async def main():
        tasks = [asyncio.create_task(run_to_end(trigger(i))) for i in ids]
        deadline = time.monotonic() + 30  # the hub's first round comes at once: only a hang reaches this
        while not databricks_conn_env.holds()["held"] and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert databricks_conn_env.holds()["held"], "the first round's listing is in flight"
        the_hub = next(iter(hubs().values()))
        tasks[0].cancel()  # the task is moved away while its batch is in flight
        await asyncio.sleep(0.05)
        watched_after_cancel = the_hub.watched
        databricks_conn_env.release()
        rest = await asyncio.gather(*tasks[1:])
        with pytest.raises(asyncio.CancelledError):
            await tasks[0]
        return watched_after_cancel, rest, dict(hubs())

    watched, rest, left = asyncio.run(main())

    assert watched == 2
    assert [e["status"] for e in rest] == ["success", "success"]
    assert left == {}


def test_subscribing_while_the_last_one_leaves_gets_a_fresh_hub(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=60)
    first, second = submit(2)

    async def main():
        a = subscribe(CLIENT.classpath(), CLIENT.serialize(), first, 5.0)
        leaving = asyncio.create_task(a.close())
        await asyncio.sleep(0)  # the leave has started: the hub left the registry already
        b = subscribe(CLIENT.classpath(), CLIENT.serialize(), second, 5.0)
        await leaving
        status = await asyncio.wait_for(b.next(), 30)  # its first round: at once, bar a hang
        await b.close()
        return a.hub, b.hub, status, dict(hubs())

    old, new, status, left = asyncio.run(main())

    assert old is not new and old.closed and new.closed
    assert isinstance(status, JobStatus) and status.phase is JobPhase.ACTIVE
    assert left == {}


def test_per_job_errors_reach_one_job_and_batch_errors_reach_all(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=0.05, pending_seconds=0.0)
    ids = submit(2)
    time.sleep(0.3)  # both ended

    async def round_with(fault_path: str):
        databricks_conn_env.add_fault(fault_path, status=500, count=1)
        subs, the_hub = hand_driven(ids)
        if fault_path == "jobs/runs/get":
            the_hub._per_job_rounds = 1  # a round of one runs/get each (a listing would show both ends)
        await the_hub.poll_once()
        got = await each_next_then_close(subs)
        databricks_conn_env.clear_faults()
        return got

    per_job = asyncio.run(round_with("jobs/runs/get"))
    per_batch = asyncio.run(round_with("jobs/runs/list"))

    errors = [o for o in per_job if isinstance(o, BaseException)]
    assert len(errors) == 1, per_job
    assert [o.state for o in per_job if isinstance(o, JobStatus)] == ["TERMINATED:SUCCESS"]
    assert all(isinstance(o, BaseException) for o in per_batch) and per_batch[0] is per_batch[1]


def test_a_news_only_trigger_is_woken_for_news_not_for_the_same_running_state(databricks_conn_env):
    """Through the emulator, hand-driven rounds: the first RUNNING wakes both seats; the next rounds' RUNNING
    wakes only the seat that asked for every status, and the news-only seat counts them; a failed round wakes
    both, and so does the RUNNING after it (the trigger's watch must hear the vendor answered again)."""
    databricks_conn_env.configure(running_seconds=60, pending_seconds=0.0)
    (run_id,) = submit(1)

    async def main():
        hub_subs, the_hub = hand_driven([run_id])
        news = the_hub.join(run_id, 2.0, news_only=True)
        every = hub_subs[0]
        woken = {"news": [], "every": []}

        async def round_then_read(fault: bool = False):
            if fault:
                databricks_conn_env.add_fault("jobs/runs/list", status=500, count=-1)
                databricks_conn_env.add_fault("jobs/runs/get", status=500, count=-1)
            await the_hub.poll_once()
            databricks_conn_env.clear_faults()
            await asyncio.sleep(0)
            for name, sub in (("news", news), ("every", every)):
                if sub._ready.is_set():
                    got = await sub.next()
                    woken[name].append(got.state if isinstance(got, JobStatus) else type(got).__name__)

        await round_then_read()
        await round_then_read()
        await round_then_read()
        await round_then_read(fault=True)
        await round_then_read()
        repeats = news.repeats
        await news.close()
        await every.close()
        return woken, repeats

    woken, repeats = asyncio.run(main())

    assert woken["every"] == ["RUNNING", "RUNNING", "RUNNING", woken["every"][3], "RUNNING"], woken
    assert woken["every"][3] not in ("RUNNING", "PENDING"), "the failed round reached it as an error"
    assert woken["news"][0] == "RUNNING" and len(woken["news"]) == 3, woken
    assert woken["news"][1] == woken["every"][3] and woken["news"][2] == "RUNNING", woken
    assert repeats == 2, "the two rounds that said RUNNING again"


def test_a_trigger_counting_its_polls_still_hears_every_round_through_the_hub(databricks_conn_env):
    """``max_polls`` counts statuses: a trigger that has it asks the hub for every one, so its poll limit fires
    after that many rounds, while a trigger without one waits for the end."""
    databricks_conn_env.configure(running_seconds=60, pending_seconds=0.0)
    limited, plain = submit(2)

    async def main():
        limited_task = asyncio.create_task(run_to_end(trigger(limited, interval=0.2, max_polls=3)))
        plain_task = asyncio.create_task(run_to_end(trigger(plain, interval=0.2)))
        event = await asyncio.wait_for(limited_task, 30)  # three 0.2 s rounds; only a hang reaches 30 s
        the_hub = next(iter(hubs().values()))
        (plain_sub,) = the_hub._subs[str(plain)]
        # Rounds come every 0.2 s, but a loaded machine can make a few of them late: wait for the third repeat
        # rather than for a fixed time (a trigger woken for each RUNNING counts none and fails at the bound).
        deadline = time.monotonic() + 30
        while plain_sub.repeats < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        repeats = plain_sub.repeats
        plain_task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await plain_task
        return event, repeats

    event, repeats = asyncio.run(main())

    assert event["status"] == "poll_limit" and "after 3 polls" in event["message"], event
    assert repeats >= 3, "the trigger without max_polls was not woken for the same RUNNING each round"


def test_an_auth_error_reaches_every_trigger_at_once_naming_the_connection(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=60)
    ids = submit(5)
    databricks_conn_env.add_fault("jobs/runs/list", status=403, count=-1)

    async def main():
        started = time.monotonic()
        events = await asyncio.gather(*(run_to_end(trigger(i, interval=0.2)) for i in ids))
        return events, time.monotonic() - started

    events, took = asyncio.run(main())

    assert {e["error"] for e in events} == {"VendorAuthError"}
    assert all("databricks_default" in e["message"] for e in events)
    assert calls(databricks_conn_env)["jobs/runs/list"] == 1, "one refused call, not one per trigger"
    # At once means not after the 600 s error budget a transient error would get: 60 s leaves a loaded machine
    # room for the first round (the client's session, the hook's connection) without blurring that.
    assert took < 60


def test_retry_after_holds_the_connection_back(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=60)
    ids = submit(3)
    databricks_conn_env.add_fault("jobs/runs/list", status=429, count=1, retry_after=2)

    async def main():
        subs = [subscribe(CLIENT.classpath(), CLIENT.serialize(), i, 0.2) for i in ids]
        the_hub = subs[0].hub
        the_hub._task.cancel()
        # Timed from before the 429: its hold ends 2 s after a moment later than t0, whatever the machine's
        # speed (timed from after the first round, a slow first round ate into the 2 s).
        t0 = time.monotonic()
        wait = await the_hub.poll_once()
        failed = [await s.next() for s in subs]
        await the_hub.poll_once()  # its first call waits for the Retry-After
        took = time.monotonic() - t0
        ok = [await s.next() for s in subs]
        for s in subs:
            await s.close()
        return wait, failed, took, ok

    wait, failed, took, ok = asyncio.run(main())

    assert wait >= 2
    assert all(isinstance(f, BaseException) for f in failed)
    assert CLIENT.classify(failed[0]).retry_after == 2
    assert took >= 1.99
    assert all(isinstance(s, JobStatus) for s in ok)


def test_the_request_budget_spreads_a_round(databricks_conn_env, monkeypatch):
    """Per-job polling at a budget of 20 requests/s: 10 gets take about half a second, not one burst."""
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_REQUESTS_PER_SECOND", "20")
    databricks_conn_env.configure(running_seconds=60)
    ids = submit(10)

    async def main():
        the_hub = Hub(("x", "y"), DatabricksJobClient(retry_limit=1, retry_delay=0.01),
                      hub_module.request_budget(), on_empty=lambda h: None)
        subs = [the_hub.join(i, 0.01) for i in ids]
        the_hub._task.cancel()
        the_hub._per_job_rounds = 1
        t0 = time.monotonic()
        await the_hub.poll_once()
        took = time.monotonic() - t0
        for s in subs:
            await s.close()
        return took

    took = asyncio.run(main())

    assert 0.4 <= took < 10, took  # about 0.5 s; the bound is only against a hang, on a loaded machine too


def test_the_shared_poller_can_be_turned_off(databricks_conn_env, monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__SHARED_POLLER", "False")
    databricks_conn_env.configure(running_seconds=0.3)
    ids = submit(3)

    async def main():
        return await asyncio.gather(*(run_to_end(trigger(i, interval=0.1)) for i in ids))

    events = asyncio.run(main())

    assert [e["status"] for e in events] == ["success"] * 3
    assert calls(databricks_conn_env).get("jobs/runs/list", 0) == 0


def test_aws_batch_describes_a_hundred_jobs_a_call(aws):
    from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient

    client = BatchJobClient(job_queue="durable-queue", job_name="hub")
    batch = aws.client("batch", direct=True)
    ids = [batch.submit_job(jobName=f"hub-{n}", jobQueue="durable-queue", jobDefinition="durable-job-def")["jobId"]
           for n in range(150)]
    aws.proxy.clear()

    async def main():
        subs = [subscribe(client.classpath(), client.serialize(), i, 10.0) for i in ids]
        the_hub = subs[0].hub
        the_hub._task.cancel()
        await the_hub.poll_once()
        got = await each_next_then_close(subs)
        return got

    got = asyncio.run(main())

    assert all(isinstance(s, JobStatus) for s in got)
    assert aws.proxy.calls.get("batch:DescribeJobs") == 2, aws.proxy.calls


def test_snowflake_statement_lists_are_watched_one_by_one(snowflake_emulator):
    """Snowflake's job id is a list of statement handles (it cannot key a dict): each is asked alone."""
    import uuid

    from durable_jobs.providers.snowflake.clients.snowflake_sql_api import SnowflakeSqlApiJobClient

    client = SnowflakeSqlApiJobClient()
    snowflake_emulator.configure(run_seconds=0.5)
    ids = [client.submit({"sql": f"SELECT {n}", "statement_count": 1}, str(uuid.uuid4())) for n in range(3)]

    async def main():
        return await asyncio.gather(*(run_to_end(JobTrigger(
            client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=i, poll_interval=0.2,
            jitter=0.0)) for i in ids))

    events = asyncio.run(main())

    assert [e["job_id"] for e in events] == ids
    assert [e["durable_status"] for e in events] == ["success"] * 3


def test_a_users_kill_after_the_trigger_left_the_hub_still_cancels_the_run(databricks_conn_env):
    """What Airflow's triggerer does on mark-failed: cancel the trigger's task (it leaves the hub, which closes
    its session), then call ``on_kill()`` in that same task; the run is cancelled through the trigger's own
    client, and the other trigger of the connection keeps its hub."""
    databricks_conn_env.configure(running_seconds=60)
    killed, other = submit(2)

    async def like_the_triggerer(t: JobTrigger, started: asyncio.Event) -> str:
        try:
            async for _ in t.run():
                return "event"
        except asyncio.CancelledError:
            started.set()
            await t.on_kill()
            raise
        finally:
            await t.cleanup()
        return "ended"

    async def main():
        flag = asyncio.Event()
        a = asyncio.create_task(like_the_triggerer(trigger(killed, cancel_on_kill="always"), flag))
        b = asyncio.create_task(like_the_triggerer(trigger(other), asyncio.Event()))
        deadline = time.monotonic() + 10
        while calls(databricks_conn_env).get("jobs/runs/list", 0) < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        a.cancel("user action")
        with pytest.raises(asyncio.CancelledError):
            await a
        watched = next(iter(hubs().values())).watched
        b.cancel()
        with pytest.raises(asyncio.CancelledError):
            await b
        return watched, dict(hubs())

    watched, left = asyncio.run(main())

    assert [c["run_id"] for c in databricks_conn_env.ledger()["cancels"]] == [killed]
    assert watched == 1 and left == {}

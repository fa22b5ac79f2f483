"""The Databricks client following the ended runs (``databricks_feed``) under the shared poller, through
 the Databricks emulator: the official hook over loopback HTTP, rounds driven by hand.

The shape: a workspace whose active listing is full of someone else's newer runs, so listing them does not pay.
"""

from __future__ import annotations

import asyncio
import logging

from durable_jobs.core.pacing import Pacer
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.databricks.clients.databricks import LISTING_SKIPS
from durable_jobs.providers.databricks.clients.databricks_feed import SWEEP_ROUNDS
from tests.unit.test_hub import budget, hand_driven, parked, shared_poller_on, spent_since, submit  # noqa: F401
from tests.unit.test_hub import calls as emulator_calls

INTERVAL = 0.3


def start(emulator, ours: int, foreign: int, *, ours_seconds: float = 600, foreign_seconds: float = 600,
          **config) -> tuple[list[int], list[int]]:
    """``ours`` runs, then ``foreign`` newer runs of someone else's (the active listing's first pages): their ids."""
    outcomes = ([{"outcome": "SUCCESS", "running_seconds": ours_seconds}] * ours
                + [{"outcome": "SUCCESS", "running_seconds": foreign_seconds}] * foreign)
    emulator.configure(pending_seconds=0.0, outcomes=outcomes, **config)
    return submit(ours), submit(foreign)


async def heard_now(subs) -> list:
    """What each subscription was told in the round just polled, or None: a run not read yet is told nothing."""
    out = []
    for s in subs:
        try:
            out.append(await asyncio.wait_for(s.next(), 0.05))
        except TimeoutError:
            out.append(None)
    return out


async def rounds(emulator, the_hub, subs, n: int, before_round=None) -> tuple[list[list], list[dict]]:
    """``n`` rounds: what every subscription was told (None: nothing) and what each round cost on the vendor's
    side. ``before_round(k)`` runs before round k (0-based)."""
    got, spent = [], []
    for k in range(n):
        if before_round is not None:
            before_round(k)
        before = dict(emulator_calls(emulator))
        await the_hub.poll_once()
        spent.append(spent_since(emulator, before))
        got.append(await heard_now(subs))
    return got, spent


def told(got: list[list]) -> list:
    """Every status told in these rounds."""
    return [g for statuses in got for g in statuses if g is not None]


def test_after_a_busy_listing_each_round_follows_the_ends_with_two_pages_and_a_share_read(databricks_conn_env):
    """40 of ours behind 400 newer foreign runs: the first round lists a page of each listing, sees the active
    listing full of others' runs, and reads a ``SWEEP_ROUNDS``-th of ours by id; every later round reads the
    completed listing's first page twice (its start and halfway) and another share by id, instead of 40 gets, and
    every ``LISTING_SKIPS``-th round one page of the active listing (the probe). A run is told its status when it
    is read (never a burst of 40 first reads), every run within ``SWEEP_ROUNDS`` rounds."""
    share = 40 // SWEEP_ROUNDS
    ids, _ = start(databricks_conn_env, 40, 400)

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        out = await rounds(databricks_conn_env, the_hub, subs, SWEEP_ROUNDS + 1)
        for s in subs:
            await s.close()
        return out

    got, spent = asyncio.run(main())

    assert spent[0] == {"jobs/runs/submit": 0, "jobs/runs/list": 2, "jobs/runs/get": share}, spent[0]
    for round_ in spent[1:]:
        assert round_.get("jobs/runs/get") == share, spent
    assert [r.get("jobs/runs/list") for r in spent[1:]] == [
        3 if k % LISTING_SKIPS == 0 else 2 for k in range(1, SWEEP_ROUNDS + 1)], "the probe: one page more"
    assert sum(g is not None for g in got[0]) == share, "the first round tells the runs it read"
    assert all(g.phase is JobPhase.ACTIVE for g in told(got)), got
    first_told = [min(k for k, statuses in enumerate(got) if statuses[i] is not None) for i in range(40)]
    assert max(first_told) < SWEEP_ROUNDS, first_told
    assert [sum(g is not None for g in statuses) for statuses in got] == [share] * (SWEEP_ROUNDS + 1), \
        "each round tells the runs it read, and only them: the others have not ended, nothing more is known"


def test_an_end_is_heard_from_the_feed_without_a_get(databricks_conn_env):
    """Two of 40 runs end between rounds, before anything read them by id: the next round's first feed page shows
    both ended, and their triggers hear it; neither is read by id."""
    databricks_conn_env.configure(speed=0)
    outcomes = ([{"outcome": "SUCCESS", "running_seconds": 600}] * 38
                + [{"outcome": "FAILED", "running_seconds": 5}] * 2
                + [{"outcome": "SUCCESS", "running_seconds": 900}] * 400)
    databricks_conn_env.configure(pending_seconds=0.0, outcomes=outcomes)
    ids = submit(40)
    submit(400)

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        await rounds(databricks_conn_env, the_hub, subs, 1)  # the busy listing: now following the ends
        databricks_conn_env.advance(6)
        before = dict(emulator_calls(databricks_conn_env))
        await the_hub.poll_once()
        spent = spent_since(databricks_conn_env, before)
        got = await heard_now(subs)
        for s in subs:
            await s.close()
        return got, spent

    got, spent = asyncio.run(main())

    assert [g.state for g in got[38:]] == ["TERMINATED:FAILED"] * 2, got[38:]
    # a share more are read now (not the two ended), and only they are told they are active
    share = 40 // SWEEP_ROUNDS
    assert [g.phase for g in got[share:2 * share]] == [JobPhase.ACTIVE] * share, got[share:2 * share]
    assert got[:share] + got[2 * share:38] == [None] * (38 - share), got
    assert spent.get("jobs/runs/list") == 2 and spent.get("jobs/runs/get") == share, spent


def test_the_sweep_reads_every_run_by_id_within_its_rounds(databricks_conn_env):
    """Every one of 20 runs loses its history after the first round (no listing shows them again, and a get says
    they are gone): the feed cannot tell, but a ``SWEEP_ROUNDS``-th are read by id a round, and every run not read
    for that many rounds is read then, so within ``SWEEP_ROUNDS`` rounds every trigger has heard its run is
    missing, though fewer runs are left to share the reads each round. A run gone is no end the listing missed
    (the reference says nothing of a deleted run's listing): the feed goes on."""
    ids, _ = start(databricks_conn_env, 20, 200)

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        await rounds(databricks_conn_env, the_hub, subs, 1)
        for run_id in ids:
            databricks_conn_env.expire(run_id)
        heard: dict[int, int] = {}
        waiting = dict(zip(ids, subs))
        for k in range(1, SWEEP_ROUNDS + 2):
            await the_hub.poll_once()
            for run_id, status in zip(list(waiting), await heard_now(list(waiting.values()))):
                if status is not None and status.phase is JobPhase.MISSING:
                    heard[run_id] = k
                    del waiting[run_id]
            if not waiting:
                break
        for s in subs:
            await s.close()
        return heard, the_hub.client._feed.usable

    heard, usable = asyncio.run(main())

    assert sorted(heard) == sorted(ids), heard
    assert max(heard.values()) <= SWEEP_ROUNDS, heard
    assert usable


def test_a_listing_not_in_end_time_order_stops_the_feed_for_good(databricks_conn_env, caplog):
    """A workspace whose 2.2 listing is ordered by start time (the emulator's ``runs_list_order`` fault): two
    finished runs of someone else's, the older-started one ended later. The first round of following the ends
    sees an end time grow down the listing, warns, and reads all of ours by id; from then on the client lists, or
    reads run by run — never the feed again."""
    databricks_conn_env.configure(speed=0, runs_list_order="start_time")
    databricks_conn_env.configure(pending_seconds=0.0, outcomes=[{"outcome": "SUCCESS", "running_seconds": 9},
                                                                  {"outcome": "SUCCESS", "running_seconds": 3}])
    submit(2)  # someone else's: the first started ends later
    databricks_conn_env.advance(10)
    ids, _ = start(databricks_conn_env, 6, 100)

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        with caplog.at_level(logging.WARNING, logger="durable_jobs.providers.databricks.clients.databricks"):
            got, spent = await rounds(databricks_conn_env, the_hub, subs, 4)
        for s in subs:
            await s.close()
        return got, spent, the_hub.client._feed.usable

    got, spent, usable = asyncio.run(main())

    assert spent[0].get("jobs/runs/list") == 2 and spent[0].get("jobs/runs/get") == 1, spent
    assert spent[1].get("jobs/runs/list") == 1 and spent[1].get("jobs/runs/get") == 6, spent
    assert "did not list the completed runs by end time" in caplog.text
    assert not usable
    assert spent[2].get("jobs/runs/list") == 2 and spent[2].get("jobs/runs/get") == 6, "a listing round, busy"
    assert spent[3].get("jobs/runs/list", 0) == 0 and spent[3].get("jobs/runs/get") == 6, "then run by run"
    assert all(g is not None for statuses in got[1:] for g in statuses), got
    assert all(g.phase is JobPhase.ACTIVE for g in told(got))


def test_a_sweep_that_finds_an_end_the_feed_missed_stops_the_feed_for_good(databricks_conn_env, caplog):
    """Four of ours behind 100 newer foreign runs. The first round reads one of ours by id (active), then it ends
    and the listing never shows it (the emulator's ``unlist`` fault: listed too late ever to be seen, which the
    reference does not rule out), while two foreign runs end 25 s after it, so the feeds read past its end. The
    sweep reads it again within ``SWEEP_ROUNDS`` rounds: its trigger hears the end then, the client warns that the
    listing missed it and reads the others by id that round; from then on it lists or reads run by run, never
    the feed again."""
    databricks_conn_env.configure(speed=0, pending_seconds=0.0, outcomes=(
        [{"outcome": "SUCCESS", "running_seconds": 5}] + [{"outcome": "SUCCESS", "running_seconds": 600}] * 3
        + [{"outcome": "SUCCESS", "running_seconds": 30}] * 2 + [{"outcome": "SUCCESS", "running_seconds": 900}] * 98))
    ids = submit(4)
    submit(100)
    missed = ids[0]

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        got, spent = await rounds(databricks_conn_env, the_hub, subs, 1)  # busy: following the ends from now
        databricks_conn_env.unlist(missed)
        databricks_conn_env.advance(40)
        with caplog.at_level(logging.WARNING, logger="durable_jobs.providers.databricks.clients.databricks"):
            for _ in range(SWEEP_ROUNDS + 1):
                more_got, more_spent = await rounds(databricks_conn_env, the_hub, subs, 1)
                got, spent = got + more_got, spent + more_spent
                if more_got[0][0] is not None and more_got[0][0].is_terminal:
                    break
            after_got, after_spent = await rounds(databricks_conn_env, the_hub, subs[1:], 2)
        for s in subs:
            await s.close()
        return got, spent, after_got, after_spent, the_hub.client._feed.usable

    got, spent, after_got, after_spent, usable = asyncio.run(main())

    assert got[0][0].phase is JobPhase.ACTIVE, "read by id in the first round: the feed vouches for it"
    heard = len(got) - 1
    assert got[heard][0].state == "TERMINATED:SUCCESS", got[heard]
    assert 1 < heard <= SWEEP_ROUNDS, heard
    assert all(statuses[0] is None for statuses in got[1:heard]), "nothing told of it before the sweep read it"
    assert f"did not show the end of run {missed}" in caplog.text
    assert not usable
    assert spent[heard].get("jobs/runs/get") == 4, "the missed run, then the three others by id"
    assert [g.phase for g in got[heard][1:]] == [JobPhase.ACTIVE] * 3, got[heard]
    assert after_spent[0].get("jobs/runs/list") == 2 and after_spent[0].get("jobs/runs/get") == 3, "a listing round"
    assert after_spent[1].get("jobs/runs/list", 0) == 0 and after_spent[1].get("jobs/runs/get") == 3, "run by run"
    assert all(g is not None and g.phase is JobPhase.ACTIVE for statuses in after_got for g in statuses)


def test_others_ending_faster_than_the_feed_pays_make_it_read_run_by_run(databricks_conn_env):
    """200 foreign runs end at once while 20 of ours are followed: the feed would page eight pages down to the last
    one's newest end, past its five (a quarter of the runs watched). It stops, reads ours by id that round, and the
    next rounds read run by run."""
    databricks_conn_env.configure(speed=0)
    ids, _ = start(databricks_conn_env, 20, 200, foreign_seconds=30)

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        out = await rounds(databricks_conn_env, the_hub, subs, 3,
                           before_round=lambda k: databricks_conn_env.advance(40) if k == 1 else None)
        for s in subs:
            await s.close()
        return out

    got, spent = asyncio.run(main())

    assert spent[1].get("jobs/runs/list") == 5 and spent[1].get("jobs/runs/get") == 20, spent
    assert spent[2].get("jobs/runs/list", 0) == 0 and spent[2].get("jobs/runs/get") == 20, spent
    assert all(g is not None for statuses in got[1:] for g in statuses), got
    assert all(g.phase is JobPhase.ACTIVE for g in told(got))


def test_the_probe_page_lists_again_once_ours_fill_the_active_listing(databricks_conn_env):
    """The foreign runs' history is deleted while ours are followed: the last of ``LISTING_SKIPS`` rounds of the
    feed reads one page of the active listing, which now shows 20 of ours; the next round lists (one page of
    each listing and no get)."""
    ids, foreign = start(databricks_conn_env, 20, 200)

    def before_round(k: int) -> None:
        if k == LISTING_SKIPS:  # the probe's round
            for run_id in foreign:
                databricks_conn_env.expire(run_id)

    async def main():
        subs, the_hub = hand_driven(ids, INTERVAL)
        out = await rounds(databricks_conn_env, the_hub, subs, LISTING_SKIPS + 2, before_round)
        for s in subs:
            await s.close()
        return out

    got, spent = asyncio.run(main())

    assert spent[LISTING_SKIPS].get("jobs/runs/list") == 3, "two feed pages and the probe's page"
    assert spent[LISTING_SKIPS + 1].get("jobs/runs/list") == 2 and spent[LISTING_SKIPS + 1].get("jobs/runs/get", 0) == 0
    assert all(g is not None for g in got[LISTING_SKIPS + 1]), "a listing round tells every run"
    assert all(g.phase is JobPhase.ACTIVE for g in told(got))


def test_a_client_that_knows_its_round_respaces_what_is_left_of_it():
    """``pacing.plan``: a round spread for 20 calls that turns out to need 4 spaces those 4 over what is left."""
    now = [0.0]
    pacer = Pacer(1000, clock=lambda: now[0])
    pacer.spread(20, 2.0)
    assert abs(pacer.spacing - 0.1) < 1e-9
    now[0] = 0.4
    pacer.replan(4)
    assert abs(pacer.spacing - 0.4) < 1e-9


def test_runs_shown_again_on_the_next_page_are_not_taken_for_disorder(databricks_conn_env, caplog):
    """30 of ours ended two seconds apart; the feed reads them on two pages, and two foreign runs end between its
    pages: the emulator pages by offset, so the second page starts with the first page's last two runs again
    (their end times above the last one read). Those are runs already seen, not a listing out of order: the
    feed goes on, and every trigger hears its run ended."""
    databricks_conn_env.configure(speed=0, pending_seconds=0.0, outcomes=(
        [{"outcome": "SUCCESS", "running_seconds": 10 + 2 * i} for i in range(30)]
        + [{"outcome": "SUCCESS", "running_seconds": 600}] * 30
        + [{"outcome": "SUCCESS", "running_seconds": 71}] * 2 + [{"outcome": "SUCCESS", "running_seconds": 900}] * 600))
    ids = submit(60)
    submit(602)

    async def main():
        subs, the_hub = hand_driven(ids, 3.0)
        await rounds(databricks_conn_env, the_hub, subs, 1)  # the busy listing: now following the ends
        databricks_conn_env.advance(70)  # 30 of ours have ended
        before = dict(emulator_calls(databricks_conn_env))
        # The clock is stepped while the feed's first page is held, read: its second page is read after the two
        # ends however soon it follows (a 5 ms poll of the ledger could miss the gap on a loaded machine).
        databricks_conn_env.add_hold("jobs/runs/list", "after", count=1)
        round_ = asyncio.create_task(the_hub.poll_once())
        await parked(databricks_conn_env)
        databricks_conn_env.advance(2)  # two foreign runs end: the listing moves down two
        databricks_conn_env.release()
        with caplog.at_level(logging.WARNING, logger="durable_jobs.providers.databricks.clients.databricks"):
            await round_
        got = await heard_now(subs)
        for s in subs:
            await s.close()
        return got, spent_since(databricks_conn_env, before), the_hub.client._feed.usable

    got, spent, usable = asyncio.run(main())

    assert "did not list the completed runs by end time" not in caplog.text
    assert usable
    assert [g.state for g in got[:30]] == ["TERMINATED:SUCCESS"] * 30, got[:30]
    assert spent.get("jobs/runs/list", 0) >= 3, spent  # two pages, then the halfway feed

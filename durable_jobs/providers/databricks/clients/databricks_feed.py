"""Following a Databricks workspace's ended runs instead of reading each run, when others' runs fill the listings.

A trigger waits for its run's end. When the workspace's active runs are mostly someone else's, listing them does
not pay, and reading each watched run (``runs/get``) costs a call per run per round, as the official trigger does.
But the completed-runs listing is a feed of ends: the Jobs API 2.2 reference says ``runs/list`` lists "in
descending order by end time". Read from the top down to the newest end the last feed saw, it shows every run
that ended since; a watched run it does not show has not ended, and its trigger is told nothing this round.

That holds for a run once it has been read (listed or got) *after* a feed began: it was active then, so its end
comes later than anything that feed saw. Hence the rules of :class:`EndFeed`:

- a run never read since the feed began (a new trigger; every run when it begins), or last read in a state we do
  not know, is read by id, a ``SWEEP_ROUNDS``-th of the runs a round: its trigger hears nothing until then
  (``NotReadThisRound``), unless the feed shows its end first;
- every watched run is also read by id at least every ``SWEEP_ROUNDS`` rounds (the *sweep*, the oldest reads
  first, within the same share): the reference does not say how soon an ended run is listed, nor what becomes
  of a run whose history is deleted, so a run the feed misses is heard of at most that many rounds late;
- a sweep that finds the end of a run the feed vouched for (read active since it began), older than what the
  feeds now read back to (:func:`missed_end`), has caught the listing missing an end: the client stops following
  the feed for good and reads run by run. One miss is heard late; the others are not waited for;
- a feed reads ``MARGIN_MS`` further back than the last one's newest end (a run listed a little late);
- a feed checks the order it relies on: an end time that grows down the listing by more than
  ``ORDER_TOLERANCE_MS`` (an API that orders by start time, as the 2.1 reference says) ends the feed for good,
  and the client reads run by run.

Times compared are the vendor's own (``end_time``, ms since the epoch), never the triggerer's clock.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from durable_jobs.core.status import JobPhase, JobStatus

#: Every watched run is read by id at least once in this many rounds of following the feed: a safety net for ends
#: the listing does not show (the reference is silent on how soon it lists one), and the first of those stops the
#: feed (:func:`missed_end`). Twenty, not ten: measured (benchmark, 100 and 1,000 Databricks runs every 5 s among
#: ten times more foreign active runs), the sweep's gets are most of a round's calls, and at ten the triggerer's CPU
#: was 0.34x the official triggers' (0.20 s vs 0.59 s at 100 runs); at twenty 0.15-0.19 s vs 0.52-0.72 s (0.23-0.30x
#: in five runs), 0.80-0.88 s vs 3.23-3.35 s at 1,000. The cost: an end the listing misses is heard up to 20 rounds
#: late (100 s at a 5 s interval), once.
SWEEP_ROUNDS = 20
#: How much further back than the last feed's newest end a feed reads (a run listed late; the reference is silent).
MARGIN_MS = 10_000
#: An end time this much later than the one above it still passes the order check (ends stamped by different
#: hosts, say): the margin covers it. The reference says nothing of how exact the order is.
ORDER_TOLERANCE_MS = 1_000
#: Fewer watched runs than this are cheaper read one by one than followed (two feed pages and a sweep a round).
FEED_MIN = 4


@dataclass(frozen=True)
class FeedRead:
    """One pass down the completed-runs listing."""

    #: it reached the end times the last feed covered (or the listing's end)
    complete: bool
    #: the newest end time it saw (what the next feed reads back to), or None when the listing was empty
    newest: int | None
    pages: int
    #: where the listing's end times grew from one run to the next (the order the feed relies on does not hold)
    disorder: str | None = None


class EndFeed:
    """What following the feed needs to remember between rounds: the watched runs' last reads, and how far back
    the next feed must read (``floor``, the vendor's end time in ms; None until a round has read every run)."""

    def __init__(self) -> None:
        self.floor: int | None = None
        self.usable = True
        #: pages the last feed read (what the next round's plan counts on)
        self.pages = 1
        self._reads: dict[str, tuple[int, int, JobStatus]] = {}  # run -> (round, order, status) of its last read
        self._unread_since: dict[str, int] = {}  # run with no read to stand in for it -> the round since when
        self._round = 0
        self._order = 0

    def begin_round(self, job_ids: Iterable[Any]) -> None:
        """A round of ``astatuses`` begins, for ``job_ids``: forget the runs no longer watched, note the new ones."""
        self._round += 1
        keep = {str(i) for i in job_ids}
        for table in (self._reads, self._unread_since):
            for key in [k for k in table if k not in keep]:
                del table[key]
        for key in keep:
            if key not in self._reads:
                self._unread_since.setdefault(key, self._round)

    def remember(self, job_id: Any, status: JobStatus) -> None:
        """A run was listed or got: an active status in a state we know can stand in for it while the feed holds."""
        key = str(job_id)
        if status.is_terminal or status.phase is JobPhase.UNKNOWN:
            self._reads.pop(key, None)
            return
        self._order += 1
        self._reads[key] = (self._round, self._order, status)
        self._unread_since.pop(key, None)

    def forget(self, job_ids: Iterable[Any]) -> None:
        """These runs' reads no longer stand in for them (read before the feed began): they count as unread."""
        for job_id in job_ids:
            if self._reads.pop(str(job_id), None) is not None:
                self._unread_since[str(job_id)] = self._round

    def vouches_for(self, job_id: Any) -> bool:
        """The run was read active since the feed began: the feed would show its end (see :func:`missed_end`)."""
        return str(job_id) in self._reads

    def last_status(self, job_id: Any) -> JobStatus | None:
        read = self._reads.get(str(job_id))
        return read[2] if read is not None else None

    def to_read(self, job_ids: list[Any]) -> list[Any]:
        """The runs to read by id this round: a ``SWEEP_ROUNDS``-th of them, or more when more are *due* (unread, or
        last read, ``SWEEP_ROUNDS`` rounds ago or more): the due first, then those with no read to stand in for
        them (new runs; all of them when the feed begins, so their first reads are spread over as many rounds, not
        sent in a burst), then the oldest reads. So every run is read within ``SWEEP_ROUNDS`` rounds of its last
        read or of its start, however many runs leave meanwhile."""

        def rank(job_id: Any) -> tuple[int, int, int, int]:
            key = str(job_id)
            read = self._reads.get(key)
            since, order = (read[0], read[1]) if read is not None else (self._unread_since.get(key, self._round), 0)
            return (0 if self._round - since >= SWEEP_ROUNDS else 1, 0 if read is None else 1, since, order)

        ranked = sorted(job_ids, key=rank)
        due = sum(1 for i in ranked if rank(i)[0] == 0)
        return ranked[: max(due, math.ceil(len(job_ids) / SWEEP_ROUNDS))]

    def round_calls(self, n: int) -> int:
        """About what a round costs for ``n`` runs, none new: two feeds and the sweep."""
        return 2 * self.pages + math.ceil(n / SWEEP_ROUNDS)


def missed_end(status: JobStatus, floor: int) -> bool:
    """A run the feed vouched for, read by id and found ended before ``floor`` (the newest end the feeds saw)
    less the margin: no feed from now on reads that far back, and none so far showed it, so the listing missed
    its end. Not so for an end after that (it came after the feed's pages, or within the margin a later feed reads
    back), nor for a status without a vendor end time (a run whose history is gone: the reference says nothing
    of its listing)."""
    end = status.raw.get("end_time")
    return status.is_terminal and isinstance(end, int) and 0 < end < floor - MARGIN_MS


async def read_feed(fetch: Callable[[str | None], Awaitable[Mapping[str, Any]]],
                    take: Callable[[Mapping[str, Any]], object], floor: int, max_pages: int) -> FeedRead:
    """Page down the completed-runs listing (``fetch(page_token)``), handing each page to ``take``, until a page
    reaches end times older than ``floor`` less the margin, the listing ends, or ``max_pages`` were read
    (incomplete: a workspace ending others' runs faster than the feed pays)."""
    newest: int | None = None
    last: int | None = None
    last_id: Any = None
    seen: set[Any] = set()
    pages, token = 0, None
    while True:
        reply = await fetch(token)
        pages += 1
        take(reply)
        for run in reply.get("runs") or []:
            end = run.get("end_time")
            if not isinstance(end, int) or end <= 0 or run.get("run_id") in seen:
                # No end time: nothing to check or read back to. Seen on an earlier page: a page token that is an
                # offset (as in our emulator; the reference does not say) shows a run again when runs ended
                # since the last page, each moving the listing down one.
                continue
            seen.add(run.get("run_id"))
            if last is not None and end > last + ORDER_TOLERANCE_MS:
                return FeedRead(False, newest, pages,
                                disorder=f"run {run.get('run_id')} (end_time {end}) listed after run {last_id} "
                                         f"(end_time {last}), page {pages}")
            newest = end if newest is None else newest
            last, last_id = end, run.get("run_id")
        token = reply.get("next_page_token")
        if not (reply.get("has_more") and token) or (last is not None and last < floor - MARGIN_MS):
            return FeedRead(True, newest, pages)
        if pages >= max_pages:
            return FeedRead(False, newest, pages)

"""Databricks Jobs runs through the official ``DatabricksHook``.

Idempotency: the epoch's key goes into ``idempotency_token`` (64 characters at most). Databricks
returns the existing run for a token it has seen, so a lost reply or a crash inside the
submit→persist window is recovered by resubmitting with the same token; there is no lookup by
token, so ``find()`` answers None and the protocol resubmits. A token whose run was deleted can
never be used again ("burned"): the client raises ``IdempotencyKeyBurnedError`` and the protocol
starts a new epoch.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.arguments import positive_seconds
from durable_jobs.core.cached import fill_cached
from durable_jobs.core.client import JobClient
from durable_jobs.core.config import http_timeout_from_config
from durable_jobs.core.exceptions import DurableJobConfigError, IdempotencyKeyBurnedError
from durable_jobs.core.faults import Fault, FaultKind, cap, chain, generic_classify, kind_for_status
from durable_jobs.core.status import JobPhase, JobStatus, NotReadThisRound, StateTable
from durable_jobs.providers.databricks.clients.databricks_feed import (
    FEED_MIN,
    MARGIN_MS,
    EndFeed,
    missed_end,
    read_feed,
)

#: Run life-cycle states (Jobs API ``state.life_cycle_state``).
LIFE_CYCLE_ACTIVE = frozenset(
    {"QUEUED", "PENDING", "RUNNING", "TERMINATING", "BLOCKED", "WAITING_FOR_RETRY"}
)
LIFE_CYCLE_TERMINAL = frozenset({"TERMINATED", "SKIPPED", "INTERNAL_ERROR"})
#: Result states of a terminal run (``state.result_state``); only SUCCESS is success, as in the hook.
RESULT_STATES = StateTable(
    vendor="Databricks run result",
    active=frozenset(),
    succeeded=frozenset({"SUCCESS"}),
    failed=frozenset(
        {
            "FAILED", "TIMEDOUT", "CANCELED", "CANCELLED", "MAXIMUM_CONCURRENT_RUNS_REACHED", "EXCLUDED",
            "SUCCESS_WITH_FAILURES", "UPSTREAM_FAILED", "UPSTREAM_CANCELED", "DISABLED", "",
        }
    ),
)
MAX_TOKEN_LENGTH = 64
#: Runs per ``runs/list`` page: the Jobs API reference caps ``limit`` at 25 (so does the emulator).
LIST_PAGE = 25
LIST_RUNS_ENDPOINT = ("GET", "2.2/jobs/runs/list")
#: Rounds ``astatuses`` reads run by run (or follows the ends) after a listing that did not pay, before it lists
#: again.
LISTING_SKIPS = 10

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListingRead:
    """One listing read in ``astatuses``: whether it paid, and the newest end time on its first page."""

    paid: bool
    newest: int | None


#: Every life-cycle state the client knows (the fault policy's "known states").
LIFE_CYCLE_STATES = StateTable(
    vendor="Databricks run", active=LIFE_CYCLE_ACTIVE, succeeded=frozenset(), failed=LIFE_CYCLE_TERMINAL,
)


def run_phase(life_cycle_state: str, result_state: str | None) -> JobPhase:
    """Sort a run's (life cycle, result) pair into a phase.

    ``result_state`` is Databricks' own terminal signal ("The result state of a run. If it is not
    available, the response won't include this field."): a run that has one has ended, whatever its
    life-cycle state says, and only SUCCESS is success (as the official hook reads it). A life-cycle
    state the table does not list, without a result, is ``UNKNOWN``: watched, never taken as an end.
    """
    if life_cycle_state in LIFE_CYCLE_ACTIVE:
        return JobPhase.ACTIVE
    if life_cycle_state == "INTERNAL_ERROR":
        return JobPhase.FAILED
    if result_state:
        return JobPhase.SUCCEEDED if RESULT_STATES.phase(result_state) is JobPhase.SUCCEEDED else JobPhase.FAILED
    if life_cycle_state in LIFE_CYCLE_TERMINAL:
        return JobPhase.FAILED  # ended without a result (SKIPPED): not a success
    return JobPhase.UNKNOWN


def is_burned_token_error(err: BaseException) -> bool:
    """True when Databricks refuses a token because the run it named was deleted."""
    status = getattr(err, "http_status_code", None)
    text = str(err).lower()
    return status in (400, 409) and "idempotency" in text and "delete" in text


def is_not_found_error(err: BaseException) -> bool:
    """404 RESOURCE_DOES_NOT_EXIST, or the 400 "Run N does not exist." real workspaces answer."""
    status = getattr(err, "http_status_code", None)
    text = str(err)
    return status == 404 or (
        status == 400 and ("does not exist" in text or "RESOURCE_DOES_NOT_EXIST" in text)
    )


def classify_databricks(err: BaseException) -> Fault:
    """The Databricks hook's errors: requests/aiohttp underneath, ``http_status_code`` on its own."""
    for cause in chain(err):
        status = getattr(cause, "http_status_code", None)
        if isinstance(status, int):
            # DatabricksApiError: "Response: <body>, Status Code: <n>" — keep the body short.
            text = str(cause).removeprefix("Response: ").rsplit(", Status Code:", 1)[0]
            underneath = generic_classify(err)  # aiohttp's error below it keeps the reply's Retry-After
            return Fault(kind_for_status(status), cap(text.strip(), 300), status,
                         underneath.retry_after if underneath is not None else None)
    found = generic_classify(err)
    if found is not None:
        return found
    return Fault(FaultKind.REJECTED, f"{type(err).__name__}: {cap(err, 300)}")


class DatabricksJobClient(JobClient):
    """``runs/submit`` or ``run-now`` (``mode``) under an idempotency token."""

    vendor: ClassVar[str] = "Databricks"
    states: ClassVar[StateTable] = LIFE_CYCLE_STATES
    status_endpoint: ClassVar[str] = "GET jobs/runs/get"
    #: ``astatuses`` chooses its own kind of round (listings, the feed of ends, one get each): see there.
    adapts_own_rounds: ClassVar[bool] = True

    def __init__(
        self,
        databricks_conn_id: str = "databricks_default",
        *,
        mode: str = "submit",
        retry_limit: int = 3,
        retry_delay: float = 1.0,
        retry_args: Mapping[str, Any] | None = None,
        caller: str = "durable-jobs",
        timeout_seconds: float | None = None,
    ) -> None:
        if mode not in ("submit", "run-now"):
            raise DurableJobConfigError(f"mode must be 'submit' or 'run-now', got {mode!r}")
        if not isinstance(retry_limit, int) or retry_limit < 1:
            raise DurableJobConfigError(
                f"databricks_retry_limit must be an integer >= 1, got {retry_limit!r}"
            )
        if not isinstance(retry_delay, (int, float)) or retry_delay < 0:
            raise DurableJobConfigError(f"databricks_retry_delay must be a number >= 0, got {retry_delay!r}")
        self.databricks_conn_id = databricks_conn_id
        self.mode = mode
        self.retry_limit = retry_limit
        self.retry_delay = retry_delay
        self.retry_args = dict(retry_args) if retry_args else None
        self.caller = caller
        if timeout_seconds is not None:
            positive_seconds("timeout_seconds", timeout_seconds)
        self.timeout_seconds = timeout_seconds
        self._hook: Any = None
        self._ahook: Any = None
        self._listing_skips = 0
        #: the active status each watched run had in the last round's listings (``astatuses``)
        self._listed: dict[str, JobStatus] = {}
        #: the runs the last round's listings missed, answered with the status the round before listed
        self.carried: set[str] = set()
        #: following the completed-runs listing while others' active runs fill the active one
        self._feed = EndFeed()
        self._feed_rounds = 0
        #: vendor calls ``astatuses`` made (listing pages and gets): what a round cost
        self.calls = 0

    def serialize(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "databricks_conn_id": self.databricks_conn_id, "mode": self.mode,
            "retry_limit": self.retry_limit, "retry_delay": self.retry_delay, "caller": self.caller,
            "timeout_seconds": self.timeout_seconds,
        }
        if self.retry_args and _is_plain(self.retry_args):
            data["retry_args"] = self.retry_args
        return data

    def _make_hook(self) -> Any:
        # Looked up where the official operators look it up, so a test (the provider's own, or a DAG
        # author's) that patches ``...operators.databricks.DatabricksHook`` patches ours too.
        from airflow.providers.databricks.operators import databricks as official_operators

        hook = official_operators.DatabricksHook(
            self.databricks_conn_id, retry_limit=self.retry_limit, retry_delay=self.retry_delay,
            retry_args=self.retry_args, caller=self.caller,
        )
        fill_cached(hook, "databricks_conn")  # never under 3.11's class-wide lock (durable_jobs.core.cached)
        hook.timeout_seconds = self.http_timeout(hook)  # type: ignore[assignment]  # requests/aiohttp take floats
        return hook

    def http_timeout(self, hook: Any) -> float:
        """Seconds an HTTP call may take: ``timeout_seconds`` given to the client, else the connection's
        ``timeout_seconds`` extra, else ``[durable_jobs] http_timeout_seconds`` (the hook's own default is
        180 s, and it retries ``databricks_retry_limit`` times on a timeout)."""
        if self.timeout_seconds is not None:
            return float(self.timeout_seconds)
        try:
            extra = hook.databricks_conn.extra_dejson.get("timeout_seconds")
        except Exception:  # noqa: BLE001 - no connection yet: the hook itself will say so on its first call
            extra = None
        if extra not in (None, ""):
            return positive_seconds(f"connection {self.databricks_conn_id!r} extra timeout_seconds", _number(extra))
        return http_timeout_from_config()

    @property
    def connection_id(self) -> str | None:
        return self.databricks_conn_id

    @property
    def submit_endpoint(self) -> str:
        return "POST jobs/run-now" if self.mode == "run-now" else "POST jobs/runs/submit"

    def classify(self, err: BaseException) -> Fault:
        return classify_databricks(err)

    def phase_of(self, state: str) -> JobPhase:
        life, _, result = state.partition(":")
        if life == "NOT_FOUND":
            return JobPhase.MISSING
        return run_phase(life, None if result in ("", "None") else result)

    def status_from_official_event(self, event: Mapping[str, Any]) -> JobStatus | None:
        """``DatabricksExecutionTrigger``'s event carries the run's state and its failed tasks' errors."""
        from airflow.providers.databricks.hooks.databricks import RunState

        try:
            state = RunState.from_json(event["run_state"])
        except Exception:  # noqa: BLE001 - not the official event's shape: ask Databricks instead
            return None
        result = state.result_state or ""
        return JobStatus(run_phase(state.life_cycle_state, result),
                         f"{state.life_cycle_state}:{result}" if result else state.life_cycle_state,
                         state.state_message or "", raw={"errors": list(event.get("errors") or [])})

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """``DatabricksExecutionTrigger``'s event: what the official ``execute_complete`` validates."""
        from airflow.providers.databricks.hooks.databricks import RunState

        state = status.raw.get("state") or {}
        try:
            run_state = RunState(state.get("life_cycle_state", ""), state.get("result_state") or "",
                                 state.get("state_message") or "").to_json()
        except Exception:  # noqa: BLE001 - a state the hook does not know: the official side cannot read it
            return {}
        return {"run_id": job_id, "run_page_url": echo.get("run_page_url"), "run_state": run_state,
                "repair_run": bool(echo.get("repair_run")), "errors": []}

    @property
    def hook(self) -> Any:
        if self._hook is None:
            self._hook = self._make_hook()
        return self._hook

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        """``nonce`` alone, or ``<user token>-<nonce>``; a long user token is shortened to a digest."""
        if not user_token:
            return nonce
        prefix = str(user_token)
        if len(prefix) + 1 + len(nonce) > MAX_TOKEN_LENGTH:
            prefix = hashlib.sha256(prefix.encode()).hexdigest()[: MAX_TOKEN_LENGTH - 1 - len(nonce)]
        return f"{prefix}-{nonce}"

    def submit(self, request: Mapping[str, Any], key: str) -> int:
        payload = dict(request)
        payload["idempotency_token"] = key
        try:
            if self.mode == "run-now":
                return int(self.hook.run_now(payload))
            return int(self.hook.submit_run(payload))
        except Exception as err:
            if is_burned_token_error(err):
                raise IdempotencyKeyBurnedError(
                    f"Databricks refused idempotency_token {key!r}: its run was deleted ({err})"
                ) from err
            raise

    def _to_status(self, run: Mapping[str, Any]) -> JobStatus:
        state = run.get("state") or {}
        life = state.get("life_cycle_state", "")
        result = state.get("result_state") or ""
        return JobStatus(
            phase=run_phase(life, result), state=f"{life}:{result}" if result else life,
            message=state.get("state_message", "") or "", raw=run,
        )

    def status(self, job_id: Any) -> JobStatus:
        try:
            run = self.hook.get_run(job_id)
        except Exception as err:
            if is_not_found_error(err):
                return self._missing(err)
            raise
        return self._to_status(run)

    def _missing(self, err: BaseException) -> JobStatus:
        return JobStatus(JobPhase.MISSING, "NOT_FOUND", self.classify(err).detail)

    async def _async_hook(self) -> Any:
        if self._ahook is None:
            hook = self._make_hook()
            await hook.__aenter__()  # one aiohttp session for every poll of this client
            self._ahook = hook
        return self._ahook

    async def astatus(self, job_id: Any) -> JobStatus:
        hook = await self._async_hook()
        self.calls += 1
        try:
            run = await hook.a_get_run(job_id)
        except Exception as err:
            if is_not_found_error(err):
                return self._missing(err)
            if getattr(err, "http_status_code", None) == 400:
                # The async hook drops the body, so "Run N does not exist." cannot be told from a
                # real bad request: ask once more through the sync hook, which keeps the body.
                return await asyncio.to_thread(self.status, job_id)
            raise
        status = self._to_status(run)
        self._feed.remember(job_id, status)
        return status

    def status_calls(self, n: int) -> int:
        """A page of completed runs, then the active runs' pages (or one get each while listing does not pay, or
        two feeds of ends and a sweep while following them)."""
        if self._feeding(n):
            return self._feed.round_calls(n)
        if n < 2 or self._listing_skips > 0:
            return n
        return 1 + math.ceil(n / LIST_PAGE)

    def _feeding(self, n: int) -> bool:
        return self._feed_rounds > 0 and self._feed.usable and self._feed.floor is not None and n >= FEED_MIN

    async def astatuses(self, job_ids: Iterable[Any]) -> Mapping[Any, JobStatus | Exception]:
        """Many runs, with the workspace's listings (``GET jobs/runs/list``, 25 runs a page):

        1. the *completed* runs, most recently ended first (the 2.2 reference: "List runs in descending order
           by end time"), while a page shows watched runs: the runs that ended since the last round, each
           reported at once (``report_end``: its trigger hears of it on the round's first call, not its last);
        2. the *active* runs, for the watched runs step 1 did not show; under the shared poller, whose round
           spreads these pages over the whole interval, the completed runs are listed once more when half the
           round has passed (``pacing.halfway``), so a run's end waits about half an interval;
        3. the completed runs again when two or more watched runs are still unaccounted for (they ended while
           the round listed: they head the listing now);
        4. one ``runs/get`` for each watched run no listing showed (it ended earlier, the order differs, or a
           listing stopped) — except, when two or more are left, a run the last round's listing showed active:
           it keeps that status one round more (``_carry``), and is read by id if the next round misses it too.
        The active listing stops as soon as its pages outnumber the watched runs they showed, or the calls a
        round of following the ends would take (a workspace busy with others' runs): the next rounds follow the
        completed listing instead (:meth:`_feed_round`), or, for a few runs, read run by run. A listing round that
        cost more than one get per run (and a page) is followed by rounds of one get per run. Step 4 makes the
        result right whatever order the listing really has (older references say "by start time"): the order
        only decides its cost."""
        ids = list(job_ids)
        self._feed.begin_round(ids)
        if self._feeding(len(ids)):
            return await self._feed_round(ids)
        self._feed_rounds = 0
        if len(ids) < 2 or self._listing_skips > 0:
            self._listing_skips = max(0, self._listing_skips - 1)
            self._listed, self.carried = {}, set()
            return await super().astatuses(ids)
        calls_before = self.calls
        wanted = {str(i): i for i in ids}
        out: dict[Any, JobStatus | Exception] = {}
        ended = await self._list_runs(wanted, out, {"completed_only": True}, stop_on_empty_page=True)
        busy = False
        if len(out) < len(ids):
            busy = not (await self._list_runs(wanted, out, {"active_only": True}, stop_on_empty_page=False,
                                              between_pages=self._ends_at_halfway,
                                              max_pages=self._feed_cost(len(ids)))).paid
        if not busy and len(ids) - len(out) >= 2:  # ended while the round listed: they head the listing now
            await self._list_runs(wanted, out, {"completed_only": True}, stop_on_empty_page=True)
        rest = self._carry(out, [i for i in ids if i not in out], busy=busy)
        if busy and self._start_feed(ids, rest, ended.newest):
            picks = [i for i in self._feed.to_read(ids) if i not in out]
            if picks:
                out.update(await super().astatuses(picks))
            return self._unread_wait(ids, out)
        if rest:
            out.update(await super().astatuses(rest))
        if busy:
            self._listing_skips = LISTING_SKIPS
        elif self.calls - calls_before > len(ids) + 1:
            log.info("Databricks: listing cost %d calls for %d runs; reading run by run for %d rounds",
                     self.calls - calls_before, len(ids), LISTING_SKIPS)
            self._listing_skips = LISTING_SKIPS
        return out

    def _feed_cost(self, n: int) -> int | None:
        """Active-listing pages past which following the ends costs less (None: too few runs to follow them)."""
        if not self._feed.usable or n < FEED_MIN:
            return None
        return self._feed.round_calls(n) + 1

    def _start_feed(self, ids: list[Any], rest: list[Any], newest_end: int | None) -> bool:
        """Others' active runs fill the active listing: follow the ends from now on (False: too few runs, or the
        listing's order failed us once). The feed reads back to the newest end on this round's first page of
        completed runs; the runs it did not show count as unread (their reads came before it)."""
        if self._feed_cost(len(ids)) is None:
            return False
        self._feed.floor = newest_end if newest_end is not None else 0
        self._feed.forget(rest)
        self._feed_rounds = LISTING_SKIPS
        log.info("Databricks: others' active runs fill the listing; following the completed runs for %d rounds "
                 "(%d runs watched)", LISTING_SKIPS, len(ids))
        return True

    def _unread_wait(self, ids: list[Any], out: dict[Any, JobStatus | Exception]) -> dict[Any, JobStatus | Exception]:
        """Every run this round did not read is told nothing (``NotReadThisRound``): the feed says it has not
        ended, nothing more, and a status read rounds ago is not news (its trigger is not woken for it)."""
        self.carried = {str(i) for i in ids if i not in out and self._feed.last_status(i) is not None}
        for job_id in ids:
            out.setdefault(job_id, NotReadThisRound(f"run {job_id}: no read this round"))
        self._listed = {}
        return out

    async def _feed_round(self, ids: list[Any]) -> dict[Any, JobStatus | Exception]:
        """A round that follows the ends (``databricks_feed``): the completed listing down to what the last feed
        saw, at the round's start and again halfway; ``runs/get`` for a ``SWEEP_ROUNDS``-th of the runs (the due
        and the unread first, then the oldest reads), half before the second feed, half after; every other run is
        told nothing this round (it has not ended). A get that finds an end the feed missed (``missed_end``) stops
        the feed for good.
        The last of ``LISTING_SKIPS`` such rounds adds one page of the active listing, to see whether listing
        pays again."""
        from durable_jobs.core.pacing import plan

        self._feed_rounds -= 1
        probe = self._feed_rounds == 0
        wanted = {str(i): i for i in ids}
        out: dict[Any, JobStatus | Exception] = {}
        gets = self._feed.to_read(ids)
        plan(2 * self._feed.pages + len(gets) + probe)
        floor = self._feed.floor
        assert floor is not None  # _feeding() said so
        half, pages = (len(gets) + 1) // 2, 0
        for part in (gets[:half], gets[half:]):
            read = await read_feed(lambda token: self._fetch_page({"completed_only": True}, token),
                                   lambda reply: self._take_page(reply, wanted, out), floor,
                                   max_pages=max(2, len(ids) // 4))
            if not read.complete:
                return await self._stop_feeding(ids, out, read)
            floor = floor if read.newest is None else read.newest
            pages = max(pages, read.pages)
            todo = [i for i in part if not _ended(out.get(i))]
            if todo:
                vouched = [i for i in todo if self._feed.vouches_for(i)]
                out.update(await super().astatuses(todo))
                for job_id in vouched:
                    status = out.get(job_id)
                    if isinstance(status, JobStatus) and missed_end(status, floor):
                        return await self._stop_feeding(ids, out, read, missed=(job_id, status, floor))
        self._feed.floor, self._feed.pages = floor, pages
        if probe:
            await self._probe(wanted, out)
        return self._unread_wait(ids, out)

    async def _stop_feeding(self, ids: list[Any], out: dict[Any, JobStatus | Exception], read: Any,
                            missed: tuple[Any, JobStatus, int] | None = None) -> dict[Any, Any]:
        """The feed stopped short, or missed an end (``missed``: the run, its status, the newest end the feeds saw):
        read every run it did not show by id, and list or read run by run from now on."""
        self._feed_rounds, self._feed.floor = 0, None
        if missed is not None:
            self._feed.usable = False
            run_id, status, floor = missed
            log.warning("Databricks runs/list did not show the end of run %s (end_time %s, %s) in the completed runs "
                        "it listed down to end_time %d: the reference does not say how soon an ended run is listed. "
                        "Its trigger hears of it now, from runs/get; reading run by run instead of following the "
                        "ended runs", run_id, status.raw.get("end_time"), status.state, floor - MARGIN_MS)
        elif read.disorder:
            self._feed.usable = False
            log.warning("Databricks runs/list did not list the completed runs by end time (the 2.2 reference says "
                        "it does; %s): reading run by run instead of following the ended runs", read.disorder)
        else:
            log.info("Databricks: %d pages of ended runs did not reach the last feed's; reading run by run for %d "
                     "rounds", read.pages, LISTING_SKIPS)
            self._listing_skips = LISTING_SKIPS
        rest = [i for i in ids if not isinstance(out.get(i), JobStatus)]
        if rest:
            out.update(await super().astatuses(rest))
        self._listed, self.carried = {}, set()
        return out

    async def _probe(self, wanted: Mapping[str, Any], out: dict[Any, JobStatus | Exception]) -> None:
        """One page of the active listing: if the pages it would take for every watched run (one per watched run it
        shows) are fewer than a round of following the ends costs, the next round lists; else follow on."""
        shown: dict[Any, JobStatus | Exception] = {}
        await self._list_runs(wanted, shown, {"active_only": True}, stop_on_empty_page=False, max_pages=1)
        for job_id, status in shown.items():
            out.setdefault(job_id, status)
        n = len(wanted)
        if shown and n / len(shown) <= self._feed.round_calls(n):
            log.info("Databricks: the active listing shows %d of %d watched runs a page: listing again", len(shown), n)
            self._feed_rounds = 0
        else:
            self._feed_rounds = LISTING_SKIPS

    def _carry(self, out: dict[Any, JobStatus | Exception], rest: list[Any], *, busy: bool) -> list[Any]:
        """The runs still to read by id, after carrying over what can wait a round.

        A listing is paged by a token the reference does not describe ("use next_page_token ... to list the next
        page"); if it is an offset, as in our emulator, every run that ends ahead of the page being read moves the
        rest up by one, and a run still active slips between two pages unshown. While many runs end that is one
        get per slipped run each round (the bench's busiest round, 500 runs every 5 s: 18 gets of 42 calls).
        Such a run was active a round ago and most likely is: it keeps that status for this round (nothing new
        is said about it), and one unshown twice in a row is read by id. A lone run left over is read at once
        (one call), as are all of a round whose listing stopped for others' runs."""
        shown = {str(k): v for k, v in out.items() if isinstance(v, JobStatus) and not v.is_terminal}
        carry = [] if busy or len(rest) < 2 else [i for i in rest if str(i) in self._listed]
        for job_id in carry:
            out[job_id] = self._listed[str(job_id)]
        # Only what a listing showed this round can be carried next round: never a status twice, never older.
        self._listed, self.carried = shown, {str(i) for i in carry}
        return [i for i in rest if str(i) not in self.carried]

    async def _ends_at_halfway(self, wanted: Mapping[str, Any], out: dict[Any, JobStatus | Exception]) -> None:
        """Between two active-listing pages: once half the hub's round has passed, list the completed runs."""
        from durable_jobs.core.pacing import halfway

        if halfway():
            await self._list_runs(wanted, out, {"completed_only": True}, stop_on_empty_page=True)

    async def _list_runs(self, wanted: Mapping[str, Any], out: dict[Any, JobStatus | Exception],
                         params: Mapping[str, Any], *, stop_on_empty_page: bool,
                         between_pages: Callable[..., Awaitable[None]] | None = None,
                         max_pages: int | None = None) -> ListingRead:
        """Page through one listing, adding the watched runs it shows to ``out`` (an end replaces an active
        status an earlier page gave); not paid when it stopped because its pages outnumbered the watched runs
        they showed, or reached ``max_pages`` with more to come. ``between_pages(wanted, out)`` runs before each
        page after the first."""
        pages, found, token, newest = 0, 0, None, None
        while True:
            if pages and between_pages is not None:
                await between_pages(wanted, out)
            reply = await self._fetch_page(params, token)
            if not pages:
                newest = next((r.get("end_time") for r in reply.get("runs") or [] if r.get("end_time")), None)
            pages += 1
            shown = self._take_page(reply, wanted, out)
            found += shown
            token = reply.get("next_page_token")
            if len(out) == len(wanted) or not (reply.get("has_more") and token):
                return ListingRead(True, newest)
            if stop_on_empty_page and not shown:  # ended earlier than this page: older pages hold none newer
                return ListingRead(True, newest)
            if pages >= found or (max_pages is not None and pages >= max_pages):  # others' runs fill the pages
                return ListingRead(False, newest)

    async def _fetch_page(self, params: Mapping[str, Any], token: str | None) -> Mapping[str, Any]:
        from durable_jobs.core.pacing import pace_call

        hook = await self._async_hook()
        await pace_call()
        self.calls += 1
        query: dict[str, Any] = {**params, "limit": LIST_PAGE}
        if token:
            query["page_token"] = token
        return await hook._a_do_api_call(LIST_RUNS_ENDPOINT, query)

    def _take_page(self, reply: Mapping[str, Any], wanted: Mapping[str, Any],
                   out: dict[Any, JobStatus | Exception]) -> int:
        """The watched runs a listing page shows, into ``out`` (each end reported at once); how many were new."""
        from durable_jobs.core.news import report_end

        shown = 0
        for run in reply.get("runs") or []:
            job_id = wanted.get(str(run.get("run_id")))
            if job_id is None or _ended(out.get(job_id)):
                continue
            status = self._to_status(run)
            if job_id in out and not status.is_terminal:
                continue
            out[job_id] = status
            self._feed.remember(job_id, status)
            report_end(job_id, status)
            shown += 1
        return shown

    async def aclose(self) -> None:
        if self._ahook is not None:
            hook, self._ahook = self._ahook, None
            await hook.__aexit__(None, None, None)

    def cancel(self, job_id: Any) -> None:
        self.hook.cancel_run(job_id)

    def find(self, key: str, *, since: datetime | None = None) -> None:
        # No lookup by token exists; resubmitting with the same token returns the same run.
        return None

    def url(self, job_id: Any) -> str | None:
        return self.hook.get_run_page_url(job_id)


def _ended(status: JobStatus | Exception | None) -> bool:
    return isinstance(status, JobStatus) and status.is_terminal


def _number(value: Any) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _is_plain(value: Any) -> bool:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False

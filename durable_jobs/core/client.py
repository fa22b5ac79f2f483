"""The vendor-neutral job client contract.

A ``JobClient`` is what the checkpoint protocol needs from a vendor, and nothing more:
submit under an idempotency key, read a status, cancel, find a job by its key, link to it, and
sort its hook's exceptions into faults (``classify``) for the shared fault policy.
Clients are rebuilt in the triggerer from ``serialize()``, so their constructor takes only
plain, JSON-serialisable arguments (connection id, retry settings).
"""

from __future__ import annotations

import asyncio
import importlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.core.faults import Fault, FaultKind, cap, generic_classify
from durable_jobs.core.news import report_end
from durable_jobs.core.pacing import expect, pace_call
from durable_jobs.core.status import MISSING_STATE, JobPhase, JobStatus, StateTable


class JobClient(ABC):
    """What the checkpoint protocol needs from one vendor."""

    #: Human name, used in logs and errors.
    vendor: ClassVar[str]
    #: The vendor's state table.
    states: ClassVar[StateTable]
    #: The status call, as error messages name it (``GET jobs/runs/get``, ``batch:DescribeJobs``).
    status_endpoint: ClassVar[str] = "status"
    #: ``astatuses`` notices a round that cost more than one call per job and makes its next rounds cheaper
    #: itself: the shared poller then never switches it to per-job rounds.
    adapts_own_rounds: ClassVar[bool] = False
    #: What the submit needs beyond the official operator's permissions (the key rides somewhere it does not
    #: write), named when the vendor refuses the submit; empty when nothing more is needed.
    submit_permissions: ClassVar[str] = ""

    @classmethod
    def classpath(cls) -> str:
        return f"{cls.__module__}.{cls.__qualname__}"

    @property
    def unit(self) -> str:
        """What one submission creates ("run", "job", "query"), from the vendor registry."""
        from durable_jobs import vendors

        for _, service in vendors.services():
            if service.client == self.classpath():
                return service.unit
        return "job"

    @property
    def submit_endpoint(self) -> str:
        """The submit call, as error messages name it."""
        return "submit"

    @property
    def connection_id(self) -> str | None:
        """The Airflow connection the client uses (named in auth errors; never its secrets)."""
        return None

    def phase_of(self, state: str) -> JobPhase:
        """The phase of a state string as ``status()`` reports it (``JobStatus.state``)."""
        if state == MISSING_STATE:
            return JobPhase.MISSING
        return self.states.phase(state)

    def status_from_official_event(self, event: Mapping[str, Any]) -> JobStatus | None:
        """The job's outcome as the official operator's trigger event reports it (None: ask the vendor).

        The official AWS triggers say "success" only when the job succeeded; anything else is asked."""
        if event.get("status") == "success":
            return JobStatus(JobPhase.SUCCEEDED, "SUCCEEDED", "the official trigger reported success")
        return None

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """What the official operator's trigger event carries, so that the official ``execute_complete``
        can take our trigger's event (a user who switches back to the official import while deferred)."""
        return {}

    def classify(self, err: BaseException) -> Fault:
        """Sort an exception from a vendor call into a ``Fault``; vendors add their own error shapes."""
        return generic_classify(err) or Fault(FaultKind.REJECTED, f"{type(err).__name__}: {cap(err, 300)}")

    def created_nothing(self, fault: Fault) -> bool:
        """Whether a submit that failed with ``fault`` certainly created no job (the vendor documents that it
        refused the request unprocessed), so that it is resent without looking for the job first."""
        return False

    @abstractmethod
    def serialize(self) -> dict[str, Any]:
        """Constructor kwargs (JSON-serialisable) to rebuild this client in the triggerer."""

    @abstractmethod
    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        """Turn the epoch's 128-bit nonce (and a user's own token) into a key the vendor accepts."""

    @abstractmethod
    def submit(self, request: Mapping[str, Any], key: str) -> Any:
        """Submit under the idempotency key; return the external id."""

    @abstractmethod
    def status(self, job_id: Any) -> JobStatus: ...

    @abstractmethod
    async def astatus(self, job_id: Any) -> JobStatus: ...

    def status_calls(self, n: int) -> int:
        """The fewest vendor calls :meth:`astatuses` makes for ``n`` ids when no job changed (one each here):
        what the shared poller spreads a round over before it has counted one."""
        return n

    async def astatuses(self, job_ids: Iterable[Any]) -> Mapping[Any, JobStatus | Exception]:
        """Many statuses; vendors that can list or describe jobs in one call override this.

        One call per job here, so a failed call is that job's alone: its exception is its value (the
        shared poller hands it to that job's trigger only). An exception raised out of ``astatuses``
        concerns every job asked (a batch call failed). Under the shared poller each vendor request
        first awaits ``pace_call()`` (the connection's request budget; a no-op elsewhere), and each end
        is reported as soon as it is read (``report_end``: the hub tells that job's trigger at once)."""
        ids = list(job_ids)
        return dict(zip(ids, await self.astatus_each(ids)))

    async def astatus_each(self, job_ids: list[Any]) -> list[JobStatus | Exception]:
        """One :meth:`astatus` per id, in order (the base ``astatuses``, and the shared poller's per-job
        rounds, whose ids need not be hashable): paced, a failure as that job's value, each end reported."""
        expect(len(job_ids))

        async def one(job_id: Any) -> JobStatus | Exception:
            await pace_call()
            try:
                status = await self.astatus(job_id)
            except Exception as err:  # noqa: BLE001 - this job's own failure, reported as its value
                return err
            report_end(job_id, status)
            return status

        return list(await asyncio.gather(*(one(i) for i in job_ids)))

    @abstractmethod
    def cancel(self, job_id: Any) -> None: ...

    async def acancel(self, job_id: Any) -> None:
        await asyncio.to_thread(self.cancel, job_id)

    @abstractmethod
    def find(self, key: str, *, since: datetime | None = None) -> Any | None:
        """The id of the job submitted under ``key``, or None if the vendor shows none."""

    def url(self, job_id: Any) -> str | None:
        return None

    async def aclose(self) -> None:
        """Release sessions held by the async side."""


def load_client(classpath: str, kwargs: Mapping[str, Any]) -> JobClient:
    """Rebuild a client from its classpath and ``serialize()`` output (as the trigger does)."""
    module_name, _, class_name = classpath.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as err:
        raise DurableJobConfigError(f"job client {classpath!r} cannot be imported: {err}") from err
    if not (isinstance(cls, type) and issubclass(cls, JobClient)):
        raise DurableJobConfigError(f"{classpath!r} is not a durable_jobs JobClient")
    return cls(**kwargs)

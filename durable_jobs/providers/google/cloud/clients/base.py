"""What the gRPC-based Google clients share (Dataproc jobs and batches, Cloud Batch, Cloud Run).

The connection, project and region they are built with (serialised for the trigger), the deadline of one
call, the project fallback to the connection's (as the official hooks fall back), the hooks built once,
a status read as one get (a NOT_FOUND is MISSING), and how google-api-core's errors are sorted for the
shared fault policy.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from durable_jobs.core.client import JobClient
from durable_jobs.core.faults import Fault, FaultKind, cap, chain, generic_classify, kind_for_status
from durable_jobs.core.status import MISSING_STATE, JobPhase, JobStatus


def google_classify(err: BaseException) -> Fault:
    """google-api-core's exceptions carry the HTTP status their gRPC code maps to (UNAVAILABLE 503,
    RESOURCE_EXHAUSTED 429, UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404); its ``RetryError``
    (the client's own retries ran out) and google-auth's refresh errors are sorted too."""
    from google.api_core import exceptions as gexc

    for cause in chain(err):
        if isinstance(cause, gexc.RetryError):
            return Fault(FaultKind.TRANSIENT, f"the client's retries ran out ({cap(cause, 200)})")
        if isinstance(cause, gexc.GoogleAPICallError) and isinstance(cause.code, int):
            return Fault(kind_for_status(cause.code), cap(cause.message or cause, 300), cause.code)
        if type(cause).__module__.startswith("google.auth"):
            return Fault(FaultKind.AUTH, cap(cause, 300))
    return generic_classify(err) or Fault(FaultKind.REJECTED, f"{type(err).__name__}: {cap(err, 300)}")


#: How long an empty listing is no proof of absence when the option is not registered (an older registry).
DEFAULT_CONSISTENCY_SECONDS = 15.0


def listing_consistency_seconds(given: float | None, option: str) -> float:
    """The operator's ``consistency_seconds``, else ``[durable_jobs] <option>``: how long after a submit an empty
    listing is not yet proof that no job exists (``durable_jobs.core.listing``)."""
    if given is None:
        from durable_jobs.core.config import get_float

        try:
            given = get_float(option)
        except KeyError:  # the option is not registered (an older registry): the documented default
            given = DEFAULT_CONSISTENCY_SECONDS
    if given < 0:
        raise ValueError(f"consistency_seconds must be >= 0, got {given!r}")
    return float(given)


def is_not_found(err: BaseException) -> bool:
    """google-api-core's ``NotFound`` anywhere in the error's chain (the job, batch or execution is gone)."""
    from google.api_core.exceptions import NotFound

    return any(isinstance(c, NotFound) for c in chain(err))


def missing_status(err: BaseException) -> JobStatus:
    """MISSING, with Google's answer as the message."""
    return JobStatus(JobPhase.MISSING, MISSING_STATE, cap(err, 300))


def missing_or_raise(err: Exception) -> JobStatus:
    """MISSING for a NOT_FOUND; any other error is raised, never guessed."""
    if not is_not_found(err):
        raise err
    return missing_status(err)


class ConnectionProject(ABC):
    """The project a Google client works in: the operator's ``project_id``, else its connection's."""

    gcp_conn_id: str
    project_id: str | None

    @property
    @abstractmethod
    def hook(self) -> Any:
        """The official synchronous hook, built as the official operator builds it (each client its own)."""

    @property
    def project(self) -> str:
        """The operator's project, or the connection's (as the official hook falls back)."""
        if not self.project_id:
            self.project_id = self.hook.project_id
        if not self.project_id:
            raise ValueError(f"project_id is not set and connection {self.gcp_conn_id!r} names no project: "
                             "pass project_id= or set the connection's 'project' extra")
        return self.project_id


class GoogleRegionalClient(ConnectionProject, JobClient):
    """A job client of one Google connection, project and region, calling through the official hooks."""

    #: What ``region`` is, said when it is missing: "the <vendor> location of the job (for example '...')".
    region_hint: ClassVar[str] = "the location of the job (for example 'us-central1')"
    #: Where the official async hook caches the gRPC client it built (``aclose`` closes its channel).
    async_client_attribute: ClassVar[str] = "_client"

    def __init__(self, gcp_conn_id: str = "google_cloud_default", *, region: str, project_id: str | None = None,
                 impersonation_chain: str | list[str] | None = None, timeout: float | None = None) -> None:
        if not region:
            raise ValueError(f"region is required: {self.region_hint}")
        self.gcp_conn_id = gcp_conn_id
        self.region = region
        self.project_id = project_id
        self.impersonation_chain = list(impersonation_chain) if isinstance(impersonation_chain, (list, tuple)) \
            else impersonation_chain
        self.timeout = float(timeout) if timeout else None
        self._hook: Any = None
        self._async_hook: Any = None

    def serialize(self) -> dict[str, Any]:
        return {"gcp_conn_id": self.gcp_conn_id, "region": self.region, "project_id": self.project_id,
                "impersonation_chain": self.impersonation_chain, "timeout": self.timeout}

    @property
    def connection_id(self) -> str | None:
        return self.gcp_conn_id

    @property
    def call_timeout(self) -> float:
        """Seconds one call may take: the operator's ``timeout``, else ``[durable_jobs] http_timeout_seconds``
        (the clients' defaults are 60 to 900 s per call, retried for longer, which would hang a task on a
        stalled connection)."""
        from durable_jobs.core.config import http_timeout_from_config

        return self.timeout or http_timeout_from_config()

    def classify(self, err: BaseException) -> Fault:
        return google_classify(err)

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _make_hook(self) -> Any:
        """The official synchronous hook, built as the official operator builds it."""

    @abstractmethod
    def _make_async_hook(self) -> Any:
        """The official async hook, built as the official trigger builds it."""

    @property
    def hook(self) -> Any:
        if self._hook is None:
            self._hook = self._make_hook()
        return self._hook

    @property
    def async_hook(self) -> Any:
        if self._async_hook is None:
            self._async_hook = self._make_async_hook()
        return self._async_hook

    async def aclose(self) -> None:
        client = getattr(self._async_hook, self.async_client_attribute, None)
        if client is not None:
            await client.transport.close()

    # ------------------------------------------------------------------ status
    @abstractmethod
    def _get(self, job_id: Any) -> Any:
        """The job as the synchronous get answers it (with ``retry=None``: the library's own retries would hide
        an outage from the fault policy)."""

    @abstractmethod
    async def _aget(self, job_id: Any) -> Any:
        """The job as the async get answers it."""

    @abstractmethod
    def _status(self, reply: Any) -> JobStatus:
        """The status a get's reply says (a reply that is not the resource: ``UnreadableReplyError``)."""

    def status(self, job_id: Any) -> JobStatus:
        try:
            reply = self._get(job_id)
        except Exception as err:
            return missing_or_raise(err)
        return self._status(reply)

    async def astatus(self, job_id: Any) -> JobStatus:
        try:
            reply = await self._aget(job_id)
        except Exception as err:
            return missing_or_raise(err)
        return self._status(reply)

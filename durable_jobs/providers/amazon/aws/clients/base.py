"""What the AWS job clients share: hooks, a submit with SDK retries off, a lagging-list find, and
botocore's errors sorted into faults for the polling policy (``classify``).

AWS Batch ``SubmitJob`` and Glue ``StartJobRun`` take no idempotency token, and botocore retries
them by itself on 5xx, throttling and dropped connections. When the reply to a request that *did*
create the job is lost, botocore's retry creates a second job. So the submit call here goes
through a client with SDK retries off (``total_max_attempts=1``) and makes one attempt; the protocol's
one resend loop (``durable_jobs.core.resend``) decides what follows a failure:

* throttled (AWS refused the request before processing it: ``created_nothing``) → back off and resend;
* 5xx, dropped connection, read timeout (the job may exist) → ``find(key)``; found → that job;
  not found → resend under the same key.

The list/describe APIs used by ``find()`` are eventually consistent: a job created a moment ago may
not be listed yet. An empty listing is therefore no proof of absence until a *consistency window*
(``[durable_jobs] aws_list_consistency_seconds``, default 15 s; env
``AIRFLOW__DURABLE_JOBS__AWS_LIST_CONSISTENCY_SECONDS``) has passed since the submit attempt (or,
after a crash, since the intent was written): ``find()`` re-scans until then.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from copy import deepcopy
from datetime import datetime, timedelta, timezone
from itertools import islice
from typing import Any, ClassVar, TypeVar, overload

from durable_jobs.core.cached import fill_cached
from durable_jobs.core.client import JobClient
from durable_jobs.core.exceptions import DurableJobConfigError, JobSubmitError
from durable_jobs.core.faults import Fault, FaultKind
from durable_jobs.core.listing import scan_until_consistent
from durable_jobs.core.status import JobPhase, JobStatus

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Tag key (Batch, EMR Serverless) and job argument (Glue) that carry the epoch's key.
KEY_TAG = "durable-jobs:key"
DEFAULT_CONSISTENCY_SECONDS = 15.0
#: How far before ``since`` a listing is searched (clock skew between us and AWS).
CLOCK_SKEW = timedelta(minutes=5)

THROTTLING_CODES = frozenset(
    {
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
        "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
        "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
    }
)
ACCESS_DENIED_CODES = frozenset({"AccessDeniedException", "AccessDenied", "UnauthorizedOperation"})
#: Credentials AWS refused: the try fails at once, naming the connection (``classify``).
AUTH_CODES = ACCESS_DENIED_CODES | frozenset({
    "ExpiredTokenException", "ExpiredToken", "UnrecognizedClientException", "InvalidClientTokenId",
    "InvalidSignatureException", "SignatureDoesNotMatch", "MissingAuthenticationToken", "AuthFailure",
})


def consistency_seconds_from_config() -> float:
    try:
        from airflow.configuration import conf

        return conf.getfloat("durable_jobs", "aws_list_consistency_seconds", fallback=DEFAULT_CONSISTENCY_SECONDS)
    except Exception:  # noqa: BLE001 - config unavailable (docs tools): use the default
        return DEFAULT_CONSISTENCY_SECONDS


def error_code(err: BaseException) -> str:
    response = getattr(err, "response", None) or {}
    return str((response.get("Error") or {}).get("Code") or "")


def http_status(err: BaseException) -> int | None:
    response = getattr(err, "response", None) or {}
    return (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")


def is_throttling(err: BaseException) -> bool:
    return error_code(err) in THROTTLING_CODES or http_status(err) == 429


def is_ambiguous(err: BaseException) -> bool:
    """The request may or may not have been processed: 5xx, a dropped connection, a read timeout."""
    from botocore.exceptions import ConnectionClosedError, EndpointConnectionError, ReadTimeoutError

    if isinstance(err, (ConnectionClosedError, ReadTimeoutError)):
        return True
    if isinstance(err, EndpointConnectionError):  # nothing was sent
        return False
    status = http_status(err)
    if status is not None and status >= 500:
        return True
    from botocore.exceptions import HTTPClientError

    return isinstance(err, HTTPClientError)


def is_retryable(err: BaseException) -> bool:
    from botocore.exceptions import EndpointConnectionError

    return is_throttling(err) or is_ambiguous(err) or isinstance(err, EndpointConnectionError)


def is_tag_permission_error(err: BaseException) -> bool:
    return error_code(err) in ACCESS_DENIED_CODES and "tagresource" in str(err).lower()


def utcnow() -> datetime:
    return datetime.now(tz=timezone.utc)


@overload
def _aware(value: datetime) -> datetime: ...
@overload
def _aware(value: None) -> None: ...
def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def listing_floor(since: datetime | None) -> datetime | None:
    """The oldest creation time a listing must reach to see a job submitted at ``since`` (AWS's clock may lag
    ours: ``CLOCK_SKEW``); None: no bound."""
    return None if since is None else _aware(since) - CLOCK_SKEW


def chunked(items: list[_T], size: int) -> Iterator[list[_T]]:
    """``items`` in slices of ``size``: the most ids one batch call of the service takes."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


class AwsJobClient(JobClient):
    """A ``JobClient`` over an official amazon-provider hook, rebuilt in the triggerer from plain kwargs."""

    #: The official hook class and the permission that tagging needs (for error messages).
    tag_permission: ClassVar[str] = ""
    service: ClassVar[str] = ""
    #: The service's own constructor arguments, kept as attributes of the same names: ``serialize`` adds them, so
    #: that the triggerer rebuilds the same client.
    service_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        aws_conn_id: str | None = "aws_default",
        *,
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: Mapping[str, Any] | None = None,
        consistency_seconds: float | None = None,
        rescan_interval: float | None = None,
    ) -> None:
        if consistency_seconds is None:
            consistency_seconds = consistency_seconds_from_config()
        if not isinstance(consistency_seconds, (int, float)) or consistency_seconds < 0:
            raise DurableJobConfigError(f"consistency_seconds must be >= 0, got {consistency_seconds!r}")
        self.aws_conn_id = aws_conn_id
        self.region_name = region_name
        self.verify = verify
        self.botocore_config = dict(botocore_config) if botocore_config else None
        self.consistency_seconds = float(consistency_seconds)
        self.rescan_interval = rescan_interval
        #: False once AWS refused our key tag for a missing permission: later resends go without it
        self._tag = True
        self._hook = None
        self._submit_client = None
        self._actx = None
        self._aclient = None

    # ------------------------------------------------------------------ plumbing
    def serialize(self) -> dict[str, Any]:
        return {
            "aws_conn_id": self.aws_conn_id, "region_name": self.region_name, "verify": self.verify,
            "botocore_config": self.botocore_config, "consistency_seconds": self.consistency_seconds,
            "rescan_interval": self.rescan_interval,
            **self._service_kwargs(),
        }

    def _service_kwargs(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.service_fields}

    @abstractmethod
    def _make_hook(self): ...

    def _hook_kwargs(self) -> dict[str, Any]:
        return {
            "aws_conn_id": self.aws_conn_id, "region_name": self.region_name, "verify": self.verify,
            "config": self.botocore_config,
        }

    @property
    def hook(self):
        if self._hook is None:
            hook = self._make_hook()
            fill_cached(hook, "conn_config")  # never under 3.11's class-wide lock (durable_jobs.core.cached)
            self._hook = hook
        return self._hook

    @property
    def client(self):
        """The hook's boto3 client: the user's retry settings (reads are safe to retry)."""
        return self.hook.conn

    @property
    def submit_client(self):
        """A client whose SDK retries are off: a resent non-idempotent submit could duplicate the job."""
        if self._submit_client is None:
            from botocore.config import Config

            hook = self.hook
            config = deepcopy(hook.config).merge(Config(retries={"total_max_attempts": 1, "mode": "standard"}))
            self._submit_client = hook.get_client_type(region_name=hook.region_name, config=config)
        return self._submit_client

    async def _async_client(self):
        if self._aclient is None:
            self._actx = await self.hook.get_async_conn()  # one aiobotocore session per client
            self._aclient = await self._actx.__aenter__()
        return self._aclient

    async def aclose(self) -> None:
        if self._actx is not None:
            ctx, self._actx, self._aclient = self._actx, None, None
            await ctx.__aexit__(None, None, None)

    @property
    def connection_id(self) -> str | None:
        return self.aws_conn_id

    def classify(self, err: BaseException) -> Fault:
        """botocore's errors as a ``durable_jobs.core.faults.Fault``: throttling codes and 429 → throttled;
        refused credentials → auth; 5xx, resets and timeouts → transient; other codes → rejected."""
        from botocore.exceptions import NoCredentialsError

        from durable_jobs.core.faults import Fault, FaultKind, cap, generic_classify, retry_after_seconds

        code, status = error_code(err), http_status(err)
        if code or status is not None:
            if is_throttling(err):
                kind = FaultKind.THROTTLED
            elif code in AUTH_CODES or status in (401, 403):
                kind = FaultKind.AUTH
            elif status is not None and status >= 500:
                kind = FaultKind.TRANSIENT
            else:
                kind = FaultKind.REJECTED
            headers = ((getattr(err, "response", None) or {}).get("ResponseMetadata") or {}).get("HTTPHeaders") or {}
            return Fault(kind, cap(f"{code or type(err).__name__}: {err}", 300), status,
                         retry_after_seconds(headers.get("retry-after")))
        if isinstance(err, NoCredentialsError):
            return Fault(FaultKind.AUTH, str(err))
        if is_retryable(err):  # a dropped connection, a read timeout, no endpoint
            return Fault(FaultKind.TRANSIENT, cap(f"{type(err).__name__}: {err}", 300))
        return generic_classify(err) or Fault(FaultKind.REJECTED, cap(f"{type(err).__name__}: {err}", 300))

    def field(self, response: Mapping[str, Any], name: str, operation: str) -> Any:
        """``response[name]``; a reply without it is unreadable, never "no job".

        botocore turns a body that is not JSON into ``{"message": <body>}`` without an error, so a load
        balancer's HTML page would otherwise read as an empty job list or a missing id.
        """
        from durable_jobs.core.faults import UnreadableReplyError, cap

        if name not in response:
            shown = response.get("message") or {k: v for k, v in response.items() if k != "ResponseMetadata"}
            raise UnreadableReplyError(f"{self.vendor} {operation} answered without {name!r}: {cap(shown, 200)}")
        return response[name]

    # ------------------------------------------------------------------ submit
    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return nonce

    @abstractmethod
    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> Any:
        """One submit call through ``submit_client``; ``tag=False`` after a missing tag permission."""

    def _tag_fallback_allowed(self, request: Mapping[str, Any]) -> bool:
        """May we resend without our tag when the tag permission is missing?"""
        return False

    def submit(self, request: Mapping[str, Any], key: str) -> Any:
        """One submit; a missing tag permission is answered here (resend untagged, where allowed), any other
        failure goes to the protocol's resend loop as raised."""
        try:
            return self._submit_once(request, key, tag=self._tag)
        except Exception as err:
            if not (is_tag_permission_error(err) and self._tag):
                raise
            if not self._tag_fallback_allowed(request):
                raise JobSubmitError(
                    f"{self.vendor} refused the submission because the caller lacks "
                    f"{self.tag_permission} ({err}). durable-jobs tags each job with its key "
                    f"({KEY_TAG!r}) so that a retry can find it; grant {self.tag_permission} on the "
                    "job resources, or set durable=False."
                ) from err
            log.warning(
                "%s refused our %r tag: the caller lacks %s. Submitting without it; a retry still "
                "finds the job by %s. Grant %s to silence this.",
                self.vendor, KEY_TAG, self.tag_permission, self._untagged_find_by, self.tag_permission,
            )
            self._tag = False
            return self._submit_once(request, key, tag=False)

    def created_nothing(self, fault: Fault) -> bool:
        """AWS refuses a throttled request before processing it ("The request was denied due to request
        throttling"): it is resent without a lookup."""
        return fault.kind is FaultKind.THROTTLED

    _untagged_find_by = "its name"

    # ------------------------------------------------------------------ find
    def _pages(self, operation: str, request: Mapping[str, Any], max_pages: int | None = None) -> Iterator[Any]:
        """A listing's pages through the hook's client: the first ``max_pages`` at most (a scan is bounded)."""
        return islice(self.client.get_paginator(operation).paginate(**request), max_pages)

    @abstractmethod
    def _scan(self, key: str, since: datetime | None) -> Any | None:
        """One pass over the vendor's listing; the id submitted under ``key`` or None."""

    def find(self, key: str, *, since: datetime | None = None) -> Any | None:
        """Scan, and keep re-scanning until the consistency window after ``since`` has passed."""
        return scan_until_consistent(lambda: self._scan(key, since), since=_aware(since),
                                     window=self.consistency_seconds, interval=self.rescan_interval,
                                     what=f"{self.vendor} job under key {key}")

    # ------------------------------------------------------------------ status
    #: The describe call's error codes that say "no such job" (MISSING); any other error is raised, never guessed.
    missing_codes: ClassVar[frozenset[str]] = frozenset()

    def _describe(self, client: Any, job_id: Any) -> Any:
        """The one call that describes ``job_id``, on ``client``: boto3's, or aiobotocore's (a coroutine then).
        One method for both, so that ``status`` and ``astatus`` cannot ask differently."""
        raise NotImplementedError(f"{type(self).__name__} reads its statuses its own way")

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        """The status a ``_describe`` reply says."""
        raise NotImplementedError(f"{type(self).__name__} reads its statuses its own way")

    def _is_missing(self, err: BaseException) -> bool:
        return error_code(err) in self.missing_codes

    def _missing_or_raise(self, job_id: Any, err: Exception) -> JobStatus:
        """MISSING when the error says the job does not exist; the error itself otherwise."""
        if not self._is_missing(err):
            raise err
        return self.missing(job_id, err)

    def status(self, job_id: Any) -> JobStatus:
        try:
            response = self._describe(self.client, job_id)
        except Exception as err:
            return self._missing_or_raise(job_id, err)
        return self._to_status(response)

    async def astatus(self, job_id: Any) -> JobStatus:
        client = await self._async_client()
        try:
            response = await self._describe(client, job_id)
        except Exception as err:
            return self._missing_or_raise(job_id, err)
        return self._to_status(response)

    def _status_from(self, state: str, message: str, raw: Mapping[str, Any]) -> JobStatus:
        return JobStatus(self.states.phase(state), state, message or "", raw)

    @staticmethod
    def missing(job_id: Any, err: BaseException) -> JobStatus:
        return JobStatus(JobPhase.MISSING, "NOT_FOUND", f"{job_id}: {err}")



def merge_tags(user_tags: Mapping[str, str] | None, key: str, *, limit: int) -> tuple[dict[str, str], bool]:
    """The user's tags plus ours, within the vendor's tag limit; False when there was no room."""
    tags = {str(k): str(v) for k, v in (user_tags or {}).items()}
    tags.pop(KEY_TAG, None)
    if len(tags) >= limit:
        return tags, False
    tags[KEY_TAG] = key
    return tags, True

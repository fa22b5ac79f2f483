"""What went wrong on a call to a vendor, sorted so that one policy can act on it.

A failed status call says nothing about the job, which may well be running; a failed submit may or
may not have created one. Every ``JobClient`` sorts the exceptions of its official hook into a
:class:`Fault` (``JobClient.classify``); the polling policy (``durable_jobs.core.polling``) and the
messages below act on the fault, never on vendor exception types.

=============  ==============================================================  ===========================
kind           what it covers                                                  what the policy does
=============  ==============================================================  ===========================
``TRANSIENT``  5xx, connection reset or refused, a timeout                     back off, keep polling
``THROTTLED``  429 or the vendor's throttling code                             wait (Retry-After), poll
``BAD_REPLY``  a reply that is not what the API documents (not JSON, no body)  back off, keep polling
``AUTH``       401 / 403, missing or expired credentials                       fail the try at once
``NOT_FOUND``  the job (or the API) does not exist                             the job is missing
``REJECTED``   any other refusal of the request itself (400, 409, ...)         fail the try at once
=============  ==============================================================  ===========================

The generic sorting here understands what the official hooks are built on (requests, aiohttp,
``TimeoutError``/``OSError``, ``json``); vendor clients add their own error shapes (botocore's
``ClientError`` codes, the Databricks hook's ``http_status_code``).

A submit whose request never left (a host that does not resolve, a refused port) is told apart before
this sorting (``durable_jobs.core.wrong_setup``): on a first contact it is a wrong setup, not a fault.
"""

from __future__ import annotations

import email.utils
import enum
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

#: The most of a vendor's reply (or of anything the user sent) an error message repeats.
MAX_ECHO = 2048


class UnreadableReplyError(Exception):
    """A reply without the fields its API documents (a proxy's HTML page read as ``{"message": ...}``)."""


class FaultKind(str, enum.Enum):
    TRANSIENT = "transient"
    THROTTLED = "throttled"
    BAD_REPLY = "bad_reply"
    AUTH = "auth"
    NOT_FOUND = "not_found"
    REJECTED = "rejected"


#: Faults that say nothing about the job: keep watching it.
TRANSIENT_KINDS = frozenset({FaultKind.TRANSIENT, FaultKind.THROTTLED, FaultKind.BAD_REPLY})


@dataclass(frozen=True)
class Fault:
    """One failed call: its kind, the HTTP status if there was one, and a short description."""

    kind: FaultKind
    detail: str
    http_status: int | None = None
    retry_after: float | None = None

    @property
    def transient(self) -> bool:
        return self.kind in TRANSIENT_KINDS

    def __str__(self) -> str:
        status = f"HTTP {self.http_status}" if self.http_status else self.kind.value.replace("_", " ")
        wait = f", Retry-After {self.retry_after:g} s" if self.retry_after is not None else ""
        return f"{status}{wait}: {self.detail}" if self.detail else f"{status}{wait}"


def cap(text: object, limit: int = MAX_ECHO) -> str:
    """``text`` as a string of at most ``limit`` characters, saying how much was cut."""
    value = str(text)
    if len(value) <= limit:
        return value
    return f"{value[:limit]}… ({len(value) - limit} more characters not shown)"


def chain(err: BaseException) -> Iterator[BaseException]:
    """``err`` and what caused it: ``__cause__``/``__context__``, and a tenacity RetryError's last attempt."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        last = getattr(current, "last_attempt", None)  # tenacity.RetryError
        inner = last.exception() if last is not None and hasattr(last, "exception") else None
        current = inner or current.__cause__ or current.__context__


def retry_after_seconds(value: object) -> float | None:
    """A Retry-After header: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    text = str(value).strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def kind_for_status(status: int) -> FaultKind:
    if status < 400:  # a success (or redirect) reported as an error: its reply could not be read
        return FaultKind.BAD_REPLY
    if status == 429:
        return FaultKind.THROTTLED
    if status in (401, 403):
        return FaultKind.AUTH
    if status == 404:
        return FaultKind.NOT_FOUND
    if status == 408 or status >= 500:
        return FaultKind.TRANSIENT
    return FaultKind.REJECTED


def _response_of(err: BaseException) -> tuple[int | None, object, str]:
    """(status, headers, body text) of an HTTP error from requests or aiohttp, if it carries one."""
    response = getattr(err, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int):  # requests
        body = ""
        try:
            body = response.text  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001 - a body that cannot be decoded is no reason to fail differently
            body = ""
        return status, getattr(response, "headers", None), body
    status = getattr(err, "status", None)  # aiohttp.ClientResponseError
    if isinstance(status, int) and hasattr(err, "request_info"):
        return status, getattr(err, "headers", None), str(getattr(err, "message", "") or "")
    return None, None, ""


def _header(headers: object, name: str) -> object:
    getter = getattr(headers, "get", None)
    return getter(name) if callable(getter) else None


def generic_classify(err: BaseException) -> Fault | None:
    """Sort what the HTTP libraries under the official hooks raise; None when nothing is recognised."""
    for cause in chain(err):
        if isinstance(cause, UnreadableReplyError):
            return Fault(FaultKind.BAD_REPLY, cap(cause, 300))
        status, headers, body = _response_of(cause)
        if status is not None and status < 300:  # a success status whose body could not be read
            return Fault(FaultKind.BAD_REPLY, f"HTTP {status} with an unreadable reply ({cap(body or cause, 200)})")
        if status is not None:
            return Fault(kind_for_status(status), cap(body.strip() or type(cause).__name__, 300), status,
                         retry_after_seconds(_header(headers, "Retry-After")))
        if isinstance(cause, json.JSONDecodeError):
            return Fault(FaultKind.BAD_REPLY, f"the reply is not JSON ({cause.msg} at character {cause.pos})")
        name = type(cause).__name__
        module = type(cause).__module__
        if module.startswith(("requests", "urllib3", "aiohttp")) or isinstance(cause, (TimeoutError, OSError)):
            if "Timeout" in name or isinstance(cause, TimeoutError):
                return Fault(FaultKind.TRANSIENT, f"timed out ({name})")
            if "Connect" in name or "Connection" in name or "Disconnect" in name or isinstance(cause, OSError):
                return Fault(FaultKind.TRANSIENT, f"connection failed ({name}: {cap(cause, 200)})")
            if "ContentType" in name or "Payload" in name or "Decode" in name:
                return Fault(FaultKind.BAD_REPLY, f"unreadable reply ({name})")
    return None

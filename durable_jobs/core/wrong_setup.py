"""A wrong setup, told from a submit that failed before its request left this machine.

A host that does not resolve, a refused connection, a TLS handshake that failed, a URL or connection that
cannot be read, a connection id that is not defined: each stops the submit before a byte of it is sent, so
the vendor has nothing under the key, and no resend of this try can fix it. ``durable_jobs.core.resend``
fails the try at once on one of these while no earlier attempt may have reached the vendor, instead of
riding ``poll_error_budget``. A reset, a timeout or a 5xx are never one of these: the request may have left.
Where an SDK retries inside one attempt (the Databricks hook, botocore for ECS, Redshift Data, SageMaker), only
its last error is seen; those clients keep the SDK's retries because their key makes a resend idempotent, so an
earlier attempt that did leave cannot make the next try's same-key submit a second job.

Recognised from what the official hooks are built on: requests/urllib3 and botocore (the socket error
under them), the standard ``ssl`` and ``socket`` errors, gRPC's UNAVAILABLE details ("DNS resolution
failed", "failed to connect to all addresses"), and Airflow's ``AirflowNotFoundException``.
"""

from __future__ import annotations

import re
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from durable_jobs.core.faults import cap, chain

#: OpenSSL reasons that only a handshake gives (TLS spoken to a plain-HTTP port, an old protocol).
_HANDSHAKE_REASONS = frozenset({"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "UNSUPPORTED_PROTOCOL",
                                "TLSV1_ALERT_PROTOCOL_VERSION", "SSLV3_ALERT_HANDSHAKE_FAILURE"})
#: What gRPC's UNAVAILABLE says when the channel never connected (two resolver generations), and the host in it.
_GRPC_DNS = ("DNS resolution failed", "errors resolving")
_GRPC_HOST = re.compile(r"(?:resolving|failed for|ipv[46]:)\s*(\S+?:\d+)")
#: Errors a malformed connection gives before any request is made (requests, urllib3, botocore).
_MALFORMED = frozenset({"InvalidURL", "MissingSchema", "InvalidSchema", "LocationParseError", "URLRequired",
                        "NoRegionError", "InvalidRegionError"})


@dataclass(frozen=True)
class WrongSetup:
    """What is wrong, where it was tried, and what to check."""

    what: str
    fix: str
    host: str | None = None
    missing_connection: bool = False


def _causes(err: BaseException) -> Iterator[BaseException]:
    """``chain(err)``, and the errors urllib3 and botocore keep as attributes rather than as causes."""
    for cause in chain(err):
        yield cause
        for inner in (getattr(cause, "reason", None), (getattr(cause, "kwargs", None) or {}).get("error")):
            if isinstance(inner, BaseException):
                yield from chain(inner)


def _host(err: BaseException) -> str | None:
    """The host (and port) the failed call was for, as the libraries record it."""
    for cause in _causes(err):
        for holder in (getattr(cause, "conn", None), getattr(cause, "pool", None)):
            host = getattr(holder, "host", None)
            if isinstance(host, str) and host:
                port = getattr(holder, "port", None)
                return f"{host}:{port}" if port else host
        url = (getattr(cause, "kwargs", None) or {}).get("endpoint_url") or getattr(
            getattr(cause, "request", None), "url", None)
        if isinstance(url, str) and urlsplit(url).netloc:
            return urlsplit(url).netloc
    return None


def _grpc_details(err: BaseException) -> str:
    details = getattr(err, "details", None)
    text = details() if callable(details) else (details if isinstance(details, str) else "")
    return f"{text} {err}"


def wrong_setup(err: BaseException) -> WrongSetup | None:
    """The wrong setup ``err`` shows, if it certainly failed before the request was sent; else None."""
    host = _host(err)
    for cause in _causes(err):
        name = type(cause).__name__
        if name == "AirflowNotFoundException":
            return WrongSetup(cap(cause, 300), "define the connection (UI, CLI or a secrets backend)", host,
                              missing_connection=True)
        if isinstance(cause, socket.gaierror) or name in ("NameResolutionError", "ClientConnectorDNSError"):
            return WrongSetup(f"its host name does not resolve ({name}: {cap(cause, 200)})",
                              "check the host (or account, region, endpoint) in the connection", host)
        if isinstance(cause, ConnectionRefusedError):
            return WrongSetup(f"the connection was refused ({cap(cause, 200)})",
                              "check the host and port in the connection, and that the service listens there", host)
        if isinstance(cause, ssl.SSLCertVerificationError) or (
                isinstance(cause, ssl.SSLError) and getattr(cause, "reason", None) in _HANDSHAKE_REASONS):
            return WrongSetup(f"the TLS handshake failed ({name}: {cap(cause, 200)})",
                              "check the scheme (https or http), the port and the certificate of the host", host)
        if name in _MALFORMED or (isinstance(cause, ValueError) and str(cause).startswith("Invalid endpoint")):
            return WrongSetup(f"the connection cannot be used ({name}: {cap(cause, 200)})",
                              "fix the connection's host, scheme or region", host)
        if type(cause).__module__.startswith(("grpc", "google.api_core")):
            text = _grpc_details(cause).strip()
            seen = _GRPC_HOST.search(text)
            where = host or (seen.group(1) if seen else None)
            if any(marker in text for marker in _GRPC_DNS):
                return WrongSetup(f"its host name does not resolve ({cap(text, 200)})",
                                  "check the endpoint (or region) in the connection", where)
            if "failed to connect to all addresses" in text and "refused" in text.lower():
                return WrongSetup(f"the connection was refused ({cap(text, 200)})",
                                  "check the endpoint in the connection, and that the service listens there", where)
    return None

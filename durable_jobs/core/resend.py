"""Submitting under the fault policy: the same key again, never a second job.

The one place a submit is retried (clients make one attempt; their SDKs' own retries of a submit are off).
A submit that fails with a transient fault (5xx, 429, a reset, a timeout, a reply that is not JSON)
may or may not have created the job. It is sent again only with the same idempotency key, and only
after ``find(key)`` has said the vendor shows no job under it (tag-scan vendors look over their
consistency window; vendors whose key makes the resend itself idempotent answer None at once), unless
the vendor documents that such a failure created nothing (``JobClient.created_nothing``). The
resends stop when ``poll_error_budget`` is spent; the try then fails with a message naming the
vendor, the endpoint and the key, and the next try does the same with the same key.

A wrong setup (``durable_jobs.core.wrong_setup``: a host that does not resolve, a refused connection, a
failed TLS handshake, a connection that is missing or cannot be read) fails the try at once, but only on a
first contact: while no attempt under this key may have reached the vendor (the caller says so; every
earlier attempt of this loop failed the same way). Once one may have, a vendor that cannot be reached
rides the budget as above: the job may exist, and only the vendor can say.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from durable_jobs.core.exceptions import (
    ConnectionNotDefinedError,
    IdempotencyKeyBurnedError,
    JobSubmitError,
    VendorAuthError,
    WrongSetupError,
)
from durable_jobs.core.faults import FaultKind
from durable_jobs.core.polling import FIRST_BACKOFF, MAX_BACKOFF, PollPolicy
from durable_jobs.core.wrong_setup import WrongSetup, wrong_setup

if TYPE_CHECKING:
    from durable_jobs.core.client import JobClient


def submit_once(
    client: JobClient, request: Mapping[str, Any], key: str, policy: PollPolicy, *, log: Any,
    first_contact: bool = False, clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """``client.submit(request, key)``, resent under the same key while faults are transient.

    ``first_contact``: no request under ``key`` can have reached the vendor before this call (a new epoch,
    or a record marked unsent), so a wrong setup fails the try at once (:class:`WrongSetupError`)."""
    started, attempts, may_have_sent = clock(), 0, not first_contact
    vendor, endpoint, unit = client.vendor, client.submit_endpoint, client.unit
    while True:
        attempt_time = datetime.now(tz=timezone.utc)
        attempts += 1
        try:
            return client.submit(request, key)
        except (IdempotencyKeyBurnedError, JobSubmitError):
            raise
        except Exception as err:
            setup = None if may_have_sent else wrong_setup(err)
            if setup is not None:
                raise wrong_setup_error(client, setup) from err
            may_have_sent = True
            fault = client.classify(err)
            where = f"{vendor} {endpoint} under idempotency key {key}"
            if fault.kind is FaultKind.AUTH:
                needs = f" The submit needs {client.submit_permissions}." if client.submit_permissions else ""
                raise VendorAuthError(
                    f"{where} was refused ({fault}): check the credentials and permissions of connection "
                    f"{client.connection_id!r}.{needs} Nothing was submitted.",
                    vendor=vendor, endpoint=endpoint, fault=fault,
                ) from err
            elapsed = clock() - started
            if not fault.transient:
                raise JobSubmitError(f"{where} was rejected ({fault}).") from err
            if elapsed > policy.error_budget:
                raise JobSubmitError(
                    f"{where} kept failing for {elapsed:.0f} s ({attempts} attempts; last: {fault}). If {vendor} "
                    f"created the {unit}, the next try finds it under this key: no second {unit} is created."
                ) from err
            found = None if client.created_nothing(fault) else _find_after(
                client, key, attempt_time, policy, started, where=where, submit_fault=fault, log=log, clock=clock,
                sleep=sleep)
            if found is not None:
                log.warning("%s failed (%s), but %s shows %s %s under the key: using it", where, fault, vendor,
                            unit, found)
                return found
            wait = min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** min(attempts - 1, 16))
            if fault.retry_after is not None:
                wait = max(wait, fault.retry_after)
            log.warning("%s failed (%s); sending it again with the same key in %.1f s", where, fault, wait)
            sleep(wait)


def wrong_setup_error(client: JobClient, setup: WrongSetup) -> WrongSetupError:
    """The error a wrong setup fails the try with: the connection, the host tried, the fix."""
    conn = client.connection_id
    where = f"{client.vendor} {client.submit_endpoint}"
    if setup.missing_connection:
        return ConnectionNotDefinedError(
            f"connection {conn!r} is not defined: nothing was submitted ({where}; {setup.what}). "
            f"Fix: {setup.fix}; the next try submits."
        )
    host = f"host {setup.host}" if setup.host else "its host"
    named = f"connection {conn!r}" if conn else "the SDK's defaults (no connection id)"
    return WrongSetupError(
        f"{where}: {named} could not reach {host}: {setup.what}. Nothing was submitted (the request "
        f"never left). Fix: {setup.fix}; the next try submits."
    )


def _find_after(
    client: JobClient, key: str, since: datetime, policy: PollPolicy, started: float, *, where: str,
    submit_fault: Any, log: Any, clock: Callable[[], float], sleep: Callable[[float], None],
) -> Any:
    """``client.find(key)`` after an ambiguous submit, asked again while *it* fails transiently: a resend is
    safe only once the vendor has said there is no job under the key, so a failed lookup is never read as
    "none" (a vendor without idempotency would run the job twice). Past ``poll_error_budget`` the try fails
    saying the job may exist; the next try looks again under the same key."""
    lookups = 0
    while True:
        lookups += 1
        try:
            return client.find(key, since=since)
        except Exception as err:  # noqa: BLE001 - sorted by the client's own classifier below
            fault = client.classify(err)
            elapsed = clock() - started
            if fault.kind is FaultKind.AUTH or not fault.transient or elapsed > policy.error_budget:
                raise JobSubmitError(
                    f"{where} failed ({submit_fault}), and looking for the {client.unit} under the key failed too "
                    f"({lookups} lookup(s); last: {fault}). If {client.vendor} created the {client.unit}, the next "
                    f"try finds it under this key: no second {client.unit} is created."
                ) from err
            wait = min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** min(lookups - 1, 16))
            log.warning("%s failed (%s); looking for the %s under the key failed too (%s): looking again in "
                        "%.1f s before any resend", where, submit_fault, client.unit, fault, wait)
            sleep(wait)

"""Finding a job by listing, when the vendor does not say how soon a new job is listed.

An empty listing is not proof that no job exists until a consistency window has passed since the submit
attempt (after a crash: since the intent was written); until then the listing is scanned again. The AWS clients
(``aws_list_consistency_seconds``), Cloud Run and Dataflow (their own options) all find a lost job this way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import TypeVar

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def scan_until_consistent(scan: Callable[[], _T | None], *, since: datetime | None, window: float, what: str,
                          interval: float | None = None,
                          sleep: Callable[[float], None] = time.sleep) -> _T | None:
    """``scan()`` until it finds something or ``window`` seconds after ``since`` (now, if None) have passed;
    ``interval`` between scans (default: a fifth of the window, 0.05 to 2 s)."""
    since = since if since is None or since.tzinfo else since.replace(tzinfo=timezone.utc)
    deadline = (since or datetime.now(tz=timezone.utc)) + timedelta(seconds=window)
    interval = interval or max(0.05, min(2.0, window / 5))
    scans = 0
    while True:
        found = scan()
        scans += 1
        if found is not None:
            return found
        remaining = (deadline - datetime.now(tz=timezone.utc)).total_seconds()
        if remaining <= 0:
            log.info("No %s (%d listing(s) over the %.1f s consistency window)", what, scans, window)
            return None
        sleep(min(interval, remaining))

"""News of a job's end from inside a round: the client tells the shared poller at once.

The hub (``durable_jobs.core.hub``) hands each trigger its status when the round's ``astatuses``
returns, and a round's calls are spread over the whole interval. A job whose end the round's first call
already showed (Databricks' completed-runs listing, one ``runs/get`` of many) would wait for the last
one. A client calls :func:`report_end` with each terminal status as it learns it; the hub delivers it to
that job's triggers then. Outside a hub (the synchronous path, a bare ``astatuses``) it does nothing. A
context variable carries the hub's callback, as ``pacing`` carries its pacer, so that the clients'
signatures stay as they are.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from durable_jobs.core.status import JobStatus

OnEnd = Callable[[Any, JobStatus], None]
_CURRENT: contextvars.ContextVar[OnEnd | None] = contextvars.ContextVar("durable_jobs_on_end", default=None)


def report_end(job_id: Any, status: JobStatus) -> None:
    """``status`` of ``job_id`` is known mid-round: pass it on now if it is an end and a hub is asking."""
    on_end = _CURRENT.get()
    if on_end is not None and status.is_terminal:
        on_end(job_id, status)


@contextmanager
def reporting(on_end: OnEnd) -> Iterator[None]:
    token = _CURRENT.set(on_end)
    try:
        yield
    finally:
        _CURRENT.reset(token)

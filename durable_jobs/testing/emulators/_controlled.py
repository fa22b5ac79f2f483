"""One request of an HTTP emulator under its test controls (``durable_jobs.testing.emulators._faults``).

The order is the same for every vendor, so it lives here once: an ``error`` fault answers *instead of* the
work; a hold parks the request before the work and after it; an after-work fault then drops, garbles, loses,
delays or rewrites the reply the work made. What differs per vendor is passed in: the work, the vendor's error
body, and (rarely) how a rewritten reply is answered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from durable_jobs.testing.emulators._http import ApiError, Request, Response


def same_status(response: Response, body: Any) -> Response:
    """A rewritten reply keeps the status and headers of the one the work made."""
    return Response(response.status, body, response.headers)


def serve_controlled(app: Any, request: Request, routes: Sequence[str], work: Callable[[], Response],
                     error: Callable[[ApiError], Response], *, run_id: Callable[[Response], Any] | None = None,
                     rewritten: Callable[[Response, Any], Response] = same_status) -> Response:
    """``work()`` under ``app.faults`` and ``app.holds``. ``routes``: the names a rule may be armed on, the most
    specific first (a tenant's own ``<project>/<route>``, then the route): the first that has a rule claims the
    request. ``run_id(reply)`` names the run an after-work hold reports."""
    method = request.method
    fault = next((f for route in routes if (f := app.faults.take(route, method)) is not None), None)
    if fault is not None and fault.mode == "error":
        return error(fault.error())
    if _abandoned(app, routes, "before", request):
        return Response(drop=True)
    try:
        response = work()
    except ApiError as err:
        response = error(err)
    if _abandoned(app, routes, "after", request, run_id(response) if run_id is not None else None):
        return Response(drop=True)
    if fault is None:
        return response
    action, body = fault.apply_after_work(response.body)
    if action == "drop":
        return Response(drop=True)
    if action == "error":
        return error(fault.error())
    if action == "garbage":
        return Response(200, raw=body, headers={"Content-Type": "text/html"})
    return rewritten(response, body)


def _abandoned(app: Any, routes: Sequence[str], phase: str, request: Request, run_id: Any = None) -> bool:
    """Park the request on the first hold armed for it (if any); True when the test abandoned it."""
    held = next((h for route in routes if (h := app.holds.take(route, phase, request, run_id=run_id)) is not None),
                None)
    return held is not None and app.holds.wait(held) == "abandon"

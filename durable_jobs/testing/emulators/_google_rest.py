"""What the Google REST emulators (BigQuery, Dataflow) answer alike: Google's JSON error body, and the
connection that reaches them (anonymous credentials: the emulator checks no token)."""

from __future__ import annotations

import json
from typing import Any

from durable_jobs.testing.emulators._http import ApiError, Response

#: The ``status`` word Google puts beside an HTTP code (google.rpc.Code's name).
STATUS_NAMES = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 409: "ALREADY_EXISTS", 429: "RESOURCE_EXHAUSTED",
                500: "INTERNAL", 503: "UNAVAILABLE"}


def google_error(err: ApiError) -> Response:
    """Google's JSON error body (``{"error": {"code", "message", "errors": [{"reason"}], "status"}}``)."""
    body = {"error": {"code": err.status, "message": err.message,
                      "errors": [{"message": err.message, "domain": "global", "reason": err.error_code}],
                      "status": STATUS_NAMES.get(err.status, "UNKNOWN")}}
    return Response(err.status, body, dict(err.headers))


def anonymous_connection(project: str) -> dict[str, Any]:
    """A ``google_cloud_platform`` connection with anonymous credentials in the emulator's ``project``."""
    return {"conn_type": "google_cloud_platform", "extra": json.dumps({"is_anonymous": True, "project": project})}

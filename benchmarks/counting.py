"""What a benchmark's vendor process counts: requests per second and per route, and those past its limit.

Both vendor processes (``benchmarks.vendor`` for Databricks, ``benchmarks.vendor_batch`` for AWS Batch) count
through one :class:`RequestCounter`, so the figures ``/_bench/stats`` returns mean the same for each.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any


class RequestCounter:
    """Thread-safe counts of one vendor's requests; ``count()`` says whether a request is past the limit."""

    def __init__(self, limit: float, status_routes: tuple[str, ...]) -> None:
        self.limit = limit
        self.status_routes = status_routes
        self.lock = threading.Lock()
        self.per_second: Counter[int] = Counter()
        self.status_per_second: Counter[int] = Counter()
        self.routes: Counter[str] = Counter()
        self.throttled: Counter[str] = Counter()

    def count(self, route: str) -> bool:
        """Count one request to ``route``; True when it is past this second's limit (answer it 429)."""
        second = int(time.time())
        with self.lock:
            self.per_second[second] += 1
            self.routes[route] += 1
            if route in self.status_routes:
                self.status_per_second[second] += 1
            over = self.limit > 0 and self.per_second[second] > self.limit
            if over:
                self.throttled[route] += 1
        return over

    def reset(self) -> None:
        with self.lock:
            for counter in (self.per_second, self.status_per_second, self.routes, self.throttled):
                counter.clear()

    def stats(self, route_name=lambda route: route) -> dict[str, Any]:  # noqa: ANN001 - a str -> str callable
        with self.lock:
            return {"routes": {route_name(k): v for k, v in self.routes.items()}, "throttled": dict(self.throttled),
                    "status_per_second": {str(k): v for k, v in sorted(self.status_per_second.items())},
                    "per_second": {str(k): v for k, v in sorted(self.per_second.items())}}

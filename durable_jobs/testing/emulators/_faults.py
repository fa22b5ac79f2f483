"""Vendor-neutral test controls: a steerable clock, injected faults and request holds.

* :class:`Clock` — emulator time = real time x ``speed`` + manual ``advance`` offsets, so a test
  can freeze time (``speed=0``) and step it exactly.
* :class:`FaultSet` — per-route rules: ``error`` answers the status *instead of* doing the work;
  ``lose_reply`` does the work and then answers the status (the reply the client never sees);
  ``reset`` does the work and closes the connection without a reply; ``garbage`` does the work and
  answers 200 with a body that is not JSON (a proxy's HTML page); ``slow`` does the work and sends
  the reply ``delay`` seconds late (past a client's timeout); ``rewrite`` does the work and merges
  ``patch`` into the JSON reply (a state the client has never seen). A rule is live for ``count``
  matching requests after ``skip``, and, with ``seconds``, only that long after it was armed (an
  outage of a given length), or, with ``seconds_from: "first"``, that long after the first request
  it answered (a window the client is sure to see, however long it backs off before asking again:
  armed behind an outage rule on the same path, it starts where the outage ends for the client).
* :class:`HoldSet` — park the next matching request *before* or *after* the work until a test
  releases it, so a crash test can kill a real process inside an exact window.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from durable_jobs.testing.emulators._http import ApiError

FAULT_MODES = ("error", "lose_reply", "reset", "garbage", "slow", "rewrite")
#: Modes that do the work first (the client may never learn that it was done).
AFTER_WORK_MODES = ("lose_reply", "reset", "garbage", "slow", "rewrite")
FAULT_FIELDS = {"path", "status", "count", "skip", "mode", "retry_after", "method", "error_code", "message",
                "seconds", "seconds_from", "delay", "patch"}
#: Where a rule's ``seconds`` count from: its arming, or the first request it answered.
SECONDS_FROM = ("armed", "first")
#: What a ``garbage`` fault answers: what a load balancer in front of an API sends when it is unwell.
GARBAGE_BODY = b"<html><head><title>502 Bad Gateway</title></head><body>upstream unavailable</body></html>"
HOLD_PHASES = ("before", "after")

#: Default error_code for an injected status, so error bodies look like the vendor's.
FAULT_ERROR_CODES = {
    429: "REQUEST_LIMIT_EXCEEDED",
    500: "INTERNAL_ERROR",
    502: "BAD_GATEWAY",
    503: "TEMPORARILY_UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def normalize_route(path: str) -> str:
    """``/api/2.2/jobs/runs/get`` and ``jobs/runs/get/`` both become ``jobs/runs/get``."""
    parts = [p for p in path.strip().split("/") if p]
    if parts[:1] == ["api"]:
        parts = parts[1:]
    if parts and parts[0][:1].isdigit() and "." in parts[0]:
        parts = parts[1:]
    return "/".join(parts)


class Clock:
    """Emulator seconds since start; ``speed`` scales real time, ``advance`` adds a fixed offset."""

    def __init__(self, speed: float = 1.0):
        self._lock = threading.Lock()
        self._real0 = time.monotonic()
        self._emu0 = 0.0
        self._speed = float(speed)

    @property
    def speed(self) -> float:
        return self._speed

    def now(self) -> float:
        with self._lock:
            return self._emu0 + (time.monotonic() - self._real0) * self._speed

    def set_speed(self, speed: float) -> None:
        if speed < 0:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "speed must be >= 0")
        now = self.now()
        with self._lock:
            self._emu0, self._real0, self._speed = now, time.monotonic(), float(speed)

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "the clock only moves forward")
        with self._lock:
            self._emu0 += float(seconds)
        return self.now()

    def copy(self) -> Clock:
        """A clock that starts where this one stands, at its speed (a project given a clock of its own keeps its
        jobs' times)."""
        own = Clock(self.speed)
        own.advance(self.now())
        return own


@dataclass
class FaultRule:
    """Fail the matching requests number ``skip + 1`` .. ``skip + count`` (count -1: forever)."""

    path: str
    status: int = 500
    count: int = 1
    skip: int = 0
    mode: str = "error"
    retry_after: float | None = None
    method: str | None = None
    error_code: str | None = None
    message: str | None = None
    seconds: float | None = None
    seconds_from: str = "armed"
    delay: float = 0.0
    patch: dict[str, Any] | None = None
    seen: int = 0
    fired: int = 0
    armed_at: float = field(default_factory=time.monotonic)
    first_fired_at: float | None = None

    @classmethod
    def parse(cls, spec: dict[str, Any]) -> FaultRule:
        _reject_unknown(spec, FAULT_FIELDS, "fault")
        if not spec.get("path"):
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "fault needs a 'path', e.g. 'jobs/runs/submit'")
        rule = cls(**{**spec, "path": normalize_route(str(spec["path"]))})
        rule.status, rule.count, rule.skip = int(rule.status), int(rule.count), int(rule.skip)
        if rule.mode not in FAULT_MODES:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", f"fault mode must be one of {FAULT_MODES}")
        if rule.mode in ("error", "lose_reply") and not 400 <= rule.status <= 599:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "fault status must be an HTTP error (400-599)")
        if rule.mode == "rewrite" and not isinstance(rule.patch, dict):
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "a rewrite fault needs a 'patch' object")
        if rule.seconds is not None:
            rule.seconds = float(rule.seconds)
        if rule.seconds_from not in SECONDS_FROM:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", f"seconds_from must be one of {SECONDS_FROM}")
        rule.delay = float(rule.delay or 0)
        if rule.status == 429 and "retry_after" not in spec:  # explicit null: a 429 without Retry-After
            rule.retry_after = 1
        return rule

    def matches(self, route: str, method: str) -> bool:
        return self.path == route and (self.method is None or self.method.upper() == method)

    def exhausted(self) -> bool:
        start = self.armed_at if self.seconds_from == "armed" else self.first_fired_at
        if self.seconds is not None and start is not None and time.monotonic() - start > self.seconds:
            return True
        return self.count >= 0 and self.fired >= self.count

    def error(self) -> ApiError:
        headers = {}
        if self.retry_after is not None:
            value = float(self.retry_after)
            headers["Retry-After"] = str(int(value)) if value.is_integer() else str(math.ceil(value))
        code = self.error_code or FAULT_ERROR_CODES.get(self.status, "INJECTED_FAULT")
        message = self.message or f"injected fault ({self.mode}) on {self.path}"
        return ApiError(self.status, code, message, headers)

    def apply_after_work(self, body: Any) -> tuple[str, Any]:
        """What an after-work fault does to a reply: ("drop"|"garbage"|"error"|"reply", body)."""
        if self.mode == "reset":
            return "drop", None
        if self.mode == "garbage":
            return "garbage", GARBAGE_BODY
        if self.mode == "lose_reply":
            return "error", None
        if self.mode == "slow":
            time.sleep(self.delay)
            return "reply", body
        if self.mode == "rewrite" and isinstance(body, dict):
            return "reply", deep_merge(body, self.patch or {})
        return "reply", body


def deep_merge(body: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``body`` with ``patch`` merged in (nested objects merged, a ``None`` value deletes the key)."""
    out = dict(body)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


class FaultSet:
    """Ordered fault rules; the first live rule that matches a request claims it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []
        self.fired: list[dict[str, Any]] = []

    def add(self, spec: dict[str, Any]) -> FaultRule:
        rule = FaultRule.parse(spec)
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
            self.fired.clear()

    def take(self, route: str, method: str) -> FaultRule | None:
        with self._lock:
            for rule in self._rules:
                if rule.exhausted() or not rule.matches(route, method):
                    continue
                rule.seen += 1
                if rule.seen <= rule.skip:
                    continue
                rule.fired += 1
                if rule.first_fired_at is None:
                    rule.first_fired_at = time.monotonic()
                self.fired.append(
                    {"path": route, "status": rule.status, "mode": rule.mode, "ts": time.time()}
                )
                return rule
            return None

    def describe(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asdict(r) for r in self._rules if not r.exhausted()]


@dataclass
class _Armed:
    path: str
    phase: str
    count: int = 1
    timeout: float | None = None


@dataclass
class Held:
    """One parked request; ``decision`` is "release" or "abandon" once a test decides."""

    id: int
    path: str
    phase: str
    since: float
    run_id: int | None = None
    timeout: float | None = None
    request: Any = None
    event: threading.Event = field(default_factory=threading.Event)
    decision: str = "release"

    def describe(self) -> dict[str, Any]:
        connected = self.request.client_connected() if self.request is not None else None
        return {
            "id": self.id,
            "path": self.path,
            "phase": self.phase,
            "run_id": self.run_id,
            "since": self.since,
            "client_connected": connected,
        }


class HoldSet:
    """Armed holds and the requests currently parked on them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: list[_Armed] = []
        self._held: dict[int, Held] = {}
        self._ids = itertools.count(1)
        self.history: list[dict[str, Any]] = []

    def arm(self, spec: dict[str, Any]) -> dict[str, Any]:
        _reject_unknown(spec, {"path", "phase", "count", "timeout"}, "hold")
        if not spec.get("path"):
            raise ApiError(400, "INVALID_PARAMETER_VALUE", "hold needs a 'path', e.g. 'jobs/runs/submit'")
        phase = spec.get("phase", "before")
        if phase not in HOLD_PHASES:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", f"hold phase must be one of {HOLD_PHASES}")
        route = normalize_route(str(spec["path"]))
        armed = _Armed(route, phase, int(spec.get("count", 1)), spec.get("timeout"))
        with self._lock:
            self._armed.append(armed)
        return asdict(armed)

    def take(self, route: str, phase: str, request: Any, run_id: int | None = None) -> Held | None:
        """Claim an armed hold for this request, or return None when nothing is armed for it."""
        with self._lock:
            for armed in self._armed:
                if armed.path == route and armed.phase == phase and armed.count != 0:
                    armed.count -= 1
                    held = Held(next(self._ids), route, phase, time.time(), run_id, armed.timeout, request)
                    self._held[held.id] = held
                    self._armed = [a for a in self._armed if a.count != 0]
                    return held
        return None

    def wait(self, held: Held) -> str:
        """Block the handler thread until released (or its timeout); return the decision."""
        if not held.event.wait(held.timeout):
            held.decision = "release"
        with self._lock:
            self._held.pop(held.id, None)
            entry = {k: v for k, v in held.describe().items() if k != "client_connected"}
            self.history.append({**entry, "released": time.time(), "decision": held.decision})
        return held.decision

    def release(self, hold_id: int | None = None, abandon: bool = False) -> int:
        with self._lock:
            targets = [h for h in self._held.values() if hold_id is None or h.id == hold_id]
            for held in targets:
                held.decision = "abandon" if abandon else "release"
                held.event.set()
            return len(targets)

    def describe(self) -> dict[str, Any]:
        with self._lock:
            held = list(self._held.values())
            armed = [asdict(a) for a in self._armed]
        return {"held": [h.describe() for h in held], "armed": armed}

    def clear(self, keep_history: bool = False) -> None:
        """Disarm everything and abandon whatever is parked (reset; stop keeps the history)."""
        with self._lock:
            self._armed.clear()
            if not keep_history:
                self.history.clear()
        self.release(abandon=True)


def _reject_unknown(spec: dict[str, Any], allowed: set[str], what: str) -> None:
    if not isinstance(spec, dict):
        raise ApiError(400, "INVALID_PARAMETER_VALUE", f"{what} must be a JSON object")
    unknown = sorted(set(spec) - allowed)
    if unknown:
        message = f"unknown {what} field(s) {unknown}; allowed {sorted(allowed)}"
        raise ApiError(400, "INVALID_PARAMETER_VALUE", message)

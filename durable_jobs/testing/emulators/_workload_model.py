"""What the gRPC emulators' models share (Dataproc, Cloud Batch, Cloud Run): one lock, a clock a test can hold
(every workload) or freeze (one project's), the ledger of what was asked, and the error the server answers with.

A workload here is anything with ``project``, ``created`` and ``state(now, held)``: a Dataproc job or batch, a
Cloud Batch job, a Cloud Run execution.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


class RpcError(Exception):
    """An error the server answers with (a ``grpc.StatusCode`` name and a message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def get_or_not_found(items: Mapping[_K, _V], key: _K, message: str) -> _V:
    """``items[key]``, or the NOT_FOUND the server answers with ``message``."""
    item = items.get(key)
    if item is None:
        raise RpcError("NOT_FOUND", message)
    return item


def clock_state(item: Any, now: float, held: bool, *, starting: Sequence[tuple[float, str]],
                cancelling: str) -> str:
    """The state a workload's clock gives it: a test's ``forced`` one; after a cancel ``cancelling`` for 0.2 s,
    then CANCELLED; else each ``starting`` state until its age, RUNNING for ``seconds`` more (for ever while
    ``held``), then its ``outcome``."""
    if item.forced:
        return str(item.forced)
    if item.cancelled_at is not None:
        return cancelling if now - item.cancelled_at < 0.2 else "CANCELLED"
    age = now - item.created
    for until, state in starting:
        if age < until:
            return state
    if held or age < starting[-1][0] + item.seconds:
        return "RUNNING"
    return str(item.outcome)


class WorkloadModel:
    """Workloads of every project, behind one lock; the ledger of every create (and cancel)."""

    def __init__(self, *, run_seconds: float = 1.0, clock: Any = time.monotonic) -> None:
        self.run_seconds = run_seconds
        self.clock = clock
        self.lock = threading.RLock()
        self.held = False
        self.frozen: dict[str, float] = {}  # project -> since when its clock is stopped (a crash cell's)
        self.ledger: list[dict[str, Any]] = []

    def workloads(self) -> Iterable[Any]:
        """Every workload the model holds (the ones ``freeze`` moves)."""
        raise NotImplementedError

    def state_of(self, item: Any) -> str:
        return item.state(self.clock(), self.held or item.project in self.frozen)

    def freeze(self, project: str, on: bool) -> None:
        """Stop ``project``'s clock (its workloads stay as they are, RUNNING after PENDING), or restart it: the
        frozen time is not counted, so a workload thawed after a long freeze still has its running time ahead."""
        with self.lock:
            if on:
                self.frozen.setdefault(project, self.clock())
                return
            since = self.frozen.pop(project, None)
            if since is not None:
                self._thaw(project, since)

    def _thaw(self, project: str, since: float) -> None:
        pause = self.clock() - since
        for item in self.workloads():
            if item.project == project:
                item.created += pause


class NamedWorkloadModel(WorkloadModel):
    """One kind of workload, kept in ``jobs`` by resource name (Cloud Batch's jobs, Cloud Run's executions)."""

    jobs: dict[str, Any]

    def workloads(self) -> Iterable[Any]:
        return self.jobs.values()

    def forget(self, ident: str) -> None:
        """The workload (by id or resource name) vanishes: later reads answer NOT_FOUND."""
        with self.lock:
            for name in [n for n, v in self.jobs.items() if ident in (v.id, n)]:
                del self.jobs[name]

    def finish(self, kind: str, ident: str, state: str) -> None:
        """Force a workload's state (a test's hand on the vendor)."""
        with self.lock:
            for item in self.jobs.values():
                if ident in (item.id, item.name):
                    item.forced = state
                    return
            raise KeyError(ident)

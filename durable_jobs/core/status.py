"""Where a job stands: the vendor-neutral phases, one status reading, and a vendor's state table.

Data shared by the operator, the trigger, the shared poller and the tests; it imports nothing of ours.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: ``JobStatus.state`` of a job the vendor no longer knows (every client reports it so).
MISSING_STATE = "NOT_FOUND"


class JobPhase(str, enum.Enum):
    """Where a job stands, as far as exactly-once submission cares."""

    ACTIVE = "ACTIVE"  # reconnect to it
    SUCCEEDED = "SUCCEEDED"  # return its result
    FAILED = "FAILED"  # failed, cancelled, timed out: a retry submits a new job
    MISSING = "MISSING"  # the vendor no longer knows it (deleted, history expired)
    UNKNOWN = "UNKNOWN"  # a state our table does not list: not an end, keep watching


@dataclass(frozen=True)
class JobStatus:
    phase: JobPhase
    state: str
    message: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_terminal(self) -> bool:
        return self.phase not in (JobPhase.ACTIVE, JobPhase.UNKNOWN)


class NotReadThisRound(Exception):  # noqa: N818 - an answer, not an error: never raised
    """What ``astatuses`` answers for a job it chose not to read this round (it reads it in a later one, the way
    the Databricks client spreads its first reads of many runs): the shared poller tells that job's triggers
    nothing this round. Never raised; given to a trigger by mistake, it counts as a failed status call."""


@dataclass(frozen=True)
class StateTable:
    """A vendor's documented states, sorted into phases. Data, shared by operator, trigger and tests."""

    vendor: str
    active: frozenset[str]
    succeeded: frozenset[str]
    failed: frozenset[str]

    def __post_init__(self) -> None:
        overlap = (self.active & self.succeeded) | (self.active & self.failed) | (self.succeeded & self.failed)
        if overlap:
            raise ValueError(f"{self.vendor} state table lists {sorted(overlap)} in two phases")

    @property
    def all_states(self) -> frozenset[str]:
        return self.active | self.succeeded | self.failed

    def phase(self, state: str) -> JobPhase:
        """The state's phase; ``UNKNOWN`` (never an end) for a state the table does not list."""
        if state in self.active:
            return JobPhase.ACTIVE
        if state in self.succeeded:
            return JobPhase.SUCCEEDED
        if state in self.failed:
            return JobPhase.FAILED
        return JobPhase.UNKNOWN

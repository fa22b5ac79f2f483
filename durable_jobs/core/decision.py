"""Reconnect or submit: the protocol's decision, as a pure function of what is known.

The order (docs/guide/how-it-works.md, docs/architecture.md) matters and is tested as a table:

1. no record → new epoch
2. a *clear* since the record was written → new epoch (unless ``fresh_on_clear=False``)
3. request fingerprint changed → new epoch, naming the changed fields
4. a terminal outcome already recorded → result (succeeded) or new epoch (failed)
5. record with id → ask the vendor: active (or a state it does not know) → reconnect; succeeded →
   result; failed, cancelled, missing → new epoch
6. record without id (crash inside the submit→persist window) → ``find(key)``:
   found → as 5; not found → resubmit with the *same* key; a record marked unsent (the last try failed on
   a wrong setup before its request left) → resubmit with the same key without asking
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from durable_jobs.core.checkpoint import (
    STATUS_FAILED,
    STATUS_SUCCEEDED,
    STATUS_UNSENT,
    CheckpointRecord,
    changed_fields,
)
from durable_jobs.core.status import JobPhase, JobStatus


class Action(str, enum.Enum):
    NEW_EPOCH = "new_epoch"
    RECONNECT = "reconnect"
    RESULT = "result"
    RESUBMIT_SAME_KEY = "resubmit_same_key"


@dataclass(frozen=True)
class TryInfo:
    """This try's numbers, as Airflow reports them."""

    try_number: int
    max_tries: int
    retries: int


@dataclass
class Decision:
    action: Action
    reason: str
    job_id: Any = None
    status: JobStatus | None = None
    changed: list[str] = field(default_factory=list)


def is_cleared_since(record: CheckpointRecord, now: TryInfo) -> bool:
    """Has a user cleared this task instance since the record was written?

    Airflow's own first-try test (``try_number == max_tries - retries + 1``, as in
    ``get_first_reschedule_date``) on a record from an earlier try; and, because a clear resets
    ``max_tries`` to ``try_number + retries``, a changed ``max_tries`` also means a clear even
    when the first try after it crashed before writing anything.
    """
    if record.legacy or record.try_number is None or record.try_number >= now.try_number:
        return False
    if record.max_tries is not None and record.max_tries != now.max_tries:
        return True
    first_try = now.try_number == now.max_tries - now.retries + 1
    # A retries edit between tries would fake a first try; only trust the test when it did not change.
    return first_try and (record.retries is None or record.retries == now.retries)


def decide(
    record: CheckpointRecord | None,
    *,
    now: TryInfo,
    request_fingerprint: str,
    request_fields: dict[str, str],
    status_of: Callable[[Any], JobStatus],
    find: Callable[[str], Any | None],
    key_of: Callable[[CheckpointRecord], str],
    fresh_on_clear: bool = True,
) -> Decision:
    if record is None:
        return Decision(Action.NEW_EPOCH, "no checkpoint: first submission")
    if fresh_on_clear and is_cleared_since(record, now):
        return Decision(Action.NEW_EPOCH, f"task cleared since try {record.try_number}: starting fresh")
    if not record.legacy and record.fingerprint and record.fingerprint != request_fingerprint:
        changed = changed_fields(record.fields, request_fields)
        return Decision(
            Action.NEW_EPOCH, f"request changed since the checkpoint (fields: {', '.join(changed) or '?'})",
            changed=changed,
        )
    if record.status == STATUS_SUCCEEDED and record.id is not None:
        return Decision(Action.RESULT, "job already succeeded (recorded)", job_id=record.id)
    if record.status == STATUS_FAILED:
        return Decision(Action.NEW_EPOCH, f"previous job {record.id} failed (recorded)")

    job_id = record.id
    if job_id is None and record.status == STATUS_UNSENT:
        return Decision(Action.RESUBMIT_SAME_KEY, "the last try's submit never left (a wrong setup): same key again")
    if job_id is None:
        job_id = find(key_of(record))
        if job_id is None:
            return Decision(Action.RESUBMIT_SAME_KEY, "intent without id and no job found: same key again")
    status = status_of(job_id)
    if status.phase is JobPhase.ACTIVE:
        return Decision(Action.RECONNECT, f"job {job_id} is {status.state}: reconnecting", job_id, status)
    if status.phase is JobPhase.UNKNOWN:  # never an end: watch it (the fault policy's budget decides)
        return Decision(Action.RECONNECT, f"job {job_id} is in an unknown state {status.state!r}: reconnecting",
                        job_id, status)
    if status.phase is JobPhase.SUCCEEDED:
        return Decision(Action.RESULT, f"job {job_id} already succeeded", job_id, status)
    return Decision(Action.NEW_EPOCH, f"job {job_id} is {status.state} ({status.phase.value})", job_id, status)

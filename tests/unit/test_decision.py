"""Every branch of the reconnect-or-submit decision, as a table (docs/guide/how-it-works.md gives the order)."""

from __future__ import annotations

import pytest

from durable_jobs.core.checkpoint import CheckpointRecord, fingerprint
from durable_jobs.core.decision import Action, TryInfo, decide, is_cleared_since
from durable_jobs.core.status import JobPhase, JobStatus

REQUEST = {"tasks": [{"task_key": "a"}], "run_name": "nightly"}
FP, FIELDS = fingerprint(REQUEST)
NONCE = "0" * 32


def rec(**kw) -> CheckpointRecord:
    base = dict(nonce=NONCE, id=7, ts="2026-01-01T00:00:00+00:00", fingerprint=FP, fields=FIELDS,
                try_number=1, max_tries=3, retries=3, client="c")
    base.update(kw)
    return CheckpointRecord(**base)


STATUSES = {
    "active": JobStatus(JobPhase.ACTIVE, "RUNNING"),
    "ok": JobStatus(JobPhase.SUCCEEDED, "TERMINATED:SUCCESS"),
    "failed": JobStatus(JobPhase.FAILED, "TERMINATED:FAILED"),
    "missing": JobStatus(JobPhase.MISSING, "NOT_FOUND:"),
    "unknown": JobStatus(JobPhase.UNKNOWN, "HIBERNATING"),
}

# (name, record, try info, vendor status of id 7, find() result, expected action)
CASES = [
    ("no record", None, TryInfo(1, 3, 3), None, None, Action.NEW_EPOCH),
    ("retry, job running", rec(), TryInfo(2, 3, 3), "active", None, Action.RECONNECT),
    ("retry, job succeeded", rec(), TryInfo(2, 3, 3), "ok", None, Action.RESULT),
    ("retry, job failed", rec(), TryInfo(2, 3, 3), "failed", None, Action.NEW_EPOCH),
    ("retry, job history gone", rec(), TryInfo(2, 3, 3), "missing", None, Action.NEW_EPOCH),
    # never an end: a second job while the first may run would break exactly-once (found by the
    # crash matrix's BATCH-OUTAGE rows)
    ("retry, job in a state the table does not list", rec(), TryInfo(2, 3, 3), "unknown", None, Action.RECONNECT),
    ("deferral resume, same try", rec(), TryInfo(1, 3, 3), "active", None, Action.RECONNECT),
    ("clear after success (max_tries reset)", rec(status="SUCCEEDED"), TryInfo(2, 4, 3), "ok", None,
     Action.NEW_EPOCH),
    ("clear, job still running", rec(), TryInfo(2, 4, 3), "active", None, Action.NEW_EPOCH),
    ("clear, then first try crashed before writing", rec(), TryInfo(3, 4, 3), "active", None,
     Action.NEW_EPOCH),
    ("clear with retries=0: first-try test", rec(max_tries=0, retries=0), TryInfo(2, 1, 0), "ok", None,
     Action.NEW_EPOCH),
    ("retries edited between tries is not a clear", rec(), TryInfo(2, 3, 2), "active", None,
     Action.RECONNECT),
    ("fingerprint changed", rec(fingerprint="x" * 64, fields={"tasks": "00000000"}), TryInfo(2, 3, 3),
     "active", None, Action.NEW_EPOCH),
    ("recorded success skips the vendor", rec(status="SUCCEEDED"), TryInfo(2, 3, 3), None, None,
     Action.RESULT),
    ("recorded failure starts fresh", rec(status="FAILED"), TryInfo(2, 3, 3), None, None, Action.NEW_EPOCH),
    ("intent without id, vendor finds it running", rec(id=None), TryInfo(2, 3, 3), "active", 7,
     Action.RECONNECT),
    ("intent without id, vendor finds it succeeded", rec(id=None), TryInfo(2, 3, 3), "ok", 7, Action.RESULT),
    ("intent without id, nothing found", rec(id=None), TryInfo(2, 3, 3), None, None, Action.RESUBMIT_SAME_KEY),
    ("legacy bare id, running", CheckpointRecord(nonce=None, id=7, legacy=True), TryInfo(2, 3, 3), "active",
     None, Action.RECONNECT),
    ("legacy bare id, failed", CheckpointRecord(nonce=None, id=7, legacy=True), TryInfo(2, 3, 3), "failed",
     None, Action.NEW_EPOCH),
]


@pytest.mark.parametrize(("name", "record", "now", "status", "found", "expected"), CASES, ids=[c[0] for c in CASES])
def test_decision_table(name, record, now, status, found, expected):
    asked: list = []

    def status_of(job_id):
        asked.append(job_id)
        assert status is not None, f"{name}: the vendor must not be asked"
        return STATUSES[status]

    decision = decide(
        record, now=now, request_fingerprint=FP, request_fields=FIELDS, status_of=status_of,
        find=lambda key: found, key_of=lambda r: r.nonce,
    )
    assert decision.action is expected, decision.reason
    if expected in (Action.RECONNECT, Action.RESULT) and status is not None:
        assert decision.job_id == 7 and asked == [7]


def test_changed_fields_are_named():
    record = rec(fingerprint="x" * 64, fields={**FIELDS, "run_name": "deadbeef"})
    decision = decide(
        record, now=TryInfo(2, 3, 3), request_fingerprint=FP, request_fields=FIELDS,
        status_of=lambda i: STATUSES["active"], find=lambda k: None, key_of=lambda r: r.nonce,
    )
    assert decision.action is Action.NEW_EPOCH
    assert decision.changed == ["run_name"]
    assert "run_name" in decision.reason


def test_opting_out_of_fresh_on_clear_reconnects_like_upstream():
    decision = decide(
        rec(), now=TryInfo(2, 4, 3), request_fingerprint=FP, request_fields=FIELDS,
        status_of=lambda i: STATUSES["active"], find=lambda k: None, key_of=lambda r: r.nonce,
        fresh_on_clear=False,
    )
    assert decision.action is Action.RECONNECT


def test_find_is_given_the_records_key():
    seen = []
    decide(
        rec(id=None), now=TryInfo(2, 3, 3), request_fingerprint=FP, request_fields=FIELDS,
        status_of=lambda i: STATUSES["active"], find=lambda k: seen.append(k), key_of=lambda r: f"k-{r.nonce}",
    )
    assert seen == [f"k-{NONCE}"]


@pytest.mark.parametrize(
    ("record", "now", "cleared"),
    [
        (rec(try_number=1), TryInfo(1, 3, 3), False),  # same try (deferral resume)
        (rec(try_number=1), TryInfo(2, 3, 3), False),  # ordinary retry
        (rec(try_number=2), TryInfo(3, 5, 3), True),   # cleared after try 2: max_tries = 2 + 3
        (CheckpointRecord(nonce=None, id=1, legacy=True), TryInfo(5, 9, 3), False),
    ],
)
def test_is_cleared_since(record, now, cleared):
    assert is_cleared_since(record, now) is cleared


def test_an_unsent_intent_is_sent_again_without_looking():
    """The last try failed on a wrong setup before its request left: nothing can be under the key."""
    def find(key):
        raise AssertionError("an unsent key must not be looked for")

    decision = decide(
        rec(id=None, status="UNSENT"), now=TryInfo(2, 3, 3), request_fingerprint=FP, request_fields=FIELDS,
        status_of=lambda i: STATUSES["active"], find=find, key_of=lambda r: r.nonce,
    )
    assert decision.action is Action.RESUBMIT_SAME_KEY, decision.reason

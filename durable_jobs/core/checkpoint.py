"""The checkpoint record: one small JSON value per task instance in ``task_state_store``.

::

    {"v": 1, "nonce": "<uuid4 hex>", "id": <external id or null>, "ts": "<intent time, UTC ISO>",
     "fingerprint": "<sha256>", "fields": {"<top-level field>": "<8 hex>"}, "try_number": 1,
     "max_tries": 3, "retries": 3, "client": "<JobClient classpath>", "key": "<vendor key>",
     "status": null, "client_kwargs": {"databricks_conn_id": "...", ...}}

``key`` is the nonce as formatted for the vendor (with a user's own token, if any), kept so a
same-key resubmit sends byte-for-byte what the lost submit sent. ``client_kwargs`` (the client's
``serialize()``: connection ids, region, queue — never a secret) lets ``durable-jobs reconcile`` ask
the vendor about a job without the DAG.

The nonce is random and made when an epoch starts: a key derived from dag_id/run_id would be
handed back to a fresh submit after the record is wiped (clear_on_success, state-store clean,
a REST delete), and an idempotent vendor would then return the *old* job.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from durable_jobs.core.exceptions import CheckpointError

RECORD_VERSION = 1
#: ``status`` values written once the job's outcome is known (so expired vendor history is not
#: mistaken for "never ran").
STATUS_SUCCEEDED = "SUCCEEDED"
STATUS_FAILED = "FAILED"
#: ``status`` of a record whose key never left this machine: its try failed on a wrong setup before sending
#: (``durable_jobs.core.wrong_setup``), so the next try sends the same key again without looking for a job.
STATUS_UNSENT = "UNSENT"


def new_nonce() -> str:
    """128 random bits as 32 hex characters; vendor clients format it to their key rules."""
    return uuid.uuid4().hex


def utcnow_iso() -> str:
    return datetime.now(tz=timezone.utc).isoformat()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def stable_json(value: Any) -> Any:
    """A JSON-able, deterministic stand-in for a raw (unrendered) operator argument.

    Templates stay as their source text; an XComArg becomes its producer and key, not an object
    address, so the same DAG file gives the same fingerprint in every process.
    """
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): stable_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [stable_json(v) for v in value]
        return sorted(items, key=_canonical) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, datetime):
        return value.isoformat()
    operator = getattr(value, "operator", None)
    if operator is not None and hasattr(operator, "task_id"):
        return {"xcom_arg": [operator.task_id, getattr(value, "key", None)]}
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def fingerprint(request: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """Hash the request as the user wrote it: a whole-request digest and one short digest a field."""
    digest = hashlib.sha256(_canonical(request).encode()).hexdigest()
    fields = {str(k): hashlib.sha256(_canonical(v).encode()).hexdigest()[:8] for k, v in request.items()}
    return digest, fields


def changed_fields(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """Top-level fields whose digest differs, was added or was removed."""
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


@dataclasses.dataclass
class CheckpointRecord:
    nonce: str | None
    id: Any = None
    ts: str | None = None
    fingerprint: str | None = None
    fields: dict[str, str] = dataclasses.field(default_factory=dict)
    try_number: int | None = None
    max_tries: int | None = None
    retries: int | None = None
    client: str | None = None
    status: str | None = None
    key: str | None = None
    client_kwargs: dict[str, Any] | None = None
    legacy: bool = False

    @classmethod
    def start_epoch(
        cls, *, request_fingerprint: str, fields: dict[str, str], try_number: int, max_tries: int,
        retries: int, client: str, client_kwargs: dict[str, Any] | None = None,
    ) -> CheckpointRecord:
        return cls(
            nonce=new_nonce(), id=None, ts=utcnow_iso(), fingerprint=request_fingerprint, fields=fields,
            try_number=try_number, max_tries=max_tries, retries=retries, client=client,
            client_kwargs=client_kwargs,
        )

    def to_json(self) -> dict[str, Any]:
        data = {
            "v": RECORD_VERSION, "nonce": self.nonce, "id": self.id, "ts": self.ts,
            "fingerprint": self.fingerprint, "fields": self.fields, "try_number": self.try_number,
            "max_tries": self.max_tries, "retries": self.retries, "client": self.client,
        }
        if self.key is not None:
            data["key"] = self.key
        if self.status is not None:
            data["status"] = self.status
        if self.client_kwargs is not None:
            data["client_kwargs"] = self.client_kwargs
        return data

    @property
    def intent_time(self) -> datetime | None:
        return datetime.fromisoformat(self.ts) if self.ts else None


def parse_record(value: Any, *, key: str) -> CheckpointRecord | None:
    """Read a stored value: our record, a bare upstream id (legacy), or nothing.

    Anything else raises ``CheckpointError``: a value we cannot trust must fail the try, never be
    read as "no record" (that would resubmit a job that may be running).
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise CheckpointError(_bad(key, value, "a boolean is not a job id"))
    if isinstance(value, (int, str)):
        if value == "":
            raise CheckpointError(_bad(key, value, "an empty string is not a job id"))
        # The official operators store the raw external id under the same key.
        return CheckpointRecord(nonce=None, id=value, legacy=True)
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        # The official Snowflake SQL API operator stores its statement handles as a list.
        return CheckpointRecord(nonce=None, id=value, legacy=True)
    if not isinstance(value, dict):
        raise CheckpointError(_bad(key, value, f"a {type(value).__name__} is neither a record nor an id"))
    version = value.get("v")
    if version != RECORD_VERSION:
        raise CheckpointError(_bad(key, value, f"record version {version!r} is not {RECORD_VERSION}"))
    nonce = value.get("nonce")
    if not isinstance(nonce, str) or len(nonce) != 32:
        raise CheckpointError(_bad(key, value, "the record has no 32-hex-character nonce"))
    try:
        return CheckpointRecord(
            nonce=nonce, id=value.get("id"), ts=value.get("ts"), fingerprint=value.get("fingerprint"),
            fields=dict(value.get("fields") or {}), try_number=_opt_int(value.get("try_number")),
            max_tries=_opt_int(value.get("max_tries")), retries=_opt_int(value.get("retries")),
            client=value.get("client"), status=value.get("status"), key=value.get("key"),
            client_kwargs=dict(value["client_kwargs"]) if isinstance(value.get("client_kwargs"), dict) else None,
        )
    except (TypeError, ValueError) as err:
        raise CheckpointError(_bad(key, value, str(err))) from err


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _bad(key: str, value: Any, why: str) -> str:
    shown = _canonical(value)
    if len(shown) > 200:
        shown = shown[:200] + "..."
    return (
        f"task_state_store key {key!r} holds {shown}, which is not a durable-jobs checkpoint ({why}). "
        "The try fails instead of submitting, because the job it stood for may still be running. "
        "Check the external system, then delete the key (REST API: DELETE /api/v2/dags/{dag_id}/"
        f"dagRuns/{{dag_run_id}}/taskInstances/{{task_id}}/state-store/{key}) to start fresh."
    )

"""No orphans: what cancels a job when Airflow fails its task for good without our code in the loop.

A worker SIGKILLed, OOM-killed or cut off on the last try runs no ``on_kill``. On Airflow 3.3.2 the
scheduler fails such a task itself (``jobs/scheduler_job_runner.py``,
``_purge_task_instances_without_heartbeats``: a ``TaskCallbackRequest``, FAILED when no retry is
left) and the DAG processor runs the task's ``on_failure_callback`` from a fresh parse of the DAG
file (``dag_processing/processor.py``, ``_execute_task_callbacks``). That process may not touch the
metadata database, and its supervisor answers only some Task SDK requests: XComs, connections,
variables and task states, *not* the task state store (``GetTaskStateStore`` is not in its
``ToManager`` union, so ``context["task_state_store"].get()`` is never answered there). So the
operator keeps a copy of its checkpoint record in an XCom of the same name (written with the
record, cleared by Airflow at the next try's start), and every durable operator carries
:func:`cancel_orphaned_job` first among its ``on_failure_callback`` callables: it reads that copy, asks the
vendor through the record's own client, and cancels the job if it is still active.

The same callback runs in the worker after an ordinary last-try failure, where it catches a job
left active by a failure outside the wait (a link lookup, an XCom push after the submit).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

log = logging.getLogger(__name__)


def chain_failure_callbacks(value: Any) -> list[Any]:
    """``on_failure_callback`` as Airflow takes it (None, a callable or a list), ours first, once."""
    if not value:
        user: list[Any] = []
    elif isinstance(value, Collection) and not isinstance(value, (str, bytes)):
        user = list(value)
    else:
        user = [value]
    return [cancel_orphaned_job, *(c for c in user if c is not cancel_orphaned_job)]


def deferral_timeout(execution_timeout: timedelta | None, start_date: datetime | None) -> timedelta | None:
    """What is left of ``execution_timeout`` for a deferral, as Airflow 2 bounded it (``start_date +
    execution_timeout``). Airflow 3.3.2 no longer does: a deferral without ``timeout`` waits unbounded."""
    if not execution_timeout:
        return None
    if start_date is None:
        return execution_timeout
    if start_date.tzinfo is None:
        start_date = start_date.replace(tzinfo=timezone.utc)
    left = execution_timeout - (datetime.now(timezone.utc) - start_date)
    return max(left, timedelta(0))


def published_record(ti: Any, key: str) -> Any:
    """The copy of the checkpoint record this try published as an XCom, or None.

    An unmapped task's copy is read as "every map index's" (it has one): a missing XCom is then an empty
    answer, where asking for one index has Airflow log "XCom not found" at error level, which the official
    operator's failed run does not show. A mapped task's copy can only be asked for by its index."""
    map_index = getattr(ti, "map_index", None)
    if map_index is None or map_index < 0:
        return ti.xcom_pull(task_ids=ti.task_id, key=key)
    return ti.xcom_pull(task_ids=ti.task_id, key=key, map_indexes=map_index)


def cancel_orphaned_job(context: Mapping[str, Any]) -> None:
    """``on_failure_callback``: Airflow failed this task instance with no retry left. Cancel the job its
    last try recorded if the vendor still reports it active (``cancel_on_kill="never"`` leaves it)."""
    from durable_jobs.core.checkpoint import parse_record
    from durable_jobs.core.client import load_client
    from durable_jobs.core.faults import cap
    from durable_jobs.core.status import JobPhase

    task, ti = context.get("task"), context.get("ti")
    if task is None or ti is None or not getattr(task, "durable", False):
        return
    if getattr(task, "_durable_published", None) is False:
        # This process ran the try and it recorded no job (it failed before the intent): asking for the XCom
        # would only have Airflow log "XCom not found" at error level, which the official operator never does.
        return
    logger = getattr(task, "log", log)
    key = str(getattr(task, "checkpoint_key", ""))
    where = f"{ti.dag_id} / {ti.run_id} / {ti.task_id}"
    try:
        record = parse_record(published_record(ti, key), key=key)
    except Exception as err:  # noqa: BLE001 - a callback must not raise for this
        logger.warning("durable-jobs: %s failed for good; its job record could not be read (%s)", where,
                       cap(err, 300))
        return
    if record is None or record.legacy or record.status is not None or not record.client:
        return  # no job this try, or its outcome is recorded (a cancel by our own code included)
    client = load_client(record.client, record.client_kwargs or {})
    try:
        job_id = record.id
        if job_id is None and record.key is not None:  # killed inside the submit window
            job_id = client.find(record.key, since=record.intent_time)
        if job_id is None:
            return
        status = client.status(job_id)
        if status.phase not in (JobPhase.ACTIVE, JobPhase.UNKNOWN):
            return
        if getattr(task, "cancel_on_kill", "user") == "never":
            logger.warning(
                "durable-jobs: %s failed for good while %s %s %s is %s; cancel_on_kill='never' leaves it "
                "running (`durable-jobs reconcile` lists it).", where, client.vendor, client.unit, job_id,
                status.state,
            )
            return
        logger.warning(
            "durable-jobs: %s failed for good (no retry left) while %s %s %s is still %s, and nothing will "
            "watch it again: cancelling it.", where, client.vendor, client.unit, job_id, status.state,
        )
        client.cancel(job_id)
    except Exception as err:  # noqa: BLE001 - said plainly, with the way out
        logger.error(
            "durable-jobs: could not cancel the job of %s (%s %s %s): %s. Cancel it in %s's console or with "
            "`durable-jobs reconcile --cancel`.", where, client.vendor, client.unit, record.id, cap(err, 300),
            client.vendor,
        )

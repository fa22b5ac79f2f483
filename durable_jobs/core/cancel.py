"""Was this a user's kill, or the infrastructure's? Ask Airflow, then apply ``cancel_on_kill``.

On Airflow 3.3.2 an operator's ``on_kill`` also runs on SIGTERM from pod eviction, node drain
and deploys, and a trigger's ``on_kill`` can fire when its triggers move to another triggerer
(apache/airflow#73454). Cancelling then would turn the commonest crash into a duplicate. A user
who marks a task failed/success or clears it changes the task instance's state in the metadata
database first; infrastructure does not. So: if Airflow still shows this try as running (worker)
or deferred (trigger), the kill came from infrastructure and the job is left for the retry. A trigger
asks only when its triggerer may have lost it to another (``durable_jobs.core.pulse``): otherwise
Airflow's user-action cancel is a user's, and asking would only hold up the triggerer's supervisor.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import sys
import threading
from typing import TYPE_CHECKING, Any

from durable_jobs.core.arguments import one_of

if TYPE_CHECKING:
    from durable_jobs.core.client import JobClient

CANCEL_POLICIES = ("user", "always", "never")
log = logging.getLogger(__name__)


def validate_policy(value: Any, *, official_boolean: bool = False) -> str:
    """The policy named by ``value``.

    A bool is accepted only where the official operator has a boolean ``cancel_on_kill`` of its own
    (``official_boolean``; see :func:`official_takes_boolean`), so that swapping the import keeps the DAG valid:
    True cancels on a *user's* kill ("user"), never on the infrastructure's; False never cancels ("never").
    Elsewhere a bool has no official meaning to keep, and True could be read as "user" or "always": refused.
    """
    if isinstance(value, bool) and official_boolean:
        return "user" if value else "never"
    hint = ("'user' cancels only when a user stopped the task (mark failed/success, clear), 'always' on every "
            "kill, 'never' leaves the job running")
    if isinstance(value, bool):
        hint = f"this operator's official counterpart has no boolean cancel_on_kill; {hint}"
    return one_of("cancel_on_kill", value, CANCEL_POLICIES, hint)


@functools.cache
def official_takes_boolean(operator: type) -> bool:
    """True when an official operator among ``operator``'s bases has its own ``cancel_on_kill`` argument (a bool:
    BigQuery, Dataproc, Dataflow, Snowflake (SQL API, notebook), EMR Serverless, EMR on EKS, Redshift Data)."""
    for base in operator.__mro__:
        init = vars(base).get("__init__")
        if init is None or not base.__module__.startswith("airflow."):
            continue
        if "cancel_on_kill" in inspect.signature(init).parameters:
            return True
    return False


def decide_cancel(
    policy: str, current_state: str | None, *, still_alive_state: str, last_try: bool = False
) -> bool:
    """Pure part: cancel under ``policy`` given the task instance's state as Airflow reports it.

    ``current_state`` is None when Airflow could not be asked (heartbeat loss, API down): that is
    infrastructure by definition, so the job is left running — unless this is the ``last_try``: then
    no retry will ever reconnect to the job, and leaving it would orphan it.
    """
    if policy == "always":
        return True
    if policy == "never":
        return False
    if last_try:
        return True
    if current_state is None:
        return False
    return current_state != still_alive_state


def no_retry_left(ti: Any) -> bool:
    """True when Airflow will not retry this try if it fails: the server's own ``should_retry`` for it
    (Airflow 3: it counts tries, ``max_tries`` and clears), else Airflow 2's ``is_eligible_to_retry``."""
    context = getattr(ti, "_ti_context_from_server", None)
    should_retry = getattr(context, "should_retry", None)
    if isinstance(should_retry, bool):
        return not should_retry
    eligible = getattr(ti, "is_eligible_to_retry", None)
    if callable(eligible):
        try:
            return not eligible()
        except Exception:  # noqa: BLE001 - not answerable: assume a retry (the job is left for it)
            return False
    return False


def ti_state(dag_id: str, run_id: str, task_id: str, map_index: int | None) -> str | None:
    """This task instance's state as Airflow reports it now (Task SDK comms).

    A cleared task instance has no state: that comes back as ``"none"``. ``None`` means Airflow
    could not be asked at all.
    """
    try:
        from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance
    except ImportError:  # Airflow 2: no Task SDK, but the task process reaches the metadata DB
        return _ti_state_from_db(dag_id, run_id, task_id, map_index)
    try:
        states = RuntimeTaskInstance.get_task_states(
            dag_id=dag_id, map_index=_mapped(map_index), task_ids=[task_id], run_ids=[run_id],
        )
    except Exception:
        log.warning(
            "durable-jobs: could not ask Airflow for the task state; treating the kill as infrastructure",
            exc_info=True,
        )
        return None
    return _state_in(states, run_id, task_id, map_index)


async def ati_state(dag_id: str, run_id: str, task_id: str, map_index: int | None, *, timeout: float) -> str | None:
    """:func:`ti_state` from a trigger: over the Task SDK channel's async path (the trigger loop never waits on
    a thread), for at most ``timeout`` seconds. The triggerer's supervisor answers it in the loop that also
    writes the triggerer's heartbeat, so a trigger asks only when it must."""
    try:
        from airflow.sdk.execution_time import task_runner
        from airflow.sdk.execution_time.comms import GetTaskStates
    except ImportError:  # Airflow 2: no Task SDK channel; its triggers are never asked to decide this
        return None
    asend = getattr(getattr(task_runner, "SUPERVISOR_COMMS", None), "asend", None)
    if asend is None:
        return None
    ask = GetTaskStates(dag_id=dag_id, map_index=_mapped(map_index), task_ids=[task_id], run_ids=[run_id])
    try:
        reply = await asyncio.wait_for(asend(ask), timeout)
    except Exception:
        log.warning("durable-jobs: Airflow did not tell the task state within %.0f s; treating the kill as "
                    "infrastructure", timeout, exc_info=True)
        return None
    return _state_in(getattr(reply, "task_states", None) or {}, run_id, task_id, map_index)


def _mapped(map_index: int | None) -> int | None:
    return map_index if map_index is not None and map_index >= 0 else None


def _state_in(states: dict[str, Any], run_id: str, task_id: str, map_index: int | None) -> str | None:
    by_task = states.get(run_id) or {}
    name = task_id if map_index is None or map_index < 0 else f"{task_id}_{map_index}"
    if name not in by_task:
        return None
    state = by_task[name]
    return "none" if state is None else str(getattr(state, "value", state))


def _ti_state_from_db(dag_id: str, run_id: str, task_id: str, map_index: int | None) -> str | None:
    """Airflow 2: read the state from the metadata DB (a user's mark-failed/clear lands there first)."""
    try:
        from airflow.models.taskinstance import TaskInstance
        from airflow.utils.session import create_session
    except ImportError:
        return None
    try:
        with create_session() as session:
            row = (
                session.query(TaskInstance.state)
                .filter(
                    TaskInstance.dag_id == dag_id, TaskInstance.run_id == run_id,
                    TaskInstance.task_id == task_id,
                    TaskInstance.map_index == (map_index if map_index is not None else -1),
                )
                .one_or_none()
            )
    except Exception:
        log.warning(
            "durable-jobs: could not read the task state; treating the kill as infrastructure", exc_info=True
        )
        return None
    if row is None:
        return None
    state = row[0]
    return "none" if state is None else str(getattr(state, "value", state))


#: How long ``on_kill``, inside the SIGTERM handler, waits for its cancel before it lets the interrupted code go on
#: (a lock that code holds is released only once it runs again). Airflow SIGKILLs a task process 5 s after a
#: server-side SIGTERM: 2 s here leaves the rest for the cancel to finish once that lock is free.
HANDLER_WAIT_SECONDS = 2.0


def cancel_from_worker(
    *, policy: str, ti: Any, job_id: Any, client: JobClient, logger: Any = None, last_try: bool = False
) -> threading.Thread:
    """The operator's ``on_kill``: cancel ``job_id`` if ``policy`` says this kill was a user's, or if
    this is the ``last_try`` (no retry would ever reconnect: the job would be orphaned).

    ``on_kill`` runs inside the SIGTERM handler, on top of whatever the main thread was doing. When that held
    a lock the cancel needs — the supervisor channel (an XCom push, a state-store write), structlog's write lock
    (a log line), a connection pool's — doing the work in the handler would wait on it forever and the job
    would be orphaned at the SIGKILL. So the work runs on a thread; the handler waits for it up to
    ``HANDLER_WAIT_SECONDS`` (not at all when a lock it knows of is held), then returns so that the
    interrupted code releases what it holds. The caller joins the returned thread before the try ends.
    """
    logger = logger or log
    held = held_locks()
    worker = threading.Thread(
        target=_cancel_logged, args=(policy, ti, job_id, client, logger, last_try, held),
        name="durable-jobs-on-kill",
    )
    worker.start()
    if not held:
        worker.join(HANDLER_WAIT_SECONDS)
    return worker


def _cancel_logged(
    policy: str, ti: Any, job_id: Any, client: JobClient, logger: Any, last_try: bool, held: list[str]
) -> None:
    """The thread's work: say why it waited, decide and cancel; an error is logged with what to do, not lost
    in a thread's traceback."""
    if held:
        logger.info("on_kill interrupted a call holding %s: asked again from a thread once it returned",
                    " and ".join(held))
    try:
        _cancel_if_user_stopped(policy, ti, job_id, client, logger, last_try)
    except Exception as err:  # noqa: BLE001 - reported with the way out; the try fails on its own
        logger.error("on_kill could not cancel %s %s %s (%s): cancel it in %s's console, or with "
                     "`durable-jobs reconcile --cancel`.", client.vendor, client.unit, job_id, err, client.vendor,
                     exc_info=True)


def _cancel_if_user_stopped(
    policy: str, ti: Any, job_id: Any, client: JobClient, logger: Any, last_try: bool = False
) -> None:
    current = None
    if policy == "user" and ti is not None and not last_try:
        current = ti_state(ti.dag_id, ti.run_id, ti.task_id, ti.map_index)
    if policy == "user" and last_try:
        logger.warning(
            "on_kill on the last try (Airflow will not retry this task): cancelling %s %s %s, which no retry "
            "would ever reconnect to. A later clear of this task starts a fresh job.", client.vendor, client.unit,
            job_id,
        )
        client.cancel(job_id)
        return
    if not decide_cancel(policy, current, still_alive_state="running"):
        logger.warning(
            "on_kill while Airflow shows this task as %s: the kill came from the infrastructure "
            "(eviction, deploy, heartbeat loss), so %s job %s keeps running and the retry reconnects.",
            current, client.vendor, job_id,
        )
        return
    logger.info("Task stopped by a user (now %s): cancelling %s job %s", current, client.vendor, job_id)
    client.cancel(job_id)


def held_locks() -> list[str]:
    """The locks, among those a cancel needs, that are held right now (when called from the SIGTERM handler:
    most likely by the very code it interrupted)."""
    held = []
    if _comms_busy():
        held.append("the supervisor channel")
    if _structlog_writing():
        held.append("the log writer")
    return held


def _comms_busy() -> bool:
    """True when this task process is in the middle of a call to its supervisor (Task SDK comms)."""
    try:
        from airflow.sdk.execution_time import task_runner
    except ImportError:
        return False
    lock = getattr(getattr(task_runner, "SUPERVISOR_COMMS", None), "_thread_lock", None)
    locked = getattr(lock, "locked", None)
    return bool(locked and locked())


def _structlog_writing() -> bool:
    """True while a structlog logger writes a line: it holds a plain lock per file (``structlog._output``), and
    the Task SDK sends every log line of the task process through one."""
    if "structlog._output" not in sys.modules:  # nothing logs through structlog (Airflow 2): no such lock
        return False
    from structlog import _output  # already imported: no import lock is taken inside the signal handler

    locks = getattr(_output, "WRITE_LOCKS", None)
    if locks is None:
        return False
    try:
        return any(lock.locked() for lock in list(locks.values()))
    except RuntimeError:  # a weak dictionary changed size under us: no verdict, wait as for an unknown lock
        return False

"""``DurableJobMixin``: the one place that owns the checkpoint protocol (docs/architecture.md).

Order of events for one task instance::

    read checkpoint ──► decide ──► new epoch: write intent (nonce) ─► submit(key) ─► write id
                          │                                                     │
                          ├── reconnect / same-key resubmit ────────────────────┤
                          └── already succeeded ─► result                       ▼
                                              sync: poll ─► record outcome ─► result
                                              deferrable: defer(JobTrigger) ─► execute_complete
                                              wait_for_termination=False: return (accepted ≠ succeeded)

Two keys in ``task_state_store``: ``<external_id_key>_durable`` holds our record; the bare
external id stays under ``external_id_key`` exactly as the official operators write it, so a user
who switches back to the official operator still reconnects. The record is also copied to an XCom
of its name, for the failure callback Airflow's DAG processor runs (``durable_jobs.core.orphans``).
"""

from __future__ import annotations

import json
import time
from abc import abstractmethod
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from durable_jobs.core.arguments import flag, seconds
from durable_jobs.core.cancel import no_retry_left, official_takes_boolean, validate_policy
from durable_jobs.core.checkpoint import (
    STATUS_FAILED,
    STATUS_SUCCEEDED,
    STATUS_UNSENT,
    CheckpointRecord,
    fingerprint,
    parse_record,
    stable_json,
)
from durable_jobs.core.client import JobClient
from durable_jobs.core.decision import Action, TryInfo, decide
from durable_jobs.core.ending import TryEnding, error_from_event
from durable_jobs.core.exceptions import (
    CheckpointError,
    DurableJobError,
    IdempotencyKeyBurnedError,
    JobFailedError,
    UnknownJobStateError,
    VendorCallError,
    WrongSetupError,
)
from durable_jobs.core.faults import cap
from durable_jobs.core.orphans import chain_failure_callbacks, deferral_timeout
from durable_jobs.core.polling import JobWatch, PollPolicy
from durable_jobs.core.resend import submit_once, wrong_setup_error
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.core.trigger import EVENT_ERROR, EVENT_FAILED, EVENT_POLL_LIMIT, EVENT_SUCCESS, JobTrigger
from durable_jobs.core.wrong_setup import wrong_setup
from durable_jobs.shims import (
    AIRFLOW_V_3_3_PLUS,
    NEVER_EXPIRE,
    AirflowTaskTimeout,
    ResumableJobMixin,
    apply_defaults,
    has_state_store,
    warn_durable_unsupported,
)

if TYPE_CHECKING:

    from airflow.sdk import BaseOperator, Context
    from airflow.sdk.types import RuntimeTaskInstanceProtocol

    _Operator = BaseOperator  # the mixin is always mixed into an operator
else:
    _Operator = object

CHECKPOINT_SUFFIX = "_durable"
_T = TypeVar("_T")
#: What ``task_state_store`` is to us: get / set (with ``retention``).
Store = Any


class DurableJobMixin(TryEnding, ResumableJobMixin, _Operator):
    """Exactly-once submission for any operator with a ``JobClient``; put it first in the bases.

    Subclasses provide ``make_job_client()``, ``prepare_request()`` and ``poll_interval_argument``
    and, where the vendor needs it, ``on_job_known()``, ``wait_for_job()``, ``job_result()`` and
    ``on_failed_event()``. Nothing here names a vendor's arguments: errors name the argument the
    user passed, through ``poll_interval_argument`` and ``user_token_argument``.
    """

    #: Attributes (besides template fields) whose value is part of the request the user wrote.
    durable_request_fields: ClassVar[tuple[str, ...]] = ()
    #: The official operator's argument carrying a user's own idempotency token, if it has one;
    #: the token is combined with the epoch's key (``JobClient.format_key``).
    user_token_argument: ClassVar[str | None] = None

    @apply_defaults
    def __init__(
        self,
        *,
        durable: bool | None = None,
        cancel_on_kill: str | bool = "user",
        fresh_on_clear: bool = True,
        **kwargs: Any,
    ) -> None:
        if durable is not None:
            flag("durable", durable)
        if durable is not None and not AIRFLOW_V_3_3_PLUS:
            warn_durable_unsupported()
        elif durable is not None:
            kwargs["durable"] = durable
        # Some official operators replace a missing token with a generated one: remember whether
        # the *user* gave one (the value itself is read after rendering).
        token_arg = self.user_token_argument
        self._durable_user_token_given = bool(token_arg and kwargs.get(token_arg))
        super().__init__(**kwargs)
        if not AIRFLOW_V_3_3_PLUS:
            self.durable = False
        self.cancel_on_kill = validate_policy(cancel_on_kill, official_boolean=official_takes_boolean(type(self)))
        self.fresh_on_clear = flag("fresh_on_clear", fresh_on_clear)
        if seconds(self.poll_interval_argument, getattr(self, self.poll_interval_argument)) == 0:
            # The official operators accept it (their own tests use it): every poll is an API call.
            self.log.warning("%s: %s=0 polls without pausing, one status call after another; the vendor's "
                             "rate limits may answer 429s (which the fault policy then waits out).",
                             self.task_id, self.poll_interval_argument)
        self.make_job_client()  # validates the vendor arguments (retry limits, mode) at DAG-parse time
        if getattr(self, "deferrable", False) and not getattr(self, "wait_for_termination", True):
            self.log.warning(
                "%s: deferrable=True with wait_for_termination=False neither defers nor polls: the task "
                "succeeds when the job is *accepted*. Set wait_for_termination=True to wait in the "
                "triggerer, or keep the split and let a sensor report the job's outcome.",
                self.task_id,
            )
        # The request as the user wrote it, before templates are rendered: a `{{ ti.try_number }}`
        # in a field must not make every retry look like a changed request.
        self._durable_raw_request = stable_json(self._raw_request())
        self._job_id: Any = None
        self._durable_ti: RuntimeTaskInstanceProtocol | None = None
        # What on_kill needs when Airflow's execution_timeout interrupts the try.
        self._durable_store: Store | None = None
        self._durable_record: CheckpointRecord | None = None
        self._durable_cancelled = False
        # The thread on_kill's cancel runs on (durable_jobs.core.cancel): the try waits for it before it ends.
        self._durable_kill = None
        # The bare id this process last wrote under ``external_id_key``: the outcome write need not repeat it.
        self._durable_bare_id: Any = None
        # How this try's execute (or its resumption) ended, once it has (ending.TRY_*): on_kill after that
        # is Airflow ending a process that outlived its terminal state, not a kill of the running try.
        self._durable_try_over = None
        # Whether this try copied a record to XCom: None in a process that did not run the try (the DAG processor
        # running the failure callback, a resumed deferral), where only reading the XCom tells.
        self._durable_published: bool | None = None

    def _convert_on_failure_callback(self, value: Any) -> Any:
        """Airflow's ``BaseOperator.__setattr__`` runs this on every assignment (``__init__`` included): the
        user's callbacks are kept, ours goes first (``durable_jobs.core.orphans``; Airflow 3.3+ only)."""
        return chain_failure_callbacks(value) if AIRFLOW_V_3_3_PLUS else value

    # ----------------------------------------------------------------- subclass surface
    @abstractmethod
    def make_job_client(self) -> JobClient:
        """The vendor's client, built from the operator's own connection and retry arguments."""

    @abstractmethod
    def prepare_request(self, context: Context, *, fresh_key: bool) -> Mapping[str, Any]:
        """The request to send (per-try decoration allowed); ``fresh_key`` is False on a same-key resend."""

    @property
    @abstractmethod
    def poll_interval_argument(self) -> str:
        """The official operator's own name for its polling interval (a class attribute will do)."""

    @property
    def poll_interval_seconds(self) -> float:
        return float(getattr(self, self.poll_interval_argument))

    def user_idempotency_token(self) -> str | None:
        """The user's own token (``user_token_argument``), rendered; None when there is none."""
        name = self.user_token_argument
        if not name or not self._durable_user_token_given:
            return None
        value = getattr(self, name, None)
        return str(value) if value else None

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """Push the operator's XComs; runs on submit, reconnect and already-succeeded alike."""

    def wait_for_job(self, context: Context, job_id: Any) -> JobStatus:
        """Poll until the job ends, under the shared fault policy; return its terminal status.

        Failed status calls and unknown states are the policy's (``durable_jobs.core.polling``): it raises
        only when its budget is spent or the fault is final, and the job may then still be running.
        """
        client = self.job_client
        watch = JobWatch(client, job_id, self.poll_policy(), log=self.log)
        limit, polls = self.max_polls(), 0
        while True:
            try:
                status = client.status(job_id)
            except Exception as err:
                time.sleep(watch.failed(err))
                continue
            final = watch.seen(status)
            if final is not None:
                return final
            self.on_poll(context, job_id, status)
            polls += 1
            if limit is not None and polls >= limit:
                self.on_poll_limit(job_id)
            time.sleep(watch.delay())

    def call_vendor(self, job_id: Any, call: Callable[[], _T]) -> _T:
        """A vendor call besides the status poll (a job's link or parent id for an XCom), under the same
        fault policy: a transient fault right after a submit must not fail a try whose job is fine."""
        watch = JobWatch(self.job_client, job_id, self.poll_policy(), log=self.log)
        while True:
            try:
                return call()
            except Exception as err:
                time.sleep(watch.failed(err))

    def poll_policy(self) -> PollPolicy:
        """The interval (the operator's own argument) and the ``[durable_jobs]`` budgets."""
        return PollPolicy.from_config(self.poll_interval_seconds)

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        """Say where an active job stands after each synchronous poll (vendors use the official lines)."""
        self.log.info("%s %s %s is %s", self.job_client.vendor, self.job_client.unit, job_id, status.state)

    def max_polls(self) -> int | None:
        """Status checks before the wait gives up, on both paths (None: wait until the job ends)."""
        return None

    def on_poll_limit(self, job_id: Any) -> None:
        """``max_polls`` reached with the job still active: must raise."""
        raise DurableJobError(
            f"{self.job_client.vendor} {self.job_client.unit} {job_id} still active after {self.max_polls()} polls"
        )

    def job_result(self, context: Context, job_id: Any) -> Any:
        return None

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        """What the task returns with ``wait_for_termination=False`` (the official operator's value)."""
        return None

    def on_failed_job(self, context: Context, job_id: Any, status: JobStatus) -> bool:
        """Restart a failed job in place (for example repair it); True: wait for the same job again."""
        return False

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The error a failed or vanished job raises; vendors put the official operator's text first."""
        return self._failure(job_id, status)

    def trigger_echo(self) -> dict[str, Any]:
        """Small serialisable data the trigger hands back in its event."""
        return {}

    def restore_from_echo(self, echo: dict[str, Any]) -> None:
        """Take back what ``trigger_echo`` gave the trigger (the operator is rebuilt after a deferral)."""

    # ----------------------------------------------------------------- helpers
    @cached_property
    def job_client(self) -> JobClient:
        return self.make_job_client()

    @property
    def checkpoint_key(self) -> str:
        return f"{self.external_id_key}{CHECKPOINT_SUFFIX}"

    def _raw_request(self) -> dict[str, Any]:
        names = [*self.template_fields, *self.durable_request_fields]
        raw = {name: getattr(self, name, None) for name in dict.fromkeys(names)}
        return {name: value for name, value in raw.items() if value is not None}

    def _failure(self, job_id: Any, status: JobStatus) -> JobFailedError:
        vendor, unit = self.job_client.vendor, self.job_client.unit
        if status.phase is JobPhase.MISSING:
            text = (f"{vendor} {unit} {job_id} no longer exists (deleted, or its history expired)"
                    f"{': ' + cap(status.message, 500) if status.message else ''}. A retry submits a new {unit}.")
        else:
            text = (f"{vendor} {unit} {job_id} ended {status.state}"
                    f"{': ' + cap(status.message, 2000) if status.message else ''}. A retry submits a new {unit}.")
        return JobFailedError(text, job_id=job_id, state=status.state)

    def _try_info(self, context: Context) -> TryInfo:
        ti = context["ti"]
        retries = int(self.retries or 0)
        max_tries = getattr(ti, "max_tries", None)
        return TryInfo(
            try_number=int(ti.try_number), max_tries=int(max_tries if max_tries is not None else retries),
            retries=retries,
        )

    def _store(self, context: Context) -> Store | None:
        if not self.durable or context is None:  # the official operators accept context=None (no XComs)
            return None
        if not has_state_store():
            return None
        store = context.get("task_state_store") if context else None
        if store is None:
            self.log.warning("task_state_store is not in the context: crash recovery is off for this try")
        return store

    def _read(self, store: Store) -> CheckpointRecord | None:
        try:
            value = store.get(self.checkpoint_key)
            key = self.checkpoint_key
            if value is None:
                value, key = store.get(self.external_id_key), self.external_id_key
        except Exception as err:
            raise CheckpointError(
                f"could not read the checkpoint {self.checkpoint_key!r} from task_state_store ({err}). "
                "Failing this try instead of submitting: the job it records may be running. The next "
                "try reads it again."
            ) from err
        return parse_record(value, key=key)

    def _write(self, store: Store, record: CheckpointRecord) -> None:
        store.set(self.checkpoint_key, record.to_json(), retention=NEVER_EXPIRE)
        if record.id is not None and record.id != self._durable_bare_id:
            store.set(self.external_id_key, record.id, retention=NEVER_EXPIRE)
            self._durable_bare_id = record.id
        if record.status is None:  # an outcome needs no copy: the failure callback asks the vendor anyway
            self._publish(record)

    def _publish(self, record: CheckpointRecord) -> None:
        """Copy the record to an XCom of the same name: the only per-task data the DAG processor, which runs
        ``on_failure_callback`` for a task Airflow failed itself, can read (``durable_jobs.core.orphans``)."""
        ti = self._durable_ti
        if ti is None:
            return
        try:
            ti.xcom_push(key=self.checkpoint_key, value=record.to_json())
            self._durable_published = True
        except Exception as err:
            self.log.warning("Could not copy the job record to XCom %r (%s): if this try is killed for good, "
                             "`durable-jobs reconcile` finds the job instead.", self.checkpoint_key, cap(err, 300))

    def _key(self, record: CheckpointRecord) -> str:
        if record.key is None:
            if record.nonce is None:  # a bare upstream id carries no key; it is never resent
                raise CheckpointError(f"{self.checkpoint_key}: a legacy record has no idempotency key")
            record.key = self.job_client.format_key(record.nonce, self.user_idempotency_token())
        return record.key

    # ----------------------------------------------------------------- the protocol
    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    def execute_resumable(self, context: Context) -> Any:
        with self._the_try():
            return self._run_protocol(context)

    def _run_protocol(self, context: Context) -> Any:
        self._durable_ti = _ti_of(context)
        self._durable_published = False
        store = self._store(context)
        if store is None:
            return self._execute_fresh(context)
        record = self._read(store)
        now = self._try_info(context)
        digest, fields = fingerprint(self._durable_raw_request)
        client = self.job_client
        intent_time = record.intent_time if record else None
        decision = decide(
            record, now=now, request_fingerprint=digest, request_fields=fields,
            # the retry's own questions go through the fault policy too: a 503 must not fail it
            status_of=lambda job_id: self.call_vendor(job_id, lambda: client.status(job_id)),
            find=lambda key: self.call_vendor(key, lambda: client.find(key, since=intent_time)),
            key_of=self._key, fresh_on_clear=self.fresh_on_clear,
        )
        if decision.changed:
            self.log.warning("durable-jobs: %s; starting a new job", decision.reason)
        else:
            self.log.info("durable-jobs: %s", decision.reason)

        if decision.action is Action.RESULT:
            assert record is not None  # decide() starts a new epoch when there is no record
            record = self._adopt(store, record, decision.job_id, status=STATUS_SUCCEEDED)
            self._job_id = decision.job_id
            self.on_job_known(context, decision.job_id, reconnected=True)
            return self.job_result(context, decision.job_id)
        if decision.action is Action.RECONNECT:
            assert record is not None
            record = self._adopt(store, record, decision.job_id)
            self._job_id = decision.job_id
            self.on_job_known(context, decision.job_id, reconnected=True)
            return self._after_submit(context, store, record, decision.job_id)
        if decision.action is Action.RESUBMIT_SAME_KEY:
            assert record is not None
            unsent = record.status == STATUS_UNSENT
            if unsent:  # the mark must go before the key can leave: a crash after sending must look again
                record.status = None
                self._write(store, record)
            try:
                job_id = self._submit(context, store, record, fresh_key=False, first_contact=unsent)
            except IdempotencyKeyBurnedError as err:
                self.log.warning("durable-jobs: %s; starting a new epoch", err)
                record, job_id = self._new_epoch(context, store, now, digest, fields)
        else:
            record, job_id = self._new_epoch(context, store, now, digest, fields)
        self.on_job_known(context, job_id, reconnected=False)
        return self._after_submit(context, store, record, job_id)

    def _adopt(
        self, store: Store, record: CheckpointRecord, job_id: Any, *, status: str | None = None
    ) -> CheckpointRecord:
        """Make the record name ``job_id`` (found by key, or a legacy value) before going on."""
        if record.legacy:
            return record
        if record.id != job_id or (status and record.status != status):
            record.id = job_id
            record.status = status or record.status
            self._write(store, record)
        else:
            self._publish(record)  # Airflow cleared the XComs when this try started
        self._durable_store, self._durable_record = store, record
        return record

    def _new_epoch(
        self, context: Context, store: Store, now: TryInfo, digest: str, fields: dict[str, str]
    ) -> tuple[CheckpointRecord, Any]:
        record = CheckpointRecord.start_epoch(
            request_fingerprint=digest, fields=fields, try_number=now.try_number, max_tries=now.max_tries,
            retries=now.retries, client=self.job_client.classpath(),
            client_kwargs=self.job_client.serialize(),
        )
        self._key(record)
        self._write(store, record)  # the intent, before anything reaches the vendor
        return record, self._submit(context, store, record, fresh_key=True, first_contact=True)

    def _submit(
        self, context: Context, store: Store | None, record: CheckpointRecord, *, fresh_key: bool,
        first_contact: bool = False,
    ) -> Any:
        try:
            request = self._prepared(context, fresh_key=fresh_key, first_contact=first_contact)
            key = self._key(record)  # after the request, as before: a request's own errors come first
            job_id = submit_once(self.job_client, request, key, self.poll_policy(), log=self.log,
                                 first_contact=first_contact)
        except WrongSetupError:
            if store is not None and first_contact:  # the key never left: the next try sends it without a lookup
                record.status = STATUS_UNSENT
                self._write(store, record)
            raise
        self._job_id = job_id
        record.id = job_id
        self._durable_store, self._durable_record = store, record
        if store is not None:
            self._write(store, record)
        self.log.info("Submitted %s %s %s with idempotency key %s", self.job_client.vendor, self.job_client.unit,
                      job_id, key)
        return job_id

    def _prepared(self, context: Context, *, fresh_key: bool, first_contact: bool) -> Mapping[str, Any]:
        """``prepare_request``, whose vendor calls (a Glue job looked up, a cluster resolved) meet a wrong setup
        first: on a first contact nothing was submitted yet, so it fails the try at once as the submit would."""
        try:
            return self.prepare_request(context, fresh_key=fresh_key)
        except Exception as err:
            setup = wrong_setup(err) if first_contact else None
            if setup is None:
                raise
            raise wrong_setup_error(self.job_client, setup) from err

    def _execute_fresh(self, context: Context) -> Any:
        """No store (durable=False, or Airflow < 3.3): submit anew, still under a per-try key."""
        record = CheckpointRecord.start_epoch(
            request_fingerprint="", fields={}, try_number=0, max_tries=0, retries=0,
            client=self.job_client.classpath(),
        )
        job_id = self._submit(context, None, record, fresh_key=True, first_contact=True)
        self.on_job_known(context, job_id, reconnected=False)
        return self._after_submit(context, None, record, job_id)

    def _after_submit(self, context: Context, store: Store | None, record: CheckpointRecord, job_id: Any) -> Any:
        if not getattr(self, "wait_for_termination", True):
            self.log.info(
                "wait_for_termination=False: %s %s %s was accepted, which is not success. A sensor on "
                "this job (or wait_for_termination=True) reports its outcome.",
                self.job_client.vendor, self.job_client.unit, job_id,
            )
            return self.accepted_result(context, job_id)
        if getattr(self, "deferrable", False):
            return self._defer(context, store, record, job_id)
        try:
            while True:
                status = self.wait_for_job(context, job_id)
                if status.phase is JobPhase.SUCCEEDED or not self.on_failed_job(context, job_id, status):
                    return self._finish(context, store, record, job_id, status)
        except AirflowTaskTimeout:
            self._cancel_orphan(job_id, store, record, "execution_timeout, the task's own bound, was reached")
            raise
        except (VendorCallError, UnknownJobStateError):
            if no_retry_left(self._durable_ti):
                self._cancel_orphan(job_id, store, record, "the last try failed while the job may still run")
            raise

    def _finish(
        self, context: Context, store: Store | None, record: CheckpointRecord | None, job_id: Any, status: JobStatus
    ) -> Any:
        """The job ended: record the outcome (so expired vendor history is not read as "never ran")."""
        if status.phase is JobPhase.SUCCEEDED:
            if record is not None:
                self._record(store, record, STATUS_SUCCEEDED)
            return self.job_result(context, job_id)
        if record is not None:
            self._record(store, record, STATUS_FAILED)
        raise self.failure_error(context, job_id, status)

    def _record(self, store: Store | None, record: CheckpointRecord, status: str) -> None:
        """Best effort: without it the retry asks the vendor, so a failed write must not fail the task."""
        if store is None or record.legacy:
            return
        record.status = status
        try:
            self._write(store, record)
        except Exception as err:
            self.log.warning(
                "Could not record that %s %s %s %s (%s); a retry will ask %s instead.",
                self.job_client.vendor, self.job_client.unit, record.id, status.lower(), err, self.job_client.vendor,
            )

    def validate_for_deferral(self) -> None:
        """Refuse, before ``defer()``, what cannot cross to the triggerer (as the official trigger would)."""

    def _defer(self, context: Context, store: Store | None, record: CheckpointRecord | None, job_id: Any) -> Any:
        try:
            status = self.job_client.status(job_id)
        except Exception as err:  # the trigger bears faults under the policy; only a final one stops here
            JobWatch(self.job_client, job_id, self.poll_policy(), log=self.log).failed(err)
            status = JobStatus(JobPhase.ACTIVE, "?", "status unknown at defer time")
        if status.is_terminal:
            if status.phase is not JobPhase.SUCCEEDED and self.on_failed_job(context, job_id, status):
                return self._defer(context, store, record, job_id)
            return self._finish(context, store, record, job_id, status)
        self.validate_for_deferral()
        client, policy = self.job_client, self.poll_policy()
        self.defer(
            trigger=JobTrigger(
                client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                poll_interval=policy.interval, jitter=policy.jitter, error_budget=policy.error_budget,
                unknown_state_budget=policy.unknown_state_budget, cancel_on_kill=self.cancel_on_kill,
                echo=self.trigger_echo(), max_polls=self.max_polls(),
            ),
            method_name="execute_complete",
            # execution_timeout bounds the deferral too (Airflow 3.3.2 leaves a deferral without one unbounded)
            timeout=deferral_timeout(self.execution_timeout, getattr(self._durable_ti, "start_date", None)),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if isinstance(event, dict) and "client" not in event:
            return self._resume_official_event(context, event)
        # ``durable_status``: ``status`` is the official trigger's word (JobTrigger's events carry both)
        kind = event.get("durable_status") if isinstance(event, dict) else None
        if not isinstance(event, dict) or kind not in (EVENT_SUCCESS, EVENT_FAILED, EVENT_ERROR, EVENT_POLL_LIMIT):
            raise DurableJobError(f"{self.task_id}: unexpected trigger event {cap(event, 500)}")
        self._durable_ti = _ti_of(context)
        job_id = event.get("job_id")
        if job_id is None:
            raise DurableJobError(f"{self.task_id}: trigger event has no job_id: {cap(event, 500)}")
        store = self._store(context)
        record = self._read(store) if store is not None else None
        self._durable_store, self._durable_record = store, record  # on_kill's, if execution_timeout strikes now
        if record is not None and record.id is not None and not _same_job(record.id, job_id):
            return self._resume_stale_event(context, store, record, job_id, kind)
        self._job_id = job_id
        if kind in (EVENT_ERROR, EVENT_POLL_LIMIT) and no_retry_left(self._durable_ti):
            self._cancel_orphan(job_id, store, record, "the last try failed while the job may still run")
        if kind == EVENT_ERROR:
            raise error_from_event(event, self.job_client, job_id)
        if kind == EVENT_POLL_LIMIT:
            self.on_poll_limit(job_id)  # the official bound on the wait, on the deferrable path too
            raise DurableJobError(f"{self.task_id}: on_poll_limit returned instead of raising")
        self.restore_from_echo(dict(event.get("echo") or {}))
        status = JobStatus(
            JobPhase(event.get("phase") or JobPhase.FAILED.value), event.get("state") or "",
            event.get("message") or "",
        )
        if status.phase is not JobPhase.SUCCEEDED and self.on_failed_job(context, job_id, status):
            return self._defer(context, store, record, job_id)
        return self._finish(context, store, record, job_id, status)

    def _resume_stale_event(
        self, context: Context, store: Store, record: CheckpointRecord, job_id: Any, kind: str | None
    ) -> Any:
        """An event about another job than the one the checkpoint records: an earlier try's trigger, still running
        when that try ended, fired into this try's deferral (Airflow resumes the task instances of the trigger
        row the event names, and a metadata DB may give a new trigger the id of a deleted one: seen on SQLite, the
        timed-out try's trigger telling this try that the run it had cancelled was cancelled). Taking it would
        fail this try for a job that is not its own and start another: watch the recorded job instead."""
        self.log.warning(
            "A trigger event about %s %s %s (%s) reached this try, whose checkpoint records %s %s: it is an "
            "earlier try's event (its trigger outlived that try). Ignoring it and watching %s %s.",
            self.job_client.vendor, self.job_client.unit, job_id, kind, self.job_client.unit, record.id,
            self.job_client.unit, record.id,
        )
        self._job_id = record.id
        return self._defer(context, store, record, record.id)

    #: Where the official operator's trigger event carries the job's id (dots reach into a nested
    #: object); a task deferred by the official operator resumes with ours after the import was switched.
    official_event_id_keys: ClassVar[tuple[str, ...]] = ("job_id", "run_id", "value")

    def on_official_event(self, context: Context, event: dict[str, Any], job_id: Any) -> None:
        """Honour what the official operator's event means where it is more than a status (may raise)."""

    def _resume_official_event(self, context: Context, event: dict[str, Any]) -> Any:
        """The official trigger's event: take its job id and its outcome (or ask the vendor), then finish
        the job or watch it with our trigger."""
        job_id = next((v for v in (_dig(event, k) for k in self.official_event_id_keys) if v is not None), None)
        if job_id is None:
            raise DurableJobError(f"{self.task_id}: unexpected trigger event {cap(event, 500)}")
        self.log.info(
            "Resuming from the official operator's trigger (the import changed while the task was deferred): "
            "%s %s %s", self.job_client.vendor, self.job_client.unit, job_id,
        )
        self._durable_ti = _ti_of(context)
        self._job_id = job_id
        self.restore_from_echo(event)
        self.on_official_event(context, event, job_id)
        store = self._store(context)
        record = self._read(store) if store is not None else None
        self.on_job_known(context, job_id, reconnected=True)
        status = self.job_client.status_from_official_event(event)
        if status is None or not status.is_terminal:
            return self._defer(context, store, record, job_id)
        if status.phase is not JobPhase.SUCCEEDED and self.on_failed_job(context, job_id, status):
            return self._defer(context, store, record, job_id)
        return self._finish(context, store, record, job_id, status)

    # ----------------------------------------------------------------- ResumableJobMixin surface
    # The SDK's abstract methods, for code that calls them directly; execute_resumable above does
    # not go through them.
    def submit_job(self, context: Context) -> Any:
        record = CheckpointRecord.start_epoch(
            request_fingerprint="", fields={}, try_number=0, max_tries=0, retries=0,
            client=self.job_client.classpath(),
        )
        return self._submit(context, None, record, fresh_key=True)

    # They answer in the vendor's own states, as the official operators do.
    def get_job_status(self, external_id: Any, context: Context) -> str:
        return self.job_client.status(external_id).state

    def is_job_active(self, status: str) -> bool:
        # a state the table does not list is never an end (as the official Glue operator reads one, too)
        return self.job_client.phase_of(status) in (JobPhase.ACTIVE, JobPhase.UNKNOWN)

    def is_job_succeeded(self, status: str) -> bool:
        return self.job_client.phase_of(status) is JobPhase.SUCCEEDED

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        status = self.wait_for_job(context, external_id)
        if status.phase is not JobPhase.SUCCEEDED:
            raise self.failure_error(context, external_id, status)

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        return self.job_result(context, external_id)

    # ----------------------------------------------------------------- kill, and no orphans
    # How a try ends early — a kill, Airflow's timeout, the last try — is TryEnding's (durable_jobs.core.ending).
    def resume_execution(self, next_method: str, next_kwargs: dict[str, Any] | None, context: Context) -> Any:
        with self._the_try():
            self._before_resume(next_method, next_kwargs, context)
            return super().resume_execution(next_method, next_kwargs, context)


def _same_job(recorded: Any, told: Any) -> bool:
    """Whether two job ids name one job across a JSON round trip (the checkpoint's and an event's: a tuple comes
    back a list, a number may come back as its string)."""
    a, b = (json.loads(json.dumps(v, default=str)) for v in (recorded, told))
    return bool(a == b or str(a) == str(b))


def _ti_of(context: Context | None) -> RuntimeTaskInstanceProtocol | None:
    """The task instance, if there is a context (the official operators accept ``context=None``)."""
    return context.get("ti") if context else None


def _dig(event: Mapping[str, Any], dotted: str) -> Any:
    value: Any = event
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value

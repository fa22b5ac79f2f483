"""Drop-in durable ``GlueJobOperator``: each Glue job run is started exactly once.

Change one import line::

    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
    from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator

Same constructor arguments, template fields, XComs (``glue_job_run_id``), return value and extra links as the
official amazon-provider 9.39 operator, plus the mixin's ``cancel_on_kill`` and ``fresh_on_clear``; sync and
deferrable. Glue has no idempotency field: the key travels in a ``--durable_jobs_key`` job argument, and a retry
finds the run with ``GetJobRuns`` (``durable_jobs.providers.amazon.aws.clients.glue``).

Differences from the official operator, on purpose:

* ``stop_job_run_on_kill`` (official default False: a killed task leaves its run going) is superseded by
  ``cancel_on_kill``: the run is stopped only when a *user* stopped the task, on both paths.
* The synchronous path keeps the official loop's log lines (``verbose`` prints the run's CloudWatch logs).
"""


from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators import glue as _glue

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.glue import GlueJobClient
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


class GlueJobOperator(AwsDurableMixin, _glue.GlueJobOperator):
    """The official ``GlueJobOperator``, starting each Glue job run exactly once."""

    __init__ = with_official_signature(_glue.GlueJobOperator)

    @property
    def poll_interval_argument(self) -> str:
        return "waiter_delay" if self.deferrable else "job_poll_interval"

    def make_job_client(self) -> GlueJobClient:
        return GlueJobClient(self.aws_conn_id, job_name=self.job_name, **self._client_kwargs())

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        script_args = self._build_script_args(context)
        self.log.info("Initializing AWS Glue Job: %s. Wait for completion: %s", self.job_name,
                      self.wait_for_completion)
        # The Glue *job* (the definition, not a run): get-or-create is idempotent.
        hook = self.hook
        job_name = hook.create_or_update_glue_job() if self.update_config else hook.get_or_create_glue_job()
        return {"JobName": job_name, "Arguments": script_args, **(self.run_job_kwargs or {})}

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self._job_run_id = None  # let the official helper push the XCom and link again on this try
        self._set_job_run_id(context, job_id)

    def max_polls(self) -> int | None:
        """Deferred, the official trigger gives up after ``waiter_max_attempts``; synchronously it waits."""
        return max(1, int(self.waiter_max_attempts)) if self.deferrable else None

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        raise AirflowException(
            f"Error in glue job: run {job_id} of {self.job_name} still running after {self.waiter_max_attempts} "
            "checks (waiter_max_attempts). The run may still be running: the next try reconnects to it."
        )

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        """The official loop's lines (``GlueJobHook.job_completion``), and its CloudWatch logs when verbose."""
        if self.verbose:
            if getattr(self, "_log_tokens", None) is None:
                self._log_tokens = self.hook.LogContinuationTokens()
            self.hook.print_job_logs(job_name=self.job_name, run_id=job_id, continuation_tokens=self._log_tokens)
        self.log.info("Polling for AWS Glue Job %s current run state with status %s", self.job_name, status.state)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        # The official texts: FAILED/TIMEOUT from the hook's loop, any other end from poll_until_complete.
        if status.state in ("FAILED", "TIMEOUT"):
            text = f"Exiting Job {job_id} Run State: {status.state}"
        else:
            text = (f"Glue job run {job_id} for job {self.job_name} ended in state {status.state!r} "
                    "instead of succeeding")
        detail = f" ({cap(status.message, 2000)})" if status.message else ""
        return JobFailedError(f"{text}{detail}. A retry submits a new job run.", job_id=job_id, state=status.state)

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.log.info("AWS Glue Job: %s status: SUCCEEDED. Run Id: %s", self.job_name, job_id)
        if not self.deferrable and self.sleep_before_return:
            time.sleep(self.sleep_before_return)
        return job_id


__all__ = ["GlueJobOperator"]

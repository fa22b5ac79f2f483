"""Drop-in durable ``BatchOperator``: each AWS Batch job is submitted exactly once.

Change one import line::

    from airflow.providers.amazon.aws.operators.batch import BatchOperator
    from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator

Same constructor arguments, template fields, XComs, return value (the job id) and extra links as the official
amazon-provider 9.39 operator, plus the mixin's ``cancel_on_kill`` and ``fresh_on_clear``; sync and deferrable.
AWS Batch has no idempotency field: the key travels in the job name and a ``durable-jobs:key`` tag, and a retry
finds the job with ``ListJobs`` (``durable_jobs.providers.amazon.aws.clients.batch``).

Differences from the official operator, on purpose:

* ``on_kill`` cancels only when a *user* stopped the task (``cancel_on_kill="user"``), on both paths.
* The synchronous path polls every ``poll_interval`` seconds (the official one ignores it there and sleeps
  1-10 s at random).
"""


from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.links.batch import BatchJobDetailsLink
from airflow.providers.amazon.aws.operators import batch as _batch
from airflow.providers.amazon.aws.utils import trim_none_values

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


class BatchOperator(AwsDurableMixin, _batch.BatchOperator):
    """The official ``BatchOperator``, submitting each AWS Batch job exactly once."""

    __init__ = with_official_signature(_batch.BatchOperator)
    external_id_key = "batch_job_id"
    durable_request_fields = ("share_identifier", "scheduling_priority_override", "submit_job_timeout")
    poll_interval_argument = "poll_interval"

    def make_job_client(self) -> BatchJobClient:
        return BatchJobClient(
            self.aws_conn_id, job_queue=self.job_queue, job_name=self.job_name, **self._client_kwargs()
        )

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        self.log.info(
            "Running AWS Batch job - job definition: %s - on queue %s", self.job_definition, self.job_queue
        )
        args = {
            "jobName": self.job_name, "jobQueue": self.job_queue, "jobDefinition": self.job_definition,
            "arrayProperties": self.array_properties, "parameters": self.parameters, "tags": self.tags,
            "containerOverrides": self.container_overrides,
            "ecsPropertiesOverride": self.ecs_properties_override,
            "eksPropertiesOverride": self.eks_properties_override, "nodeOverrides": self.node_overrides,
            "retryStrategy": self.retry_strategy, "shareIdentifier": self.share_identifier,
            "schedulingPriorityOverride": self.scheduling_priority_override,
        }
        if self.submit_job_timeout:
            args["timeout"] = {"attemptDurationSeconds": self.submit_job_timeout}
        return trim_none_values(args)

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.job_id = job_id
        BatchJobDetailsLink.persist(
            context=context, operator=self, region_name=self.hook.conn_region_name,
            aws_partition=self.hook.conn_partition, job_id=job_id,
        )
        # DescribeJobs, for the job queue/definition links: under the fault policy (the job is fine)
        self.call_vendor(job_id, lambda: self._persist_links(context))

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.job_id = job_id
        if self.awslogs_enabled:
            self._print_awslogs(job_id)
        self.call_vendor(job_id, lambda: self._persist_cloudwatch_link(context))
        return job_id

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """The official texts: the hook's ``check_job_success`` (sync) or the deferred path's."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        if self.deferrable:
            text = f"Error while running job: {job_id} is in {status.state} state"
        else:
            text = f"AWS Batch job ({job_id}) failed: {cap(dict(status.raw), 2000)}"
        return JobFailedError(f"{text}. A retry submits a new job.", job_id=job_id, state=status.state)

    def _print_awslogs(self, job_id: str) -> None:
        try:
            fetcher = self._get_batch_log_fetcher(job_id)
            for message in fetcher.get_last_log_messages(10000) if fetcher else []:
                self.log.info(message)
        except Exception:  # noqa: BLE001 - logs are a courtesy, as in the official operator
            self.log.warning("Unable to retrieve CloudWatch logs for AWS Batch job: %s", job_id, exc_info=True)


__all__ = ["BatchOperator"]

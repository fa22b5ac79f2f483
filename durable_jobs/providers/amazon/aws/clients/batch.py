"""AWS Batch jobs through the official ``BatchClientHook``.

Batch has no idempotency token, and job names need not be unique. The epoch's key travels twice:

* in the job name, ``<job_name>-<key>`` (the user's name trimmed so the whole fits in 128
  characters), so that ``ListJobs`` — which cannot filter by tag — finds it with a ``JOB_NAME``
  filter, in any status;
* as the tag ``durable-jobs:key``, merged with the user's ``tags`` within Batch's 50-tag limit,
  which ``DescribeJobs`` confirms.

Tagging at submit needs ``batch:TagResource``. Without it, and when the user passed no tags of their
own, the job is resubmitted untagged (safe: the refusal created nothing) with a warning; the name
still finds it. With tags of their own the official operator would fail too: a clear error names the
permission. A user with 50 tags already gets the name alone, with a warning.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.news import report_end
from durable_jobs.core.pacing import pace_call
from durable_jobs.core.status import JobPhase, JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import (
    KEY_TAG,
    AwsJobClient,
    _aware,
    chunked,
    listing_floor,
    log,
    merge_tags,
)

#: ``JobStatus`` (Batch API reference, DescribeJobs).
BATCH_STATES = StateTable(
    vendor="AWS Batch",
    active=frozenset({"SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"FAILED"}),
)
MAX_JOB_NAME = 128
MAX_TAGS = 50
DESCRIBE_BATCH = 100
KILL_REASON = "Task killed by the user"


def job_name_for(job_name: str, key: str) -> str:
    """``<job_name>-<key>`` within Batch's 128 characters (the user's part is trimmed)."""
    room = MAX_JOB_NAME - len(key) - 1
    return f"{str(job_name)[:room]}-{key}"


class BatchJobClient(AwsJobClient):
    """``SubmitJob`` tagged with the key; ``find`` by job name in the queue, confirmed by tag."""

    vendor: ClassVar[str] = "AWS Batch"
    states: ClassVar[StateTable] = BATCH_STATES
    tag_permission: ClassVar[str] = "batch:TagResource"
    status_endpoint: ClassVar[str] = "batch:DescribeJobs"
    service_fields = ("job_queue", "job_name")

    def __init__(self, aws_conn_id: str | None = "aws_default", *, job_queue: str = "", job_name: str = "",
                 **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.job_queue = job_queue
        self.job_name = job_name

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.batch_client import BatchClientHook

        return BatchClientHook(**self._hook_kwargs())

    # ------------------------------------------------------------------ submit
    def _tag_fallback_allowed(self, request: Mapping[str, Any]) -> bool:
        return not request.get("tags")

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = dict(request)
        args["jobName"] = job_name_for(args.get("jobName") or self.job_name, key)
        if tag:
            tags, room = merge_tags(args.get("tags"), key, limit=MAX_TAGS)
            if not room:
                log.warning(
                    "AWS Batch allows %d tags per job and `tags` has %d: the key %s travels in the job "
                    "name only", MAX_TAGS, len(tags), key,
                )
            args["tags"] = tags
        if not args.get("tags"):
            args.pop("tags", None)
        response = self.submit_client.submit_job(**args)
        return self.field(response, "jobId", "SubmitJob")

    # ------------------------------------------------------------------ find
    def _scan(self, key: str, since: datetime | None) -> str | None:
        name = job_name_for(self.job_name, key)
        floor = listing_floor(since)
        matches = []
        for page in self._pages("list_jobs", {"jobQueue": self.job_queue,
                                              "filters": [{"name": "JOB_NAME", "values": [name]}]}):
            for summary in page.get("jobSummaryList", []):
                created = summary.get("createdAt")
                if floor is not None and created and _epoch_ms(created) < floor:
                    continue
                if summary.get("jobName") == name:
                    matches.append(summary)
        if not matches:
            return None
        ids = [m["jobId"] for m in sorted(matches, key=lambda m: m.get("createdAt") or 0)]
        described = self.client.describe_jobs(jobs=ids[:DESCRIBE_BATCH]).get("jobs", [])
        tagged = [j["jobId"] for j in described if (j.get("tags") or {}).get(KEY_TAG, key) == key]
        if not tagged:
            return None
        if len(tagged) > 1:
            log.warning("AWS Batch shows %d jobs under key %s (%s); using the first", len(tagged), key, tagged)
        ordered = [i for i in ids if i in tagged]
        return ordered[0]

    # ------------------------------------------------------------------ status
    def _status_in(self, job_id: str, jobs: list[Mapping[str, Any]]) -> JobStatus:
        for job in jobs:
            if job.get("jobId") == job_id:
                return self._status_from(job.get("status", ""), job.get("statusReason", ""), job)
        return JobStatus(JobPhase.MISSING, "NOT_FOUND", f"AWS Batch has no job {job_id}")

    def status(self, job_id: Any) -> JobStatus:
        return self._status_in(job_id, self.field(self.client.describe_jobs(jobs=[job_id]), "jobs", "DescribeJobs"))

    async def astatus(self, job_id: Any) -> JobStatus:
        client = await self._async_client()
        response = await client.describe_jobs(jobs=[job_id])
        return self._status_in(job_id, self.field(response, "jobs", "DescribeJobs"))

    def status_calls(self, n: int) -> int:
        return math.ceil(n / DESCRIBE_BATCH)

    async def astatuses(self, job_ids: Iterable[Any]) -> dict[Any, JobStatus]:
        """``DescribeJobs`` takes 100 ids a call: one request per hundred jobs."""
        ids = list(job_ids)
        client = await self._async_client()
        result: dict[Any, JobStatus] = {}
        for chunk in chunked(ids, DESCRIBE_BATCH):
            await pace_call()
            jobs = self.field(await client.describe_jobs(jobs=chunk), "jobs", "DescribeJobs")
            for i in chunk:
                result[i] = status = self._status_in(i, jobs)
                report_end(i, status)
        return result

    def cancel(self, job_id: Any) -> None:
        self.client.terminate_job(jobId=job_id, reason=KILL_REASON)

def _epoch_ms(value: Any):
    from datetime import timezone

    if isinstance(value, datetime):
        return _aware(value)
    return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)

"""AWS Glue job runs through the official ``GlueJobHook``.

``StartJobRun`` has no idempotency token. The epoch's key travels as a job run argument,
``--durable_jobs_key`` (as the official operator's ``--airflow_task_uuid`` does; Glue scripts that
read their options with ``getResolvedOptions`` ignore arguments they do not ask for), and
``find(key)`` scans ``GetJobRuns`` (newest first) for it, back to the intent time less a clock-skew
margin. No extra IAM permission is needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, _aware, listing_floor, log

#: ``JobRunState`` (Glue API, Jobs → Runs). STOPPING and WAITING are on their way somewhere.
GLUE_STATES = StateTable(
    vendor="AWS Glue",
    active=frozenset({"STARTING", "RUNNING", "STOPPING", "WAITING"}),
    succeeded=frozenset({"SUCCEEDED"}),
    failed=frozenset({"STOPPED", "FAILED", "TIMEOUT", "ERROR", "EXPIRED"}),
)
KEY_ARGUMENT = "--durable_jobs_key"
PAGE_SIZE = 200
MAX_PAGES = 10


class GlueJobClient(AwsJobClient):
    """``StartJobRun`` with the key in ``Arguments``; ``find`` scans ``GetJobRuns``."""

    vendor: ClassVar[str] = "AWS Glue"
    states: ClassVar[StateTable] = GLUE_STATES
    status_endpoint: ClassVar[str] = "glue:GetJobRun"
    missing_codes: ClassVar[frozenset[str]] = frozenset({"EntityNotFoundException"})
    service_fields = ("job_name",)

    def __init__(self, aws_conn_id: str | None = "aws_default", *, job_name: str = "", **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.job_name = job_name

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.glue import GlueJobHook

        return GlueJobHook(job_name=self.job_name, **self._hook_kwargs())

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = dict(request)
        args["JobName"] = args.get("JobName") or self.job_name
        args["Arguments"] = {**(args.get("Arguments") or {}), KEY_ARGUMENT: key}
        return self.field(self.submit_client.start_job_run(**args), "JobRunId", "StartJobRun")

    def _scan(self, key: str, since: datetime | None) -> str | None:
        floor = listing_floor(since)
        token = None
        for _ in range(MAX_PAGES):
            request: dict[str, Any] = {"JobName": self.job_name, "MaxResults": PAGE_SIZE}
            if token:
                request["NextToken"] = token
            page = self.client.get_job_runs(**request)
            runs = page.get("JobRuns", [])
            for run in runs:
                if (run.get("Arguments") or {}).get(KEY_ARGUMENT) == key:
                    return run["Id"]
            oldest = min((_aware(r["StartedOn"]) for r in runs if r.get("StartedOn")), default=None)
            token = page.get("NextToken")
            if not token or (floor is not None and oldest is not None and oldest < floor):
                return None
        log.warning("AWS Glue: stopped scanning %s after %d pages without key %s", self.job_name, MAX_PAGES, key)
        return None

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official trigger's event carries the id as "run_id"; its ``execute_complete`` reads it there."""
        return {"run_id": job_id}

    def _describe(self, client: Any, job_id: Any) -> Any:
        return client.get_job_run(JobName=self.job_name, RunId=job_id)

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        run = self.field(response, "JobRun", "GetJobRun") or {}
        return self._status_from(run.get("JobRunState", ""), run.get("ErrorMessage", ""), run)

    def cancel(self, job_id: Any) -> None:
        response = self.client.batch_stop_job_run(JobName=self.job_name, JobRunIds=[job_id])
        if not response.get("SuccessfulSubmissions"):
            log.error("AWS Glue did not stop run %s of %s: %s", job_id, self.job_name, response.get("Errors"))

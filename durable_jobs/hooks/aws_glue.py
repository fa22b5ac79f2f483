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

from durable_jobs.hooks.aws_base import CLOCK_SKEW, AwsJobClient, _aware, error_code, log
from durable_jobs.hooks.base import JobStatus, StateTable

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

    def __init__(self, aws_conn_id: str | None = "aws_default", *, job_name: str = "", **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.job_name = job_name

    def _service_kwargs(self) -> dict[str, Any]:
        return {"job_name": self.job_name}

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.glue import GlueJobHook

        return GlueJobHook(job_name=self.job_name, **self._hook_kwargs())

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = dict(request)
        args["JobName"] = args.get("JobName") or self.job_name
        args["Arguments"] = {**(args.get("Arguments") or {}), KEY_ARGUMENT: key}
        return self.field(self.submit_client.start_job_run(**args), "JobRunId", "StartJobRun")

    def _scan(self, key: str, since: datetime | None) -> str | None:
        floor = _aware(since) - CLOCK_SKEW if since is not None else None
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

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        run = self.field(response, "JobRun", "GetJobRun") or {}
        return self._status_from(run.get("JobRunState", ""), run.get("ErrorMessage", ""), run)

    def status(self, job_id: Any) -> JobStatus:
        try:
            return self._to_status(self.client.get_job_run(JobName=self.job_name, RunId=job_id))
        except Exception as err:
            if error_code(err) == "EntityNotFoundException":
                return self.missing(job_id, err)
            raise

    async def astatus(self, job_id: Any) -> JobStatus:
        client = await self._async_client()
        try:
            return self._to_status(await client.get_job_run(JobName=self.job_name, RunId=job_id))
        except Exception as err:
            if error_code(err) == "EntityNotFoundException":
                return self.missing(job_id, err)
            raise

    def cancel(self, job_id: Any) -> None:
        response = self.client.batch_stop_job_run(JobName=self.job_name, JobRunIds=[job_id])
        if not response.get("SuccessfulSubmissions"):
            log.error("AWS Glue did not stop run %s of %s: %s", job_id, self.job_name, response.get("Errors"))

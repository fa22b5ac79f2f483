"""EMR Serverless job runs through the official ``EmrServerlessHook``.

``StartJobRun``'s ``clientToken`` (1–64 characters ``[A-Za-z0-9._-]``): "The client idempotency token of
the job run to start. Its value must be unique for each request." The reference says no more: not what a
resend under a used token answers, nor for how long the token is remembered. The epoch's key goes there, and
the run is also tagged ``durable-jobs:key`` (``GetJobRun`` returns the tags): ``ListJobRuns`` cannot search
by token, so ``find(key)`` scans the runs created since the intent time before anything is resent. Tagging at
submit needs ``emr-serverless:TagResource``; without it the run is resubmitted untagged (the refusal created
nothing) with a warning, and a lost reply then rests on the same-key resend alone (the undocumented part).

A user's own ``client_request_token`` is combined with the key (``<token>-<key>``, the token
shortened to a digest when the whole would pass 64 characters), so a run that genuinely failed is
retried with a new run instead of being handed back by EMR Serverless.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import (
    KEY_TAG,
    AwsJobClient,
    listing_floor,
    merge_tags,
)
from durable_jobs.providers.amazon.aws.clients.tokens import token_with_prefix

#: ``JobRunState`` (EMR Serverless API). CANCELLING only ever ends CANCELLED, as the official hook reads it.
EMR_SERVERLESS_STATES = StateTable(
    vendor="EMR Serverless",
    active=frozenset({"SUBMITTED", "PENDING", "SCHEDULED", "RUNNING", "QUEUED"}),
    succeeded=frozenset({"SUCCESS"}),
    failed=frozenset({"FAILED", "CANCELLING", "CANCELLED"}),
)
MAX_TOKEN_LENGTH = 64
MAX_TAGS = 200
TOKEN_CHARS = re.compile(r"[^A-Za-z0-9._-]")
MAX_PAGES = 10


def format_client_token(nonce: str, user_token: str | None = None) -> str:
    """``nonce`` alone, or ``<user token>-<nonce>`` with the token's other characters made ``-``."""
    return token_with_prefix(nonce, user_token, max_length=MAX_TOKEN_LENGTH,
                             clean=lambda token: TOKEN_CHARS.sub("-", token))


class EmrServerlessJobClient(AwsJobClient):
    """``StartJobRun`` under ``clientToken`` and a key tag; ``find`` scans ``ListJobRuns``."""

    vendor: ClassVar[str] = "EMR Serverless"
    states: ClassVar[StateTable] = EMR_SERVERLESS_STATES
    tag_permission: ClassVar[str] = "emr-serverless:TagResource"
    status_endpoint: ClassVar[str] = "emr-serverless:GetJobRun"
    missing_codes: ClassVar[frozenset[str]] = frozenset({"ResourceNotFoundException"})
    _untagged_find_by = "a same-key resend (clientToken)"
    service_fields = ("application_id",)

    def __init__(self, aws_conn_id: str | None = "aws_default", *, application_id: str = "",
                 **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.application_id = application_id

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.emr import EmrServerlessHook

        return EmrServerlessHook(**self._hook_kwargs())

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return format_client_token(nonce, user_token)

    def _tag_fallback_allowed(self, request: Mapping[str, Any]) -> bool:
        return not request.get("tags")

    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = dict(request)
        args["applicationId"] = args.get("applicationId") or self.application_id
        args["clientToken"] = key
        if tag:
            args["tags"], _ = merge_tags(args.get("tags"), key, limit=MAX_TAGS)
        if not args.get("tags"):
            args.pop("tags", None)
        return self.field(self.submit_client.start_job_run(**args), "jobRunId", "StartJobRun")

    def _scan(self, key: str, since: datetime | None) -> str | None:
        request: dict[str, Any] = {"applicationId": self.application_id}
        if since is not None:
            request["createdAtAfter"] = listing_floor(since)
        for page in self._pages("list_job_runs", request, MAX_PAGES):
            for run in page.get("jobRuns", []):
                detail = self._describe(self.client, run["id"])
                if ((detail.get("jobRun") or {}).get("tags") or {}).get(KEY_TAG) == key:
                    return run["id"]
        return None

    def _describe(self, client: Any, job_id: Any) -> Any:
        return client.get_job_run(applicationId=self.application_id, jobRunId=job_id)

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        run = self.field(response, "jobRun", "GetJobRun") or {}
        return self._status_from(run.get("state", ""), run.get("stateDetails", ""), run)

    def cancel(self, job_id: Any) -> None:
        self.client.cancel_job_run(applicationId=self.application_id, jobRunId=job_id)

"""EMR on EKS job runs (``emr-containers`` ``StartJobRun``) through the official ``EmrContainerHook``.

The epoch's key goes into ``StartJobRun``'s ``clientToken``. The EMR on EKS API reference says of it only
"The client idempotency token of the job run request." (1–64 characters, pattern ``.*\\S.*``, required),
and of the job run's own field ``JobRun.clientToken``: "The client token used to start a job run." It does
not say what a resend under the same token answers, whether a token is per virtual cluster, how long EMR
on EKS remembers it, or what a token reused with other parameters gets. So nothing here relies on the
resend being deduplicated: the submit goes through a client with the SDK's retries off, and after an
ambiguous failure (5xx, reset, timeout) ``find(key)`` lists the virtual cluster's runs created since the
attempt (``ListJobRuns`` with ``createdAfter``) and takes the one whose ``clientToken`` is the key, before
any resend (``durable_jobs.providers.amazon.aws.clients.base``). The reference does not say whether ``ListJobRuns`` is
eventually consistent either: the AWS consistency window (``[durable_jobs] aws_list_consistency_seconds``)
applies, as for the other listing services. No tag is added: the token is on the run itself.

A user's own ``client_request_token`` (upstream's argument) is combined with the key as the Databricks
operators combine a user's ``idempotency_token``: ``<token>-<key>``, the token shortened to a digest when
the whole would pass 64 characters. So a run that genuinely failed is retried with a new run, not handed
back under the user's fixed token.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, listing_floor
from durable_jobs.providers.amazon.aws.clients.tokens import token_with_prefix

#: ``JobRunState`` (EMR on EKS API), read as the official ``EmrContainerHook`` reads them: CANCEL_PENDING is
#: one of its ``FAILURE_STATES`` and ``TERMINAL_STATES`` (a run being cancelled never succeeds).
EMR_CONTAINERS_STATES = StateTable(
    vendor="EMR on EKS",
    active=frozenset({"PENDING", "SUBMITTED", "RUNNING"}),
    succeeded=frozenset({"COMPLETED"}),
    failed=frozenset({"FAILED", "CANCELLED", "CANCEL_PENDING"}),
)
#: ``clientToken``: "Length Constraints: Minimum length of 1. Maximum length of 64."
MAX_TOKEN_LENGTH = 64
MAX_PAGES = 10


def format_client_token(nonce: str, user_token: str | None = None) -> str:
    """``nonce`` alone, or ``<user token>-<nonce>``; a long user token is shortened to a digest."""
    return token_with_prefix(nonce, user_token, max_length=MAX_TOKEN_LENGTH)


class EmrContainersJobClient(AwsJobClient):
    """``StartJobRun`` under ``clientToken``; ``find`` lists the virtual cluster's runs by ``clientToken``."""

    vendor: ClassVar[str] = "EMR on EKS"
    states: ClassVar[StateTable] = EMR_CONTAINERS_STATES
    status_endpoint: ClassVar[str] = "emr-containers:DescribeJobRun"
    missing_codes: ClassVar[frozenset[str]] = frozenset({"ResourceNotFoundException"})
    service_fields = ("virtual_cluster_id",)

    def __init__(self, aws_conn_id: str | None = "aws_default", *, virtual_cluster_id: str = "",
                 **kwargs: Any) -> None:
        super().__init__(aws_conn_id, **kwargs)
        self.virtual_cluster_id = virtual_cluster_id

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.emr import EmrContainerHook

        return EmrContainerHook(virtual_cluster_id=self.virtual_cluster_id, **self._hook_kwargs())

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return format_client_token(nonce, user_token)

    # ------------------------------------------------------------------ submit
    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = dict(request)
        args["virtualClusterId"] = args.get("virtualClusterId") or self.virtual_cluster_id
        args["clientToken"] = key
        return str(self.field(self.submit_client.start_job_run(**args), "id", "StartJobRun"))

    # ------------------------------------------------------------------ find
    def _scan(self, key: str, since: datetime | None) -> str | None:
        request: dict[str, Any] = {"virtualClusterId": self.virtual_cluster_id}
        if since is not None:
            request["createdAfter"] = listing_floor(since)
        for page in self._pages("list_job_runs", request, MAX_PAGES):
            for run in self.field(page, "jobRuns", "ListJobRuns"):
                token = run.get("clientToken")
                if token is None:  # the listing left it out: the run's own description has it
                    token = self._describe(self.client, run["id"])["jobRun"].get("clientToken")
                if token == key:
                    return str(run["id"])
        return None

    # ------------------------------------------------------------------ status
    def _describe(self, client: Any, job_id: Any) -> Any:
        return client.describe_job_run(virtualClusterId=self.virtual_cluster_id, id=job_id)

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        run = self.field(response, "jobRun", "DescribeJobRun") or {}
        reason = " - ".join(str(run[k]) for k in ("failureReason", "stateDetails") if run.get(k))
        return self._status_from(run.get("state", ""), reason, run)

    def cancel(self, job_id: Any) -> None:
        self.client.cancel_job_run(virtualClusterId=self.virtual_cluster_id, id=job_id)

"""The EMR on EKS (``emr-containers``) rules moto 5.2.5 lacks, installed by ``aws_moto.install_gap_rules``.

Kept apart from ``aws_moto`` (which merges ``GAPS`` into ``MOTO_GAPS`` and calls ``install``) so that this
service's emulator rules read in one place. The contract: docs/emulators/aws-emr-containers.md. Nothing here
imports Airflow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from durable_jobs.testing.emulators._moto_state import as_datetime, graft_managed_state

MODEL = "emr-containers::job_run"
#: A job run whose job driver contains this ends FAILED (``emr-containers-life-cycle``).
FAIL_MARKER = "fail"

GAPS: dict[str, str] = {
    "emr-containers-client-token": (
        "moto stores StartJobRun's clientToken on the run but never compares it: every call starts a new run. "
        "The EMR on EKS API reference says only 'The client idempotency token of the job run request.' (and of "
        "JobRun.clientToken: 'The client token used to start a job run.'); it does not say what a resend under "
        "the same token answers, whether a token is per virtual cluster, how long it is remembered, or what a "
        "token reused with other parameters gets. Ours answers a token already used in that virtual cluster "
        "with the run started under it (what an idempotency token means, and what the amazon provider's own "
        "docstring says EMR on EKS does: 'treats a resubmission with the same token as the original run'), "
        "whatever the other parameters, and remembers it until moto is reset. durable-jobs does not rely on "
        "it: a lost reply is found by listing the runs and matching their clientToken."
    ),
    "emr-containers-life-cycle": (
        "moto starts every job run RUNNING and nothing ever ends it. Ours run PENDING -> SUBMITTED -> RUNNING -> "
        "COMPLETED on moto's state manager (model 'emr-containers::job_run'); a run whose jobDriver contains "
        "'fail' ends FAILED with failureReason USER_ERROR and stateDetails, as DescribeJobRun reports them. "
        "CancelJobRun keeps moto's answer (CANCELLED at once; the reference does not say how long "
        "CANCEL_PENDING lasts) and its refusal of a finished run (ValidationException)."
    ),
    "emr-containers-created-at": (
        "moto truncates a job run's createdAt to midnight (so ListJobRuns' createdAfter filter misses today's "
        "runs); ours keeps the real time."
    ),
}


def install(patch: Callable[[Any, str, Any], None]) -> None:
    """Add the rules in ``GAPS`` through ``patch(owner, name, value)`` (undone by ``aws_moto``)."""
    from moto.emrcontainers.models import EMRContainersBackend, JobRun
    from moto.moto_api._internal.managed_state_model import ManagedState

    original_init = JobRun.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        end = "FAILED" if FAIL_MARKER in json.dumps(self.job_driver or {}) else "COMPLETED"
        ManagedState.__init__(self, MODEL, [("PENDING", "SUBMITTED"), ("SUBMITTED", "RUNNING"), ("RUNNING", end)])
        self.created_at = datetime.now(tz=timezone.utc)

    def _record_end(self: Any, state: str) -> None:
        if state == "FAILED" and not self.__dict__.get("failure_reason"):
            self.__dict__.update(failure_reason="USER_ERROR",
                                 state_details="the job driver failed (the emulator's 'fail' marker)")
        if state in ("COMPLETED", "FAILED") and not self.__dict__.get("finished_at"):
            self.__dict__["finished_at"] = datetime.now(tz=timezone.utc)

    original_start = EMRContainersBackend.start_job_run

    def start_job_run(self: EMRContainersBackend, name: str, virtual_cluster_id: str, client_token: str,
                      *args: Any, **kwargs: Any) -> Any:
        for run in self.job_runs.values():
            if client_token and run.client_token == client_token and run.virtual_cluster_id == virtual_cluster_id:
                return run
        return original_start(self, name, virtual_cluster_id, client_token, *args, **kwargs)

    original_list: Callable[..., list[Any]] = EMRContainersBackend.list_job_runs

    def list_job_runs(self: EMRContainersBackend, virtual_cluster_id: str, created_before: Any, created_after: Any,
                      name: str, states: Any) -> list[Any]:
        runs = original_list(self, virtual_cluster_id, None, None, name, states)
        after, before = as_datetime(created_after), as_datetime(created_before)
        return [r for r in runs if (after is None or r.created_at >= after)
                and (before is None or r.created_at <= before)]

    patch(JobRun, "__init__", __init__)
    graft_managed_state(patch, JobRun, "state", plain_key="_plain_state", on_read=_record_end)
    patch(EMRContainersBackend, "start_job_run", start_job_run)
    patch(EMRContainersBackend, "list_job_runs", list_job_runs)

"""The fault suite's Dataproc jobs target: one shared gRPC emulator, one project per cell.

The hooks reach the emulator through their client factories, which ``route_hooks`` replaces for the whole
process; the cells run concurrently in this process, so they share one emulator, each with its own project
(its connection's ``project`` extra and the operator's ``project_id``), and arm their faults for that project
only. gRPC has no HTTP bodies: "not JSON" is a reply that is not the protobuf message, a "reset" is the
UNAVAILABLE a broken connection gives, a 429 is RESOURCE_EXHAUSTED (gRPC carries no Retry-After header; the
429-with-Retry-After case is that code too), an unknown state is STATE_UNSPECIFIED.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from shared_emulator import SharedEmulator
from targets import SLOW, TIMEOUT, UNKNOWN_READS, calls

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import JobClient
from durable_jobs.testing.emulators.dataproc import REGION, DataprocEmulator, route_hooks

JOB = {"placement": {"cluster_name": "faults"}, "pyspark_job": {"main_python_file_uri": "gs://faults/job.py"}}


def _start(stack: contextlib.ExitStack) -> DataprocEmulator:
    emulator = DataprocEmulator(run_seconds=2.0).start()
    stack.enter_context(route_hooks(emulator.address))
    return emulator


_SHARED = SharedEmulator(_start)


#: Seconds the set-up submit of a poll case may take (the cases' own calls keep TIMEOUT).
SETUP_TIMEOUT = 30.0


class DataprocJobsTarget:
    service = "dataproc_jobs"

    def __init__(self, cell: str):
        self.cell = cell
        self.conn_id = f"dp_{cell.replace('-', '_')}"
        self.project = f"faults-{cell}"
        self.emu = _SHARED.acquire()

    def stop(self) -> None:
        _SHARED.release()

    def conn_env(self) -> dict[str, str]:
        conn = {"conn_type": "google_cloud_platform", "extra": json.dumps({"is_anonymous": True,
                                                                            "project": self.project})}
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn)}

    def reset(self) -> None:
        """Nothing to reset: the project is this cell's alone."""

    # ------------------------------------------------------------------ our code, pointed here
    def operator(self, **kwargs: Any):
        from durable_jobs.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator

        return DataprocSubmitJobOperator(task_id="faults", job=JOB, region=REGION, project_id=self.project,
                                         gcp_conn_id=self.conn_id, polling_interval_seconds=0.2, timeout=TIMEOUT,
                                         **kwargs)

    def request(self, op) -> dict[str, Any]:
        return {"job": JOB, "timeout": TIMEOUT}

    def start(self, client: JobClient) -> Any:
        """The set-up submit of a poll case: not under test, so not under the cases' 1 s deadline (on a loaded
        2-core machine the first call of a fresh gRPC channel can take longer, which failed the set-up)."""
        return client.submit({**self.request(None), "timeout": SETUP_TIMEOUT}, client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        """The jobs this cell's submits created (the ledger's entries of the registry's submit call)."""
        submit = calls(self.service).submit
        return sum(1 for e in self.emu.ledger()
                   if e["op"] == submit and e["created"] and e["project"] == self.project)

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        """Inject ``case`` on the registry's status or submit call of this target's service."""
        get, submit = calls(self.service).status, calls(self.service).submit
        rules: dict[str, dict[str, Any]] = {
            "throttled-retry-after": dict(method=get, code="RESOURCE_EXHAUSTED", times=2),
            "throttled": dict(method=get, code="RESOURCE_EXHAUSTED", times=3),
            "server-error": dict(method=get, code="UNAVAILABLE", times=-1, seconds=seconds),
            "reset": dict(method=get, code="UNAVAILABLE", times=3),
            "timeout": dict(method=get, mode="slow", delay=SLOW, times=2),
            "not-json": dict(method=get, mode="garbage", times=2),
            "unknown-state": dict(method=get, mode="unknown", times=UNKNOWN_READS),
            "unknown-state-too-long": dict(method=get, mode="unknown", times=-1),
            "outage": dict(method=get, code="UNAVAILABLE", times=-1),
            "auth": dict(method=get, code="PERMISSION_DENIED", times=-1),
            "submit-throttled": dict(method=submit, code="RESOURCE_EXHAUSTED", times=2),
            "submit-lost-reply": dict(method=submit, code="INTERNAL", mode="after", times=2),
            "submit-reset": dict(method=submit, code="UNAVAILABLE", mode="after", times=1),
            "submit-timeout": dict(method=submit, mode="slow", delay=SLOW, times=1),
            "submit-not-json": dict(method=submit, mode="garbage", times=1),
            "submit-auth": dict(method=submit, code="PERMISSION_DENIED", times=-1),
        }
        if case == "deleted":
            return  # done by delete() once the job runs
        rule = dict(rules[case])
        self.emu.inject(rule.pop("method"), rule.pop("code", "UNAVAILABLE"), project=self.project, **rule)

    def delete(self, job_id: Any) -> None:
        self.emu.forget("job", str(job_id))


class DataprocBatchesTarget(DataprocJobsTarget):
    """The same shared emulator, for ``DataprocCreateBatchOperator``: GetBatch and CreateBatch are the calls (the
    registry's)."""

    service = "dataproc_batches"
    BATCH = {"pyspark_batch": {"main_python_file_uri": "gs://faults/job.py"}}

    def operator(self, **kwargs: Any):
        from durable_jobs.providers.google.cloud.operators.dataproc import DataprocCreateBatchOperator

        return DataprocCreateBatchOperator(task_id="faults", batch=self.BATCH, region=REGION, project_id=self.project,
                                           gcp_conn_id=self.conn_id, polling_interval_seconds=0.2, timeout=TIMEOUT,
                                           **kwargs)

    def request(self, op) -> dict[str, Any]:
        return {"batch": self.BATCH, "timeout": TIMEOUT}

    def delete(self, job_id: Any) -> None:
        self.emu.forget("batch", str(job_id))

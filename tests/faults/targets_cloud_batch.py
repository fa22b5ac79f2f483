"""The fault suite's Cloud Batch target: one shared gRPC emulator, one project per cell.

The hooks reach the emulator through ``get_conn``, which ``route_hooks`` replaces for the whole process; the
cells run concurrently here, so they share one emulator, each with its own project, and arm their faults for that
project only. The gRPC translations of the HTTP cases are the Dataproc target's (``targets_dataproc``). The
operator has no per-call timeout argument (``timeout_seconds`` bounds the whole wait): the client's call deadline
is set to the suite's ``TIMEOUT`` on the client the operator built. ``CreateJob`` goes through the official
hook's ``submit_batch_job``, which takes no deadline: a slow create is waited for (the library's 60 s default).
"""

from __future__ import annotations

import contextlib
from typing import Any

from shared_emulator import SharedEmulator
from targets import TIMEOUT
from targets_dataproc import SETUP_TIMEOUT, DataprocJobsTarget

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import JobClient
from durable_jobs.testing.emulators.cloud_batch import REGION, CloudBatchEmulator, route_hooks

JOB = {"task_groups": [{"task_spec": {"runnables": [{"script": {"text": "echo faults"}}]}}],
       "labels": {"emulator-seconds": "2"}}


def _start(stack: contextlib.ExitStack) -> CloudBatchEmulator:
    emulator = CloudBatchEmulator(run_seconds=2.0).start()
    stack.enter_context(route_hooks(emulator.address))
    return emulator


_SHARED = SharedEmulator(_start)


class CloudBatchTarget(DataprocJobsTarget):
    service = "cloud_batch"

    def __init__(self, cell: str):
        self.cell = cell
        self.conn_id = f"cb_{cell.replace('-', '_')}"
        self.project = f"faults-{cell}"
        self.emu = _SHARED.acquire()  # type: ignore[assignment]

    def stop(self) -> None:
        _SHARED.release()

    def operator(self, **kwargs: Any):
        from durable_jobs.providers.google.cloud.operators.cloud_batch import CloudBatchSubmitJobOperator

        op = CloudBatchSubmitJobOperator(task_id="faults", job=JOB, job_name="faults", region=REGION,
                                         project_id=self.project, gcp_conn_id=self.conn_id,
                                         polling_period_seconds=0.2, **kwargs)
        op.job_client.timeout = TIMEOUT  # type: ignore[attr-defined]  # the per-call deadline (serialised too)
        return op

    def request(self, op) -> dict[str, Any]:
        return {"job": JOB}

    def start(self, client: JobClient) -> Any:
        timeout = client.timeout  # type: ignore[attr-defined]
        client.timeout = SETUP_TIMEOUT  # type: ignore[attr-defined]
        try:
            return client.submit(self.request(None), client.format_key(new_nonce()))
        finally:
            client.timeout = timeout  # type: ignore[attr-defined]

    def delete(self, job_id: Any) -> None:
        self.emu.forget("job", str(job_id))

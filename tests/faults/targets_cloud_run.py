"""The fault suite's Cloud Run target: one shared gRPC emulator, one project per cell (its own Cloud Run job).

The hooks reach the emulator through ``get_conn``, which ``route_hooks`` replaces for the whole process; the cells
run concurrently here, so they share one emulator, each with its own project, and arm their faults for that
project only. The gRPC translations of the HTTP cases are the Dataproc target's (``targets_dataproc``): the status
call is ``GetExecution``, the submit ``RunJob``. The operator has no per-call timeout argument
(``timeout_seconds`` bounds the whole wait): the client's call deadline is set to the suite's ``TIMEOUT`` on the
client the operator built. ``RunJob`` goes through the official hook's ``execute_job``, which takes no deadline: a
slow submit is waited for. The listing window (``consistency_seconds``) is 1 s here: these cells test the fault
policy, and the emulator lists a new execution at once; the window itself is the crash row CLOUD-RUN-LIST-LAG's.
"""

from __future__ import annotations

import contextlib
from typing import Any

from shared_emulator import SharedEmulator
from targets import TIMEOUT
from targets_dataproc import SETUP_TIMEOUT, DataprocJobsTarget

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import JobClient
from durable_jobs.testing.emulators.cloud_run import REGION, CloudRunEmulator, route_hooks

JOB = "faults"
OVERRIDES = {"container_overrides": [{"env": [{"name": "EMULATOR_SECONDS", "value": "2"}]}]}
WINDOW = 1.0


def _start(stack: contextlib.ExitStack) -> CloudRunEmulator:
    emulator = CloudRunEmulator(run_seconds=2.0).start()
    stack.enter_context(route_hooks(emulator.address))
    return emulator


_SHARED = SharedEmulator(_start)


class CloudRunTarget(DataprocJobsTarget):
    service = "cloud_run"

    def __init__(self, cell: str):
        self.cell = cell
        self.conn_id = f"cr_{cell.replace('-', '_')}"
        self.project = f"faults-{cell}"
        self.emu = _SHARED.acquire()  # type: ignore[assignment]
        self.emu.add_job(JOB, project=self.project, region=REGION)  # type: ignore[attr-defined]

    def stop(self) -> None:
        _SHARED.release()

    def operator(self, **kwargs: Any):
        from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator

        op = CloudRunExecuteJobOperator(task_id="faults", job_name=JOB, overrides=OVERRIDES, region=REGION,
                                        project_id=self.project, gcp_conn_id=self.conn_id,
                                        polling_period_seconds=0.2, **kwargs)
        op.job_client.timeout = TIMEOUT  # type: ignore[attr-defined]  # the per-call deadline (serialised too)
        op.job_client.consistency_seconds = WINDOW  # type: ignore[attr-defined]
        return op

    def request(self, op) -> dict[str, Any]:
        return {"overrides": OVERRIDES}

    def start(self, client: JobClient) -> Any:
        timeout = client.timeout  # type: ignore[attr-defined]
        client.timeout = SETUP_TIMEOUT  # type: ignore[attr-defined]
        try:
            return client.submit(self.request(None), client.format_key(new_nonce()))
        finally:
            client.timeout = timeout  # type: ignore[attr-defined]

    def delete(self, job_id: Any) -> None:
        self.emu.forget("execution", str(job_id).rsplit("/", 1)[-1])

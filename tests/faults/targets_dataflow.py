"""The fault suite's Dataflow target: one shared Dataflow REST emulator, one project per cell.

The official ``DataflowHook`` reaches the emulator through ``get_conn``, which ``route_hooks`` replaces for the whole
process; the cells run concurrently here, so they share one emulator, each with its own project (its connection's
``project`` extra), and arm their faults on ``<project>/<route>``, which reaches that project's requests only. The
status call is ``jobs.get``, the submit ``templates.launch`` (the templated operator). A job that vanished is one
the emulator forgot (404); an unknown state is a ``currentState`` Dataflow does not document. The listing window
(``consistency_seconds``) is 1 s here: these cells test the fault policy, and the emulator lists a new job at
once. googleapiclient's HTTP client has no per-call timeout our client sets (httplib2's socket default): a slow
reply is waited for.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from shared_emulator import SharedEmulator
from targets import SLOW, UNKNOWN_READS, calls

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import JobClient
from durable_jobs.testing.emulators.dataflow import REGION, DataflowEmulator, route_hooks

TEMPLATE = "gs://faults/templates/word-count"
WINDOW = 1.0


def _start(stack: contextlib.ExitStack) -> DataflowEmulator:
    emulator = DataflowEmulator().start()
    emulator.configure(pending_seconds=0.1, run_seconds=2.0)
    stack.enter_context(route_hooks(emulator.url))
    return emulator


_SHARED = SharedEmulator(_start)


class DataflowTarget:
    service = "google_dataflow"
    status_route = calls(service).status
    submit_route = calls(service).submit

    def __init__(self, cell: str):
        self.cell = cell
        self.conn_id = f"df_{cell.replace('-', '_')}"
        self.project = f"faults-{cell}".lower().replace("_", "-")
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
        from durable_jobs.providers.google.cloud.operators.dataflow import DataflowTemplatedJobStartOperator

        op = DataflowTemplatedJobStartOperator(
            task_id="faults", template=TEMPLATE, job_name="faults", project_id=self.project, location=REGION,
            gcp_conn_id=self.conn_id, poll_sleep=0.2, **kwargs,  # type: ignore[arg-type]  # a float: faster cells
        )
        op.job_client.consistency_seconds = WINDOW  # type: ignore[attr-defined]
        return op

    def request(self, op) -> dict[str, Any]:
        return {"template": TEMPLATE, "parameters": {}, "environment": {}}

    def start(self, client: JobClient) -> Any:
        return client.submit(self.request(None), client.format_key(new_nonce(), "faults"))

    def jobs_created(self) -> int:
        return int(self.emu.ledger(self.project)["created"])

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        get, submit = f"{self.project}/{self.status_route}", f"{self.project}/{self.submit_route}"
        unknown = {"currentState": "JOB_STATE_HIBERNATING"}  # not in Dataflow's JobState enum
        rules = {
            "throttled-retry-after": dict(path=get, status=429, count=2, retry_after=1),
            "throttled": dict(path=get, status=429, count=3, retry_after=None),
            "server-error": dict(path=get, status=503, count=-1, seconds=seconds),
            "reset": dict(path=get, mode="reset", count=3),
            "timeout": dict(path=get, mode="slow", delay=SLOW, count=2),
            "not-json": dict(path=get, mode="garbage", count=2),
            "unknown-state": dict(path=get, mode="rewrite", count=UNKNOWN_READS, patch=unknown),
            "unknown-state-too-long": dict(path=get, mode="rewrite", count=-1, patch=unknown),
            "outage": dict(path=get, status=503, count=-1),
            "auth": dict(path=get, status=403, count=-1),
            "submit-throttled": dict(path=submit, status=429, count=2, retry_after=1),
            "submit-lost-reply": dict(path=submit, status=500, mode="lose_reply", count=2),
            "submit-reset": dict(path=submit, mode="reset", count=1),
            "submit-timeout": dict(path=submit, mode="slow", delay=SLOW, count=1),
            "submit-not-json": dict(path=submit, mode="garbage", count=1),
            "submit-auth": dict(path=submit, status=403, count=-1),
        }
        if case == "deleted":
            return  # done by delete() once the job runs
        rule = dict(rules[case])
        path = rule.pop("path")
        self.emu.add_fault(path, rule.pop("status", 500), **rule)

    def delete(self, job_id: Any) -> None:
        self.emu.forget(str(job_id))

"""One vendor per target: how to start a job on its emulator, inject each case, and count jobs.

A target never touches our code: it arms faults on the emulator (or the fault proxy in front of
moto) and reads the vendor side's own ledger. The suite then runs our real code paths against it.
"""

from __future__ import annotations

import json
from typing import Any

from durable_jobs.emulators.databricks import DatabricksEmulator
from durable_jobs.hooks.base import JobClient
from durable_jobs.operators.checkpoint import new_nonce

TASKS = [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}}]
#: The HTTP timeout the suite's connections set, and a "slow" reply that outlasts it.
TIMEOUT = 1.0
SLOW = 2.5


class DatabricksTarget:
    """The Databricks emulator, with a connection whose ``timeout_seconds`` extra is short."""

    service = "databricks"
    status_route = "jobs/runs/get"
    submit_route = "jobs/runs/submit"

    def __init__(self, emulator: DatabricksEmulator, conn_id: str = "dbx_faults"):
        self.emu = emulator
        self.conn_id = conn_id

    def conn_env(self) -> dict[str, str]:
        conn = {**self.emu.connection_dict(), "extra": json.dumps({"timeout_seconds": TIMEOUT})}
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn)}

    def reset(self, running_seconds: float = 2.0) -> None:
        self.emu.reset()
        self.emu.configure(pending_seconds=0.1, running_seconds=running_seconds, terminating_seconds=0.05)

    # ------------------------------------------------------------------ our code, pointed here
    def operator(self, **kwargs: Any):
        from durable_jobs.operators.databricks import DatabricksSubmitRunOperator

        return DatabricksSubmitRunOperator(
            task_id="faults", tasks=TASKS, databricks_conn_id=self.conn_id, polling_period_seconds=0.2,
            databricks_retry_limit=2, databricks_retry_delay=0.05, **kwargs,
        )

    def request(self, op) -> dict[str, Any]:
        return {"run_name": "faults", "tasks": TASKS}

    def start(self, client: JobClient) -> Any:
        return client.submit({"run_name": "faults", "tasks": TASKS}, client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        return int(self.emu.ledger()["runs_created"])

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        """Inject ``case`` (tests/faults/cases.py) on this vendor's status or submit call."""
        get, submit = self.status_route, self.submit_route
        rules = {
            "throttled-retry-after": dict(path=get, status=429, count=2, retry_after=1),
            "throttled": dict(path=get, status=429, count=3, retry_after=None),
            "server-error": dict(path=get, status=503, count=-1, seconds=seconds),
            "reset": dict(path=get, mode="reset", count=3),
            "timeout": dict(path=get, mode="slow", delay=SLOW, count=2),
            "not-json": dict(path=get, mode="garbage", count=3),
            "unknown-state": dict(path=get, mode="rewrite", count=-1, seconds=seconds,
                                  patch={"state": {"life_cycle_state": "HIBERNATING", "result_state": None}}),
            "unknown-state-too-long": dict(path=get, mode="rewrite", count=-1,
                                           patch={"state": {"life_cycle_state": "HIBERNATING", "result_state": None}}),
            "outage": dict(path=get, status=503, count=-1),
            "auth": dict(path=get, status=403, count=1),
            "submit-throttled": dict(path=submit, status=429, count=2, retry_after=1),
            "submit-lost-reply": dict(path=submit, status=500, mode="lose_reply", count=2),
            "submit-reset": dict(path=submit, mode="reset", count=1),
            "submit-timeout": dict(path=submit, mode="slow", delay=SLOW, count=1),
            "submit-not-json": dict(path=submit, mode="garbage", count=1),
            "submit-auth": dict(path=submit, status=403, count=-1),
        }
        if case == "deleted":
            return  # done by delete() once the job runs
        rule = dict(rules[case])  # retry_after=None: a 429 without the header
        path = rule.pop("path")
        status = rule.pop("status", 500)
        self.emu.add_fault(path, status, **rule)

    def delete(self, job_id: Any) -> None:
        # runs/delete refuses an active run (Jobs API: "Deletes a non-active run"); what makes a run
        # vanish under a watcher is its history being purged: the emulator's expire().
        self.emu.expire(job_id)

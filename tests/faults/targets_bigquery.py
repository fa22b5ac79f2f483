"""The fault suite's BigQuery target: one shared BigQuery jobs emulator, one project per cell.

Both BigQuery client libraries take the emulator from the one process-wide ``BIGQUERY_EMULATOR_HOST``, so the
cells, which run concurrently in this process, share one emulator; each cell has its own project (its
connection's ``project`` extra) and arms its faults on ``<project>/<route>``, which reaches that project's
requests only. A job that vanished is one the emulator forgot (404); an unknown state is a ``status.state``
BigQuery does not document.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from shared_emulator import SharedEmulator
from targets import SLOW, TIMEOUT, UNKNOWN_READS, calls

from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.client import JobClient
from durable_jobs.testing.emulators.bigquery import BigQueryEmulator, install_aio_route, uninstall_aio_route


def _start(stack: contextlib.ExitStack) -> BigQueryEmulator:
    emulator = BigQueryEmulator().start()
    emulator.configure(pending_seconds=0.1, run_seconds=2.0)
    install_aio_route()
    stack.callback(uninstall_aio_route)
    return emulator


_SHARED = SharedEmulator(_start)


class BigQueryTarget:
    service = "bigquery"
    status_route = calls(service).status
    submit_route = calls(service).submit
    CONFIGURATION = {"query": {"query": "INSERT INTO faults.t SELECT 1", "useLegacySql": False}}

    def __init__(self, cell: str):
        self.cell = cell
        self.conn_id = f"bq_{cell.replace('-', '_')}"
        self.project = f"faults-{cell}"
        self.emu = _SHARED.acquire()

    def stop(self) -> None:
        _SHARED.release()

    def conn_env(self) -> dict[str, str]:
        conn = {"conn_type": "google_cloud_platform", "extra": json.dumps({"is_anonymous": True,
                                                                            "project": self.project})}
        return {f"AIRFLOW_CONN_{self.conn_id.upper()}": json.dumps(conn), "BIGQUERY_EMULATOR_HOST": self.emu.url}

    def reset(self) -> None:
        """Nothing to reset: the project is this cell's alone."""

    # ------------------------------------------------------------------ our code, pointed here
    def operator(self, **kwargs: Any):
        from durable_jobs.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator

        return BigQueryInsertJobOperator(
            task_id="faults", configuration=self.CONFIGURATION, gcp_conn_id=self.conn_id, location="US",
            poll_interval=0.2, result_timeout=TIMEOUT, **kwargs,
        )

    def request(self, op) -> dict[str, Any]:
        return {"configuration": self.CONFIGURATION, "location": "US", "timeout": TIMEOUT}

    def start(self, client: JobClient) -> Any:
        return client.submit(self.request(None), client.format_key(new_nonce()))

    def jobs_created(self) -> int:
        return sum(1 for i in self.emu.ledger()["inserts"] if i["project"] == self.project and i["created"])

    # ------------------------------------------------------------------ faults
    def arm(self, case: str, *, seconds: float = 2.0) -> None:
        get, submit = f"{self.project}/{self.status_route}", f"{self.project}/{self.submit_route}"
        unknown = {"status": {"state": "SUSPENDED"}}
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

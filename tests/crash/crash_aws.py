"""AWS Batch for the crash suite: one moto server in the test process, one fault proxy per cell.

moto's backends and its state manager are process-wide, so every Batch cell shares one moto (the
``AwsTestEnv``: queue, job definition, IAM role); each cell gets its own ``AwsFaultProxy`` in front
of it and its own Airflow connection (``AIRFLOW_CONN_AWS_<CELL>``), so a hold armed by one cell
never parks another cell's request and each cell's jobs are counted on its own proxy's ledger
(what moto answered to SubmitJob), cross-checked against moto's own listing by job name.
"""

from __future__ import annotations

import json
from typing import Any

from durable_jobs.emulators.aws_env import CONN_ENV, CONSISTENCY_ENV, JOB_QUEUE, REGION, AwsTestEnv
from durable_jobs.emulators.aws_proxy import AwsFaultProxy, Hold

SUBMIT_JOB = "batch:SubmitJob"
DESCRIBE = "batch:DescribeJobs"
CANCEL_OPS = ("batch:TerminateJob", "batch:CancelJob")
ACTIVE = ("SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING")


class BatchVendor:
    """One cell's view of AWS Batch: its own proxy in front of the shared moto."""

    def __init__(self, env: AwsTestEnv, job_name: str):
        self.env = env
        self.job_name = job_name
        self.proxy = AwsFaultProxy(env.moto.url).start()
        self._hold: Hold | None = None

    def conn(self) -> str:
        return json.dumps({
            "conn_type": "aws", "login": "testing", "password": "testing",
            "extra": {"region_name": REGION, "endpoint_url": self.proxy.url},
        })

    def hold_submit(self) -> None:
        self._hold = self.proxy.hold(SUBMIT_JOB)

    def held(self) -> bool:
        return bool(self._hold and self._hold.parked.is_set())

    def release(self, abandon: bool = False) -> int:
        self.proxy.release()
        return 1

    def created(self) -> list[str]:
        """Job ids moto returned to this cell's SubmitJob calls."""
        return [e["id"] for e in self.proxy.jobs_created(SUBMIT_JOB)]

    def calls(self, op: str) -> int:
        return self.proxy.calls.get(op, 0)

    def jobs(self) -> list[dict[str, Any]]:
        """moto's own view: every job whose name starts with this cell's job name, oldest first."""
        summaries = self.env.batch_jobs(self.job_name)
        if not summaries:
            return []
        batch = self.env.client("batch", direct=True)
        described = batch.describe_jobs(jobs=[s["jobId"] for s in summaries])["jobs"]
        return sorted(described, key=lambda j: j["createdAt"])

    def stop(self) -> None:
        self.proxy.stop()


class BatchFleet:
    """The shared moto + resources, and one ``BatchVendor`` per Batch cell."""

    def __init__(self, cells: dict[str, str]):
        """``cells``: cell key -> job name."""
        self.env = AwsTestEnv(consistency_seconds=1.0).start()
        self.vendors = {key: BatchVendor(self.env, name) for key, name in cells.items()}

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        """What the Airflow processes need: one connection per cell, credentials, the consistency window."""
        out = {f"AIRFLOW_CONN_{conn_id.upper()}": self.vendors[key].conn() for conn_id, key in conn_ids.items()}
        out[CONN_ENV] = self.env.moto.airflow_conn_uri(self.env.proxy.url, REGION)
        out[CONSISTENCY_ENV] = str(self.env.consistency_seconds)
        out.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_DEFAULT_REGION": REGION})
        return out

    def stop(self) -> None:
        try:
            for vendor in self.vendors.values():
                vendor.stop()
        finally:
            self.env.stop()


__all__ = ["ACTIVE", "BatchFleet", "BatchVendor", "CANCEL_OPS", "DESCRIBE", "JOB_QUEUE", "SUBMIT_JOB"]

"""What the REST Google emulators' crash cells share: one emulator, a project per cell.

BigQuery and Dataflow are each served by one emulator for all their cells; a cell's holds, clock and ledger are
its project's (``<project>/<route>`` paths). ``ProjectTenant`` is a cell's view of it; ``google_conn_env`` the
connections that point each cell's conn id at its project, with anonymous credentials.
"""

from __future__ import annotations

import json
from typing import Any


def project_of(key: str) -> str:
    return "crash-" + key.lower().replace("_", "-")


def google_conn_env(conn_ids: dict[str, str]) -> dict[str, str]:
    """``AIRFLOW_CONN_<ID>`` for each cell's conn id -> crash key: anonymous credentials, the cell's project."""
    out = {}
    for conn_id, key in conn_ids.items():
        extra = {"is_anonymous": True, "project": project_of(key)}
        out[f"AIRFLOW_CONN_{conn_id.upper()}"] = json.dumps({"conn_type": "google_cloud_platform",
                                                              "extra": json.dumps(extra)})
    return out


class ProjectTenant:
    """One cell's view of a shared emulator: its project's holds, clock and ledger."""

    def __init__(self, emulator: Any, project: str):
        self.emulator, self.project = emulator, project

    def add_hold(self, path: str, phase: str) -> None:
        self.emulator.add_hold(f"{self.project}/{path}", phase)

    def holds(self) -> list[dict[str, Any]]:
        return [h for h in self.emulator.holds()["held"] if h["path"].startswith(f"{self.project}/")]

    def release(self, abandon: bool = False) -> None:
        for held in self.holds():
            self.emulator.release(held["id"], abandon)

    def speed(self, speed: float) -> None:
        self.emulator.configure_project(self.project, speed=speed)

    def ledger(self) -> dict[str, Any]:
        return self.emulator.ledger(self.project)

    def finish_all(self) -> None:
        for job_id in self.emulator.ledger(self.project)["jobs"]:
            self.emulator.finish(job_id)

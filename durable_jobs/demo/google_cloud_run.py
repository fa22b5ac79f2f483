"""The Cloud Run table of the Google section of ``durable-jobs demo``: the example DAG against the Cloud Run gRPC
emulator on 127.0.0.1.

The example DAG (``example_dags/google_cloud_run.py``) and the official ``CloudRunExecuteJobOperator`` with the same
job and ``overrides`` play the same faults (``durable_jobs.demo.emulated`` drives them), each run on a fresh
emulator; its ledger counts the executions "Cloud Run" started. ``RunJob`` has no request id: after a lost reply
the official operator's retry starts a second execution; ours finds the first by the key in its overrides.
"""

from __future__ import annotations

from typing import Any

from durable_jobs import vendors
from durable_jobs.demo.emulated import Play, main


def _arm(emu: Any, calls: vendors.Calls, scenario: str) -> None:
    if scenario == "lost_reply":
        emu.inject(calls.submit, "UNAVAILABLE", after=True)
    elif scenario == "poll_failure":  # the official operator polls the operation, ours the execution
        emu.inject("GetOperation", "PERMISSION_DENIED")
        emu.inject(calls.status, "PERMISSION_DENIED")


PLAYS = (
    Play(
        operator="CloudRunExecuteJobOperator", twin="cloud_run_official_dags:official_dag", tag="cloud run",
        emulator="gRPC emulator", emulator_kwargs={"run_seconds": 1.0},
        prepare=lambda emu: emu.add_job("nightly-export"),  # the example's job_name
        arm=_arm, count=lambda emu: emu.created(), counted="executions", unit="exec.", widths=(15, 26),
        must_succeed=True,
        scenarios={
            "happy": ("the execution runs to success on the deferrable path", "1 execution"),
            "lost_reply": ("Cloud Run starts the execution but the RunJob reply is lost (UNAVAILABLE)", "1 execution"),
            "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while it runs; Airflow retries",
                             "1 execution"),
        },
        footer="Executions are counted by the emulator's ledger of RunJob calls.",
    ),
)

if __name__ == "__main__":
    raise SystemExit(main(__name__))

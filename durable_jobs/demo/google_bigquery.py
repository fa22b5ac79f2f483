"""The BigQuery table of the Google section of ``durable-jobs demo``: the example DAG against the BigQuery jobs
emulator on 127.0.0.1.

The example DAG (``example_dags/google_bigquery.py``) and the official ``BigQueryInsertJobOperator`` with the
same job play the same faults (``durable_jobs.demo.emulated`` drives them); the emulator's ledger counts the jobs
"BigQuery" created. One emulator serves every run, reset before each.
"""

from __future__ import annotations

from typing import Any

from durable_jobs import vendors
from durable_jobs.demo.emulated import Play, main


def _arm(emu: Any, calls: vendors.Calls, scenario: str) -> None:
    if scenario == "lost_reply":  # google-cloud-bigquery resends the insert itself: BigQuery answers 409
        emu.add_fault(calls.submit, 503, mode="reset", count=1)
    elif scenario == "poll_failure":
        emu.configure(run_seconds=3.0)
        emu.add_fault(calls.status, 403, count=1, skip=1)


PLAYS = (
    Play(
        operator="BigQueryInsertJobOperator", twin="bigquery_official_dags:official_dag", tag="bigquery",
        emulator="jobs emulator", fresh=False, arm=_arm, count=lambda emu: emu.ledger()["created"],
        scenarios={
            "happy": ("the job runs to success on the deferrable path", "1 job"),
            "lost_reply": ("BigQuery creates the job but the connection drops before the reply", "1 job"),
            "poll_failure": ("the status calls are refused once (HTTP 403) while the job runs; Airflow retries",
                             "1 job"),
        },
        footer="Jobs are counted by the emulator's ledger (what BigQuery created; a 409 on a resent insert is not "
               "one).",
    ),
)

if __name__ == "__main__":
    raise SystemExit(main(__name__))

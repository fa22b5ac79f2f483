"""The Snowflake section of ``durable-jobs demo``: the example DAG against the SQL API emulator on 127.0.0.1.

The example DAG (``example_dags/snowflake_sql_api.py``) and the official ``SnowflakeSqlApiOperator`` with the
same SQL play the same faults (``durable_jobs.demo.emulated`` drives them); the emulator's ledger counts what
"Snowflake" executed. One emulator serves every run, reset before each.
"""

from __future__ import annotations

from typing import Any

from durable_jobs import vendors
from durable_jobs.demo.emulated import Play, family_section


def _arm(emu: Any, calls: vendors.Calls, scenario: str) -> None:
    if scenario == "lost_reply":
        emu.add_fault(calls.submit, 500, mode="lose_reply", count=1)
    elif scenario == "poll_failure":
        emu.configure(run_seconds=3.0)
        emu.add_fault(calls.status, 401, count=1)


PLAYS = (
    Play(
        operator="SnowflakeSqlApiOperator", twin="snowflake_official_dags:official_dag", tag="snowflake",
        emulator="emulator", fresh=False, arm=_arm, count=lambda emu: emu.ledger()["executions"],
        counted="executions", unit="execution(s)", widths=(12, 32),
        scenarios={
            "happy": ("the batch runs to success on the deferrable path", "1 execution"),
            "lost_reply": ("Snowflake executes the batch but the reply to the POST is lost (HTTP 500)", "1 execution"),
            "poll_failure": ("the status calls are refused once (HTTP 401) while the batch runs; Airflow retries",
                             "1 execution"),
        },
        footer="Executions are counted by the emulator's ledger (what Snowflake ran; a retry=true resend is not one).",
    ),
)


def section() -> list[dict]:
    """The Snowflake section of ``durable-jobs demo``: prints its table, returns the rows where ours missed."""
    return family_section("snowflake")


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)

"""The Dataflow table of the Google section of ``durable-jobs demo``: the example DAG against the Dataflow REST
emulator on 127.0.0.1.

The example DAG (``example_dags/google_dataflow.py``) and the official ``DataflowTemplatedJobStartOperator`` with
the same template, job name and parameters play the same faults (``durable_jobs.demo.emulated`` drives them), each
run on a fresh emulator; its ledger counts the jobs "Dataflow" launched. Upstream names each try's job
``<job_name>-<new uuid>``: after a lost launch reply or a refused status call its retry launches a second job;
ours re-attaches to the first under its key-derived name. Played on the synchronous path: the refused status call
is armed on the REST ``jobs.get`` the worker polls (the official deferrable trigger polls the emulator's gRPC
``GetJob``, where no fault is armed).
"""

from __future__ import annotations

from typing import Any

from durable_jobs import vendors
from durable_jobs.demo.emulated import Play, main


def _arm(emu: Any, calls: vendors.Calls, scenario: str) -> None:
    if scenario == "lost_reply":  # the job is created, then the reply is replaced by a 503
        emu.add_fault(calls.submit, 503, mode="lose_reply", count=1)
    elif scenario == "poll_failure":
        emu.add_fault(calls.status, 403, count=1)


def _unavailable() -> str | None:
    try:
        import airflow.providers.apache.beam.hooks.beam  # noqa: F401 - what the official Dataflow hook imports
    except ImportError:
        return ("Dataflow demo skipped: the official Dataflow hook needs the Apache Beam provider "
                "(pip install 'airflow-durable-jobs[google-dataflow]').")
    return None


PLAYS = (
    Play(
        operator="DataflowTemplatedJobStartOperator", twin="dataflow_official_dags:official_dag", tag="dataflow",
        emulator="REST emulator", prepare=lambda emu: emu.configure(pending_seconds=0.1, run_seconds=1.0),
        # the emulator lists a job at once: a short listing window keeps the lost-reply row quick
        env={vendors.config_option("dataflow_list_consistency_seconds").env_var: "1"},
        arm=_arm, count=lambda emu: emu.created(), widths=(9, 26), must_succeed=True, unavailable=_unavailable,
        scenarios={
            "happy": ("the job runs to success", "1 job"),
            "lost_reply": ("Dataflow launches the job but the templates.launch reply is lost (503)", "1 job"),
            "poll_failure": ("the status call is refused once (403) while it runs; Airflow retries", "1 job"),
        },
        footer="Jobs are counted by the emulator's ledger of templates.launch calls that created one.",
    ),
)

if __name__ == "__main__":
    raise SystemExit(main(__name__))

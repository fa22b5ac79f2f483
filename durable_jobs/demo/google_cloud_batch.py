"""The Cloud Batch table of the Google section of ``durable-jobs demo``: the example DAG against the Cloud Batch
gRPC emulator on 127.0.0.1.

The example DAG (``example_dags/google_cloud_batch.py``) and the official ``CloudBatchSubmitJobOperator`` with the
same job and ``job_name`` play the same faults (``durable_jobs.demo.emulated`` drives them), each run on a fresh
emulator; its ledger counts the jobs "Cloud Batch" created. With a lost reply the official operator does not
duplicate the job: its retry fails with ALREADY_EXISTS (its job id is the job name), which the table shows.
"""

from __future__ import annotations

from durable_jobs.demo.emulated import Play, arm_grpc, main

PLAYS = (
    Play(
        operator="CloudBatchSubmitJobOperator", twin="cloud_batch_official_dags:official_dag", tag="cloud batch",
        emulator="gRPC emulator", emulator_kwargs={"run_seconds": 1.0}, arm=arm_grpc,
        count=lambda emu: emu.created("job"), widths=(15, 26), must_succeed=True,
        scenarios={
            "happy": ("the job runs to success on the deferrable path", "1 job, success"),
            "lost_reply": ("Cloud Batch creates the job but the reply is lost (UNAVAILABLE)", "1 job, success"),
            "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while the job runs; Airflow "
                             "retries", "1 job, success"),
        },
        footer="Jobs are counted by the emulator's ledger (a create refused with ALREADY_EXISTS is not one).",
    ),
)

if __name__ == "__main__":
    raise SystemExit(main(__name__))

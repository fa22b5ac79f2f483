"""The Dataproc tables of the Google section of ``durable-jobs demo``: the example DAGs against the Dataproc gRPC
emulator on 127.0.0.1, one table for jobs (``DataprocSubmitJobOperator``), one for Serverless batches
(``DataprocCreateBatchOperator``).

The example DAGs (``example_dags/google_dataproc.py``, ``google_dataproc_batch.py``) and the official operators
with the same requests play the same faults (``durable_jobs.demo.emulated`` drives them), each run on a fresh
emulator; its ledger counts the jobs "Dataproc" created. The official job twin drops the example's fixed job id:
with it, the official operator fails its own retry with ALREADY_EXISTS instead of showing the duplicate.
"""

from __future__ import annotations

from durable_jobs.demo.emulated import Play, arm_grpc, main

#: the stories of both tables, told of a "job"
SCENARIOS = {
    "happy": ("the job runs to success on the deferrable path", "1 job"),
    "lost_reply": ("Dataproc creates the job but the reply is lost (UNAVAILABLE)", "1 job"),
    "poll_failure": ("the status call is refused once (PERMISSION_DENIED) while the job runs; Airflow retries",
                     "1 job"),
}


def _play(kind: str, operator: str, twin: str, unit: str, footer: str) -> Play:
    """The job's table, or the batch's: the same stories of a ``kind``."""
    return Play(
        operator=operator, twin=f"dataproc_official_dags:{twin}", tag=f"dataproc {kind}", emulator="gRPC emulator",
        name="Google Cloud Dataproc", emulator_kwargs={"run_seconds": 1.0}, arm=arm_grpc,
        count=lambda emu: emu.created(kind), unit=unit, footer=footer,
        scenarios={k: (story.replace("job", kind), wanted.replace("job", kind))
                   for k, (story, wanted) in SCENARIOS.items()},
    )


PLAYS = (
    _play("job", "DataprocSubmitJobOperator", "official_dag", "job(s)", ""),
    _play("batch", "DataprocCreateBatchOperator", "official_batch_dag", "batch(es)",
          "Jobs and batches are counted by the emulator's ledger (what Dataproc created; a resent request_id is not "
          "one)."),
)

if __name__ == "__main__":
    raise SystemExit(main(__name__))

"""The SageMaker job operators' create/wait/result cycle through Airflow itself (dag.test) against moto behind our
fault proxy, on whichever Airflow the compat venv runs (2.11, 3.2, 3.3)."""

from __future__ import annotations

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_sagemaker_dags as dags  # noqa: E402
from compat_support import DEFERRALS, release_after_trigger_polls, run_dag, xcom  # noqa: E402

CASES = [(dags.training_sync, "Training"), (dags.training_deferrable, "Training"),
         (dags.processing_sync, "Processing"), (dags.processing_deferrable, "Processing"),
         (dags.transform_sync, "Transform"), (dags.transform_deferrable, "Transform")]


@pytest.fixture(autouse=True)
def _inputs(aws):
    """The S3 input the official hook checks before creating the transform job (``check_s3_url``), in the
    loopback AWS's own bucket (``aws_env.SAGEMAKER_DATA_BUCKET``)."""
    s3 = aws.client("s3", direct=True)
    s3.put_object(Bucket="durable-data", Key="in/part-0.csv", Body=b"1,2,3\n")



@pytest.mark.parametrize(("dag", "job_type"), CASES, ids=lambda c: getattr(c, "dag_id", c))
def test_cycle_create_wait_result(aws, dag, job_type):
    deferrable = "deferrable" in dag.dag_id
    describe = f"sagemaker:Describe{job_type}Job"
    watcher = release_after_trigger_polls(aws, describe) if deferrable else None
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    if watcher is not None:
        watcher.join(timeout=5)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    [created] = aws.proxy.jobs_created(f"sagemaker:Create{job_type}Job")
    result = xcom(dag.dag_id, "run", "return_value")
    assert result[job_type][f"{job_type}JobName"] == created["token"]  # upstream's Describe*Job reply
    assert created["token"].startswith("compat-") and len(created["token"]) <= 63  # <name>-<key>
    assert DEFERRALS == ([dag.dag_id] if deferrable else [])
    if deferrable:
        assert aws.proxy.async_calls.get(describe, 0) >= 1, aws.proxy.async_calls


def test_lost_create_reply_gives_one_job(aws):
    """Below 3.3 nothing is checkpointed, but the name is a per-try key: botocore's resend of a lost reply gets
    ResourceInUse under that name, which is the job this try created."""
    aws.proxy.fault("sagemaker:CreateTrainingJob", mode="lose_reply", status=500)
    state, tis = run_dag(dags.training_sync)
    assert state == "success", tis
    assert len(aws.proxy.jobs_created("sagemaker:CreateTrainingJob")) == 1
    assert aws.proxy.calls["sagemaker:CreateTrainingJob"] >= 2

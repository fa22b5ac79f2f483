"""Amazon SageMaker training, processing and transform jobs end to end: Airflow runs the DAGs, moto (server mode,
behind our fault proxy) runs the jobs.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from a job whose name holds the
emulator's ``fail`` marker, never from patching our code. moto gaps covered by our rule layer rather than skipped
(``aws_moto.MOTO_GAPS``): ``sagemaker-job-name-unique`` (moto overwrites a job of the same name),
``sagemaker-life-cycle`` (moto's jobs are Completed at once) and ``sagemaker-stop-job``.
"""

from __future__ import annotations

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.sagemaker import SageMakerJobClient
from durable_jobs.testing.emulators.aws_moto import MOTO_GAPS, SAGEMAKER_MODEL

from . import driver, store

RECORD = "sagemaker_training_job_name_durable"
CREATE = "sagemaker:CreateTrainingJob"
DESCRIBE = "sagemaker:DescribeTrainingJob"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_sagemaker_scenarios")


# The S3 inputs the official hook checks before creating a job (``check_s3_url``) are the loopback AWS's own
# (``aws_env.SAGEMAKER_DATA_BUCKET``), re-created by every reset.


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def sagemaker(aws):
    return aws.client("sagemaker", direct=True)


# ------------------------------------------------------------------ happy paths
def test_training_sync_names_the_job_by_key_and_returns_upstreams_description(aws, dags):
    dr = driver.run(dags.training_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [entry] = aws.proxy.jobs_created(CREATE)
    record = store.get(dr, RECORD)
    name = entry["token"]  # the TrainingJobName the create carried
    assert name == f"train-{dr.logical_date:%Y%m%d}-{record['nonce']}" and len(name) <= 63  # rendered, then the key
    assert record["id"] == name and record["status"] == "SUCCEEDED"
    assert store.get(dr, "sagemaker_training_job_name") == name
    training = xcoms(dr)["return_value"]["Training"]
    assert training["TrainingJobName"] == name and training["TrainingJobStatus"] == "Completed"
    assert training["ResourceConfig"]["InstanceCount"] == 1  # upstream's integer fields, parsed


def test_training_deferrable_waits_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(DESCRIBE, SAGEMAKER_MODEL)

    dr = driver.run(dags.training_deferrable)

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 1)
    [entry] = aws.proxy.jobs_created(CREATE)
    assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1  # aiobotocore, from the trigger
    assert xcoms(dr)["return_value"]["Training"]["TrainingJobName"] == entry["token"]


def test_wait_for_completion_false_returns_the_running_jobs_description(aws, dags):
    aws.moto.hold(SAGEMAKER_MODEL)

    dr = driver.run(dags.training_no_wait)

    assert driver.task_result(dr, "run").state == "success"
    assert xcoms(dr)["return_value"]["Training"]["TrainingJobStatus"] == "InProgress"
    assert store.get(dr, RECORD)["id"] == aws.proxy.jobs_created(CREATE)[0]["token"]


@pytest.mark.parametrize("dag_name", ["processing_sync", "processing_deferrable"])
def test_processing_job_once_with_upstreams_result(aws, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    [entry] = aws.proxy.jobs_created("sagemaker:CreateProcessingJob")
    record = store.get(dr, "sagemaker_processing_job_name_durable")
    assert entry["token"] == f"prep-{dr.logical_date:%Y%m%d}-{record['nonce']}" == record["id"]
    assert xcoms(dr)["return_value"]["Processing"]["ProcessingJobStatus"] == "Completed"


def test_transform_creates_the_model_then_one_job_and_pushes_the_link(aws, dags):
    dr = driver.run(dags.transform_sync)

    assert driver.task_result(dr, "run").state == "success"
    [entry] = aws.proxy.jobs_created("sagemaker:CreateTransformJob")
    result = xcoms(dr)["return_value"]
    assert result["Transform"]["TransformJobName"] == entry["token"] and result["Model"]["ModelName"] == "durable-model"
    assert entry["token"] in xcoms(dr)["sagemaker_transform_job_details"]["job_name"]  # upstream's link


def test_failed_transform_fails_deferred_with_upstreams_message(aws, dags, capfd):
    dr = driver.run(dags.transform_deferrable)

    assert driver.task_result(dr, "run").state == "failed"
    out = capfd.readouterr()
    assert "SageMaker job failed because AlgorithmError" in out.out + out.err


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["training_sync", "training_deferrable"])
def test_lost_create_reply_gives_one_job(aws, dags, dag_name):
    """CreateTrainingJob created the job; its reply was lost; botocore's resend under the same name gets
    ResourceInUse, which only this epoch can cause: the job is ours."""
    aws.proxy.fault(CREATE, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    assert aws.proxy.calls[CREATE] == 2 and len(aws.proxy.jobs_created(CREATE)) == 1
    assert store.get(dr, RECORD)["id"] == aws.proxy.jobs_created(CREATE)[0]["token"]


def test_crash_inside_the_submit_window_reconnects_by_describing_the_name(aws, dags):
    """Every reply to CreateTrainingJob is lost after SageMaker created the job, and try 1's DescribeTrainingJob is
    refused (an expired session token): try 1 ends with an intent and no id, as a worker killed inside the
    submit→persist window leaves it. Try 2 describes the keyed name, finds the job and waits for it."""
    aws.proxy.fault(CREATE, mode="lose_reply", status=500, count=-1)
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    aws.moto.hold(SAGEMAKER_MODEL)

    dr = driver.start(dags.training_sync)
    driver.drive(dags.training_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry" and intent["id"] is None and refused.fired >= 1
    calls = aws.proxy.calls[CREATE]
    aws.proxy.clear()
    aws.moto.progress()
    dr = driver.drive(dags.training_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert calls >= 1 and aws.proxy.calls.get(CREATE, 0) == 0  # found by DescribeTrainingJob, not resent
    names = [j["TrainingJobName"] for j in sagemaker(aws).list_training_jobs()["TrainingJobSummaries"]]
    assert names == [f"train-{dr.logical_date:%Y%m%d}-{intent['nonce']}"]


# ------------------------------------------------------------------ failures, retries, names
@pytest.mark.parametrize("dag_name", ["training_fails", "training_fails_deferrable"])
def test_failed_job_fails_with_upstreams_message_and_the_retry_creates_a_new_name(aws, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = aws.proxy.jobs_created(CREATE)
    assert first["token"] != second["token"] and first["token"].startswith("train-fail-")
    out = capfd.readouterr()
    assert "SageMaker job failed because AlgorithmError" in out.out + out.err


def test_real_retry_reconnects_to_the_running_job(aws, dags):
    aws.moto.hold(SAGEMAKER_MODEL)
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.training_sync)
    driver.drive(dags.training_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired
    aws.hold_for(0.5, SAGEMAKER_MODEL)

    dr = driver.drive(dags.training_sync, dr)

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 2)
    [entry] = aws.proxy.jobs_created(CREATE)
    assert xcoms(dr)["return_value"]["Training"]["TrainingJobName"] == entry["token"]


def test_action_if_job_exists_applies_to_the_bare_name_someone_else_holds(aws, dags, capfd):
    """A job named exactly as the config says exists (not ours: it carries no key). "fail" fails as upstream;
    "timestamp" needs no rename, since the key already makes our name unique."""
    from tests.integration.dags.aws_sagemaker_scenarios import training_config

    config = {k: v for k, v in training_config("taken").items()}
    config["ResourceConfig"] = {"InstanceCount": 1, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 5}
    config["StoppingCondition"] = {"MaxRuntimeInSeconds": 3600}
    sagemaker(aws).create_training_job(**config)

    failed = driver.run(dags.training_exists_fail)
    assert driver.task_result(failed, "run").state == "failed"
    out = capfd.readouterr()
    assert "A SageMaker job with name taken already exists" in out.out + out.err
    assert aws.proxy.jobs_created(CREATE) == []

    ok = driver.run(dags.training_exists_timestamp)
    assert driver.task_result(ok, "run").state == "success"
    [entry] = aws.proxy.jobs_created(CREATE)
    assert entry["token"] == f"taken-{store.get(ok, RECORD)['nonce']}"


def test_official_operator_names_the_job_as_configured(aws, dags):
    """The control: upstream names the job exactly as configured (its retry would rename it with a timestamp)."""
    dr = driver.run(dags.training_official)

    assert driver.task_result(dr, "run").state == "success"
    assert [e["token"] for e in aws.proxy.jobs_created(CREATE)] == ["official"]


# ------------------------------------------------------------------ the client against the gap rules
@pytest.mark.parametrize("job_type", ["Training", "Processing", "Transform"])
def test_same_name_is_ours_and_the_client_reads_every_state(aws, job_type):
    """MOTO_GAPS['sagemaker-job-name-unique'], ['sagemaker-life-cycle'] and ['sagemaker-stop-job'], through the
    official hook."""
    from tests.integration.dags.aws_sagemaker_scenarios import processing_config, training_config, transform_config

    assert {"sagemaker-job-name-unique", "sagemaker-life-cycle", "sagemaker-stop-job"} <= set(MOTO_GAPS)
    client = SageMakerJobClient(job_type=job_type)
    if job_type == "Training":
        request = training_config("x")
        request["ResourceConfig"] = {"InstanceCount": 1, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 5}
        request["StoppingCondition"] = {"MaxRuntimeInSeconds": 60}
    elif job_type == "Processing":
        request = processing_config("x")
    else:
        full = transform_config("x")
        client.client.create_model(**full["Model"])
        request = full["Transform"]
    key = client.format_key("0123456789abcdef0123456789abcdef", "x")
    aws.moto.hold(SAGEMAKER_MODEL)
    assert client.submit(request, key) == key
    assert client.submit(request, key) == key  # ResourceInUse under our own name: ours
    assert len(aws.proxy.jobs_created(f"sagemaker:Create{job_type}Job")) == 1
    assert client.find(key) == key and client.find("y-" + "0" * 32) is None
    assert client.status(key).phase is JobPhase.ACTIVE
    client.cancel(key)
    assert client.status(key).state in ("Stopping", "Stopped")
    aws.moto.finish(SAGEMAKER_MODEL)
    assert (client.status(key).phase, client.status(key).state) == (JobPhase.FAILED, "Stopped")
    assert client.status("nope-" + "0" * 32).phase is JobPhase.MISSING
    failing = client.format_key("f" * 32, "x-fail")
    client.submit({**request}, failing)
    status = client.status(failing)
    assert (status.phase, status.state) == (JobPhase.FAILED, "Failed") and "AlgorithmError" in status.message

"""Amazon ECS ``EcsRunTaskOperator`` end to end: Airflow runs the DAGs, moto (server mode, behind our fault
proxy) runs the tasks.

Every failure comes from the proxy (an AWS-shaped error, a lost reply) or from a task whose container exits 1
in moto, never from patching our code. moto gaps covered by our rule layer rather than skipped
(``durable_jobs.testing.emulators.aws_moto.MOTO_GAPS``): ``ecs-client-token`` (moto ignores the token),
``ecs-task-life-cycle`` (moto's containers never stop) and ``ecs-describe-missing``.
"""

from __future__ import annotations

import pytest

from durable_jobs.core.status import JobPhase
from durable_jobs.providers.amazon.aws.clients.base import KEY_TAG
from durable_jobs.providers.amazon.aws.clients.ecs import EcsJobClient
from durable_jobs.testing.emulators.aws_env import ECS_CLUSTER, ECS_TASK_DEFINITION
from durable_jobs.testing.emulators.aws_moto import ECS_MODEL, MOTO_GAPS

from . import driver, store

RECORD = "ecs_task_arn_durable"
RUN = "ecs:RunTask"
DESCRIBE = "ecs:DescribeTasks"


@pytest.fixture(scope="module")
def dags():
    return driver.load("aws_ecs_scenarios")


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


def tokens(aws) -> list[str | None]:
    return [entry["token"] for entry in aws.proxy.jobs_created(RUN)]


def key_tag(task) -> str | None:
    return next((t["value"] for t in task.get("tags") or [] if t["key"] == KEY_TAG), None)


# ------------------------------------------------------------------ happy paths
def test_sync_success_sends_the_key_as_client_token_and_tag(aws, dags):
    dr = driver.run(dags.ecs_sync)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [task] = aws.ecs_tasks()
    record = store.get(dr, RECORD)
    assert record["id"] == task["taskArn"] and record["status"] == "SUCCEEDED"
    assert store.get(dr, "ecs_task_arn") == task["taskArn"]
    assert tokens(aws) == [record["nonce"]] and key_tag(task) == record["nonce"]
    assert task["lastStatus"] == "STOPPED" and task["containers"][0]["exitCode"] == 0
    assert task["startedBy"] == "airflow"  # upstream's startedBy (the task's owner) without reattach
    [env] = task["overrides"]["containerOverrides"][0]["environment"]
    assert env["name"] == "DAY" and "{{" not in env["value"]  # the template field was rendered
    pushed = xcoms(dr)
    assert pushed["ecs_task_arn"] == task["taskArn"]
    assert pushed.get("return_value") is None  # upstream returns a log line only when CloudWatch logs are read


def test_deferrable_waits_in_the_trigger(aws, dags):
    aws.hold_until_trigger_polls(DESCRIBE, ECS_MODEL)

    dr = driver.run(dags.ecs_deferrable)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [task] = aws.ecs_tasks()
    assert aws.proxy.async_calls.get(DESCRIBE, 0) >= 1  # aiobotocore, from the trigger
    assert store.get(dr, RECORD)["status"] == "SUCCEEDED"
    assert xcoms(dr)["ecs_task_arn"] == task["taskArn"]


def test_wait_for_completion_false_returns_once_the_task_is_accepted(aws, dags):
    aws.moto.hold(ECS_MODEL)

    dr = driver.run(dags.ecs_no_wait)

    assert driver.task_result(dr, "run").state == "success"
    [task] = aws.ecs_tasks()
    assert task["lastStatus"] == "RUNNING" and store.get(dr, RECORD)["id"] == task["taskArn"]


# ------------------------------------------------------------------ the lost reply and the window
@pytest.mark.parametrize("dag_name", ["ecs_sync", "ecs_deferrable"])
def test_lost_run_task_reply_gives_one_task(aws, dags, dag_name):
    """RunTask started the task; its reply was lost; the resend under the same clientToken (botocore's retry:
    the token makes it safe, so RunTask keeps the SDK's retries) gets the same task back."""
    aws.proxy.fault(RUN, mode="lose_reply", status=500)

    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 1)
    [task] = aws.ecs_tasks()
    assert len(aws.proxy.jobs_created(RUN)) == 1 and aws.proxy.calls[RUN] == 2
    assert store.get(dr, RECORD)["id"] == task["taskArn"]


def test_crash_inside_the_submit_window_gives_one_task(aws, dags):
    """RunTask's replies are lost after ECS started the task (botocore's own resends carry the same token and
    get the same task), and the listing is refused: try 1 ends with an intent and no id, as a worker killed
    inside the submit→persist window leaves it. Try 2 finds the task by its tag: still one task."""
    aws.proxy.fault(RUN, mode="lose_reply", status=500, count=-1)
    aws.proxy.fault("ecs:ListTasks", status=400, code="ClientException", count=-1)
    aws.moto.hold(ECS_MODEL)

    dr = driver.start(dags.ecs_sync)
    driver.drive(dags.ecs_sync, dr, max_tries=1)
    intent = store.get(dr, RECORD)
    assert driver.task_result(dr, "run").state == "up_for_retry"
    assert intent["id"] is None and len(aws.proxy.jobs_created(RUN)) >= 1
    aws.proxy.clear()
    aws.moto.progress()
    dr = driver.drive(dags.ecs_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    tasks = aws.ecs_tasks()
    assert len(tasks) == 1 and key_tag(tasks[0]) == intent["nonce"]
    assert store.get(dr, RECORD)["id"] == tasks[0]["taskArn"]


def test_official_operator_is_protected_by_botocores_token_only_within_one_call(aws, dags):
    """The control: botocore fills in RunTask's clientToken (an idempotencyToken member) and reuses it on its
    own retry of a lost reply, so the official operator also gets one task here. A new try (a crash) draws a
    new token and a second task: that is the crash matrix's ECS-W2 row."""
    aws.proxy.fault(RUN, mode="lose_reply", status=500)

    driver.run(dags.ecs_official)

    assert len(aws.ecs_tasks()) == 1 and aws.proxy.calls[RUN] == 2
    [token] = tokens(aws)
    assert token and len(token) == 36  # botocore's uuid4


# ------------------------------------------------------------------ failures, skip, retries
@pytest.mark.parametrize("dag_name", ["ecs_fails", "ecs_fails_deferrable"])
def test_failed_task_fails_with_the_official_message_and_the_retry_runs_a_new_task(aws, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    first, second = aws.ecs_tasks()
    assert first["containers"][0]["exitCode"] == second["containers"][0]["exitCode"] == 1
    assert len(set(tokens(aws))) == 2  # a new epoch, a new clientToken
    out = capfd.readouterr()
    assert "This task is not in success state" in out.out + out.err
    assert store.get(dr, RECORD)["status"] == "FAILED"


def test_skip_on_exit_code_skips_as_upstream(aws, dags):
    dr = driver.run(dags.ecs_skip)

    assert driver.task_result(dr, "run").state == "skipped"
    assert len(aws.ecs_tasks()) == 1


def test_real_retry_reconnects_to_the_running_task(aws, dags):
    """Try 1 fails while its task runs (DescribeTasks refused: an expired session token); the retry
    reconnects to the task instead of starting another."""
    aws.moto.hold(ECS_MODEL)
    refused = aws.proxy.fault(DESCRIBE, status=400, code="ExpiredTokenException", count=-1)
    dr = driver.start(dags.ecs_sync)
    driver.drive(dags.ecs_sync, dr, max_tries=1)
    assert driver.task_result(dr, "run").state == "up_for_retry" and refused.fired >= 1
    refused.count = refused.fired
    aws.hold_for(1.0, ECS_MODEL)

    dr = driver.drive(dags.ecs_sync, dr)

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("success", 2)
    assert len(aws.ecs_tasks()) == 1 and len(aws.proxy.jobs_created(RUN)) == 1


def test_reattach_adopts_the_task_the_official_operator_started(aws, dags):
    """Upstream's reattach: a task the official operator started for this task instance (``startedBy`` is
    upstream's deterministic id of it) is still RUNNING when the import is switched to ours: ours attaches
    to it instead of starting another, and records it."""
    from airflow.providers.amazon.aws.utils.identifiers import generate_uuid

    aws.moto.hold(ECS_MODEL)
    dr = driver.start(dags.ecs_reattach)
    started_by = generate_uuid(dr.dag_id, "run", dr.run_id, "-1")
    ecs = aws.client("ecs", direct=True)
    earlier = ecs.run_task(cluster=ECS_CLUSTER, taskDefinition=ECS_TASK_DEFINITION, launchType="FARGATE",
                           startedBy=started_by)["tasks"][0]["taskArn"]
    aws.hold_for(1.0, ECS_MODEL)

    dr = driver.drive(dags.ecs_reattach, dr)

    assert driver.task_result(dr, "run").state == "success"
    assert [t["taskArn"] for t in aws.ecs_tasks()] == [earlier] and aws.proxy.calls.get(RUN, 0) == 0
    assert store.get(dr, "ecs_task_arn") == earlier


def test_reattach_sends_upstreams_started_by_and_user_tags_beside_ours(aws, dags):
    dr = driver.run(dags.ecs_tagged)

    assert driver.task_result(dr, "run").state == "success"
    [task] = aws.ecs_tasks()
    from airflow.providers.amazon.aws.utils.identifiers import generate_uuid

    assert task["startedBy"] == generate_uuid(dr.dag_id, "run", dr.run_id, "-1")
    assert {t["key"]: t["value"] for t in task["tags"]} == {"team": "etl", KEY_TAG: store.get(dr, RECORD)["nonce"]}


# ------------------------------------------------------------------ the client against the gap rules
def test_same_token_same_request_returns_the_same_task(aws):
    """MOTO_GAPS['ecs-client-token']: AWS's rule, through the official hook's client."""
    assert "ecs-client-token" in MOTO_GAPS
    client = EcsJobClient(cluster=ECS_CLUSTER, started_by="airflow")
    request = {"cluster": ECS_CLUSTER, "taskDefinition": ECS_TASK_DEFINITION, "launchType": "FARGATE",
               "startedBy": "airflow", "overrides": {}}
    key = "0123456789abcdef0123456789abcdef"
    first = client.submit(request, key)
    assert client.submit(request, key) == first
    # the same token with another request: ConflictException names the task, which is taken as found
    assert client.submit({**request, "group": "other"}, key) == first
    assert len(aws.ecs_tasks()) == 1
    assert client.find(key) == first


def test_unknown_task_is_missing_and_a_stopped_task_reports_its_exit(aws):
    client = EcsJobClient(cluster=ECS_CLUSTER, started_by="airflow")
    unknown = f"arn:aws:ecs:us-east-1:123456789012:task/{ECS_CLUSTER}/00000000000000000000000000000000"
    assert client.status(unknown).phase is JobPhase.MISSING
    request = {"cluster": ECS_CLUSTER, "taskDefinition": ECS_TASK_DEFINITION + "-fails", "launchType": "FARGATE",
               "startedBy": "airflow", "overrides": {}}
    arn = client.submit(request, "f" * 32)
    aws.moto.finish(ECS_MODEL)
    status = client.status(arn)
    assert (status.phase, status.state) == (JobPhase.FAILED, "STOPPED") and "exited with code 1" in status.message
    client.cancel(arn)  # a stopped task: ECS answers, nothing changes phase

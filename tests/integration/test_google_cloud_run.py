"""Cloud Run jobs end to end: Airflow runs the DAGs, the official ``CloudRunHook`` / ``CloudRunAsyncHook`` (the real
``google-cloud-run`` clients) talk over loopback gRPC to the emulator, whose ledger records every ``RunJob``."""

from __future__ import annotations

import asyncio

import pytest

from durable_jobs.providers.google.cloud.clients.cloud_run import KEY_ENV, CloudRunJobClient, with_key
from durable_jobs.testing.emulators.cloud_run import PROJECT, REGION, CloudRunEmulator

from . import driver, store

RECORD = "cloud_run_execution_name_durable"
NONCE = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def cr(monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "5")
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__CLOUD_RUN_LIST_CONSISTENCY_SECONDS", "1")
    emulator = CloudRunEmulator(run_seconds=0.5).start()
    try:
        for name, value in emulator.airflow_conn_env().items():
            monkeypatch.setenv(name, value)
        emulator.add_job("daily", env={"MODE": "batch"})
        with emulator.routed():
            yield emulator
    finally:
        emulator.stop()


@pytest.fixture(scope="module")
def dags():
    return driver.load("cloud_run_scenarios")


def runs(cr) -> list[dict]:
    return [e for e in cr.ledger() if e["op"] == "RunJob"]


def xcoms(dr, task_id: str = "run") -> dict:
    from airflow import settings
    from airflow.models.xcom import XComModel

    with settings.Session() as session:
        rows = session.query(XComModel).filter_by(dag_id=dr.dag_id, run_id=dr.run_id, task_id=task_id).all()
        return {row.key: XComModel.deserialize_value(row) for row in rows}


@pytest.mark.parametrize("dag_name", ["cr_sync", "cr_deferrable"])
def test_one_execution_carries_the_key_and_the_users_overrides(cr, dags, dag_name):
    dr = driver.run(getattr(dags, dag_name))

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 1)
    record = store.get(dr, RECORD)
    [run] = runs(cr)
    assert run["request_id"] == record["nonce"] and record["id"].endswith(f"/executions/{run['id']}")
    assert cr.job_states() == {run["id"]: "SUCCEEDED"}
    execution = cr.model.jobs[record["id"]].message  # the template the tasks ran with: the user's overrides too
    ds = dr.logical_date.strftime("%Y-%m-%d")
    assert list(execution.template.containers[0].args) == ["--day", ds]
    env = {e.name: e.value for e in execution.template.containers[0].env}
    assert env == {"MODE": "batch", "DAY": ds, KEY_ENV: record["nonce"]}
    pushed = xcoms(dr)
    assert pushed["return_value"]["name"] == f"projects/{PROJECT}/locations/{REGION}/jobs/daily"  # Job.to_dict
    assert pushed["log_uri"].startswith("https://console.cloud.google.com/logs/")  # upstream's two links
    assert pushed["cloud_run_job_execution_details"].endswith(f"/run/jobs/details/{REGION}/daily/executions"
                                                              f"?project={PROJECT}")


@pytest.mark.parametrize("dag_name", ["cr_sync", "cr_deferrable"])
def test_lost_run_job_reply_starts_one_execution(cr, dags, dag_name):
    """The execution was started, the reply lost: before resending, ListExecutions finds the key in it."""
    cr.inject("RunJob", "UNAVAILABLE", after=True)

    dr = driver.run(getattr(dags, dag_name))

    assert driver.task_result(dr, "run").state == "success"
    assert cr.created() == 1 and len(cr.job_states()) == 1
    assert cr.calls.get("ListExecutions", 0) >= 1


@pytest.mark.parametrize("dag_name", ["cr_official", "cr_official_deferrable"])
def test_the_official_operator_runs_a_second_execution(cr, dags, dag_name):
    """What ours fixes: upstream's retry after a lost RunJob reply starts the job again."""
    cr.inject("RunJob", "UNAVAILABLE", after=True)

    dr = driver.run(getattr(dags, dag_name))

    assert (driver.task_result(dr, "run").state, driver.task_result(dr, "run").try_number) == ("success", 2)
    assert cr.created() == 2 and set(cr.job_states().values()) == {"SUCCEEDED"}
    assert set(cr.execution_keys().values()) == {""}  # upstream carries no key


@pytest.mark.parametrize("dag_name", ["cr_fails", "cr_fails_deferrable"])
def test_a_failed_execution_is_retried_as_a_new_one(cr, dags, dag_name, capfd):
    dr = driver.run(getattr(dags, dag_name))

    result = driver.task_result(dr, "run")
    assert (result.state, result.try_number) == ("failed", 2)
    assert cr.created() == 2 and set(cr.job_states().values()) == {"FAILED"}
    assert len(set(cr.execution_keys().values())) == 2  # a new epoch, a new key
    out = capfd.readouterr()
    assert "Some tasks failed execution" in out.out + out.err


def test_timeout_seconds_bounds_the_wait_and_the_last_try_cancels(cr, dags, capfd):
    dr = driver.run(dags.cr_timeout)

    assert driver.task_result(dr, "run").state == "failed"
    out = capfd.readouterr()
    assert "Operation timed out" in out.out + out.err
    assert cr.created() == 1
    assert list(cr.job_states().values())[0] in ("CANCELLING", "CANCELLED")
    assert [e["op"] for e in cr.ledger()].count("CancelExecution") == 1


# Each side several times what a loaded machine has to fit in it: the first scan (right after the submit) comes
# well inside the lag, so that there is a re-scan to see (and, in a 2 s window, a second scan at all); a lag inside
# the window ends seconds before it does; a lag past the window ends 8 s after it.
@pytest.mark.parametrize(("lag", "window", "found"), [(1.5, 5.0, True), (10.0, 2.0, False)])
def test_find_covers_the_listing_lag_inside_the_consistency_window_only(cr, lag, window, found):
    """The open window, measured: an execution listed later than the window is not found (the retry would run
    a second one); within the window, find re-scans until it appears."""
    from datetime import datetime, timezone

    cr.set_list_lag(lag)
    client = CloudRunJobClient(region=REGION, project_id=PROJECT, job_name="daily", consistency_seconds=window)
    since = datetime.now(tz=timezone.utc)
    name = client.submit({}, NONCE)

    assert (client.find(NONCE, since=since) == name) is found
    assert cr.calls["ListExecutions"] >= 2  # it re-scanned


def test_the_key_merges_into_the_users_overrides():
    from google.cloud.run_v2 import RunJobRequest

    assert with_key(None, "k") == {"container_overrides": [{"env": [{"name": KEY_ENV, "value": "k"}]}]}
    mine = {"task_count": 3, "container_overrides": [{"name": "main", "env": [{"name": KEY_ENV, "value": "old"},
                                                                            {"name": "A", "value": "1"}]},
                                                   {"name": "side", "args": ["x"]}]}
    merged = with_key(mine, "k")
    assert merged["task_count"] == 3 and merged["container_overrides"][1] == {"name": "side", "args": ["x"]}
    assert merged["container_overrides"][0]["env"] == [{"name": "A", "value": "1"}, {"name": KEY_ENV, "value": "k"}]
    assert mine["container_overrides"][0]["env"][0]["value"] == "old"  # the user's dict is not changed
    message = RunJobRequest.Overrides(task_count=2, container_overrides=[{"args": ["y"]}])
    assert with_key(message, "k")["container_overrides"][0]["env"] == [{"name": KEY_ENV, "value": "k"}]
    RunJobRequest(name="projects/p/locations/l/jobs/j", overrides=with_key(message, "k"))  # the client takes it


def test_bad_arguments_fail_at_parse_time():
    from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator

    with pytest.raises(ValueError, match="region is required"):
        CloudRunExecuteJobOperator(task_id="x", project_id=PROJECT, region="", job_name="j")
    with pytest.raises(ValueError, match="timeout_seconds"):
        CloudRunExecuteJobOperator(task_id="x", project_id=PROJECT, region=REGION, job_name="j", timeout_seconds=0)


@pytest.mark.parametrize(("state", "cancelled"), [("failed", True), ("deferred", False)])
def test_user_kill_of_a_deferred_task_cancels_the_execution(cr, monkeypatch, state, cancelled):
    """Our JobTrigger polls GetExecution through the async client; a user's kill cancels the execution."""
    from airflow.sdk.execution_time import task_runner

    from durable_jobs.core.trigger import JobTrigger

    from .test_aws_kill import TI, Supervisor, run_then_cancel

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    supervisor = Supervisor(state)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    cr.hold()
    client = CloudRunJobClient(region=REGION, project_id=PROJECT, job_name="daily")
    ident = client.submit({}, NONCE)
    trigger = JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=ident,
                         poll_interval=0.1, cancel_on_kill="user")
    trigger.task_instance = TI

    asyncio.run(run_then_cancel(trigger, polled=lambda: cr.calls.get("GetExecution", 0) >= 2))

    assert supervisor.asked == 1 and cr.calls["GetExecution"] >= 2
    cancels = [e for e in cr.ledger() if e["op"] == "CancelExecution"]
    short = ident.rsplit("/", 1)[-1]
    if cancelled:
        assert len(cancels) == 1 and cr.job_states()[short] in ("CANCELLING", "CANCELLED")
    else:
        assert cancels == [] and cr.job_states()[short] == "RUNNING"  # a move: left running


def test_the_example_dag_runs_as_written_with_a_lost_reply(cr):
    """example_dags/google_cloud_run.py: deferrable; the RunJob reply lost once -> one execution."""
    cr.add_job("nightly-export", project=PROJECT, region=REGION)
    dags = driver.load("google_cloud_run", driver.EXAMPLES)
    for task in dags.dag.tasks:
        task.polling_period_seconds = 0.2
    cr.inject("RunJob", "UNAVAILABLE", after=True)

    dr = driver.run(dags.dag)

    assert driver.task_result(dr, "nightly_export").state == "success"
    [(ident, state)] = cr.job_states().items()
    assert cr.created() == 1 and state == "SUCCEEDED" and ident.startswith("nightly-export-")


def test_the_surface_is_the_official_one():
    """Same class name, signature (plus durable-jobs' own keyword arguments), template attributes and links."""
    import inspect

    from airflow.providers.google.cloud.operators import cloud_run as official

    from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator as Ours

    theirs = official.CloudRunExecuteJobOperator
    mine, upstream = inspect.signature(Ours.__init__).parameters, inspect.signature(theirs.__init__).parameters
    assert Ours.__name__ == theirs.__name__
    assert set(mine) - set(upstream) == {"durable", "cancel_on_kill", "fresh_on_clear"}
    for name, param in upstream.items():
        assert mine[name].kind == param.kind and mine[name].default == param.default, name
    for attr in ("template_fields", "template_ext", "template_fields_renderers", "ui_color", "operator_extra_links"):
        assert getattr(Ours, attr) == getattr(theirs, attr), attr


def test_switching_imports_while_deferred_takes_the_other_sides_event(cr):
    """Ours takes the official trigger's failure as upstream raises it; the official execute_complete takes our
    trigger's event (the official fields it carries) and returns the job."""
    from airflow.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator as Official
    from airflow.providers.google.cloud.triggers.cloud_run import RunJobStatus

    from durable_jobs.core.status import JobPhase, JobStatus
    from durable_jobs.providers.google.cloud.operators.cloud_run import CloudRunExecuteJobOperator

    ours = CloudRunExecuteJobOperator(task_id="t", project_id=PROJECT, region=REGION, job_name="daily")
    failed = {"status": RunJobStatus.FAIL.value, "operation_error_code": 9, "operation_error_message": "boom",
              "job_name": "daily", "execution_name": "daily-x"}
    with pytest.raises(Exception, match=r"Operation failed with error code \[9\] and error message \[boom\]"):
        ours.execute_complete(None, failed)

    client = CloudRunJobClient(region=REGION, project_id=PROJECT, job_name="daily")
    fields = client.official_event_fields(f"{client.job_resource}/executions/daily-x",
                                         JobStatus(JobPhase.SUCCEEDED, "SUCCEEDED", ""), {})
    official = Official(task_id="t", project_id=PROJECT, region=REGION, job_name="daily")
    assert official.execute_complete(None, {"client": client.classpath(), **fields})["name"] == client.job_resource
    fields = client.official_event_fields("daily-x", JobStatus(JobPhase.FAILED, "FAILED", "failed=1"), {})
    with pytest.raises(Exception, match="Cloud Run execution ended FAILED"):
        official.execute_complete(None, {"client": client.classpath(), **fields})


@pytest.mark.parametrize("list_failures", [1, -1])
def test_a_failed_lookup_after_an_ambiguous_submit_is_never_read_as_no_execution(cr, list_failures):
    """RunJob answers UNAVAILABLE after starting the execution (a lost reply), then ListExecutions fails too:
    Cloud Run has no request id, so a resend before a lookup has answered could start a second execution.
    One failed lookup is asked again (one execution, found); a lookup failing past the budget fails the try
    saying the execution may exist (still one execution: the next try finds it)."""
    from airflow.sdk import BaseOperator

    from durable_jobs.core.exceptions import JobSubmitError
    from durable_jobs.core.polling import PollPolicy
    from durable_jobs.core.resend import submit_once

    client = CloudRunJobClient(region=REGION, project_id=PROJECT, job_name="daily", consistency_seconds=0.2)
    cr.inject("RunJob", "UNAVAILABLE", after=True)
    cr.inject("ListExecutions", "UNAVAILABLE", times=list_failures)
    policy = PollPolicy(interval=0.1, error_budget=2.0)
    log = BaseOperator(task_id="t").log
    if list_failures == 1:
        found = submit_once(client, {}, NONCE, policy, log=log)
        assert str(found).rsplit("/", 1)[-1] == runs(cr)[0]["id"]
    else:
        with pytest.raises(JobSubmitError, match="looking for the execution under the key failed too"):
            submit_once(client, {}, NONCE, policy, log=log)
    assert len(runs(cr)) == 1
    assert cr.calls["ListExecutions"] >= 2


def test_a_refused_run_names_the_role_the_override_needs(cr):
    """An Invoker-only account may run a job but not override it; the key rides in an override, so the refusal
    says which role to grant (Google: "to override job configurations ...: Cloud Run Developer")."""
    from airflow.sdk import BaseOperator

    from durable_jobs.core.exceptions import VendorAuthError
    from durable_jobs.core.polling import PollPolicy
    from durable_jobs.core.resend import submit_once

    client = CloudRunJobClient(region=REGION, project_id=PROJECT, job_name="daily", consistency_seconds=0.2)
    cr.inject("RunJob", "PERMISSION_DENIED", times=-1)

    with pytest.raises(VendorAuthError, match=r"needs Cloud Run Developer \(roles/run.developer\) on the job"):
        submit_once(client, {}, NONCE, PollPolicy(interval=0.1, error_budget=2.0), log=BaseOperator(task_id="t").log,
                    first_contact=True)
    assert runs(cr) == []

"""The Databricks emulator's contract (docs/emulators/databricks.md), proved through the REAL
official DatabricksHook over loopback HTTP. Nothing is patched: the hook finds the emulator through
an ``AIRFLOW_CONN_*`` environment variable, exactly as a deployment would find Databricks.

Most tests freeze the emulator clock (``speed=0``) and step it with ``advance`` so that states are
exact rather than timing-dependent.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import requests
from tenacity import stop_after_attempt, wait_fixed

from durable_jobs.testing.emulators.databricks import DatabricksEmulator

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_TASK = {"task_key": "main", "notebook_task": {"notebook_path": "/Shared/etl"}}


# -- helpers -------------------------------------------------------------------------------------
def make_hook(conn_id: str = "databricks_default", attempts: int = 2) -> Any:
    """The official hook with fast retries. ``retry_args`` is the hook's own knob: its default
    ``wait_exponential(min=retry_delay)`` sleeps 1 s, 2 s, ... however small ``retry_delay`` is."""
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    retry_args = {"stop": stop_after_attempt(attempts), "wait": wait_fixed(0.01)}
    return DatabricksHook(conn_id, retry_limit=attempts, retry_delay=0.01, retry_args=retry_args)


def payload(token: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"run_name": "emulated", "tasks": [dict(NOTEBOOK_TASK)], **extra}
    if token is not None:
        body["idempotency_token"] = token
    return body


def api_error(excinfo: Any) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON body) behind a DatabricksApiError raised by the hook."""
    response = excinfo.value.__cause__.response
    assert excinfo.value.http_status_code == response.status_code
    return response.status_code, response.json()


def control(emu: DatabricksEmulator, name: str, body: Any = None, expect: int = 200) -> Any:
    """Call the HTTP control API: GET without a body, POST with one."""
    url = f"{emu.url}/_emulator/{name}"
    response = requests.get(url, timeout=5) if body is None else requests.post(url, json=body, timeout=5)
    assert response.status_code == expect, response.text
    return response.json()


def finish(emu: DatabricksEmulator) -> None:
    """Step a frozen clock past pending + running + terminating of the configured plan."""
    c = emu.configure()
    emu.advance(c["pending_seconds"] + c["running_seconds"] + c["terminating_seconds"] + 0.01)


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0) -> Any:
    # Only a real hang should reach the bound: what it waits for takes milliseconds, but a loaded machine
    # (other lanes, CPU hogs) can stall this process for seconds.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


@pytest.fixture
def emu(databricks_conn_env: DatabricksEmulator) -> Iterator[DatabricksEmulator]:
    databricks_conn_env.configure(speed=0)
    yield databricks_conn_env
    assert databricks_conn_env.server_errors == []


@pytest.fixture
def hook(emu: DatabricksEmulator) -> Any:
    return make_hook()


# -- connection, routing, auth -------------------------------------------------------------------
def test_conn_env_points_the_official_hook_at_the_emulator(emu, hook):
    env = emu.airflow_conn_env()
    assert list(env) == ["AIRFLOW_CONN_DATABRICKS_DEFAULT"]
    assert json.loads(env["AIRFLOW_CONN_DATABRICKS_DEFAULT"]) == {
        "conn_type": "databricks",
        "host": "127.0.0.1",
        "port": emu.port,
        "schema": "http",
        "password": "emulator-token",
    }
    assert emu.url == f"http://127.0.0.1:{emu.port}"
    assert hook._endpoint_url("api/2.2/jobs/runs/get") == f"{emu.url}/api/2.2/jobs/runs/get"
    run_id = hook.submit_run(payload())
    assert hook.get_run_state(run_id).life_cycle_state == "PENDING"
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1 and list(ledger["runs"]) == [str(run_id)]
    assert ledger["calls"] == {"jobs/runs/submit": 1, "jobs/runs/get": 1}


def test_api_2_1_and_2_2_prefixes_are_both_served(emu, hook):
    run_id = hook._do_api_call(("POST", "2.1/jobs/runs/submit"), payload())["run_id"]
    assert hook._do_api_call(("GET", "2.1/jobs/runs/get"), {"run_id": run_id})["run_id"] == run_id
    assert hook._do_api_call(("GET", "2.2/jobs/runs/get"), {"run_id": run_id})["run_id"] == run_id
    with pytest.raises(Exception) as excinfo:
        hook._do_api_call(("GET", "2.0/jobs/runs/get"), {"run_id": run_id})
    assert api_error(excinfo)[0] == 404 and api_error(excinfo)[1]["error_code"] == "ENDPOINT_NOT_FOUND"
    assert emu.ledger()["calls"] == {"jobs/runs/submit": 1, "jobs/runs/get": 2}


def test_wrong_bearer_token_is_401_and_does_nothing(emu, monkeypatch):
    wrong = {**emu.connection_dict(), "password": "not-the-token"}
    monkeypatch.setenv("AIRFLOW_CONN_DBX_WRONG", json.dumps(wrong))
    with pytest.raises(Exception) as excinfo:
        make_hook("dbx_wrong").submit_run(payload())
    assert api_error(excinfo) == (401, {"error_code": "UNAUTHENTICATED", "message": "Invalid access token."})
    ledger = emu.ledger()
    assert ledger["runs_created"] == 0 and ledger["submissions"] == []
    assert ledger["calls"] == {"jobs/runs/submit": 1}


def test_unknown_route_or_method_is_404_endpoint_not_found(emu, hook):
    for endpoint in (("POST", "2.2/jobs/runs/frobnicate"), ("GET", "2.2/jobs/runs/submit")):
        with pytest.raises(Exception) as excinfo:
            hook._do_api_call(endpoint, {})
        assert api_error(excinfo)[0] == 404 and api_error(excinfo)[1]["error_code"] == "ENDPOINT_NOT_FOUND"
    assert emu.ledger()["runs_created"] == 0


# -- idempotency ----------------------------------------------------------------------------------
def test_existing_idempotency_token_returns_the_existing_run(emu, hook):
    first = hook.submit_run(payload("tok-1"))
    second = hook.submit_run(payload("tok-1", run_name="changed payload is ignored"))
    other = hook.submit_run(payload("tok-2"))
    assert second == first and other != first
    ledger = emu.ledger()
    assert ledger["runs_created"] == 2
    rows = [(s["seq"], s["run_id"], s["idempotency_token"], s["deduplicated"]) for s in ledger["submissions"]]
    assert rows == [
        (1, first, "tok-1", False), (2, first, "tok-1", True), (3, other, "tok-2", False),
    ]
    assert ledger["runs"][str(first)]["idempotency_token"] == "tok-1"


def test_idempotency_tokens_are_shared_by_submit_and_run_now(emu, hook):
    job_id = hook.create_job({"name": "nightly", "tasks": [NOTEBOOK_TASK]})
    run_id = hook.submit_run(payload("shared"))
    assert hook.run_now({"job_id": job_id, "idempotency_token": "shared"}) == run_id
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1
    assert [s["path"] for s in ledger["submissions"]] == ["jobs/runs/submit", "jobs/run-now"]
    assert ledger["submissions"][1]["deduplicated"] is True


def test_token_longer_than_64_characters_is_rejected(emu, hook):
    assert hook.submit_run(payload("x" * 64))
    with pytest.raises(Exception) as excinfo:
        hook.submit_run(payload("y" * 65))
    status, body = api_error(excinfo)
    assert status == 400 and body["error_code"] == "INVALID_PARAMETER_VALUE"
    assert "at most 64 characters" in body["message"]
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1
    assert ledger["submissions"][1]["status"] == 400 and ledger["submissions"][1]["run_id"] is None


def test_token_of_a_deleted_run_is_burned(emu, hook):
    run_id = hook.submit_run(payload("burn-me"))
    finish(emu)
    hook.delete_run(run_id)
    with pytest.raises(Exception) as excinfo:
        hook.submit_run(payload("burn-me"))
    status, body = api_error(excinfo)
    assert (status, body["error_code"]) == (400, "INVALID_PARAMETER_VALUE")
    assert body["message"] == (
        f"The run with idempotency_token 'burn-me' (run {run_id}) was deleted; use a new idempotency_token."
    )
    assert hook.submit_run(payload("fresh-token")) != run_id
    ledger = emu.ledger()
    assert ledger["runs_created"] == 2
    assert [(d["run_id"], d["idempotency_token"]) for d in ledger["deletes"]] == [(run_id, "burn-me")]
    assert [s["status"] for s in ledger["submissions"]] == [200, 400, 200]


def test_token_of_an_expired_run_still_returns_that_run(emu, hook):
    run_id = hook.submit_run(payload("old"))
    emu.expire(run_id)
    assert hook.submit_run(payload("old")) == run_id
    assert emu.ledger()["runs_created"] == 1


# -- life cycle -----------------------------------------------------------------------------------
def test_life_cycle_follows_the_emulator_clock(emu, hook):
    run_id = hook.submit_run(payload())
    seen = [hook.get_run_state(run_id)]
    for step in (0.2, 1.0, 0.1):
        emu.advance(step + 1e-6)
        seen.append(hook.get_run_state(run_id))
    assert [(s.life_cycle_state, s.result_state) for s in seen] == [
        ("PENDING", ""), ("RUNNING", ""), ("TERMINATING", ""), ("TERMINATED", "SUCCESS"),
    ]
    assert not seen[2].is_terminal and seen[3].is_terminal and seen[3].is_successful
    assert emu.ledger()["runs"][str(run_id)]["state"] == "TERMINATED"


def test_speed_factor_runs_the_clock_faster_than_real_time(emu, hook):
    emu.configure(speed=50)  # 1.3 emulated seconds pass in 26 ms
    run_id = hook.submit_run(payload())
    state = wait_for(lambda: (s := hook.get_run_state(run_id)).is_terminal and s, timeout=3)
    assert state.result_state == "SUCCESS"


def test_outcome_queue_is_consumed_by_new_runs_only(emu, hook):
    emu.configure(outcomes=["FAILED", "SUCCESS"], default_outcome="TIMEDOUT")
    first = hook.submit_run(payload("a"))
    assert hook.submit_run(payload("a")) == first  # deduplicated: consumes nothing
    second, third = hook.submit_run(payload("b")), hook.submit_run(payload("c"))
    finish(emu)
    runs = (first, second, third)
    assert [hook.get_run_state(r).result_state for r in runs] == ["FAILED", "SUCCESS", "TIMEDOUT"]
    assert emu.configure()["outcomes"] == []
    assert [emu.ledger()["runs"][str(r)]["outcome"] for r in runs] == ["FAILED", "SUCCESS", "TIMEDOUT"]


@pytest.mark.parametrize(
    ("outcome", "life_cycle", "result", "successful"),
    [
        ("SUCCESS", "TERMINATED", "SUCCESS", True),
        ("FAILED", "TERMINATED", "FAILED", False),
        ("TIMEDOUT", "TERMINATED", "TIMEDOUT", False),
        ("CANCELED", "TERMINATED", "CANCELED", False),
        ("INTERNAL_ERROR", "INTERNAL_ERROR", "", False),
    ],
)
def test_each_outcome_ends_in_the_databricks_state(emu, hook, outcome, life_cycle, result, successful):
    emu.configure(outcomes=[outcome])
    run_id = hook.submit_run(payload())
    finish(emu)
    state = hook.get_run_state(run_id)
    assert (state.life_cycle_state, state.result_state) == (life_cycle, result)
    assert state.is_terminal and state.is_successful is successful
    assert emu.ledger()["runs"][str(run_id)]["state"] == life_cycle


def test_per_run_duration_override(emu, hook):
    emu.configure(outcomes=[{"outcome": "FAILED", "running_seconds": 5, "error": "boom"}])
    slow, normal = hook.submit_run(payload()), hook.submit_run(payload())
    finish(emu)
    assert hook.get_run_state(slow).life_cycle_state == "RUNNING"
    assert hook.get_run_state(normal).result_state == "SUCCESS"
    emu.advance(5)
    assert (hook.get_run_state(slow).result_state, hook.get_run_state_message(slow)) == ("FAILED", "boom")
    assert hook.get_run_output(slow)["error"] == "boom"


def test_bad_outcome_config_is_rejected_without_changing_anything(emu):
    before = emu.configure()
    body = control(emu, "config", {"outcomes": ["SUCCESS", "EXPLODED"]}, expect=400)
    assert body["error_code"] == "INVALID_PARAMETER_VALUE" and "EXPLODED" in body["message"]
    assert control(emu, "config", {"no_such_key": 1}, expect=400)["error_code"] == "INVALID_PARAMETER_VALUE"
    assert emu.configure() == before


# -- deleted and expired runs ---------------------------------------------------------------------
def test_deleted_run_is_404_on_get_and_get_output(emu, hook):
    run_id = hook.submit_run(payload())
    finish(emu)
    hook.delete_run(run_id)
    for call in (hook.get_run_state, hook.get_run_output):
        with pytest.raises(Exception) as excinfo:
            call(run_id)
        assert api_error(excinfo) == (
            404, {"error_code": "RESOURCE_DOES_NOT_EXIST", "message": f"Run {run_id} does not exist."},
        )
    assert emu.ledger()["runs"][str(run_id)]["deleted"] is True


def test_expired_run_is_404_on_get_and_get_output(emu, hook):
    run_id = hook.submit_run(payload())
    assert control(emu, "expire", {"run_id": run_id}) == {"expired": [run_id]}
    for call in (hook.get_run_state, hook.get_run_output):
        with pytest.raises(Exception) as excinfo:
            call(run_id)
        assert api_error(excinfo)[0] == 404
        assert api_error(excinfo)[1]["error_code"] == "RESOURCE_DOES_NOT_EXIST"
    assert emu.ledger()["runs"][str(run_id)]["expired"] is True


def test_not_found_status_400_reproduces_the_wire_format(emu, hook):
    emu.configure(not_found_status=400)  # what the Databricks SDKs remap to ResourceDoesNotExist
    with pytest.raises(Exception) as excinfo:
        hook.get_run_state(424242)
    assert api_error(excinfo) == (
        400, {"error_code": "INVALID_PARAMETER_VALUE", "message": "Run 424242 does not exist."},
    )


def test_an_active_run_cannot_be_deleted(emu, hook):
    run_id = hook.submit_run(payload())
    with pytest.raises(Exception) as excinfo:
        hook.delete_run(run_id)
    assert api_error(excinfo)[0] == 400 and api_error(excinfo)[1]["error_code"] == "INVALID_STATE"
    assert hook.get_run_state(run_id).life_cycle_state == "PENDING"
    assert emu.ledger()["deletes"] == []


# -- cancel ---------------------------------------------------------------------------------------
def test_cancel_moves_an_active_run_to_terminated_canceled(emu, hook):
    run_id = hook.submit_run(payload())
    emu.advance(0.5)
    hook.cancel_run(run_id)
    state = hook.get_run_state(run_id)
    assert (state.life_cycle_state, state.result_state) == ("TERMINATED", "CANCELED")
    finish(emu)
    assert hook.get_run_state(run_id).result_state == "CANCELED"  # stays cancelled
    done = hook.submit_run(payload())
    finish(emu)
    hook.cancel_run(done)  # cancelling a finished run is a recorded no-op
    assert hook.get_run_state(done).result_state == "SUCCESS"
    cancels = emu.ledger()["cancels"]
    assert [(c["run_id"], c["was_active"], c["via"]) for c in cancels] == [
        (run_id, True, "runs/cancel"), (done, False, "runs/cancel"),
    ]


def test_cancel_all_cancels_the_active_runs_of_one_job(emu, hook):
    job_a = hook.create_job({"name": "a", "tasks": [NOTEBOOK_TASK]})
    job_b = hook.create_job({"name": "b", "tasks": [NOTEBOOK_TASK]})
    a1, a2, b1 = (hook.run_now({"job_id": job}) for job in (job_a, job_a, job_b))
    hook.cancel_all_runs(job_a)
    assert [hook.get_run_state(r).result_state for r in (a1, a2, b1)] == ["CANCELED", "CANCELED", ""]
    assert sorted(c["run_id"] for c in emu.ledger()["cancels"]) == [a1, a2]


# -- jobs and run-now -----------------------------------------------------------------------------
def test_run_now_needs_an_existing_job(emu, hook):
    with pytest.raises(Exception) as excinfo:
        hook.run_now({"job_id": 999})
    assert api_error(excinfo) == (
        400, {"error_code": "INVALID_PARAMETER_VALUE", "message": "Job 999 does not exist."},
    )
    job_id = hook.create_job({"name": "etl", "tasks": [NOTEBOOK_TASK, {"task_key": "second"}]})
    run_id = hook.run_now({"job_id": job_id, "job_parameters": {"day": "1"}})
    run = hook.get_run(run_id)
    assert (run["job_id"], run["run_type"], run["run_name"]) == (job_id, "JOB_RUN", "etl")
    assert [t["task_key"] for t in run["tasks"]] == ["main", "second"]
    assert hook.get_job_id(run_id) == job_id
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1 and ledger["jobs"] == {str(job_id): {"name": "etl"}}
    assert [s["status"] for s in ledger["submissions"]] == [400, 200]


def test_seeded_job_can_be_run_now(emu, hook):
    seed = {"job_id": 777, "name": "seeded", "settings": {"tasks": [NOTEBOOK_TASK]}}
    assert control(emu, "jobs", seed) == {"job_id": 777}
    run_id = hook.run_now({"job_id": 777})
    assert hook.get_job_id(run_id) == 777
    assert hook.find_job_id_by_name("seeded") == 777


def test_find_job_id_by_name_uses_name_filter_and_pagination(emu, hook):
    ids = [hook.create_job({"name": f"job-{i}"}) for i in range(30)]
    assert len(hook.list_jobs()) == 30  # limit 25 -> two pages via next_page_token
    assert emu.ledger()["calls"]["jobs/list"] == 2
    assert hook.find_job_id_by_name("job-17") == ids[17]
    assert hook.find_job_id_by_name("missing") is None
    hook.create_job({"name": "job-17"})
    with pytest.raises(Exception, match="more than one job with name job-17"):
        hook.find_job_id_by_name("job-17")
    page = hook._do_api_call(("GET", "2.1/jobs/list"), {"limit": 25})
    assert page["has_more"] is True and len(page["jobs"]) == 25  # 2.1 keeps has_more, 2.2 dropped it
    assert "has_more" not in hook._do_api_call(("GET", "2.2/jobs/list"), {"limit": 25})


def test_jobs_get_reset_and_update(emu, hook):
    job_id = hook.create_job({"name": "v1", "tasks": [NOTEBOOK_TASK], "max_concurrent_runs": 1})
    hook.update_job(str(job_id), {"max_concurrent_runs": 3})
    job = hook._do_api_call(("GET", "2.2/jobs/get"), {"job_id": job_id})
    assert job["settings"]["max_concurrent_runs"] == 3
    hook.reset_job(str(job_id), {"name": "v2", "tasks": [NOTEBOOK_TASK]})
    job = hook._do_api_call(("GET", "2.2/jobs/get"), {"job_id": job_id})
    assert job["settings"] == {"name": "v2", "tasks": [NOTEBOOK_TASK]}
    with pytest.raises(Exception) as excinfo:
        hook._do_api_call(("GET", "2.2/jobs/get"), {"job_id": 5})
    assert api_error(excinfo)[0] == 404


# -- submit validation ----------------------------------------------------------------------------
def test_submit_needs_at_least_one_task(emu, hook):
    for bad in ({"run_name": "empty"}, {"tasks": []}, {"tasks": [{"notebook_task": {}}]}):
        with pytest.raises(Exception) as excinfo:
            hook.submit_run(bad)
        status, body = api_error(excinfo)
        assert (status, body["error_code"]) == (400, "INVALID_PARAMETER_VALUE")
    legacy = hook.submit_run({"run_name": "legacy", "notebook_task": {"notebook_path": "/x"}})
    assert [t["task_key"] for t in hook.get_run_tasks(legacy)] == ["legacy"]
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1
    assert [s["status"] for s in ledger["submissions"]] == [400, 400, 400, 200]


# -- run details ----------------------------------------------------------------------------------
def test_get_run_pages_tasks_and_the_hook_collects_them(emu, hook):
    emu.configure(tasks_page_size=2)
    tasks = [{"task_key": f"t{i}", "notebook_task": {"notebook_path": "/x"}} for i in range(5)]
    run_id = hook.submit_run({"run_name": "wide", "tasks": tasks})
    run = hook.get_run(run_id)
    assert [t["task_key"] for t in run["tasks"]] == ["t0", "t1", "t2", "t3", "t4"]
    assert len({t["run_id"] for t in run["tasks"]}) == 5 and "next_page_token" not in run
    assert emu.ledger()["calls"]["jobs/runs/get"] == 3
    assert hook.get_run_page_url(run_id) == f"{emu.url}/?o=0#job/{run['job_id']}/run/{run_id}"


def test_get_run_output_of_single_task_multi_task_and_task_runs(emu, hook):
    emu.configure(outcomes=[{"outcome": "SUCCESS", "output": "42"}])
    single = hook.submit_run(payload())
    multi = hook.submit_run({"run_name": "m", "tasks": [NOTEBOOK_TASK, {**NOTEBOOK_TASK, "task_key": "b"}]})
    finish(emu)
    out = hook.get_run_output(single)
    assert out["notebook_output"] == {"result": "42", "truncated": False}
    assert out["metadata"]["run_id"] == single
    with pytest.raises(Exception) as excinfo:
        hook.get_run_output(multi)
    assert api_error(excinfo)[0] == 400 and "multiple tasks" in api_error(excinfo)[1]["message"]
    task_run = hook.get_run_tasks(multi)[1]["run_id"]
    assert hook.get_run_output(task_run)["metadata"]["task_key"] == "b"


def test_get_run_of_a_task_run_id_answers_that_task_as_a_run(emu, hook):
    """What the official DatabricksNotebookOperator / DatabricksTaskOperator poll (issue 15)."""
    run_id = hook.submit_run({"run_name": "nb", "notebook_task": {"notebook_path": "/etl"},
                              "existing_cluster_id": "c"})
    [task] = hook.get_run_tasks(run_id)
    task_run = hook.get_run(task["run_id"])
    assert (task_run["run_id"], task_run["task_key"], task_run["tasks"]) == (task["run_id"], "nb", [])
    assert task_run["state"]["life_cycle_state"] == "PENDING" and task_run["job_id"] == hook.get_run(run_id)["job_id"]
    assert task_run["run_page_url"].endswith(f"/run/{task['run_id']}")
    finish(emu)
    assert hook.get_run_state(task["run_id"]).result_state == "SUCCESS"
    hook.delete_run(run_id)
    with pytest.raises(Exception) as excinfo:
        hook.get_run(task["run_id"])
    assert api_error(excinfo)[0] in (400, 404)


def test_repair_reruns_a_finished_run_and_tracks_repair_ids(emu, hook):
    emu.configure(outcomes=["FAILED"], repair_outcomes=["SUCCESS"])
    run_id = hook.submit_run(payload())
    with pytest.raises(Exception) as excinfo:
        hook.repair_run({"run_id": run_id, "rerun_all_failed_tasks": True})
    assert api_error(excinfo)[1]["error_code"] == "INVALID_STATE"  # still active
    finish(emu)
    assert hook.get_latest_repair_id(run_id) is None
    repair_id = hook.repair_run({"run_id": run_id, "rerun_all_failed_tasks": True})
    assert hook.get_run_state(run_id).life_cycle_state == "PENDING"
    finish(emu)
    assert hook.get_run_state(run_id).result_state == "SUCCESS"
    assert hook.get_latest_repair_id(run_id) == repair_id
    with pytest.raises(Exception) as excinfo:
        hook.repair_run({"run_id": run_id, "rerun_all_failed_tasks": True})  # no latest_repair_id
    assert api_error(excinfo)[1]["error_code"] == "INVALID_PARAMETER_VALUE"
    second = hook.repair_run({"run_id": run_id, "latest_repair_id": repair_id, "rerun_tasks": ["main"]})
    ledger = emu.ledger()
    repairs = [(r["run_id"], r["repair_id"]) for r in ledger["repairs"]]
    assert repairs == [(run_id, repair_id), (run_id, second)]
    assert ledger["runs_created"] == 1 and ledger["runs"][str(run_id)]["repairs"] == 2


def test_runs_list_filters_and_pages(emu, hook):
    job_id = hook.create_job({"name": "j", "tasks": [NOTEBOOK_TASK]})
    done = hook.run_now({"job_id": job_id})
    finish(emu)
    active = [hook.run_now({"job_id": job_id}) for _ in range(3)]
    hook.submit_run(payload())
    listed = hook._do_api_call(("GET", "2.2/jobs/runs/list"), {"job_id": job_id, "limit": 2})
    assert [r["run_id"] for r in listed["runs"]] == active[::-1][:2] and listed["has_more"] is True
    next_page = {"job_id": job_id, "page_token": listed["next_page_token"]}
    rest = hook._do_api_call(("GET", "2.2/jobs/runs/list"), next_page)
    assert [r["run_id"] for r in rest["runs"]] == [active[0], done]
    only_active = hook._do_api_call(("GET", "2.2/jobs/runs/list"), {"job_id": job_id, "active_only": "true"})
    assert sorted(r["run_id"] for r in only_active["runs"]) == sorted(active)


def test_runs_list_2_2_orders_by_end_time_2_1_by_start_time(emu, hook):
    """The 2.2 reference: "List runs in descending order by end time. If a run has not finished, it falls back
    to start time"; 2.1's: "in descending order by start time"."""
    emu.configure(outcomes=[{"outcome": "SUCCESS", "running_seconds": 30.0},
                            {"outcome": "SUCCESS", "running_seconds": 1.0},
                            {"outcome": "SUCCESS", "running_seconds": 1.0}], pending_seconds=0.0)
    long_run = hook.submit_run(payload())  # started first, ended last
    emu.advance(1.0)
    short_run = hook.submit_run(payload())
    emu.advance(5.0)
    late_run = hook.submit_run(payload())
    emu.advance(40.0)
    completed = {"completed_only": "true"}
    by_end = hook._do_api_call(("GET", "2.2/jobs/runs/list"), completed)
    by_start = hook._do_api_call(("GET", "2.1/jobs/runs/list"), completed)
    assert [r["run_id"] for r in by_end["runs"]] == [long_run, late_run, short_run]
    assert [r["run_id"] for r in by_start["runs"]] == [late_run, short_run, long_run]
    emu.configure(runs_list_order="start_time")  # the fault: 2.2 too by start time
    faulty = hook._do_api_call(("GET", "2.2/jobs/runs/list"), completed)
    assert [r["run_id"] for r in faulty["runs"]] == [late_run, short_run, long_run]


def test_an_unlisted_run_is_missing_from_both_listings_and_still_answers_a_get(emu, hook):
    """The fault ``unlist``: a run ``runs/list`` never shows (listed too late ever to be seen; the reference is
    silent on how soon an ended run is listed), while ``runs/get`` still tells its state."""
    shown, hidden = hook.submit_run(payload()), hook.submit_run(payload())
    assert control(emu, "unlist", {"run_id": hidden}) == {"unlisted": [hidden]}
    active = hook._do_api_call(("GET", "2.2/jobs/runs/list"), {"active_only": "true"})
    assert [r["run_id"] for r in active["runs"]] == [shown]
    finish(emu)
    completed = hook._do_api_call(("GET", "2.2/jobs/runs/list"), {"completed_only": "true"})
    assert [r["run_id"] for r in completed["runs"]] == [shown]
    assert hook.get_run_state(hidden).result_state == "SUCCESS"
    assert emu.ledger()["runs"][str(hidden)]["unlisted"] is True
    assert control(emu, "unlist", {}, expect=400)["message"] == "unlist needs 'run_id' (or 'run_ids')"


def test_async_hook_methods_send_params_as_json_body(emu, hook):
    run_id = hook.submit_run(payload())
    finish(emu)

    async def read() -> tuple[Any, Any]:
        async with make_hook() as async_hook:
            return await async_hook.a_get_run_state(run_id), await async_hook.a_get_run_output(run_id)

    state, output = asyncio.run(read())
    assert (state.life_cycle_state, state.result_state) == ("TERMINATED", "SUCCESS")
    assert output["metadata"]["run_id"] == run_id


# -- faults ---------------------------------------------------------------------------------------
def test_error_fault_answers_without_doing_the_work_and_the_hook_retries(emu, hook):
    control(emu, "faults", {"path": "jobs/runs/submit", "status": 503, "count": 1})
    run_id = hook.submit_run(payload())
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1 and [s["run_id"] for s in ledger["submissions"]] == [run_id]
    assert ledger["calls"]["jobs/runs/submit"] == 2
    fired = [(f["path"], f["status"], f["mode"]) for f in ledger["faults_fired"]]
    assert fired == [("jobs/runs/submit", 503, "error")]


def test_429_fault_sets_retry_after(emu, hook):
    emu.add_fault("jobs/runs/get", 429, retry_after=3)
    response = requests.get(
        f"{emu.url}/api/2.2/jobs/runs/get", params={"run_id": 1},
        headers={"Authorization": "Bearer emulator-token"}, timeout=5,
    )
    assert response.status_code == 429 and response.headers["Retry-After"] == "3"
    assert response.json()["error_code"] == "REQUEST_LIMIT_EXCEEDED"
    emu.add_fault("jobs/runs/get", 429)  # default Retry-After: 1; the hook retries 429
    run_id = hook.submit_run(payload())
    assert hook.get_run_state(run_id).life_cycle_state == "PENDING"
    assert emu.ledger()["calls"]["jobs/runs/get"] == 3


def test_fault_skip_and_count(emu):
    once = make_hook(attempts=1)
    run_id = once.submit_run(payload())
    emu.add_fault("jobs/runs/get", 500, skip=1, count=2)
    outcomes = []
    for _ in range(4):
        try:
            once.get_run_state(run_id)
            outcomes.append("ok")
        except Exception:
            outcomes.append("fail")
    assert outcomes == ["ok", "fail", "fail", "ok"]
    assert len(emu.ledger()["faults_fired"]) == 2


def test_persistent_fault_exhausts_the_hook_retries(emu, hook):
    emu.add_fault("jobs/runs/submit", 500, count=-1)
    with pytest.raises(Exception, match="failed 2 times"):
        hook.submit_run(payload("tok"))
    ledger = emu.ledger()
    assert ledger["runs_created"] == 0 and ledger["calls"]["jobs/runs/submit"] == 2
    assert control(emu, "faults")["faults"][0]["fired"] == 2
    assert control(emu, "faults", {"clear": True}) == {"faults": []}
    assert hook.submit_run(payload("tok"))


def test_lost_reply_then_hook_retry_with_same_token_yields_one_run(emu, hook):
    control(emu, "faults", {"path": "jobs/runs/submit", "status": 500, "mode": "lose_reply"})
    run_id = hook.submit_run(payload("crash-safe"))
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1 and list(ledger["runs"]) == [str(run_id)]
    rows = [(s["run_id"], s["deduplicated"]) for s in ledger["submissions"]]
    assert rows == [(run_id, False), (run_id, True)]
    assert ledger["faults_fired"][0]["mode"] == "lose_reply"


def test_lost_reply_without_token_duplicates_the_run(emu, hook):
    emu.add_fault("jobs/runs/submit", 500, mode="lose_reply")
    run_id = hook.submit_run(payload())
    ledger = emu.ledger()
    assert ledger["runs_created"] == 2  # the hazard idempotency tokens exist for
    first, second = (s["run_id"] for s in ledger["submissions"])
    assert first != second == run_id and not ledger["submissions"][1]["deduplicated"]


def test_reset_fault_closes_the_connection_after_the_work(emu, hook):
    emu.add_fault("jobs/runs/submit", 500, mode="reset")
    run_id = hook.submit_run(payload("reset-tok"))  # ConnectionError is retryable for the hook
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1
    rows = [(s["run_id"], s["deduplicated"]) for s in ledger["submissions"]]
    assert rows == [(run_id, False), (run_id, True)]


def test_window_from_first_reply_starts_where_an_outage_ends_for_the_client(emu, hook):
    """An outage, then an unknown state for a window counted from the first reply it rewrote."""
    run_id = hook.submit_run(payload())
    # Windows of 1.5 s: the requests that must land inside one (the first ask after arming, the two asks in
    # a row) take milliseconds, but a loaded machine can stall this process for a good part of a second.
    # The sleeps only need to outlast a window, which a sleep always does.
    emu.add_fault("jobs/runs/get", 503, count=-1, seconds=1.5)
    unknown = {"state": {"life_cycle_state": "HIBERNATING", "result_state": None}}
    control(emu, "faults", {"path": "jobs/runs/get", "mode": "rewrite", "count": -1, "seconds": 1.5,
                            "seconds_from": "first", "patch": unknown})

    def ask() -> str:
        response = requests.get(f"{emu.url}/api/2.2/jobs/runs/get", params={"run_id": run_id},
                                headers={"Authorization": "Bearer emulator-token"}, timeout=5)
        if response.status_code != 200:
            return str(response.status_code)
        return response.json()["state"]["life_cycle_state"]

    assert ask() == "503"
    time.sleep(1.6)  # the client backed off past both windows as counted from arming
    assert [ask(), ask()] == ["HIBERNATING", "HIBERNATING"]  # the rewrite's window starts at its first reply
    time.sleep(1.6)
    assert ask() == "PENDING"
    fired = [(f["status"], f["mode"]) for f in emu.ledger()["faults_fired"]]
    assert fired == [(503, "error"), (500, "rewrite"), (500, "rewrite")]
    assert control(emu, "faults", {"path": "jobs/runs/get", "seconds_from": "later"}, expect=400)["message"]


def _get(emu, run_id) -> requests.Response:
    return requests.get(f"{emu.url}/api/2.2/jobs/runs/get", params={"run_id": run_id},
                        headers={"Authorization": "Bearer emulator-token"}, timeout=5)


def test_garbage_fault_does_the_work_and_answers_200_with_a_body_that_is_not_json(emu, hook):
    emu.add_fault("jobs/runs/submit", mode="garbage")
    response = requests.post(f"{emu.url}/api/2.2/jobs/runs/submit", json=payload("garbage-tok"),
                             headers={"Authorization": "Bearer emulator-token"}, timeout=5)
    assert response.status_code == 200 and response.headers["Content-Type"] == "text/html"
    with pytest.raises(ValueError):
        response.json()
    assert emu.ledger()["runs_created"] == 1  # the run exists: only the reply is unreadable


def test_slow_fault_answers_late(emu, hook):
    run_id = hook.submit_run(payload())
    emu.add_fault("jobs/runs/get", mode="slow", delay=0.6)
    started = time.monotonic()
    assert _get(emu, run_id).status_code == 200
    assert time.monotonic() - started >= 0.6
    with pytest.raises(requests.ReadTimeout):  # a client with a shorter timeout gives up
        # 5 s late for a 0.2 s timeout: a stalled client thread that wakes past the delay would read the reply.
        emu.add_fault("jobs/runs/get", mode="slow", delay=5.0)
        requests.get(f"{emu.url}/api/2.2/jobs/runs/get", params={"run_id": run_id},
                     headers={"Authorization": "Bearer emulator-token"}, timeout=0.2)


def test_rewrite_fault_merges_its_patch_into_the_reply_and_a_window_ends_it(emu, hook):
    run_id = hook.submit_run(payload())
    # A 1.5 s window: the first get must land inside it (milliseconds, but a loaded machine can stall this
    # process for a good part of a second); the sleep only has to outlast it, which a sleep always does.
    emu.add_fault("jobs/runs/get", mode="rewrite", count=-1, seconds=1.5,
                  patch={"state": {"life_cycle_state": "HIBERNATING", "result_state": None}})
    rewritten = _get(emu, run_id).json()
    assert rewritten["state"]["life_cycle_state"] == "HIBERNATING" and "result_state" not in rewritten["state"]
    assert rewritten["run_id"] == run_id  # the rest of the reply is the real one
    time.sleep(1.6)
    assert _get(emu, run_id).json()["state"]["life_cycle_state"] != "HIBERNATING"
    with pytest.raises(Exception, match="patch"):
        emu.add_fault("jobs/runs/get", mode="rewrite")


def test_a_429_without_retry_after_when_asked(emu, hook):
    run_id = hook.submit_run(payload())
    emu.add_fault("jobs/runs/get", 429, retry_after=None)
    response = _get(emu, run_id)
    assert response.status_code == 429 and "Retry-After" not in response.headers


def test_bad_fault_rules_are_rejected(emu):
    for bad in ({"path": "jobs/runs/get", "mode": "explode"}, {"status": 500}, {"path": "x", "status": 200}):
        assert control(emu, "faults", bad, expect=400)["error_code"] == "INVALID_PARAMETER_VALUE"
    assert control(emu, "faults") == {"faults": []}


# -- holds ----------------------------------------------------------------------------------------
def test_hold_before_parks_the_request_until_released(emu, hook):
    control(emu, "holds", {"path": "jobs/runs/submit", "phase": "before"})
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(hook.submit_run, payload("held"))
        held = wait_for(lambda: control(emu, "holds")["held"])
        assert [(h["path"], h["phase"], h["run_id"], h["client_connected"]) for h in held] == [
            ("jobs/runs/submit", "before", None, True)
        ]
        assert held[0]["since"] <= time.time()
        assert emu.ledger()["runs_created"] == 0 and not future.done()
        assert control(emu, "release", {}) == {"released": 1}
        run_id = future.result(timeout=5)
    ledger = emu.ledger()
    assert ledger["runs_created"] == 1 and control(emu, "holds") == {"held": [], "armed": []}
    assert [(h["phase"], h["decision"]) for h in ledger["holds_hit"]] == [("before", "release")]
    assert list(ledger["runs"]) == [str(run_id)]


def test_hold_after_creates_the_run_before_the_reply(emu, hook):
    emu.add_hold("jobs/runs/submit", "after")
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(hook.submit_run, payload("after"))
        held = wait_for(lambda: emu.holds()["held"])
        run_id = held[0]["run_id"]
        ledger = emu.ledger()
        assert ledger["runs_created"] == 1 and ledger["runs"][str(run_id)]["idempotency_token"] == "after"
        assert not future.done()
        assert emu.release() == 1
        assert future.result(timeout=5) == run_id


def test_held_request_whose_client_disconnected_does_not_crash_the_server(emu, hook):
    emu.add_hold("jobs/runs/submit", "after")
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(
            f"{emu.url}/api/2.2/jobs/runs/submit", json=payload("gone"),
            headers={"Authorization": "Bearer emulator-token"}, timeout=0.3,
        )
    held = wait_for(lambda: [h for h in emu.holds()["held"] if h["client_connected"] is False])
    assert emu.release() == 1
    wait_for(lambda: emu.holds()["held"] == [])
    assert emu.ledger()["runs"][str(held[0]["run_id"])]["idempotency_token"] == "gone"
    assert hook.submit_run(payload("gone")) == held[0]["run_id"]  # the server still serves
    assert emu.server_errors == []


def test_abandoned_hold_drops_the_request_unprocessed(emu):
    emu.add_hold("jobs/runs/submit", "before")
    once = make_hook(attempts=1)
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(once.submit_run, payload())
        wait_for(lambda: emu.holds()["held"])
        assert control(emu, "release", {"abandon": True}) == {"released": 1}
        with pytest.raises(Exception, match="failed 1 times"):
            future.result(timeout=5)
    assert emu.ledger()["runs_created"] == 0
    assert emu.ledger()["holds_hit"][0]["decision"] == "abandon"


def test_stop_abandons_held_requests_promptly(emu):
    emu.add_hold("jobs/runs/submit", "before")
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(make_hook(attempts=1).submit_run, payload())
        wait_for(lambda: emu.holds()["held"])
        started = time.monotonic()
        emu.stop()
        with pytest.raises(Exception):
            future.result(timeout=5)
    assert time.monotonic() - started < 3


# -- control API ----------------------------------------------------------------------------------
def test_control_api_over_http_mirrors_the_python_accessors(emu, hook):
    assert control(emu, "config", {"pending_seconds": 1, "running_seconds": 2})["running_seconds"] == 2
    assert control(emu, "config")["pending_seconds"] == 1
    clock = control(emu, "clock", {"advance": 5})
    assert clock["speed"] == 0 and clock["now"] >= 5
    run_id = hook.submit_run(payload("t"))
    control(emu, "clock", {"advance": 1.5})
    assert hook.get_run_state(run_id).life_cycle_state == "RUNNING"
    http_ledger, py_ledger = control(emu, "ledger"), emu.ledger()
    assert http_ledger == py_ledger
    expected_keys = {"submissions", "cancels", "deletes", "repairs", "calls", "runs", "runs_created"}
    assert set(http_ledger) >= expected_keys
    holds = [{"path": "jobs/runs/get"}, {"path": "/api/2.1/jobs/runs/cancel", "phase": "after"}]
    assert control(emu, "holds", holds)
    assert [(a["path"], a["phase"]) for a in emu.holds()["armed"]] == [
        ("jobs/runs/get", "before"), ("jobs/runs/cancel", "after"),
    ]
    assert control(emu, "nope", expect=404)["error_code"] == "ENDPOINT_NOT_FOUND"


def test_reset_forgets_everything(emu, hook):
    emu.configure(outcomes=["FAILED"])
    emu.add_fault("jobs/runs/get", 500, count=-1)
    emu.add_hold("jobs/runs/cancel")
    hook.submit_run(payload("r"))
    control(emu, "reset", {})
    ledger = emu.ledger()
    assert ledger["runs_created"] == 0 and ledger["submissions"] == [] and ledger["calls"] == {}
    assert emu.configure()["outcomes"] == [] and emu.holds() == {"held": [], "armed": []}
    assert control(emu, "faults") == {"faults": []}
    emu.configure(speed=0)
    run_id = hook.submit_run(payload("r"))  # the token is forgotten too
    finish(emu)
    assert hook.get_run_state(run_id).result_state == "SUCCESS"


# -- entry point ----------------------------------------------------------------------------------
@pytest.fixture
def emulator_process(tmp_path: Path):
    port_file = tmp_path / "port"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    argv = ["-m", "durable_jobs.testing.emulators", "databricks", "--port", "0", "--port-file", str(port_file)]
    proc = subprocess.Popen(
        [sys.executable, *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO_ROOT),
    )
    try:
        yield proc, port_file
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()


def test_python_m_entry_point_serves_until_sigterm(emulator_process, monkeypatch):
    proc, port_file = emulator_process
    readable, _, _ = select.select([proc.stdout], [], [], 15)
    assert readable, "the emulator printed nothing"
    line = proc.stdout.readline().strip()
    prefix = "durable-jobs emulator: databricks listening on http://127.0.0.1:"
    assert line.startswith(prefix), line
    port = int(line[len(prefix):])
    assert port_file.read_text().strip() == str(port)
    conn = {"conn_type": "databricks", "host": "127.0.0.1", "port": port, "schema": "http"}
    conn["password"] = "emulator-token"
    monkeypatch.setenv("AIRFLOW_CONN_DBX_SUBPROCESS", json.dumps(conn))
    run_id = make_hook("dbx_subprocess").submit_run(payload("sub"))
    ledger = requests.get(f"http://127.0.0.1:{port}/_emulator/ledger", timeout=5).json()
    assert ledger["runs_created"] == 1 and ledger["submissions"][0]["run_id"] == run_id
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=10) == 0
    assert proc.stderr.read() == ""


# -- connections ---------------------------------------------------------------------------------
class KeptAliveDatabricks(DatabricksEmulator):
    keep_alive = True


@pytest.mark.parametrize(("emulator", "kept"), [(DatabricksEmulator, False), (KeptAliveDatabricks, True)])
def test_keep_alive_serves_requests_on_one_connection_and_the_default_closes_it(emulator, kept):
    """The benchmark's vendor keeps connections open (HTTP/1.1, as a workspace's front end does); every other
    emulator answers HTTP/1.0, a connection a request, as their tests were written against."""
    import http.client

    with emulator() as emu:
        conn = http.client.HTTPConnection("127.0.0.1", emu.port, timeout=5)
        peers = []
        try:
            for _ in range(2):
                conn.request("GET", "/_emulator/ledger")
                reply = conn.getresponse()
                assert reply.status == 200 and json.loads(reply.read())["submissions"] == []
                assert reply.will_close is not kept
                peers.append(conn.sock.getsockname() if conn.sock is not None else None)
        finally:
            conn.close()
    if kept:
        assert peers[0] is not None and peers[0] == peers[1]  # the second request went on the first's socket
    else:
        assert peers == [None, None]  # http.client closed each connection after its reply

"""Dataflow's job-name key and upstream's reading of a job's state (pure functions: no client, no emulator)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from durable_jobs.core.listing import scan_until_consistent
from durable_jobs.core.status import JobPhase
from durable_jobs.providers.google.cloud.clients.dataflow import MAX_NAME, dataflow_phase, job_name

NONCE = "0123456789abcdef0123456789abcdef"


def test_job_name_is_the_users_name_and_the_key():
    assert job_name(NONCE) == f"airflow-{NONCE}"
    assert job_name(NONCE, "daily_load") == f"daily-load-{NONCE}"  # upstream's "_" -> "-"
    assert job_name(NONCE, "daily", append=False) == "daily"
    long = job_name(NONCE, "a" + "b-" * 600 + "c")
    assert len(long) <= MAX_NAME and long.endswith(f"-{NONCE}") and "--" not in long


@pytest.mark.parametrize("bad", ["Daily", "9lives", "trailing-", "with space"])
def test_a_name_upstream_refuses_is_refused_naming_the_argument(bad):
    with pytest.raises(ValueError, match="Invalid job_name"):
        job_name(NONCE, bad)


def job(state: str, streaming: bool = False) -> dict:
    return {"id": "j1", "name": "n", "currentState": state,
            "type": "JOB_TYPE_STREAMING" if streaming else "JOB_TYPE_BATCH"}


@pytest.mark.parametrize(("state", "streaming", "expected", "wait", "phase"), [
    ("JOB_STATE_RUNNING", False, None, None, JobPhase.ACTIVE),
    ("JOB_STATE_DONE", False, None, None, JobPhase.SUCCEEDED),
    ("JOB_STATE_FAILED", False, None, None, JobPhase.FAILED),
    ("JOB_STATE_CANCELLED", False, None, None, JobPhase.FAILED),
    ("JOB_STATE_RUNNING", True, None, None, JobPhase.SUCCEEDED),  # streaming: RUNNING is the expected state
    ("JOB_STATE_RUNNING", True, None, True, JobPhase.ACTIVE),  # ... unless wait_until_finished
    ("JOB_STATE_PENDING", False, None, False, JobPhase.SUCCEEDED),  # launch only
    ("JOB_STATE_DRAINED", True, "JOB_STATE_DRAINED", None, JobPhase.SUCCEEDED),
    ("JOB_STATE_DONE", True, "JOB_STATE_DONE", None, JobPhase.FAILED),  # not valid for a streaming job
    ("JOB_STATE_RESOURCE_CLEANING_UP", False, None, None, JobPhase.ACTIVE),
    ("JOB_STATE_SOMETHING_NEW", False, None, None, JobPhase.UNKNOWN),
])
def test_synchronous_reading_is_upstreams(state, streaming, expected, wait, phase):
    got, message = dataflow_phase(job(state, streaming), deferred=False, expected_terminal_state=expected,
                                  wait_until_finished=wait)
    assert got is phase
    if phase is JobPhase.FAILED:
        assert "Google Cloud Dataflow job" in message


@pytest.mark.parametrize(("state", "streaming", "phase"), [
    ("JOB_STATE_DONE", False, JobPhase.SUCCEEDED),
    ("JOB_STATE_FAILED", False, JobPhase.FAILED),
    ("JOB_STATE_STOPPED", False, JobPhase.FAILED),  # the official trigger's "stopped"
    ("JOB_STATE_RUNNING", True, JobPhase.ACTIVE),  # a streaming job keeps the task deferred, as upstream
    ("JOB_STATE_CANCELLED", False, JobPhase.FAILED),  # upstream's trigger would poll it for ever
])
def test_deferred_reading_is_the_official_triggers(state, streaming, phase):
    assert dataflow_phase(job(state, streaming), deferred=True, expected_terminal_state=None,
                          wait_until_finished=None)[0] is phase


def test_scan_until_consistent_rescans_within_the_window_only():
    answers = iter([None, None, "found"])
    slept: list[float] = []
    assert scan_until_consistent(lambda: next(answers), since=None, window=10, what="x", sleep=slept.append) \
        == "found"
    assert len(slept) == 2
    past = datetime.now(tz=timezone.utc) - timedelta(seconds=60)
    calls: list[int] = []
    assert scan_until_consistent(lambda: calls.append(1), since=past, window=10, what="x",
                                 sleep=slept.append) is None
    assert calls == [1]  # the window after the intent has passed: one listing decides


def test_without_the_beam_provider_the_import_error_names_the_extra():
    """google 22.8's Dataflow hook refuses to import without apache-airflow-providers-apache-beam: ours says which
    extra installs it, as a ModuleNotFoundError naming the missing provider (what other absent providers give)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['airflow.providers.apache.beam.hooks.beam'] = None\n"
            "try:\n    import durable_jobs.providers.google.cloud.operators.dataflow\n"
            "except ModuleNotFoundError as err:\n    print(err.name); print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    name, message = out.stdout.splitlines()[:2]
    assert name == "airflow.providers.apache.beam"
    assert 'pip install "airflow-durable-jobs[google-dataflow]"' in message

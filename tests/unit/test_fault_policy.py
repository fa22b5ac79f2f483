"""The shared fault policy (durable_jobs.core.faults, durable_jobs.core.polling): sorting errors, budgets, waits.

The clock is a counter the test moves (the policy never sleeps itself); the errors are the real
exception types the official hooks raise, built as requests/aiohttp build them.
"""

from __future__ import annotations

import json
import logging

import pytest
import requests

from durable_jobs.core.exceptions import (
    PollBudgetExceededError,
    UnknownJobStateError,
    VendorAuthError,
    VendorCallError,
)
from durable_jobs.core.faults import FaultKind, cap, generic_classify, retry_after_seconds
from durable_jobs.core.polling import JobWatch, PollPolicy
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient, classify_databricks

log = logging.getLogger("test")


def http_error(status: int, body: str = "{}", headers: dict | None = None) -> requests.HTTPError:
    response = requests.Response()
    response.status_code = status
    response._content = body.encode()
    response.headers.update(headers or {})
    return requests.HTTPError(f"{status} error", response=response)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def watch(**policy) -> tuple[JobWatch, Clock]:
    clock = Clock()
    args = {"interval": 5.0, "error_budget": 60.0, "unknown_state_budget": 30.0, "jitter": 0.0, **policy}
    return JobWatch(DatabricksJobClient("dbx"), 42, PollPolicy(**args), log=log, clock=clock, rng=lambda: 0.5), clock


@pytest.mark.parametrize(
    ("err", "kind"),
    [
        (http_error(503), FaultKind.TRANSIENT), (http_error(500), FaultKind.TRANSIENT),
        (http_error(429), FaultKind.THROTTLED), (http_error(401), FaultKind.AUTH), (http_error(403), FaultKind.AUTH),
        (http_error(404), FaultKind.NOT_FOUND), (http_error(400), FaultKind.REJECTED),
        (requests.ConnectionError("reset by peer"), FaultKind.TRANSIENT),
        (requests.ReadTimeout("read timed out"), FaultKind.TRANSIENT),
        (json.JSONDecodeError("Expecting value", "<html>", 0), FaultKind.BAD_REPLY),
        (TimeoutError(), FaultKind.TRANSIENT),
    ],
)
def test_generic_sorting(err, kind):
    assert generic_classify(err).kind is kind


def test_the_cause_chain_is_followed_through_the_hooks_wrapping():
    # The Databricks hook: `raise AirflowException("... Giving up.") from RetryError(last attempt: HTTPError)`.
    from airflow.exceptions import AirflowException
    from tenacity import Future, RetryError

    attempt = Future(3)
    attempt.set_exception(http_error(503, '{"error_code": "TEMPORARILY_UNAVAILABLE"}', {"Retry-After": "7"}))
    try:
        try:
            raise RetryError(attempt)
        except RetryError as retry:
            raise AirflowException("API requests to Databricks failed 3 times. Giving up.") from retry
    except AirflowException as wrapped:
        fault = classify_databricks(wrapped)
    assert (fault.kind, fault.http_status, fault.retry_after) == (FaultKind.TRANSIENT, 503, 7.0)
    assert "TEMPORARILY_UNAVAILABLE" in fault.detail


def test_retry_after_reads_seconds_and_dates():
    assert retry_after_seconds("12") == 12.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: no wait


def test_cap_says_how_much_it_cut():
    assert cap("x" * 10, 20) == "x" * 10
    text = cap("y" * 5000, 100)
    assert text.startswith("y" * 100) and text.endswith("(4900 more characters not shown)")


def test_transient_failures_back_off_then_fail_past_the_budget_saying_the_job_may_run():
    w, clock = watch(error_budget=60.0)
    waits = []
    with pytest.raises(PollBudgetExceededError) as err:
        for _ in range(100):
            waits.append(w.failed(http_error(503)))
            clock.now += waits[-1]
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0]  # exponential, jitter off
    assert clock.now > 60.0
    first = str(err.value).splitlines()[0]
    assert first.startswith("Databricks GET jobs/runs/get for run 42 kept failing for ")
    assert "HTTP 503" in first and "may still be running" in first and "poll_error_budget" in first


def test_a_good_answer_resets_the_error_budget():
    w, clock = watch(error_budget=10.0)
    for _ in range(3):
        clock.now += w.failed(http_error(500))
    assert w.seen(JobStatus(JobPhase.ACTIVE, "RUNNING")) is None
    clock.now += 100
    assert w.failed(http_error(500)) == 1.0  # a new streak, a new budget


def test_retry_after_is_honoured():
    w, _ = watch()
    assert w.failed(http_error(429, headers={"Retry-After": "17"})) == 17.0


@pytest.mark.parametrize("status", [401, 403])
def test_auth_errors_fail_at_once_naming_the_connection(status):
    w, _ = watch()
    with pytest.raises(VendorAuthError, match=f"HTTP {status}.*connection 'dbx'"):
        w.failed(http_error(status))


def test_a_rejected_call_fails_at_once():
    w, _ = watch()
    with pytest.raises(VendorCallError, match="HTTP 400"):
        w.failed(http_error(400, '{"error_code": "INVALID_PARAMETER_VALUE"}'))


def test_an_unknown_state_is_watched_then_fails_past_its_budget_leaving_the_job():
    w, clock = watch(unknown_state_budget=30.0)
    odd = JobStatus(JobPhase.UNKNOWN, "HIBERNATING", "")
    assert w.seen(odd) is None
    clock.now += 20
    assert w.seen(odd) is None
    assert w.seen(JobStatus(JobPhase.ACTIVE, "RUNNING")) is None  # a known state resets it
    clock.now += 20
    assert w.seen(odd) is None
    clock.now += 31
    with pytest.raises(UnknownJobStateError, match="'HIBERNATING'.*for 31 s.*left running"):
        w.seen(odd)


def test_terminal_statuses_end_the_watch():
    w, _ = watch()
    done = JobStatus(JobPhase.SUCCEEDED, "TERMINATED:SUCCESS")
    assert w.seen(done) is done
    gone = JobStatus(JobPhase.MISSING, "NOT_FOUND")
    assert w.seen(gone) is gone


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [({"interval": -1}, "poll_interval"), ({"error_budget": -1}, "error_budget"),
     ({"unknown_state_budget": "long"}, "unknown_state_budget"), ({"jitter": 1}, "jitter")],
)
def test_policy_arguments_are_named(kwargs, named):
    from durable_jobs.core.exceptions import DurableJobConfigError

    with pytest.raises(DurableJobConfigError, match=named):
        PollPolicy(**{"interval": 1.0, **kwargs})


def test_policy_budgets_come_from_the_config(monkeypatch):
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET", "123")
    monkeypatch.setenv("AIRFLOW__DURABLE_JOBS__UNKNOWN_STATE_BUDGET", "45")
    policy = PollPolicy.from_config(7)
    assert (policy.interval, policy.error_budget, policy.unknown_state_budget) == (7, 123.0, 45.0)

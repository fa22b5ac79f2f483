"""The AWS operators' submit/poll/result cycle through Airflow itself (dag.test) against moto behind our
fault proxy (durable_jobs.testing.emulators.aws_env), with the amazon provider and boto stack pinned for 3.3."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("airflow.providers.amazon", reason="add amazon to COMPAT_EXTRAS")

import compat_aws_dags as dags  # noqa: E402
from compat_support import DEFERRALS, run_dag, xcom  # noqa: E402

from durable_jobs import AIP_103_URL  # noqa: E402
from durable_jobs.shims import has_state_store  # noqa: E402

below_3_3 = pytest.mark.skipif(has_state_store(), reason="on Airflow 3.3+ the retry reconnects (tests/integration)")

#: dag → (submit operation, the operation the synchronous path and the trigger poll with)
OPS = {"batch": ("batch:SubmitJob", "batch:DescribeJobs"), "glue": ("glue:StartJobRun", "glue:GetJobRun"),
       "emr": ("emr-serverless:StartJobRun", "emr-serverless:GetJobRun"),
       "athena": ("athena:StartQueryExecution", "athena:GetQueryExecution")}


def _vendor(dag) -> str:
    return dag.dag_id.split("_")[2]


def vendor_jobs(aws, dag) -> list[str]:
    """The ids of the jobs moto holds for this DAG's service (straight from moto, not through the proxy)."""
    vendor = _vendor(dag)
    if vendor == "batch":
        return [j["jobId"] for j in aws.batch_jobs("compat-etl")]
    if vendor == "glue":
        return [r["Id"] for r in aws.glue_runs("compat-glue-etl")]
    if vendor == "athena":
        return [q["QueryExecutionId"] for q in aws.athena_queries("compat_events")]
    return [r["id"] for r in aws.emr_runs()]


def _one_job(aws, dag) -> str:
    created = aws.proxy.jobs_created(OPS[_vendor(dag)][0])
    assert len(created) == 1, created
    assert vendor_jobs(aws, dag) == [created[0]["id"]]
    return created[0]["id"]


@pytest.fixture
def hold_until(aws):
    """``hold_until(ready)``: keep moto's jobs where they are until ``ready()`` is true, then let them
    progress, so that a fast machine or a slow one sees the same sequence (a deferrable task finds
    its job still running when it defers; a fault hits a poll of a running job). Gives up after 60 s
    so that a wrong expectation fails the test instead of hanging it."""
    stop = threading.Event()
    watchers: list[threading.Thread] = []

    def hold(ready) -> None:
        aws.moto.hold()

        def watch() -> None:
            deadline = time.monotonic() + 60
            while not stop.is_set() and not ready() and time.monotonic() < deadline:
                stop.wait(0.02)
            aws.moto.progress()

        watchers.append(threading.Thread(target=watch, daemon=True))
        watchers[-1].start()

    yield hold
    stop.set()
    for watcher in watchers:
        watcher.join(timeout=5)


@pytest.mark.parametrize("dag", dags.SYNC + dags.DEFERRABLE, ids=lambda d: d.dag_id)
def test_cycle_submit_poll_result(aws, hold_until, dag):
    poll = OPS[_vendor(dag)][1]
    if dag in dags.DEFERRABLE:  # still running when the operator defers; ends once the trigger polls
        hold_until(lambda: aws.proxy.async_calls.get(poll, 0) >= 1)
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    job_id = _one_job(aws, dag)
    assert xcom(dag.dag_id, "run", "return_value") == job_id
    assert DEFERRALS == ([dag.dag_id] if dag in dags.DEFERRABLE else [])
    if dag in dags.DEFERRABLE:  # polled by aiobotocore in the trigger
        assert aws.proxy.async_calls.get(poll, 0) >= 1, aws.proxy.async_calls


def test_deferrable_without_wait_does_not_defer(aws):
    """EMR Serverless defers only with wait_for_completion=True; alone it returns the id on acceptance."""
    DEFERRALS.clear()
    state, tis = run_dag(dags.emr_fire_and_forget)
    assert state == "success", tis
    assert DEFERRALS == []
    assert xcom("compat_aws_emr_fire_and_forget", "run", "return_value") == _one_job(aws, dags.emr_fire_and_forget)


#: status calls made by the task itself between the submit and the first poll that may fail: the
#: official Batch operator's link lookup, and on the deferrable path the check before defer().
BEFORE_POLLING = {("batch", False): 1, ("glue", False): 0, ("emr", False): 0, ("athena", False): 0,
                  ("batch", True): 2, ("glue", True): 1, ("emr", True): 1, ("athena", True): 1}


@below_3_3
@pytest.mark.parametrize("dag", dags.SYNC + dags.DEFERRABLE, ids=lambda d: d.dag_id)
def test_poll_error_then_retry_submits_fresh(aws, hold_until, dag):
    """Below 3.3 nothing is checkpointed: a try that fails while polling is retried with a new job."""
    # An expired session token on the first poll of the running job: botocore does not retry it and
    # the fault policy fails the try at once on an auth error, on both paths (a 5xx or a throttle would
    # be waited out). The first job runs on, the retry's ends.
    deferrable = dag in dags.DEFERRABLE
    count = 1
    poll = OPS[_vendor(dag)][1]
    fault = aws.proxy.fault(poll, status=400, code="ExpiredTokenException", count=count,
                            skip=BEFORE_POLLING[_vendor(dag), deferrable])
    hold_until(lambda: fault.fired >= count)
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 2)
    assert fault.fired == count, aws.proxy.calls
    if deferrable:  # the failed polls were the trigger's (aiobotocore)
        assert aws.proxy.async_calls.get(poll, 0) > count, aws.proxy.async_calls
    created = [e["id"] for e in aws.proxy.jobs_created(OPS[_vendor(dag)][0])]
    assert len(created) == 2 and sorted(vendor_jobs(aws, dag)) == sorted(created)
    assert xcom(dag.dag_id, "run", "return_value") == created[1]


STACK = ("apache-airflow-providers-amazon", "boto3", "botocore", "s3transfer", "aiobotocore", "moto")


def test_amazon_provider_and_boto_stack_are_the_3_3_pins():
    """Issue 6: the same provider versions on every Airflow, pinned by constraints-3.3-py3.11.txt."""
    pins_file = Path(__file__).resolve().parents[2] / "constraints" / "constraints-3.3-py3.11.txt"
    norm = lambda name: re.sub(r"[-_.]+", "-", name).lower()  # noqa: E731
    lines = [line.strip().split("==", 1) for line in pins_file.read_text().splitlines() if "==" in line]
    pins = {norm(name): pin for name, pin in lines}
    assert {name: version(name) for name in STACK} == {name: pins[name] for name in STACK}


SCRIPT = r'''
import json, sys, warnings
from durable_jobs.providers.amazon.aws.operators.batch import BatchOperator
from durable_jobs.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator
from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator
with warnings.catch_warnings(record=True) as caught:  # after the import: Airflow routes warnings to logging
    warnings.simplefilter("always")
    make = {
        "batch": lambda **kw: BatchOperator(job_name="n", job_queue="q", job_definition="d", **kw),
        "glue": lambda **kw: GlueJobOperator(job_name="g", **kw),
        "emr": lambda **kw: EmrServerlessStartJobOperator(application_id="a", execution_role_arn="r",
                                                          job_driver={}, **kw),
    }
    for kwargs in json.loads(sys.argv[1]):
        op = make[kwargs.pop("op")](**kwargs)
        assert op.durable is False
print(json.dumps([str(w.message) for w in caught if "durable=" in str(w.message)]))
'''


def durable_warnings(*operators: dict) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(list(operators))], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@below_3_3
def test_explicit_durable_warns_once_with_the_link():
    found = durable_warnings(
        {"op": "batch", "task_id": "a", "durable": True}, {"op": "glue", "task_id": "b", "durable": False},
        {"op": "emr", "task_id": "c", "durable": True}, {"op": "batch", "task_id": "d"},
    )
    assert len(found) == 1, found
    assert "Airflow 3.3" in found[0] and "AIP-103" in found[0] and AIP_103_URL in found[0]


@below_3_3
def test_no_durable_argument_no_warning():
    assert durable_warnings({"op": "batch", "task_id": "a"}, {"op": "glue", "task_id": "b"},
                            {"op": "emr", "task_id": "c"}) == []

"""A team's own DAG unit tests, run against the official class and against ours (issue 39's user-style suite).

Each idiom is one a team writes against the official operator; "change one import" means it passes against ours
too. No test here may leave 127.0.0.1: a guard fails any connection elsewhere (with real credentials in the
environment, an escaped call would reach the real cloud).
"""

from __future__ import annotations

import ipaddress
import socket
from unittest import mock

import pytest
from airflow.providers.amazon.aws.operators import batch as official_batch
from airflow.providers.google.cloud.operators import dataproc as official_dataproc

from durable_jobs.providers.amazon.aws.operators import batch as ours_batch
from durable_jobs.providers.google.cloud.operators import dataproc as ours_dataproc
from durable_jobs.testing.emulators.aws_env import JOB_DEFINITION, JOB_QUEUE


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch):
    """Fail any connection outside 127.0.0.1 (a name that does not resolve never gets here)."""
    connect = socket.socket.connect

    def guarded(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not ipaddress.ip_address(address[0]).is_loopback:
            raise AssertionError(f"a unit test connected to {address}: it would have reached the network")
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.mark.parametrize("module", [official_batch, ours_batch], ids=["official", "ours"])
def test_a_magicmock_context_runs_the_job_once(aws, module, capfd):
    """``op.execute(context=MagicMock())``: the official Batch operator accepts it. Ours reads the mock store as no
    checkpoint (crash recovery off for the run, one warning) instead of failing on a value it cannot trust."""
    op = module.BatchOperator(task_id="t", job_name="users-test", job_queue=JOB_QUEUE,
                              job_definition=JOB_DEFINITION, poll_interval=0.1)

    op.execute(mock.MagicMock())

    assert len(aws.batch_jobs()) == 1
    out = capfd.readouterr()
    assert (out.out + out.err).count("a unit test's context") == (1 if module is ours_batch else 0)


@pytest.mark.parametrize("module", [official_dataproc, ours_dataproc], ids=["official", "ours"])
def test_patching_the_hook_where_the_official_operator_imports_it_reaches_ours(module):
    """The standard patch of a Dataproc test: ``operators.dataproc.DataprocHook``, the job DONE."""
    from google.cloud.dataproc_v1 import JobStatus

    job = {"reference": {"project_id": "p", "job_id": "j"}, "placement": {"cluster_name": "c"},
           "pyspark_job": {"main_python_file_uri": "gs://b/main.py"}}
    with mock.patch("airflow.providers.google.cloud.operators.dataproc.DataprocHook") as hook:
        hook.return_value.submit_job.return_value.reference.job_id = "j-1"
        hook.return_value.get_job.return_value.status.state = JobStatus.State.DONE
        op = module.DataprocSubmitJobOperator(task_id="t", job=job, region="europe-west1", project_id="p")

        op.execute(mock.MagicMock())

    hook.return_value.submit_job.assert_called_once()

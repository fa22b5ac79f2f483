"""The AWS example DAGs run as written against moto + our proxy (intervals shortened for the test)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from durable_jobs.core.mixin import DurableJobMixin
from durable_jobs.demo.aws import EXAMPLE_TASKS, SUBMIT_OPS

from . import driver


@pytest.mark.parametrize("service", list(EXAMPLE_TASKS))
def test_example_dag_submits_one_job_and_succeeds(aws, monkeypatch, service):
    module_name, task_id, fast = EXAMPLE_TASKS[service]
    monkeypatch.setenv("AIRFLOW_VAR_EMR_SERVERLESS_APPLICATION_ID", aws.application_id)
    monkeypatch.setenv("AIRFLOW_VAR_EMR_CONTAINERS_VIRTUAL_CLUSTER_ID", str(aws.virtual_cluster_id))
    module = driver.load(module_name, driver.EXAMPLES)
    task = module.dag.task_dict[task_id]
    assert isinstance(task, DurableJobMixin)  # mixin-first drop-in
    assert task.deferrable and task.retries >= 1
    for name, value in {**fast, "retry_delay": timedelta(0)}.items():
        setattr(task, name, value)
    for op in SUBMIT_OPS[service]:  # whichever the example's request makes
        aws.proxy.fault(op, mode="lose_reply", status=500)

    dr = driver.run(module.dag)

    assert driver.task_result(dr, task_id).state == "success"
    assert len(aws.proxy.jobs_created()) == 1

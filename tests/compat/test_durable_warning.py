"""An explicit durable= warns once per process: crash safety needs Airflow 3.3+ (AIP-103), with the link."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from durable_jobs import AIP_103_URL
from durable_jobs.shims import has_state_store

SCRIPT = r'''
import json, sys, warnings
from durable_jobs.providers.databricks.operators.databricks import (
    DatabricksRunNowOperator,
    DatabricksSubmitRunOperator,
)
# Record after the import: importing Airflow routes warnings to logging (captureWarnings).
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    TASKS = [{"task_key": "a", "notebook_task": {"notebook_path": "/x"}}]
    for kwargs in json.loads(sys.argv[1]):
        kind = kwargs.pop("op")
        default_args = kwargs.pop("default_args", None)
        make = lambda: (DatabricksSubmitRunOperator(tasks=TASKS, **kwargs) if kind == "submit"
                        else DatabricksRunNowOperator(job_id=1, **kwargs))
        if default_args is None:
            op = make()
        else:
            from compat_dags import DAG
            from datetime import datetime
            with DAG("d", schedule=None, start_date=datetime(2025, 1, 1), default_args=default_args):
                op = make()
        assert op.durable is False
print(json.dumps([str(w.message) for w in caught if "durable=" in str(w.message)]))
'''


def durable_warnings(*operators: dict) -> list[str]:
    from compat_dags import __file__ as dags_file

    path = os.pathsep.join([os.path.dirname(dags_file), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(list(operators))],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


pytestmark = pytest.mark.skipif(has_state_store(), reason="on Airflow 3.3+ durable= is honoured, not warned")


def test_explicit_durable_warns_once_with_the_link():
    found = durable_warnings(
        {"op": "submit", "task_id": "a", "durable": True},
        {"op": "submit", "task_id": "b", "durable": False},
        {"op": "run_now", "task_id": "c", "durable": True},
    )
    assert len(found) == 1, found
    assert "Airflow 3.3" in found[0] and "AIP-103" in found[0] and AIP_103_URL in found[0]


def test_no_durable_argument_no_warning():
    assert durable_warnings({"op": "submit", "task_id": "a"}, {"op": "run_now", "task_id": "b"}) == []


def test_durable_in_default_args_reaches_the_operator_and_warns():
    found = durable_warnings({"op": "run_now", "task_id": "a", "default_args": {"durable": False}})
    assert len(found) == 1 and AIP_103_URL in found[0]

"""Written here (issue 18): saved with a UTF-8 byte-order mark (an editor default on Windows);
otherwise a plain, clean DAG."""

from __future__ import annotations

from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG
from pendulum import datetime

with DAG("bom_dag", start_date=datetime(2025, 1, 1), schedule=None):
    BashOperator(task_id="hello", bash_command="echo hello")

"""Variables as state in a python_callable and in a custom operator's execute()."""

from __future__ import annotations

import airflow.models as models
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, BaseOperator, Variable
from pendulum import datetime


def export_partitions(**context):
    done = Variable.get("export_done_partitions", default_var="[]", deserialize_json=True)
    done.append(context["ds"])
    Variable.set("export_done_partitions", done, serialize_json=True)  # expect: DJ011


class ReportOperator(BaseOperator):
    def execute(self, context):
        page = int(models.Variable.get("report_page", default_var=1))
        models.Variable.update("report_page", page + 1)  # expect: DJ011
        models.Variable.set("report_refreshed_at", "now")  # expect: DJ041


with DAG("classic_state", start_date=datetime(2025, 1, 1), schedule="@daily"):
    export = PythonOperator(task_id="export", python_callable=export_partitions, retries=1)
    report = ReportOperator(task_id="report")
    export >> report

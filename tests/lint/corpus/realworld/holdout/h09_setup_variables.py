"""Hold-out: an environment bootstrap task writing settings into Variables (a webhook URL, the
dbt target, the default warehouse size). Configuration, not state: clean."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule=None, catchup=False)
def bootstrap_env():

    @task
    def configure(env: str = "prod"):
        Variable.set("slack_webhook_url", f"https://hooks.slack.com/services/{env}")
        Variable.set("dbt_target", env)
        Variable.set("warehouse_size", "MEDIUM" if env == "prod" else "XSMALL")

    configure()


bootstrap_env()

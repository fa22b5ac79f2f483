"""Written here (issue 18): a bootstrap task that writes configuration Variables (bucket, alert
recipients, API endpoint) and defaults a feature flag - configuration, not task state. Clean."""

from __future__ import annotations

from airflow.models import Variable
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule=None, catchup=False)
def bootstrap_settings():

    @task
    def write_settings(env: str):
        Variable.set("warehouse_bucket", f"s3://{env}-warehouse")
        Variable.set("alert_emails", ["data-oncall@example.com"], serialize_json=True)
        Variable.set("partner_api_endpoint", f"https://{env}.partner.example.com/v2")
        if Variable.get("backfill_enabled", default_var=None) is None:
            Variable.set("backfill_enabled", "false")

    write_settings("prod")


bootstrap_settings()

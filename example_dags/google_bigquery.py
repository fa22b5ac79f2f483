"""BigQuery, each job inserted exactly once: the official ``BigQueryInsertJobOperator``, one import changed.

The key is the BigQuery job id itself: ``<job_id>_<key>`` (here ``sales_daily_<ds_nodash>_<key>``). A resend
after a lost reply, or after a worker was killed before the job id was saved, uses the same id: BigQuery
answers 409 ("already exists") and the job is fetched instead of the MERGE running twice. A job that
genuinely fails is retried as a new job, under a new key.

Runs against the loopback BigQuery jobs emulator of ``durable-jobs demo``; point ``google_cloud_default`` at
your project to run it for real.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from durable_jobs.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator

with DAG(
    "example_google_bigquery",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["durable-jobs", "google", "bigquery"],
) as dag:
    BigQueryInsertJobOperator(
        task_id="merge_sales_daily",
        configuration={
            "query": {
                "query": (
                    "MERGE sales.daily AS d USING (SELECT day, count(*) AS n FROM sales.orders "
                    "WHERE day = '{{ ds }}' GROUP BY day) AS s ON d.day = s.day "
                    "WHEN MATCHED THEN UPDATE SET n = s.n WHEN NOT MATCHED THEN INSERT (day, n) VALUES (s.day, s.n)"
                ),
                "useLegacySql": False,
            }
        },
        job_id="sales_daily_{{ ds_nodash }}",
        location="US",
        deferrable=True,
        poll_interval=30,
        retries=3,
        retry_delay=timedelta(minutes=1),
    )

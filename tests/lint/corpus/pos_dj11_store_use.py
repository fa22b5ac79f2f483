"""task_state_store as an inter-task channel, a dataframe store and a secret store."""

from __future__ import annotations

import pandas as pd
from airflow.sdk import Asset, BaseOperator, dag, task
from pendulum import datetime

MODEL = Asset(name="model", uri="s3://models/churn")


class TrainOperator(BaseOperator):
    def execute(self, context):
        model = self.fit()
        context["task_state_store"].set("weights", model.get_weights())  # expect: DJ112
        context["task_state_store"].set("epochs_done", 10)


@dag(start_date=datetime(2025, 1, 1), schedule="@daily")
def store_as_channel():

    @task
    def extract(**context):
        store = context["task_state_store"]
        df = pd.read_csv("s3://bucket/orders.csv")
        store.set("orders_df", df)  # expect: DJ112
        store.set("row_count", len(df))
        store.set("warehouse_password", "hunter2")  # expect: DJ113

    @task
    def load(**context):
        rows = context["task_state_store"].get("row_count")  # expect: DJ111
        print(rows)

    @task(outlets=[MODEL])
    def publish(asset_state_store=None):
        asset_state_store[MODEL].set("registry_api_key", "k")  # expect: DJ113

    extract() >> load() >> publish()


store_as_channel()

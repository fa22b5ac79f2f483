"""Written here (issue 18): a TaskFlow task starting a Step Functions execution through boto3
with retries and no checkpoint, and waiting for it with a sleep loop."""

from __future__ import annotations

import time

import boto3
from airflow.sdk import dag, task
from pendulum import datetime


@dag(start_date=datetime(2025, 1, 1), schedule="@daily", catchup=False)
def sfn_runner():

    @task(retries=3)
    def run_pipeline():
        sfn = boto3.client("stepfunctions")
        arn = sfn.start_execution(stateMachineArn="arn:aws:states:eu-west-1:1:stateMachine:etl")["executionArn"]
        while sfn.describe_execution(executionArn=arn)["status"] == "RUNNING":
            time.sleep(30)

    run_pipeline()


sfn_runner()

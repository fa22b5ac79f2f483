"""Hold-out: a DAG object (no with-block), operators attached with dag=dag, deferrable=True in
its default_args and one SageMaker training told not to wait, with nothing watching it."""

from __future__ import annotations

from airflow.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator
from airflow.sdk import DAG
from pendulum import datetime

args = {"owner": "ml", "deferrable": True, "retries": 1}
dag = DAG("train_weekly", start_date=datetime(2025, 1, 1), schedule="@weekly", default_args=args)

train = SageMakerTrainingOperator(task_id="train", config={"TrainingJobName": "t"},
                                  wait_for_completion=False, dag=dag)

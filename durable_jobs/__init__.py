"""durable-jobs: Airflow operators that submit every external job exactly once.

The design card's top-level folders (shims, hooks, triggers, operators, emulators, lint) live
inside this one import package so that ``pip install airflow-durable-jobs`` ships them together
and nothing claims generic top-level names such as ``hooks`` or ``operators`` in site-packages.
"""

from __future__ import annotations

__version__ = "0.1.0"

AIP_103_URL = "https://cwiki.apache.org/confluence/display/AIRFLOW/AIP-103"


def get_provider_info() -> dict:
    """Describe this package to Airflow's ProvidersManager (entry point ``apache_airflow_provider``)."""
    return {
        "package-name": "airflow-durable-jobs",
        "name": "Durable Jobs",
        "description": "Exactly-once submission of external jobs across crashes, retries and clears.",
        "versions": [__version__],
        "integrations": [
            {
                "integration-name": "Databricks (durable)",
                "external-doc-url": "https://docs.databricks.com/api/workspace/jobs",
                "tags": ["service"],
            },
            {
                "integration-name": "AWS Batch (durable)",
                "external-doc-url": "https://docs.aws.amazon.com/batch/latest/APIReference/Welcome.html",
                "tags": ["aws"],
            },
            {
                "integration-name": "AWS Glue (durable)",
                "external-doc-url": "https://docs.aws.amazon.com/glue/latest/dg/aws-glue-api-jobs-runs.html",
                "tags": ["aws"],
            },
            {
                "integration-name": "Amazon EMR Serverless (durable)",
                "external-doc-url": "https://docs.aws.amazon.com/emr-serverless/latest/APIReference/Welcome.html",
                "tags": ["aws"],
            },
        ],
        "operators": [
            {
                "integration-name": "Databricks (durable)",
                "python-modules": ["durable_jobs.operators.databricks"],
            },
            {
                "integration-name": "AWS Batch (durable)",
                "python-modules": ["durable_jobs.operators.aws"],
            },
        ],
        "hooks": [
            {
                "integration-name": "Databricks (durable)",
                "python-modules": ["durable_jobs.hooks.databricks"],
            },
            {
                "integration-name": "AWS Batch (durable)",
                "python-modules": ["durable_jobs.hooks.aws_batch"],
            },
            {
                "integration-name": "AWS Glue (durable)",
                "python-modules": ["durable_jobs.hooks.aws_glue"],
            },
            {
                "integration-name": "Amazon EMR Serverless (durable)",
                "python-modules": ["durable_jobs.hooks.aws_emr_serverless"],
            },
        ],
        "triggers": [
            {
                "integration-name": "Databricks (durable)",
                "python-modules": ["durable_jobs.triggers.job"],
            }
        ],
        "extra-links": ["durable_jobs.operators.databricks.DatabricksJobRunLink"],
    }

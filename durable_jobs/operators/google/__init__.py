"""Drop-in durable Google Cloud operators (google provider 22.8): one module per service.

``from durable_jobs.operators.google import BigQueryInsertJobOperator`` (``bigquery``).
"""

from __future__ import annotations

from durable_jobs.operators.google.bigquery import BigQueryInsertJobOperator
from durable_jobs.operators.google.dataproc import DataprocCreateBatchOperator, DataprocSubmitJobOperator

__all__ = ["BigQueryInsertJobOperator", "DataprocCreateBatchOperator", "DataprocSubmitJobOperator"]

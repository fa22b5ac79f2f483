"""Drop-in durable Google Cloud operators (google provider 22.8): one module per service.

``from durable_jobs.operators.google import BigQueryInsertJobOperator`` imports only ``bigquery`` (and the
official BigQuery operator module): each class is loaded on first use (PEP 562), so a DAG file that uses
BigQuery does not pay at parse time for Dataproc's provider and client imports, as with the official
per-service modules. The Dataflow operators need the ``google-dataflow`` extra (the Apache Beam provider):
without it, importing them raises ``ModuleNotFoundError`` naming that extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Class name -> the service module that defines it.
_MODULES = {
    "BigQueryInsertJobOperator": "bigquery",
    "CloudBatchSubmitJobOperator": "cloud_batch",
    "CloudRunExecuteJobOperator": "cloud_run",
    "DataflowStartFlexTemplateOperator": "dataflow",
    "DataflowTemplatedJobStartOperator": "dataflow",
    "DataprocCreateBatchOperator": "dataproc",
    "DataprocSubmitJobOperator": "dataproc",
}

if TYPE_CHECKING:
    from durable_jobs.operators.google.bigquery import BigQueryInsertJobOperator
    from durable_jobs.operators.google.cloud_batch import CloudBatchSubmitJobOperator
    from durable_jobs.operators.google.cloud_run import CloudRunExecuteJobOperator
    from durable_jobs.operators.google.dataflow import (
        DataflowStartFlexTemplateOperator,
        DataflowTemplatedJobStartOperator,
    )
    from durable_jobs.operators.google.dataproc import DataprocCreateBatchOperator, DataprocSubmitJobOperator


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)


__all__ = ["BigQueryInsertJobOperator", "CloudBatchSubmitJobOperator", "CloudRunExecuteJobOperator",
           "DataflowStartFlexTemplateOperator", "DataflowTemplatedJobStartOperator",
           "DataprocCreateBatchOperator", "DataprocSubmitJobOperator"]

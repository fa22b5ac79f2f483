"""Airflow-version compatibility, and nothing vendor-specific.

On Airflow 3.3+ (AIP-103) ``ResumableJobMixin`` is the SDK's own class and tasks get a
``task_state_store``. Below 3.3 a stand-in with the same surface keeps every operator importable
and working: it always submits fresh, because there is nowhere to keep a checkpoint.
"""

from __future__ import annotations

from durable_jobs.shims.mixin import ResumableJobMixin, warn_durable_unsupported
from durable_jobs.shims.operator import (
    TRIGGER_FAIL_METHOD,
    TRIGGER_TIMEOUT_ERRORS,
    AirflowTaskTimeout,
    TaskDeferred,
    apply_defaults,
)
from durable_jobs.shims.version import (
    AIRFLOW_V_3_3_PLUS,
    NEVER_EXPIRE,
    airflow_version,
    has_asset_state_store,
    has_sdk_resumable_job_mixin,
    has_state_store,
    has_trigger_on_kill,
)

__all__ = [
    "TRIGGER_FAIL_METHOD",
    "TRIGGER_TIMEOUT_ERRORS",
    "AirflowTaskTimeout",
    "TaskDeferred",
    "AIRFLOW_V_3_3_PLUS",
    "NEVER_EXPIRE",
    "ResumableJobMixin",
    "airflow_version",
    "apply_defaults",
    "has_asset_state_store",
    "has_sdk_resumable_job_mixin",
    "has_state_store",
    "has_trigger_on_kill",
    "warn_durable_unsupported",
]

"""Feature probes for the installed Airflow (probe features, don't map version numbers)."""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version


@lru_cache(maxsize=1)
def airflow_version() -> str:
    """The installed apache-airflow version, or ``"0"`` when only the core package is present."""
    for dist in ("apache-airflow", "apache-airflow-core"):
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return "0"


@lru_cache(maxsize=1)
def has_state_store() -> bool:
    """True when the SDK ships ``task_state_store`` (AIP-103, Airflow 3.3+)."""
    try:
        from airflow.sdk.execution_time.context import TaskStateStoreAccessor  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def has_asset_state_store() -> bool:
    """True when the SDK ships ``asset_state_store`` (AIP-103, Airflow 3.3+)."""
    try:
        from airflow.sdk.execution_time.context import AssetStateStoreAccessors  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def has_sdk_resumable_job_mixin() -> bool:
    """True when ``airflow.sdk`` exports its own ``ResumableJobMixin`` (AIP-103, Airflow 3.3+)."""
    try:
        from airflow.sdk import ResumableJobMixin  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def has_trigger_on_kill() -> bool:
    """True when triggers have an ``on_kill`` hook the triggerer calls on a user kill."""
    try:
        from airflow.triggers.base import BaseTrigger
    except ImportError:
        return False
    return hasattr(BaseTrigger, "on_kill")


AIRFLOW_V_3_3_PLUS = has_state_store()

try:
    from airflow.sdk import NEVER_EXPIRE  # type: ignore[attr-defined]
except ImportError:  # below 3.3 nothing expires, because nothing is stored
    NEVER_EXPIRE = timedelta.max

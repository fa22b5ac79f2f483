"""``apply_defaults``: the wrapper Airflow puts on every operator ``__init__`` (Airflow 2 and 3).

It fills keyword arguments from the DAG's ``default_args``; a mixin's own ``__init__`` needs it too,
or ``default_args={"durable": False}`` would never reach the mixin's arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from airflow.sdk.bases.operator import BaseOperatorMeta
except ImportError:  # Airflow 2.x
    from airflow.models.baseoperator import BaseOperatorMeta  # type: ignore[no-redef]

# Airflow types it ``(func: T) -> T`` with T bound to ``types.FunctionType``, which mypy does not
# take a decorated method for; at run time it wraps any ``__init__`` that takes keyword arguments.
apply_defaults: Callable[[Callable[..., Any]], Callable[..., Any]] = (
    BaseOperatorMeta._apply_defaults  # type: ignore[assignment]
)

try:  # Airflow 3
    from airflow.sdk.exceptions import AirflowTaskTimeout, TaskDeferred
except ImportError:  # Airflow 2.x
    from airflow.exceptions import AirflowTaskTimeout, TaskDeferred  # type: ignore[no-redef,attr-defined,unused-ignore]

#: ``next_method`` of a task Airflow resumes only to fail it (a trigger that timed out or crashed).
TRIGGER_FAIL_METHOD = "__fail__"
#: ``next_kwargs["error"]`` when the deferral outlived its timeout (``execution_timeout`` included).
TRIGGER_TIMEOUT_ERRORS = ("Trigger timeout", "Trigger/execution timeout")  # Airflow 3, Airflow 2

__all__ = ["TRIGGER_FAIL_METHOD", "TRIGGER_TIMEOUT_ERRORS", "AirflowTaskTimeout", "TaskDeferred", "apply_defaults"]

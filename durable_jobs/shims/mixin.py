"""``ResumableJobMixin``: the SDK's class on Airflow 3.3+, a fresh-submit stand-in below."""

from __future__ import annotations

import warnings
from typing import Any

from durable_jobs import AIP_103_URL
from durable_jobs.shims.version import AIRFLOW_V_3_3_PLUS

_warned = False


def warn_durable_unsupported() -> None:
    """Warn once per process that ``durable=`` has no crash-safety effect below Airflow 3.3."""
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        "durable= needs Airflow 3.3+ (AIP-103 task_state_store) to give crash safety; on this Airflow "
        "every try submits a fresh job. Everything else (submit, poll, result, deferrable mode, "
        f"cancel on kill) still works. See {AIP_103_URL}",
        UserWarning,
        stacklevel=3,
    )


if AIRFLOW_V_3_3_PLUS:
    from airflow.sdk import ResumableJobMixin
else:

    class ResumableJobMixin:  # type: ignore[no-redef]
        """Airflow < 3.3 stand-in: no ``task_state_store`` to resume from, so every try submits anew."""

        external_id_key: str = "remote_job_id"

        def __init_subclass__(cls, **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)
            _guard_execute(cls)

        def __init__(self, *, durable: bool | None = None, **kwargs: Any) -> None:
            if durable is not None:
                warn_durable_unsupported()
            super().__init__(**kwargs)
            self.durable = False

        def execute_resumable(self, context: Any) -> Any:
            external_id = self.submit_job(context)  # type: ignore[attr-defined]
            self.poll_until_complete(external_id, context)  # type: ignore[attr-defined]
            return self.get_job_result(external_id, context)  # type: ignore[attr-defined]


def _executor_safeguard() -> Any:
    """The guard Airflow's ``BaseOperatorMeta`` puts on an operator's own ``execute``, if any."""
    for module in ("airflow.sdk.bases.operator", "airflow.models.baseoperator"):
        try:
            return getattr(__import__(module, fromlist=["ExecutorSafeguard"]), "ExecutorSafeguard")
        except (ImportError, AttributeError):
            continue
    return None


def _guard_execute(cls: type) -> None:
    """Give an ``execute`` defined on a mixin the guard Airflow gives one defined on the operator.

    ``BaseOperatorMeta`` wraps only the ``execute`` in an operator class's own namespace, and on
    Airflow 2 the task instance then calls ``execute(context, <Class>__sentinel=...)``; an
    unwrapped ``execute`` inherited from a plain mixin fails with an unexpected keyword argument.
    """
    execute = cls.__dict__.get("execute")
    guard = _executor_safeguard()
    if guard is None or not callable(execute) or getattr(execute, "__wrapped__", None) is not None:
        return
    cls.execute = guard().decorator(execute)  # type: ignore[attr-defined]

"""The README's operator table: the vendor registry, the classes themselves and the crash matrix."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from durable_jobs import vendors

SECTION = "operator-table"


def _load(classpath: str) -> type:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def durable_paths(cls: type) -> tuple[str, str]:
    """("yes"/"no", "yes"/"no"): durable on the synchronous path, and on the deferrable path."""
    from durable_jobs.core.mixin import DurableJobMixin

    durable = issubclass(cls, DurableJobMixin)
    # an argument of the class or of a base it passes **kwargs on to (SnowflakeNotebookOperator's parent)
    deferrable = any("deferrable" in inspect.signature(vars(k)["__init__"]).parameters
                     for k in cls.__mro__ if "__init__" in vars(k))
    return ("yes" if durable else "no", "yes" if durable and deferrable else "no")


def crash_proven(op: vendors.Operator, matrix: dict[str, Any] | None) -> str:
    """The scenarios this operator passed in the committed matrix, or why there are none."""
    if not op.crash or not matrix:
        return "not yet"
    scenarios = {sid for sid, s in matrix.get("scenarios", {}).items() if s.get("vendor") == op.crash}
    cells = [c for c in matrix.get("cells", []) if c.get("operator") == "ours" and c.get("scenario") in scenarios]
    if not cells:
        return "not yet"
    if any(c.get("deviations") or c.get("error") for c in cells):
        return "**failing cells** (see the matrix)"
    passed = list(dict.fromkeys(c["scenario"] for c in cells))
    return f"{', '.join(passed)} ([matrix](#crash-matrix))"


def render_markdown(matrix: dict[str, Any] | None) -> str:
    lines = [
        "| vendor | operator | sync durable | deferrable durable | idempotency mechanism | crash-proven |",
        "|---|---|---|---|---|---|",
    ]
    for _, service, op in vendors.operators():
        sync, deferrable = durable_paths(_load(op.classpath))
        lines.append(
            f"| {service.name} | `{op.classpath}` | {sync} | {deferrable} | {op.mechanism} | "
            f"{crash_proven(op, matrix)} |"
        )
    return "\n".join(lines) + "\n"

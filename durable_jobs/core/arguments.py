"""Checks of operator arguments that fail at DAG-parse time, naming the argument the user passed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from durable_jobs.core.exceptions import DurableJobConfigError


def positive_seconds(name: str, value: Any) -> float:
    """A number of seconds > 0 (bools are refused: ``True`` is not an interval)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise DurableJobConfigError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def seconds(name: str, value: Any) -> float:
    """A number of seconds >= 0 (bools are refused: ``True`` is not an interval)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise DurableJobConfigError(f"{name} must be a number of seconds >= 0, got {value!r}")
    return float(value)


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise DurableJobConfigError(f"{name} must be True or False, got {value!r}")
    return value


def one_of(name: str, value: Any, choices: Sequence[str], hint: str = "") -> str:
    if value not in choices:
        raise DurableJobConfigError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}{': ' + hint if hint else ''}"
        )
    return str(value)

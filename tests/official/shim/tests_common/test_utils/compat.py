"""Names that moved between Airflow versions; this stand-in supports Airflow 3 only."""

from __future__ import annotations

from airflow.sdk import timezone
from airflow.serialization.serialized_objects import DagSerialization

__all__ = ["DagSerialization", "timezone"]

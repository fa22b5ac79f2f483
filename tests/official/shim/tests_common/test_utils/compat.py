"""Names that moved between Airflow versions; this stand-in supports Airflow 3 only."""

from __future__ import annotations

from airflow.sdk import timezone

__all__ = ["timezone"]

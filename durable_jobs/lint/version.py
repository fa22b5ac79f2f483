"""Which Airflow the linted DAGs target.

The lint never imports Airflow (it must run in a bare CI image), so the default comes from the
installed distribution's metadata, and ``--airflow-version`` overrides it.
"""

from __future__ import annotations

import re
from importlib import metadata

STATE_STORE_MIN = (3, 3)
_DISTRIBUTIONS = ("apache-airflow", "apache-airflow-core")


def parse_version(text: str) -> tuple[int, int]:
    """``"3.3.2"`` -> ``(3, 3)``; patch levels and suffixes do not change any rule."""
    match = re.match(r"\s*(\d+)(?:\.(\d+))?", text)
    if not match:
        raise ValueError(f"not an Airflow version: {text!r}")
    return int(match.group(1)), int(match.group(2) or 0)


def installed_airflow_version() -> str | None:
    for dist in _DISTRIBUTIONS:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def has_state_store(version: tuple[int, int]) -> bool:
    return version >= STATE_STORE_MIN

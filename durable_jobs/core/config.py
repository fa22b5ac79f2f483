"""The ``[durable_jobs]`` options, read through Airflow's configuration with the registry's defaults.

The options are declared in the vendor registry (``durable_jobs.vendors``), which provider info
hands to Airflow, so ``airflow config list`` shows them; ``AIRFLOW__DURABLE_JOBS__<NAME>`` works as
for any option.
"""

from __future__ import annotations

from durable_jobs import vendors


def get_float(name: str) -> float:
    """Option ``name`` as a number; its registry default when Airflow's config cannot be read."""
    option = vendors.config_option(name)
    default = float(option.default)
    try:
        from airflow.configuration import conf

        return float(conf.getfloat(vendors.CONFIG_SECTION, name, fallback=default))
    except Exception:  # noqa: BLE001 - no Airflow config (docs tools, a bare import): the default
        return default


def http_timeout_from_config() -> float:
    return get_float("http_timeout_seconds")


def get_bool(name: str) -> bool:
    """Option ``name`` as a boolean; its registry default when Airflow's config cannot be read."""
    option = vendors.config_option(name)
    default = str(option.default).strip().lower() in ("1", "true", "yes", "on")
    try:
        from airflow.configuration import conf

        return bool(conf.getboolean(vendors.CONFIG_SECTION, name, fallback=default))
    except Exception:  # noqa: BLE001 - no Airflow config (docs tools, a bare import): the default
        return default

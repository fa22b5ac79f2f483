"""On the crash stack's PYTHONPATH only: route the official SnowflakeHook's URLs to the cells' emulators.

Every Airflow process (worker, triggerer, DAG processor) imports this at start-up. When
``DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL`` is set, the first import of the Snowflake hook module is
followed by ``durable_jobs.emulators.snowflake.route_from_env()``; nothing else is changed.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys

_TARGET = "airflow.providers.snowflake.hooks.snowflake"


class _RouteAfterImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):  # noqa: ANN001 - the importlib protocol
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader_exec = spec.loader.exec_module

        def exec_module(module):  # noqa: ANN001
            loader_exec(module)
            from durable_jobs.emulators.snowflake import route_from_env

            route_from_env()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if os.environ.get("DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL"):
    sys.meta_path.insert(0, _RouteAfterImport())
